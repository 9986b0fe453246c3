#pragma once
// Odd-even sorts on the host and on CUDA devices.
//
//   odd_even_sort(policy, keys, n [, comp])                 transposition sort, stable
//   odd_even_sort(policy, keys, values, n [, comp])         ... carrying a value per key
//   odd_even_merge_sort(policy, keys, n [, comp])           Batcher's network, not stable
//   odd_even_merge_sort(policy, keys, values, n [, comp])
//   segmented_odd_even_sort(policy, keys, n, offsets, segments [, comp])
//       sorts each keys[offsets[s], offsets[s+1]) on its own (offsets has segments + 1
//       entries, non-decreasing, offsets[segments] <= n), stably.
//
// The transposition sort keeps the textbook algorithm and its convergence test (stop
// after an odd and an even round that exchange nothing); for more keys than one block holds it works on
// sorted blocks that neighbours merge-split (Baudet and Stevenson 1978), the same
// odd-even rounds one level up. Sizes are 64-bit.
//
// Comparators: any strict weak order on the host (default ssum::less). ssum::less and
// ssum::greater order floating-point NaNs after every number (ascending: last; greater:
// first) and treat -0.0 and +0.0 as equal, so a stable sort keeps their input order. (NaNs
// are found by x != x: do not build with -ffast-math.)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ssum/functional.hpp"
#include "ssum/detail/cuda_types.hpp"
#include "ssum/policy.hpp"
#include "ssum/detail/cpu_odd_even.hpp"

namespace ssum {

// ---- host ----------------------------------------------------------------------------

template <class Key, class Compare = less>
void odd_even_sort(const cpu& policy, Key* keys, std::size_t n, Compare comp = {}) {
  detail::cpu_odd_even_sort(resolved_threads(policy), keys, static_cast<detail::no_values*>(nullptr), n, comp);
}
template <class Key, class Value, class Compare = less>
void odd_even_sort(const cpu& policy, Key* keys, Value* values, std::size_t n, Compare comp = {}) {
  detail::cpu_odd_even_sort(resolved_threads(policy), keys, values, n, comp);
}
template <class Key, class Compare = less>
void odd_even_merge_sort(const cpu& policy, Key* keys, std::size_t n, Compare comp = {}) {
  detail::cpu_odd_even_merge_sort(resolved_threads(policy), keys, static_cast<detail::no_values*>(nullptr), n, comp);
}
template <class Key, class Value, class Compare = less>
void odd_even_merge_sort(const cpu& policy, Key* keys, Value* values, std::size_t n, Compare comp = {}) {
  detail::cpu_odd_even_merge_sort(resolved_threads(policy), keys, values, n, comp);
}
template <class Key, class Compare = less>
void segmented_odd_even_sort(const cpu& policy, Key* keys, std::size_t n, const std::size_t* offsets,
                             std::size_t segments, Compare comp = {}) {
  detail::cpu_segmented_odd_even_sort(resolved_threads(policy), keys, static_cast<detail::no_values*>(nullptr), n,
                                      offsets, segments, comp);
}
template <class Key, class Value, class Compare = less>
void segmented_odd_even_sort(const cpu& policy, Key* keys, Value* values, std::size_t n, const std::size_t* offsets,
                             std::size_t segments, Compare comp = {}) {
  detail::cpu_segmented_odd_even_sort(resolved_threads(policy), keys, values, n, offsets, segments, comp);
}

}  // namespace ssum

// ---- CUDA ----------------------------------------------------------------------------
// Device pointers for keys, values and the offsets of segmented sorts. Keys: int32, uint32,
// int64, uint64, float, double; values: none or uint32; comparators: ssum::less,
// ssum::greater (other combinations are compile-time errors). Ordered on the policy's stream.
// The transposition sorts are stable on every path (ties are broken by input position where
// they are visible). segmented_odd_even_sort checks the offsets on the device and waits for
// the stream once, to learn how many segments of each length there are; offsets that
// decrease or run past n throw std::invalid_argument before any key moves.
// odd_even_merge_sort (not stable) takes a scratch copy of the keys (and values) from the
// stream-ordered pool for the duration of the call.
// Work: odd_even_sort is O(n^2 / tile) in the worst case (odd-even rounds between 2048-key
// tiles), each segment of segmented_odd_even_sort likewise; odd_even_merge_sort is
// O(n log^2 n) comparators. A null device pointer with n > 0 throws std::invalid_argument; a
// failing CUDA call or launch throws ssum::cuda_error. How the kernels work:
// docs/primitives.md.

namespace ssum {
namespace detail {
template <class Key, class Value, class Compare>
inline constexpr bool cuda_sort_supported =
    cuda_key<Key> && (std::is_same_v<Value, no_values> || std::is_same_v<Value, std::uint32_t>) &&
    (std::is_same_v<Compare, less> || std::is_same_v<Compare, greater>);

// Compiled in src/cuda/sort/odd_even_sort.cu for the supported combinations.
template <class Key, class Value, class Compare>
void cuda_odd_even_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n, Compare comp);
template <class Key, class Value, class Compare>
void cuda_segmented_odd_even_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n,
                                  const std::size_t* offsets, std::size_t segments, Compare comp);
// Compiled in src/cuda/sort/odd_even_merge_sort.cu for the supported combinations.
template <class Key, class Value, class Compare>
void cuda_odd_even_merge_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n, Compare comp);
}  // namespace detail

template <class Key, class Compare = less>
void odd_even_sort(const cuda& policy, Key* d_keys, std::size_t n, Compare comp = {}) {
  static_assert(detail::cuda_sort_supported<Key, detail::no_values, Compare>, "no CUDA sort for this key/comparator (see sort.hpp)");
  detail::cuda_odd_even_sort(policy, d_keys, static_cast<detail::no_values*>(nullptr), n, comp);
}
template <class Key, class Value, class Compare = less>
void odd_even_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n, Compare comp = {}) {
  static_assert(detail::cuda_sort_supported<Key, Value, Compare>, "no CUDA sort for this key/value/comparator (see sort.hpp)");
  detail::cuda_odd_even_sort(policy, d_keys, d_values, n, comp);
}
template <class Key, class Compare = less>
void odd_even_merge_sort(const cuda& policy, Key* d_keys, std::size_t n, Compare comp = {}) {
  static_assert(detail::cuda_sort_supported<Key, detail::no_values, Compare>, "no CUDA sort for this key/comparator (see sort.hpp)");
  detail::cuda_odd_even_merge_sort(policy, d_keys, static_cast<detail::no_values*>(nullptr), n, comp);
}
template <class Key, class Value, class Compare = less>
void odd_even_merge_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n, Compare comp = {}) {
  static_assert(detail::cuda_sort_supported<Key, Value, Compare>, "no CUDA sort for this key/value/comparator (see sort.hpp)");
  detail::cuda_odd_even_merge_sort(policy, d_keys, d_values, n, comp);
}
template <class Key, class Compare = less>
void segmented_odd_even_sort(const cuda& policy, Key* d_keys, std::size_t n, const std::size_t* offsets,
                             std::size_t segments, Compare comp = {}) {
  static_assert(detail::cuda_sort_supported<Key, detail::no_values, Compare>, "no CUDA sort for this key/comparator (see sort.hpp)");
  detail::cuda_segmented_odd_even_sort(policy, d_keys, static_cast<detail::no_values*>(nullptr), n, offsets, segments, comp);
}
template <class Key, class Value, class Compare = less>
void segmented_odd_even_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n,
                             const std::size_t* offsets, std::size_t segments, Compare comp = {}) {
  static_assert(detail::cuda_sort_supported<Key, Value, Compare>, "no CUDA sort for this key/value/comparator (see sort.hpp)");
  detail::cuda_segmented_odd_even_sort(policy, d_keys, d_values, n, offsets, segments, comp);
}

}  // namespace ssum

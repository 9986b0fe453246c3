#pragma once
// Merges of sorted sequences, on the host and on CUDA devices (the equal-pairs search, a walk
// along a merge, is in pair_sum.hpp).
//
//   merge(policy, a, na, b, nb, out [, comp])            out = stable merge of a and b
//   merge_by_key(policy, a_keys, a_values, na, b_keys, b_values, nb, out_keys, out_values [, comp])
//   merge_generated(policy, a, na, b_at, nb, out [, comp])   b[j] = b_at(j), computed on the fly
//   merge_generated_batch(policy, merges, count [, comp])   several independent merge_generated
//   merge_path_partition(policy, a, na, b, nb, piece, splits [, comp])   where each piece of
//                                                        `piece` outputs starts in a
//
// Merges are STABLE: on equal keys (neither comp(x, y) nor comp(y, x)) a's elements come
// before b's, and each input keeps its own order; merge_by_key moves each value with its key.
// Inputs must be sorted ascending under comp (default ssum::less, which orders NaNs last and
// treats -0.0 and +0.0 as equal; ssum::greater for descending inputs). The output holds
// na + nb elements and must NOT overlap either input (nor out_values the value inputs).
// Sizes are 64-bit; any sizes, including 0 and very unequal lengths.
//
// Host (ssum::cpu): OpenMP through cpu_team. The merge path (merge_path.hpp) cuts the output
// into team size x 4 lanes, each thread merging its 4 lanes in lockstep, branch-free; merges of
// fewer than 2^16 elements run on the calling thread (same lanes). comp, b_at and the value
// assignments are called from several threads at once and must not throw. b_at may be called
// more than once for the same j: keep it a cheap pure function.
//
// merge_path_partition is the merge's selection step on its own (Akl and Santoro's split of
// both inputs into pieces that merge independently, as merge path): for other algorithms
// that cut a merge among their own workers. It returns pieces = ceil((na + nb) / piece) and
// writes splits[k] = merge_path_split(a, na, b, nb, min(k x piece, na + nb)) for k in
// [0, pieces] (pieces + 1 entries: a host array on ssum::cpu, a device array on ssum::cuda,
// written in stream order): piece k of the stable merge is a[splits[k], splits[k + 1]) with
// b[k x piece - splits[k], ...). piece must be at least 1; on CUDA pieces must stay below
// 2^31 - 1 (std::invalid_argument otherwise).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "ssum/functional.hpp"
#include "ssum/detail/cpu_merge.hpp"
#include "ssum/detail/cuda_types.hpp"
#include "ssum/merge_path.hpp"
#include "ssum/policy.hpp"

namespace ssum {

/// One merge of merge_generated_batch: out[0, na + nb) = the stable merge of a[0, na) and
/// b_at(0), ..., b_at(nb - 1), as merge_generated.
template <class T, class BAt>
struct generated_merge {
  const T* a;
  std::size_t na;
  BAt b_at;
  std::size_t nb;
  T* out;
};

// ---- host ----------------------------------------------------------------------------

template <class T, class Compare = less>
void merge(const cpu& policy, const T* a, std::size_t na, const T* b, std::size_t nb, T* out, Compare comp = {}) {
  detail::cpu_merge(resolved_threads(policy), detail::cpu_merge_grain, a, na, b, nb, out, comp);
}

template <class K, class V, class Compare = less>
void merge_by_key(const cpu& policy, const K* a_keys, const V* a_values, std::size_t na, const K* b_keys,
                  const V* b_values, std::size_t nb, K* out_keys, V* out_values, Compare comp = {}) {
  detail::cpu_merge_by_key(resolved_threads(policy), detail::cpu_merge_grain, a_keys, a_values, na, b_keys, b_values,
                           nb, out_keys, out_values, comp);
}

/// b_at(j), j in [0, nb), must yield (something convertible to) T, ascending under comp.
template <class T, class BAt, class Compare = less>
void merge_generated(const cpu& policy, const T* a, std::size_t na, BAt b_at, std::size_t nb, T* out,
                     Compare comp = {}) {
  detail::cpu_merge_generated(resolved_threads(policy), detail::cpu_merge_grain, a, na, b_at, nb, out, comp);
}

/// merges[0, count): a host array; each merge as merge_generated (none may write another's input).
template <class T, class BAt, class Compare = less>
void merge_generated_batch(const cpu& policy, const generated_merge<T, BAt>* merges, std::size_t count,
                           Compare comp = {}) {
  for (std::size_t k = 0; k < count; ++k) {
    const generated_merge<T, BAt>& m = merges[k];
    merge_generated(policy, m.a, m.na, m.b_at, m.nb, m.out, comp);
  }
}

namespace detail {
/// Pieces of `piece` outputs in a merge of `total`; throws where piece is 0.
inline std::size_t merge_path_pieces(std::size_t total, std::size_t piece) {
  if (piece == 0) throw std::invalid_argument("ssum::merge_path_partition: piece must be at least 1");
  return total / piece + (total % piece != 0);
}
}  // namespace detail

/// a: a pointer or random-access iterator; b_at(j) = b[j] (a callable, as merge_path_split).
template <class AIt, class BAt, class Compare = less>
std::size_t merge_path_partition(const cpu& policy, AIt a, std::size_t na, BAt b_at, std::size_t nb,
                                 std::size_t piece, std::size_t* splits, Compare comp = {}) {
  if (na > SIZE_MAX - nb) throw std::invalid_argument("ssum::merge_path_partition: na + nb overflows");
  const std::size_t total = na + nb, pieces = detail::merge_path_pieces(total, piece);
  if (!splits) throw std::invalid_argument("ssum::merge_path_partition: null splits");
  // Independent searches, a thread's share strided (each costs O(log) reads).
  detail::cpu_team(detail::cpu_merge_team(resolved_threads(policy), pieces + 1, 1024), [&](unsigned t, unsigned p) {
    for (std::size_t k = t; k <= pieces; k += p) {
      const std::size_t d = k < pieces ? k * piece : total;
      splits[k] = merge_path_split(a, na, b_at, nb, d, comp);
    }
  });
  return pieces;
}

}  // namespace ssum

// ---- CUDA ----------------------------------------------------------------------------
// Device pointers for every array (a generator's `data` too); results ordered on the
// policy's stream; every call returns at once (nothing synchronises). Supported:
//   merge / merge_generated   T in int32, int64, uint32, uint64, float, double; comparators
//                             ssum::less, ssum::greater; generators plus_constant<T> and
//                             minus_reversed<T> (the only two compiled for the device);
//   merge_generated_batch     the same types and comparators, generator plus_constant<T>; up
//                             to four merges share one launch (merges small enough to be
//                             latency-bound overlap);
//   merge_by_key              keys as above, values uint32 or uint64;
//   ssum::uint128             merge, merge_generated (both generators), merge_generated_batch
//                             and merge_path_partition with ssum::less only (the two-list's
//                             sums past 2^64); no merge_by_key.
// Work O(na + nb), depth O(log(na + nb)); scratch of 8 bytes per tile of a few thousand
// outputs (under 0.1% of the data), from the stream-ordered pool. How the tiles are cut and
// merged: docs/primitives.md.
// Limits: fewer than 2^31 tiles (over 5 x 10^12 outputs); outputs must not overlap inputs.
// Null device pointers for a non-empty range, and a minus_reversed with n < nb, throw
// std::invalid_argument; CUDA failures throw ssum::cuda_error.

namespace ssum {
namespace detail {
template <class T, class Compare>
inline constexpr bool cuda_merge_supported =
    (cuda_key<T> && (std::is_same_v<Compare, less> || std::is_same_v<Compare, greater>)) ||
    (cuda_wide_key<T> && std::is_same_v<Compare, less>);
template <class V>
inline constexpr bool cuda_merge_value = std::is_same_v<V, std::uint32_t> || std::is_same_v<V, std::uint64_t>;
template <class T, class BAt>
inline constexpr bool cuda_merge_generator =
    std::is_same_v<BAt, plus_constant<T>> || std::is_same_v<BAt, minus_reversed<T>>;

// Compiled in src/cuda/merge/merge.cu for the supported combinations.
template <class T, class Compare>
void cuda_merge(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb, T* d_out,
                Compare comp);
template <class K, class V, class Compare>
void cuda_merge_by_key(const cuda& policy, const K* d_a_keys, const V* d_a_values, std::size_t na, const K* d_b_keys,
                       const V* d_b_values, std::size_t nb, K* d_out_keys, V* d_out_values, Compare comp);
template <class T, class BAt, class Compare>
void cuda_merge_generated(const cuda& policy, const T* d_a, std::size_t na, BAt b_at, std::size_t nb, T* d_out,
                          Compare comp);
template <class T, class BAt, class Compare>
void cuda_merge_generated_batch(const cuda& policy, const generated_merge<T, BAt>* merges, std::size_t count,
                                Compare comp);
template <class T, class Compare>
std::size_t cuda_merge_path_partition(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                      std::size_t piece, std::size_t* d_splits, Compare comp);
}  // namespace detail

template <class T, class Compare = less>
void merge(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb, T* d_out,
           Compare comp = {}) {
  static_assert(detail::cuda_merge_supported<T, Compare>, "no CUDA merge for this type/comparator (see merge.hpp)");
  detail::cuda_merge(policy, d_a, na, d_b, nb, d_out, comp);
}

template <class K, class V, class Compare = less>
void merge_by_key(const cuda& policy, const K* d_a_keys, const V* d_a_values, std::size_t na, const K* d_b_keys,
                  const V* d_b_values, std::size_t nb, K* d_out_keys, V* d_out_values, Compare comp = {}) {
  static_assert(detail::cuda_merge_supported<K, Compare> && detail::cuda_key<K> && detail::cuda_merge_value<V>,
                "no CUDA merge_by_key for this key/value/comparator (see merge.hpp)");
  detail::cuda_merge_by_key(policy, d_a_keys, d_a_values, na, d_b_keys, d_b_values, nb, d_out_keys, d_out_values, comp);
}

/// b_at: plus_constant<T> or minus_reversed<T> over a DEVICE array, ascending under comp.
template <class T, class BAt, class Compare = less>
void merge_generated(const cuda& policy, const T* d_a, std::size_t na, BAt b_at, std::size_t nb, T* d_out,
                     Compare comp = {}) {
  static_assert(detail::cuda_merge_supported<T, Compare> && detail::cuda_merge_generator<T, BAt>,
                "no CUDA merge_generated for this type/generator/comparator (see merge.hpp)");
  detail::cuda_merge_generated(policy, d_a, na, b_at, nb, d_out, comp);
}

/// merges: a HOST array of merges over DEVICE arrays (b_at: plus_constant<T>); see above.
template <class T, class BAt, class Compare = less>
void merge_generated_batch(const cuda& policy, const generated_merge<T, BAt>* merges, std::size_t count,
                           Compare comp = {}) {
  static_assert(detail::cuda_merge_supported<T, Compare> && std::is_same_v<BAt, plus_constant<T>>,
                "no CUDA merge_generated_batch for this type/generator/comparator (see merge.hpp)");
  detail::cuda_merge_generated_batch(policy, merges, count, comp);
}

/// d_a, d_b, d_splits: DEVICE arrays (d_splits: pieces + 1 entries); returns pieces at once,
/// the splits follow in stream order.
template <class T, class Compare = less>
std::size_t merge_path_partition(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                 std::size_t piece, std::size_t* d_splits, Compare comp = {}) {
  static_assert(detail::cuda_merge_supported<T, Compare>,
                "no CUDA merge_path_partition for this type/comparator (see merge.hpp)");
  return detail::cuda_merge_path_partition(policy, d_a, na, d_b, nb, piece, d_splits, comp);
}

}  // namespace ssum

#pragma once
// Prefix sums (scans) and stream compaction, on the host and on CUDA devices.
//
//   inclusive_scan(policy, in, out, n, op)        out[i] = in[0] op ... op in[i]
//   inclusive_scan(policy, in, out, n, op, init)  out[i] = init op in[0] op ... op in[i]
//   exclusive_scan(policy, in, out, n, init, op)  out[0] = init, out[i] = init op in[0] ... op in[i-1]
//
// Argument order follows std::inclusive_scan / std::exclusive_scan. `in == out` (in place) is
// allowed; otherwise the ranges must not overlap. Sizes are 64-bit end to end.
//
// Determinism: integer scans are exact. Floating-point scans combine elements in an order
// fixed by the size alone (tiles of a fixed size, combined left to right), so a float scan
// gives bit-identical results run to run for the same size and backend — but not the same
// bits as a sequential loop, nor across backends, since the association differs.
//
// Host (ssum::cpu): any associative operator, any trivially copyable T.
// CUDA (ssum::cuda): device pointers; T in {int32, int64, uint32, uint64, float, double};
// op in {plus, minimum, maximum} and bit_or for integers; plus the widening sums
// uint8 -> uint64 and int8 -> int64 (In and Out differ). Work is ordered on the policy's
// stream and nothing synchronises the host except functions that return a host value.
// An unsupported CUDA combination is a compile-time error.
//
// Work: O(n) on both backends. An integer CUDA scan reads and writes each element once (one
// launch); a floating-point one reads the input twice. copy_if is one pass as well.
// Errors: a null device pointer with n > 0 throws std::invalid_argument; a failing CUDA
// call or launch throws ssum::cuda_error. How the kernels work: docs/primitives.md.
//
//   ssum::inclusive_scan(ssum::cpu{}, in, out, n);                         // running sum
//   ssum::exclusive_scan(ssum::cuda{stream}, d_in, d_out, n, 0, ssum::plus{});
//   std::size_t kept = ssum::copy_if(ssum::cuda{}, d_in, d_out, n, ssum::nonzero{});
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ssum/functional.hpp"
#include "ssum/detail/cpu_scan.hpp"
#include "ssum/detail/cuda_types.hpp"
#include "ssum/policy.hpp"

namespace ssum {

// ---- host ----------------------------------------------------------------------------

template <class T, class Op = plus>
void inclusive_scan(const cpu& policy, const T* in, T* out, std::size_t n, Op op = {}) {
  detail::cpu_scan(resolved_threads(policy), in, out, n, op, static_cast<const T*>(nullptr), false);
}

template <class T, class Op>
void inclusive_scan(const cpu& policy, const T* in, T* out, std::size_t n, Op op, T init) {
  detail::cpu_scan(resolved_threads(policy), in, out, n, op, &init, false);
}

template <class T, class Op = plus>
void exclusive_scan(const cpu& policy, const T* in, T* out, std::size_t n, T init, Op op = {}) {
  detail::cpu_scan(resolved_threads(policy), in, out, n, op, &init, true);
}

/// Copies the elements that satisfy `pred` to out, in order; returns how many.
template <class T, class Pred>
std::size_t copy_if(const cpu& policy, const T* in, T* out, std::size_t n, Pred pred) {
  return detail::cpu_copy_if(resolved_threads(policy), in, out, n, pred);
}

// ---- CUDA ----------------------------------------------------------------------------

namespace detail {
template <class In, class Out, class Op>
inline constexpr bool cuda_scan_supported =
    (std::is_same_v<In, Out> && cuda_key<Out> &&
     (std::is_same_v<Op, plus> || std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum> ||
      (std::is_same_v<Op, bit_or> && std::is_integral_v<Out>))) ||
    (std::is_same_v<Op, plus> && ((std::is_same_v<In, std::uint8_t> && std::is_same_v<Out, std::uint64_t>) ||
                                  (std::is_same_v<In, std::int8_t> && std::is_same_v<Out, std::int64_t>)));

// Compiled in src/cuda/scan/scan.cu for the supported combinations.
template <class In, class Out, class Op>
void cuda_scan(const cuda& policy, const In* d_in, Out* d_out, std::size_t n, Op op, const Out* init, bool exclusive);
}  // namespace detail

template <class In, class Out, class Op = plus>
void inclusive_scan(const cuda& policy, const In* d_in, Out* d_out, std::size_t n, Op op = {}) {
  static_assert(detail::cuda_scan_supported<In, Out, Op>, "this type/operator pair has no CUDA scan (see scan.hpp)");
  detail::cuda_scan(policy, d_in, d_out, n, op, static_cast<const Out*>(nullptr), false);
}

template <class In, class Out, class Op>
void inclusive_scan(const cuda& policy, const In* d_in, Out* d_out, std::size_t n, Op op, Out init) {
  static_assert(detail::cuda_scan_supported<In, Out, Op>, "this type/operator pair has no CUDA scan (see scan.hpp)");
  detail::cuda_scan(policy, d_in, d_out, n, op, &init, false);
}

template <class In, class Out, class Op = plus>
void exclusive_scan(const cuda& policy, const In* d_in, Out* d_out, std::size_t n, Out init, Op op = {}) {
  static_assert(detail::cuda_scan_supported<In, Out, Op>, "this type/operator pair has no CUDA scan (see scan.hpp)");
  detail::cuda_scan(policy, d_in, d_out, n, op, &init, true);
}


namespace detail {
template <class T, class Pred>
std::size_t cuda_copy_if(const cuda& policy, const T* d_in, T* d_out, std::size_t n, Pred pred);
}

/// Stream compaction on the device: copies the elements satisfying pred, in order, and
/// returns their number (this waits for the stream). T as for scans; Pred nonzero or in_range<T>.
template <class T, class Pred>
std::size_t copy_if(const cuda& policy, const T* d_in, T* d_out, std::size_t n, Pred pred) {
  static_assert(detail::cuda_key<T>, "this type has no CUDA compaction (see scan.hpp)");
  return detail::cuda_copy_if(policy, d_in, d_out, n, pred);
}

}  // namespace ssum

#pragma once
// The equal-pairs search over two sorted sequences, on the host and on CUDA devices.
//
//   find_pair_sum(policy, a, na, b, nb, t)               some (i, j) with a[i] + b[j] == t
//   count_pair_sums(policy, a, na, b, nb, t)             how many such (i, j)
//   find_any_pair_sum(policy, a, na, b, nb, ts, k)       some (i, j, m) with a[i] + b[j] == ts[m]
//
// a + b = t iff a = t - b, so the search is a walk along the merge of A with the
// ascending C = (t - B reversed), and each thread takes an equal share of that merge's
// diagonals (no pruning step). A and B must be ascending under operator<, T an integer type.
// The sum is EXACT, not T's arithmetic: (i, j) matches when a[i] + b[j] == t as mathematical
// integers. Elements b for which t - b does not fit in T have no partner in T and are skipped
// before the walk (so no intermediate ever overflows), and unsigned arithmetic never wraps:
// for unsigned T only b <= t can match. count_pair_sums counts index pairs, duplicates by
// multiplicity (a value appearing 2 times in A and 3 times in B gives 6); the count is exact
// while it fits 64 bits (it is at most na * nb). find_pair_sum stops threads early once a
// match is known; on the host which match it returns may differ run to run, on CUDA it is
// always the one with the smallest i (and for that i, the smallest j). find_any_pair_sum
// searches for several targets ts[0, k) (a host array) at once and returns a match of the
// first target (in order) that has one, as find_pair_sum over the targets one by one would
// (found is false only when no target has a match); on CUDA that target's match with the
// smallest i (and that i's smallest j), run to run; small searches take up to four targets
// per launch of each kernel.
// Work O(na + nb) per target, depth O(log(na + nb)); sizes are 64-bit, any sizes, 0 included.
// Host (ssum::cpu): OpenMP through cpu_team, the merges' lanes (merge.hpp).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ssum/detail/cpu_merge.hpp"
#include "ssum/detail/cuda_types.hpp"
#include "ssum/policy.hpp"

namespace ssum {

/// A match of find_pair_sum: a[i] + b[j] == t when found.
struct pair_match {
  bool found;
  std::size_t i, j;
};

/// A match of find_any_pair_sum: a[i] + b[j] == ts[target] when found.
struct any_pair_match {
  bool found;
  std::size_t target, i, j;
};

// ---- host ----------------------------------------------------------------------------

template <class T>
pair_match find_pair_sum(const cpu& policy, const T* a, std::size_t na, const T* b, std::size_t nb, T t) {
  const detail::pair_match_result r =
      detail::cpu_find_pair_sum(resolved_threads(policy), detail::cpu_merge_grain, a, na, b, nb, t);
  return {r.found, r.i, r.j};
}

template <class T>
std::uint64_t count_pair_sums(const cpu& policy, const T* a, std::size_t na, const T* b, std::size_t nb, T t) {
  return detail::cpu_count_pair_sums(resolved_threads(policy), detail::cpu_merge_grain, a, na, b, nb, t);
}

template <class T>
any_pair_match find_any_pair_sum(const cpu& policy, const T* a, std::size_t na, const T* b, std::size_t nb,
                                 const T* ts, std::size_t k) {
  for (std::size_t m = 0; m < k; ++m) {
    const pair_match r = find_pair_sum(policy, a, na, b, nb, ts[m]);
    if (r.found) return {true, m, r.i, r.j};
  }
  return {false, 0, 0, 0};
}

}  // namespace ssum

// ---- CUDA ----------------------------------------------------------------------------
// Device pointers for a and b; ts is a HOST array. T in int32, int64, uint32, uint64 and
// ssum::uint128 (the two-list's sums past 2^64), with the host's exact semantics (counts wrap modulo 2^64 past that). Every call returns a host
// value, so it waits for the policy's stream. The match find_pair_sum returns is always the
// one with the smallest a index (and that a's first partner), run to run; find_any_pair_sum's
// that of the first target with a match. How the walk is tiled: docs/primitives.md.
// Limits: fewer than 2^31 tiles per target (over 5 x 10^12 elements). Null device pointers
// for a non-empty range, or null ts with k > 0, throw std::invalid_argument; CUDA failures
// throw ssum::cuda_error.

namespace ssum {
namespace detail {
// Compiled in src/cuda/pair_sum/pair_sum.cu for the supported types.
template <class T>
pair_match cuda_find_pair_sum(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb, T t);
template <class T>
std::uint64_t cuda_count_pair_sums(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                   T t);
template <class T>
any_pair_match cuda_find_any_pair_sum(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                      const T* ts, std::size_t k);
}  // namespace detail

/// Waits for the stream (returns a host value).
template <class T>
pair_match find_pair_sum(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb, T t) {
  static_assert(detail::cuda_integer_key<T> || detail::cuda_wide_key<T>,
                "no CUDA find_pair_sum for this type (see pair_sum.hpp)");
  return detail::cuda_find_pair_sum(policy, d_a, na, d_b, nb, t);
}

/// Waits for the stream (returns a host value).
template <class T>
std::uint64_t count_pair_sums(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb, T t) {
  static_assert(detail::cuda_integer_key<T> || detail::cuda_wide_key<T>,
                "no CUDA count_pair_sums for this type (see pair_sum.hpp)");
  return detail::cuda_count_pair_sums(policy, d_a, na, d_b, nb, t);
}

/// ts: a HOST array of k targets. Waits for the stream (returns a host value).
template <class T>
any_pair_match find_any_pair_sum(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                 const T* ts, std::size_t k) {
  static_assert(detail::cuda_integer_key<T> || detail::cuda_wide_key<T>,
                "no CUDA find_any_pair_sum for this type (see pair_sum.hpp)");
  return detail::cuda_find_any_pair_sum(policy, d_a, na, d_b, nb, ts, k);
}

}  // namespace ssum

#pragma once
// Merges of sorted sequences and the equal-pairs search, on the host.
//
//   merge(policy, a, na, b, nb, out [, comp])            out = stable merge of a and b
//   merge_by_key(policy, a_keys, a_values, na, b_keys, b_values, nb, out_keys, out_values [, comp])
//   merge_generated(policy, a, na, b_at, nb, out [, comp])   b[j] = b_at(j), computed on the fly
//   find_pair_sum(policy, a, na, b, nb, t)               some (i, j) with a[i] + b[j] == t
//   count_pair_sums(policy, a, na, b, nb, t)             how many such (i, j)
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
// Equal pairs: a + b = t iff a = t - b, so the search is a walk along the merge of A with the
// ascending C = (t - B reversed), and each thread takes an equal share of that merge's
// diagonals (no pruning step). A and B must be ascending under operator<, T an integer type.
// The sum is EXACT, not T's arithmetic: (i, j) matches when a[i] + b[j] == t as mathematical
// integers. Elements b for which t - b does not fit in T have no partner in T and are skipped
// before the walk (so no intermediate ever overflows), and unsigned arithmetic never wraps:
// for unsigned T only b <= t can match. count_pair_sums counts index pairs, duplicates by
// multiplicity (a value appearing 2 times in A and 3 times in B gives 6); the count is exact
// while it fits 64 bits (it is at most na * nb). find_pair_sum stops every thread once one has
// found a match; which match it returns may differ run to run.
#include <cstddef>
#include <cstdint>

#include "ssum/detail/cpu_merge.hpp"
#include "ssum/merge_path.hpp"
#include "ssum/policy.hpp"
#include "ssum/sort.hpp"  // ssum::less, ssum::greater

namespace ssum {

// ---- generators for merge_generated ------------------------------------------------------

/// b_at(j) = data[j] + c: ascending when data is (and nothing wraps).
template <class T>
struct plus_constant {
  const T* data;
  T c;
  SSUM_HOST_DEVICE T operator()(std::size_t j) const { return static_cast<T>(data[j] + c); }
};

/// b_at(j) = t - data[n - 1 - j] for j < n: ascending when data is (and nothing wraps).
template <class T>
struct minus_reversed {
  const T* data;
  std::size_t n;
  T t;
  SSUM_HOST_DEVICE T operator()(std::size_t j) const { return static_cast<T>(t - data[n - 1 - j]); }
};

/// A match of find_pair_sum: a[i] + b[j] == t when found.
struct pair_match {
  bool found;
  std::size_t i, j;
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

}  // namespace ssum

#pragma once
// Internal: the completion search for dense instances, many items and weights too wide for
// any table (issue: random n = 100 with 55-bit weights; a partition of 1000 60-bit weights).
//
// Such instances have astronomically many solutions; the search finds one without proving
// anything. Each attempt takes K items, a random choice among the 2K lightest (the lightest
// give the densest sub-instance), and fixes the others by a randomised greedy so that the
// residual target falls near the middle of what the K items can reach (a random order, then
// what is left heaviest first, each item taken while it fits). The K-item instance has about
// 2^K / (its sums' spread) solutions; residue_join.hpp looks for one in a few residue classes
// of its four-list, and an attempt whose classes hold none gives way to a fresh choice.
//
// Zero-sum instances take the same path: with the negative weights' magnitudes taken by
// default, a subset of the magnitudes that sums to theirs is a zero-sum subset, and the one
// that maps back to the empty subset is excluded.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "solver/reductions.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// An attempt's shape: K items, the modulus of its residue classes, the log2 of the solutions
/// its sub-instance expects, the classes it tries before a fresh choice, and the bytes.
struct completion_plan {
  std::size_t items = 0;
  std::uint64_t modulus = 2;
  double log2_solutions = 0;
  std::uint64_t classes = 1;
  double bytes = 0;
};

/// The attempts' shape for the reduced instance `r` (more than K + 8 items) on `threads`
/// threads within `room` bytes: the K in 48..92 that minimises the quarter lists (4 * 2^(K/4)
/// sums) plus the classes expected before the first solution (each 2 * 2^(K/4) sums and
/// 2 * 2^(K/2) / M pairs), with M the largest prime at most 2^(K/4) and at most the solutions
/// expected, but large enough for at most 2^22 pairs a side. Empty when no K expects a
/// solution within 2^28 such steps: not dense.
std::optional<completion_plan> completion_plan_for(const reduction& r, unsigned threads, double room);

/// Searches the reduced instance of `p` until a subset is found (mapped back to p's indices)
/// or options.cancel rises (ssum::interrupted; under a time limit, status::unknown). Never
/// answers infeasible. Deterministic: the attempts' choices come from options.seed, and a
/// subset found is the same for any thread count.
solution solve_completion(const cpu& policy, const problem& p, const reduction& r, const solve_options& options);

}  // namespace ssum::detail

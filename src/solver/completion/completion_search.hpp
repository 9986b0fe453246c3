#pragma once
// Internal: the completion search for dense instances, many items and weights too wide for
// any table (issue: random n = 100 with 55-bit weights; a partition of 1000 60-bit weights).
//
// Such instances have astronomically many solutions; the search finds one without proving
// anything. Each attempt takes K items, a random choice among the 2K lightest (the lightest
// give the densest sub-instance), and fixes the others by a randomised greedy so that the
// residual target falls near the middle of what the K items can reach (a random order, then
// what is left heaviest first, each item taken while it fits). The K-item instance is then
// answered by the four-list (Schroeppel-Shamir, modular), which stops at its first solution:
// with about 2^K / (range of the K items' sums) solutions spread over its 2^(K/4) residue
// classes, the first few classes hold one. An attempt that has not found one within its
// budget (doubling from 0.25 s) gives way to a fresh choice.
#include <cstddef>
#include <optional>

#include "solver/reductions.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// An attempt's size: its K items and the log2 of the solutions its sub-instance expects.
struct completion_plan {
  std::size_t items = 0;
  double log2_solutions = 0;
};

/// The attempts' K for the reduced instance `r` (a target, not zero-sum, more than K + 8
/// items): the K in 48..92 that minimises the four-list's lists (4 * 2^(K/4) sums) plus the
/// classes it scans before the first solution (2^(K/4) / solutions of them, each 2^(K/4)
/// sums). Empty when no K expects a solution within 2^28 such sums: not dense.
std::optional<completion_plan> completion_plan_for(const reduction& r);

/// Searches the reduced instance of `p` until a subset is found (mapped back to p's indices)
/// or options.cancel rises (ssum::interrupted; under a time limit, status::unknown). Never
/// answers infeasible. Deterministic: the attempts' choices come from a fixed seed.
solution solve_completion(const cpu& policy, const problem& p, const reduction& r, const solve_options& options);

}  // namespace ssum::detail

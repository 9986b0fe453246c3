#pragma once
// Internal: the reductions every dynamic-programming solve starts from. Each one keeps the
// answer (feasible or not) and lets a subset of the reduced instance be mapped back to the
// original indices; reduce() lists the ones that changed something.
//
// With a target, in this order:
//   zero weights set aside     they never change a sum;
//   divided by the gcd         of the nonzero magnitudes (a target it does not divide is
//                              infeasible);
//   negative weights flipped   |w| taken by default: target' = target + sum |negative w|;
//   the complement             total - target' when that is smaller (the items left out);
//   heavy items removed        a non-negative item above the target can never take part.
// Zero-sum (no target): a zero weight is itself the answer; otherwise, after the gcd, a
// non-empty subset sums to zero exactly when some sum s > 0 is reached by positive items and
// by negative magnitudes alike, so s <= min(sum of positives, sum of |negatives|) and items
// above that bound are removed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "solver/frame.hpp"
#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum::detail {

struct reduction {
  enum class verdict { open, infeasible, answered };
  verdict outcome = verdict::open;
  std::vector<std::size_t> answer;       // answered: the subset (original indices)
  bool zero_sum = false;
  std::vector<uint128> weights;          // the reduced magnitudes, each in [1, bound]
  std::vector<std::size_t> index;        // their original indices
  std::vector<bool> negative;            // zero-sum: the item is a negative weight's magnitude
  uint128 bound = 0;                     // the reduced target; zero-sum: min of the two sides' sums
  bool complemented = false;             // the reduced instance asks for the items left out
  std::size_t zero_weights = 0;          // set aside: each doubles the count of solutions
  std::vector<std::string> applied;      // what --json lists as "reductions"
};

/// The reductions above for `p`, whose target is in range (!totals.out_of_range()).
reduction reduce(const problem& p, const flipped_totals& totals);

/// The original subset (ascending) for a subset of the reduced instance, given as positions
/// in r.weights: with a target, the reduced subset reaches r.bound; zero-sum, its positive
/// and negative parts have equal sums.
std::vector<std::size_t> map_back(const problem& p, const reduction& r, const std::vector<std::size_t>& chosen);

}  // namespace ssum::detail

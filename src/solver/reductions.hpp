#pragma once
// Internal: the reductions every solve starts from (the dynamic program and the
// meet-in-the-middle algorithms alike). Each one keeps the
// answer (feasible or not) and lets a subset of the reduced instance be mapped back to the
// original indices; reduce() lists the ones that changed something.
//
// With a target, in this order:
//   zero weights set aside     they never change a sum;
//   divided by the gcd         of the nonzero magnitudes (a target it does not divide is
//                              infeasible);
//   negative weights flipped   |w| taken by default: target' = target + sum |negative w|;
//   the complement             total - target' when that is smaller (the items left out);
//   heavy items removed        a non-negative item above the target can never take part;
//   the count test             infeasible when no k has the k lightest at most the target
//                              and the k heaviest at least it;
//   residue classes            infeasible when the target's residue mod some q in 2..64 is
//                              not reached by any subset (residue_classes.hpp; zero-sum too);
//   few distinct weights       (not counting) a subset built from each weight's share and the
//                              least sum of a class mod the smallest weight (few_values.hpp);
//   divisor groups             items that fall into at most three groups, each sharing a
//                              divisor, settled without a table over the target
//                              (divisor_groups.hpp): infeasible, or (not counting) a subset.
// Zero-sum (no target): a zero weight is itself the answer; otherwise, after the gcd, a
// non-empty subset sums to zero exactly when some sum s > 0 is reached by positive items and
// by negative magnitudes alike, so s <= min(sum of positives, sum of |negatives|) and items
// above that bound are removed. That lowers a side's sum and so the bound: the removal repeats
// until nothing changes (infeasible when one sign is left), in O(n log n).
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
  std::vector<std::size_t> index;        // their original indices (grouped: see copies)
  std::vector<std::size_t> copies;       // grouped: item k stands for copies[k] equal weights,
                                         // the next copies[k] entries of index; empty: one each
  std::vector<bool> negative;            // zero-sum: the item is a negative weight's magnitude
  uint128 bound = 0;                     // the reduced target; zero-sum: min of the two sides' sums
  bool complemented = false;             // the reduced instance asks for the items left out
  std::size_t zero_weights = 0;          // set aside: each doubles the count of solutions
  std::vector<std::string> applied;      // what --json lists as "reductions"
};

/// The reductions above for `p`, whose target is in range (!totals.out_of_range()). counting:
/// no reduction answers with one subset (a count needs them all), only infeasible.
/// divisor_groups: false leaves that step out (for its own tests).
reduction reduce(const problem& p, const flipped_totals& totals, bool counting = false, bool divisor_groups = true);

/// For the decision dynamic program: equal magnitudes (on one side, zero-sum) grouped and
/// split into items of 1, 2, 4, ..., and the rest copies (binary splitting of a bounded
/// multiplicity), which still reach every number of copies from 0 to m with about log2(m) + 1
/// items instead of m; items above the bound dropped (no count that fits uses them); heaviest
/// first (reductions.cpp says why). Lists itself when it shrinks the items. Not for counting:
/// a count needs each subset once.
reduction group_equal_weights(const reduction& r);

/// The reduced instance as a problem for the meet-in-the-middle algorithms (r.outcome == open):
/// the magnitudes r.weights with the target r.bound, or zero-sum with the negative items
/// signed; its subsets' indices are positions in r.weights, for map_back().
problem reduced_problem(const reduction& r);

/// The original subset (ascending) for a subset of the reduced instance, given as positions
/// in r.weights: with a target, the reduced subset reaches r.bound; zero-sum, its positive
/// and negative parts have equal sums.
std::vector<std::size_t> map_back(const problem& p, const reduction& r, const std::vector<std::size_t>& chosen);

}  // namespace ssum::detail

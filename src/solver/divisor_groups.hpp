#pragma once
// Internal: settles a reduced instance whose items fall into at most three groups, each
// sharing a divisor (weights k*g1, k*g2, k*g3, as in the somatoth class). A group's sums are
// its divisor times the subset sums of its divided weights, so each group needs a bitset only
// up to t / g_i; a congruence then joins the groups without a table over the target t.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "solver/reductions.hpp"

namespace ssum::detail {

struct divisor_groups_verdict {
  bool infeasible = false;                 // proven: no subset of r.weights sums to r.bound
  std::vector<std::size_t> positions;      // else, when non-empty: positions in r.weights summing to r.bound
  std::vector<std::uint64_t> divisors;     // the groups' divisors g1, g2[, g3] (for the reason text)
};

/// Empty optional: the method does not apply (zero-sum, r.outcome != open, no items, no cover
/// by <= 3 divisor groups, bitsets not much smaller than the target, a group's bitset above
/// 2^26 sums, or its cost estimate exceeds `most_work` elementary steps).
/// Throws nothing but std::bad_alloc.
std::optional<divisor_groups_verdict> settle_by_divisor_groups(const reduction& r, double most_work = 2e8);

}  // namespace ssum::detail

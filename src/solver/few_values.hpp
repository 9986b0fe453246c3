#pragma once
// Internal: a subset for a reduced instance of few distinct weights with many copies each
// (a bounded multiplicity: x_i copies of value v_i, 0 <= x_i <= c_i, sum x_i v_i = t). The
// copies of every value but the smallest, m, are set near their share t / total of the
// target less a margin; the rest of the target is reached by the fewest-sum combination of
// those values in its residue class mod m (round robin over the m classes: Boecker and
// Liptak 2007, O(d m)) and copies of m. A construction: it proves nothing when it fails, and
// the solve goes on to its plan, so every verdict stays exact.
#include <cstddef>
#include <vector>

#include "solver/reductions.hpp"

namespace ssum::detail {

/// Positions in r.weights summing to r.bound, or empty when the construction does not apply
/// (zero-sum, grouped, more than 16 distinct weights, the smallest above 2^22, too few
/// copies) or finds none. O(n d) for d distinct weights plus O(d m) per margin tried.
std::vector<std::size_t> few_values_subset(const reduction& r);

}  // namespace ssum::detail

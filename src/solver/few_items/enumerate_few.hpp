#pragma once
// Internal: every subset in a window under a small size bound, by visiting each subset of at
// most max_items items in turn (depth first, ascending indices). No table and no lists: any
// number of items and any width of sums, at a cost of sum_{k <= max_items} C(n, k) steps. It
// answers a few items of many (3 of 121), which the meet in the middle (60 items at most), the
// four-list (120) and the table (a narrow span of sums) cannot. Host-only, one thread.
#include <cstddef>
#include <functional>
#include <vector>

#include "solver/two_list/enumerate.hpp"

namespace ssum::detail {

/// The subsets of n items with at most max_items items: the steps the walk takes (a double,
/// as it passes 2^64 long before n does).
double enumerate_few_steps(std::size_t n, std::size_t max_items);

/// As enumerate_subsets (the same request, the same contract for limit, on_subset returning
/// false, cancel, non_empty and size bounds; each subset once with ascending indices, the index
/// vector reused between calls), in ascending lexicographic order of the index vectors, over
/// any number of items. Throws std::invalid_argument for null weights or |w| adding up to
/// 2^127 or more.
enumerate_result enumerate_subsets_few(const enumerate_request& r,
                                       const std::function<bool(const std::vector<std::size_t>&)>& on_subset);

}  // namespace ssum::detail

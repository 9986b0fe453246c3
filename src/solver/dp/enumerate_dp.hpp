#pragma once
// Internal: every subset whose sum lies in a window, streamed one at a time, by dynamic
// programming over subset sums (Bellman 1957) and backtracking through the table: reach[i] is
// the bitset of sums reachable by a subset of items 0..i-1 (one bitset per size k under size
// bounds), and a depth-first walk from the last item down follows only branches the table says
// lead to a subset, so each subset costs O(n) steps after the table is built. The dense
// counterpart of meet in the middle (two_list/enumerate.hpp): any number of items, as long as
// the span of sums is small (many items with small weights). Host-only, one thread.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "solver/two_list/enumerate.hpp"
#include "ssum/int128.hpp"

namespace ssum::detail {

/// The widest span of sums a row of the table may cover: 2^40 bits (128 GiB a row).
constexpr std::uint64_t enumerate_dp_widest_span = std::uint64_t(1) << 40;

/// The table's bytes for these weights, window and size bounds: n + 1 rows of one bit per sum
/// in [max(neg, lo - pos), min(pos, hi - neg)] (neg, pos: the sums of the negative and of the
/// positive weights; no prefix sum of a subset in the window lies outside), in 64-bit words,
/// times min(max_items, n) + 1 sizes when the bounds restrict (min_items > 0 or
/// max_items < n). 0 when nothing can be listed (lo > hi, the window past every sum,
/// min_items > max_items or min_items > n); +infinity when the span exceeds
/// enumerate_dp_widest_span. Throws std::invalid_argument when sum |w| reaches 2^127.
double enumerate_dp_bytes(const std::vector<int128>& weights, int128 lo, int128 hi, std::size_t min_items,
                          std::size_t max_items);

/// As enumerate_subsets (the same contract: limit, stop, cancel, non_empty, size bounds, each
/// subset once with ascending indices, the index vector reused between calls), by the table,
/// with no limit on the number of items. The order of listing: by size, then by the sum, then
/// depth first with the last item left out before it is taken.
/// Throws std::invalid_argument for null weights or |w| adding up to 2^127 or more;
/// ssum::insufficient_memory when enumerate_dp_bytes exceeds max_bytes, before allocating (or
/// when the allocation fails); std::invalid_argument, without a budget, when the span of sums
/// exceeds enumerate_dp_widest_span.
enumerate_result enumerate_subsets_dp(const enumerate_request& r,
                                      const std::function<bool(const std::vector<std::size_t>&)>& on_subset);

}  // namespace ssum::detail

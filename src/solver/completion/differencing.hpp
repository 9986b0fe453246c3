#pragma once
// Internal: differencing for the completion search (completion_search.hpp), after Karmarkar
// and Karp, *The differencing method of set partitioning* (1982). Two numbers replaced by
// their difference are put on opposite sides of the partition, the larger on the side of the
// difference; a pass records each difference as a node with its two parts, so a partition of
// what is left maps back to one of the numbers it started from.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "ssum/int128.hpp"

namespace ssum::detail {

/// A differencing pass over m numbers. Ids below m are the numbers; id m + j is node j, whose
/// value is that of parts[j].first less that of parts[j].second.
struct differenced {
  std::size_t numbers = 0;                                     // m
  std::vector<uint128> value;                                  // by id (empty for dense_difference)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> parts;  // node j's parts, larger first
  std::vector<std::uint32_t> left;                             // the ids left at the end
  std::vector<double> square_sums, totals;                     // [c]: at c numbers, their squares' sum and sum
  std::vector<std::uint32_t> left_at_48;                       // a pass beyond 48: the 48 left then,
  std::size_t parts_at_48 = 0;                                 // after this many differences

  std::size_t ids() const { return numbers + parts.size(); }
};

/// Karmarkar-Karp: the two largest replaced by their difference until `k` numbers are left.
/// With `shake`, now and then the largest is paired with the third largest instead, so that
/// each attempt reaches other k numbers. Records square sums and totals at counts up to
/// `record_from`, and the 48 left on the way.
/// The numbers: `weights`, then `d` unless 0.
differenced difference_down_to(const std::vector<uint128>& weights, uint128 d, std::size_t k,
                               std::mt19937_64* shake, std::size_t record_from = 0);

/// For many numbers well above the weights' bits: a perfect partition in O(m) plus a small
/// Karmarkar-Karp, or nothing (then the full pass decides). The partition form's numbers:
/// `weights`, then `d` unless 0. A d wider than every weight is first differenced with
/// weights until it is not. One round pairs neighbours in value order (a bucket order by the
/// top bits), which takes about log2(m) bits off every number at once; the narrowest
/// differences form a pool (as many as differencing needs for their width, at least 256);
/// the others are differenced one by one into a running number, widest first, which leaves
/// it about as wide as the pool; Karmarkar-Karp over the pool and it then ends at 0 when the
/// pool is large enough. On success `left` holds the one node left, 0.
std::optional<differenced> dense_difference(const std::vector<uint128>& weights, uint128 d);

/// The side (0 or 1) of every id, given the sides of the ids left (side_of_left[j] for
/// left[j]): each node's larger part on its side, the other opposite, the latest node first.
std::vector<char> sides(const differenced& d, const std::vector<char>& side_of_left);

}  // namespace ssum::detail

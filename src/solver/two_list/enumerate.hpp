#pragma once
// Internal: every subset whose sum lies in a window, streamed one at a time, by meet in the
// middle (Horowitz and Sahni 1974): the sorted subset sums of each half, kept with their masks,
// joined by two pointers. Host-only: the halves built on two threads where asked, the join on
// one. Backs `ssum solve --all / --limit / --unique`.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "ssum/int128.hpp"

namespace ssum::detail {

/// The most items the enumerator takes: each half's mask is 32 bits, and 2^30 sums per list
/// is already far past any host's memory.
constexpr std::size_t enumerate_most_items = 60;

struct enumerate_request {
  const std::vector<int128>* weights = nullptr;  // signed, as given; sum of |w| below 2^127
  int128 lo = 0, hi = 0;                         // every subset with lo <= sum <= hi
  bool non_empty = false;                        // zero-sum form: the empty subset excluded
  std::size_t min_items = 0, max_items = SIZE_MAX;  // cardinality bounds, inclusive
  std::uint64_t limit = 0;                       // stop after this many (0: all)
  double max_bytes = 0;                          // the lists' budget (0: no budget)
  const std::atomic<bool>* cancel = nullptr;     // polled every few thousand steps
  unsigned threads = 1;                          // 2 or more: the two halves built at once
};

struct enumerate_result {
  std::uint64_t listed = 0;  // on_subset calls made
  bool complete = false;     // every subset in the window and the bounds was listed
  bool cancelled = false;    // stopped because *cancel was raised
};

/// Calls on_subset(indices, ascending) once for every subset with lo <= sum <= hi and
/// min_items <= size <= max_items (the empty subset skipped when non_empty), in ascending
/// order of the first half's sum, until one of:
///  - all are listed: complete = true;
///  - `limit` are listed: complete = true only when no further subset exists (one more is
///    looked for, not reported), so limit = 2 tells whether a subset is unique;
///  - on_subset returns false: stops at once, complete = false;
///  - *cancel is raised: returns complete = false, cancelled = true. It does not throw
///    ssum::interrupted, so the caller keeps `listed` and what it printed.
/// An empty window (lo > hi) lists nothing, complete. The index vector is reused between
/// calls: copy it to keep it.
/// Throws std::invalid_argument for null weights, more than enumerate_most_items items, or
/// |w| adding up to 2^127 or more; ssum::insufficient_memory when the lists
/// (enumerate_list_bytes with max_items) exceed max_bytes, before allocating.
enumerate_result enumerate_subsets(const enumerate_request& r,
                                   const std::function<bool(const std::vector<std::size_t>&)>& on_subset);

/// What a pair sink answers: how many of the pairs it was given went out (all of them unless
/// the receiver asked to stop part way), and whether the listing goes on.
struct pairs_handed {
  std::uint64_t handed = 0;
  bool go_on = true;
};

/// Receives the pairs of one stretch of a batch, in order, as mask_a | mask_b << 32
/// (item i < n/2 is bit i of mask_a, item n/2 + j bit j of mask_b), already filtered by the
/// size bounds and non_empty and cut at the limit; it may rewrite them in place (they are the
/// listing's own buffer).
using pair_sink = std::function<pairs_handed(std::span<std::uint64_t> pairs)>;

/// enumerate_subsets with each subset handed to `sink` as a pair of half masks (above), in
/// stretches of up to `stretch` pairs, not as indices: the bulk listing converts and verifies
/// them in batches itself. The same subsets, order, limit, complete, cancel and errors;
/// `listed` counts what the sink handed out, and what was found before a cancel is handed out.
enumerate_result enumerate_pairs(const enumerate_request& r, std::uint64_t stretch, const pair_sink& sink);

/// The bytes of the two half lists for these weights under the size bound max_items (the
/// request's): a half of c items keeps its subsets of at most max_items items,
/// sum_{k <= min(c, max_items)} C(c, k) sums (2^c when unbounded), 16 bytes a sum while
/// sum |w| < 2^63, 32 beyond. Independent of the number of solutions. Throws
/// std::invalid_argument as enumerate_subsets does when sum |w| reaches 2^127.
double enumerate_list_bytes(const std::vector<int128>& weights, std::size_t max_items = SIZE_MAX);

/// The most bytes enumerate_subsets plans for n items (32-byte entries, both lists, no size
/// bound).
double enumerate_planned_bytes(std::size_t n);

}  // namespace ssum::detail

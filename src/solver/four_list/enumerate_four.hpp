#pragma once
// Internal: every subset in a narrow window, streamed, by the four-list in its modular form
// (Schroeppel and Shamir 1981; the residue split of Howgrave-Graham and Joux 2010): memory
// O(2^(n/4)) where the meet in the middle (two_list/enumerate.hpp) keeps 2^(n/2) sums.
// Host-only; the residue classes are shared out among threads, the subsets handed out in one
// stream.
#include <cstddef>
#include <functional>
#include <vector>

#include "solver/two_list/enumerate.hpp"

namespace ssum::detail {

/// The most items: each quarter's mask is 32 bits and holds at most 30 items.
constexpr std::size_t enumerate_four_most_items = 120;

/// The widest window (hi - lo + 1 values) the four-list lists: the modular split fixes one
/// target, so a window is searched one target at a time, each a whole pass.
constexpr std::uint64_t enumerate_four_widest_window = 1024;

/// The bytes the four-list listing plans for n items on `threads` threads: four quarter lists
/// of 2^(n/4) sums with residues, two bucket arrays, and per thread one residue class's right
/// side (about 2^(n/4) pairs with their masks).
double enumerate_four_bytes(std::size_t n, unsigned threads);

/// As enumerate_subsets (the same request, the same contract for limit, on_subset returning
/// false, cancel and size bounds), over at most enumerate_four_most_items items and a window
/// of at most enumerate_four_widest_window values, on `threads` threads. on_subset is called
/// from one thread at a time; the order of the subsets is not specified. An exception thrown by
/// on_subset stops every thread and is rethrown. Throws std::invalid_argument past those
/// bounds or for |w| adding up to 2^127, ssum::insufficient_memory when the plan exceeds
/// r.max_bytes (before allocating).
enumerate_result enumerate_subsets_four(const enumerate_request& r, unsigned threads,
                                        const std::function<bool(const std::vector<std::size_t>&)>& on_subset);

}  // namespace ssum::detail

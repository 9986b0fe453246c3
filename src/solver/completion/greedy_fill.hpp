#pragma once
// Internal: a constructive answer for instances with very many items and very many solutions
// (for example "psix": n weights uniform in [1, 10^6] and the target n 10^6 / 4), where the
// exact dynamic program would take seconds to minutes.
//
// A random core C of m items (m in 24..most_core) is set aside; the other items, in random
// order, are added greedily while the running sum stays at most t - sum(C)/2, so that the gap
// g = t - running lands near the middle of the range of C's subset sums, where those sums are
// densest. C is then solved exactly for g by meet-in-the-middle (two sorted lists of the halves'
// subset sums, one two-pointer pass). A miss (a gap outside C's range, or no subset of C hits
// it) tries another core and order, up to `attempts` times. The search proves nothing: an empty
// answer only means that none was found.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "solver/frame.hpp"
#include "solver/reductions.hpp"

namespace ssum::detail {

struct greedy_fill_limits {
  std::size_t most_core = 44;   // largest exact core (two lists of 2^(most_core/2) sums); at most 60
  int attempts = 4;             // random cores tried before giving up
  std::uint64_t seed = 0x5eed;  // deterministic
};

/// Positions in r.weights (ascending) summing to r.bound, or empty when it finds none (it cannot
/// prove none). Declines (returns empty at once) for zero-sum, r.outcome != open, a bound of 0,
/// or when the instance expects too few solutions for the method (log2_expected_solutions below
/// 8). Calls check_cancel(options) between steps (ssum::interrupted). The subset is verified
/// (sum exactly r.bound, distinct positions in range) before it is returned.
std::vector<std::size_t> greedy_fill(const reduction& r, const solve_options& options,
                                     const greedy_fill_limits& limits = {});

/// The bytes greedy_fill takes for `r` under `limits`: its core's two lists and merge space
/// (16-byte entries, 32 where the total needs 128 bits) and the items' order.
double greedy_fill_planned_bytes(const reduction& r, const greedy_fill_limits& limits = {});

/// A heavy tail: many light items that together reach every sum near the middle of their
/// range, and a few heavy ones, each heavier than all the light ones together (ascending by
/// weight, positions in r.weights). Then no differencing brings the heavy ones near the light.
struct heavy_split {
  std::vector<std::size_t> light, heavy;
  uint128 light_total = 0;
};

/// The split of `r` (open, with a target) where at least 1000 light items expect 2^20
/// solutions around the middle of their sums and the heavy items are at most a tenth of all;
/// empty otherwise. O(n log n).
std::optional<heavy_split> heavy_split_of(const reduction& r);

/// Positions in r.weights (ascending) summing to r.bound, or empty (it cannot prove none): a
/// subset of the heavy items whose sum leaves the light items a residual near the middle of
/// their range, found by ssum::solve on the heavy weights rounded to a scale that the light
/// items' slack absorbs (a few targets tried), then the residual by greedy_fill on the light
/// items. The heavy solve runs on `threads` within `room` bytes and `seconds` per try;
/// `heavy_bytes` (if given) receives the planned bytes of the heavy solve that answered.
std::vector<std::size_t> split_fill(const reduction& r, const heavy_split& split, const solve_options& options,
                                    unsigned threads, double room, double seconds,
                                    std::uint64_t* heavy_bytes = nullptr);

}  // namespace ssum::detail

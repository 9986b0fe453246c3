#pragma once
// Internal: the host dynamic program (Bellman's reachable sums as a bitset), run on a reduced
// instance (solver/reductions.hpp).
//
// Bit s of the table says that some subset of the items so far sums to s, 0 <= s <= T. Item
// i adds its weight w to every reachable sum: bits |= bits << w, computed only over the words
// it can change (from w up to min(T, the sum of the items so far)). The forward pass keeps
// only the table and, every n/C items, a copy of it (a checkpoint). The certificate is
// recovered as Hirschberg recovers an alignment from linear space: the items after the last
// checkpoint are run again from it over the window of sums that can still lead to the target
// (target - their total weight .. target), one row per item where those rows fit a budget and
// by the same scheme, recursively, where they do not; the rows walked back from the target
// name the items. The window of a segment of k items is about k times the mean weight wide,
// so recovery costs about 2/C of the forward pass rather than 4 bytes per sum.
#include <cstddef>
#include <cstdint>
#include <string>

#include "solver/reductions.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// The largest reduced bound the dynamic program plans for (its item numbers are 32-bit and
/// its tables would exceed any machine beyond this): 2^40.
constexpr double dp_most_sums = 1099511627776.0;

/// Bytes the dynamic program plans for a reduced instance within `room` bytes: per table (two
/// for zero-sum, one per side) the bitset (bound/8) and up to 8 checkpoints of it (up to 32
/// within 24 MiB for small tables; as many as fit, at least one), the recovery rows (4
/// tables' worth, at least 1 MiB, twice for the recursion) and a scratch block (up to 8 MiB).
/// Beyond the room: the smallest plan.
double dp_planned_bytes(const reduction& r, double room = 1e300);

/// About how long the dynamic program takes on `threads` host threads: word operations
/// (bound/64 per item, a quarter more for the recovery) at a rate measured on the host
/// (bitset_dp.cpp).
double dp_seconds(const reduction& r, unsigned threads);

/// Solves the reduced instance of `p` (r.outcome == open, r.bound <= dp_most_sums) and maps the
/// subset back to p's indices. Throws ssum::interrupted on cancellation, std::bad_alloc when
/// the tables cannot be allocated.
/// host: the plan's threads and room (host_share_for).
solution solve_dp(const host_share& host, const problem& p, const reduction& r, const solve_options& options);

}  // namespace ssum::detail

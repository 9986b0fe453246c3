#pragma once
// Internal: Pisinger's balanced dynamic program for the subset-sum decision with a target
// (Pisinger, "Linear time algorithms for knapsack problems with bounded weights",
// J. Algorithms 33 (1999), algorithm balsub), run on a reduced instance (solver/reductions.hpp).
//
// With r the largest weight, c the target and b the break item (the first whose prefix sum
// exceeds c), a "balanced" filling starts from items 1..b-1 and adds an item after b-1 while
// its sum is at most c, or removes one before b while it is above c; every sum it passes lies
// in (c - r, c + r], and some balanced filling reaches c whenever any subset does. State
// s_t(mu), over those 2r sums, is the largest s such that a balanced filling of sum mu keeps
// items 1..s-1 and uses no item after t: O(n r) time, O(r) states, against the bitset's
// n c / 64 word operations (bitset_dp.hpp). The certificate comes from a log of each item's
// changed states, replayed backwards; a log beyond its budget is rebuilt in segments.
#include <cstddef>
#include <cstdint>

#include "solver/reductions.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// The largest weight the balanced program takes (its state numbers, 2r at most, weights and
/// item numbers are 32-bit); balanced_planned_bytes is 2^127 beyond it, so that no plan fits.
constexpr double balanced_most_weight = 2147483647.0;

/// Bytes the balanced program plans for a reduced instance (target mode): two state arrays of
/// 2r + 1 32-bit entries and up to 16 checkpoint copies of them, 24 bytes an item, and a log
/// of changed states (8 bytes an entry) for 4(2r + 1) + 2^16 entries. Under a tighter room
/// solve_balanced shrinks the log, down to 2r + 1 entries (one item's changes at most).
double balanced_planned_bytes(const reduction& r);

/// About how long the balanced program takes when no early answer stops it (every item
/// after the break item runs): passes over the states and removals, at rates measured on the
/// host (balanced_dp.cpp).
double balanced_seconds(const reduction& r);

/// Solves the reduced instance of `p` (r.outcome == open, !r.zero_sum) and maps the subset back
/// to p's indices (map_back). One thread. Throws ssum::insufficient_memory when even the
/// smallest log does not fit host.room, ssum::interrupted on
/// cancellation, std::bad_alloc when the arrays cannot be allocated.
solution solve_balanced(const host_share& host, const problem& p, const reduction& r, const solve_options& options);

}  // namespace ssum::detail

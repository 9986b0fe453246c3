#pragma once
// Internal: the host dynamic program (Bellman's reachable sums as a bitset), run on a reduced
// instance (solver/reductions.hpp).
//
// Bit s of the table says that some subset of the items so far sums to s, 0 <= s <= T. Item
// i adds its weight w to every reachable sum: bits |= bits << w, computed only over the words
// it can change (from w up to min(T, the sum of the items so far)). For each sum the table
// keeps the first item that reached it; when s was first reached by item i, s - w_i was
// already reachable with items before i, so walking back s -= w_{first[s]} from T ends at 0
// with distinct, strictly decreasing items: a certificate from T/8 + 4(T+1) bytes rather
// than one bitset per item.
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

/// Bytes the dynamic program plans for a reduced instance: per table (two for zero-sum, one
/// per side) the bitset (bound/8) and the first-item numbers (4 per sum), and a scratch block
/// (up to 8 MiB).
double dp_planned_bytes(const reduction& r);

/// About how long the dynamic program takes on `threads` host threads: word operations
/// (bound/64 per item) at a rate measured on the host (bitset_dp.cpp).
double dp_seconds(const reduction& r, unsigned threads);

/// Solves the reduced instance of `p` (r.outcome == open, r.bound <= dp_most_sums) and maps the
/// subset back to p's indices. Throws ssum::interrupted on cancellation, std::bad_alloc when
/// the tables cannot be allocated.
solution solve_dp(const cpu& policy, const problem& p, const reduction& r, const solve_options& options);

}  // namespace ssum::detail

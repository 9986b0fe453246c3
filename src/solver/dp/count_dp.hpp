#pragma once
// Internal: the host dynamic program that counts (--count), run on a reduced instance
// (solver/reductions.hpp), exact at any size through GMP.
//
// count[s], 0 <= s <= T, is the number of subsets of the items so far that sum to s; item i
// of weight w adds count[s - w] to count[s], from s = min(T, the sum of the items so far) down
// to w, so that each addend is still the count before item i. After i items every count is
// below 2^i, so a row holds ceil(i / 64) limbs of 64 bits: the rows widen in place as the
// items go (one allocation for the last width) and each addition (GMP's mpn_add_n, a plain
// 64-bit add while one limb holds it) touches only the limbs in use.
//
// Every reduction keeps the count except the zero weights: each of the z doubles it. With a
// target, the count is 2^z count[T]. Zero-sum, P over the positive items and M over the
// negative magnitudes: the subsets summing to 0 are the pairs of a positive part and a
// negative part of one sum s, times any choice of zero weights: 2^z sum_s P(s) M(s), less
// the empty subset.
//
// The certificate comes from the bitset program first (bitset_dp.hpp): a fraction of the
// count's work, and an infeasible answer ends the solve without any count table.
#include <cstddef>
#include <cstdint>

#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/big_count.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// A count c over the nonzero items with z zero weights put back: c 2^z (any choice of them
/// joins each subset); zero-sum (c + 1) 2^z - 1 (they join the empty subset too, which alone
/// does not count). Every algorithm's count goes through here; it needs no GMP.
big_count with_zero_weights(const big_count& c, std::size_t z, bool zero_sum);

/// Whether this build can count with the dynamic program (it was built with GMP).
bool count_dp_available();

/// The reduction a count runs on: reduce()'s, except that zero-sum zero weights are set aside
/// (r.zero_weights) instead of answering, with the first of them as r.answer: a zero weight
/// decides a zero-sum instance, but every subset of the other items still counts.
reduction count_reduction(const problem& p, const flipped_totals& totals);

/// Bytes the count plans for an open reduction: the larger of the bitset program's (the
/// certificate, first) and the count tables' ((T + 1) rows of ceil(items / 64) limbs, one
/// table per side zero-sum). Beyond dp_most_sums, 2^127 (no plan).
double count_dp_planned_bytes(const reduction& r);

/// About how long the count takes on the host: limb additions at a rate measured here.
double count_dp_seconds(const reduction& r);

/// Decides and counts the reduced instance r of `p` (any outcome: answered and infeasible
/// reductions are counted without a table); the subset is mapped back to p's indices.
/// Throws ssum::backend_unavailable without GMP, ssum::interrupted on cancellation,
/// std::bad_alloc when the tables cannot be allocated.
solution solve_count_dp(const host_share& host, const problem& p, const reduction& r, const solve_options& options);

}  // namespace ssum::detail

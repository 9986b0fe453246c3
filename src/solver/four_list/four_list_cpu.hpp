#pragma once
// Internal: the host four-list solver behind ssum::solve(cpu, ...) with algorithm::four_list.
#include "solver/frame.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Bytes the four-list plans for `p` on `threads` threads without a memory limit: O(2^(n/4))
/// lists plus a cache-sized class per thread (a limit takes smaller classes).
double four_list_planned_bytes(const problem& p, unsigned threads);

/// Solves on the host; the subset it returns is not yet verified (ssum::solve does that).
/// host: the plan's threads and room (host_share_for); totals: totals_of(p). Throws std::invalid_argument beyond 120 items.
solution solve_four_list(const host_share& host, const problem& p, const flipped_totals& totals,
                         const solve_options& options);

}  // namespace ssum::detail

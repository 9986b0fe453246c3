#pragma once
// Internal: the host two-list solver behind ssum::solve(cpu, ...).
#include <cstddef>

#include "ssum/solve.hpp"

namespace ssum::detail {

/// Solves on the host; the subset it returns is not yet verified (ssum::solve does that).
solution solve_two_list(const cpu& policy, const problem& p, const solve_options& options);

}  // namespace ssum::detail

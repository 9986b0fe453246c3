#pragma once
// Internal: the CUDA two-list solver behind ssum::solve(cuda, ...) (src/cuda/solver/two_list.cu;
// src/solver/cuda_unavailable.cpp in builds without CUDA). Host-only declarations.
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Solves on the device; the subset it returns is not yet verified (ssum::solve does that).
solution solve_two_list_cuda(const cuda& policy, const problem& p, const solve_options& options);

/// Bytes a solve on `device` may plan for: 95% of the free memory plus what the solver's
/// arena already holds there.
double cuda_solver_room(int device);

}  // namespace ssum::detail

#pragma once
// Internal: the CUDA two-list solver behind ssum::solve(cuda, ...) (src/solver/two_list/two_list_cuda.cu;
// src/solver/gpu/cuda_unavailable.cpp in builds without CUDA). Host-only declarations.
#include "solver/frame.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Solves on the device (totals: totals_of(p)); the subset it returns is not yet verified
/// (ssum::solve does that). host_threads: the host's share (the certificate's two halves side
/// by side, or with 1 one after the other); 0: two.
solution solve_two_list_cuda(const cuda& policy, const problem& p, const flipped_totals& totals,
                             const solve_options& options, unsigned host_threads = 0);

}  // namespace ssum::detail

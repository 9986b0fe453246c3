// The two-list solver on a CUDA device: solver/two_list/two_list_merging.hpp's algorithm over device
// memory, with ssum's CUDA merge, find_pair_sum and count_pair_sums doing the work (Horowitz
// and Sahni 1974; the GPU form of Wan, Li, Liu, Li, CCPE 27:119-145, 2015). Nothing per
// element crosses PCIe: single values are read back for the certificate only.
#include <cuda_runtime.h>

#include "solver/two_list/two_list_cuda.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "solver/gpu/solver_memory.cuh"

namespace ssum::detail {

// The memory: solver_memory.cuh (one kept cudaMalloc per device, shared with the four-list).
solution solve_two_list_cuda(const cuda& policy, const problem& p, const flipped_totals& totals,
                             const solve_options& options, unsigned host_threads) {
  cuda_detail::device_scope on(policy.device);
  cuda_detail::device_memory memory(policy.device, policy.stream);
  try {
    return two_list_by_merging(policy, memory, p, totals, options, "cuda", host_threads);
  } catch (...) {
    // Kernels may still be reading the arena (an exception between launches): let them finish
    // before another solve takes it. Errors here are the stream's, already being reported.
    (void)cudaStreamSynchronize(policy.stream);
    throw;
  }
}

}  // namespace ssum::detail

#pragma once
// Hopper's bulk copy (PTX ISA 8.0, sm_90: cp.async.bulk with an mbarrier counting the bytes
// that have landed): one thread starts the copy of a whole contiguous run of global memory
// into shared memory, and the bytes in flight hold no registers of any thread. The device
// functions exist for sm_90 and later only; hosts ask runs_bulk_copy_code before a launch.
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "cuda/common/check.cuh"

namespace ssum::cuda_detail {

/// Whether the current device runs `kernel`'s sm_90 code: its PTX was generated for compute
/// capability 9.0 or later (a build for older architectures only has their path, and a device
/// before sm_90 cannot run such code at all).
template <class Kernel>
bool runs_bulk_copy_code(Kernel* kernel) {
  cudaFuncAttributes attributes{};
  SSUM_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return attributes.ptxVersion >= 90;
}

/// What a persistent launch of `kernel` (threads per block, dynamic shared memory smem) gets
/// on the current device: whether the device runs its sm_90 code, and blocks = SMs x blocks
/// per SM. Asked once per kernel and device (the shared-memory attribute is set then too).
struct persistent_shape {
  bool runs = false;
  unsigned blocks = 0;
  /// The grid for `tiles` tiles: every resident block, or one per tile when there are fewer;
  /// at most max_blocks when that is not 0 (tests: blocks that go round their rings).
  unsigned grid_for(std::size_t tiles, unsigned max_blocks = 0) const {
    unsigned grid = tiles < blocks ? unsigned(tiles) : blocks;
    if (max_blocks > 0 && grid > max_blocks) grid = max_blocks;
    return grid;
  }
};

template <class Kernel>
persistent_shape persistent_shape_of(Kernel* kernel, int threads, std::size_t smem) {
  // Kernels of one signature share this function: the key is the kernel as well as the device.
  static std::mutex lock;
  static std::map<std::pair<const void*, int>, persistent_shape> known;
  int device = 0;
  SSUM_CUDA_CHECK(cudaGetDevice(&device));
  const std::pair<const void*, int> key{reinterpret_cast<const void*>(kernel), device};
  std::lock_guard<std::mutex> hold(lock);
  const auto found = known.find(key);
  if (found != known.end()) return found->second;
  persistent_shape shape;
  shape.runs = runs_bulk_copy_code(kernel);
  if (shape.runs) {
    if (smem > 48 * 1024) {
      SSUM_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    }
    int sms = 0, per_sm = 0;
    SSUM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SSUM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    shape.runs = per_sm > 0;
    shape.blocks = unsigned(sms) * unsigned(per_sm > 0 ? per_sm : 0);
  }
  known.emplace(key, shape);
  return shape;
}

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// An mbarrier in shared memory whose phase completes after `arrivals` arrivals and the bytes
/// announced by expect_bytes. Initialise by one thread, then a block barrier before others wait.
__device__ __forceinline__ void bulk_barrier_init(unsigned long long* bar, unsigned arrivals = 1) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}
/// Makes the initialisations visible to the copy engine (the async proxy).
__device__ __forceinline__ void bulk_barrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
/// One arrival of the issuing thread, announcing how many bytes the copies will deliver.
__device__ __forceinline__ void bulk_barrier_expect_bytes(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
/// `count` arrivals without bytes, releasing this thread's earlier accesses to the waiters.
__device__ __forceinline__ void bulk_barrier_arrive(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
/// dst (shared) <- src (global), `bytes` a multiple of 16, both addresses 16-byte aligned.
/// EvictFirst: the source is read once, so it should not push other data out of L2.
template <bool EvictFirst>
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  if constexpr (EvictFirst) {
    asm volatile(
        "{\n\t.reg .b64 policy;\n\t"
        "createpolicy.fractional.L2::evict_first.b64 policy, 1.0;\n\t"
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], "
        "policy;\n\t}" ::"r"(shared_address(dst)),
        "l"(src), "r"(bytes), "r"(shared_address(bar))
        : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            shared_address(dst)),
        "l"(src), "r"(bytes), "r"(shared_address(bar))
        : "memory");
  }
}
/// Orders this thread's earlier shared-memory accesses (the generic proxy) before bulk copies
/// that later write the same memory (the async proxy).
__device__ __forceinline__ void bulk_proxy_fence() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
/// Waits until phase `parity` of the barrier completed (the first use: parity 0).
__device__ __forceinline__ void bulk_barrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
#endif

}  // namespace ssum::cuda_detail

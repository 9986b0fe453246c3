// The slots of kept_state.cuh.
#include "cuda/common/kept_state.cuh"

#include <cuda.h>  // driver API types only: its functions are reached through the runtime
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <mutex>

#include "cuda/common/check.cuh"

namespace ssum::cuda_detail {
namespace {

constexpr std::size_t slot_count = 64;

}  // namespace

// The current context's id (cuCtxGetId: unique for the life of the program, where a device
// reset may hand out the same handle again). The driver functions are looked up through
// the runtime, so nothing links against libcuda.
bool current_context_id(unsigned long long& id) {
  using get_current_t = CUresult (*)(CUcontext*);
  using get_id_t = CUresult (*)(CUcontext, unsigned long long*);
  struct entry_points {
    get_current_t get_current = nullptr;
    get_id_t get_id = nullptr;
  };
  static const entry_points driver = [] {
    entry_points e;
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &f, 12000, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess) {
      e.get_current = reinterpret_cast<get_current_t>(f);
    }
    if (cudaGetDriverEntryPointByVersion("cuCtxGetId", &f, 12000, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess) {
      e.get_id = reinterpret_cast<get_id_t>(f);
    }
    (void)cudaGetLastError();  // a failed lookup only means: keep no state
    return e;
  }();
  CUcontext context = nullptr;
  return driver.get_current && driver.get_id && driver.get_current(&context) == CUDA_SUCCESS && context &&
         driver.get_id(context, &id) == CUDA_SUCCESS;
}

kept_state_slot* kept_state_for(cudaStream_t stream, std::size_t bytes) {
  if (bytes > kept_state_max_bytes) return nullptr;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();  // e.g. the legacy stream while another stream captures: the launch will say
    return nullptr;
  }
  if (capture != cudaStreamCaptureStatusNone) return nullptr;
  unsigned long long stream_id = 0, context_id = 0;
  if (cudaStreamGetId(stream, &stream_id) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  if (!current_context_id(context_id)) return nullptr;

  static std::mutex table_lock;
  static std::array<kept_state_slot, slot_count> slots;
  static std::size_t used = 0;
  std::lock_guard<std::mutex> hold(table_lock);
  for (std::size_t i = 0; i < used; ++i) {
    if (slots[i].context == context_id && slots[i].stream == stream_id) return &slots[i];
  }
  if (used == slot_count) return nullptr;
  slots[used].context = context_id;
  slots[used].stream = stream_id;
  return &slots[used++];
}

void grow_kept_state(kept_state_slot& slot, std::size_t bytes, cudaStream_t stream) {
  std::size_t size = 4096;
  while (size < bytes) size *= 2;
  void* fresh = nullptr;
  SSUM_CUDA_CHECK(cudaMallocAsync(&fresh, size, stream));
  const cudaError_t zeroed = cudaMemsetAsync(fresh, 0, size, stream);
  if (zeroed != cudaSuccess) {
    cudaFreeAsync(fresh, stream);
    SSUM_CUDA_CHECK(zeroed);
  }
  void* const old = slot.data;
  slot.data = fresh;
  slot.bytes = size;
  if (old) SSUM_CUDA_CHECK(cudaFreeAsync(old, stream));
}

}  // namespace ssum::cuda_detail

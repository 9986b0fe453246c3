// The CUDA solvers' kept device memory (solver_memory.cuh): the arena itself, the room a plan
// may use, and its release.
#include <cuda_runtime.h>

#include <mutex>

#include "solver/gpu/cuda_room.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "solver/gpu/solver_memory.cuh"
#include "ssum/cuda_device.hpp"

namespace ssum {
namespace cuda_detail {

arena& arena::instance() {
  static arena* a = new arena;  // never destroyed: the driver reclaims device memory at exit
  return *a;
}

}  // namespace cuda_detail

double detail::cuda_solver_room(int device) {
  cuda_detail::device_scope on(device);
  return cuda_detail::room_with(cuda_detail::arena::instance().for_device(device));
}

void release_cuda_memory() {
  cuda_detail::arena& a = cuda_detail::arena::instance();
  std::lock_guard<std::mutex> hold(a.table_lock);
  for (auto& [device, slot] : a.slots) {
    std::lock_guard<std::mutex> busy(slot.busy);
    if (!slot.data) continue;
    cuda_detail::device_scope on(device);
    cuda_detail::forget_if_stale(slot);  // a reset context freed it already
    if (!slot.data) continue;
    SSUM_CUDA_CHECK(cudaFree(slot.data));
    slot.data = nullptr;
    slot.bytes = 0;
  }
}

std::size_t cuda_memory_kept() {
  cuda_detail::arena& a = cuda_detail::arena::instance();
  std::lock_guard<std::mutex> hold(a.table_lock);
  std::size_t total = 0;
  for (const auto& [device, slot] : a.slots) total += slot.bytes.load();
  return total;
}

}  // namespace ssum

#pragma once
// Scratch that stays allocated and zeroed from one launch to the next, for kernels that
// leave it zeroed when they finish (tile_scan.cuh's reset_when_last). A single-pass scan
// needs its tile state zeroed before it starts; taking fresh scratch for each call costs a
// memset and the pool's allocation on the stream besides the kernel (2^20 int32 on the
// H200: 8.87 us a call against 6.77 us with state kept, docs/performance.md).
//
// One slot per (CUDA context, stream), both named by ids that are unique for the life of
// the program, so a destroyed stream's handle reused, or a device reset, never meets old
// state. Every use of a slot's buffer is ordered on its own stream, and its lock is held
// while a launch is enqueued, so host threads may share a stream. Not kept (a fresh buffer
// and a memset instead): on a stream being captured into a graph (the graph may be replayed
// on any stream), above kept_state_max_bytes, and once all slots are taken. Kept buffers
// are small and live until the process ends.
#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"

namespace ssum::cuda_detail {

constexpr std::size_t kept_state_max_bytes = std::size_t{256} << 10;

struct kept_state_slot {
  std::mutex lock;  // held from the size check to the launch
  unsigned long long context = 0, stream = 0;
  void* data = nullptr;  // zeroed between launches
  std::size_t bytes = 0;
};

// The slot of `stream` in the current device's context, or nullptr where state is not kept.
kept_state_slot* kept_state_for(cudaStream_t stream, std::size_t bytes);

/// The current CUDA context's id (cuCtxGetId, unique for the life of the program, where a
/// device reset may hand out the same handle again); false where the driver cannot say.
bool current_context_id(unsigned long long& id);
// Replaces the slot's buffer by a zeroed one of at least `bytes` (the old one is freed in
// stream order, after the launches that used it). Call with the slot's lock held.
void grow_kept_state(kept_state_slot& slot, std::size_t bytes, cudaStream_t stream);

// Calls launch(state, reset) with `bytes` of zeroed scratch for a launch on `stream`. Where
// reset is true the scratch is kept, and the kernel must leave it zeroed (reset_when_last);
// where false it is a fresh buffer freed after the launch.
template <class Launch>
void with_zeroed_state(cudaStream_t stream, std::size_t bytes, Launch launch) {
  if (kept_state_slot* slot = kept_state_for(stream, bytes)) {
    std::lock_guard<std::mutex> hold(slot->lock);
    if (slot->bytes < bytes) grow_kept_state(*slot, bytes, stream);
    launch(slot->data, true);
    return;
  }
  device_buffer scratch(bytes, stream);
  SSUM_CUDA_CHECK(cudaMemsetAsync(scratch.as<void>(), 0, bytes, stream));
  launch(scratch.as<void>(), false);
}

}  // namespace ssum::cuda_detail

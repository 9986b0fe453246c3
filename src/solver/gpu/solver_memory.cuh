#pragma once
// The CUDA solvers' device memory (two_list.cu, four_list.cu): one allocation per device kept
// from one solve to the next. Measured on an H200 (docs/performance.md): cudaMallocAsync maps
// 32 GiB in 40 ms and its pool gives them back in 52 ms at the next synchronisation;
// cudaMalloc takes 1 ms and cudaFree 16 ms. So one cudaMalloc, grown only when a larger plan
// comes, and no free on the solve's path; ssum::release_cuda_memory() hands it back. One solve
// per device at a time holds it (others on that device wait).
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "cuda/common/check.cuh"
#include "cuda/common/kept_state.cuh"
#include "solver/two_list/first_subset_sums.cuh"
#include "ssum/errors.hpp"

namespace ssum::cuda_detail {

struct arena {
  struct slot {
    std::mutex busy;
    void* data = nullptr;
    std::atomic<std::size_t> bytes{0};  // read without `busy` by cuda_solver_room
    std::atomic<unsigned long long> context{0};  // the context `data` was allocated in (current_context_id)
  };
  std::mutex table_lock;
  std::map<int, slot> slots;  // std::map: slots never move

  slot& for_device(int device) {
    std::lock_guard<std::mutex> hold(table_lock);
    return slots[device];
  }
  static arena& instance();  // solver_memory.cu
};

// Another library's cudaDeviceReset (or the driver's primary-context reset) destroys the
// context the arena's memory lives in: its pointer then names nothing. Forgotten here, not
// freed, when the current context is not the one it was allocated in. Called with the slot's
// `busy` held and the slot's device current.
inline void forget_if_stale(arena::slot& slot) {
  unsigned long long now = 0;
  if (slot.data && current_context_id(now) && now != slot.context.load()) {
    slot.data = nullptr;
    slot.bytes = 0;
  }
}

// What a plan on the current device may use: 95% of its free memory plus what `slot`
// already holds there.
inline double room_with(const arena::slot& slot) {
  std::size_t free_bytes = 0, total_bytes = 0;
  SSUM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  unsigned long long now = 0;
  const bool stale = current_context_id(now) && now != slot.context.load();  // a reset freed it
  return 0.95 * double(free_bytes) + (stale ? 0.0 : double(slot.bytes.load()));
}

// A solve's hold on its device's arena: reserve() sizes it, alloc() hands out consecutive
// 256-byte aligned pieces. Ordered on the solve's stream. The interface two_list_merging.hpp
// asks of its Memory, plus typed pieces for the four-list.
class device_memory {
 public:
  device_memory(int device, cudaStream_t stream)
      : device_(device), stream_(stream), slot_(arena::instance().for_device(device)), hold_(slot_.busy) {
    forget_if_stale(slot_);
  }

  template <class Sum>
  struct buffer {
    Sum* data;
    Sum* get() const { return data; }
  };
  void reserve(double bytes) {
    const std::size_t want = static_cast<std::size_t>(bytes);
    if (slot_.bytes >= want) return;
    if (slot_.data) {
      SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      SSUM_CUDA_CHECK(cudaFree(slot_.data));
      slot_.data = nullptr;
      slot_.bytes = 0;
    }
    const cudaError_t e = cudaMalloc(&slot_.data, want);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it and report the plan's numbers
      slot_.data = nullptr;
      throw insufficient_memory::needs("the plan on CUDA device " + std::to_string(device_) + " (cudaMalloc failed)",
                                       bytes, available_bytes());
    }
    SSUM_CUDA_CHECK(e);
    slot_.bytes = want;
    unsigned long long context = 0;
    slot_.context = current_context_id(context) ? context : 0;
  }
  template <class T>
  T* alloc_array(std::size_t elements) {
    const std::size_t bytes = (elements * sizeof(T) + 255) / 256 * 256;
    if (used_ + bytes > slot_.bytes) throw std::logic_error("ssum: the CUDA solver allocated beyond its plan");
    T* p = reinterpret_cast<T*>(static_cast<char*>(slot_.data) + used_);
    used_ += bytes;
    return p;
  }
  // The two-list's lists, of 64-bit or 128-bit sums (256-byte aligned, as every piece).
  template <class Sum>
  buffer<Sum> alloc(std::size_t elements) {
    return buffer<Sum>{alloc_array<Sum>(elements)};
  }
  // The first levels of a list, by one block (first_subset_sums.cuh).
  template <class Sum>
  std::size_t first_sums_items() const {
    return first_subset_sums_items_for<Sum>();
  }
  template <class Sum>
  void write_first_sums(const Sum* w, std::size_t m, Sum* out) const {
    launch_first_subset_sums(w, m, out, stream_);
  }
  template <class Sum>
  Sum read(const Sum* p, std::size_t k) const {
    Sum v = 0;
    SSUM_CUDA_CHECK(cudaMemcpyAsync(&v, p + k, sizeof v, cudaMemcpyDeviceToHost, stream_));
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return v;
  }
  void sync() const { SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  double available_bytes() const { return room_with(slot_); }

 private:
  int device_;
  cudaStream_t stream_;
  arena::slot& slot_;
  std::lock_guard<std::mutex> hold_;
  std::size_t used_ = 0;
};

}  // namespace ssum::cuda_detail

// The two-list solver on a CUDA device: core/two_list_merging.hpp's algorithm over device
// memory, with ssum's CUDA merge, find_pair_sum and count_pair_sums doing the work (Horowitz
// and Sahni 1974; the GPU form of Wan, Li, Liu, Li, CCPE 27:119-145, 2015). Nothing per
// element crosses PCIe: single values are read back for the certificate only.
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/two_list_cuda.hpp"
#include "core/two_list_merging.hpp"
#include "cuda/check.cuh"
#include "cuda/device_buffer.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"

namespace ssum {
namespace detail {
namespace {

// The solver's lists and merge buffer, one allocation per device kept from one solve to the
// next. Measured on an H200 (docs/performance.md): cudaMallocAsync maps 32 GiB in 40 ms and
// its pool gives them back in 52 ms at the next synchronisation; cudaMalloc takes 1 ms and
// cudaFree 16 ms. So one cudaMalloc, grown only when a larger instance comes, and no free
// on the solve's path; ssum::release_cuda_memory() hands it back. One solve per device at a
// time holds it (others on that device wait).
struct arena {
  struct slot {
    std::mutex busy;
    void* data = nullptr;
    std::atomic<std::size_t> bytes{0};  // read without `busy` by cuda_solver_room
  };
  std::mutex table_lock;
  std::map<int, slot> slots;  // std::map: slots never move

  slot& for_device(int device) {
    std::lock_guard<std::mutex> hold(table_lock);
    return slots[device];
  }
  static arena& instance() {
    static arena* a = new arena;  // never destroyed: the driver reclaims device memory at exit
    return *a;
  }
};

// What a plan on the current device may use: 95% of its free memory plus what `slot`
// already holds there.
double room_with(const arena::slot& slot) {
  std::size_t free_bytes = 0, total_bytes = 0;
  SSUM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return 0.95 * double(free_bytes) + double(slot.bytes.load());
}

// Device memory for two_list_by_merging: reserve() sizes the device's arena, alloc() hands
// out consecutive 256-byte aligned pieces of it. Ordered on the policy's stream.
class device_memory {
 public:
  device_memory(int device, cudaStream_t stream)
      : device_(device), stream_(stream), slot_(arena::instance().for_device(device)), hold_(slot_.busy) {}

  struct buffer {
    std::uint64_t* data;
    std::uint64_t* get() const { return data; }
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
      throw insufficient_memory("device " + std::to_string(device_) + " could not allocate the " +
                                    std::to_string(static_cast<long long>(bytes / 1048576)) + " MiB that the lists need",
                                bytes, available_bytes());
    }
    SSUM_CUDA_CHECK(e);
    slot_.bytes = want;
  }
  buffer alloc(std::size_t elements) {
    const std::size_t bytes = (elements * sizeof(std::uint64_t) + 255) / 256 * 256;
    if (used_ + bytes > slot_.bytes) throw std::logic_error("ssum: the CUDA solver allocated beyond its plan");
    auto* p = reinterpret_cast<std::uint64_t*>(static_cast<char*>(slot_.data) + used_);
    used_ += bytes;
    return buffer{p};
  }
  void set_zero(std::uint64_t* p) const { SSUM_CUDA_CHECK(cudaMemsetAsync(p, 0, sizeof *p, stream_)); }
  std::uint64_t read(const std::uint64_t* p, std::size_t k) const {
    std::uint64_t v = 0;
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

}  // namespace

solution solve_two_list_cuda(const cuda& policy, const problem& p, const solve_options& options) {
  cuda_detail::device_scope on(policy.device);
  device_memory memory(policy.device, policy.stream);
  try {
    return two_list_by_merging(policy, memory, p, options, "cuda");
  } catch (...) {
    // Kernels may still be reading the arena (an exception between launches): let them finish
    // before another solve takes it. Errors here are the stream's, already being reported.
    (void)cudaStreamSynchronize(policy.stream);
    throw;
  }
}

double cuda_solver_room(int device) {
  cuda_detail::device_scope on(device);
  return room_with(arena::instance().for_device(device));
}

}  // namespace detail

void release_cuda_memory() {
  detail::arena& a = detail::arena::instance();
  std::lock_guard<std::mutex> hold(a.table_lock);
  for (auto& [device, slot] : a.slots) {
    std::lock_guard<std::mutex> busy(slot.busy);
    if (!slot.data) continue;
    cuda_detail::device_scope on(device);
    SSUM_CUDA_CHECK(cudaFree(slot.data));
    slot.data = nullptr;
    slot.bytes = 0;
  }
}

}  // namespace ssum

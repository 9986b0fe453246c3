// The two-list solver on a CUDA device: core/two_list_merging.hpp's algorithm over device
// memory, with ssum's CUDA merge, find_pair_sum and count_pair_sums doing the work (Horowitz
// and Sahni 1974; the GPU form of Wan, Li, Liu, Li, CCPE 27:119-145, 2015). Nothing per
// element crosses PCIe: single values are read back for the certificate only.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/two_list_cuda.hpp"
#include "core/two_list_merging.hpp"
#include "cuda/check.cuh"
#include "cuda/device_buffer.cuh"

namespace ssum::detail {
namespace {

// Device memory for two_list_by_merging, stream-ordered on the policy's stream.
class device_memory {
 public:
  explicit device_memory(cudaStream_t stream) : stream_(stream) {}
  struct buffer {
    cuda_detail::device_buffer storage;
    std::uint64_t* get() const { return storage.as<std::uint64_t>(); }
  };
  buffer alloc(std::size_t elements) const { return buffer{cuda_detail::device_buffer(elements * sizeof(std::uint64_t), stream_)}; }
  void set_zero(std::uint64_t* p) const { SSUM_CUDA_CHECK(cudaMemsetAsync(p, 0, sizeof *p, stream_)); }
  std::uint64_t read(const std::uint64_t* p, std::size_t k) const {
    std::uint64_t v = 0;
    SSUM_CUDA_CHECK(cudaMemcpyAsync(&v, p + k, sizeof v, cudaMemcpyDeviceToHost, stream_));
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return v;
  }
  void sync() const { SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  double available_bytes() const {
    std::size_t free_bytes = 0, total_bytes = 0;
    SSUM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return 0.95 * double(free_bytes);
  }

 private:
  cudaStream_t stream_;
};

}  // namespace

solution solve_two_list_cuda(const cuda& policy, const problem& p, const solve_options& options) {
  cuda_detail::device_scope on(policy.device);
  device_memory memory(policy.stream);
  return two_list_by_merging(policy, memory, p, options, "cuda");
}

}  // namespace ssum::detail

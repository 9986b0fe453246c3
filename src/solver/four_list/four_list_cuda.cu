// The four-list solver on a CUDA device: solver/four_list/four_list_batches.hpp's batches with the work on
// the device. Per batch: one kernel counts each outer sum's partners (solver/four_list/four_list_window.hpp),
// ssum's exclusive_scan turns the counts into offsets, one warp per outer sum writes its sums
// (coalesced), CUB's radix sort orders X and Y, and ssum's find_pair_sum / count_pair_sums
// match them. The sort is a library building block (cub::DeviceRadixSort); the enumeration,
// the run fix-up and the matching are ssum's. The lists cross PCIe once; per batch two sizes,
// two flags and, for a certificate, single sums come back.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <vector>

#include "solver/four_list/four_list_batches.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "solver/four_list/four_list_window.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "solver/gpu/solver_memory.cuh"
#include "ssum/pair_sum.hpp"
#include "ssum/scan.hpp"

namespace ssum::cuda_detail {
namespace {

using detail::four_list_side;
using detail::four_list_slice;
using detail::four_list_tables;
using detail::four_list_tuning;
using detail::partner_window;

constexpr unsigned block_threads = 256;
constexpr std::size_t max_blocks = std::size_t{1} << 16;  // grid-stride beyond

unsigned blocks_for(std::size_t threads) {
  return static_cast<unsigned>(
      std::min(max_blocks, std::max<std::size_t>(1, (threads + block_threads - 1) / block_threads)));
}

// counts[i] = outer sum i's partners in the slice; counts[outer_size] = 0, so that the
// exclusive scan leaves the total there.
__global__ void count_partners(four_list_side s, four_list_slice c, std::uint64_t* counts) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= s.outer_size; i += stride) {
    counts[i] = i < s.outer_size ? detail::partners_of(s, c, i).size() : 0;
  }
}

// One warp per outer sum: its window's sums to out[offsets[i], ...), consecutive lanes writing
// consecutive sums.
__global__ void expand_pairs(four_list_side s, four_list_slice c, const std::uint64_t* offsets, std::uint64_t* out) {
  const unsigned lane = threadIdx.x % 32;
  const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32);
  for (std::size_t i = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < s.outer_size; i += warps) {
    const partner_window w = detail::partners_of(s, c, i);
    const std::uint64_t size = w.size();
    std::uint64_t* dst = out + offsets[i];
    for (std::uint64_t k = lane; k < size; k += 32) dst[k] = detail::window_sum(s, i, w, k);
  }
}

// After a radix sort of the bits from `shift` up: sorts the runs equal in those bits; raises
// *too_long when a run is longer than max_sorted_run (then the host sorts all bits).
__global__ void sort_runs(std::uint64_t* keys, std::size_t n, int shift, unsigned* too_long) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (!detail::sort_run_at(keys, n, i, shift)) *too_long = 1;
  }
}

// The Device of four_list_in_batches on one CUDA stream.
class cuda_four_list {
 public:
  cuda_four_list(const cuda& policy, const four_list_tuning& tuning)
      : policy_(policy), stream_(policy.stream), memory_(policy.device, policy.stream), tuning_(tuning) {}

  double available_bytes() const { return memory_.available_bytes(); }

  std::size_t sort_temp_bytes(std::size_t cap) const {
    std::size_t bytes = 0;
    cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
    SSUM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, items(cap), 0, 64, stream_));
    return bytes;
  }

  // Pieces in four_list_device_bytes' order.
  void prepare(const four_list_tables& tables, std::size_t cap, double arena_bytes) {
    memory_.reserve(arena_bytes);
    t_ = tables.t;
    d_flags_ = memory_.alloc_array<unsigned>(64);
    for (int s = 0; s < 2; ++s) {
      const std::size_t outer = tables.outer_sum[s].size();
      std::uint64_t* d_outer_sum = upload(memory_.alloc_array<std::uint64_t>(outer), tables.outer_sum[s]);
      std::uint32_t* d_outer_residue = upload(memory_.alloc_array<std::uint32_t>(outer), tables.outer_residue[s]);
      std::uint64_t* d_inner_sum =
          upload(memory_.alloc_array<std::uint64_t>(tables.inner_sum[s].size()), tables.inner_sum[s]);
      std::uint32_t* d_inner_offset =
          upload(memory_.alloc_array<std::uint32_t>(tables.inner_offset[s].size()), tables.inner_offset[s]);
      d_counts_[s] = memory_.alloc_array<std::uint64_t>(outer + 1);
      side_[s] = four_list_side{d_outer_sum, d_outer_residue, outer, d_inner_sum, d_inner_offset, tables.m, tables.t};
      key_bits_[s] = tables.key_bits[s];
    }
    for (std::uint64_t*& b : d_buffer_) b = memory_.alloc_array<std::uint64_t>(cap);
    temp_bytes_ = sort_temp_bytes(cap);
    d_temp_ = memory_.alloc_array<unsigned char>(temp_bytes_);
    cap_ = cap;
    memory_.sync();  // the host tables may go
  }

  std::array<std::uint64_t, 2> sizes(const four_list_slice& x, const four_list_slice& y) {
    const four_list_slice slices[2] = {x, y};
    std::array<std::uint64_t, 2> total{0, 0};
    for (int s = 0; s < 2; ++s) {
      const std::size_t outer = side_[s].outer_size;
      count_partners<<<blocks_for(outer + 1), block_threads, 0, stream_>>>(side_[s], slices[s], d_counts_[s]);
      SSUM_CUDA_CHECK_LAUNCH("count_partners");
      exclusive_scan(policy_, d_counts_[s], d_counts_[s], outer + 1, std::uint64_t{0});
      SSUM_CUDA_CHECK(
          cudaMemcpyAsync(&total[s], d_counts_[s] + outer, sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream_));
    }
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    size_[0] = total[0];
    size_[1] = total[1];
    return total;
  }

  // X into buffer 0 and Y into buffer 1, each sorted with the third buffer as the spare.
  void build(const four_list_slice& x, const four_list_slice& y) {
    if (size_[0] > cap_ || size_[1] > cap_) throw std::logic_error("four-list: a batch beyond its capacity was built");
    const four_list_slice slices[2] = {x, y};
    for (int s = 0; s < 2; ++s) {
      const std::size_t warps_per_block = block_threads / 32;
      const std::size_t outer = side_[s].outer_size;
      expand_pairs<<<static_cast<unsigned>(std::min(max_blocks, (outer + warps_per_block - 1) / warps_per_block)),
                     block_threads, 0, stream_>>>(side_[s], slices[s], d_counts_[s], d_buffer_[s]);
      SSUM_CUDA_CHECK_LAUNCH("expand_pairs");
    }
    SSUM_CUDA_CHECK(cudaMemsetAsync(d_flags_, 0, 2 * sizeof(unsigned), stream_));
    where_[0] = 0;
    where_[1] = 1;
    bool partial = false;
    for (int s = 0; s < 2; ++s) {
      const int begin = full_sort_[s] ? 0 : detail::four_list_sort_begin(key_bits_[s], size_[s], tuning_.sort_bits);
      sort(s, begin);
      if (begin > 0 && size_[s] > 1) {
        sort_runs<<<blocks_for(size_[s]), block_threads, 0, stream_>>>(d_buffer_[where_[s]], size_[s], begin,
                                                                       d_flags_ + s);
        SSUM_CUDA_CHECK_LAUNCH("sort_runs");
        partial = true;
      }
    }
    if (!partial) return;
    unsigned too_long[2] = {0, 0};
    SSUM_CUDA_CHECK(cudaMemcpyAsync(too_long, d_flags_, sizeof too_long, cudaMemcpyDeviceToHost, stream_));
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int s = 0; s < 2; ++s) {
      if (!too_long[s]) continue;
      sort(s, 0);            // long runs of equal high bits: all the bits after all,
      full_sort_[s] = true;  // and from now on (sums clustered far below the largest)
    }
  }

  pair_match find(std::size_t x_begin, std::size_t x_end) {
    pair_match m = find_pair_sum(policy_, x() + x_begin, x_end - x_begin, y(), size_[1], t_);
    if (m.found) m.i += x_begin;
    return m;
  }
  std::uint64_t count() { return count_pair_sums(policy_, x(), size_[0], y(), size_[1], t_); }
  std::uint64_t x_at(std::size_t i) const { return memory_.read(x(), i); }
  std::uint64_t y_at(std::size_t j) const { return memory_.read(y(), j); }

 private:
  // CUB takes 32-bit counts fastest; batches stay below 2^30 (four_list_in_batches).
  static int items(std::size_t n) {
    if (n > (std::size_t{1} << 30)) throw std::logic_error("four-list: a batch beyond 2^30 sums");
    return static_cast<int>(n);
  }

  // Radix sort of side s's keys on bits [begin, key_bits): from its buffer into it or into the
  // spare one (the buffer neither side is in).
  void sort(int s, int begin) {
    const std::size_t n = size_[s];
    const int end = key_bits_[s];
    if (n <= 1 || end <= begin) return;  // nothing to order (end 0: every sum is 0)
    const int spare = 3 - where_[0] - where_[1];
    cub::DoubleBuffer<std::uint64_t> keys(d_buffer_[where_[s]], d_buffer_[spare]);
    std::size_t need = 0;
    SSUM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, need, keys, items(n), begin, end, stream_));
    if (need > temp_bytes_) throw std::logic_error("four-list: the radix sort wants more scratch than planned");
    SSUM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp_, need, keys, items(n), begin, end, stream_));
    if (keys.selector == 1) where_[s] = spare;
  }

  template <class T>
  T* upload(T* d, const std::vector<T>& host) {
    if (!host.empty()) {
      SSUM_CUDA_CHECK(cudaMemcpyAsync(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream_));
    }
    return d;
  }
  const std::uint64_t* x() const { return d_buffer_[where_[0]]; }
  const std::uint64_t* y() const { return d_buffer_[where_[1]]; }

  cuda policy_;
  cudaStream_t stream_;
  device_memory memory_;
  four_list_tuning tuning_;
  std::uint64_t t_ = 0;
  four_list_side side_[2] = {};
  int key_bits_[2] = {0, 0};
  std::uint64_t* d_counts_[2] = {nullptr, nullptr};
  std::uint64_t* d_buffer_[3] = {nullptr, nullptr, nullptr};
  int where_[2] = {0, 1};  // which buffer holds X, Y
  bool full_sort_[2] = {false, false};
  std::uint64_t size_[2] = {0, 0};
  std::size_t cap_ = 0, temp_bytes_ = 0;
  unsigned char* d_temp_ = nullptr;
  unsigned* d_flags_ = nullptr;
};

}  // namespace
}  // namespace ssum::cuda_detail

namespace ssum::detail {

solution solve_four_list_cuda(const cuda& policy, const problem& p, const flipped_totals& totals,
                              const solve_options& options, const four_list_tuning& tuning) {
  cuda_detail::device_scope on(policy.device);
  cuda_detail::cuda_four_list device(policy, tuning);
  try {
    return four_list_in_batches(device, p, totals, options, tuning, "cuda");
  } catch (...) {
    // Kernels may still be using the arena: let them finish before another solve takes it.
    (void)cudaStreamSynchronize(policy.stream);
    throw;
  }
}

}  // namespace ssum::detail

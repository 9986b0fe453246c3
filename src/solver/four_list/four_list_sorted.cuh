#pragma once
// The GPU four-list's device for 64-bit sums (four_list_cuda.cu): per batch one kernel counts
// each outer sum's partners (four_list_window.hpp), ssum's exclusive_scan turns the counts into
// offsets, one warp per outer sum writes its sums (coalesced), CUB's radix sort orders X and Y
// on their top bits (four_list_sorting.hpp fixes the short runs left), and ssum's
// find_pair_sum / count_pair_sums match them. The sort is a library building block
// (cub::DeviceRadixSort); the enumeration, the run fix-up and the matching are ssum's. Measured
// against the hash join of four_list_cuda.cu on the H200, this is the faster one for 64-bit keys
// (docs/performance.md), so it stays their path.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cuda/common/check.cuh"
#include "solver/four_list/four_list_batches.hpp"
#include "solver/four_list/four_list_sorting.hpp"
#include "solver/four_list/four_list_window.hpp"
#include "solver/gpu/solver_memory.cuh"
#include "ssum/pair_sum.hpp"
#include "ssum/scan.hpp"

namespace ssum::cuda_detail {
namespace sorted_batches {

using side = detail::four_list_side<std::uint64_t>;
using detail::four_list_slice;
using detail::partner_window;

constexpr unsigned block_threads = 256;
constexpr std::size_t max_blocks = std::size_t{1} << 16;  // grid-stride beyond

inline unsigned blocks_for(std::size_t threads) {
  return static_cast<unsigned>(
      std::min(max_blocks, std::max<std::size_t>(1, (threads + block_threads - 1) / block_threads)));
}

// counts[i] = outer sum i's partners in the slice; counts[outer_size] = 0, so that the
// exclusive scan leaves the total there.
__global__ void count_partners(side s, four_list_slice c, std::uint64_t* counts) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= s.outer_size; i += stride) {
    counts[i] = i < s.outer_size ? detail::partners_of(s, c, i).size() : 0;
  }
}

// One warp per outer sum: its window's sums to out[offsets[i], ...), consecutive lanes writing
// consecutive sums.
__global__ void expand_pairs(side s, four_list_slice c, const std::uint64_t* offsets, std::uint64_t* out) {
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

}  // namespace sorted_batches

// The Device of four_list_in_batches for 64-bit sums, on one CUDA stream. X holds a + b and Y
// holds c + d (sorted), matched by x + y == t.
class cuda_four_list_sorted {
 public:
  cuda_four_list_sorted(const cuda& policy, const detail::four_list_tuning& tuning)
      : policy_(policy), stream_(policy.stream), memory_(policy.device, policy.stream), tuning_(tuning) {}

  double available_bytes() const { return memory_.available_bytes(); }
  static constexpr std::size_t preferred_batch() { return std::size_t{1} << 28; }

  // Beyond the lists and X and Y: the counts per outer sum, the sort's spare buffer and
  // scratch, the flags.
  std::size_t scratch_bytes(const detail::four_list_tables<std::uint64_t>& tables, std::size_t cap) const {
    return piece((tables.outer_sum[0].size() + 1) * 8) + piece((tables.outer_sum[1].size() + 1) * 8) +
           piece(cap * 8) + piece(sort_temp_bytes(cap)) + piece(64 * sizeof(unsigned));
  }

  void prepare(const detail::four_list_tables<std::uint64_t>& tables, std::size_t cap, double arena_bytes) {
    memory_.reserve(arena_bytes);
    t_ = tables.t;
    for (int s = 0; s < 2; ++s) {
      const std::size_t outer = tables.outer_sum[s].size();
      const std::uint64_t* d_outer_sum = upload(memory_.alloc_array<std::uint64_t>(outer), tables.outer_sum[s]);
      const std::uint32_t* d_outer_residue =
          upload(memory_.alloc_array<std::uint32_t>(outer), tables.outer_residue[s]);
      const std::uint64_t* d_inner_sum =
          upload(memory_.alloc_array<std::uint64_t>(tables.inner_sum[s].size()), tables.inner_sum[s]);
      const std::uint32_t* d_inner_offset =
          upload(memory_.alloc_array<std::uint32_t>(tables.inner_offset[s].size()), tables.inner_offset[s]);
      side_[s] = sorted_batches::side{d_outer_sum, d_outer_residue, outer, d_inner_sum, d_inner_offset, tables.m, tables.t};
      d_buffer_[s] = memory_.alloc_array<std::uint64_t>(cap);
      // The last mask takes every item: the side's largest sum (below 2^64: the total is).
      key_bits_[s] = outer ? static_cast<int>(std::bit_width(tables.outer_sum[s].back() + *std::max_element(
                                                                  tables.inner_sum[s].begin(), tables.inner_sum[s].end())))
                           : 0;
    }
    for (int s = 0; s < 2; ++s) d_counts_[s] = memory_.alloc_array<std::uint64_t>(side_[s].outer_size + 1);
    d_buffer_[2] = memory_.alloc_array<std::uint64_t>(cap);
    temp_bytes_ = sort_temp_bytes(cap);
    d_temp_ = memory_.alloc_array<unsigned char>(temp_bytes_);
    d_flags_ = memory_.alloc_array<unsigned>(64);
    cap_ = cap;
    memory_.sync();  // the host tables may go
  }

  std::array<std::uint64_t, 2> partition(const detail::four_list_slice& x, const detail::four_list_slice& y) {
    slices_[0] = x;
    slices_[1] = y;
    std::array<std::uint64_t, 2> total{0, 0};
    for (int s = 0; s < 2; ++s) {
      const std::size_t outer = side_[s].outer_size;
      sorted_batches::count_partners<<<sorted_batches::blocks_for(outer + 1), sorted_batches::block_threads, 0,
                                       stream_>>>(side_[s], slices_[s], d_counts_[s]);
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
  void build() {
    if (size_[0] > cap_ || size_[1] > cap_) throw std::logic_error("four-list: a batch beyond its capacity was built");
    for (int s = 0; s < 2; ++s) {
      const std::size_t warps_per_block = sorted_batches::block_threads / 32;
      const std::size_t outer = side_[s].outer_size;
      sorted_batches::expand_pairs<<<static_cast<unsigned>(std::min(sorted_batches::max_blocks,
                                                                    (outer + warps_per_block - 1) / warps_per_block)),
                                     sorted_batches::block_threads, 0, stream_>>>(side_[s], slices_[s], d_counts_[s],
                                                                                  d_buffer_[s]);
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
        sorted_batches::sort_runs<<<sorted_batches::blocks_for(size_[s]), sorted_batches::block_threads, 0, stream_>>>(
            d_buffer_[where_[s]], size_[s], begin, d_flags_ + s);
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

  std::uint64_t count() { return count_pair_sums(policy_, x(), size_[0], y(), size_[1], t_); }

  // Some x of X with t - x in Y, other than *skip. A skipped x occurs once in X (the caller's
  // case: only the empty subset's quadruple has it), so the search goes on around it.
  std::optional<std::uint64_t> find(const std::uint64_t* skip) {
    pair_match m = find_pair_sum(policy_, x(), size_[0], y(), size_[1], t_);
    if (!m.found) return std::nullopt;
    std::uint64_t found = memory_.read(x(), m.i);
    if (!skip || found != *skip) return found;
    const std::size_t at = m.i;
    m = find_pair_sum(policy_, x(), at, y(), size_[1], t_);
    if (!m.found) {
      m = find_pair_sum(policy_, x() + at + 1, size_[0] - at - 1, y(), size_[1], t_);
      if (!m.found) return std::nullopt;
      m.i += at + 1;
    }
    return memory_.read(x(), m.i);
  }

 private:
  static std::size_t piece(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  std::size_t sort_temp_bytes(std::size_t cap) const {
    std::size_t bytes = 0;
    cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
    SSUM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, items(cap), 0, 64, stream_));
    return bytes;
  }

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
  detail::four_list_tuning tuning_;
  std::uint64_t t_ = 0;
  sorted_batches::side side_[2] = {};
  detail::four_list_slice slices_[2] = {};
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

}  // namespace ssum::cuda_detail

// The four-list solver on a CUDA device: solver/four_list/four_list_batches.hpp's batches with the
// work on the device. 64-bit sums go to the radix-sorted batches (four_list_sorted.cuh, the faster
// for them); 128-bit ones to the partitioned hash join defined here (the radix-partitioned join of Kim et al.,
// "Sort vs. Hash Revisited", VLDB 2009, and of Balkesen et al., ICDE 2013, on the pair sums of
// Schroeppel and Shamir's lists). Per batch and side:
//   count_partitions  every key (solver/four_list/four_list_window.hpp: x, or t - y) tallied
//                     by its hash partition in the block's shared memory; the block's tallies
//                     out in one coalesced row (block-major);
//   exclusive_scan    (ssum's, between two tile transposes) turns the tallies into each
//                     block's start in each partition;
//   write_partitions  the same keys again, each block writing to its own starts: every key is
//                     written once, without a global atomic;
//   join_partitions   one block per partition: X's keys into an open-addressing table in
//                     shared memory (a table-full at a time), Y's keys probed against it.
// The lists cross PCIe once; per batch two sizes and a count or one key come back.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <stdexcept>
#include <vector>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "solver/four_list/four_list_batches.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "solver/four_list/four_list_sorted.cuh"
#include "solver/four_list/four_list_window.hpp"
#include "solver/gpu/solver_memory.cuh"
#include "ssum/scan.hpp"

namespace ssum::cuda_detail {
namespace {

using detail::four_list_side;
using detail::four_list_slice;
using detail::four_list_tables;
using detail::four_list_tuning;
using detail::partner_window;

constexpr unsigned partition_threads = 512;
constexpr unsigned join_threads = 512;
constexpr int most_partition_bits = 14;  // 64 KiB of tallies per block

// A join block's table: 2^13 slots of 64-bit keys (96 KiB with the slot flags), 2^12 of
// 128-bit ones (80 KiB); two blocks fit an SM. It takes half its slots at a time, so that
// probes stay short.
template <class Sum>
constexpr int table_slot_bits = sizeof(Sum) == 8 ? 13 : 12;
template <class Sum>
constexpr std::size_t table_bytes = (std::size_t{1} << table_slot_bits<Sum>) * (sizeof(Sum) + 4);

// A 128-bit sum from lane `from` to every lane of the warp, in two halves.
__device__ inline uint128 broadcast(uint128 v, int from) {
  const std::uint64_t lo = __shfl_sync(0xffffffffu, std::uint64_t(v), from);
  const std::uint64_t hi = __shfl_sync(0xffffffffu, std::uint64_t(v >> 64), from);
  return uint128(hi) << 64 | lo;
}

// Calls visit(key) for every key of side s in slice c that this block owns. Each warp takes
// 32 consecutive outer elements at a time: every lane finds one element's window (the loads
// of all 32 in flight together), then the warp walks the windows one by one, each lane
// loading up to `ahead` inner sums before it uses any, so that the loads overlap instead of
// waiting one after another. The assignment depends only on the grid's shape, so that
// count_partitions and write_partitions (same grid) give every block the same keys.
template <class Sum, class Visit>
__device__ void for_each_key(const four_list_side<Sum>& s, const four_list_slice& c, int side, Visit&& visit) {
  constexpr int ahead = 4;
  const unsigned warps_per_block = blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const std::size_t warps = std::size_t(gridDim.x) * warps_per_block;
  const std::size_t first = c.lo + (std::size_t(blockIdx.x) * warps_per_block + threadIdx.x / 32) * 32;
  for (std::size_t base = first; base < c.hi; base += warps * 32) {  // the same for all lanes
    const std::size_t mine = base + lane;
    const partner_window own = mine < c.hi ? detail::partners_of(s, c, mine) : partner_window{0, 0, 0, 0};
    const Sum own_outer = own.size() > 0 ? s.outer_sum[mine] : Sum(0);
    for (int j = 0; j < 32; ++j) {
      partner_window w;
      w.begin0 = __shfl_sync(0xffffffffu, own.begin0, j);
      w.end0 = __shfl_sync(0xffffffffu, own.end0, j);
      w.begin1 = __shfl_sync(0xffffffffu, own.begin1, j);
      w.end1 = __shfl_sync(0xffffffffu, own.end1, j);
      const std::uint64_t size = w.size();
      if (size == 0) continue;
      const Sum outer = broadcast(own_outer, j);
      const std::uint64_t split = w.end0 - w.begin0;
      for (std::uint64_t k0 = 0; k0 < size; k0 += 32 * ahead) {
        Sum inner[ahead];
#pragma unroll
        for (int u = 0; u < ahead; ++u) {
          const std::uint64_t k = k0 + u * 32 + lane;
          if (k < size) inner[u] = s.inner_sum[k < split ? w.begin0 + k : w.begin1 + (k - split)];
        }
#pragma unroll
        for (int u = 0; u < ahead; ++u) {
          Sum key;
          if (k0 + u * 32 + lane < size && detail::join_key(side, s.bound, outer + inner[u], key)) visit(key);
        }
      }
    }
  }
}

// tallies[block * parts + p] = the block's keys in partition p (block-major: each block
// writes its row in one coalesced sweep); *keys += the side's keys, in 64 bits: the 32-bit
// tallies are used only when that total fits the batch (below 2^32).
template <class Sum>
__global__ void count_partitions(four_list_side<Sum> s, four_list_slice c, int side, int partition_bits,
                                 std::uint32_t parts, std::uint32_t* tallies, unsigned long long* keys) {
  extern __shared__ std::uint32_t tally[];
  for (std::uint32_t p = threadIdx.x; p < parts; p += blockDim.x) tally[p] = 0;
  __syncthreads();
  unsigned long long mine = 0;
  for_each_key(s, c, side, [&](Sum key) {
    atomicAdd(&tally[detail::partition_of(detail::join_hash(key), partition_bits)], 1u);
    ++mine;
  });
  if (mine > 0) atomicAdd(keys, mine);
  __syncthreads();
  for (std::uint32_t p = threadIdx.x; p < parts; p += blockDim.x) tallies[std::size_t(blockIdx.x) * parts + p] = tally[p];
}

// out[c * rows + r] = in[r * cols + c] through a 32 x 32 tile in shared memory (padded against
// bank conflicts), so that reads and writes are both coalesced: the tallies go partition-major
// for the scan and the scanned starts back block-major for write_partitions.
__global__ void transpose_tallies(const std::uint32_t* in, std::uint32_t* out, std::uint32_t rows,
                                  std::uint32_t cols) {
  __shared__ std::uint32_t tile[32][33];
  const std::uint32_t c = blockIdx.x * 32 + threadIdx.x;
  for (std::uint32_t k = threadIdx.y; k < 32; k += blockDim.y) {
    const std::uint32_t r = blockIdx.y * 32 + k;
    if (r < rows && c < cols) tile[k][threadIdx.x] = in[std::size_t(r) * cols + c];
  }
  __syncthreads();
  const std::uint32_t r = blockIdx.y * 32 + threadIdx.x;
  for (std::uint32_t k = threadIdx.y; k < 32; k += blockDim.y) {
    const std::uint32_t c2 = blockIdx.x * 32 + k;
    if (r < rows && c2 < cols) out[std::size_t(c2) * rows + r] = tile[threadIdx.x][k];
  }
}

// Each key to keys[its block's next place in its partition]; starts[block * parts + p]: the
// scanned tallies, block-major.
template <class Sum>
__global__ void write_partitions(four_list_side<Sum> s, four_list_slice c, int side, int partition_bits,
                                 std::uint32_t parts, const std::uint32_t* starts, Sum* keys) {
  extern __shared__ std::uint32_t next[];
  for (std::uint32_t p = threadIdx.x; p < parts; p += blockDim.x) next[p] = starts[std::size_t(blockIdx.x) * parts + p];
  __syncthreads();
  for_each_key(s, c, side, [&](Sum key) {
    keys[atomicAdd(&next[detail::partition_of(detail::join_hash(key), partition_bits)], 1u)] = key;
  });
}

struct join_result {
  unsigned long long keys[2];
  unsigned long long count;
  unsigned found;
};

// keys[u] = src[base + u * blockDim.x + threadIdx.x] for those below `end`: all loads issued
// before any key is used, so that they overlap.
template <class Sum, int Ahead>
__device__ void load_ahead(Sum (&keys)[Ahead], const Sum* src, std::uint32_t base, std::uint32_t end) {
#pragma unroll
  for (int u = 0; u < Ahead; ++u) {
    const std::uint32_t i = base + u * blockDim.x + threadIdx.x;
    if (i < end) keys[u] = src[i];
  }
}

// Partition p of X is x[x_starts[p * stride], x_starts[(p + 1) * stride]), of Y likewise.
// Counting: adds the pairs of equal keys to out->count. Otherwise: one key of X that Y also
// holds (other than `skip` when has_skip) to *found_key, out->found set; blocks stop once one
// is found.
template <class Sum, bool Counting>
__global__ void join_partitions(const Sum* x, const Sum* y, const std::uint32_t* x_starts, const std::uint32_t* y_starts,
                                std::uint32_t parts, std::uint32_t stride, int partition_bits, bool has_skip, Sum skip,
                                join_result* out, Sum* found_key) {
  constexpr int slot_bits = table_slot_bits<Sum>;
  constexpr std::uint32_t slots = std::uint32_t{1} << slot_bits, mask = slots - 1, chunk = slots / 2;
  constexpr int ahead = 8;
  extern __shared__ __align__(16) unsigned char shared[];
  Sum* table = reinterpret_cast<Sum*>(shared);
  std::uint32_t* used = reinterpret_cast<std::uint32_t*>(table + slots);
  __shared__ unsigned stop;
  unsigned long long matches = 0;
  for (std::uint32_t p = blockIdx.x; p < parts; p += gridDim.x) {
    if (!Counting) {  // one decision for the whole block: it meets __syncthreads below
      if (threadIdx.x == 0) stop = *static_cast<volatile unsigned*>(&out->found);
      __syncthreads();
      const bool halt = stop != 0;
      __syncthreads();
      if (halt) break;
    }
    const std::uint32_t xb = x_starts[std::size_t(p) * stride], xe = x_starts[std::size_t(p + 1) * stride];
    const std::uint32_t yb = y_starts[std::size_t(p) * stride], ye = y_starts[std::size_t(p + 1) * stride];
    if (xb == xe || yb == ye) continue;
    for (std::uint32_t c0 = xb; c0 < xe; c0 += chunk) {
      const std::uint32_t c1 = min(xe, c0 + chunk);
      for (std::uint32_t k = threadIdx.x; k < slots; k += blockDim.x) used[k] = 0;
      __syncthreads();
      for (std::uint32_t i0 = c0; i0 < c1; i0 += blockDim.x * ahead) {
        Sum keys[ahead];
        load_ahead(keys, x, i0, c1);
#pragma unroll
        for (int u = 0; u < ahead; ++u) {
          if (i0 + u * blockDim.x + threadIdx.x >= c1) continue;
          std::uint32_t at = detail::slot_of(detail::join_hash(keys[u]), partition_bits, slot_bits);
          while (atomicCAS(&used[at], 0u, 1u) != 0u) at = (at + 1) & mask;
          table[at] = keys[u];
        }
      }
      __syncthreads();
      for (std::uint32_t j0 = yb; j0 < ye; j0 += blockDim.x * ahead) {
        Sum keys[ahead];
        load_ahead(keys, y, j0, ye);
#pragma unroll
        for (int u = 0; u < ahead; ++u) {
          if (j0 + u * blockDim.x + threadIdx.x >= ye) continue;
          const Sum key = keys[u];
          for (std::uint32_t at = detail::slot_of(detail::join_hash(key), partition_bits, slot_bits); used[at];
               at = (at + 1) & mask) {
            if (table[at] != key) continue;
            if (Counting) {
              ++matches;
            } else if (!has_skip || key != skip) {
              if (atomicCAS(&out->found, 0u, 1u) == 0u) *found_key = key;
              break;
            }
          }
        }
      }
      __syncthreads();
    }
  }
  if (Counting && matches > 0) atomicAdd(&out->count, matches);
}

int multiprocessors() {
  int device = 0, count = 0;
  SSUM_CUDA_CHECK(cudaGetDevice(&device));
  SSUM_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return std::max(count, 1);
}

// The Device of four_list_in_batches on one CUDA stream.
template <class Sum>
class cuda_four_list {
 public:
  cuda_four_list(const cuda& policy, const four_list_tuning& tuning)
      : policy_(policy), stream_(policy.stream), memory_(policy.device, policy.stream), tuning_(tuning),
        sms_(multiprocessors()), grid_(2 * unsigned(sms_)) {
    // Tallies of up to 2^14 partitions and the join's table exceed the default 48 KiB.
    SSUM_CUDA_CHECK(cudaFuncSetAttribute(count_partitions<Sum>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         4 << most_partition_bits));
    SSUM_CUDA_CHECK(cudaFuncSetAttribute(write_partitions<Sum>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         4 << most_partition_bits));
    SSUM_CUDA_CHECK(cudaFuncSetAttribute(join_partitions<Sum, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(table_bytes<Sum>)));
    SSUM_CUDA_CHECK(cudaFuncSetAttribute(join_partitions<Sum, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(table_bytes<Sum>)));
  }

  double available_bytes() const { return memory_.available_bytes(); }

  // Per side the tallies (block-major, then the starts) and the starts partition-major (one
  // more: the total), then the join's result, in prepare's order.
  static constexpr std::size_t preferred_batch() { return std::size_t{1} << 25; }
  std::size_t scratch_bytes(const four_list_tables<Sum>&, std::size_t cap) const {
    const std::size_t entries = std::size_t(partitions_for(cap)) * grid_;
    return 2 * (piece(entries * 4) + piece((entries + 1) * 4)) + piece(sizeof(join_result)) + piece(sizeof(Sum));
  }

  // Pieces in four_list_device_bytes' order.
  void prepare(const four_list_tables<Sum>& tables, std::size_t cap, double arena_bytes) {
    memory_.reserve(arena_bytes);
    if (cap >= (std::size_t{1} << 32)) throw std::logic_error("four-list: a batch of 2^32 keys or more");
    for (int s = 0; s < 2; ++s) {
      const std::size_t outer = tables.outer_sum[s].size();
      const Sum* d_outer_sum = upload(memory_.alloc_array<Sum>(outer), tables.outer_sum[s]);
      const std::uint32_t* d_outer_residue =
          upload(memory_.alloc_array<std::uint32_t>(outer), tables.outer_residue[s]);
      const Sum* d_inner_sum = upload(memory_.alloc_array<Sum>(tables.inner_sum[s].size()), tables.inner_sum[s]);
      const std::uint32_t* d_inner_offset =
          upload(memory_.alloc_array<std::uint32_t>(tables.inner_offset[s].size()), tables.inner_offset[s]);
      side_[s] = four_list_side<Sum>{d_outer_sum, d_outer_residue, outer, d_inner_sum, d_inner_offset, tables.m, tables.t};
      keys_[s] = memory_.alloc_array<Sum>(cap);
    }
    parts_ = partitions_for(cap);
    partition_bits_ = std::countr_zero(parts_);
    for (int s = 0; s < 2; ++s) {
      tallies_[s] = memory_.alloc_array<std::uint32_t>(std::size_t(parts_) * grid_);
      starts_[s] = memory_.alloc_array<std::uint32_t>(std::size_t(parts_) * grid_ + 1);
    }
    result_ = memory_.alloc_array<join_result>(1);
    found_key_ = memory_.alloc_array<Sum>(1);
    memory_.sync();  // the host tables may go
  }

  std::array<std::uint64_t, 2> partition(const four_list_slice& x, const four_list_slice& y) {
    slices_[0] = x;
    slices_[1] = y;
    SSUM_CUDA_CHECK(cudaMemsetAsync(result_, 0, sizeof(join_result), stream_));
    const std::size_t entries = std::size_t(parts_) * grid_;
    for (int s = 0; s < 2; ++s) {
      count_partitions<Sum><<<grid_, partition_threads, 4 * parts_, stream_>>>(
          side_[s], slices_[s], s, partition_bits_, parts_, tallies_[s], &result_->keys[s]);
      SSUM_CUDA_CHECK_LAUNCH("count_partitions");
      transpose(tallies_[s], starts_[s], grid_, parts_);  // partition-major
      SSUM_CUDA_CHECK(cudaMemsetAsync(starts_[s] + entries, 0, sizeof(std::uint32_t), stream_));
      exclusive_scan(policy_, starts_[s], starts_[s], entries + 1, std::uint32_t{0});
      transpose(starts_[s], tallies_[s], parts_, grid_);  // each block's starts, block-major
    }
    join_result r{};
    SSUM_CUDA_CHECK(cudaMemcpyAsync(&r, result_, sizeof r, cudaMemcpyDeviceToHost, stream_));
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return {r.keys[0], r.keys[1]};
  }

  void build() {
    for (int s = 0; s < 2; ++s) {
      write_partitions<Sum><<<grid_, partition_threads, 4 * parts_, stream_>>>(side_[s], slices_[s], s, partition_bits_,
                                                                             parts_, tallies_[s], keys_[s]);
      SSUM_CUDA_CHECK_LAUNCH("write_partitions");
    }
  }

  std::uint64_t count() {
    join(true, nullptr);
    join_result r{};
    SSUM_CUDA_CHECK(cudaMemcpyAsync(&r, result_, sizeof r, cudaMemcpyDeviceToHost, stream_));
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return r.count;
  }

  std::optional<Sum> find(const Sum* skip) {
    join(false, skip);
    join_result r{};
    Sum key = 0;
    SSUM_CUDA_CHECK(cudaMemcpyAsync(&r, result_, sizeof r, cudaMemcpyDeviceToHost, stream_));
    SSUM_CUDA_CHECK(cudaMemcpyAsync(&key, found_key_, sizeof key, cudaMemcpyDeviceToHost, stream_));
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (!r.found) return std::nullopt;
    return key;
  }

 private:
  static std::size_t piece(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  // Partitions of about partition_keys keys (default: a quarter of a join table), a power of
  // two, at most 2^14.
  std::uint32_t partitions_for(std::size_t cap) const {
    const std::size_t keys = tuning_.partition_keys ? tuning_.partition_keys
                                                     : (std::size_t{1} << table_slot_bits<Sum>) / 4;
    const std::size_t want = std::max<std::size_t>(1, (cap + keys - 1) / keys);
    return static_cast<std::uint32_t>(std::min(std::bit_ceil(want), std::size_t{1} << most_partition_bits));
  }

  void join(bool counting, const Sum* skip) {
    SSUM_CUDA_CHECK(cudaMemsetAsync(&result_->count, 0, sizeof(join_result) - offsetof(join_result, count), stream_));
    const unsigned blocks = std::min<unsigned>(parts_, 4 * unsigned(sms_));
    const Sum skip_key = skip ? *skip : Sum(0);
    if (counting) {
      join_partitions<Sum, true><<<blocks, join_threads, table_bytes<Sum>, stream_>>>(
          keys_[0], keys_[1], starts_[0], starts_[1], parts_, grid_, partition_bits_, false, skip_key, result_,
          found_key_);
    } else {
      join_partitions<Sum, false><<<blocks, join_threads, table_bytes<Sum>, stream_>>>(
          keys_[0], keys_[1], starts_[0], starts_[1], parts_, grid_, partition_bits_, skip != nullptr, skip_key,
          result_, found_key_);
    }
    SSUM_CUDA_CHECK_LAUNCH("join_partitions");
  }

  void transpose(const std::uint32_t* in, std::uint32_t* out, std::uint32_t rows, std::uint32_t cols) {
    const dim3 tiles((cols + 31) / 32, (rows + 31) / 32), threads(32, 8);
    transpose_tallies<<<tiles, threads, 0, stream_>>>(in, out, rows, cols);
    SSUM_CUDA_CHECK_LAUNCH("transpose_tallies");
  }

  template <class T>
  T* upload(T* d, const std::vector<T>& host) {
    if (!host.empty()) {
      SSUM_CUDA_CHECK(cudaMemcpyAsync(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream_));
    }
    return d;
  }

  cuda policy_;
  cudaStream_t stream_;
  device_memory memory_;
  four_list_tuning tuning_;
  int sms_;
  unsigned grid_;
  four_list_side<Sum> side_[2] = {};
  four_list_slice slices_[2] = {};
  Sum* keys_[2] = {nullptr, nullptr};
  std::uint32_t* tallies_[2] = {nullptr, nullptr};  // block-major: counts, then starts
  std::uint32_t* starts_[2] = {nullptr, nullptr};   // partition-major, the total last
  std::uint32_t parts_ = 1;
  int partition_bits_ = 0;
  join_result* result_ = nullptr;
  Sum* found_key_ = nullptr;
};

// 64-bit sums: the radix-sorted batches (four_list_sorted.cuh), faster there; 128-bit ones:
// the hash join above.
template <class Sum>
using cuda_four_list_device =
    std::conditional_t<std::is_same_v<Sum, std::uint64_t>, cuda_four_list_sorted, cuda_four_list<Sum>>;

}  // namespace
}  // namespace ssum::cuda_detail

namespace ssum::detail {

solution solve_four_list_cuda(const cuda& policy, const problem& p, const flipped_totals& totals,
                              const solve_options& options, const four_list_tuning& tuning) {
  cuda_detail::device_scope on(policy.device);
  try {
    return four_list_in_batches<cuda_detail::cuda_four_list_device>(p, totals, options, tuning, "cuda", policy, tuning);
  } catch (...) {
    // Kernels may still be using the arena: let them finish before another solve takes it.
    (void)cudaStreamSynchronize(policy.stream);
    throw;
  }
}

}  // namespace ssum::detail

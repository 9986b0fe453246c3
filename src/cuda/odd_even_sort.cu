// ssum::odd_even_sort and segmented_odd_even_sort on CUDA.
//   up to one tile (2048 keys): one launch, one block (odd_even_block.cuh), the convergence
//     test evaluated on the device;
//   more: every tile sorted by its own block, then odd-even rounds of merge-split between
//     neighbouring tiles (Baudet and Stevenson 1978), one launch per round; a round whose two
//     predecessors changed nothing returns at once, so converged rounds cost a launch only;
//   segmented: segments up to 256 keys get a warp each, up to 2048 a block each, all in one
//     launch per class; longer segments go through the multi-tile path one by one.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/odd_even_block.cuh"
#include "ssum/sort.hpp"

namespace ssum::cuda_detail {
namespace {

constexpr int items = 8;
constexpr int tile_threads = 256;
constexpr std::size_t tile = tile_threads * items;  // keys per tile of the multi-tile path

struct segment {
  std::size_t begin, count;
};

template <int Threads, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Threads) sort_tiles(Key* keys, Value* values, std::size_t n, Compare comp) {
  using block = block_odd_even_sort<Threads, items, Key, Value, Compare>;
  __shared__ typename block::storage s;
  const std::size_t base = blockIdx.x * std::size_t(block::tile);
  const int count = static_cast<int>(std::min<std::size_t>(block::tile, n - base));
  for (int i = threadIdx.x; i < count; i += Threads) {
    s.keys[i] = keys[base + i];
    if constexpr (has_values<Value>) s.values[i] = values[base + i];
  }
  __syncthreads();
  block::sort(s, count, comp);
  for (int i = threadIdx.x; i < count; i += Threads) {
    keys[base + i] = s.keys[i];
    if constexpr (has_values<Value>) values[base + i] = s.values[i];
  }
}

template <int Threads, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Threads) sort_segments(Key* keys, Value* values, const segment* segs, Compare comp) {
  using block = block_odd_even_sort<Threads, items, Key, Value, Compare>;
  __shared__ typename block::storage s;
  const segment seg = segs[blockIdx.x];
  const int count = static_cast<int>(seg.count);
  for (int i = threadIdx.x; i < count; i += Threads) {
    s.keys[i] = keys[seg.begin + i];
    if constexpr (has_values<Value>) s.values[i] = values[seg.begin + i];
  }
  __syncthreads();
  block::sort(s, count, comp);
  for (int i = threadIdx.x; i < count; i += Threads) {
    keys[seg.begin + i] = s.keys[i];
    if constexpr (has_values<Value>) values[seg.begin + i] = s.values[i];
  }
}

// One odd-even round over sorted tiles: block p merge-splits tiles 2p + parity and the next.
// changed[round] records whether any pair moved; the sort has converged once two rounds in a
// row (one odd, one even) moved nothing.
template <class Key, class Value, class Compare>
__global__ void __launch_bounds__(tile_threads)
    merge_split_round(Key* keys, Value* values, std::size_t n, int round, unsigned* changed, Compare comp) {
  if (round >= 2 && changed[round - 1] == 0 && changed[round - 2] == 0) return;
  extern __shared__ __align__(16) unsigned char raw[];
  Key* sk = reinterpret_cast<Key*>(raw);  // left tile, then right tile
  Value* sv = reinterpret_cast<Value*>(sk + 2 * tile);
  const std::size_t left = (2 * std::size_t(blockIdx.x) + (round & 1)) * tile;
  const std::size_t rest = n - (left + tile);
  const int right_count = static_cast<int>(rest < tile ? rest : tile);
  const int total = static_cast<int>(tile) + right_count;
  for (int i = threadIdx.x; i < total; i += tile_threads) {
    sk[i] = keys[left + i];
    if constexpr (has_values<Value>) sv[i] = values[left + i];
  }
  __syncthreads();
  if (!comp(sk[tile], sk[tile - 1])) return;  // already in order: nothing to exchange
  if (threadIdx.x == 0) changed[round] = 1;
  // Merge path over the two runs in shared memory; ties take the left run first (stable).
  const Key* a = sk;
  const Key* b = sk + tile;
  const int d0 = total * int(threadIdx.x) / tile_threads, d1 = total * int(threadIdx.x + 1) / tile_threads;
  int lo = d0 > right_count ? d0 - right_count : 0, hi = d0 < int(tile) ? d0 : int(tile);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (!comp(b[d0 - 1 - mid], a[mid])) lo = mid + 1;
    else hi = mid;
  }
  int i = lo, j = d0 - lo;
  for (int d = d0; d < d1; ++d) {
    const bool take_b = j < right_count && (i >= int(tile) || comp(b[j], a[i]));
    const int from = take_b ? int(tile) + j++ : i++;
    keys[left + d] = sk[from];
    if constexpr (has_values<Value>) values[left + d] = sv[from];
  }
}

template <class Key, class Value, class Compare>
void sort_range(cudaStream_t stream, Key* keys, Value* values, std::size_t n, Compare comp) {
  if (n <= 1) return;
  if (n <= 1024) {  // the seed's size: 128 threads of 8 keys
    sort_tiles<128><<<1, 128, 0, stream>>>(keys, values, n, comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_tiles");
    return;
  }
  const std::size_t tiles = (n + tile - 1) / tile;
  if (tiles > 0x7fffffff) throw std::invalid_argument("ssum::cuda odd_even_sort: too many keys");
  sort_tiles<tile_threads><<<static_cast<unsigned>(tiles), tile_threads, 0, stream>>>(keys, values, n, comp);
  SSUM_CUDA_CHECK_LAUNCH("sort_tiles");
  if (tiles == 1) return;
  device_buffer flags((tiles + 1) * sizeof(unsigned), stream);
  SSUM_CUDA_CHECK(cudaMemsetAsync(flags.as<void>(), 0, (tiles + 1) * sizeof(unsigned), stream));
  const std::size_t smem = 2 * tile * (sizeof(Key) + (has_values<Value> ? sizeof(Value) : 0));
  auto* kernel = merge_split_round<Key, Value, Compare>;
  SSUM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  // Baudet-Stevenson: `tiles` rounds sort `tiles` sorted runs.
  for (std::size_t round = 0; round < tiles; ++round) {
    const std::size_t pairs = (tiles - (round & 1)) / 2;
    if (pairs == 0) continue;
    kernel<<<static_cast<unsigned>(pairs), tile_threads, smem, stream>>>(keys, values, n, static_cast<int>(round),
                                                                         flags.as<unsigned>(), comp);
    SSUM_CUDA_CHECK_LAUNCH("merge_split_round");
  }
}

}  // namespace
}  // namespace ssum::cuda_detail

namespace ssum::detail {

template <class Key, class Value, class Compare>
void cuda_odd_even_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n, Compare comp) {
  if (n == 0) return;
  if (!d_keys || (cuda_detail::has_values<Value> && !d_values)) {
    throw std::invalid_argument("ssum::cuda odd_even_sort: null device pointer");
  }
  cuda_detail::device_scope on(policy.device);
  cuda_detail::sort_range(policy.stream, d_keys, d_values, n, comp);
}

template <class Key, class Value, class Compare>
void cuda_segmented_odd_even_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n,
                                  const std::size_t* offsets, std::size_t segments, Compare comp) {
  using cuda_detail::segment;
  if (segments == 0) return;
  if (!offsets) throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: null offsets");
  for (std::size_t s = 0; s < segments; ++s) {
    if (offsets[s + 1] < offsets[s]) throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: offsets decrease");
  }
  if (offsets[segments] > n) throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: offsets beyond n");
  if (offsets[segments] > offsets[0] && (!d_keys || (cuda_detail::has_values<Value> && !d_values))) {
    throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: null device pointer");
  }
  cuda_detail::device_scope on(policy.device);
  const cudaStream_t stream = policy.stream;
  // Classes by length: a warp (32 threads x 8 keys), a block (256 x 8), or the tile path.
  std::vector<segment> warp_segs, block_segs;
  for (std::size_t s = 0; s < segments; ++s) {
    const segment seg{offsets[s], offsets[s + 1] - offsets[s]};
    if (seg.count <= 1) continue;
    if (seg.count <= 32 * cuda_detail::items) warp_segs.push_back(seg);
    else if (seg.count <= cuda_detail::tile) block_segs.push_back(seg);
    else cuda_detail::sort_range(stream, d_keys + seg.begin, cuda_detail::has_values<Value> ? d_values + seg.begin : d_values, seg.count, comp);
  }
  const std::size_t listed = warp_segs.size() + block_segs.size();
  if (listed == 0) return;
  if (warp_segs.size() > 0x7fffffff || block_segs.size() > 0x7fffffff) {
    throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: too many segments");
  }
  cuda_detail::device_buffer list(listed * sizeof(segment), stream);
  std::vector<segment> all(warp_segs);
  all.insert(all.end(), block_segs.begin(), block_segs.end());
  SSUM_CUDA_CHECK(cudaMemcpyAsync(list.as<void>(), all.data(), listed * sizeof(segment), cudaMemcpyHostToDevice, stream));
  // The host vector must outlive the copy: pageable memory makes the copy complete on return.
  if (!warp_segs.empty()) {
    cuda_detail::sort_segments<32><<<static_cast<unsigned>(warp_segs.size()), 32, 0, stream>>>(
        d_keys, d_values, list.as<segment>(), comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_segments<32>");
  }
  if (!block_segs.empty()) {
    cuda_detail::sort_segments<cuda_detail::tile_threads>
        <<<static_cast<unsigned>(block_segs.size()), cuda_detail::tile_threads, 0, stream>>>(
            d_keys, d_values, list.as<segment>() + warp_segs.size(), comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_segments<256>");
  }
}

#define SSUM_SORT(K, V, C)                                                                                  \
  template void cuda_odd_even_sort<K, V, C>(const cuda&, K*, V*, std::size_t, C);                          \
  template void cuda_segmented_odd_even_sort<K, V, C>(const cuda&, K*, V*, std::size_t, const std::size_t*, \
                                                      std::size_t, C);
#define SSUM_SORT_KEY(K)                                                                                    \
  SSUM_SORT(K, no_values, less) SSUM_SORT(K, no_values, greater) SSUM_SORT(K, std::uint32_t, less)         \
  SSUM_SORT(K, std::uint32_t, greater)
SSUM_SORT_KEY(std::int32_t)
SSUM_SORT_KEY(std::uint32_t)
SSUM_SORT_KEY(std::int64_t)
SSUM_SORT_KEY(std::uint64_t)
SSUM_SORT_KEY(float)
SSUM_SORT_KEY(double)
#undef SSUM_SORT_KEY
#undef SSUM_SORT

}  // namespace ssum::detail

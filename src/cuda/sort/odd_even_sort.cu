// ssum::odd_even_sort and segmented_odd_even_sort on CUDA.
//   up to one warp's capacity (1024 integer keys, 512 otherwise): one launch of one warp,
//     keys in registers (odd_even_warp.cuh), the convergence test evaluated on the device;
//   up to one tile (2048 keys): one launch, one block (odd_even_block.cuh);
//   more: every tile sorted by its own block, then odd-even rounds of merge-split between
//     neighbouring tiles (Baudet and Stevenson 1978), one launch per round; a round whose two
//     predecessors changed nothing returns at once, so converged rounds cost a launch only;
//   segmented (device offsets): one pass checks the offsets and sorts out the segments by
//     length; segments up to 32 keys get 8 lanes each, up to 256 and up to the warp capacity a
//     warp each, up to 2048 a block each, all in one launch per class; longer segments go
//     through the multi-tile path one by one.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/sort/odd_even_block.cuh"
#include "cuda/sort/odd_even_warp.cuh"
#include "ssum/sort.hpp"

namespace ssum::cuda_detail {
namespace {

// The launch shapes, in one place.
struct odd_even_sort_policy {
  static constexpr int items = 8;                                  // keys per thread of a block sort
  static constexpr int tile_threads = 256;                         // the multi-tile path's blocks
  static constexpr std::size_t tile = tile_threads * items;       // keys per tile of the multi-tile path
  static constexpr int small_threads = 128;                        // up to small_tile keys: one block
  static constexpr std::size_t small_tile = small_threads * items;
};

struct segment {
  std::size_t begin, count;
};

template <int Threads, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Threads) sort_tiles(Key* keys, Value* values, std::size_t n, Compare comp) {
  using P = odd_even_sort_policy;
  using block = block_odd_even_sort<Threads, P::items, Key, Value, Compare>;
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
  using P = odd_even_sort_policy;
  using block = block_odd_even_sort<Threads, P::items, Key, Value, Compare>;
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

// The most keys one warp sorts in registers: 32 lanes x 32 keys when ties are invisible,
// else 16 keys a lane (positions ride along, and 32 would spill).
template <class Key, class Value>
inline constexpr int warp_items = ties_visible<Key, Value> ? 16 : 32;

// One warp sorts keys[0, n), n <= 32 * Items.
template <int Items, class Key, class Value, class Compare>
__global__ void __launch_bounds__(32) sort_one_warp(Key* keys, Value* values, int n, Compare comp) {
  using warp = warp_odd_even_sort<Items, 32, Key, Value, Compare>;
  typename warp::run x;
  warp::load(x, keys, values, n);
  warp::sort(x, comp);
  warp::store(x, keys, values, n);
}

// Segments of a class, a group of Lanes lanes each (32 / Lanes segments a warp).
template <int Items, int Lanes, class Key, class Value, class Compare>
__global__ void __launch_bounds__(256) sort_segments_in_warps(Key* keys, Value* values, const segment* segs,
                                                               std::size_t count, Compare comp) {
  using warp = warp_odd_even_sort<Items, Lanes, Key, Value, Compare>;
  const std::size_t s = (std::size_t(blockIdx.x) * 256 + threadIdx.x) / Lanes;
  const segment seg = s < count ? segs[s] : segment{0, 0};
  const int c = static_cast<int>(seg.count);
  Value* const v = has_values<Value> ? values + seg.begin : values;
  typename warp::run x;
  warp::load(x, keys + seg.begin, v, c);
  warp::sort(x, comp);  // the whole warp, also groups past the end
  warp::store(x, keys + seg.begin, v, c);
}

// Segments of up to 32 keys are sorted straight from the offsets (8 lanes each); the others
// were listed by classify_segments.
template <class Key, class Value, class Compare>
__global__ void __launch_bounds__(256) sort_short_segments(Key* keys, Value* values, const std::size_t* offsets,
                                                           std::size_t segments, Compare comp) {
  constexpr int lanes = 8;
  using warp = warp_odd_even_sort<4, lanes, Key, Value, Compare>;
  const std::size_t s = (std::size_t(blockIdx.x) * 256 + threadIdx.x) / lanes;
  std::size_t begin = 0, count = 0;
  if (s < segments) {
    begin = offsets[s];
    count = offsets[s + 1] - begin;  // offsets were checked before this launch
    if (count > warp::capacity) count = 0;
  }
  const int c = static_cast<int>(count);
  Value* const v = has_values<Value> ? values + begin : values;
  typename warp::run x;
  warp::load(x, keys + begin, v, c);
  warp::sort(x, comp);
  warp::store(x, keys + begin, v, c);
}

// Segment classes by length, as classify_segments fills them.
enum segment_class { short_class = 0, warp_class, wide_warp_class, block_class, long_class, class_count };
struct segment_census {
  unsigned long long bad;                  // offsets that decrease or run past n
  unsigned long long count[class_count];  // segments listed per class (short ones are not listed)
};

// Where classify_segments lists the segments of each class (short ones are not listed).
struct segment_lists {
  segment* list[class_count];
  unsigned long long room[class_count];
};

// Checks the offsets and lists every segment longer than 32 keys under its class. Valid
// offsets describe disjoint segments, so `room` (from n) always suffices; with invalid ones
// overlapping segments could overflow a list, so the write is guarded and counted as bad.
__global__ void classify_segments(const std::size_t* offsets, std::size_t segments, std::size_t n, int wide_limit,
                                  segment_census* census, segment_lists lists) {
  using P = odd_even_sort_policy;
  const std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= segments) return;
  const std::size_t begin = offsets[s], end = offsets[s + 1];
  if (end < begin || end > n) {
    atomicAdd(&census->bad, 1ull);
    return;
  }
  const std::size_t count = end - begin;
  if (count <= 32) return;
  const int c = count <= 256 ? warp_class
                : count <= std::size_t(wide_limit) ? wide_warp_class
                : count <= P::tile ? block_class
                : long_class;
  const unsigned long long slot = atomicAdd(&census->count[c], 1ull);
  if (slot < lists.room[c]) lists.list[c][slot] = segment{begin, count};
  else atomicAdd(&census->bad, 1ull);
}

// One odd-even round over sorted tiles: block p merge-splits tiles 2p + parity and the next.
// changed[round] records whether any pair moved; the sort has converged once two rounds in a
// row (one odd, one even) moved nothing.
template <class Key, class Value, class Compare>
__global__ void __launch_bounds__(odd_even_sort_policy::tile_threads)
    merge_split_round(Key* keys, Value* values, std::size_t n, int round, unsigned* changed, Compare comp) {
  using P = odd_even_sort_policy;
  if (round >= 2 && changed[round - 1] == 0 && changed[round - 2] == 0) return;
  extern __shared__ __align__(16) unsigned char raw[];
  Key* sk = reinterpret_cast<Key*>(raw);  // left tile, then right tile
  Value* sv = reinterpret_cast<Value*>(sk + 2 * P::tile);
  const std::size_t left = (2 * std::size_t(blockIdx.x) + (round & 1)) * P::tile;
  const std::size_t rest = n - (left + P::tile);
  const int right_count = static_cast<int>(rest < P::tile ? rest : P::tile);
  const int total = static_cast<int>(P::tile) + right_count;
  for (int i = threadIdx.x; i < total; i += P::tile_threads) {
    sk[i] = keys[left + i];
    if constexpr (has_values<Value>) sv[i] = values[left + i];
  }
  __syncthreads();
  if (!comp(sk[P::tile], sk[P::tile - 1])) return;  // already in order: nothing to exchange
  if (threadIdx.x == 0) changed[round] = 1;
  // Merge path over the two runs in shared memory; ties take the left run first (stable).
  const Key* a = sk;
  const Key* b = sk + P::tile;
  const int d0 = total * int(threadIdx.x) / P::tile_threads, d1 = total * int(threadIdx.x + 1) / P::tile_threads;
  int lo = d0 > right_count ? d0 - right_count : 0, hi = d0 < int(P::tile) ? d0 : int(P::tile);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (!comp(b[d0 - 1 - mid], a[mid])) lo = mid + 1;
    else hi = mid;
  }
  int i = lo, j = d0 - lo;
  for (int d = d0; d < d1; ++d) {
    const bool take_b = j < right_count && (i >= int(P::tile) || comp(b[j], a[i]));
    const int from = take_b ? int(P::tile) + j++ : i++;
    keys[left + d] = sk[from];
    if constexpr (has_values<Value>) values[left + d] = sv[from];
  }
}

template <class Key, class Value, class Compare>
void sort_range(cudaStream_t stream, Key* keys, Value* values, std::size_t n, Compare comp) {
  using P = odd_even_sort_policy;
  if (n <= 1) return;
  constexpr int wi = warp_items<Key, Value>;
  if (n <= std::size_t(32 * wi)) {  // up to 1024 keys (512 with visible ties): one warp, keys in registers
    sort_one_warp<wi><<<1, 32, 0, stream>>>(keys, values, static_cast<int>(n), comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_one_warp");
    return;
  }
  if (n <= P::small_tile) {
    sort_tiles<P::small_threads><<<1, P::small_threads, 0, stream>>>(keys, values, n, comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_tiles");
    return;
  }
  const std::size_t tiles = (n + P::tile - 1) / P::tile;
  if (tiles > 0x7fffffff) throw std::invalid_argument("ssum::cuda odd_even_sort: too many keys");
  sort_tiles<P::tile_threads><<<static_cast<unsigned>(tiles), P::tile_threads, 0, stream>>>(keys, values, n, comp);
  SSUM_CUDA_CHECK_LAUNCH("sort_tiles");
  if (tiles == 1) return;
  device_buffer flags((tiles + 1) * sizeof(unsigned), stream);
  SSUM_CUDA_CHECK(cudaMemsetAsync(flags.as<void>(), 0, (tiles + 1) * sizeof(unsigned), stream));
  const std::size_t smem = 2 * P::tile * (sizeof(Key) + (has_values<Value> ? sizeof(Value) : 0));
  auto* kernel = merge_split_round<Key, Value, Compare>;
  SSUM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  // Baudet-Stevenson: `tiles` rounds sort `tiles` sorted runs.
  for (std::size_t round = 0; round < tiles; ++round) {
    const std::size_t pairs = (tiles - (round & 1)) / 2;
    if (pairs == 0) continue;
    kernel<<<static_cast<unsigned>(pairs), P::tile_threads, smem, stream>>>(keys, values, n, static_cast<int>(round),
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
                                  const std::size_t* d_offsets, std::size_t segments, Compare comp) {
  using namespace cuda_detail;
  using P = odd_even_sort_policy;
  if (segments == 0) return;
  if (!d_offsets) throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: null offsets");
  if (n > 0 && (!d_keys || (has_values<Value> && !d_values))) {
    throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: null device pointer");
  }
  if (segments > std::size_t{0x7fffffff} * 32) throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: too many segments");
  device_scope on(policy.device);
  const cudaStream_t stream = policy.stream;
  constexpr int wi = warp_items<Key, Value>;
  constexpr int wide_limit = 32 * wi;
  // Room per listed class: disjoint segments of at least L keys number at most n / L.
  segment_lists lists{};
  const std::size_t shortest[class_count] = {0, 33, 257, std::size_t(wide_limit) + 1, P::tile + 1};
  std::size_t total = 0;
  for (int c = warp_class; c < class_count; ++c) lists.room[c] = std::min(segments, n / shortest[c]), total += lists.room[c];
  device_buffer scratch(sizeof(segment_census) + (total ? total : 1) * sizeof(segment), stream);
  auto* census = scratch.as<segment_census>();
  segment* next = scratch.as<segment>(sizeof(segment_census));
  for (int c = warp_class; c < class_count; ++c) lists.list[c] = next, next += lists.room[c];
  SSUM_CUDA_CHECK(cudaMemsetAsync(census, 0, sizeof(segment_census), stream));
  classify_segments<<<static_cast<unsigned>((segments + 255) / 256), 256, 0, stream>>>(d_offsets, segments, n,
                                                                                       wide_limit, census, lists);
  SSUM_CUDA_CHECK_LAUNCH("classify_segments");
  // One look at the census: bad offsets are refused before any key moves, and the class
  // sizes give exact grids.
  segment_census got{};
  SSUM_CUDA_CHECK(cudaMemcpyAsync(&got, census, sizeof got, cudaMemcpyDeviceToHost, stream));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (got.bad) {
    throw std::invalid_argument("ssum::cuda segmented_odd_even_sort: " + std::to_string(got.bad) +
                                " segment(s) with offsets that decrease or run past n");
  }
  const unsigned short_blocks = static_cast<unsigned>((segments + 31) / 32);  // 8 lanes a segment
  sort_short_segments<<<short_blocks, 256, 0, stream>>>(d_keys, d_values, d_offsets, segments, comp);
  SSUM_CUDA_CHECK_LAUNCH("sort_short_segments");
  if (const std::size_t c = got.count[warp_class]) {
    sort_segments_in_warps<8, 32><<<static_cast<unsigned>((c + 7) / 8), 256, 0, stream>>>(
        d_keys, d_values, lists.list[warp_class], c, comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_segments_in_warps<8>");
  }
  if (const std::size_t c = got.count[wide_warp_class]) {
    sort_segments_in_warps<wi, 32><<<static_cast<unsigned>((c + 7) / 8), 256, 0, stream>>>(
        d_keys, d_values, lists.list[wide_warp_class], c, comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_segments_in_warps<wide>");
  }
  if (const std::size_t c = got.count[block_class]) {
    sort_segments<P::tile_threads><<<static_cast<unsigned>(c), P::tile_threads, 0, stream>>>(
        d_keys, d_values, lists.list[block_class], comp);
    SSUM_CUDA_CHECK_LAUNCH("sort_segments<256>");
  }
  if (const std::size_t c = got.count[long_class]) {
    std::vector<segment> longs(c);
    SSUM_CUDA_CHECK(cudaMemcpyAsync(longs.data(), lists.list[long_class], c * sizeof(segment), cudaMemcpyDeviceToHost, stream));
    SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (const segment& seg : longs) {
      sort_range(stream, d_keys + seg.begin, has_values<Value> ? d_values + seg.begin : d_values, seg.count, comp);
    }
  }
}

#define SSUM_SORT(K, V, C)                                                                                  \
  template void cuda_odd_even_sort<K, V, C>(const cuda&, K*, V*, std::size_t, C);                          \
  template void cuda_segmented_odd_even_sort<K, V, C>(const cuda&, K*, V*, std::size_t, const std::size_t*, \
                                                      std::size_t, C);
#define SSUM_SORT_KEY(K)                                                                                    \
  SSUM_SORT(K, no_values, less) SSUM_SORT(K, no_values, greater) SSUM_SORT(K, std::uint32_t, less)         \
  SSUM_SORT(K, std::uint32_t, greater)
SSUM_FOR_EACH_CUDA_KEY(SSUM_SORT_KEY)
#undef SSUM_SORT_KEY
#undef SSUM_SORT

}  // namespace ssum::detail

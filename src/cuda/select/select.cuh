#pragma once
// Stream compaction (select by predicate) on the single-pass scan machinery: each tile counts
// its selected elements, scans the counts across the block, learns how many earlier tiles
// selected by decoupled look-back, packs its selection in shared memory and writes it out
// coalesced. Usable from any CUDA code with any device predicate.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/scan/block_scan.cuh"
#include "cuda/scan/tile_scan.cuh"

namespace ssum::cuda_detail {

struct count_plus {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a + b; }
};

// The launch shape, one block per tile: 256 threads x 16 items (8 for 8-byte types), as the
// scan's transposing tiles. Tiles move in tile_access::plain; the look-back polls without
// backing off.
template <class T>
struct select_policy {
  static constexpr int threads = 256;
  static constexpr int items = sizeof(T) >= 8 ? 8 : 16;
};

template <int Threads, int Items, class T, class Pred>
__global__ void __launch_bounds__(Threads)
    select_tiles(const T* in, T* out, std::size_t n, Pred pred, tile_state<unsigned long long> state,
                 std::size_t tiles, unsigned long long* d_count) {
  using count_t = unsigned long long;
  using io = tile_io<Threads, Items, T>;
  constexpr std::size_t tile = Threads * Items;
  __shared__ alignas(16) T buf[io::slots];
  __shared__ typename block_scan_warp<Threads, count_t>::storage scan_storage;
  __shared__ std::size_t s_tile;
  __shared__ count_t s_before;
  if (threadIdx.x == 0) s_tile = atomicAdd(state.ticket, 1ull);
  __syncthreads();
  const std::size_t tile_id = s_tile;
  const std::size_t base = tile_id * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);

  T v[Items];
  io::template load<T, tile_access::plain>(in, base, valid, v, buf);
  bool keep[Items];
  count_t mine = 0;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    keep[k] = static_cast<int>(threadIdx.x) * Items + k < valid && pred(v[k]);
    mine += keep[k];
  }
  count_t inc, excl, selected;
  block_scan_warp<Threads, count_t>::scan(mine, count_plus{}, inc, excl, selected, scan_storage);
  if (threadIdx.x == 0) excl = 0;

  if (threadIdx.x < warp_size) {
    count_t before = 0;
    if (tile_id == 0) {
      if (threadIdx.x == 0) state.publish(0, selected, status_inclusive);
    } else {
      if (threadIdx.x == 0) state.publish(tile_id, selected, status_aggregate);
      before = look_back<tile_state<count_t>, count_t, false>(state, tile_id, count_plus{});
      if (threadIdx.x == 0) state.publish(tile_id, before + selected, status_inclusive);
    }
    if (threadIdx.x == 0) {
      s_before = before;
      if (tile_id == tiles - 1) *d_count = before + selected;
    }
  }
  // Pack this tile's selection at the front of buf (the block scan's barriers ended the
  // load's reads), then write it out with consecutive threads on consecutive elements.
  count_t slot = excl;
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (keep[k]) buf[padded(static_cast<int>(slot++))] = v[k];
  }
  __syncthreads();
  const count_t before = s_before;
  for (int i = threadIdx.x; i < static_cast<int>(selected); i += Threads) out[before + i] = buf[padded(i)];
}

// Copies the elements of d_in satisfying pred to d_out in order; returns their number.
// Waits for the stream, since the count is a host value.
template <class T, class Pred>
std::size_t select_if(cudaStream_t stream, const T* d_in, T* d_out, std::size_t n, Pred pred) {
  if (n == 0) return 0;
  using tuning = select_policy<T>;
  constexpr std::size_t tile = tuning::threads * tuning::items;
  const std::size_t tiles = (n + tile - 1) / tile;
  using count_t = unsigned long long;
  using state_t = tile_state<count_t>;
  // Scratch: the total count, then the tile state.
  device_buffer scratch(16 + state_t::bytes(tiles), stream);
  count_t* d_count = scratch.as<count_t>();
  const state_t state = state_t::bind(scratch.as<char>(16), tiles);
  SSUM_CUDA_CHECK(cudaMemsetAsync(scratch.as<char>(16), 0, state_t::bytes(tiles), stream));
  select_tiles<tuning::threads, tuning::items><<<static_cast<unsigned>(tiles), tuning::threads, 0, stream>>>(
      d_in, d_out, n, pred, state, tiles, d_count);
  SSUM_CUDA_CHECK_LAUNCH("select_tiles");
  count_t count = 0;
  SSUM_CUDA_CHECK(cudaMemcpyAsync(&count, d_count, sizeof count, cudaMemcpyDeviceToHost, stream));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(count);
}

}  // namespace ssum::cuda_detail

#pragma once
// The scan kernels behind ssum::inclusive_scan / exclusive_scan on CUDA (see scan.cu for the
// dispatch): a tile is Threads x Items elements; each thread scans its Items in registers,
// the block scans the thread totals, and the tile learns what precedes it either by
// decoupled look-back (LookBack) or from a precomputed array of tile prefixes.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/block_scan.cuh"
#include "cuda/check.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/tile_scan.cuh"

namespace ssum::cuda_detail {

// One place for the launch shape. 16 KiB of input per tile keeps enough bytes in flight
// per SM to cover HBM latency at 8 resident blocks.
// Measured on the H200 (docs/performance.md): for 4-byte values, asking for 8 resident
// blocks per SM (32 registers a thread) beat 128/512 threads, 24 items and fewer blocks.
template <class In, class Out>
struct scan_tuning {
  static constexpr int threads = 256;
  static constexpr int items = sizeof(Out) >= 8 ? 8 : 16;
  static constexpr int min_blocks = sizeof(Out) >= 8 ? 1 : 8;  // __launch_bounds__' blocks per SM
  // All four scan_variant bits: together 5-6% faster than none at 2^28 int32 and 2^20
  // (bench_scan_cuda's variant_* rows, docs/performance.md).
  static constexpr int flags = scan_variant::backoff | scan_variant::full_tile | scan_variant::streaming |
                               scan_variant::warp_transpose;
  using block_scan = block_scan_warp<threads, Out>;
};

template <class Out>
struct scan_params {
  Out init;
  bool has_init;
  bool exclusive;
  tile_state<Out> state;  // LookBack
  const Out* tile_prefix; // !LookBack: what precedes each tile (includes init)
};

template <int Threads, int Items, int MinBlocks, class BlockScan, bool LookBack, int Flags, class In, class Out, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks) scan_tiles(const In* in, Out* out, std::size_t n, Op op, scan_params<Out> p) {
  using io = tile_io<Threads, Items, Out>;
  constexpr std::size_t tile = Threads * Items;
  constexpr std::size_t widest = sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out);
  __shared__ alignas(16) unsigned char raw[widest * io::slots];
  __shared__ typename BlockScan::storage scan_storage;
  __shared__ std::size_t s_tile;
  __shared__ Out s_prefix;

  std::size_t tile_id = blockIdx.x;
  if constexpr (LookBack) {
    // Tiles are numbered in the order they start, so look-back waits only on running tiles.
    if (threadIdx.x == 0) s_tile = atomicAdd(p.state.ticket, 1ull);
    __syncthreads();
    tile_id = s_tile;
  }
  const std::size_t base = tile_id * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);

  Out v[Items];
  tile_io<Threads, Items, In>::template load<Out, Flags>(in, base, valid, v, reinterpret_cast<In*>(raw));
#pragma unroll
  for (int k = 1; k < Items; ++k) v[k] = op(v[k - 1], v[k]);
  Out inc, excl, aggregate;
  BlockScan::scan(v[Items - 1], op, inc, excl, aggregate, scan_storage);

  bool has_prefix;
  Out prefix;
  if constexpr (LookBack) {
    if (tile_id == 0) {
      has_prefix = p.has_init;
      prefix = p.init;
      if (threadIdx.x == 0) p.state.publish(0, p.has_init ? op(p.init, aggregate) : aggregate, status_inclusive);
    } else {
      if (threadIdx.x < warp_size) {
        if (threadIdx.x == 0) p.state.publish(tile_id, aggregate, status_aggregate);  // unblock successors early
        const Out before = look_back<tile_state<Out>, Out, Flags>(p.state, tile_id, op);
        if (threadIdx.x == 0) {
          p.state.publish(tile_id, op(before, aggregate), status_inclusive);
          s_prefix = before;
        }
      }
      __syncthreads();
      has_prefix = true;
      prefix = s_prefix;
    }
  } else {
    has_prefix = tile_id > 0 || p.has_init;
    prefix = tile_id > 0 ? p.tile_prefix[tile_id] : p.init;
  }

  // What precedes this thread's first element; thread 0 of tile 0 may have nothing.
  const bool has_first = threadIdx.x > 0 || has_prefix;
  const Out first = threadIdx.x == 0 ? prefix : (has_prefix ? op(prefix, excl) : excl);
  Out* const staged = reinterpret_cast<Out*>(raw);  // the block scan's barriers ended all reads of raw
  if (p.exclusive) {  // init is always given: has_first holds
    io::stage(0, first, staged);
#pragma unroll
    for (int k = 1; k < Items; ++k) io::stage(k, op(first, v[k - 1]), staged);
  } else {
#pragma unroll
    for (int k = 0; k < Items; ++k) io::stage(k, has_first ? op(first, v[k]) : v[k], staged);
  }
  io::template flush<Flags>(out, base, valid, staged);
}

// Deterministic path, step 1: the reduction of each tile, combined in the tile's fixed shape.
template <int Threads, int Items, class BlockScan, class In, class Out, class Op>
__global__ void __launch_bounds__(Threads) reduce_tiles(const In* in, std::size_t n, Op op, Out* sums) {
  constexpr std::size_t tile = Threads * Items;
  __shared__ alignas(16) In buf[tile_io<Threads, Items, In>::slots];
  __shared__ typename BlockScan::storage scan_storage;
  const std::size_t base = blockIdx.x * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);
  Out v[Items];
  tile_io<Threads, Items, In>::template load<Out>(in, base, valid, v, buf);
#pragma unroll
  for (int k = 1; k < Items; ++k) v[k] = op(v[k - 1], v[k]);
  Out inc, excl, aggregate;
  BlockScan::scan(v[Items - 1], op, inc, excl, aggregate, scan_storage);
  if (threadIdx.x == 0) sums[blockIdx.x] = aggregate;  // the last tile's (padded) sum is never used
}

constexpr int sums_threads = 1024;

// Deterministic path, step 2: prefix[i] = init op sums[0] op ... op sums[i-1], by one block:
// each thread folds a fixed contiguous run of sums, the block scans the run totals, and each
// thread writes its run's prefixes. The shape depends on `count` only.
template <int Threads, class Out, class Op>
__global__ void __launch_bounds__(Threads) scan_tile_sums(const Out* sums, Out* prefix, std::size_t count, Op op,
                                                          Out init, bool has_init) {
  __shared__ typename block_scan_warp<Threads, Out>::storage scan_storage;
  const std::size_t run = (count + Threads - 1) / Threads;
  const std::size_t lo = threadIdx.x * run;
  const std::size_t hi = lo + run < count ? lo + run : count;
  Out total{};
  for (std::size_t i = lo; i < hi; ++i) total = i == lo ? sums[i] : op(total, sums[i]);
  Out inc, excl, all;
  block_scan_warp<Threads, Out>::scan(total, op, inc, excl, all, scan_storage);
  // Threads past the end (lo >= count) hold garbage totals, but only later threads see them.
  bool have = threadIdx.x > 0 || has_init;
  Out carry = threadIdx.x == 0 ? init : (has_init ? op(init, excl) : excl);
  for (std::size_t i = lo; i < hi; ++i) {
    prefix[i] = carry;  // tile 0 without init: never read
    carry = have ? op(carry, sums[i]) : sums[i];
    have = true;
  }
}

// Single pass with decoupled look-back for any launch shape (scan.cu picks scan_tuning's;
// the benchmarks try others). p carries init / exclusive; its state is set up here.
template <int Threads, int Items, int MinBlocks, class BlockScan, int Flags, class In, class Out, class Op>
void launch_look_back_scan(cudaStream_t stream, const In* in, Out* out, std::size_t n, Op op, scan_params<Out> p) {
  using state_t = tile_state<Out>;
  const std::size_t tiles = (n + Threads * Items - 1) / (Threads * Items);
  device_buffer scratch(state_t::bytes(tiles), stream);
  p.state = state_t::bind(scratch.as<void>(), tiles);
  SSUM_CUDA_CHECK(cudaMemsetAsync(scratch.as<void>(), 0, state_t::zeroed_bytes(tiles), stream));
  scan_tiles<Threads, Items, MinBlocks, BlockScan, true, Flags><<<static_cast<unsigned>(tiles), Threads, 0, stream>>>(in, out, n, op, p);
  SSUM_CUDA_CHECK_LAUNCH("scan_tiles");
}

}  // namespace ssum::cuda_detail

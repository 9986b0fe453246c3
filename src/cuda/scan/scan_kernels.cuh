#pragma once
// The scan kernels behind ssum::inclusive_scan / exclusive_scan on CUDA (see scan.cu for the
// dispatch): a tile is Threads x Items elements; each thread scans its Items in registers,
// the block scans the thread totals, and the tile learns what precedes it either by
// decoupled look-back (LookBack) or from a precomputed array of tile prefixes. The launch
// shapes come from scan_policy.cuh.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "cuda/common/bulk_copy.cuh"
#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/common/kept_state.cuh"
#include "cuda/scan/block_scan.cuh"
#include "cuda/scan/tile_scan.cuh"

namespace ssum::cuda_detail {

template <class Out>
struct scan_params {
  Out init;
  bool has_init;
  bool exclusive;
  tile_state<Out> state;  // LookBack
  bool reset_state;       // LookBack: the state is kept; the last block zeroes it (reset_when_last)
  const Out* tile_prefix; // !LookBack: what precedes each tile (includes init)
};

template <int Threads, int Items, int MinBlocks, bool LookBack, class In, class Out, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks) scan_tiles(const In* in, Out* out, std::size_t n, Op op, scan_params<Out> p) {
  using BlockScan = block_scan_warp<Threads, Out>;
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
  tile_io<Threads, Items, In>::template load<Out, tile_access::streamed>(in, base, valid, v, reinterpret_cast<In*>(raw));
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
        const Out before = look_back<tile_state<Out>, Out, true>(p.state, tile_id, op);
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
  io::template flush<tile_access::streamed>(out, base, valid, staged);
  if constexpr (LookBack) {
    if (p.reset_state) reset_when_last(p.state, gridDim.x);
  }
}

// Integer scans whose input and output have one 4- or 8-byte type and 16-byte alignment
// take scan_tiles_vectorized: no trip through shared memory at all. Each warp owns a
// contiguous run of 32 x Items elements, read as Vectors 16-byte loads per lane, so every
// load and store instruction of a warp moves 512 contiguous bytes (CUB's 2^28 int32 scan
// reads 4 elements at a time too; ssum's transposing kernel reached 0.84x of it).
// Lane l's k-th vector holds elements k*32*V + l*V ... + V-1 of the run: the lane scans it
// in registers, the warp scans the vectors' totals with shuffles, vector after vector.
// 16-byte vectors with evict-first cache hints (each element is read once and written once).
template <class T, int V>
__device__ __forceinline__ void load_vector(const T* p, T (&v)[V]) {
  static_assert(V * sizeof(T) == 16, "one 16-byte vector");
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4 r;
  r = __ldcs(q);
  memcpy(v, &r, 16);
}
template <class T, int V>
__device__ __forceinline__ void store_vector(T* p, const T (&v)[V]) {
  uint4 r;
  memcpy(&r, v, 16);
  uint4* q = reinterpret_cast<uint4*>(p);
  __stcs(q, r);
}

// One tile's 16-byte vectors of this thread (guarded, padded with T{} past n, for the last).
template <int Threads, int Vectors, class T, int V>
__device__ __forceinline__ void load_vectorized_tile(const T* in, std::size_t n, std::size_t tile_id, T (&v)[Vectors][V]) {
  constexpr std::size_t tile = std::size_t{Threads} * Vectors * V;
  const int lane = static_cast<int>(threadIdx.x) % warp_size, warp = static_cast<int>(threadIdx.x) / warp_size;
  const std::size_t run = tile_id * tile + std::size_t(warp) * warp_size * Vectors * V;
  if (n - tile_id * tile >= tile) {
#pragma unroll
    for (int k = 0; k < Vectors; ++k) load_vector(in + run + k * warp_size * V + lane * V, v[k]);
  } else {
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const std::size_t i = run + k * warp_size * V + lane * V + j;
        v[k][j] = i < n ? in[i] : T{};  // padding only ever follows the valid elements
      }
    }
  }
}

// The same positions written back (guarded for the last tile).
template <int Threads, int Vectors, class T, int V>
__device__ __forceinline__ void store_vectorized_tile(T* out, std::size_t n, std::size_t tile_id, const T (&v)[Vectors][V]) {
  constexpr std::size_t tile = std::size_t{Threads} * Vectors * V;
  const int lane = static_cast<int>(threadIdx.x) % warp_size, warp = static_cast<int>(threadIdx.x) / warp_size;
  const std::size_t run = tile_id * tile + std::size_t(warp) * warp_size * Vectors * V;
  if (n - tile_id * tile >= tile) {
#pragma unroll
    for (int k = 0; k < Vectors; ++k) store_vector(out + run + k * warp_size * V + lane * V, v[k]);
  } else {
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const std::size_t i = run + k * warp_size * V + lane * V + j;
        if (i < n) out[i] = v[k][j];
      }
    }
  }
}

// One block per tile of Threads x Vectors 16-byte vectors.
template <int Threads, int Vectors, int MinBlocks, class T, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks)
    scan_tiles_vectorized(const T* in, T* out, std::size_t n, Op op, scan_params<T> p) {
  constexpr int V = 16 / sizeof(T);
  constexpr int warps = Threads / warp_size;
  constexpr unsigned all_lanes = 0xffffffffu;
  static_assert(warps <= warp_size, "one warp scans the warp totals");
  __shared__ T s_warp_total[warps];
  __shared__ std::size_t s_tile;
  __shared__ T s_prefix;
  const int lane = static_cast<int>(threadIdx.x) % warp_size, warp = static_cast<int>(threadIdx.x) / warp_size;

  // Tiles are numbered in the order they start, so look-back waits only on running tiles.
  if (threadIdx.x == 0) s_tile = atomicAdd(p.state.ticket, 1ull);
  __syncthreads();
  const std::size_t tile_id = s_tile;
  T v[Vectors][V];
  load_vectorized_tile<Threads, Vectors>(in, n, tile_id, v);

  // before[k]: what precedes vector k within the warp's run (nothing for lane 0's first).
  T before[Vectors];
  T carry{};
#pragma unroll
  for (int k = 0; k < Vectors; ++k) {
#pragma unroll
    for (int j = 1; j < V; ++j) v[k][j] = op(v[k][j - 1], v[k][j]);
    const T inc = warp_inclusive_scan(v[k][V - 1], op);
    const T exc = __shfl_up_sync(all_lanes, inc, 1);
    const T whole = __shfl_sync(all_lanes, inc, warp_size - 1);
    if (k == 0) {
      before[0] = exc;
      carry = whole;
    } else {
      before[k] = lane == 0 ? carry : op(carry, exc);
      carry = op(carry, whole);
    }
  }
  if (lane == 0) s_warp_total[warp] = carry;
  __syncthreads();
  // Every warp scans the few warp totals itself. Lanes past the last warp repeat its
  // total: they never reach a lower lane.
  const T w = warp_inclusive_scan(s_warp_total[lane < warps ? lane : warps - 1], op);
  const T aggregate = __shfl_sync(all_lanes, w, warps - 1);
  const T warp_before = __shfl_sync(all_lanes, w, warp > 0 ? warp - 1 : 0);  // used for warp > 0

  if (warp == 0) {
    if (tile_id == 0) {
      if (lane == 0) p.state.publish(0, p.has_init ? op(p.init, aggregate) : aggregate, status_inclusive);
    } else {
      if (lane == 0) p.state.publish(tile_id, aggregate, status_aggregate);  // unblock successors early
      const T preceding = look_back<tile_state<T>, T, true>(p.state, tile_id, op);
      if (lane == 0) {
        p.state.publish(tile_id, op(preceding, aggregate), status_inclusive);
        s_prefix = preceding;
      }
    }
  }
  __syncthreads();
  const bool has_prefix = tile_id > 0 || p.has_init;
  const T prefix = tile_id > 0 ? s_prefix : p.init;

  // What precedes the warp's run, then each vector; only tile 0's first element without an
  // initial value has nothing before it.
  const bool has_run = has_prefix || warp > 0;
  const T run_prefix = warp == 0 ? prefix : (has_prefix ? op(prefix, warp_before) : warp_before);
#pragma unroll
  for (int k = 0; k < Vectors; ++k) {
    const bool first = k == 0 && lane == 0;
    const T q = first ? run_prefix : (has_run ? op(run_prefix, before[k]) : before[k]);
    if (p.exclusive) {  // an initial value is always given: q exists
#pragma unroll
      for (int j = V - 1; j > 0; --j) v[k][j] = op(q, v[k][j - 1]);
      v[k][0] = q;
    } else if (has_run || !first) {
#pragma unroll
      for (int j = 0; j < V; ++j) v[k][j] = op(q, v[k][j]);
    }
  }

  store_vectorized_tile<Threads, Vectors>(out, n, tile_id, v);
  if (p.reset_state) reset_when_last(p.state, gridDim.x);
}

template <int Threads, int Vectors, int MinBlocks, class T, class Op>
void launch_vectorized_scan(cudaStream_t stream, const T* in, T* out, std::size_t n, Op op, scan_params<T> p) {
  using state_t = tile_state<T>;
  constexpr std::size_t tile = std::size_t{Threads} * Vectors * (16 / sizeof(T));
  const std::size_t tiles = (n + tile - 1) / tile;
  with_zeroed_state(stream, state_t::bytes(tiles), [&](void* state, bool reset) {
    p.state = state_t::bind(state, tiles);
    p.reset_state = reset;
    scan_tiles_vectorized<Threads, Vectors, MinBlocks>
        <<<static_cast<unsigned>(tiles), Threads, 0, stream>>>(in, out, n, op, p);
    SSUM_CUDA_CHECK_LAUNCH("scan_tiles_vectorized");
  });
}

// Large integer scans of 16-byte aligned data on sm_90: tiles staged in shared memory by the
// bulk copy engine. The register-tiled kernels above hold every loaded element in registers
// while warp 0 looks back, and a SM whose blocks all wait on their look-back issues no loads
// (Nsight Compute on the vectorized kernel and on CUB's: half of all stall cycles at that
// barrier, DRAM 61-63% busy). Here a tile arrives by bulk copies started by one thread and
// waits in shared memory, and warp-specialized persistent blocks (scan_tiles_specialized)
// keep the copies of the next tiles in flight while one tile is looked back and scanned.
// Two passes over shared memory: the reduction for the look-back, then the scan, stored
// straight from registers as 16-byte vectors.
//
// A tile is Threads * Rows 16-byte vectors; each warp owns a contiguous run of 32 * Rows of
// them, lane l's k-th vector being vector k * 32 + l of the run (every shared-memory access
// of a warp touches 512 contiguous bytes: no bank conflict).
template <int Threads, int Rows, class T>
struct staged_tile {
  static constexpr int V = 16 / sizeof(T);
  static constexpr int warps = Threads / warp_size;
  static constexpr int run = warp_size * Rows * V;  // elements per warp
  static constexpr std::size_t size = std::size_t{warps} * run;
  static constexpr std::size_t bytes = size * sizeof(T);

  // Vector k of this lane in a run at src (shared memory, or global memory for a last, partial
  // tile); `valid` elements of the run exist: past them T{} (padding only ever follows the
  // valid elements of the last tile, and what it changes, that tile's later totals, is read
  // by no valid output).
  __device__ static void vector_at(const T* src, int valid, int k, T (&v)[V]) {
    const int at = k * warp_size + static_cast<int>(threadIdx.x) % warp_size;
    if (valid == run) {
      const uint4 r = reinterpret_cast<const uint4*>(src)[at];
      memcpy(v, &r, 16);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = at * V + j < valid ? src[at * V + j] : T{};
    }
  }
  // How many elements of the run at run_base exist.
  __device__ static int valid_in_run(std::size_t run_base, std::size_t n) {
    return run_base >= n ? 0 : static_cast<int>(n - run_base < std::size_t{run} ? n - run_base : std::size_t{run});
  }

  // Pass 1: the run's total. Op must be commutative as well as associative (plus, minimum,
  // maximum, bit_or): a lane folds its vectors, which are not adjacent, before the lanes.
  template <class Op>
  __device__ static T run_total(const T* src, int valid, Op op) {
    T v[V];
    vector_at(src, valid, 0, v);
    T acc = v[0];
#pragma unroll
    for (int j = 1; j < V; ++j) acc = op(acc, v[j]);
#pragma unroll 4
    for (int k = 1; k < Rows; ++k) {
      vector_at(src, valid, k, v);
#pragma unroll
      for (int j = 0; j < V; ++j) acc = op(acc, v[j]);
    }
#pragma unroll
    for (int d = 16; d > 0; d /= 2) acc = op(acc, __shfl_xor_sync(0xffffffffu, acc, d));
    return acc;
  }

  // Pass 2: vector after vector, what precedes it (carry: the run so far), then the store.
  template <class Op>
  __device__ static void scan_run(const T* src, int valid, T* out, std::size_t run_base, T carry, bool have,
                                  bool exclusive, Op op) {
    const int lane = static_cast<int>(threadIdx.x) % warp_size;
    T v[V];
#pragma unroll 4
    for (int k = 0; k < Rows; ++k) {
      vector_at(src, valid, k, v);
#pragma unroll
      for (int j = 1; j < V; ++j) v[j] = op(v[j - 1], v[j]);
      const T inc = warp_inclusive_scan(v[V - 1], op);
      const T exc = __shfl_up_sync(0xffffffffu, inc, 1);
      const T whole = __shfl_sync(0xffffffffu, inc, warp_size - 1);
      const bool has_q = have || lane > 0;
      const T q = lane == 0 ? carry : (have ? op(carry, exc) : exc);
      if (exclusive) {  // an initial value is always given: q exists
#pragma unroll
        for (int j = V - 1; j > 0; --j) v[j] = op(q, v[j - 1]);
        v[0] = q;
      } else if (has_q) {
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = op(q, v[j]);
      }
      const int at = (k * warp_size + lane) * V;
      if (valid == run) {
        store_vector(out + run_base + at, v);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) {
          if (at + j < valid) out[run_base + at + j] = v[j];
        }
      }
      carry = have ? op(carry, whole) : whole;
      have = true;
    }
  }
};

// Persistent blocks with a ring of Stages bulk-copied tiles and three kinds of warp, so that
// no tile's progress waits on another tile of the same block:
//   warp 0, the reducer: as soon as a tile lands, its run totals and aggregate; publishes
//     the aggregate at once (successors' look-backs never wait on a queued tile);
//   warp 1, the look-back: tile after tile, what precedes it, started as soon as the tile has
//     its ticket (while its copy is still in flight); publishes the inclusive prefix;
//   warps 2 .. Consumers + 1: each scans its run of the tile and stores it; then one of them
//     takes the next ticket for the stage and starts its copy.
// Each block takes tickets in increasing order, and every ticketed tile's copy was started,
// so every reducer reaches every tile it holds and publishes its aggregate: look-backs end,
// whatever the timing. Hand-offs between warps go through mbarriers on which every thread
// that wrote (or, before a stage is reused, read) arrives itself: an arrival releases only
// its own thread's accesses (PTX ISA, mbarrier; compute-sanitizer racecheck holds to that).
template <int Consumers, int Rows, class T>
struct specialized_scan_shape {
  static constexpr int threads = (2 + Consumers) * warp_size;
  using tile_t = staged_tile<Consumers * warp_size, Rows, T>;  // the consumers' runs
};

template <int Consumers, int Rows, int Stages, int MinBlocks, class T, class Op>
__global__ void __launch_bounds__((2 + Consumers) * warp_size, MinBlocks)
    scan_tiles_specialized(const T* in, T* out, std::size_t n, Op op, scan_params<T> p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using tile_t = typename specialized_scan_shape<Consumers, Rows, T>::tile_t;
  constexpr int run = tile_t::run;
  constexpr int consumer_threads = Consumers * warp_size;
  constexpr std::size_t tile = tile_t::size;
  constexpr unsigned all_lanes = 0xffffffffu;
  static_assert(Consumers <= warp_size, "the reducer keeps one run total per lane");
  extern __shared__ __align__(16) unsigned char staged_smem[];
  // Per stage: ticketed (look-back waits; the refilling thread arrives), landed (reducer waits;
  // every consumer thread arrives, plus the copy's bytes), reduced (look-back waits; the
  // reducer's lanes arrive), ready (consumers wait; the look-back's lanes arrive).
  __shared__ unsigned long long s_ticketed[Stages], s_landed[Stages], s_reduced[Stages], s_ready[Stages];
  __shared__ std::size_t s_ticket[Stages];
  __shared__ T s_run_before[Stages][Consumers];  // within the tile, what precedes each run
  __shared__ T s_aggregate[Stages];
  __shared__ T s_prefix[Stages];  // what precedes the tile (tiles > 0)
  const int lane = static_cast<int>(threadIdx.x) % warp_size, warp = static_cast<int>(threadIdx.x) / warp_size;
  T* const ring = reinterpret_cast<T*>(staged_smem);
  const std::size_t tiles = (n + tile - 1) / tile;

  // One thread: the next ticket for stage s, and the copy when it is a full tile (the last,
  // partial tile is read from global memory). `arrivals`: this thread's share of landed's.
  const auto refill = [&](int s, unsigned arrivals) {
    const std::size_t t = atomicAdd(p.state.ticket, 1ull);
    s_ticket[s] = t;
    bulk_barrier_arrive(&s_ticketed[s], 1);
    if (t < tiles && n - t * tile >= tile) {
      bulk_barrier_expect_bytes(&s_landed[s], static_cast<unsigned>(tile * sizeof(T)));  // one arrival
      for (int r = 0; r < Consumers; ++r) {
        bulk_load<true>(ring + s * tile + r * run, in + t * tile + r * run,
                                                          run * sizeof(T), &s_landed[s]);
      }
      if (arrivals > 1) bulk_barrier_arrive(&s_landed[s], arrivals - 1);
    } else {
      bulk_barrier_arrive(&s_landed[s], arrivals);
    }
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      bulk_barrier_init(&s_ticketed[s], 1);
      bulk_barrier_init(&s_landed[s], consumer_threads);
      bulk_barrier_init(&s_reduced[s], warp_size);
      bulk_barrier_init(&s_ready[s], warp_size);
    }
    bulk_barrier_init_fence();
    for (int s = 0; s < Stages; ++s) refill(s, consumer_threads);  // the first phase: all arrivals here
  }
  __syncthreads();

  for (unsigned it = 0;; ++it) {
    const int s = static_cast<int>(it % Stages);
    const unsigned phase = (it / Stages) & 1u;  // the stage's (it / Stages)-th use
    if (warp == 0) {  // the reducer
      bulk_barrier_wait(&s_landed[s], phase);
      const std::size_t t = s_ticket[s];
      if (t < tiles) {
        const bool full = n - t * tile >= tile;
        T mine{};  // lane r: run r's total
        for (int r = 0; r < Consumers; ++r) {
          const std::size_t run_base = t * tile + std::size_t(r) * run;
          const T total = full ? tile_t::run_total(ring + s * tile + r * run, run, op)
                               : tile_t::run_total(in + run_base, tile_t::valid_in_run(run_base, n), op);
          mine = lane == r ? total : mine;
        }
        const T inc = warp_inclusive_scan(lane < Consumers ? mine : T{}, op);  // lanes >= Consumers unused
        const T exc = __shfl_up_sync(all_lanes, inc, 1);
        const T aggregate = __shfl_sync(all_lanes, inc, Consumers - 1);
        for (int r = 1; r < Consumers; ++r) {  // lane 0 writes them all, then arrives itself
          const T before = __shfl_sync(all_lanes, exc, r);
          if (lane == 0) s_run_before[s][r] = before;
        }
        if (lane == 0) {
          s_aggregate[s] = aggregate;
          if (t == 0) p.state.publish(0, p.has_init ? op(p.init, aggregate) : aggregate, status_inclusive);
          else p.state.publish(t, aggregate, status_aggregate);  // unblock successors early
        }
      }
      bulk_barrier_arrive(&s_reduced[s], 1);
      if (t >= tiles) break;
    } else if (warp == 1) {  // the look-back
      bulk_barrier_wait(&s_ticketed[s], phase);
      const std::size_t t = s_ticket[s];
      T preceding{};
      if (t < tiles && t > 0) preceding = look_back<tile_state<T>, T, true>(p.state, t, op);
      bulk_barrier_wait(&s_reduced[s], phase);
      if (t < tiles && t > 0 && lane == 0) {
        p.state.publish(t, op(preceding, s_aggregate[s]), status_inclusive);
        s_prefix[s] = preceding;
      }
      bulk_barrier_arrive(&s_ready[s], 1);
      if (t >= tiles) break;
    } else {  // a consumer: run r
      const int r = warp - 2;
      bulk_barrier_wait(&s_ready[s], phase);
      const std::size_t t = s_ticket[s];
      if (t >= tiles) break;
      const bool has_prefix = t > 0 || p.has_init;
      const T prefix = t > 0 ? s_prefix[s] : p.init;
      const T before = s_run_before[s][r];  // r > 0
      const bool have = has_prefix || r > 0;
      const T carry = r == 0 ? prefix : (has_prefix ? op(prefix, before) : before);
      const std::size_t run_base = t * tile + std::size_t(r) * run;
      const bool full = n - t * tile >= tile;
      tile_t::scan_run(full ? ring + s * tile + r * run : in + run_base,
                                       full ? run : tile_t::valid_in_run(run_base, n), out, run_base, carry, have,
                                       p.exclusive, op);
      asm volatile("bar.sync 1, %0;" ::"r"(consumer_threads) : "memory");  // the stage is read; barrier 0 is __syncthreads
      if (threadIdx.x == 2 * warp_size) {
        // The copy engine writes what the consumers just read: order the two proxies.
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        refill(s, 1);
      } else {
        bulk_barrier_arrive(&s_landed[s], 1);
      }
    }
  }
  if (p.reset_state) reset_when_last(p.state, tiles);
#else
  // Before sm_90 (no bulk copy): never launched (launch_specialized_scan asks runs_bulk_copy_code).
  (void)in; (void)out; (void)n; (void)op; (void)p;
  __trap();
#endif
}

// As many blocks as fit on the device at once (fewer for small inputs). false, launching
// nothing, where the kernel cannot run (no sm_90 code for this device).
template <int Consumers, int Rows, int Stages, int MinBlocks, class T, class Op>
bool launch_specialized_scan(cudaStream_t stream, const T* in, T* out, std::size_t n, Op op, scan_params<T> p) {
  using state_t = tile_state<T>;
  using shape = specialized_scan_shape<Consumers, Rows, T>;
  constexpr std::size_t ring_bytes = Stages * shape::tile_t::bytes;
  constexpr std::size_t tile = shape::tile_t::size;
  const std::size_t tiles = (n + tile - 1) / tile;
  auto* kernel = scan_tiles_specialized<Consumers, Rows, Stages, MinBlocks, T, Op>;
  const persistent_shape resident = persistent_shape_of(kernel, shape::threads, ring_bytes);
  if (!resident.runs) return false;
  const unsigned grid = resident.grid_for(tiles);
  // Tickets past the last tile (each block's final refills) touch no tile state.
  with_zeroed_state(stream, state_t::bytes(tiles), [&](void* state, bool reset) {
    p.state = state_t::bind(state, tiles);
    p.reset_state = reset;
    kernel<<<grid, shape::threads, ring_bytes, stream>>>(in, out, n, op, p);
    SSUM_CUDA_CHECK_LAUNCH("scan_tiles_specialized");
  });
  return true;
}

// Deterministic path, step 1: the reduction of each tile, combined in the tile's fixed shape.
template <int Threads, int Items, class In, class Out, class Op>
__global__ void __launch_bounds__(Threads) reduce_tiles(const In* in, std::size_t n, Op op, Out* sums) {
  using BlockScan = block_scan_warp<Threads, Out>;
  constexpr std::size_t tile = Threads * Items;
  __shared__ alignas(16) In buf[tile_io<Threads, Items, In>::slots];
  __shared__ typename BlockScan::storage scan_storage;
  const std::size_t base = blockIdx.x * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);
  Out v[Items];
  tile_io<Threads, Items, In>::template load<Out, tile_access::plain>(in, base, valid, v, buf);
#pragma unroll
  for (int k = 1; k < Items; ++k) v[k] = op(v[k - 1], v[k]);
  Out inc, excl, aggregate;
  BlockScan::scan(v[Items - 1], op, inc, excl, aggregate, scan_storage);
  if (threadIdx.x == 0) sums[blockIdx.x] = aggregate;  // the last tile's (padded) sum is never used
}

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

// Single pass with decoupled look-back (the shape: scan_policy::transposing). p carries init /
// exclusive; its state is set up here.
template <int Threads, int Items, int MinBlocks, class In, class Out, class Op>
void launch_look_back_scan(cudaStream_t stream, const In* in, Out* out, std::size_t n, Op op, scan_params<Out> p) {
  using state_t = tile_state<Out>;
  const std::size_t tiles = (n + Threads * Items - 1) / (Threads * Items);
  with_zeroed_state(stream, state_t::bytes(tiles), [&](void* state, bool reset) {
    p.state = state_t::bind(state, tiles);
    p.reset_state = reset;
    scan_tiles<Threads, Items, MinBlocks, true>
        <<<static_cast<unsigned>(tiles), Threads, 0, stream>>>(in, out, n, op, p);
    SSUM_CUDA_CHECK_LAUNCH("scan_tiles");
  });
}

}  // namespace ssum::cuda_detail

#pragma once
// Merge-path tiles fed by Hopper's bulk copies (sm_90, cp.async.bulk: bulk_copy.cuh):
// persistent blocks, each with a ring of Stages tiles in shared memory, and in each block one
// warp apart whose first lane moves the data (takes a tile's splits and starts the copies of
// its a-range and b-range into a free stage) while the other warps merge or walk the tiles
// that have landed. The merges find their splits inside the kernel (a third warp) and take
// their tiles from a queue (see merge_tiles_bulk); the walk reads pair_sum_partition's
// (merge_kernels.cuh). Merge path as there (Odeh et al. 2012; Green, McColl, Bader 2012),
// the walk as pair_sum_tiles.
//
// Why: the tile kernels of merge_kernels.cuh load a tile through registers (a load and a
// shared store per element), then work, one tile per block, so a SM whose blocks all work has
// no load in flight (Nsight Compute, H200: the pair-sum walk and the uint32 merge at 71-74%
// of DRAM bandwidth). Here the loads cost no instructions and stay in flight, and the working
// warps never wait at a block barrier for the thread that issues copies.
//
//   pair_sum_tiles_bulk     the equal-pairs walk (find and count): the solver's search. It
//                           took the n = 64 whole search's walk from 41.1 to 35.1 ms.
//   merge_tiles_bulk        key-only merges of 4-byte keys (uint32 at 2^28: 616 against 680
//                           us for merge_tiles and its partition); 8-byte keys keep
//                           merge_tiles (merge_bulk_tuning).
//
// A stage holds the tile's a-range, then after a gap its b-range as it lies in memory (the
// 16-byte pieces that cover each range; the few elements of an array's last partial piece are
// read one by one, so nothing past an array's end is read). Reversed b's (t - b for the pair
// sums) are read backwards out of the stage. The host checks the pointers' alignment and
// falls back to merge_kernels.cuh.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/common/bulk_copy.cuh"
#include "cuda/common/check.cuh"
#include "cuda/common/kept_state.cuh"
#include "cuda/merge/merge_kernels.cuh"

namespace ssum::cuda_detail {

/// Launch shapes (threads x items per tile, stages per block, blocks per SM); bench_merge_cuda
/// times others. `used`: whether the key-only merges of T take merge_tiles_bulk (4-byte keys)
/// or merge_tiles (8-byte keys, where the bulk kernel measured slower: 1316 against 1225 us
/// at 2^28 uint64 on the H200, before the tile queue). Walk: two stages of
/// 256 x 23 8-byte keys, 94 KiB per block.
template <class T>
struct merge_bulk_tuning {
  static constexpr bool used = sizeof(T) == 4;
  static constexpr int threads = 512;
  static constexpr int items = 19;
  static constexpr int stages = 2;
  static constexpr int min_blocks = 2;
};
template <class T>
struct pair_sum_bulk_tuning {
  static constexpr int threads = 256;
  static constexpr int items = sizeof(T) >= 8 ? 23 : 15;
  static constexpr int stages = 2;
  static constexpr int min_blocks = sizeof(T) >= 8 ? 2 : 3;
  static constexpr std::size_t tile = std::size_t(threads) * items;
};

/// Elements of one stage: the tile, 16 bytes of rounding at both ends of both ranges, a gap
/// between them (a reversed b reads one element before its range), and Items more so that a
/// thread's steps past its outputs read inside the stage. Rounded up to 128 bytes.
template <class T, int Threads, int Items>
constexpr int bulk_stage_elems() {
  constexpr int v = 16 / int(sizeof(T));
  constexpr int elems = Threads * Items + 6 * v + Items;
  constexpr int per_128 = 128 / int(sizeof(T));
  return (elems + per_128 - 1) / per_128 * per_128;
}

template <class T, int Threads, int Items, int Stages>
constexpr std::size_t bulk_smem_bytes() {
  return std::size_t(Stages) * bulk_stage_elems<T, Threads, Items>() * sizeof(T);
}

/// Where a tile lies in its stage; written by the issuing thread before it arrives on the
/// stage's barrier, read by every thread after the wait.
struct bulk_tile {
  std::size_t a0;  // the tile's first a
  std::size_t d0;  // its first output (merges) / c1, the first c past it (pair sums)
  int job;         // the tile g itself (merges: its job is found from it) / the target (pair sums)
  int na_t, count;  // a's in the tile and outputs (a's + b's); count = 0: nothing to do
  int a_off;        // a[a0] is stage[a_off]
  int b_base;       // b(b0 + j) is stage[b_base + j] (stage[b_base - j] when reversed)
  int stop;         // find: a match before this tile is known, nothing more for this block
};

/// How the issuing thread brings a[a_lo, a_hi) (a: na elements, 16-byte aligned) and, past a
/// gap of 16 bytes, b[m_lo, m_hi) (nb elements) into a stage: the 16-byte pieces [fa, ea) and
/// [fb, eb) that cover the ranges, of which [fa, ba) and [fb, bb) by bulk copy and the rest
/// (elements of an array's last partial piece) one by one. a[a_lo] lands at stage[a_off],
/// b[m_lo] at stage[m_off].
struct bulk_stage_plan {
  std::size_t fa, ba, a_hi, fb, bb, m_hi;
  int b_at;  // where b's pieces start in the stage
  int a_off, m_off;
};

template <class T>
__device__ __forceinline__ bulk_stage_plan plan_bulk_stage(std::size_t a_lo, std::size_t a_hi, std::size_t na,
                                                           std::size_t m_lo, std::size_t m_hi, std::size_t nb) {
  constexpr std::size_t v = 16 / sizeof(T);
  // hi is where the element-wise reads end (f when the range is empty).
  const auto pieces = [](std::size_t lo, std::size_t& hi, std::size_t n, std::size_t& f, std::size_t& e,
                         std::size_t& bulk_end) {
    f = lo & ~(v - 1);
    if (lo >= hi) {  // nothing to read
      e = bulk_end = hi = f;
      return;
    }
    e = (hi + v - 1) & ~(v - 1);
    const std::size_t whole = n & ~(v - 1);  // [0, whole) can be read in 16-byte pieces
    bulk_end = e <= whole ? e : (whole > f ? whole : f);
  };
  bulk_stage_plan p;
  std::size_t ea, eb;
  p.a_hi = a_hi;
  p.m_hi = m_hi;
  pieces(a_lo, p.a_hi, na, p.fa, ea, p.ba);
  pieces(m_lo, p.m_hi, nb, p.fb, eb, p.bb);
  p.b_at = int(ea - p.fa) + int(v);
  p.a_off = int(a_lo - p.fa);
  p.m_off = p.b_at + int(m_lo - p.fb);
  return p;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// Thread 0 initialises each stage's two barriers: `full` (the moving lane's arrival and the
/// copies' bytes) and the one the working threads arrive on (`workers` arrivals); then a block
/// barrier, so that no thread waits on a barrier before it exists.
template <int Stages>
__device__ __forceinline__ void init_stage_barriers(unsigned long long* full, unsigned long long* done, int workers) {
  if (threadIdx.x == 0) {
#pragma unroll 1
    for (int s = 0; s < Stages; ++s) {
      bulk_barrier_init(&full[s], 1);
      bulk_barrier_init(&done[s], unsigned(workers));
    }
    bulk_barrier_init_fence();
  }
  __syncthreads();
}

/// Issuing thread, after it wrote the stage's header: the element-wise reads, then the arrival
/// on bar (which releases them and the header, and announces the bulk bytes), then the copies.
template <class T>
__device__ __forceinline__ void start_bulk_stage(const bulk_stage_plan& p, T* stage, const T* a, const T* b,
                                                 unsigned long long* bar) {
  T* const sb = stage + p.b_at;
  for (std::size_t x = p.ba > p.fa ? p.ba : p.fa; x < p.a_hi; ++x) stage[x - p.fa] = a[x];
  for (std::size_t x = p.bb > p.fb ? p.bb : p.fb; x < p.m_hi; ++x) sb[x - p.fb] = b[x];
  const unsigned bytes_a = p.ba > p.fa ? unsigned((p.ba - p.fa) * sizeof(T)) : 0u;
  const unsigned bytes_b = p.bb > p.fb ? unsigned((p.bb - p.fb) * sizeof(T)) : 0u;
  bulk_barrier_expect_bytes(bar, bytes_a + bytes_b);
  if (bytes_a) bulk_load<true>(stage, a + p.fa, bytes_a, bar);
  if (bytes_b) bulk_load<true>(sb, b + p.fb, bytes_b, bar);
}
#endif

// ---- merges ---------------------------------------------------------------------------

/// merge_tiles_bulk's warps beside its Threads merging threads: one moving the data, one
/// finding splits.
constexpr int merge_bulk_helper_threads = 64;

/// The queue of merge_tiles_bulk's tiles, in device scratch that starts zeroed: tiles go to
/// whichever block asks first, in order (counters[0]); splits[q] = where tile q starts in its
/// merge's a (q = tiles: the end), plus one (0: not found yet), found 32 a ticket
/// (counters[1]) by the splitting warps; counters[2] counts the blocks done with it. With
/// `reset` the last of them zeroes it again for the next launch (kept_state.cuh).
struct merge_tile_queue {
  unsigned* counters;
  std::size_t* splits;
  bool reset;
  static constexpr std::size_t counter_bytes = 16;  // the splits stay 16-byte aligned
  static std::size_t bytes(std::size_t tiles) { return counter_bytes + (tiles + 1) * sizeof(std::size_t); }
};

/// The first k in [lo, hi) with pred(k), or hi (pred false then true over [lo, hi)), by one
/// thread: Ways - 1 probes a round cut the range into Ways parts, all evaluated before any is
/// used, so that their loads are in flight together (Ways = 2: binary search).
template <int Ways, class Pred>
__host__ __device__ std::size_t thread_partition_point(std::size_t lo, std::size_t hi, Pred pred) {
  static_assert(Ways >= 2 && Ways <= 32, "probes fit a mask");
  while (lo < hi) {
    const std::size_t len = hi - lo;
    // Ways parts of `step` (the last one longer), or each of the last few candidates.
    const std::size_t step = len >= std::size_t(Ways) ? len / Ways : 1;
    const std::size_t used = len >= std::size_t(Ways) ? std::size_t(Ways - 1) : len;
    unsigned hits = 0;
#pragma unroll
    for (int i = 0; i < Ways - 1; ++i) {
      if (std::size_t(i) < used && pred(lo + std::size_t(i + 1) * step - 1)) hits |= 1u << i;
    }
    if (hits == 0) {
      lo += used * step;  // past the last probe
    } else {
      std::size_t f = 0;  // the first probe that holds
      while (!(hits >> f & 1u)) ++f;
      hi = lo + (f + 1) * step - 1;
      lo += f * step;
    }
  }
  return lo;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// Split q of the batch (tile q's start in its merge's a; q = tiles_total: the end), by one
/// thread over its whole diagonal: merge_path_split's binary search, or (Wide) 8-way rounds.
template <bool Wide, int Tile, class T, class BAt, class Compare>
__device__ std::size_t merge_tile_split(const merge_batch<T, BAt>& batch, unsigned q, Compare comp) {
  const merge_batch_job<T, BAt> j =
      merge_batch_job_of(batch, q, [](const merge_batch_job<T, BAt>& x) { return x.first_tile; });
  const std::size_t total = j.na + j.nb, local_d = (std::size_t(q) - j.first_tile) * Tile;
  const std::size_t d = local_d < total ? local_d : total;
  if constexpr (!Wide) return merge_path_split(j.a, j.na, j.b, j.nb, d, comp);
  const std::size_t lo = d > j.nb ? d - j.nb : 0, hi = d < j.na ? d : j.na;
  return thread_partition_point<8>(lo, hi, [&](std::size_t mid) { return comp(j.b(d - 1 - mid), j.a[mid]); });
}
#endif

/// Key-only merges, tiles handed out in order to whichever block is ready (merge_tile_queue)
/// with their splits found inside the kernel. A block is Threads merging threads and two
/// more warps:
/// - the splitting warp takes tickets of 32 splits and finds them, each lane one (merge path,
///   Odeh et al. 2012: the selection step of Akl-Santoro's conflict-free merging as the
///   paper's generation uses it). Its first ticket by 8-way searches (9 rounds of loads over
///   2^27), while the copies have not started; later ones by binary search, fewest loads,
///   long before their tiles come up.
/// - the moving warp's first lane takes the next tile, waits for its two splits, turns them
///   into the tile's ranges and starts their copies into a free stage.
/// - the merging threads merge a landed stage, write the outputs into its front, and store
///   them with 16-byte stores; then the stage is free again.
/// On the H200 at 2^28 uint32 outputs (bench_merge_cuda, docs/performance.md): tiles handed
/// out in order beat each block's own contiguous run (620 against 645 us: the blocks at work
/// stay close together in memory, and blocks on faster SMs take more tiles); no partition
/// launch (merge_partition took 40 us); the merging threads' stores level with one bulk
/// store per tile, which keeps the stage until the store has read it.
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
__global__ void __launch_bounds__(Threads + merge_bulk_helper_threads, MinBlocks)
    merge_tiles_bulk(merge_batch<T, BAt> batch, unsigned tiles_total, merge_tile_queue queue, Compare comp) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using reader = b_reader<BAt>;
  constexpr bool reversed = reader::reversed;
  constexpr int tile = Threads * Items;
  constexpr int stage_elems = bulk_stage_elems<T, Threads, Items>();
  static_assert(Threads % 32 == 0, "whole warps");
  static_assert(tile * sizeof(T) % 16 == 0, "every full tile's output starts 16-byte aligned");
  extern __shared__ __align__(128) unsigned char bulk_smem[];
  T* const stages = reinterpret_cast<T*>(bulk_smem);
  __shared__ unsigned long long full[Stages], free_[Stages];
  __shared__ unsigned long long queue_released;  // the moving lane takes no more tiles
  __shared__ bulk_tile head[Stages];

  const auto job_of = [&](unsigned g) {
    return merge_batch_job_of(batch, g, [](const merge_batch_job<T, BAt>& x) { return x.first_tile; });
  };

  if (threadIdx.x == 0) bulk_barrier_init(&queue_released, 1);
  init_stage_barriers<Stages>(full, free_, Threads);  // its block barrier covers queue_released too

  if (threadIdx.x >= Threads + 32) {
    // The splitting warp.
    const unsigned lane = threadIdx.x % 32;
#pragma unroll 1
    for (bool first = true;; first = false) {
      unsigned ticket = 0;
      if (lane == 0) ticket = atomicAdd(&queue.counters[1], 1u);
      ticket = __shfl_sync(0xffffffffu, ticket, 0);
      if (std::size_t(ticket) * 32u > tiles_total) break;
      const unsigned q = ticket * 32u + lane;
      if (q <= tiles_total) {
        const std::size_t v =
            first ? merge_tile_split<true, tile>(batch, q, comp) : merge_tile_split<false, tile>(batch, q, comp);
        *static_cast<volatile std::size_t*>(&queue.splits[q]) = v + 1;
      }
    }
    if (queue.reset) {
      // The last block done with the queue zeroes it for the next launch.
      unsigned last = 0;
      if (lane == 0) {
        bulk_barrier_wait(&queue_released, 0);
        __threadfence();
        last = atomicAdd(&queue.counters[2], 1u) == gridDim.x - 1;
      }
      if (__shfl_sync(0xffffffffu, last, 0)) {
        for (std::size_t q = lane; q <= tiles_total; q += 32) queue.splits[q] = 0;
        if (lane < merge_tile_queue::counter_bytes / sizeof(unsigned)) queue.counters[lane] = 0;
      }
    }
    return;
  }

  if (threadIdx.x >= Threads) {
    if (threadIdx.x != Threads) return;
    // The moving lane.
    const auto split = [&](unsigned q) {
      std::size_t v;
      while ((v = *static_cast<volatile std::size_t*>(&queue.splits[q])) == 0) __nanosleep(128);
      return v - 1;
    };
    unsigned it = 0;
#pragma unroll 1
    for (;; ++it) {
      const unsigned g = atomicAdd(&queue.counters[0], 1u);
      if (g >= tiles_total) break;
      const std::size_t s0 = split(g), s1 = split(g + 1);
      const int s = int(it % Stages);
      // The stage is free once every merging thread has stored its last tile's outputs.
      if (it >= unsigned(Stages)) bulk_barrier_wait(&free_[s], (it / Stages - 1) & 1u);
      const merge_batch_job<T, BAt> j = job_of(g);
      const std::size_t local = g - j.first_tile;
      // A split past the merge's end (the next merge's first) is clamped to na here.
      const tile_range r = tile_between<tile>(local, j.na, j.na + j.nb, s0, s1);
      const std::size_t b1 = r.b0 + std::size_t(r.count - r.na_t);
      const std::size_t blen = reader::length(j.b, j.nb);
      // b's memory range: [b0, b1), or [blen - b1, blen - b0) when reversed.
      const std::size_t m_lo = reversed ? blen - b1 : r.b0, m_hi = reversed ? blen - r.b0 : b1;
      const bulk_stage_plan p = plan_bulk_stage<T>(r.a0, r.a0 + std::size_t(r.na_t), j.na, m_lo, m_hi, blen);
      bulk_tile h;
      h.a0 = r.a0;
      h.d0 = r.d0;
      h.job = int(g);  // the tile; its job is found again from it
      h.na_t = r.na_t;
      h.count = r.count;
      h.a_off = p.a_off;
      // b(b0 + x) is memory m_lo + x, or (reversed) blen - 1 - b0 - x = m_hi - 1 - x.
      h.b_base = reversed ? p.m_off + int(m_hi - 1 - m_lo) : p.m_off;
      h.stop = 0;
      head[s] = h;
      start_bulk_stage(p, stages + s * stage_elems, j.a, reader::base(j.b), &full[s]);
    }
    bulk_barrier_arrive(&queue_released, 1);
    // No more tiles: the merging threads stop at a stage marked so (its barrier completes
    // without bytes).
    const int s = int(it % Stages);
    if (it >= unsigned(Stages)) bulk_barrier_wait(&free_[s], (it / Stages - 1) & 1u);
    bulk_tile h{};
    h.stop = 1;
    head[s] = h;
    bulk_barrier_expect_bytes(&full[s], 0);
    return;
  }

#pragma unroll 1
  for (unsigned it = 0;; ++it) {
    const int s = int(it % Stages);
    bulk_barrier_wait(&full[s], (it / Stages) & 1u);
    const bulk_tile h = head[s];
    if (h.stop) break;
    T* const st = stages + s * stage_elems;
    const merge_batch_job<T, BAt> j = job_of(unsigned(h.job));
    const int na_t = h.na_t, nb_t = h.count - h.na_t;
    const int diag = min(int(threadIdx.x) * Items, h.count);
    const int n_out = min(Items, h.count - diag);
    const T* const sa = st + h.a_off;
    const auto b_at = [&](int x) { return reader::finish(j.b, st[reversed ? h.b_base - x : h.b_base + x]); };
    T key[Items];
    if (n_out > 0) {
      int lo = max(diag - nb_t, 0), hi = min(diag, na_t);
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (comp(b_at(diag - 1 - mid), sa[mid])) {  // ties go to a
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      int i = lo, jb = diag - lo;
      // Branch-free as merge_tile; heads past their input hold values never chosen, and every
      // read stays inside the stage (bulk_stage_elems).
      T ka = sa[i], kb = b_at(jb);
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const bool take_b = jb < nb_t && (i >= na_t || comp(kb, ka));
        key[k] = take_b ? kb : ka;
        i += !take_b;
        jb += take_b;
        const T raw = st[take_b ? (reversed ? h.b_base - jb : h.b_base + jb) : h.a_off + i];
        const T next = take_b ? reader::finish(j.b, raw) : raw;
        ka = take_b ? ka : next;
        kb = take_b ? next : kb;
      }
    }
    // Every merging thread has read the stage (named barrier 1: the moving warp is not in it);
    // its front takes the outputs.
    asm volatile("bar.sync 1, %0;" ::"r"(Threads) : "memory");
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (k < n_out) st[diag + k] = key[k];
    }
    // Then every merging thread sends its share out, 16 bytes a store (out + d0 is 16-byte
    // aligned: d0 is a multiple of the tile), the last few one by one.
    asm volatile("bar.sync 1, %0;" ::"r"(Threads) : "memory");
    constexpr int v = 16 / int(sizeof(T));
    T* const out = j.out + h.d0;
    const int vecs = h.count / v;
    for (int x = int(threadIdx.x); x < vecs; x += Threads) {
      reinterpret_cast<uint4*>(out)[x] = reinterpret_cast<const uint4*>(st)[x];
    }
    for (int x = vecs * v + int(threadIdx.x); x < h.count; x += Threads) out[x] = st[x];
    bulk_proxy_fence();  // the stage's next copy writes where this thread wrote and read
    bulk_barrier_arrive(&free_[s], 1);
  }
#endif
}

// ---- equal pairs ------------------------------------------------------------------------

/// The pair-sum walk of pair_sum_tiles (see there and merge_kernels.cuh's notes on facts (1)
/// and (2)) over tiles that arrive by bulk copy. Tile g is tile g % tiles of target g / tiles.
/// A block is Threads walking threads and one more warp whose first lane only brings tiles
/// in: it reads a tile's splits, waits until its stage is free (every walking thread arrived
/// on the stage's `free` barrier), and starts the copies. The walkers never meet at a block
/// barrier: each warp takes the next stage as soon as it has landed.
/// The stage holds C's range as b lies in memory, plus c(c1) (the first c past the tile)
/// when there is one, so fact (2) needs no global read. Find: a block stops at the first of
/// its tiles that a known match makes useless (its later tiles are useless too: they come
/// later in (target, a) order, and the known match only gets earlier).
template <int Threads, int Items, int Stages, int MinBlocks, bool Find, class T>
__global__ void __launch_bounds__(Threads + 32, MinBlocks)
    pair_sum_tiles_bulk(const T* a, std::size_t na, const T* b, std::size_t nb, pair_sum_targets<T> targets,
                        const std::size_t* clips, std::size_t tiles, unsigned tiles_total,
                        const std::size_t* all_splits, pair_sum_state* state) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int tile = Threads * Items;
  constexpr int warps = Threads / 32;
  constexpr int stage_elems = bulk_stage_elems<T, Threads, Items>();
  static_assert(Threads % 32 == 0, "whole warps");
  extern __shared__ __align__(128) unsigned char bulk_smem[];
  T* const stages = reinterpret_cast<T*>(bulk_smem);
  __shared__ unsigned long long full[Stages], free_[Stages];
  __shared__ bulk_tile head[Stages];
  __shared__ std::size_t clip[2 * pair_sum_max_targets];
  __shared__ unsigned long long warp_sums[warps];
  const unsigned grid = gridDim.x;

  if (threadIdx.x < 2 * pair_sum_max_targets) {
    clip[threadIdx.x] = int(threadIdx.x) < 2 * targets.count ? clips[threadIdx.x] : 0;
  }
  init_stage_barriers<Stages>(full, free_, Threads);

  unsigned long long cnt = 0;
  if (threadIdx.x >= Threads) {
    // The issuing lane.
    if (threadIdx.x == Threads) {
#pragma unroll 1
      for (unsigned it = 0;; ++it) {
        const std::size_t g = std::size_t(blockIdx.x) + std::size_t(it) * grid;
        if (g >= tiles_total) break;
        const int target = int(g / tiles);
        const std::size_t local = g - std::size_t(target) * tiles;
        const std::size_t* splits = all_splits + std::size_t(target) * (tiles + 1);
        const std::size_t s0 = splits[local], s1 = splits[local + 1];
        unsigned long long not_key = 0;
        if constexpr (Find) not_key = *static_cast<volatile unsigned long long*>(&state->not_key);
        const int s = int(it % Stages);
        if (it >= unsigned(Stages)) bulk_barrier_wait(&free_[s], ((it / Stages) - 1) & 1u);
        const std::size_t hi = clip[2 * target + 1], nc = hi - clip[2 * target], total = na + nc;
        bulk_tile h{};
        h.job = target;
        if (local * tile < total) {
          const tile_range r = tile_between<tile>(local, na, total, s0, s1);
          h.a0 = r.a0;
          h.na_t = r.na_t;
          h.count = r.count;
          const std::size_t c1 = r.b0 + std::size_t(r.count - r.na_t);
          h.d0 = c1;
          if constexpr (Find) {
            const unsigned long long known = ~not_key;
            const int known_target = static_cast<int>(known >> pair_sum_target_shift);
            h.stop = not_key != 0 &&
                     (known_target < target || (known_target == target && (known & pair_sum_index_mask) < r.a0));
          }
          if (!h.stop) {
            // C's range [b0, c1) is b[hi - c1, hi - b0); c(c1) = t - b[hi - 1 - c1] in front of it.
            const std::size_t m_hi = hi - r.b0, m_lo = hi - c1 - (c1 < nc ? 1 : 0);
            const bulk_stage_plan p = plan_bulk_stage<T>(r.a0, r.a0 + std::size_t(r.na_t), na, m_lo, m_hi, nb);
            h.a_off = p.a_off;
            h.b_base = p.m_off + int(m_hi - 1 - m_lo);  // c(b0 + x) = t - stage[b_base - x]
            head[s] = h;
            start_bulk_stage(p, stages + s * stage_elems, a, b, &full[s]);
            continue;
          }
        }
        head[s] = h;
        bulk_barrier_expect_bytes(&full[s], 0);
        if (h.stop) break;  // nothing after it
      }
    }
  } else {
#pragma unroll 1
    for (unsigned it = 0;; ++it) {
      const std::size_t g = std::size_t(blockIdx.x) + std::size_t(it) * grid;
      if (g >= tiles_total) break;
      const int s = int(it % Stages);
      bulk_barrier_wait(&full[s], (it / Stages) & 1u);
      const bulk_tile h = head[s];
      if (h.stop) break;  // every tile issued before it has been walked
      T* const st = stages + s * stage_elems;
      T t = targets.t[0];
#pragma unroll
      for (int k = 1; k < pair_sum_max_targets; ++k) t = h.job == k ? targets.t[k] : t;
      const std::size_t hi = clip[2 * h.job + 1], nc = hi - clip[2 * h.job];
      const int na_t = h.na_t, nc_t = h.count - h.na_t;
      const T* const sa = st + h.a_off;
      const int cb = h.b_base;
      const auto c_at = [&](int x) { return static_cast<T>(t - st[cb - x]); };
      const int diag = min(int(threadIdx.x) * Items, h.count);
      const int n_out = min(Items, h.count - diag);
      int hit_at = 0;
      if (n_out > 0) {
        int lo = max(diag - nc_t, 0), hi_s = min(diag, na_t);
        while (lo < hi_s) {
          const int mid = (lo + hi_s) >> 1;
          if (c_at(diag - 1 - mid) < sa[mid]) {
            hi_s = mid;
          } else {
            lo = mid + 1;
          }
        }
        int i = lo, j = diag - lo;
        T last = i > 0 ? sa[i - 1] : T{};
        int rs = 0;
        if constexpr (!Find) rs = i > 0 ? run_start_before(sa, i, last) : 0;
        T x = sa[i], y = c_at(j);
#pragma unroll
        for (int k = 0; k < Items; ++k) {
          const bool take_c = j < nc_t && (i >= na_t || y < x);
          if constexpr (Find) {
            const bool match = take_c && i > 0 && y == last;
            hit_at = match && hit_at == 0 ? i : hit_at;
          } else {
            const bool match = k < n_out && take_c && i > 0 && y == last;
            cnt += match ? static_cast<unsigned long long>(i - rs) : 0ull;
            rs = !take_c && (i == 0 || last != x) ? i : rs;
          }
          last = take_c ? last : x;
          i += take_c ? 0 : 1;
          j += take_c ? 1 : 0;
          const T raw = st[take_c ? cb - j : h.a_off + i];
          const T next = take_c ? static_cast<T>(t - raw) : raw;
          x = take_c ? x : next;
          y = take_c ? next : y;
        }
      }
      // Fact (2): c(c1) is in the stage when c1 < nc.
      const std::size_t c1 = h.d0;
      if (threadIdx.x == 0 && na_t > 0 && c1 < nc && hit_at == 0) {
        const T v = c_at(nc_t);
        if (sa[na_t - 1] == v) {
          if constexpr (Find) {
            hit_at = na_t;
          } else {
            const std::size_t a_run = std::size_t(na_t - run_start_before(sa, na_t, v));
            cnt += static_cast<unsigned long long>(a_run) *
                   (run_end_at(minus_reversed<T>{b, hi, t}, c1, nc, v) - c1);
          }
        }
      }
      if constexpr (Find) {
        if (hit_at > 0) {
          const std::size_t hit_i = h.a0 + std::size_t(run_start_before(sa, hit_at, sa[hit_at - 1]));
          atomicMax(&state->not_key, ~(static_cast<unsigned long long>(h.job) << pair_sum_target_shift |
                                       static_cast<unsigned long long>(hit_i)));
          state->found = 1u;
        }
      }
      // Done with the stage: every walking thread arrives (an arrival releases only its own
      // thread's reads before the next copy overwrites them).
      bulk_barrier_arrive(&free_[s], 1);
    }
  }
  if constexpr (!Find) {
    for (int off = 16; off > 0; off /= 2) cnt += __shfl_down_sync(0xffffffffu, cnt, off);
    if (threadIdx.x % 32 == 0 && threadIdx.x < Threads) warp_sums[threadIdx.x / 32] = cnt;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long sum = 0;
      for (int w = 0; w < warps; ++w) sum += warp_sums[w];
      if (sum) atomicAdd(&state->count, sum);
    }
  }
#endif
}

// ---- launch -----------------------------------------------------------------------------

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// merge_tiles_bulk over a batch (merge_batch_of, no partition): false, launching nothing,
/// where it cannot run (before sm_90, or a pointer not 16-byte aligned). max_blocks (tests):
/// fewer blocks than fit, so that each goes round its stages many times.
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
bool launch_merge_tiles_bulk(cudaStream_t stream, const merge_batch<T, BAt>& batch, std::size_t tiles_total,
                             Compare comp, unsigned max_blocks = 0) {
  if (tiles_total == 0) return true;
  for (int k = 0; k < batch.count; ++k) {
    const merge_batch_job<T, BAt>& j = batch.job[k];
    if (!aligned16(j.a) || !aligned16(b_reader<BAt>::base(j.b)) || !aligned16(j.out)) return false;
  }
  constexpr std::size_t smem = bulk_smem_bytes<T, Threads, Items, Stages>();
  constexpr int threads = Threads + merge_bulk_helper_threads;
  auto* kernel = merge_tiles_bulk<Threads, Items, Stages, MinBlocks, T, BAt, Compare>;
  const persistent_shape shape = persistent_shape_of(kernel, threads, smem);
  if (!shape.runs) return false;
  const unsigned grid = shape.grid_for(tiles_total, max_blocks);
  with_zeroed_state(stream, merge_tile_queue::bytes(tiles_total), [&](void* scratch, bool reset) {
    merge_tile_queue queue;
    queue.counters = static_cast<unsigned*>(scratch);
    queue.splits = reinterpret_cast<std::size_t*>(static_cast<char*>(scratch) + merge_tile_queue::counter_bytes);
    queue.reset = reset;
    kernel<<<grid, threads, smem, stream>>>(batch, unsigned(tiles_total), queue, comp);
    SSUM_CUDA_CHECK_LAUNCH("merge_tiles_bulk");
  });
  return true;
}

/// merges[0, count), count <= merge_batch_max, key-only, with bulk-copied tiles in one launch;
/// where that cannot run, merge_partition_batch and merge_tiles_batch in the same tiles.
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
void launch_merge_batch_bulk(cudaStream_t stream, const generated_merge<T, BAt>* merges, int count, Compare comp,
                             unsigned max_blocks = 0) {
  merge_batch<T, BAt> batch{};
  const std::size_t tiles_total = merge_batch_of(merges, count, std::size_t(Threads) * Items, batch);
  if (!launch_merge_tiles_bulk<Threads, Items, Stages, MinBlocks>(stream, batch, tiles_total, comp, max_blocks)) {
    launch_merge_batch<Threads, Items>(stream, merges, count, comp);
  }
}

/// A whole key-only merge with bulk-copied tiles (launch_merge_batch_bulk of one).
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
void launch_merge_bulk(cudaStream_t stream, const T* a, std::size_t na, BAt b, std::size_t nb, T* out, Compare comp,
                       unsigned max_blocks = 0) {
  const generated_merge<T, BAt> merge{a, na, b, nb, out};
  launch_merge_batch_bulk<Threads, Items, Stages, MinBlocks>(stream, &merge, 1, comp, max_blocks);
}

/// The pair-sum walk's tile launch with pair_sum_tiles_bulk, pair_sum_tiles where that cannot
/// run (before sm_90, a or b not 16-byte aligned).
template <int Threads, int Items, int Stages, int MinBlocks, bool Find, class T>
struct pair_sum_tiles_bulk_launcher {
  unsigned max_blocks = 0;
  void operator()(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                  const pair_sum_targets<T>& targets, const std::size_t* clips, std::size_t tiles,
                  const std::size_t* splits, pair_sum_state* state) const {
    constexpr std::size_t smem = bulk_smem_bytes<T, Threads, Items, Stages>();
    auto* kernel = pair_sum_tiles_bulk<Threads, Items, Stages, MinBlocks, Find, T>;
    const std::size_t tiles_total = tiles * std::size_t(targets.count);
    if (aligned16(d_a) && aligned16(d_b)) {
      const persistent_shape shape = persistent_shape_of(kernel, Threads + 32, smem);
      if (shape.runs) {
        kernel<<<shape.grid_for(tiles_total, max_blocks), Threads + 32, smem, stream>>>(
            d_a, na, d_b, nb, targets, clips, tiles, unsigned(tiles_total), splits, state);
        SSUM_CUDA_CHECK_LAUNCH("pair_sum_tiles_bulk");
        return;
      }
    }
    pair_sum_tiles_launcher<Threads, Items, MinBlocks, Find, T>{}(stream, d_a, na, d_b, nb, targets, clips, tiles,
                                                                  splits, state);
  }
};

template <int Threads, int Items, int Stages, int MinBlocks, bool Find, class T>
pair_sum_state launch_pair_sums_bulk(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                     const T* ts, int count, unsigned max_blocks = 0) {
  return launch_pair_sums_with<Threads, Items, Find>(
      stream, d_a, na, d_b, nb, ts, count,
      pair_sum_tiles_bulk_launcher<Threads, Items, Stages, MinBlocks, Find, T>{max_blocks});
}

}  // namespace ssum::cuda_detail

#pragma once
// Key-only merges with tiles fed by Hopper's bulk copies (sm_90; bulk_stage.cuh): persistent
// blocks take their tiles from a queue in order and find their splits inside the kernel, so
// one launch replaces merge_partition and merge_tiles. Merge path as merge_tiles.cuh (Odeh et
// al. 2012; Green, McColl, Bader, ICS 2012).
//
// Why: the classic tiles load through registers (a load and a shared store per element), then
// work, one tile per block, so a SM whose blocks all work has no load in flight (Nsight
// Compute, H200: the uint32 merge at 71-74% of DRAM bandwidth). Here the loads cost no
// instructions and stay in flight, and the merging warps never wait at a block barrier for
// the thread that issues copies (uint32 at 2^28 on the H200: 616 against 680 us for
// merge_tiles and its partition).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/common/bulk_copy.cuh"
#include "cuda/common/check.cuh"
#include "cuda/common/kept_state.cuh"
#include "cuda/merge/bulk_stage.cuh"
#include "cuda/merge/merge_batch.cuh"
#include "cuda/merge/merge_partition.cuh"

namespace ssum::cuda_detail {

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
/// Measured on the H200 at 2^28 uint32 outputs (docs/performance.md): tiles handed
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

}  // namespace ssum::cuda_detail

#pragma once
// The pair-sum walk over tiles fed by Hopper's bulk copies (sm_90; bulk_stage.cuh): the walk
// of pair_sum_tiles.cuh in persistent blocks with a ring of stages. Merge path as there (Odeh
// et al. 2012; Green, McColl, Bader, ICS 2012).
//
// Why: the classic kernel loads a tile through registers (a load and a shared store per
// element), then walks, one tile per block, so a SM whose blocks all walk has no load in
// flight (Nsight Compute, H200: 71-74% of DRAM bandwidth). Here the loads cost no
// instructions and stay in flight, and the walking warps never wait at a block barrier for
// the thread that issues copies: the n = 64 whole search's walk went from 41.1 to 35.1 ms.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/bulk_copy.cuh"
#include "cuda/merge/bulk_stage.cuh"
#include "cuda/merge/merge_partition.cuh"
#include "cuda/pair_sum/pair_sum_walk.cuh"
#include "ssum/merge_path.hpp"

namespace ssum::cuda_detail {

/// The pair-sum walk of pair_sum_tiles (see there and pair_sum_walk.cuh's notes on facts (1)
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
                   (detail::equal_run_end(minus_reversed<T>{b, hi, t}, c1, nc, v) - c1);
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

}  // namespace ssum::cuda_detail

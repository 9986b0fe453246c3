#pragma once
// The pair-sum walk's classic tile kernel (every architecture): one block per tile of the
// merge of A with C = t - B reversed, loaded through registers into shared memory, each
// thread walking Items steps from its own merge-path split (Odeh et al. 2012; Green, McColl,
// Bader, ICS 2012). How runs of equal values are counted once: pair_sum_walk.cuh.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/merge/merge_partition.cuh"
#include "cuda/pair_sum/pair_sum_walk.cuh"
#include "ssum/merge_path.hpp"

namespace ssum::cuda_detail {


/// One tile of the walk over the merge of A and C_k: counts the pairs (Find = false), or
/// records one match and lets later tiles leave early (Find = true). Block x takes tile
/// x % tiles of target x / tiles.
///
/// The walk was bound by integer instructions, not by memory (Nsight Compute on the H200, the
/// solver's search at n = 56: ALU pipe 92% busy, DRAM 40%, about 100 instructions per element
/// with 256 x 11 tiles), so everything per element is kept lean: the tile is read through
/// 32-bit offsets from two base pointers, each thread's split is a 32-bit search, and Find
/// tracks no run start (it is found after the walk, only by a thread that matched). That
/// halved the instructions (1121 to 718 us); with 256 x 23 tiles the same search took 626 us,
/// DRAM 71% busy and the shared-memory pipe 82% (the walk's data-dependent reads conflict
/// 5-way on banks). merge_tiles' load_tile still computes 64-bit indexes per element; moving
/// it to base pointers as here is not measured yet.
template <int Threads, int Items, int MinBlocks, bool Find, class T>
__global__ void __launch_bounds__(Threads, MinBlocks)
    pair_sum_tiles(const T* a, std::size_t na, const T* b, pair_sum_targets<T> targets, const std::size_t* clips,
                   std::size_t tiles, const std::size_t* all_splits, pair_sum_state* state) {
  constexpr int tile = Threads * Items;
  constexpr int warps = Threads / 32;
  static_assert(Threads % 32 == 0, "whole warps");
  // The tile: dynamic shared memory (pair_sum_smem_bytes), so tiles past 48 KiB can be tried.
  extern __shared__ __align__(16) unsigned char pair_sum_smem[];
  T* const sm = reinterpret_cast<T*>(pair_sum_smem);
  __shared__ unsigned long long warp_sums[warps];
  __shared__ int stop;

  // 32-bit: the grid (tiles x targets) is below 2^31.
  const int target = int(blockIdx.x / unsigned(tiles));
  const std::size_t tile_id = blockIdx.x - unsigned(target) * unsigned(tiles);
  // targets.t[target] by selects: indexing the parameter with a variable would copy it to the
  // stack.
  T t = targets.t[0];
#pragma unroll
  for (int k = 1; k < pair_sum_max_targets; ++k) t = target == k ? targets.t[k] : t;
  const std::size_t hi = clips[2 * target + 1], nc = hi - clips[2 * target], total = na + nc;
  if (tile_id * tile >= total) return;  // the same for the whole block
  const tile_range r = tile_at<tile>(tile_id, na, total, all_splits + std::size_t(target) * (tiles + 1));
  if constexpr (Find) {
    // One look per tile, shared so the whole block leaves together: leave when a match of an
    // earlier target, or of this one with a smaller a index than any of this tile's, is known
    // (so the first one is always found).
    if (threadIdx.x == 0) {
      const unsigned long long not_key = *static_cast<volatile unsigned long long*>(&state->not_key);
      const unsigned long long known = ~not_key;
      const int known_target = static_cast<int>(known >> pair_sum_target_shift);
      stop = not_key != 0 &&
             (known_target < target || (known_target == target && (known & pair_sum_index_mask) < r.a0));
    }
    __syncthreads();
    if (stop) return;
  }
  const int na_t = r.na_t, nc_t = r.count - r.na_t;
  {
    // s[0, na_t) = a[a0, ...), s[na_t + m] = c(b0 + m) = t - b[hi - 1 - b0 - m]: one base
    // pointer per input, 32-bit offsets from it. All loads in flight before the first store.
    const T* pa = a + r.a0;
    const T* pc = b + (hi - 1 - r.b0) + na_t;  // s[x] for x >= na_t is t - pc[-x]
    T v[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int x = k * Threads + int(threadIdx.x);
      if (x < na_t) {
        v[k] = pa[x];
      } else if (x < r.count) {
        v[k] = pc[-x];
      }
    }
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int x = k * Threads + int(threadIdx.x);
      if (x < na_t) {
        sm[x] = v[k];
      } else if (x < r.count) {
        sm[x] = static_cast<T>(t - v[k]);
      }
    }
  }
  __syncthreads();

  const T* sa = sm;
  const T* sc = sm + na_t;
  const int diag = min(int(threadIdx.x) * Items, r.count);
  const int n_out = min(Items, r.count - diag);
  unsigned long long cnt = 0;
  int hit_at = 0;  // Find: i just after the first matching a this thread saw (0: none; i > 0 at a match)
  if (n_out > 0) {
    int i = tile_split(sa, na_t, sc, nc_t, diag, less{});
    int j = diag - i;
    // last = a[i - 1] (the last a taken) when i > 0.
    T last = i > 0 ? sa[i - 1] : T{};
    // Count: rs = the start of last's run in the tile (the a's that a c equal to last pairs with).
    int rs = 0;
    if constexpr (!Find) rs = i > 0 ? run_start_before(sa, i, last) : 0;
    T x = i < na_t ? sa[i] : T{}, y = j < nc_t ? sc[j] : T{};
    // Branch-free, as merge_tiles: one select per value and one shared load per step. A head
    // past its input is never compared (the j < nc_t / i >= na_t tests decide first), and
    // every shared read stays inside the tile.
    // Count gates each step with k < n_out (every pair counted once). Find does not need to:
    // steps past this thread's outputs still walk the tile's own merge, so a match they see is
    // a true pair of the tile (the smallest is still reported by the tile that holds it); and
    // once both heads are past their inputs only a's are taken, which never match.
    const int last_index = r.count - 1;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool take_c = j < nc_t && (i >= na_t || y < x);
      if constexpr (Find) {
        const bool match = take_c && i > 0 && y == last;  // a[i - 1] == c: a pair
        hit_at = match && hit_at == 0 ? i : hit_at;
      } else {
        const bool match = k < n_out && take_c && i > 0 && y == last;  // fact (1): a[rs, i) all equal y
        cnt += match ? static_cast<unsigned long long>(i - rs) : 0ull;
        rs = !take_c && (i == 0 || last != x) ? i : rs;  // a new run of a starts
      }
      last = take_c ? last : x;
      i += take_c ? 0 : 1;
      j += take_c ? 1 : 0;
      const T next = sm[min(take_c ? na_t + j : i, last_index)];
      x = take_c ? x : next;
      y = take_c ? next : y;
    }
  }
  // Fact (2): the c's equal to the tile's last a that lie at or past the tile's end.
  const std::size_t c1 = r.b0 + std::size_t(nc_t);
  if (threadIdx.x == 0 && na_t > 0 && c1 < nc && hit_at == 0) {
    const T v = static_cast<T>(t - b[hi - 1 - c1]);
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
    if (hit_at > 0) {  // the run's first a in the tile; pair_sum_locate finds its partner
      const std::size_t hit_i = r.a0 + std::size_t(run_start_before(sa, hit_at, sa[hit_at - 1]));
      atomicMax(&state->not_key,
                ~(static_cast<unsigned long long>(target) << pair_sum_target_shift | static_cast<unsigned long long>(hit_i)));
      state->found = 1u;
    }
  } else {
    for (int off = 16; off > 0; off /= 2) cnt += __shfl_down_sync(0xffffffffu, cnt, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = cnt;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long sum = 0;
      for (int w = 0; w < warps; ++w) sum += warp_sums[w];
      if (sum) atomicAdd(&state->count, sum);
    }
  }
}

}  // namespace ssum::cuda_detail

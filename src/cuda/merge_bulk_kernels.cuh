#pragma once
// Merge-path tiles fed by Hopper's bulk copies (sm_90, cp.async.bulk: bulk_copy.cuh):
// persistent blocks, each with a ring of Stages tiles in shared memory, and in each block one
// warp apart whose first lane moves the data (reads a tile's splits, starts the copies of its
// a-range and b-range into a free stage, and for merges sends the finished outputs out with
// one bulk store) while the other warps merge or walk the tiles that have landed. The
// partition (merge_partition, pair_sum_partition) is merge_kernels.cuh's. Merge path as there
// (Odeh et al. 2012; Green, McColl, Bader 2012), the walk as pair_sum_tiles.
//
// Why: the tile kernels of merge_kernels.cuh load a tile through registers (a load and a
// shared store per element), then work, one tile per block, so a SM whose blocks all work has
// no load in flight (Nsight Compute, H200: the pair-sum walk and the uint32 merge at 71-74%
// of DRAM bandwidth). Here the loads cost no instructions and stay in flight, and the working
// warps never wait at a block barrier for the thread that issues copies.
//
//   pair_sum_tiles_bulk     the equal-pairs walk (find and count): the solver's search. It
//                           took the n = 64 whole search's walk from 41.1 to 35.1 ms.
//   merge_tiles_bulk        key-only merges of 4-byte keys (uint32 at 2^24: 60 against 69 us
//                           for merge_tiles); 8-byte keys keep merge_tiles (merge_bulk_tuning).
//
// A stage holds the tile's a-range, then after a gap its b-range as it lies in memory (the
// 16-byte pieces that cover each range; the few elements of an array's last partial piece are
// read one by one, so nothing past an array's end is read). Reversed b's (t - b for the pair
// sums) are read backwards out of the stage. Tile g is iteration g / gridDim.x of block
// g % gridDim.x; the host checks the pointers' alignment and falls back to merge_kernels.cuh.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/bulk_copy.cuh"
#include "cuda/check.cuh"
#include "cuda/merge_kernels.cuh"

namespace ssum::cuda_detail {

/// Launch shapes (threads x items per tile, stages per block, blocks per SM); bench_merge_cuda
/// times others. `used`: whether the key-only merges of T take merge_tiles_bulk (4-byte keys)
/// or merge_tiles (8-byte keys, where the bulk kernel measured slower: 1316 against 1225 us
/// at 2^28 uint64 on the H200). Walk: two stages of 256 x 23 8-byte keys, 94 KiB per block.
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

/// Key-only merges: tile g of the batch is block g % gridDim.x's iteration g / gridDim.x. A
/// block is Threads merging threads and one more warp whose first lane moves the data: it
/// reads a tile's splits, starts the copies of its ranges into a free stage, and, once every
/// merging thread has written the tile's outputs into the front of that stage (arriving on
/// the stage's `written` barrier after a proxy fence), sends them out with one bulk store and
/// refills the stage as soon as the store has read it. The merging threads wait only for
/// their next tile to land and for each other between reading a stage and overwriting it.
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
__global__ void __launch_bounds__(Threads + 32, MinBlocks)
    merge_tiles_bulk(merge_batch<T, BAt> batch, unsigned tiles_total, Compare comp) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using reader = b_reader<BAt>;
  constexpr bool reversed = reader::reversed;
  constexpr int tile = Threads * Items;
  constexpr int stage_elems = bulk_stage_elems<T, Threads, Items>();
  static_assert(Threads % 32 == 0, "whole warps");
  static_assert(tile * sizeof(T) % 16 == 0, "every full tile's output starts 16-byte aligned");
  extern __shared__ __align__(128) unsigned char bulk_smem[];
  T* const stages = reinterpret_cast<T*>(bulk_smem);
  __shared__ unsigned long long full[Stages], written[Stages];
  __shared__ bulk_tile head[Stages];
  const unsigned grid = gridDim.x;

  const auto job_of = [&](unsigned g) {
    return merge_batch_job_of(batch, g, [](const merge_batch_job<T, BAt>& x) { return x.first_tile; });
  };

  init_stage_barriers<Stages>(full, written, Threads);

  if (threadIdx.x >= Threads) {
    if (threadIdx.x != Threads) return;
    // The moving lane. store(s, use): the outputs of the use-th tile of stage s, once written.
    const auto store = [&](int s, unsigned use) {
      bulk_barrier_wait(&written[s], use & 1u);
      const bulk_tile h = head[s];
      const merge_batch_job<T, BAt> j = job_of(unsigned(h.job));
      T* const st = stages + s * stage_elems;
      const unsigned whole = unsigned(h.count) * unsigned(sizeof(T)) / 16u * 16u;
      if (whole) bulk_store(j.out + h.d0, st, whole);
      bulk_store_commit();
      for (int x = int(whole / sizeof(T)); x < h.count; ++x) j.out[h.d0 + std::size_t(x)] = st[x];
    };
    unsigned it = 0;
#pragma unroll 1
    for (;; ++it) {
      const std::size_t g = std::size_t(blockIdx.x) + std::size_t(it) * grid;
      if (g >= tiles_total) break;
      const int s = int(it % Stages);
      const merge_batch_job<T, BAt> j = job_of(unsigned(g));
      const std::size_t local = g - j.first_tile;
      const std::size_t s0 = j.splits[local], s1 = j.splits[local + 1];
      if (it >= unsigned(Stages)) {
        store(s, it / Stages - 1);
        bulk_store_wait_read<0>();  // the stage is read out: refill it
      }
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
    // The last tiles' outputs (at most one per stage).
    const unsigned first_left = it > unsigned(Stages) ? it - unsigned(Stages) : 0u;
#pragma unroll 1
    for (unsigned u = first_left; u < it; ++u) store(int(u % Stages), u / Stages);
    bulk_store_wait_all();
    return;
  }

#pragma unroll 1
  for (unsigned it = 0;; ++it) {
    const std::size_t g = std::size_t(blockIdx.x) + std::size_t(it) * grid;
    if (g >= tiles_total) break;
    const int s = int(it % Stages);
    bulk_barrier_wait(&full[s], (it / Stages) & 1u);
    const bulk_tile h = head[s];
    T* const st = stages + s * stage_elems;
    const merge_batch_job<T, BAt> j = job_of(unsigned(g));
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
    bulk_store_fence();
    bulk_barrier_arrive(&written[s], 1);
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

/// merge_tiles_bulk for merges[0, count) (count <= merge_batch_max), after their partitions:
/// false, launching nothing, where it cannot run (before sm_90, or a pointer not 16-byte
/// aligned); the caller then launches merge_tiles_batch. max_blocks (tests): fewer blocks than
/// fit, so that each goes round its ring many times.
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
bool launch_merge_tiles_bulk(cudaStream_t stream, const merge_batch<T, BAt>& batch, std::size_t tiles_total,
                             Compare comp, unsigned max_blocks = 0) {
  if (tiles_total == 0) return true;
  for (int k = 0; k < batch.count; ++k) {
    const merge_batch_job<T, BAt>& j = batch.job[k];
    if (!aligned16(j.a) || !aligned16(b_reader<BAt>::base(j.b)) || !aligned16(j.out)) return false;
  }
  constexpr std::size_t smem = bulk_smem_bytes<T, Threads, Items, Stages>();
  auto* kernel = merge_tiles_bulk<Threads, Items, Stages, MinBlocks, T, BAt, Compare>;
  const persistent_shape shape = persistent_shape_of(kernel, Threads + 32, smem);
  if (!shape.runs) return false;
  kernel<<<shape.grid_for(tiles_total, max_blocks), Threads + 32, smem, stream>>>(batch, unsigned(tiles_total), comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_tiles_bulk");
  return true;
}

/// merge_tiles_bulk's launch over a batch (merge_tiles_batch where it cannot run).
template <int Threads, int Items, int Stages, int MinBlocks>
struct merge_tiles_bulk_launcher {
  unsigned max_blocks = 0;
  template <class T, class BAt, class Compare>
  void operator()(cudaStream_t stream, const merge_batch<T, BAt>& batch, std::size_t tiles_total, Compare comp) const {
    if (!launch_merge_tiles_bulk<Threads, Items, Stages, MinBlocks>(stream, batch, tiles_total, comp, max_blocks)) {
      merge_tiles_batch_launcher<Threads, Items, 1>{}(stream, batch, tiles_total, comp);
    }
  }
};

/// merges[0, count), count <= merge_batch_max, key-only, with bulk-copied tiles.
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
void launch_merge_batch_bulk(cudaStream_t stream, const generated_merge<T, BAt>* merges, int count, Compare comp,
                             unsigned max_blocks = 0) {
  launch_merge_batch_with<Threads, Items>(stream, merges, count, comp,
                                          merge_tiles_bulk_launcher<Threads, Items, Stages, MinBlocks>{max_blocks});
}

/// A whole key-only merge with bulk-copied tiles (merge_partition, then merge_tiles_bulk, or
/// merge_tiles_batch where that cannot run).
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
void launch_merge_bulk(cudaStream_t stream, const T* a, std::size_t na, BAt b, std::size_t nb, T* out, Compare comp,
                       unsigned max_blocks = 0) {
  merge_plan plan;
  partition_merge(stream, a, na, b, nb, std::size_t(Threads) * Items, comp, plan);
  if (plan.tiles == 0) return;
  merge_batch<T, BAt> batch{};
  batch.count = 1;
  batch.job[0] = {a, na, b, nb, out, plan.splits, plan.tiles, 0u, 0u, plan.group};
  merge_tiles_bulk_launcher<Threads, Items, Stages, MinBlocks>{max_blocks}(stream, batch, plan.tiles, comp);
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

#pragma once
// The kernels behind ssum::merge, merge_by_key, merge_generated, find_pair_sum and
// count_pair_sums on CUDA (see merge.cu for the dispatch). Merge path on the GPU (Odeh,
// Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple", 2012; Green,
// McColl, Bader, "GPU Merge Path", ICS 2012):
//
//   merge_partition  warps search where output tile k (diagonal k * Tile, Tile = Threads x
//                    Items) starts in a, by ssum::merge_path_split's rule (warp_partition).
//   merge_tiles      one block per tile: its a-range and b-range (b computed on the fly when
//                    generated) are loaded into shared memory side by side, coalesced; each
//                    thread finds its own diagonal (Items outputs) there with the same split
//                    on 32-bit offsets (tile_split) and merges Items elements sequentially
//                    (ties take a: stable); the results are staged in shared memory and
//                    written out coalesced.
//
// The equal-pairs search walks the merge of A with C = (t - B reversed) with the same
// partition and tiles (pair_sum_tiles, see there for how runs of equal values that cross
// tile and thread boundaries are counted exactly once).
//
// Sizes, diagonals, tile indexes and global offsets are std::size_t throughout (more than
// 2^31 outputs); only offsets inside one tile are int.
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "ssum/merge.hpp"
#include "ssum/merge_path.hpp"

namespace ssum::cuda_detail {

// ---- tuning --------------------------------------------------------------------------

// One place for the launch shape. Items is odd so that staging results at stride Items in
// shared memory is free of bank conflicts (4-byte words; for 8-byte words each half-warp's
// 16 stores land on distinct bank pairs). A tile of 256 x 15 (4-byte) or 256 x 11 (8-byte)
// puts 15 / 11 independent loads per thread in flight, which covers HBM latency at the 5-8
// blocks per SM that the shared memory allows, and keeps keys + values of merge_by_key
// (at most 256 x 11 x 16 B = 45 KiB) under the 48 KiB of static shared memory.
// bench_merge_cuda times other shapes against this one.
// KeysOnly (merge, merge_generated) of 4-byte keys takes a larger tile, 256 x 19: with no
// values to stage it fits (19 KiB), and on the H200 at 2^28 outputs it measured 710 us per
// call against 766 us for 256 x 15. 8-byte keys keep 256 x 11: 256 x 19 measured 1360
// against 1244 us in the same run (docs/performance.md).
template <class T, bool KeysOnly = false>
struct merge_tuning {
  static constexpr int threads = 256;
  static constexpr int items = sizeof(T) >= 8 ? 11 : (KeysOnly ? 19 : 15);
  static constexpr std::size_t tile = std::size_t(threads) * items;
  // 16-byte loads and stores (load_tile_vectorized): off. Measured on the H200 in one run,
  // uint32 at 2^28: 737 us with them against 714 us without (256 x 19); uint64 1292 vs 1240
  // (256 x 11). The loader's extra index work costs more than the fewer load instructions save.
  static constexpr bool vector_io = false;
};
template <class T>
using merge_keys_tuning = merge_tuning<T, true>;

/// The pair-sum walk's tile (find_pair_sum, count_pair_sums): its own shape, since the walk
/// has no output to stage and is bound by instructions and shared-memory reads
/// (pair_sum_tiles), so a larger tile that spreads each thread's split over more steps pays.
/// H200, find over 2 x 2^27 uint64 (whole walk), one run: 256 x 23 754 us, 128 x 24 799,
/// 256 x 16 873, 128 x 32 875, 256 x 11 922, 512 x 11 943 (256 x 23 fills the 48 KiB of
/// static shared memory). 4-byte keys keep merge_tuning's 256 x 15 (not measured otherwise).
/// min_blocks: the walk's registers are capped so that the blocks resident per SM stay what
/// they were before several targets came (four 47 KiB tiles of 8-byte keys: at most 64
/// registers; left alone the several-target kernel took 80-102 and ran 1.6x slower; five of
/// 4-byte keys, at most 51, the occupancy their 48 registers gave before: tested, not timed).
template <class T>
struct pair_sum_tuning {
  static constexpr int threads = 256;
  static constexpr int items = sizeof(T) >= 8 ? 23 : 15;
  static constexpr int min_blocks = sizeof(T) >= 8 ? 4 : 5;
  static constexpr std::size_t tile = std::size_t(threads) * items;
};

/// The Value type of key-only merges; never dereferenced.
struct merge_no_values {};

/// b[j] read from memory: the plain merge's "generator".
template <class T>
struct load_at {
  const T* data;
  __host__ __device__ T operator()(std::size_t j) const { return data[j]; }
};

constexpr int partition_threads = 256;

// ---- small device searches -------------------------------------------------------------

/// merge_path_split inside one tile in shared memory (a = sa[0, na), b = sb[0, nb)): int
/// offsets, so the binary search's index arithmetic is 32-bit rather than std::size_t's.
template <class T, class Compare>
__device__ __forceinline__ int tile_split(const T* sa, int na, const T* sb, int nb, int diag, Compare comp) {
  int lo = max(diag - nb, 0), hi = min(diag, na);
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (comp(sb[diag - 1 - mid], sa[mid])) {  // ties go to a, as merge_path_split
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

/// Given s[i - 1] == v (i > 0) and s ascending: the first k with s[k] == v. Gallops back from
/// i - 1, so a run of length L costs O(log L) reads: one for the usual run of one, where a
/// binary search over [0, i) chains a dozen dependent shared reads.
template <class T>
__device__ int run_start_before(const T* s, int i, const T& v) {
  int hi = i - 1, lo = -1, step = 1;  // s[hi] == v; s[lo] < v (lo = -1: none)
  while (hi - step >= 0) {
    if (s[hi - step] < v) {
      lo = hi - step;
      break;
    }
    hi -= step;
    step *= 2;
  }
  while (hi - lo > 1) {  // the first v lies in (lo, hi]
    const int mid = lo + (hi - lo) / 2;
    if (s[mid] < v) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

/// Given c(j) == v and c ascending on [0, n): the first e > j with v < c(e), or n. Galloping,
/// so O(log run length) reads even for runs much longer than a tile.
template <class CAt, class T>
__device__ std::size_t run_end_at(const CAt& c, std::size_t j, std::size_t n, const T& v) {
  std::size_t lo = j + 1, hi = n, step = 1;  // c[j, lo) == v
  while (lo < n) {
    const std::size_t probe = n - lo <= step ? n : lo + step;
    if (v < c(probe - 1)) {
      hi = probe;
      break;
    }
    lo = probe;
    step *= 2;
  }
  while (lo < hi) {  // the end lies in [lo, hi)
    const std::size_t mid = lo + (hi - lo) / 2;
    if (v < c(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// ---- partition ------------------------------------------------------------------------

/// The first k in [lo, hi) with pred(k), or hi; pred false then true over [lo, hi). Searched
/// by a whole warp (every lane calls it, every lane gets the answer): each round the 32 lanes
/// test 32 evenly spaced candidates and the ballot keeps the stretch between the last false
/// and the first true one, so 2^27 candidates take 6 rounds of dependent loads instead of a
/// binary search's 27. The partition kernels are bound by that latency (one search per tile,
/// all in flight at once), not by the loads' number.
template <class Pred>
__device__ std::size_t warp_partition_point(std::size_t lo, std::size_t hi, Pred pred) {
  const std::size_t lane = threadIdx.x % 32;
  while (lo < hi) {
    const std::size_t len = hi - lo;
    const std::size_t step = len >= 32 ? len / 32 : 1, probes = len >= 32 ? 32 : len;
    const std::size_t probe = lo + (lane + 1) * step - 1;  // the last one, lo + 32 * step - 1, is < hi
    const unsigned ballot = __ballot_sync(0xffffffffu, lane < probes && pred(probe));
    if (ballot == 0) {
      lo += probes * step;  // every probe false: the answer lies past the last one (fewer than 32 left)
    } else {
      const std::size_t f = std::size_t(__ffs(ballot) - 1);
      hi = lo + (f + 1) * step - 1;  // probe f is true
      lo += f * step;                // just past probe f - 1, which is false (or the old lo)
    }
  }
  return lo;
}

/// merge_path_split (ssum/merge_path.hpp) by one warp.
template <class AIt, class BAt, class Compare>
__device__ std::size_t warp_merge_path_split(AIt a, std::size_t na, BAt b, std::size_t nb, std::size_t diagonal,
                                             Compare comp) {
  if (diagonal > na + nb) diagonal = na + nb;
  const std::size_t lo = diagonal > nb ? diagonal - nb : 0, hi = diagonal < na ? diagonal : na;
  // a[mid] is among the first `diagonal` outputs unless b(diagonal - 1 - mid) < a[mid].
  return warp_partition_point(lo, hi, [&](std::size_t mid) { return comp(b(diagonal - 1 - mid), a[mid]); });
}

/// warp_merge_path_split for two diagonals at once, in lockstep: each round issues both
/// searches' probes before either ballot, so their loads are in flight together and the two
/// take the rounds of one (the partitions are latency-bound where the grid is small). Probes:
/// candidates tested per round (lanes [0, Probes) probe): fewer loads, more rounds.
template <int Probes = 32, class AIt, class BAt, class Compare>
__device__ void warp_merge_path_splits(AIt a, std::size_t na, BAt b, std::size_t nb, std::size_t d0, std::size_t d1,
                                       Compare comp, std::size_t& s0, std::size_t& s1) {
  static_assert(Probes >= 2 && Probes <= 32, "a warp's lanes probe");
  const std::size_t lane = threadIdx.x % 32;
  d0 = d0 < na + nb ? d0 : na + nb;
  d1 = d1 < na + nb ? d1 : na + nb;
  std::size_t lo[2] = {d0 > nb ? d0 - nb : 0, d1 > nb ? d1 - nb : 0};
  std::size_t hi[2] = {d0 < na ? d0 : na, d1 < na ? d1 : na};
  const std::size_t d[2] = {d0, d1};
  while (lo[0] < hi[0] || lo[1] < hi[1]) {
    std::size_t step[2], probes[2];
    bool hit[2];
#pragma unroll
    for (int x = 0; x < 2; ++x) {  // a finished search probes nothing
      const std::size_t len = hi[x] - lo[x];
      step[x] = len >= std::size_t(Probes) ? len / Probes : 1;
      probes[x] = len >= std::size_t(Probes) ? std::size_t(Probes) : len;
      const std::size_t mid = lo[x] + (lane + 1) * step[x] - 1;
      hit[x] = lane < probes[x] && comp(b(d[x] - 1 - mid), a[mid]);
    }
#pragma unroll
    for (int x = 0; x < 2; ++x) {
      const unsigned ballot = __ballot_sync(0xffffffffu, hit[x]);
      if (ballot == 0) {
        lo[x] += probes[x] * step[x];
      } else {
        const std::size_t f = std::size_t(__ffs(ballot) - 1);
        hi[x] = lo[x] + (f + 1) * step[x] - 1;
        lo[x] += f * step[x];
      }
    }
  }
  s0 = lo[0];
  s1 = lo[1];
}

/// The partition of one warp: splits[k] for the diagonals k * tile, k in [k0, k0 + group)
/// and k <= tiles, k0 = group x (the warp's index). group = 1: one cooperative search per
/// split. group = 32: cooperative searches for the group's first and last split only (in
/// lockstep, warp_merge_path_splits, 8 probes a round), then
/// each lane searches its own split between those two (merge path splits ascend with the
/// diagonal, by at most a tile per tile), in a window of at most 16 tiles. With tens of
/// thousands of tiles these partitions are bound by their random loads, not by latency: one
/// cooperative search per split took about 300 us at 2^28 uint32 outputs, one thread's
/// binary search per split 85 us (H200); the brackets' probes were then 40% of the loads at
/// 32 a round. With few tiles the latency is all there is.
/// `warp`: this warp's index among the partition's warps.
template <class AIt, class BAt, class Compare>
__device__ void warp_partition(std::size_t warp, AIt a, std::size_t na, BAt b, std::size_t nb, std::size_t tile,
                               std::size_t tiles, int group, std::size_t* splits, Compare comp) {
  const std::size_t k0 = warp * std::size_t(group);
  if (k0 > tiles) return;  // whole warps
  const std::size_t k_last = k0 + std::size_t(group) - 1 < tiles ? k0 + std::size_t(group) - 1 : tiles;
  std::size_t s0 = 0, s1 = 0;
  if (group > 1) {
    warp_merge_path_splits<8>(a, na, b, nb, k0 * tile, k_last * tile, comp, s0, s1);
  } else {
    s0 = s1 = warp_merge_path_split(a, na, b, nb, k0 * tile, comp);
  }
  const std::size_t k = k0 + threadIdx.x % 32;
  if (k > k_last) return;
  const std::size_t d = k * tile < na + nb ? k * tile : na + nb;  // past the end: clamped
  std::size_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
  lo = lo > s0 ? lo : s0;
  hi = hi < s1 ? hi : s1;
  // A tile's outputs take at most a tile from a: s1 - (k_last - k) tiles <= split k <= s0 + (k - k0) tiles.
  const std::size_t below = (k_last - k) * tile, above = (k - k0) * tile;
  if (s1 > below && s1 - below > lo) lo = s1 - below;
  if (s0 + above < hi) hi = s0 + above;
  while (lo < hi) {  // merge_path_split's search, inside [s0, s1]
    const std::size_t mid = lo + (hi - lo) / 2;
    if (comp(b(d - 1 - mid), a[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  splits[k] = lo;
}

/// Splits per warp for a partition of `tiles` tiles (see warp_partition): one while a warp
/// per split fits the device about once (4096 warps: 2^24 4-byte keys), 32 beyond.
/// Below `few_tiles` a launch is latency-bound (find_any_pair_sum groups targets there too).
constexpr std::size_t few_tiles = 4096;
inline int partition_group(std::size_t tiles) { return tiles < few_tiles ? 1 : 32; }

/// Blocks of the partition kernels: one warp for each `group` of the tiles + 1 splits.
inline unsigned partition_blocks(std::size_t tiles, int group) {
  constexpr std::size_t warps_per_block = partition_threads / 32;
  const std::size_t warps = (tiles + 1 + std::size_t(group) - 1) / std::size_t(group);
  return static_cast<unsigned>((warps + warps_per_block - 1) / warps_per_block);
}

/// splits[k] = where output tile k starts in a, for k in [0, tiles] (splits[tiles] = na).
template <class T, class BAt, class Compare>
__global__ void __launch_bounds__(partition_threads)
    merge_partition(const T* a, std::size_t na, BAt b, std::size_t nb, std::size_t tile, std::size_t tiles, int group,
                    std::size_t* splits, Compare comp) {
  warp_partition((std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32, a, na, b, nb, tile, tiles, group, splits,
                 comp);
}

// ---- one tile -------------------------------------------------------------------------

/// Where a tile reads and writes: outputs [d0, d0 + count) made of a[a0, a0 + na_t) and
/// b[b0, b0 + count - na_t).
struct tile_range {
  std::size_t d0, a0, b0;
  int na_t, count;
};

/// Tile tile_id of a merge of na elements of a with total - na of b. The splits are clamped to
/// where a merge path can run (a0 <= a1 <= a0 + count, both ranges inside their inputs): for
/// sorted inputs that changes nothing, and inputs that break the contract (not sorted) give
/// wrong results but never an access outside the arrays. s0 = splits[tile_id], s1 =
/// splits[tile_id + 1].
template <int Tile>
__device__ __forceinline__ tile_range tile_between(std::size_t tile_id, std::size_t na, std::size_t total,
                                                   std::size_t s0, std::size_t s1) {
  const std::size_t nb = total - na;
  const std::size_t d0 = tile_id * Tile;
  const std::size_t d1 = total - d0 < std::size_t(Tile) ? total : d0 + Tile;
  const auto clamp = [](std::size_t x, std::size_t lo, std::size_t hi) { return x < lo ? lo : (x > hi ? hi : x); };
  const std::size_t a0 = clamp(s0, d0 > nb ? d0 - nb : 0, d0 < na ? d0 : na);
  const std::size_t lo1 = d1 > nb ? d1 - nb : 0, hi1 = d1 < na ? d1 : na;
  const std::size_t a1 = clamp(s1, lo1 > a0 ? lo1 : a0, hi1 < a0 + (d1 - d0) ? hi1 : a0 + (d1 - d0));
  return {d0, a0, d0 - a0, static_cast<int>(a1 - a0), static_cast<int>(d1 - d0)};
}
/// The same, reading the two splits.
template <int Tile>
__device__ tile_range tile_at(std::size_t tile_id, std::size_t na, std::size_t total, const std::size_t* splits) {
  return tile_between<Tile>(tile_id, na, total, splits[tile_id], splits[tile_id + 1]);
}

/// How a tile reads b: a plain load (raw), then the generator's arithmetic (finish). Kept
/// apart so that a generated b's loads are issued exactly like a stored b's, all before the
/// first use: the fused merge_generated measured 1.4x slower than the plain merge while
/// both kernels' PTX differ only by that arithmetic (docs/performance.md).
template <class BAt>
struct b_reader;
// raw/finish as above; base/length/reversed: where b's values lie in memory, for the
// vectorized loader (b(j) reads base[j], or base[length - 1 - j] when reversed).
template <class T>
struct b_reader<load_at<T>> {
  static constexpr bool reversed = false;
  __device__ static T raw(const load_at<T>& b, std::size_t j) { return b.data[j]; }
  __device__ static T finish(const load_at<T>&, T x) { return x; }
  __host__ __device__ static const T* base(const load_at<T>& b) { return b.data; }
  __host__ __device__ static std::size_t length(const load_at<T>&, std::size_t nb) { return nb; }
};
template <class T>
struct b_reader<plus_constant<T>> {
  static constexpr bool reversed = false;
  __device__ static T raw(const plus_constant<T>& b, std::size_t j) { return b.data[j]; }
  __device__ static T finish(const plus_constant<T>& b, T x) { return static_cast<T>(x + b.c); }
  __host__ __device__ static const T* base(const plus_constant<T>& b) { return b.data; }
  __host__ __device__ static std::size_t length(const plus_constant<T>&, std::size_t nb) { return nb; }
};
template <class T>
struct b_reader<minus_reversed<T>> {
  static constexpr bool reversed = true;
  __device__ static T raw(const minus_reversed<T>& b, std::size_t j) { return b.data[b.n - 1 - j]; }
  __device__ static T finish(const minus_reversed<T>& b, T x) { return static_cast<T>(b.t - x); }
  __host__ __device__ static const T* base(const minus_reversed<T>& b) { return b.data; }
  __host__ __device__ static std::size_t length(const minus_reversed<T>& b, std::size_t) { return b.n; }
};

/// s[0, count) = a[a0, a0 + na_t) followed by b[b0, ...): striped, so a warp reads 32
/// neighbours of one input (two where it crosses from a to b). All loads are issued before
/// the first store to shared memory, so Items of them are in flight per thread.
template <int Threads, int Items, class T, class BAt>
__device__ void load_tile(const T* a, BAt b, const tile_range& r, T* s) {
  using reader = b_reader<BAt>;
  T v[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.na_t) {
      v[k] = a[r.a0 + x];
    } else if (x < r.count) {
      v[k] = reader::raw(b, r.b0 + std::size_t(x - r.na_t));
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.na_t) {
      s[x] = v[k];
    } else if (x < r.count) {
      s[x] = reader::finish(b, v[k]);
    }
  }
}

/// Chunk c (16 bytes, V elements) of p[0, len): one vector load when it lies inside,
/// element by element (T{} past len) for the last, partial one.
template <int V, class T>
__device__ __forceinline__ void load_chunk(const T* p, std::size_t len, std::size_t c, T (&v)[V]) {
  if ((c + 1) * V <= len) {
    const uint4 r = *reinterpret_cast<const uint4*>(p + c * V);
    memcpy(v, &r, 16);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = c * V + e < len ? p[c * V + e] : T{};
  }
}

/// load_tile with 16-byte loads, for a and b's memory both 16-byte aligned: the tile's a-range
/// and b-range are read as the aligned chunks that cover them (at most two partial chunks
/// each), so a warp's load moves 512 bytes instead of 128; elements outside the ranges are
/// dropped when the chunks are copied to shared memory. It quarters the load instructions of
/// 4-byte keys but measured slower than load_tile (merge_tuning::vector_io); kept for the
/// benchmark's comparison.
template <int Threads, int Items, class T, class BAt>
__device__ void load_tile_vectorized(const T* a, std::size_t na, BAt b, std::size_t nb, const tile_range& r, T* s) {
  using reader = b_reader<BAt>;
  constexpr int V = 16 / sizeof(T);
  constexpr int max_chunks = (Threads * Items + V - 1) / V + 4;  // two ranges, a partial chunk at each end
  constexpr int K = (max_chunks + Threads - 1) / Threads;
  const T* bd = reader::base(b);
  const std::size_t b_len = reader::length(b, nb);
  const int na_t = r.na_t, nb_t = r.count - r.na_t;
  // b's tile range in memory: [b_lo, b_lo + nb_t).
  const std::size_t b_lo = reader::reversed ? b_len - r.b0 - std::size_t(nb_t) : r.b0;
  const std::size_t ca0 = r.a0 / V, cb0 = b_lo / V;
  const int ca = na_t > 0 ? int((r.a0 + na_t - 1) / V - ca0 + 1) : 0;
  const int cb = nb_t > 0 ? int((b_lo + nb_t - 1) / V - cb0 + 1) : 0;
  T v[K][V];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < ca) {
      load_chunk<V>(a, na, ca0 + x, v[k]);
    } else if (x < ca + cb) {
      load_chunk<V>(bd, b_len, cb0 + (x - ca), v[k]);
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < ca) {
      const std::size_t first = (ca0 + x) * V;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const std::size_t idx = first + e;
        if (idx >= r.a0 && idx < r.a0 + na_t) s[idx - r.a0] = v[k][e];
      }
    } else if (x < ca + cb) {
      const std::size_t first = (cb0 + (x - ca)) * V;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const std::size_t idx = first + e;
        if (idx >= b_lo && idx < b_lo + nb_t) {
          const std::size_t pos = reader::reversed ? b_lo + nb_t - 1 - idx : idx - b_lo;
          s[na_t + int(pos)] = reader::finish(b, v[k][e]);
        }
      }
    }
  }
}

/// The same for values (a's, then b's).
template <int Threads, int Items, class V>
__device__ void load_values(const V* av, const V* bv, const tile_range& r, V* s) {
  V v[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.na_t) {
      v[k] = av[r.a0 + x];
    } else if (x < r.count) {
      v[k] = bv[r.b0 + std::size_t(x - r.na_t)];
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.count) s[x] = v[k];
  }
}

/// Shared memory of one merge tile: keys, and values when there are any.
template <int Tile, class T, class V>
struct merge_smem {
  static constexpr bool has_values = !std::is_same_v<V, merge_no_values>;
  alignas(16) T keys[Tile];
  std::conditional_t<has_values, V, char> values[has_values ? Tile : 1];
};

/// Output tile `tile_id` of the stable merge of a and b, by the whole block (merge_tiles,
/// merge_tiles_batch). V = merge_no_values: keys only.
template <int Threads, int Items, bool VectorIo, class T, class V, class BAt, class Compare>
__device__ __forceinline__ void merge_tile(std::size_t tile_id, const T* a, const V* av, std::size_t na, BAt b,
                                           const V* bv, std::size_t nb, const std::size_t* splits, T* out, V* out_v,
                                           Compare comp) {
  constexpr int tile = Threads * Items;
  using smem_t = merge_smem<tile, T, V>;
  constexpr bool has_values = smem_t::has_values;
  static_assert(sizeof(smem_t) <= 48 * 1024, "merge tile too large for static shared memory");
  __shared__ smem_t sm;

  const tile_range r = tile_at<tile>(tile_id, na, na + nb, splits);
  // VectorIo: 16-byte loads and stores where the pointers allow them (the same for every block).
  const bool vector_in = VectorIo && ((reinterpret_cast<std::uintptr_t>(a) |
                                       reinterpret_cast<std::uintptr_t>(b_reader<BAt>::base(b))) % 16 == 0);
  if (vector_in) {
    load_tile_vectorized<Threads, Items>(a, na, b, nb, r, sm.keys);
  } else {
    load_tile<Threads, Items>(a, b, r, sm.keys);
  }
  if constexpr (has_values) load_values<Threads, Items>(av, bv, r, sm.values);
  __syncthreads();

  // This thread's outputs [diag, diag + n_out) of the tile, merged from shared memory.
  const T* sk = sm.keys;
  const int na_t = r.na_t, nb_t = r.count - r.na_t, last = r.count - 1;
  const int diag = min(int(threadIdx.x) * Items, r.count);
  const int n_out = min(Items, r.count - diag);
  int i = tile_split(sk, na_t, sk + na_t, nb_t, diag, comp);
  int j = diag - i;
  T key[Items];
  int src[Items];  // where key k sits in shared memory (a's at [0, na_t), b's after): for values
  if (n_out > 0) {
    // Branch-free: one select and one shared load per output. Heads past their input hold
    // stale keys that are never chosen (the i >= na_t / j < nb_t tests decide first); steps
    // past n_out produce keys that are never stored, and every index read stays in [0, count).
    T ka = sk[min(i, last)], kb = sk[min(na_t + j, last)];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool take_b = j < nb_t && (i >= na_t || comp(kb, ka));  // ties take a: stable
      key[k] = take_b ? kb : ka;
      src[k] = take_b ? na_t + j : i;
      i += !take_b;
      j += take_b;
      const T next = sk[take_b ? min(na_t + j, last) : min(i, last)];
      ka = take_b ? ka : next;
      kb = take_b ? next : kb;
    }
  }
  using VS = std::conditional_t<has_values, V, char>;
  VS val[has_values ? Items : 1];
  if constexpr (has_values) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (k < n_out) val[k] = sm.values[src[k]];
    }
  }
  __syncthreads();  // every thread is done reading the inputs in shared memory

  // Stage in output order, then write the tile out coalesced.
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (k < n_out) {
      sm.keys[diag + k] = key[k];
      if constexpr (has_values) sm.values[diag + k] = val[k];
    }
  }
  __syncthreads();
  if constexpr (VectorIo && !has_values && (tile * sizeof(T)) % 16 == 0) {
    // Full tiles start at a multiple of 16 bytes of an aligned output: 16-byte stores.
    constexpr int per_chunk = 16 / sizeof(T), chunks = tile / per_chunk;
    if (r.count == tile && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
#pragma unroll
      for (int k = 0; k < (chunks + Threads - 1) / Threads; ++k) {
        const int x = k * Threads + int(threadIdx.x);
        if (x < chunks) {
          *reinterpret_cast<uint4*>(out + r.d0 + std::size_t(x) * per_chunk) =
              *reinterpret_cast<const uint4*>(sm.keys + x * per_chunk);
        }
      }
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.count) {
      out[r.d0 + x] = sm.keys[x];
      if constexpr (has_values) out_v[r.d0 + x] = sm.values[x];
    }
  }
}

/// Output tile blockIdx.x of the stable merge of a and b. V = merge_no_values: keys only.
template <int Threads, int Items, int MinBlocks, bool VectorIo, class T, class V, class BAt, class Compare>
__global__ void __launch_bounds__(Threads, MinBlocks)
    merge_tiles(const T* a, const V* av, std::size_t na, BAt b, const V* bv, std::size_t nb,
                const std::size_t* splits, T* out, V* out_v, Compare comp) {
  merge_tile<Threads, Items, VectorIo>(blockIdx.x, a, av, na, b, bv, nb, splits, out, out_v, comp);
}

// ---- launch -----------------------------------------------------------------------------

/// Memory plan of one merge: the tile boundaries, tiles + 1 of them.
inline std::size_t merge_scratch_bytes(std::size_t tiles) { return (tiles + 1) * sizeof(std::size_t); }

/// Number of tiles of `total` outputs; throws when the grid cannot hold them.
inline std::size_t merge_tiles_for(std::size_t total, std::size_t tile) {
  const std::size_t tiles = total / tile + (total % tile != 0);
  if (tiles > static_cast<std::size_t>(INT_MAX) - 1) {
    throw std::invalid_argument("ssum::cuda merge: too many elements for one launch");
  }
  return tiles;
}

/// merge_partition into splits[0, tiles] for a merge of na + nb outputs in tiles of `tile`
/// (tiles = merge_tiles_for(na + nb, tile) >= 1), on `stream`.
template <class T, class BAt, class Compare>
void launch_merge_partition(cudaStream_t stream, const T* a, std::size_t na, BAt b, std::size_t nb, std::size_t tile,
                            std::size_t tiles, std::size_t* splits, Compare comp) {
  const int group = partition_group(tiles);
  merge_partition<<<partition_blocks(tiles, group), partition_threads, 0, stream>>>(a, na, b, nb, tile, tiles, group,
                                                                                    splits, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_partition");
}

/// The whole merge for any launch shape (merge.cu picks merge_tuning's; the benchmarks try
/// others). Ordered on `stream`; the caller has checked the arguments.
template <int Threads, int Items, int MinBlocks = 1, bool VectorIo = false, class T, class V, class BAt, class Compare>
void launch_merge(cudaStream_t stream, const T* a, const V* av, std::size_t na, BAt b, const V* bv, std::size_t nb,
                  T* out, V* out_v, Compare comp) {
  if (na > SIZE_MAX - nb) throw std::invalid_argument("ssum::cuda merge: na + nb overflows");
  if (na + nb == 0) return;
  constexpr std::size_t tile = std::size_t(Threads) * Items;
  const std::size_t tiles = merge_tiles_for(na + nb, tile);
  device_buffer scratch(merge_scratch_bytes(tiles), stream);
  std::size_t* const splits = scratch.as<std::size_t>();
  launch_merge_partition(stream, a, na, b, nb, tile, tiles, splits, comp);
  merge_tiles<Threads, Items, MinBlocks, VectorIo><<<static_cast<unsigned>(tiles), Threads, 0, stream>>>(
      a, av, na, b, bv, nb, splits, out, out_v, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_tiles");
}

// ---- several merges in one launch -------------------------------------------------------
//
// merge_generated_batch: independent key-only merges (the solver's two lists, a level each)
// share one partition launch and one tile launch. Small merges are all latency (a partition's
// dependent searches, a grid that does not fill the device); side by side they overlap.

/// Merges per launch (more are launched in groups).
constexpr int merge_batch_max = 4;

/// One merge of a batch and where its blocks lie in the batch's two grids.
template <class T, class BAt>
struct merge_batch_job {
  const T* a;
  std::size_t na;
  BAt b;
  std::size_t nb;
  T* out;
  std::size_t* splits;  // tiles + 1
  std::size_t tiles;
  unsigned first_tile;   // its first block in merge_tiles_batch's grid
  unsigned first_block;  // its first block in merge_partition_batch's grid
  int group;             // partition_group(tiles)
};

template <class T, class BAt>
struct merge_batch {
  merge_batch_job<T, BAt> job[merge_batch_max];
  int count;
};

/// The job that block x belongs to (the last one whose first block, by `first`, is <= x),
/// copied by selects: indexing the parameter with a variable would copy it to the stack.
template <class T, class BAt, class First>
__device__ __forceinline__ merge_batch_job<T, BAt> merge_batch_job_of(const merge_batch<T, BAt>& batch, unsigned x,
                                                                     First first) {
  merge_batch_job<T, BAt> j = batch.job[0];
#pragma unroll
  for (int k = 1; k < merge_batch_max; ++k) {
    if (k < batch.count && x >= first(batch.job[k])) j = batch.job[k];
  }
  return j;
}

template <class T, class BAt, class Compare>
__global__ void __launch_bounds__(partition_threads)
    merge_partition_batch(merge_batch<T, BAt> batch, std::size_t tile, Compare comp) {
  const merge_batch_job<T, BAt> j =
      merge_batch_job_of(batch, blockIdx.x, [](const merge_batch_job<T, BAt>& x) { return x.first_block; });
  const std::size_t warp = (std::size_t(blockIdx.x - j.first_block) * blockDim.x + threadIdx.x) / 32;
  warp_partition(warp, j.a, j.na, j.b, j.nb, tile, j.tiles, j.group, j.splits, comp);
}

template <int Threads, int Items, int MinBlocks, class T, class BAt, class Compare>
__global__ void __launch_bounds__(Threads, MinBlocks) merge_tiles_batch(merge_batch<T, BAt> batch, Compare comp) {
  const merge_batch_job<T, BAt> j =
      merge_batch_job_of(batch, blockIdx.x, [](const merge_batch_job<T, BAt>& x) { return x.first_tile; });
  const merge_no_values* none = nullptr;
  merge_tile<Threads, Items, false>(blockIdx.x - j.first_tile, j.a, none, j.na, j.b, none, j.nb, j.splits, j.out,
                                    static_cast<merge_no_values*>(nullptr), comp);
}

/// The jobs of merges[0, count) (the empty ones left out) in tiles of `tile` outputs, into
/// batch; returns the batch's tiles. Sets no partition (first_block, splits).
template <class T, class BAt>
std::size_t merge_batch_of(const generated_merge<T, BAt>* merges, int count, std::size_t tile,
                           merge_batch<T, BAt>& batch) {
  std::size_t tiles_total = 0;
  batch.count = 0;
  for (int k = 0; k < count; ++k) {
    const generated_merge<T, BAt>& m = merges[k];
    if (m.na > SIZE_MAX - m.nb) throw std::invalid_argument("ssum::cuda merge: na + nb overflows");
    if (m.na + m.nb == 0) continue;
    merge_batch_job<T, BAt>& j = batch.job[batch.count++];
    j.a = m.a;
    j.na = m.na;
    j.b = m.b_at;
    j.nb = m.nb;
    j.out = m.out;
    j.tiles = merge_tiles_for(m.na + m.nb, tile);
    j.group = partition_group(j.tiles);
    j.first_tile = static_cast<unsigned>(tiles_total);
    tiles_total += j.tiles;
    if (tiles_total > static_cast<std::size_t>(INT_MAX) - 1) {
      throw std::invalid_argument("ssum::cuda merge: too many elements for one launch");
    }
  }
  return tiles_total;
}

/// merges[0, count), count <= merge_batch_max, key-only, in two launches on `stream`: the
/// batch's partition, then its tiles (empty merges take no block). The caller has checked
/// the arguments.
template <int Threads, int Items, int MinBlocks = 1, class T, class BAt, class Compare>
void launch_merge_batch(cudaStream_t stream, const generated_merge<T, BAt>* merges, int count, Compare comp) {
  constexpr std::size_t tile = std::size_t(Threads) * Items;
  merge_batch<T, BAt> batch{};
  const std::size_t tiles_total = merge_batch_of(merges, count, tile, batch);
  if (batch.count == 0) return;
  std::size_t blocks_total = 0, splits_total = 0;
  for (int k = 0; k < batch.count; ++k) {
    merge_batch_job<T, BAt>& j = batch.job[k];
    j.first_block = static_cast<unsigned>(blocks_total);
    blocks_total += partition_blocks(j.tiles, j.group);
    splits_total += j.tiles + 1;
  }
  device_buffer scratch(splits_total * sizeof(std::size_t), stream);
  std::size_t offset = 0;
  for (int k = 0; k < batch.count; ++k) {
    batch.job[k].splits = scratch.as<std::size_t>() + offset;
    offset += batch.job[k].tiles + 1;
  }
  merge_partition_batch<<<static_cast<unsigned>(blocks_total), partition_threads, 0, stream>>>(batch, tile, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_partition_batch");
  merge_tiles_batch<Threads, Items, MinBlocks><<<static_cast<unsigned>(tiles_total), Threads, 0, stream>>>(batch, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_tiles_batch");
}

// ---- equal pairs: a + b = t --------------------------------------------------------------
//
// C = minus_reversed<T>{b, hi, t}, c(j) = t - b[hi - 1 - j] for j in [0, nc), nc = hi - lo,
// where b[lo, hi) are the b's for which t - b fits in T (found on the device by
// pair_sum_clip, so nothing ever overflows and C ascends). a[i] + b[hi - 1 - j] == t iff
// a[i] == c(j). The grid is sized for all of b; tiles past na + nc leave at once.
//
// Counting, per tile (a[a0, a1) against c[c0, c1)), every pair (i, j) with a[i] == c(j) is
// counted by the tile holding a[i]. Two facts of the stable merge (ties take a) make that a
// local matter:
//  (1) when c(j) is taken, every a of the tile equal to it has already been taken, and they
//      are exactly a[rs, i) with a[i - 1] == c(j) (rs: the start of a[i - 1]'s run);
//  (2) a c equal to an a of the tile never lies before c0 (it is merged after that a, which
//      is merged after the tile starts); it may lie at or past c1, but only when c(c1) itself
//      equals that a (c(c1) comes after every a of the tile, so c(c1) >= a, and <= the c).
// So: each thread adds i - rs for every c it takes in its own stretch of the tile (rs found
// by one binary search in shared memory at its start, then tracked), which counts the tile's
// a's against the tile's c's; and one thread adds (a's of the tile equal to v) x (c's equal
// to v from c1 on) for v = c(c1), by galloping over C. Summed over tiles: count_A(v) x
// count_C(v) for every v, each pair once. find_pair_sum tests the same two places.

// Several targets in one launch (find_any_pair_sum, the solver's four shifted searches): each
// target t_k has its own clip, partition and tiles, and the tiles of all targets run in one
// grid, target after target. One launch of each kernel instead of one per target: on the H200
// four targets over 2 x 2^27 uint64 took 2.70 ms against 2.87 for four find_pair_sum calls,
// 250 us against 360 at 2^24. (Ordering the tiles by where they start in A, so that the
// targets' tiles over one stretch of A run together and A is read from memory once, measured
// no faster: 2.698 against 2.697 ms. The walk is bound by shared memory, not by DRAM.)

/// At most this many targets per launch (more are searched in groups; see merge.cu).
constexpr int pair_sum_max_targets = 4;

/// The targets of one launch and, for each, which b's can take part (pair_sum_bound_for).
template <class T>
struct pair_sum_targets {
  T t[pair_sum_max_targets];
  T bound[pair_sum_max_targets];
  bool from_lower[pair_sum_max_targets];
  int count;
};

/// A find's match as one ordered key: the target in the top two bits, the a index below, so
/// that the smallest key is the first target's smallest a index.
constexpr int pair_sum_target_shift = 62;
constexpr unsigned long long pair_sum_index_mask = (1ull << pair_sum_target_shift) - 1;
static_assert(pair_sum_max_targets <= 4, "two bits of target in a match key");

/// What the pair-sum kernels report; zeroed before the launches. A find reports, of the first
/// target (in order) that has a match, the match with the smallest a index, whatever order
/// the tiles ran in (so the CUDA solver's certificate is the same run to run, and the same as
/// searching the targets one by one): each tile records the first a of each matching run it
/// holds with atomicMax on ~key (zero: none yet) and skips itself when a match of an earlier
/// target, or of its own before its first a, is known; the grid runs target after target, so
/// a match found early spares the rest as when the targets are searched one by one. The tile
/// holding the first matching a of a target always reports it: either the matching c's follow
/// in the tile (fact 1) or they lie past its end (fact 2; this holds when the a run crosses
/// the tile's end, since every smaller c was merged before it). pair_sum_locate then finds
/// that a's first partner in b. A count adds up the pairs of every target.
struct pair_sum_state {
  unsigned long long count;
  unsigned long long not_key;  // ~(target << 62 | i) of the first match known, 0: none
  unsigned long long i, j;     // the match (i into a, j into b), set by pair_sum_locate
  unsigned int found;
  int target;                  // its target, set by pair_sum_locate
};

/// clips[2k, 2k + 1] = {lo, hi}: b[lo, hi) are the b's with t_k - b representable. Warp k
/// searches b for target k.
template <class T>
__global__ void pair_sum_clip(const T* b, std::size_t nb, pair_sum_targets<T> targets, std::size_t* clips) {
  const int k = int(threadIdx.x / 32);
  if (blockIdx.x != 0 || k >= targets.count) return;
  const T bound = targets.bound[k];
  std::size_t lo = 0, hi = nb;
  if (targets.from_lower[k]) {  // keep b >= bound
    lo = warp_partition_point(0, nb, [&](std::size_t x) { return !(b[x] < bound); });
  } else {  // keep b <= bound
    hi = warp_partition_point(0, nb, [&](std::size_t x) { return bound < b[x]; });
  }
  if (threadIdx.x % 32 == 0) {
    clips[2 * k] = lo;
    clips[2 * k + 1] = hi;
  }
}

/// After a find: the first match's target and a index (from not_key), and j = the first b
/// with a[i] + b[j] == t_target (one warp; b ascending, and the partner exists).
template <class T>
__global__ void pair_sum_locate(const T* a, const T* b, std::size_t nb, pair_sum_targets<T> targets,
                                pair_sum_state* state) {
  if (blockIdx.x != 0 || threadIdx.x >= 32 || state->found == 0u) return;
  const unsigned long long key = ~state->not_key;
  const std::size_t i = static_cast<std::size_t>(key & pair_sum_index_mask);
  const int k = static_cast<int>(key >> pair_sum_target_shift);
  // t - a[i] equals a stored b, so it is representable: no overflow.
  const T need = static_cast<T>(targets.t[k] - a[i]);
  const std::size_t j = warp_partition_point(0, nb, [&](std::size_t x) { return !(b[x] < need); });
  if (threadIdx.x == 0) {
    state->i = i;
    state->j = j;
    state->target = k;
  }
}

/// merge_partition over A and C_k for every target, once the C's lengths are known on the
/// device: blocks [k * blocks_per_target, (k + 1) * blocks_per_target) partition target k
/// into splits[k * (tiles + 1), ...).
template <class T>
__global__ void __launch_bounds__(partition_threads)
    pair_sum_partition(const T* a, std::size_t na, const T* b, pair_sum_targets<T> targets, const std::size_t* clips,
                       std::size_t tile, std::size_t tiles, int group, unsigned blocks_per_target,
                       std::size_t* splits) {
  const unsigned k = blockIdx.x / blocks_per_target;
  const std::size_t warp = (std::size_t(blockIdx.x % blocks_per_target) * blockDim.x + threadIdx.x) / 32;
  const std::size_t hi = clips[2 * k + 1], nc = hi - clips[2 * k];
  warp_partition(warp, a, na, minus_reversed<T>{b, hi, targets.t[k]}, nc, tile, tiles, group,
                 splits + std::size_t(k) * (tiles + 1), less{});
}


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
        cnt += static_cast<unsigned long long>(a_run) * (run_end_at(minus_reversed<T>{b, hi, t}, c1, nc, v) - c1);
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

/// Which b's can take part in an exact a + b == t (a within T): b <= bound, or b >= bound
/// when from_lower (cpu_pair_sum_clip's rule, the search left to the device).
template <class T>
struct pair_sum_bound {
  bool from_lower;
  T bound;
};

template <class T>
pair_sum_bound<T> pair_sum_bound_for(T t) {
  using lim = std::numeric_limits<T>;
  if constexpr (std::is_unsigned_v<T>) {
    return {false, t};  // t - b must not wrap: b <= t
  } else if (t >= 0) {
    return {true, static_cast<T>(t - lim::max())};  // t - b <= max: b >= t - max
  } else {
    return {false, static_cast<T>(t - lim::min())};  // t - b >= min: b <= t - min
  }
}

/// pair_sum_targets for ts[0, count), count in [1, pair_sum_max_targets].
template <class T>
pair_sum_targets<T> pair_sum_targets_for(const T* ts, int count) {
  if (count < 1 || count > pair_sum_max_targets) {
    throw std::invalid_argument("ssum::cuda pair sums: 1 to 4 targets per launch");
  }
  pair_sum_targets<T> targets{};
  targets.count = count;
  for (int k = 0; k < count; ++k) {
    const pair_sum_bound<T> bound = pair_sum_bound_for(ts[k]);
    targets.t[k] = ts[k];
    targets.bound[k] = bound.bound;
    targets.from_lower[k] = bound.from_lower;
  }
  return targets;
}

/// The whole pair-sum walk for any tile shape (merge.cu picks pair_sum_tuning's; the
/// benchmarks try others), for ts[0, count) at once (count in [1, pair_sum_max_targets]):
/// clip b, partition A against each C, the tiles (Find or count), and for Find the partner of
/// the match. Returns the state once the stream has finished.
template <int Threads, int Items, int MinBlocks, bool Find, class T>
struct pair_sum_tiles_launcher {
  void operator()(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                  const pair_sum_targets<T>& targets, const std::size_t* clips, std::size_t tiles,
                  const std::size_t* splits, pair_sum_state* state) const {
    const std::size_t smem = std::size_t(Threads) * Items * sizeof(T);
    if (smem > 48 * 1024) {
      SSUM_CUDA_CHECK(cudaFuncSetAttribute(pair_sum_tiles<Threads, Items, MinBlocks, Find, T>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    }
    (void)nb;
    const unsigned grid = static_cast<unsigned>(tiles * std::size_t(targets.count));
    pair_sum_tiles<Threads, Items, MinBlocks, Find><<<grid, Threads, smem, stream>>>(d_a, na, d_b, targets, clips,
                                                                                     tiles, splits, state);
    SSUM_CUDA_CHECK_LAUNCH("pair_sum_tiles");
  }
};

/// The same with the tile kernel launched by `launch_tiles` (pair_sum_tiles_launcher's
/// arguments), for tile kernels of Threads x Items.
template <int Threads, int Items, bool Find, class T, class LaunchTiles>
pair_sum_state launch_pair_sums_with(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                     const T* ts, int count, const LaunchTiles& launch_tiles) {
  if (na > SIZE_MAX - nb) throw std::invalid_argument("ssum::cuda pair sums: na + nb overflows");
  const pair_sum_targets<T> targets = pair_sum_targets_for(ts, count);
  constexpr std::size_t tile = std::size_t(Threads) * Items;
  // C's length (after clipping) is known only on the device: size the grid for all of b.
  const std::size_t tiles = merge_tiles_for(na + nb, tile);
  const std::size_t grid = tiles * std::size_t(count);
  if (grid > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument("ssum::cuda pair sums: too many elements for one launch");
  }

  // Memory plan, 16-byte aligned pieces: the state, the clips, count x (tiles + 1) splits.
  const auto aligned = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
  const std::size_t state_bytes = aligned(sizeof(pair_sum_state));
  const std::size_t clip_bytes = aligned(2 * sizeof(std::size_t) * std::size_t(count));
  device_buffer scratch(state_bytes + clip_bytes + merge_scratch_bytes(tiles) * std::size_t(count), stream);
  pair_sum_state* state = scratch.as<pair_sum_state>();
  std::size_t* clips = scratch.as<std::size_t>(state_bytes);
  std::size_t* splits = scratch.as<std::size_t>(state_bytes + clip_bytes);
  SSUM_CUDA_CHECK(cudaMemsetAsync(state, 0, sizeof(pair_sum_state), stream));

  pair_sum_clip<<<1, 32 * count, 0, stream>>>(d_b, nb, targets, clips);
  SSUM_CUDA_CHECK_LAUNCH("pair_sum_clip");
  const int group = partition_group(tiles);
  const unsigned per_target = partition_blocks(tiles, group);
  pair_sum_partition<<<per_target * unsigned(count), partition_threads, 0, stream>>>(
      d_a, na, d_b, targets, clips, tile, tiles, group, per_target, splits);
  SSUM_CUDA_CHECK_LAUNCH("pair_sum_partition");
  launch_tiles(stream, d_a, na, d_b, nb, targets, clips, tiles, splits, state);
  if constexpr (Find) {
    pair_sum_locate<<<1, 32, 0, stream>>>(d_a, d_b, nb, targets, state);
    SSUM_CUDA_CHECK_LAUNCH("pair_sum_locate");
  }

  pair_sum_state host{};
  SSUM_CUDA_CHECK(cudaMemcpyAsync(&host, state, sizeof host, cudaMemcpyDeviceToHost, stream));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

template <int Threads, int Items, int MinBlocks, bool Find, class T>
pair_sum_state launch_pair_sums(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                const T* ts, int count) {
  return launch_pair_sums_with<Threads, Items, Find>(stream, d_a, na, d_b, nb, ts, count,
                                                     pair_sum_tiles_launcher<Threads, Items, MinBlocks, Find, T>{});
}

/// One target.
template <int Threads, int Items, int MinBlocks, bool Find, class T>
pair_sum_state launch_pair_sums(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                T t) {
  return launch_pair_sums<Threads, Items, MinBlocks, Find>(stream, d_a, na, d_b, nb, &t, 1);
}

}  // namespace ssum::cuda_detail

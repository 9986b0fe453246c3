#pragma once
// The merge-path partition on the GPU and the pieces of a tile that every merge-path kernel
// shares (the merges in src/cuda/merge, the pair-sum walk in src/cuda/pair_sum). Merge path
// (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple", 2012;
// Green, McColl, Bader, "GPU Merge Path", ICS 2012):
//
//   merge_partition  warps search where output tile k (diagonal k * Tile) starts in a, by
//                    ssum::merge_path_split's rule (warp_partition).
//   tile_between     a tile's a-range and b-range from its two splits, clamped so that any
//                    input, sorted or not, is read only inside its array.
//   tile_split       the same split inside a tile in shared memory, on 32-bit offsets.
//   b_reader         how a tile reads b: stored (load_at) or generated (plus_constant,
//                    minus_reversed), the load apart from the generator's arithmetic.
//
// Sizes, diagonals, tile indexes and global offsets are std::size_t throughout (more than
// 2^31 outputs); only offsets inside one tile are int.
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <stdexcept>

#include "cuda/common/check.cuh"
#include "ssum/functional.hpp"
#include "ssum/merge_path.hpp"

namespace ssum::cuda_detail {

/// b[j] read from memory: the plain merge's "generator".
template <class T>
struct load_at {
  const T* data;
  __host__ __device__ T operator()(std::size_t j) const { return data[j]; }
};

constexpr int partition_threads = 256;

// ---- the split inside a tile ------------------------------------------------------------

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
/// both kernels' PTX differ only by that arithmetic (measured on the H200).
template <class BAt>
struct b_reader;
// raw/finish as above; base/length/reversed: where b's values lie in memory, for the bulk
// copies (b(j) reads base[j], or base[length - 1 - j] when reversed).
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

}  // namespace ssum::cuda_detail

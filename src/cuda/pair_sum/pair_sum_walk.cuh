#pragma once
// The equal-pairs search a + b = t on the GPU (find_pair_sum, count_pair_sums,
// find_any_pair_sum): a walk along the merge of A with C = t - B reversed, partitioned and
// tiled by merge path (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging
// Made Simple", 2012; Green, McColl, Bader, "GPU Merge Path", ICS 2012; merge_partition.cuh).
// This header holds what the walk's two tile kernels (pair_sum_tiles.cuh, classic, and
// pair_sum_tiles_bulk.cuh, sm_90) share: why runs of equal values are counted exactly once,
// the targets of one launch, the reported state, and the small kernels around the tiles
// (clip, partition, locate).
#include <cuda_runtime.h>

#include <cstddef>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "cuda/merge/merge_partition.cuh"
#include "ssum/detail/cpu_merge.hpp"
#include "ssum/functional.hpp"

namespace ssum::cuda_detail {

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

/// At most this many targets per launch (more are searched in groups; see pair_sum.cu).
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

// ---- host side ----------------------------------------------------------------------------

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
  if constexpr (detail::pair_sum_unsigned<T>) {  // uint128 too, which std::is_unsigned leaves out
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

}  // namespace ssum::cuda_detail

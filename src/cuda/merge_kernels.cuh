#pragma once
// The kernels behind ssum::merge, merge_by_key, merge_generated, find_pair_sum and
// count_pair_sums on CUDA (see merge.cu for the dispatch). Merge path on the GPU (Odeh,
// Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple", 2012; Green,
// McColl, Bader, "GPU Merge Path", ICS 2012):
//
//   merge_partition  one thread per tile boundary: ssum::merge_path_split finds where output
//                    tile k (diagonal k * Tile, Tile = Threads x Items) starts in a.
//   merge_tiles      one block per tile: its a-range and b-range (b computed on the fly when
//                    generated) are loaded into shared memory side by side, coalesced; each
//                    thread finds its own diagonal (Items outputs) there with merge_path_split
//                    again and merges Items elements sequentially (ties take a: stable); the
//                    results are staged in shared memory and written out coalesced.
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
#include <stdexcept>
#include <type_traits>

#include "cuda/check.cuh"
#include "cuda/device_buffer.cuh"
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
// against 1244 us in the same session (docs/performance.md).
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

/// First k in [lo, hi) with !(s[k] < v) (std::lower_bound), s ascending.
template <class It, class T>
__device__ std::size_t lower_bound_at(It s, std::size_t lo, std::size_t hi, const T& v) {
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (s[mid] < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// First k in [lo, hi) with v < s[k] (std::upper_bound), s ascending.
template <class It, class T>
__device__ std::size_t upper_bound_at(It s, std::size_t lo, std::size_t hi, const T& v) {
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (v < s[mid]) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
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

/// splits[k] = where output tile k starts in a, for k in [0, tiles] (splits[tiles] = na).
template <class T, class BAt, class Compare>
__global__ void __launch_bounds__(partition_threads)
    merge_partition(const T* a, std::size_t na, BAt b, std::size_t nb, std::size_t tile, std::size_t tiles,
                    std::size_t* splits, Compare comp) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k > tiles) return;
  splits[k] = merge_path_split(a, na, b, nb, k * tile, comp);  // k * tile past the end: clamped
}

// ---- one tile -------------------------------------------------------------------------

/// Where a tile reads and writes: outputs [d0, d0 + count) made of a[a0, a0 + na_t) and
/// b[b0, b0 + count - na_t).
struct tile_range {
  std::size_t d0, a0, b0;
  int na_t, count;
};

template <int Tile>
__device__ tile_range tile_at(std::size_t tile_id, std::size_t total, const std::size_t* splits) {
  const std::size_t d0 = tile_id * Tile;
  const std::size_t d1 = total - d0 < std::size_t(Tile) ? total : d0 + Tile;
  const std::size_t a0 = splits[tile_id], a1 = splits[tile_id + 1];
  return {d0, a0, d0 - a0, static_cast<int>(a1 - a0), static_cast<int>(d1 - d0)};
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
  __device__ static const T* base(const load_at<T>& b) { return b.data; }
  __device__ static std::size_t length(const load_at<T>&, std::size_t nb) { return nb; }
};
template <class T>
struct b_reader<plus_constant<T>> {
  static constexpr bool reversed = false;
  __device__ static T raw(const plus_constant<T>& b, std::size_t j) { return b.data[j]; }
  __device__ static T finish(const plus_constant<T>& b, T x) { return static_cast<T>(x + b.c); }
  __device__ static const T* base(const plus_constant<T>& b) { return b.data; }
  __device__ static std::size_t length(const plus_constant<T>&, std::size_t nb) { return nb; }
};
template <class T>
struct b_reader<minus_reversed<T>> {
  static constexpr bool reversed = true;
  __device__ static T raw(const minus_reversed<T>& b, std::size_t j) { return b.data[b.n - 1 - j]; }
  __device__ static T finish(const minus_reversed<T>& b, T x) { return static_cast<T>(b.t - x); }
  __device__ static const T* base(const minus_reversed<T>& b) { return b.data; }
  __device__ static std::size_t length(const minus_reversed<T>& b, std::size_t) { return b.n; }
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

/// Output tile blockIdx.x of the stable merge of a and b. V = merge_no_values: keys only.
template <int Threads, int Items, int MinBlocks, bool VectorIo, class T, class V, class BAt, class Compare>
__global__ void __launch_bounds__(Threads, MinBlocks)
    merge_tiles(const T* a, const V* av, std::size_t na, BAt b, const V* bv, std::size_t nb,
                const std::size_t* splits, T* out, V* out_v, Compare comp) {
  constexpr int tile = Threads * Items;
  using smem_t = merge_smem<tile, T, V>;
  constexpr bool has_values = smem_t::has_values;
  static_assert(sizeof(smem_t) <= 48 * 1024, "merge tile too large for static shared memory");
  __shared__ smem_t sm;

  const tile_range r = tile_at<tile>(blockIdx.x, na + nb, splits);
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
  const auto sb = [sk, na_t](std::size_t j) { return sk[na_t + j]; };
  int i = static_cast<int>(merge_path_split(sk, std::size_t(na_t), sb, std::size_t(nb_t), std::size_t(diag), comp));
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

inline unsigned partition_blocks(std::size_t tiles) {
  return static_cast<unsigned>((tiles + 1 + partition_threads - 1) / partition_threads);
}

/// The whole merge for any launch shape (merge.cu picks merge_tuning's; the benchmarks try
/// others). Ordered on `stream`; the caller has checked the arguments.
template <int Threads, int Items, int MinBlocks = 1, bool VectorIo = false, class T, class V, class BAt, class Compare>
void launch_merge(cudaStream_t stream, const T* a, const V* av, std::size_t na, BAt b, const V* bv, std::size_t nb,
                  T* out, V* out_v, Compare comp) {
  if (na > SIZE_MAX - nb) throw std::invalid_argument("ssum::cuda merge: na + nb overflows");
  const std::size_t total = na + nb;
  if (total == 0) return;
  constexpr std::size_t tile = std::size_t(Threads) * Items;
  const std::size_t tiles = merge_tiles_for(total, tile);
  device_buffer scratch(merge_scratch_bytes(tiles), stream);
  std::size_t* splits = scratch.as<std::size_t>();
  merge_partition<<<partition_blocks(tiles), partition_threads, 0, stream>>>(a, na, b, nb, tile, tiles, splits, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_partition");
  merge_tiles<Threads, Items, MinBlocks, VectorIo><<<static_cast<unsigned>(tiles), Threads, 0, stream>>>(a, av, na, b, bv, nb, splits, out,
                                                                                     out_v, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_tiles");
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

/// What the pair-sum kernels report; zeroed before the launches. find_pair_sum reports the
/// match with the smallest a index, whatever order the tiles ran in (so the CUDA solver's
/// certificate is the same run to run): each tile records the first a of each matching run
/// it holds with atomicMax on ~i (zero: none yet) and skips itself only when a match before
/// its first a is known. The tile holding the first matching a always reports it: either the
/// matching c's follow in the tile (fact 1) or they lie past its end (fact 2; this holds when
/// the a run crosses the tile's end, since every smaller c was merged before it).
/// pair_sum_locate then finds that a's first partner in b.
struct pair_sum_state {
  unsigned long long count;
  unsigned long long not_i;  // ~(smallest a index with a match), 0 while none is known
  unsigned long long i, j;   // the match (i into a, j into b), set by pair_sum_locate
  unsigned int found;
};

/// clip = {lo, hi}: b[lo, hi) are the b's with t - b representable. The bound is computed on
/// the host (pair_sum_bound in merge.cu); one thread searches b.
template <class T>
__global__ void pair_sum_clip(const T* b, std::size_t nb, bool from_lower, T bound, std::size_t* clip) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  if (from_lower) {  // keep b >= bound
    clip[0] = lower_bound_at(b, 0, nb, bound);
    clip[1] = nb;
  } else {  // keep b <= bound
    clip[0] = 0;
    clip[1] = upper_bound_at(b, 0, nb, bound);
  }
}

/// After a find: i = the smallest a index with a match, j = the first b with a[i] + b[j] == t
/// (one thread; b ascending, and the partner exists).
template <class T>
__global__ void pair_sum_locate(const T* a, const T* b, std::size_t nb, T t, pair_sum_state* state) {
  if (blockIdx.x != 0 || threadIdx.x != 0 || state->found == 0u) return;
  const std::size_t i = static_cast<std::size_t>(~state->not_i);
  // t - a[i] equals a stored b, so it is representable: no overflow.
  const T need = static_cast<T>(t - a[i]);
  state->i = i;
  state->j = lower_bound_at(b, 0, nb, need);
}

/// merge_partition over A and C, once C's length is known on the device.
template <class T>
__global__ void __launch_bounds__(partition_threads)
    pair_sum_partition(const T* a, std::size_t na, const T* b, T t, const std::size_t* clip, std::size_t tile,
                       std::size_t tiles, std::size_t* splits) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k > tiles) return;
  const std::size_t hi = clip[1], nc = hi - clip[0];
  splits[k] = merge_path_split(a, na, minus_reversed<T>{b, hi, t}, nc, k * tile, less{});
}

/// Tile blockIdx.x of the walk over the merge of A and C: counts the pairs (Find = false),
/// or records one match and lets later tiles leave early (Find = true).
template <int Threads, int Items, bool Find, class T>
__global__ void __launch_bounds__(Threads)
    pair_sum_tiles(const T* a, std::size_t na, const T* b, T t, const std::size_t* clip, const std::size_t* splits,
                   pair_sum_state* state) {
  constexpr int tile = Threads * Items;
  constexpr int warps = Threads / 32;
  static_assert(Threads % 32 == 0, "whole warps");
  __shared__ T sm[tile];
  __shared__ unsigned long long warp_sums[warps];
  __shared__ int stop;

  const std::size_t hi = clip[1], nc = hi - clip[0], total = na + nc;
  const std::size_t tile_id = blockIdx.x;
  if (tile_id * tile >= total) return;  // the same for the whole block
  const tile_range r = tile_at<tile>(tile_id, total, splits);
  if constexpr (Find) {
    // One look per tile, shared so the whole block leaves together: leave when a match with
    // a smaller a index than any of this tile's is known (so the smallest one is always found).
    if (threadIdx.x == 0) {
      const unsigned long long not_i = *static_cast<volatile unsigned long long*>(&state->not_i);
      stop = not_i != 0 && ~not_i < r.a0;
    }
    __syncthreads();
    if (stop) return;
  }
  const minus_reversed<T> c{b, hi, t};
  load_tile<Threads, Items>(a, c, r, sm);
  __syncthreads();

  const T* sa = sm;
  const T* sc = sm + r.na_t;
  const int na_t = r.na_t, nc_t = r.count - r.na_t;
  const int diag = min(int(threadIdx.x) * Items, r.count);
  const int n_out = min(Items, r.count - diag);
  unsigned long long cnt = 0;
  bool hit = false;
  std::size_t hit_i = 0;  // into a
  if (n_out > 0) {
    const auto sc_at = [sc](std::size_t j) { return sc[j]; };
    int i = static_cast<int>(merge_path_split(sa, std::size_t(na_t), sc_at, std::size_t(nc_t), std::size_t(diag), less{}));
    int j = diag - i;
    // last = a[i - 1] (the last a taken) when i > 0; rs = the start of its run in the tile.
    T last = i > 0 ? sa[i - 1] : T{};
    int rs = i > 0 ? static_cast<int>(lower_bound_at(sa, 0, std::size_t(i), last)) : 0;
    T x = i < na_t ? sa[i] : T{}, y = j < nc_t ? sc[j] : T{};
    // Branch-free, as merge_tiles: one select per value and one shared load per step. On the
    // H200 it measured within noise of the walk with branches (the solver's search at n = 56:
    // 5.1 against 5.4 ms). Steps past n_out change only what is not used afterwards
    // (k < n_out gates the count and the hit), and a head past its input is never compared
    // (the j < nc_t / i >= na_t tests decide first).
    const int last_index = r.count - 1;  // every shared read stays inside the tile
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool take_c = j < nc_t && (i >= na_t || y < x);
      const bool match = k < n_out && take_c && i > 0 && y == last;  // fact (1): a[rs, i) all equal y
      if constexpr (Find) {
        hit_i = match && !hit ? r.a0 + std::size_t(rs) : hit_i;  // the run's first a in the tile
        hit = hit || match;
      } else {
        cnt += match ? static_cast<unsigned long long>(i - rs) : 0ull;
      }
      rs = !take_c && (i == 0 || last != x) ? i : rs;  // a new run of a starts
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
  if (threadIdx.x == 0 && na_t > 0 && c1 < nc && !hit) {
    const T v = c(c1);
    if (sa[na_t - 1] == v) {
      if constexpr (Find) {
        hit = true;
        hit_i = r.a0 + lower_bound_at(sa, 0, std::size_t(na_t), v);  // the run's first a in the tile
      } else {
        const std::size_t a_run = std::size_t(na_t) - lower_bound_at(sa, 0, std::size_t(na_t), v);
        cnt += static_cast<unsigned long long>(a_run) * (run_end_at(c, c1, nc, v) - c1);
      }
    }
  }

  if constexpr (Find) {
    if (hit) {  // pair_sum_locate finds the partner of the smallest i
      atomicMax(&state->not_i, ~static_cast<unsigned long long>(hit_i));
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

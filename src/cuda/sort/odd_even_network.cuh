#pragma once
// Batcher's odd-even merge sort network (K. E. Batcher 1968, "Sorting networks and their
// applications") on CUDA: the device-side pieces; src/cuda/sort/odd_even_merge_sort.cu launches them.
//
// The network on N = 2^m positions runs phases (p, k) in order, p = 1, 2, 4, ..., N/2 (a
// "level": sorted runs of p become sorted runs of 2p) and k = p, p/2, ..., 1:
//   phase (p, p):    x with x + p, for every x in the lower half of its aligned 2p-block;
//   phase (p, k < p): x with x + k, for every x whose bit k is set, unless x + k leaves x's
//                    aligned 2p-block.
// Each comparator puts the key that comes first under comp at the lower position and exchanges
// only when comp(hi, lo), so the network is the host's cpu_odd_even_merge_sort comparator for
// comparator: the results (values of equal keys included) are the same bits on both backends.
// Positions >= n hold +infinity: a comparator whose upper end is >= n never exchanges. Global
// passes skip it; shared-memory and register stages load a last_key sentinel there instead,
// which never moves (comp(sentinel, x) is false for every x, and a sentinel only ever sits
// above the real keys, since lo < hi).
//
// Locality. Levels p < tile connect positions inside one aligned tile only, so tiles sort on
// their own. Inside a level, unlike the bitonic network, the phases k < p are not closed on
// aligned blocks: phase k joins the upper half of each 2k-block to the lower half of the next,
// and phases k, k/2, ... chained reach everywhere. Two things are closed, and used here:
//  * a column: the positions of one 2p-block that are congruent mod s = 2p / R. Under the
//    first log2(R) phases of level p (k = p ... s) it is closed, and those phases are, in the
//    column's own index m (position = block + r + m s), exactly level R/2 of the R-element
//    network: Batcher's merge of R elements. One thread holds a column in registers.
//  * a cone: after phases j = K, K/2, ..., 1 a position depends only on positions less than
//    2K away (K + K/2 + ... + 1 = 2K - 1). A block computes its tile of outputs from a window
//    with 2K more positions each side, the neighbours recomputing the overlap.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/sort/odd_even_block.cuh"  // last_key, has_values

namespace ssum::cuda_detail {

// ---- index arithmetic (host and device, so that a host model can check the schedule) -----

/// Whether (lo, lo + k) is a comparator of phase (p, k); p, k powers of two, k <= p.
__host__ __device__ constexpr bool oem_is_comparator(std::size_t lo, std::size_t p, std::size_t k) {
  return k == p ? (lo & p) == 0 : ((lo & k) != 0 && (lo & (2 * p - 1)) + k < 2 * p);
}

/// The c-th position, ascending, whose bit k is clear (unshifted: phase (p, p)) or set
/// (shifted: k < p): the c-th candidate lower end of a phase.
__host__ __device__ constexpr std::size_t oem_candidate(std::size_t c, std::size_t k, bool shifted) {
  const std::size_t clear = 2 * c - (c & (k - 1));
  return shifted ? clear + k : clear;
}

__host__ __device__ constexpr int oem_log2(std::size_t x) { return x <= 1 ? 0 : 1 + oem_log2(x / 2); }

// ---- registers -------------------------------------------------------------------------

/// N keys (and values) of one thread; indexed with constants only, so they stay in registers.
template <class Key, class Value, int N>
struct oem_regs {
  Key k[N];
  Value v[has_values<Value> ? N : 1];
};

/// Compare-exchange of registers i < j, branch-free; returns whether they were exchanged.
template <class Key, class Value, int N, class Compare>
__device__ __forceinline__ bool oem_cx(oem_regs<Key, Value, N>& r, int i, int j, Compare comp) {
  const Key a = r.k[i], b = r.k[j];
  const bool s = comp(b, a);
  r.k[i] = s ? b : a;
  r.k[j] = s ? a : b;
  if constexpr (has_values<Value>) {
    const Value va = r.v[i], vb = r.v[j];
    r.v[i] = s ? vb : va;
    r.v[j] = s ? va : vb;
  }
  return s;
}

/// Phase with register stride D of a merge of rows registers, then the smaller strides; D and
/// every register index are compile-time constants, so nothing leaves the registers.
template <int D, int N, class Key, class Value, class Compare>
__device__ __forceinline__ void oem_merge_step(oem_regs<Key, Value, N>& r, int rows, unsigned& moved, Compare comp) {
  const int half = rows / 2;
  if (D <= half) {
#pragma unroll
    for (int m = 0; m + D < N; ++m) {
      const bool is = m + D < rows && (D == half ? (m & D) == 0 : (m & D) != 0);
      if (is && oem_cx(r, m, m + D, comp)) moved |= (1u << m) | (1u << (m + D));
    }
  }
  if constexpr (D > 1) oem_merge_step<D / 2>(r, rows, moved, comp);
}

/// Level rows/2 of the rows-element network (the merge of two sorted halves) on registers
/// [0, rows), rows = 2^log_rows <= N (a compile-time log_rows folds the predicates away).
/// Returns a mask of the registers that took part in an exchange (unchanged ones need not be
/// stored).
template <int N, class Key, class Value, class Compare>
__device__ __forceinline__ unsigned oem_merge_registers(oem_regs<Key, Value, N>& r, int log_rows, Compare comp) {
  static_assert(N >= 2 && N <= 32 && (N & (N - 1)) == 0, "a power of two, at most 32");
  unsigned moved = 0;
  oem_merge_step<N / 2>(r, 1 << log_rows, moved, comp);
  return moved;
}

/// Phases (P, K), (P, K/2), ..., (P, 1) of the network on N registers.
template <int P, int K, int N, class Key, class Value, class Compare>
__device__ __forceinline__ void oem_level_registers(oem_regs<Key, Value, N>& r, Compare comp) {
#pragma unroll
  for (int m = 0; m + K < N; ++m) {
    if (oem_is_comparator(m, P, K)) oem_cx(r, m, m + K, comp);
  }
  if constexpr (K > 1) oem_level_registers<P, K / 2>(r, comp);
}

/// Levels P, 2P, ..., N/2 of the network on N registers (P = 1: sorts them).
template <int P, int N, class Key, class Value, class Compare>
__device__ __forceinline__ void oem_sort_registers(oem_regs<Key, Value, N>& r, Compare comp) {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "a power of two");
  if constexpr (P < N) {
    oem_level_registers<P, P>(r, comp);
    oem_sort_registers<2 * P>(r, comp);
  }
}

// ---- shared memory ---------------------------------------------------------------------

/// Compare-exchange of shared-memory slots a and b (a holds the lower position); stores only
/// when they are exchanged.
template <class Key, class Value, class Compare>
__device__ __forceinline__ void oem_cx_shared(Key* sk, Value* sv, int a, int b, Compare comp) {
  const Key x = sk[a], y = sk[b];
  if (comp(y, x)) {
    sk[a] = y;
    sk[b] = x;
    if constexpr (has_values<Value>) {
      const Value vx = sv[a];
      sv[a] = sv[b];
      sv[b] = vx;
    }
  }
}

/// Keys per 16-byte shared-memory access: the width of the vector compare-exchanges (wider
/// ones would put neighbouring threads 32 bytes apart, in conflicting banks).
template <class Key>
inline constexpr int oem_vec = 16 / sizeof(Key) < 4 ? int(16 / sizeof(Key)) : 4;

/// V consecutive keys in shared memory, moved with one 16-byte (or narrower) access.
template <class T, int V>
struct alignas(V * sizeof(T) < 16 ? V * sizeof(T) : 16) oem_pack {
  T x[V];
};

/// V compare-exchanges side by side: slots a + i and b + i, i < V (a, b aligned to the
/// pack's alignment). Stores only when something is exchanged.
template <int V, class Key, class Value, class Compare>
__device__ __forceinline__ void oem_cx_shared_vec(Key* sk, Value* sv, int a, int b, Compare comp) {
  if constexpr (V == 1) {
    oem_cx_shared(sk, sv, a, b, comp);
  } else {
    using KP = oem_pack<Key, V>;
    KP x = *reinterpret_cast<const KP*>(sk + a), y = *reinterpret_cast<const KP*>(sk + b);
    bool s[V];
    bool any = false;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      s[i] = comp(y.x[i], x.x[i]);
      any |= s[i];
    }
    if (!any) return;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const Key l = s[i] ? y.x[i] : x.x[i], h = s[i] ? x.x[i] : y.x[i];
      x.x[i] = l;
      y.x[i] = h;
    }
    *reinterpret_cast<KP*>(sk + a) = x;
    *reinterpret_cast<KP*>(sk + b) = y;
    if constexpr (has_values<Value>) {
      using VP = oem_pack<Value, V>;
      VP u = *reinterpret_cast<const VP*>(sv + a), w = *reinterpret_cast<const VP*>(sv + b);
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const Value l = s[i] ? w.x[i] : u.x[i], h = s[i] ? u.x[i] : w.x[i];
        u.x[i] = l;
        w.x[i] = h;
      }
      *reinterpret_cast<VP*>(sv + a) = u;
      *reinterpret_cast<VP*>(sv + b) = w;
    }
  }
}

/// The network's levels p < tile on one tile in shared memory, tile = Threads * Items.
/// Slot of position i: at(i), 4 spare slots after every 128 bytes of keys (so that threads
/// reading Items consecutive keys, or columns of small stride, fall into different banks; runs
/// of 4 aligned positions stay contiguous and aligned, keys and values, for vector accesses).
template <int Threads, int Items, class Key, class Value>
struct block_oem_sort {
  static_assert(Items >= 4 && Items <= 32 && (Items & (Items - 1)) == 0, "Items: a power of two in [4, 32]");
  static_assert((Threads & (Threads - 1)) == 0 && Threads >= 32, "Threads: a power of two, at least a warp");
  static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "4- or 8-byte keys");
  static constexpr int tile = Threads * Items;
  static constexpr int pad_every = 128 / sizeof(Key), pad = 4;
  static constexpr int slots = tile + tile / pad_every * pad;
  /// Dynamic shared memory: keys, then values.
  static constexpr std::size_t smem_bytes = slots * sizeof(Key) + (has_values<Value> ? slots * sizeof(Value) : 0);

  __device__ static int at(int i) { return i + i / pad_every * pad; }

  /// Sorts the tile held in sk/sv (positions [0, tile), padded with sentinels). Every thread of
  /// the block calls it; it starts and ends with a __syncthreads.
  template <class Compare>
  __device__ static void sort(Key* sk, Value* sv, Compare comp) {
    const int t = threadIdx.x;
    oem_regs<Key, Value, Items> r;
    __syncthreads();
    // Levels p < Items: each thread's Items consecutive positions, in registers.
#pragma unroll
    for (int m = 0; m < Items; m += 4) {
      const auto kp = *reinterpret_cast<const oem_pack<Key, 4>*>(sk + at(t * Items + m));
#pragma unroll
      for (int i = 0; i < 4; ++i) r.k[m + i] = kp.x[i];
      if constexpr (has_values<Value>) {
        const auto vp = *reinterpret_cast<const oem_pack<Value, 4>*>(sv + at(t * Items + m));
#pragma unroll
        for (int i = 0; i < 4; ++i) r.v[m + i] = vp.x[i];
      }
    }
    oem_sort_registers<1>(r, comp);
#pragma unroll
    for (int m = 0; m < Items; m += 4) {
      oem_pack<Key, 4> kp;
#pragma unroll
      for (int i = 0; i < 4; ++i) kp.x[i] = r.k[m + i];
      *reinterpret_cast<oem_pack<Key, 4>*>(sk + at(t * Items + m)) = kp;
      if constexpr (has_values<Value>) {
        oem_pack<Value, 4> vp;
#pragma unroll
        for (int i = 0; i < 4; ++i) vp.x[i] = r.v[m + i];
        *reinterpret_cast<oem_pack<Value, 4>*>(sv + at(t * Items + m)) = vp;
      }
    }
    __syncthreads();
    constexpr int log_items = oem_log2(Items);
    for (int p = Items; p < tile; p *= 2) {
      // Phases p ... s of level p: one column of Items positions per thread (tile / Items =
      // Threads columns), stride s.
      const int s = 2 * p / Items;
      {
        const int base = (t / s) * 2 * p + t % s;
#pragma unroll
        for (int m = 0; m < Items; ++m) {
          r.k[m] = sk[at(base + m * s)];
          if constexpr (has_values<Value>) r.v[m] = sv[at(base + m * s)];
        }
        const unsigned moved = oem_merge_registers(r, log_items, comp);
#pragma unroll
        for (int m = 0; m < Items; ++m) {
          if (moved & (1u << m)) {
            sk[at(base + m * s)] = r.k[m];
            if constexpr (has_values<Value>) sv[at(base + m * s)] = r.v[m];
          }
        }
      }
      __syncthreads();
      // Phases s/2 ... 1: shifted, tile/2 candidate comparators; runs of V (or 2) consecutive
      // ones side by side while k allows.
      constexpr int V = oem_vec<Key>;
      for (int k = s / 2; k >= 1; k /= 2) {
        if (k >= V) shifted_round<V>(sk, sv, p, k, comp);
        else if (k >= 2) shifted_round<2>(sk, sv, p, k, comp);
        else shifted_round<1>(sk, sv, p, k, comp);
        __syncthreads();
      }
    }
  }

 private:
  // Candidates c, c + 1, ..., c + V - 1 (c a multiple of V <= k) are V consecutive positions
  // of one run of k, all in or all out of their 2p-block.
  template <int V, class Compare>
  __device__ static void shifted_round(Key* sk, Value* sv, int p, int k, Compare comp) {
#pragma unroll
    for (int i = 0; i < Items / 2 / V; ++i) {
      const int c = (threadIdx.x + i * Threads) * V;
      const int lo = 2 * c - (c & (k - 1)) + k;
      if ((lo & (2 * p - 1)) + k < 2 * p) oem_cx_shared_vec<V>(sk, sv, at(lo), at(lo + k), comp);
    }
  }
};

/// Index of the first shifted candidate (position with bit d set, see oem_candidate) at or
/// after a, i.e. the number of them below a; a >= 0, d = 2^log_d.
__host__ __device__ constexpr int oem_candidates_below(int a, int log_d) {
  const int d = 1 << log_d;
  return ((a >> (log_d + 1)) << log_d) + ((a & d) ? (a & (d - 1)) : 0);
}

/// The straddle test of a window, in 32 bits: row j of a window (global row wm_lo + j) and
/// row j + d lie in one aligned block of 2P rows iff ((j + offset) & mask) + d <= mask.
struct oem_straddle {
  unsigned offset, mask;
  /// wm_lo: the window's first global row; two_p: 2P rows (a power of two); window < 2^20 rows.
  __host__ __device__ static oem_straddle of(std::size_t wm_lo, std::size_t two_p) {
    constexpr std::size_t big = std::size_t(1) << 30;
    const std::size_t into = wm_lo & (two_p - 1);
    if (two_p <= big) return {static_cast<unsigned>(into), static_cast<unsigned>(two_p - 1)};
    // Blocks longer than 2^30 rows: at most one boundary inside the window, moved to 2^30.
    const std::size_t to_next = two_p - into;
    return {to_next < big ? static_cast<unsigned>(big - to_next) : 0u, static_cast<unsigned>(big - 1)};
  }
  __host__ __device__ bool same_block(int j, int d) const { return ((unsigned(j) + offset) & mask) + unsigned(d) <= mask; }
};

/// One phase of the cone for W = 1, V candidates side by side (V <= d): the V consecutive
/// candidates from a multiple of V are V consecutive positions of one run of d. Whole groups
/// of V from c0 rounded down add comparators just outside the cone (inside the window),
/// whose results are never used.
template <int Threads, int V, class Key, class Value, class Compare>
__device__ __forceinline__ void cone_runs(Key* sk, Value* sv, int rows, int c0, int c1, int log_d, oem_straddle straddle,
                                          Compare comp) {
  const int d = 1 << log_d;
  for (int c = (c0 & ~(V - 1)) + V * int(threadIdx.x); c < c1; c += V * Threads) {
    const int lo = 2 * c - (c & (d - 1)) + d, hi = lo + d;
    if (!straddle.same_block(lo, d)) continue;
    if (hi + V <= rows) {
      oem_cx_shared_vec<V>(sk, sv, lo, hi, comp);
    } else {  // the window's end: one by one
      for (int i = 0; i < V && hi + i < rows; ++i) oem_cx_shared(sk, sv, lo + i, hi + i, comp);
    }
  }
}

/// The cone: shifted phases with row strides d = 2^log_top, ..., 2, 1 of one level on a window
/// of `rows` rows by W columns in shared memory (slot row * W + column), computing rows
/// [out_lo, out_hi) of it exactly. A row is a global position (W = 1) or, for phases whose
/// strides are all multiples of S, the positions r + m S of W consecutive residues r (column
/// c = residue r0 + c, global row m): phase k = d S joins (m, m + d) in every column.
/// The window's first global row must be a multiple of 2^(log_top + 1) (then a row's bit d is
/// that of its window index) or 0. Rows cut off by the window's ends are either beyond the data
/// (+infinity, never exchanged) or at least 2^(log_top + 1) - 1 rows from the outputs: before
/// phase d, rows [out_lo - (2d-1), out_hi + 2d - 1) hold correct keys; phase d makes
/// [out_lo - (d-1), out_hi + d - 1) correct, and only the comparators touching those run.
/// Every thread of the block calls it; it starts and ends with a __syncthreads.
template <int Threads, int W, class Key, class Value, class Compare>
__device__ void block_oem_cone(Key* sk, Value* sv, int rows, int out_lo, int out_hi, oem_straddle straddle,
                               int log_top, Compare comp) {
  static_assert(W == 1 || (W % 4 == 0 && Threads % (W / 4) == 0), "W: 1 or a multiple of 4");
  __syncthreads();
  for (int log_d = log_top; log_d >= 0; --log_d) {
    const int d = 1 << log_d;
    const int a = out_lo - (2 * d - 1) > 0 ? out_lo - (2 * d - 1) : 0;  // lower ends [a, b)
    const int b = out_hi + d - 1 < rows ? out_hi + d - 1 : rows;
    const int c0 = oem_candidates_below(a, log_d), c1 = oem_candidates_below(b, log_d);
    constexpr int V = oem_vec<Key>;
    if constexpr (W > 1) {
      // A work item: one row pair, V adjacent columns.
      constexpr int groups = W / V;
      for (int i = threadIdx.x; i < (c1 - c0) * groups; i += Threads) {
        const int c = c0 + i / groups, column = i % groups * V;
        const int lo = 2 * c - (c & (d - 1)) + d, hi = lo + d;
        if (hi < rows && straddle.same_block(lo, d)) {
          oem_cx_shared_vec<V>(sk, sv, lo * W + column, hi * W + column, comp);
        }
      }
    } else if (d >= V) {
      cone_runs<Threads, V>(sk, sv, rows, c0, c1, log_d, straddle, comp);
    } else if (d >= 2) {
      cone_runs<Threads, 2>(sk, sv, rows, c0, c1, log_d, straddle, comp);
    } else {
      cone_runs<Threads, 1>(sk, sv, rows, c0, c1, log_d, straddle, comp);
    }
    __syncthreads();
  }
}

}  // namespace ssum::cuda_detail

// ssum::odd_even_merge_sort on CUDA: Batcher's odd-even merge sort network over the whole
// array (odd_even_network.cuh explains the network and the closed shapes used here).
//
// Schedule for n keys, tile T = 4096, tail stride H = T/2:
//   1. sort_tiles: every aligned tile of T positions sorted in shared memory (levels p < T);
//      one launch.
//   2. for each level p = T, 2T, ... < n, its phases k = p, p/2, ..., 1:
//      a. merge_columns: the first (up to 4) phases k = p ... s, s >= T, in registers: a thread
//         holds a column of 2p/s positions, coalesced across threads; in place; one launch;
//      b. the phases s/2 ... T, when there are any (levels p >= 16T): one alone in place
//         (merge_phase); more in cone passes of up to 6 phases each (merge_cone<32>): a block
//         holds 32 residues mod S (S = the pass's smallest stride) by 128 rows of outputs plus
//         2D rows each side (D = its largest stride / S);
//      c. merge_cone<1>: the phases H ... 1 in shared memory, a block computing T outputs from
//         T + 4H positions around them; one launch.
//      A cone pass reads one buffer and writes the other (its window overlaps its neighbours'
//      outputs), so the data alternate between the keys and a scratch copy; sort_tiles writes
//      to the scratch copy when the number of cone passes is odd, so that the last one lands
//      in the keys.
//   For 2^24 keys: 1 + 12 (columns) + 10 (middle) + 12 (tails) = 35 launches.
// Positions >= n are +infinity: nothing at or beyond n is read or written in global memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/sort/odd_even_network.cuh"
#include "ssum/sort.hpp"

namespace ssum::cuda_detail {
namespace {

// The launch shapes and the pass structure of the odd-even merge sort, in one place.
struct oem_policy {
  static constexpr int tile_threads = 512;
  static constexpr int tile_items = 8;
  static constexpr std::size_t tile = std::size_t(tile_threads) * tile_items;  // T
  static constexpr int small_threads = 128;  // n <= small_tile: one block of 128 x 8
  static constexpr std::size_t small_tile = std::size_t(small_threads) * tile_items;
  static constexpr int column_threads = 256;
  static constexpr int log_column_rows = 4;  // at most 4 phases (16 rows) per column pass
  static constexpr int phase_threads = 256;
  static constexpr int phase_items = 4;  // comparators per thread of merge_phase
  static constexpr int cone_threads = 512;
  static constexpr int cone_outputs = 4096;  // per block: rows x W
  static constexpr int log_tail_stride = 11;  // H = T / 2: the tail's phases 2048 ... 1
  static constexpr int mid_width = 32;        // W of the middle cone passes
  static constexpr int max_mid_phases = 6;    // D <= 32 rows
};
static_assert(std::size_t(2) << oem_policy::log_tail_stride == oem_policy::tile, "the tail takes the phases below T");
// block_oem_cone needs windows that start at a multiple of 2D rows: M a multiple of 2D.
static_assert(oem_policy::cone_outputs % (2 << oem_policy::log_tail_stride) == 0, "tail rows per block");
static_assert((oem_policy::cone_outputs / oem_policy::mid_width) % (2 << (oem_policy::max_mid_phases - 1)) == 0,
              "middle rows per block");
static_assert(oem_policy::mid_width <= oem_policy::tile, "middle residues: S >= T >= W");

// A cone pass's window: its outputs plus 2D rows each side, D = 2^log_top.
template <int W>
constexpr int cone_rows(int log_top) {
  return oem_policy::cone_outputs / W + (4 << log_top);
}
template <int W, class Key, class Value>
std::size_t cone_smem_bytes(int log_top) {
  return std::size_t(W) * cone_rows<W>(log_top) * (sizeof(Key) + (has_values<Value> ? sizeof(Value) : 0));
}

int log2_exact(std::size_t x) {
  int l = 0;
  while ((std::size_t(1) << l) < x) ++l;
  return l;
}

unsigned grid_of(std::size_t blocks, const char* what) {
  if (blocks == 0 || blocks > 0x7fffffffu) {
    throw std::invalid_argument(std::string("ssum::cuda odd_even_merge_sort: ") + what + ": too many keys");
  }
  return static_cast<unsigned>(blocks);
}

// 1. Levels p < tile on every tile; in and out may be the same buffers.
template <int Threads, class Key, class Value, class Compare>
__global__ void __launch_bounds__(Threads)
    sort_tiles(const Key* in_keys, const Value* in_values, Key* out_keys, Value* out_values, std::size_t n, Compare comp) {
  using block = block_oem_sort<Threads, oem_policy::tile_items, Key, Value>;
  extern __shared__ __align__(16) unsigned char raw[];
  Key* sk = reinterpret_cast<Key*>(raw);
  Value* sv = reinterpret_cast<Value*>(sk + block::slots);
  const std::size_t base = blockIdx.x * std::size_t(block::tile);
  const int count = static_cast<int>(std::min<std::size_t>(block::tile, n - base));
  for (int i = threadIdx.x; i < block::tile; i += Threads) {
    sk[block::at(i)] = i < count ? in_keys[base + i] : last_key<Key, Compare>();
    if constexpr (has_values<Value>) sv[block::at(i)] = i < count ? in_values[base + i] : Value{};
  }
  block::sort(sk, sv, comp);
  for (int i = threadIdx.x; i < count; i += Threads) {
    out_keys[base + i] = sk[block::at(i)];
    if constexpr (has_values<Value>) out_values[base + i] = sv[block::at(i)];
  }
}

// 2a. Phases p ... s of level p, s = 2p >> LogRows: thread = column (2p-block b, residue r),
// positions b 2p + r + m s, m < 2^LogRows.
template <int LogRows, class Key, class Value, class Compare>
__global__ void __launch_bounds__(oem_policy::column_threads)
    merge_columns(Key* keys, Value* values, std::size_t n, int log_p, Compare comp) {
  constexpr int R = 1 << LogRows;
  const int log_s = log_p + 1 - LogRows;
  const std::size_t s = std::size_t(1) << log_s;
  const std::size_t col = blockIdx.x * std::size_t(oem_policy::column_threads) + threadIdx.x;
  const std::size_t base = ((col >> log_s) << (log_p + 1)) + (col & (s - 1));
  if (base >= n) return;
  oem_regs<Key, Value, R> r;
#pragma unroll
  for (int m = 0; m < R; ++m) {
    const std::size_t at = base + m * s;
    r.k[m] = at < n ? keys[at] : last_key<Key, Compare>();
    if constexpr (has_values<Value>) r.v[m] = at < n ? values[at] : Value{};
  }
  const unsigned moved = oem_merge_registers(r, LogRows, comp);
#pragma unroll
  for (int m = 0; m < R; ++m) {
    // A sentinel never moves, so a moved register is below n.
    if (moved & (1u << m)) {
      keys[base + m * s] = r.k[m];
      if constexpr (has_values<Value>) values[base + m * s] = r.v[m];
    }
  }
}

template <int LogRows, class Key, class Value, class Compare>
void launch_columns(cudaStream_t stream, Key* keys, Value* values, std::size_t n, int log_p, int log_rows, Compare comp) {
  if (log_rows != LogRows) {
    if constexpr (LogRows > 1) launch_columns<LogRows - 1>(stream, keys, values, n, log_p, log_rows, comp);
    return;
  }
  const int log_s = log_p + 1 - LogRows;
  const std::size_t columns = ((n + (std::size_t(2) << log_p) - 1) >> (log_p + 1)) << log_s;
  merge_columns<LogRows, Key, Value, Compare>
      <<<grid_of((columns + oem_policy::column_threads - 1) / oem_policy::column_threads, "merge_columns"),
         oem_policy::column_threads, 0, stream>>>(keys, values, n, log_p, comp);
  SSUM_CUDA_CHECK_LAUNCH("odd_even_merge_sort merge_columns");
}

// 2b. One shifted phase (p, k), k < p: candidate c has lower end oem_candidate(c, k, true).
template <class Key, class Value, class Compare>
__global__ void __launch_bounds__(oem_policy::phase_threads)
    merge_phase(Key* keys, Value* values, std::size_t n, int log_p, int log_k, Compare comp) {
  constexpr int E = oem_policy::phase_items;
  const std::size_t k = std::size_t(1) << log_k, block_mask = (std::size_t(2) << log_p) - 1;
  const std::size_t first = blockIdx.x * std::size_t(oem_policy::phase_threads * E) + threadIdx.x;
  std::size_t lo[E];
  bool live[E];
  Key a[E], b[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {  // all loads first: E independent pairs in flight
    lo[e] = oem_candidate(first + e * std::size_t(oem_policy::phase_threads), k, true);
    live[e] = lo[e] + k < n && (lo[e] & block_mask) + k <= block_mask;
    if (live[e]) {
      a[e] = keys[lo[e]];
      b[e] = keys[lo[e] + k];
    }
  }
#pragma unroll
  for (int e = 0; e < E; ++e) {
    if (live[e] && comp(b[e], a[e])) {
      keys[lo[e]] = b[e];
      keys[lo[e] + k] = a[e];
      if constexpr (has_values<Value>) {
        const Value va = values[lo[e]], vb = values[lo[e] + k];
        values[lo[e]] = vb;
        values[lo[e] + k] = va;
      }
    }
  }
}

// 2b/2c. Phases with strides D S, D S / 2, ..., S of level p (D = 2^log_top, S = 2^log_s, all
// below p), from one buffer into the other. Rows m = positions r + m S; block = (residue group
// of W, row block of M rows), row blocks fastest so that neighbours, which read each other's
// outputs as their halo, run together. Slots of positions >= n hold sentinels.
template <int W, class Key, class Value, class Compare>
__global__ void __launch_bounds__(oem_policy::cone_threads)
    merge_cone(const Key* in_keys, const Value* in_values, Key* out_keys, Value* out_values, std::size_t n, int log_p,
               int log_s, int log_top, Compare comp) {
  constexpr int M = oem_policy::cone_outputs / W;
  extern __shared__ __align__(16) unsigned char raw[];
  Key* sk = reinterpret_cast<Key*>(raw);
  Value* sv = reinterpret_cast<Value*>(sk + W * cone_rows<W>(log_top));
  const std::size_t total_rows = (n + (std::size_t(1) << log_s) - 1) >> log_s;
  const std::size_t row_blocks = (total_rows + M - 1) / M;
  const std::size_t r0 = (blockIdx.x / row_blocks) * W;
  const std::size_t m0 = (blockIdx.x % row_blocks) * M;
  const std::size_t margin = std::size_t(2) << log_top;
  const std::size_t wm_lo = m0 > margin ? m0 - margin : 0;
  const std::size_t wm_hi = std::min(total_rows, m0 + M + margin);
  const int rows = static_cast<int>(wm_hi - wm_lo);
  auto position = [&](int slot) { return r0 + slot % W + ((wm_lo + slot / W) << log_s); };
  // The window, U loads in flight per thread (a plain loop would wait for each in turn).
  constexpr int U = 8;
  for (int first = threadIdx.x; first < rows * W; first += U * oem_policy::cone_threads) {
    Key k[U];
    Value v[has_values<Value> ? U : 1];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = first + u * oem_policy::cone_threads;
      const std::size_t x = position(i);
      const bool real = i < rows * W && x < n;
      k[u] = real ? in_keys[x] : last_key<Key, Compare>();
      if constexpr (has_values<Value>) v[u] = real ? in_values[x] : Value{};
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = first + u * oem_policy::cone_threads;
      if (i < rows * W) {
        sk[i] = k[u];
        if constexpr (has_values<Value>) sv[i] = v[u];
      }
    }
  }
  const oem_straddle straddle = oem_straddle::of(wm_lo, std::size_t(2) << (log_p - log_s));
  const int out_lo = static_cast<int>(m0 - wm_lo);
  const int out_hi = static_cast<int>(std::min(total_rows, m0 + M) - wm_lo);
  block_oem_cone<oem_policy::cone_threads, W>(sk, sv, rows, out_lo, out_hi, straddle, log_top, comp);
  for (int i = out_lo * W + threadIdx.x; i < out_hi * W; i += oem_policy::cone_threads) {
    const std::size_t x = position(i);
    if (x < n) {
      out_keys[x] = sk[i];
      if constexpr (has_values<Value>) out_values[x] = sv[i];
    }
  }
}

// The passes of one level p >= T after its column pass: phases s/2 ... T, s = 2p >> log_rows.
struct level_plan {
  int log_p, log_rows;  // column pass: phases p ... 2p >> log_rows
  int middle;           // phases left between the column pass and the tail (strides >= T)
  int cones;            // passes among them that are cone passes (each flips the buffers)
};

level_plan plan_level(int log_p) {
  const int log_t = oem_policy::log_tail_stride + 1;
  const int above_tail = log_p - log_t + 1;  // phases p ... T
  level_plan l{log_p, std::min(above_tail, oem_policy::log_column_rows), 0, 0};
  l.middle = above_tail - l.log_rows;
  l.cones = l.middle < 2 ? 0 : (l.middle + oem_policy::max_mid_phases - 1) / oem_policy::max_mid_phases;
  return l;
}

// What a sort of n keys needs, decided before anything is allocated or launched.
struct oem_plan {
  std::size_t levels = 0;         // levels p >= T
  std::size_t flips = 0;          // cone passes: each moves the data to the other buffer
  std::size_t scratch_keys = 0;   // scratch elements (keys, and as many values): n if levels > 0
  bool tiles_to_scratch = false;  // odd number of flips: sort_tiles writes the scratch copy
};

oem_plan plan_for(std::size_t n) {
  oem_plan plan;
  for (std::size_t p = oem_policy::tile; p < n; p *= 2) {
    ++plan.levels;
    plan.flips += 1 + plan_level(log2_exact(p)).cones;
  }
  plan.scratch_keys = plan.levels > 0 ? n : 0;
  plan.tiles_to_scratch = plan.flips % 2 == 1;
  return plan;
}

template <class Kernel>
void allow_smem(Kernel* kernel, std::size_t bytes) {
  SSUM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

template <class Key, class Value, class Compare>
void merge_sort(cudaStream_t stream, Key* keys, Value* values, std::size_t n, Compare comp) {
  using T = oem_policy;
  if (n <= 1) return;
  if (n <= T::small_tile) {
    using block = block_oem_sort<T::small_threads, T::tile_items, Key, Value>;
    auto* kernel = sort_tiles<T::small_threads, Key, Value, Compare>;
    allow_smem(kernel, block::smem_bytes);
    kernel<<<1, T::small_threads, block::smem_bytes, stream>>>(keys, values, keys, values, n, comp);
    SSUM_CUDA_CHECK_LAUNCH("odd_even_merge_sort sort_tiles<128>");
    return;
  }
  const oem_plan plan = plan_for(n);
  using block = block_oem_sort<T::tile_threads, T::tile_items, Key, Value>;
  auto* tiles = sort_tiles<T::tile_threads, Key, Value, Compare>;
  allow_smem(tiles, block::smem_bytes);
  const unsigned tile_blocks = grid_of((n + T::tile - 1) / T::tile, "sort_tiles");
  if (plan.levels == 0) {
    tiles<<<tile_blocks, T::tile_threads, block::smem_bytes, stream>>>(keys, values, keys, values, n, comp);
    SSUM_CUDA_CHECK_LAUNCH("odd_even_merge_sort sort_tiles");
    return;
  }
  std::size_t scratch_bytes = plan.scratch_keys * sizeof(Key);
  const std::size_t values_at = (scratch_bytes + 255) / 256 * 256;
  if constexpr (has_values<Value>) scratch_bytes = values_at + plan.scratch_keys * sizeof(Value);
  device_buffer scratch(scratch_bytes, stream);
  Key* cur_k = keys;
  Value* cur_v = values;
  Key* other_k = scratch.as<Key>();
  Value* other_v = has_values<Value> ? scratch.as<Value>(values_at) : values;
  auto flip = [&] {
    std::swap(cur_k, other_k);
    std::swap(cur_v, other_v);
  };

  if (plan.tiles_to_scratch) {
    tiles<<<tile_blocks, T::tile_threads, block::smem_bytes, stream>>>(keys, values, other_k, other_v, n, comp);
    flip();
  } else {
    tiles<<<tile_blocks, T::tile_threads, block::smem_bytes, stream>>>(keys, values, keys, values, n, comp);
  }
  SSUM_CUDA_CHECK_LAUNCH("odd_even_merge_sort sort_tiles");

  constexpr int log_h = T::log_tail_stride, log_t = log_h + 1;
  auto* tail = merge_cone<1, Key, Value, Compare>;
  auto* mid = merge_cone<T::mid_width, Key, Value, Compare>;
  allow_smem(tail, cone_smem_bytes<1, Key, Value>(log_h));
  allow_smem(mid, cone_smem_bytes<T::mid_width, Key, Value>(T::max_mid_phases - 1));
  auto cone = [&](bool is_tail, int log_p, int log_s, int log_top) {
    const std::size_t total_rows = (n + (std::size_t(1) << log_s) - 1) >> log_s;
    const std::size_t width = is_tail ? 1 : T::mid_width, rows_per_block = T::cone_outputs / width;
    const std::size_t blocks = (total_rows + rows_per_block - 1) / rows_per_block * ((std::size_t(1) << log_s) / width);
    const std::size_t smem = is_tail ? cone_smem_bytes<1, Key, Value>(log_top) : cone_smem_bytes<T::mid_width, Key, Value>(log_top);
    (is_tail ? tail : mid)<<<grid_of(blocks, "merge_cone"), T::cone_threads, smem, stream>>>(cur_k, cur_v, other_k, other_v,
                                                                                         n, log_p, log_s, log_top, comp);
    SSUM_CUDA_CHECK_LAUNCH("odd_even_merge_sort merge_cone");
    flip();
  };

  for (std::size_t p = T::tile; p < n; p *= 2) {
    const level_plan l = plan_level(log2_exact(p));
    const int log_p = l.log_p, log_s = log_p + 1 - l.log_rows;
    // a. phases p ... s, a column per thread
    launch_columns<T::log_column_rows>(stream, cur_k, cur_v, n, log_p, l.log_rows, comp);
    // b. phases s/2 ... T
    if (l.middle == 1) {
      const int log_k = log_t;
      const std::size_t candidates = ((n + (std::size_t(2) << log_k) - 1) >> (log_k + 1)) << log_k;
      const std::size_t per_block = std::size_t(T::phase_threads) * T::phase_items;
      merge_phase<Key, Value, Compare><<<grid_of((candidates + per_block - 1) / per_block, "merge_phase"),
                                         T::phase_threads, 0, stream>>>(cur_k, cur_v, n, log_p, log_k, comp);
      SSUM_CUDA_CHECK_LAUNCH("odd_even_merge_sort merge_phase");
    } else {
      int top = log_s - 1, left = l.middle;
      for (int c = l.cones; c > 0; --c) {  // as even as possible: ceil(left / c) phases now
        const int phases = (left + c - 1) / c;
        cone(false, log_p, top - phases + 1, phases - 1);
        top -= phases;
        left -= phases;
      }
    }
    // c. phases H ... 1
    cone(true, log_p, 0, log_h);
  }
}

}  // namespace
}  // namespace ssum::cuda_detail

namespace ssum::detail {

template <class Key, class Value, class Compare>
void cuda_odd_even_merge_sort(const cuda& policy, Key* d_keys, Value* d_values, std::size_t n, Compare comp) {
  if (n == 0) return;
  if (!d_keys || (cuda_detail::has_values<Value> && !d_values)) {
    throw std::invalid_argument("ssum::cuda odd_even_merge_sort: null device pointer");
  }
  if (n == 1) return;
  cuda_detail::device_scope on(policy.device);
  cuda_detail::merge_sort(policy.stream, d_keys, d_values, n, comp);
}

#define SSUM_MERGE_SORT(K, V, C) template void cuda_odd_even_merge_sort<K, V, C>(const cuda&, K*, V*, std::size_t, C);
#define SSUM_MERGE_SORT_KEY(K)                                                                    \
  SSUM_MERGE_SORT(K, no_values, less) SSUM_MERGE_SORT(K, no_values, greater)                      \
  SSUM_MERGE_SORT(K, std::uint32_t, less) SSUM_MERGE_SORT(K, std::uint32_t, greater)
SSUM_FOR_EACH_CUDA_KEY(SSUM_MERGE_SORT_KEY)
#undef SSUM_MERGE_SORT_KEY
#undef SSUM_MERGE_SORT

}  // namespace ssum::detail

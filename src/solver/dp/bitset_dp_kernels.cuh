#pragma once
// The device dynamic program's kernels (bitset_dp.cu): Bellman's reachable sums as a bitset,
// bits |= bits << w per item (Bellman 1957; word-parallel as in Pisinger 2003, "Dynamic
// programming on the word RAM", Algorithmica 35). A shift-or in place would race between
// blocks (a block reads words another one writes), so every pass reads one bitset and writes
// the other. A pass writes words [lo, hi): the words its items can change and those the
// previous pass changed in the other bitset, so that the written bitset is exact on every
// word afterwards.
//
// first[s] is the first item that reached sum s; a pass records it for the bits it sets,
// one warp writing a word's 64 entries at once (two coalesced 128-byte rows).
#include <cuda_runtime.h>

#include <cstdint>

namespace ssum::cuda_detail::dp {

constexpr unsigned block_threads = 256;
constexpr unsigned wide_unroll = 4;     // words per thread in flight in a wide pass
constexpr unsigned tile_words = 2048;   // output words per block of a fused pass
constexpr unsigned halo_words = 1024;   // at most sum(q + 1) over a fused group's items
constexpr unsigned fused_words = tile_words + halo_words;  // 24 KiB per buffer, two buffers

/// An item as a pass applies it: its shift in words (q) and bits (r), and its number
/// (its position in the reduced weights), which first[] records.
struct dp_item {
  std::uint64_t q;
  std::uint32_t r;
  std::uint32_t index;
};

/// One table's pass: the bitset read and the one written (top + 1 words each), the
/// first-item numbers, and the target test.
struct dp_pass_args {
  const std::uint64_t* in;
  std::uint64_t* out;
  std::uint32_t* first;
  std::uint64_t top;            // the word of the bound
  std::uint64_t top_mask;       // its bits at or below the bound
  unsigned bound_bit;           // bound % 64
  bool stop_at_bound;           // raise *found once the bound is reached
  unsigned long long* found;    // 0, or 1 + the number of the pass that reached the bound
  unsigned long long pass;      // this pass's number
};

// Whether an earlier pass reached the bound. The pass that reaches it runs to its end in every
// block: its own first items may lie on the certificate's path.
__device__ inline bool already_found(const dp_pass_args& a) {
  const unsigned long long found = *static_cast<volatile unsigned long long*>(a.found);
  return found != 0 && found <= a.pass;
}

// The 64 first-item entries of each word of the warp that got new bits; all 32 lanes call it.
__device__ inline void record_first(std::uint64_t fresh, std::uint64_t word, std::uint32_t* first, std::uint32_t item,
                                    unsigned lane) {
  unsigned pending = __ballot_sync(0xffffffffu, fresh != 0);
  while (pending) {
    const int src = __ffs(pending) - 1;
    pending &= pending - 1;
    const std::uint64_t f = __shfl_sync(0xffffffffu, fresh, src);
    const std::uint64_t w = __shfl_sync(0xffffffffu, word, src);
    std::uint32_t* row = first + w * 64;
    if ((f >> lane) & 1) row[lane] = item;
    if ((f >> (lane + 32)) & 1) row[lane + 32] = item;
  }
}

__device__ inline void raise_found_at_top(const dp_pass_args& a, std::uint64_t word, std::uint64_t bits) {
  if (a.stop_at_bound && word == a.top && ((bits >> a.bound_bit) & 1)) atomicCAS(a.found, 0ull, a.pass + 1);
}

// One item over words [lo, hi), memory-bound: per word the word itself and the two it shifts
// from are read (the lower one is the neighbour's, from L1), the result written.
__global__ void __launch_bounds__(block_threads) shift_or_wide(dp_pass_args a, std::uint64_t lo, std::uint64_t hi,
                                                               dp_item item) {
  if (already_found(a)) return;
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t q = item.q;
  const unsigned r = item.r;
  const std::uint64_t chunk = std::uint64_t(block_threads) * wide_unroll;
  const std::uint64_t stride = chunk * gridDim.x;
  for (std::uint64_t base = lo + chunk * blockIdx.x; base < hi; base += stride) {
    std::uint64_t old[wide_unroll], src[wide_unroll], below[wide_unroll];
#pragma unroll
    for (unsigned u = 0; u < wide_unroll; ++u) {
      const std::uint64_t j = base + u * block_threads + threadIdx.x;
      old[u] = j < hi ? a.in[j] : 0;
      src[u] = j < hi && j >= q ? a.in[j - q] : 0;
      below[u] = j < hi && r != 0 && j > q ? a.in[j - q - 1] : 0;
    }
#pragma unroll
    for (unsigned u = 0; u < wide_unroll; ++u) {
      const std::uint64_t j = base + u * block_threads + threadIdx.x;
      std::uint64_t shifted = r ? (src[u] << r) | (below[u] >> (64 - r)) : src[u];
      if (j == a.top) shifted &= a.top_mask;
      const std::uint64_t fresh = shifted & ~old[u];
      if (j < hi) {
        a.out[j] = old[u] | fresh;
        raise_found_at_top(a, j, old[u] | fresh);
      }
      record_first(fresh, j, a.first, item.index, lane);
    }
  }
}

// `count` items whose shifts add up to `halo` words (sum of q + 1, at most halo_words) in one
// pass: each block loads its tile of output words and `halo` words below it into shared
// memory and applies the items one after the other there; after an item of shift q the
// words whose sources are still exact start q + 1 words higher (temporal blocking, as for
// stencils), and after the last one the tile itself is exact and is written.
__global__ void __launch_bounds__(block_threads) shift_or_fused(dp_pass_args a, std::uint64_t lo, std::uint64_t hi,
                                                                const dp_item* items, unsigned count, unsigned halo) {
  __shared__ std::uint64_t buffer[2][fused_words];
  if (already_found(a)) return;
  const unsigned lane = threadIdx.x % 32, warp_first = threadIdx.x - lane;
  const std::uint64_t tile = lo + std::uint64_t(blockIdx.x) * tile_words;
  const long long origin = static_cast<long long>(tile) - halo_words;  // the global word of buffer[.][0]
  const long long top = static_cast<long long>(a.top);
  unsigned exact = halo_words - halo;  // the lowest local word that holds the current state
  for (unsigned x = exact + threadIdx.x; x < fused_words; x += block_threads) {
    const long long g = origin + x;
    buffer[0][x] = g >= 0 && g <= top ? a.in[g] : 0;
  }
  __syncthreads();
  unsigned cur = 0;
  for (unsigned k = 0; k < count; ++k) {
    const dp_item item = items[k];
    const unsigned q = static_cast<unsigned>(item.q), r = item.r;
    exact += q + 1;
    const std::uint64_t* from = buffer[cur];
    std::uint64_t* to = buffer[cur ^ 1];
    // Warp-aligned steps, so that the tile's own words (from halo_words up) are whole warps.
    for (unsigned xw = (exact & ~31u) + warp_first; xw < fused_words; xw += block_threads) {
      const unsigned x = xw + lane;
      const long long g = origin + x;
      std::uint64_t fresh = 0;
      if (x >= exact) {
        const std::uint64_t old = from[x];
        std::uint64_t shifted = r ? (from[x - q] << r) | (from[x - q - 1] >> (64 - r)) : from[x - q];
        if (g > top) shifted = 0;
        else if (g == top) shifted &= a.top_mask;
        fresh = shifted & ~old;
        to[x] = old | fresh;
      }
      if (xw >= halo_words) record_first(fresh, static_cast<std::uint64_t>(g), a.first, item.index, lane);
    }
    __syncthreads();
    cur ^= 1;
  }
  for (unsigned x = halo_words + threadIdx.x; x < fused_words; x += block_threads) {
    const std::uint64_t g = static_cast<std::uint64_t>(origin + x);
    if (g < hi) {
      a.out[g] = buffer[cur][x];
      raise_found_at_top(a, g, buffer[cur][x]);
    }
  }
}

// The lowest word where both bitsets have a sum s > 0 (zero-sum: positive items and negative
// magnitudes reach s alike); *lowest starts at ~0.
__global__ void lowest_common_word(const std::uint64_t* plus, const std::uint64_t* minus, std::uint64_t words,
                                   unsigned long long* lowest) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < words; j += stride) {
    std::uint64_t both = plus[j] & minus[j];
    if (j == 0) both &= ~std::uint64_t{1};  // s = 0 is the empty subset
    if (both) {
      atomicMin(lowest, static_cast<unsigned long long>(j));
      return;  // the lowest of this thread's words
    }
  }
}

// One thread walks back from sum s: s -= w[first[s]] until 0, each item strictly earlier in
// the order than the one before, so at most n steps. chosen[0, *count) are the items.
__global__ void walk_back(const std::uint32_t* first, const std::uint64_t* weights, std::uint64_t s, std::uint32_t n,
                          std::uint32_t* chosen, std::uint32_t* count) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  std::uint32_t c = 0;
  while (s != 0 && c < n) {
    const std::uint32_t k = first[s];
    chosen[c++] = k;
    s -= weights[k];
  }
  *count = c;
}

}  // namespace ssum::cuda_detail::dp

#pragma once
// The stages of the sm_90 merge-path kernels (merge_tiles_bulk, pair_sum_tiles_bulk): each
// persistent block keeps a ring of Stages tiles in shared memory, and one lane apart moves
// each tile's a-range and b-range into a free stage by bulk copy (cp.async.bulk,
// bulk_copy.cuh) while the other warps work on the tiles that have landed. Merge path as in
// merge_partition.cuh (Odeh et al. 2012; Green, McColl, Bader, ICS 2012).
//
// A stage holds the tile's a-range, then after a gap its b-range as it lies in memory (the
// 16-byte pieces that cover each range; the few elements of an array's last partial piece are
// read one by one, so nothing past an array's end is read). Reversed b's (t - b for the pair
// sums) are read backwards out of the stage. The launchers check the pointers' alignment
// (aligned16) and fall back to the classic kernels.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/common/bulk_copy.cuh"

namespace ssum::cuda_detail {

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

/// Whether p can be a bulk copy's source or a 16-byte store's target.
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace ssum::cuda_detail

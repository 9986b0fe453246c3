#pragma once
// Host scans and stream compaction: the ssum::cpu backend of scan.hpp. Header-only, since
// users pass their own operators and predicates. Host C++ only.
//
// Scheme: the balanced-tree (work-efficient) scan cut to two levels for the CPU. The input is
// split into blocks of cpu_scan_block elements; up-sweep = reduce each block, root = fold the
// block sums left to right, down-sweep = scan each block serially from its prefix. Blocks are
// taken in rounds of one per thread, so a block is reduced and then re-read for the scan while
// it is still in that core's L2: about 2n elements of DRAM traffic, not 3n.
//
// Determinism: the blocks are a fixed size and their sums are folded strictly left to right,
// so the association, and so the bits of a floating-point scan, depend on n alone, not on
// the thread count. For n <= cpu_scan_block this is exactly the sequential left fold.
//
// Requirements: op associative (not necessarily commutative: always op(left, right)); op and
// pred callable from several threads at once and must not throw (they run inside an OpenMP
// region). Without OpenMP (no -fopenmp) everything runs on the calling thread, same results.
#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>
#include "ssum/detail/cpu_team.hpp"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace ssum::detail {

/// Elements per block. A constant, not a function of the thread count (see "Determinism").
/// 2^16 elements of 8 bytes is 512 KiB, which stays in L2 between the two passes.
inline constexpr std::size_t cpu_scan_block = std::size_t(1) << 16;

/// The two-level tree over nblocks blocks. up(b, t) returns block b's summary (never called for
/// the last block, whose summary nobody needs); down(b, t, pre) gets `carry` op summary(0) op
/// ... op summary(b-1), folded left to right (nullopt when there is nothing to fold). t is the
/// calling thread, for per-thread scratch space.
template <class S, class Op, class Up, class Down>
void cpu_two_level(unsigned threads, std::size_t nblocks, std::optional<S> carry, Op& op, const Up& up,
                   const Down& down) {
  threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, nblocks));
  std::vector<std::optional<S>> sums(2 * std::size_t(threads));
  auto fold = [&](std::optional<S>& acc, const S& x) { acc = acc ? S(op(*acc, x)) : x; };
  auto run = [&](unsigned t, unsigned p) {  // p: the team's real size, which may be < threads
    std::optional<S> c = carry;  // each thread folds the same sums in the same order: all copies agree
    for (std::size_t first = 0; first < nblocks; first += p) {
      // Double-buffered sums: a round's sums are read before its thread reaches the next
      // barrier and overwritten two rounds later, so one barrier per round is enough.
      std::optional<S>* s = sums.data() + ((first / p) & 1) * p;
      const std::size_t b = first + t;
      const unsigned have = static_cast<unsigned>(std::min<std::size_t>(p, nblocks - 1 - first));
      if (t < have) s[t] = up(b, t);
#ifdef _OPENMP
      if (p > 1) {  // never outside our own team: an orphaned barrier would bind to the caller's
#pragma omp barrier
      }
#endif
      for (unsigned j = 0; j < have && j < t; ++j) fold(c, *s[j]);
      const std::optional<S> pre = c;
      for (unsigned j = t; j < have; ++j) fold(c, *s[j]);
      if (b < nblocks) down(b, t, pre);
    }
  };
  cpu_team(threads, run);  // 1 thread: same blocks, same association, same bits as 8
}

/// exclusive=false: out[i] = [*init op] in[0] op ... op in[i]; exclusive=true (init required):
/// out[i] = *init op in[0] op ... op in[i-1]. in == out allowed; n == 0 touches nothing.
template <class T, class Op>
void cpu_scan(unsigned threads, const T* in, T* out, std::size_t n, Op op, const T* init, bool exclusive) {
  if (n == 0) return;
  constexpr std::size_t B = cpu_scan_block;
  // Up-sweep (never on the last block, so always B elements): L chains over L contiguous
  // slices, interleaved so that op's latency (4 cycles for a float add) overlaps, then the L
  // slice sums in order. A fixed split: still order-preserving and deterministic.
  auto up = [&](std::size_t b, unsigned) {
    constexpr std::size_t L = 8, S = B / L;
    static_assert(B % L == 0);
    const T* x = in + b * B;
    auto acc = [&]<std::size_t... k>(std::index_sequence<k...>) {
      return std::array<T, L>{x[k * S]...};
    }(std::make_index_sequence<L>{});
    for (std::size_t i = 1; i < S; ++i)
      for (std::size_t k = 0; k < L; ++k) acc[k] = op(acc[k], x[k * S + i]);
    T sum = acc[0];
    for (std::size_t k = 1; k < L; ++k) sum = op(sum, acc[k]);
    return sum;
  };
  auto down = [&](std::size_t b, unsigned, const std::optional<T>& pre) {
    std::size_t i = b * B;
    const std::size_t hi = std::min(n, i + B);
    if (exclusive) {
      T acc = *pre;
      for (; i < hi; ++i) {
        const T x = in[i];  // read before the write: in may be out
        out[i] = acc;
        acc = op(acc, x);
      }
      return;
    }
    T acc = pre ? T(op(*pre, in[i])) : in[i];
    out[i] = acc;
    for (++i; i < hi; ++i) out[i] = acc = op(acc, in[i]);
  };
  cpu_two_level<T>(threads, (n + B - 1) / B, init ? std::optional<T>(*init) : std::nullopt, op, up, down);
}

/// Stable compaction: copies the elements satisfying pred to out, in order; returns how many.
/// in and out must not overlap. pred is called exactly once per element.
template <class T, class Pred>
std::size_t cpu_copy_if(unsigned threads, const T* in, T* out, std::size_t n, Pred pred) {
  constexpr std::size_t B = cpu_scan_block;
  const std::size_t nblocks = (n + B - 1) / B;
  std::size_t total = 0;
  if (threads <= 1 || nblocks <= 1) {
    for (std::size_t i = 0; i < n; ++i)
      if (pred(in[i])) out[total++] = in[i];
    return total;
  }
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, nblocks));
  // Up-sweep: count the block's hits and keep the flags, so the write pass needn't call pred again.
  auto flags = std::make_unique_for_overwrite<unsigned char[]>(threads * B);
  auto up = [&](std::size_t b, unsigned t) {
    const std::size_t lo = b * B, hi = std::min(n, lo + B);
    unsigned char* f = flags.get() + t * B;
    std::size_t count = 0;
    for (std::size_t i = lo; i < hi; ++i) count += (f[i - lo] = pred(in[i]) ? 1 : 0);
    return count;
  };
  // Down-sweep: write the block's hits from its offset. The last block had no up-sweep.
  auto down = [&](std::size_t b, unsigned t, const std::optional<std::size_t>& pre) {
    const std::size_t lo = b * B, hi = std::min(n, lo + B);
    const unsigned char* f = flags.get() + t * B;
    std::size_t k = *pre;
    if (b + 1 == nblocks) {
      for (std::size_t i = lo; i < hi; ++i)
        if (pred(in[i])) out[k++] = in[i];
      total = k;
    } else {
      for (std::size_t i = lo; i < hi; ++i)
        if (f[i - lo]) out[k++] = in[i];
    }
  };
  std::plus<std::size_t> add;
  cpu_two_level<std::size_t>(threads, nblocks, std::size_t(0), add, up, down);
  return total;
}

}  // namespace ssum::detail

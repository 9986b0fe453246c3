#pragma once
// Internal: the dynamic program on a CUDA device (src/solver/dp/bitset_dp_cuda.cu; stubs in
// src/solver/gpu/cuda_unavailable.cpp). The host's table (bitset_dp.hpp) in device memory: a
// ping-pong pair of bitsets per table and the first item of every sum, the items taken in
// ascending order of weight. Small items are fused several to a pass over tiles in shared
// memory (temporal blocking), wide ones take one memory-bound pass each. Host-only
// declarations.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "solver/reductions.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// What one device solve did, for the benchmark: the passes run (a pass after the one that
/// reached the target exits at once and is not counted) and the bitset bytes they read and
/// wrote by the cost model's account (the first-item writes, at most 4 bytes per sum, aside).
struct dp_cuda_stats {
  std::size_t passes = 0, fused_passes = 0, items = 0;
  double bitset_bytes = 0;
};

/// Bytes the device dynamic program plans for a reduced instance: per table (two for
/// zero-sum) two bitsets of bound/64 + 1 words and the first-item numbers (4 per sum), and
/// 28 bytes per item (its pass entry, its weight, its place in a certificate).
inline double dp_cuda_planned_bytes(const reduction& r) {
  const double tables = r.zero_sum ? 2 : 1;
  const double words = std::floor(double(r.bound) / 64) + 1;
  return tables * (2 * 8 * words + 4 * (double(r.bound) + 1)) + 28 * double(r.weights.size()) + 4096;
}

/// About how long the device takes for the whole table (no early exit), the CUDA context
/// aside: the passes' bytes at the bandwidth measured on an H200, plus each launch
/// (bitset_dp.cu). +infinity in builds without CUDA.
double dp_cuda_seconds(const reduction& r);

/// Solves the reduced instance of `p` (r.outcome == open, r.bound <= dp_most_sums) on
/// policy.device and maps the subset back to p's indices (ssum::solve verifies it). Throws
/// ssum::insufficient_memory before allocating when the tables do not fit the device (or
/// options.memory_limit), ssum::interrupted, ssum::cuda_error.
solution solve_dp(const cuda& policy, const problem& p, const reduction& r, const solve_options& options,
                  dp_cuda_stats* stats = nullptr);

}  // namespace ssum::detail

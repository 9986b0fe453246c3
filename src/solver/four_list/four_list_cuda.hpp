#pragma once
// Internal: the GPU four-list behind ssum::solve(cuda, ...) with algorithm::four_list
// (solver/four_list/four_list_batches.hpp driven by src/solver/four_list/four_list_cuda.cu; src/solver/gpu/cuda_unavailable.cpp
// in builds without CUDA). Host-only declarations.
#include <cstddef>
#include <cstdint>

#include "solver/frame.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Why the GPU four-list cannot take `p`, or nullptr when it can (its sums are 64-bit where the
/// total fits, 128-bit otherwise: every total below 2^127). One rule for the solver and for
/// the automatic choice (src/solver/choose.cpp).
inline const char* four_list_cuda_refusal(const problem& p, const flipped_totals&) {
  if (p.weights.size() > 120) return "the four-list algorithm takes at most 120 items";
  return nullptr;
}

/// Knobs for tests and measurements; the defaults are the solver's own choice.
struct four_list_tuning {
  /// Sums per side and batch (0: 2^25, fewer where memory is short; never fewer than the
  /// largest residue bucket of L2 and L4, so that every batch can be split until it fits).
  std::size_t max_batch = 0;
  /// 64-bit sums: key bits, from the top, that the radix sort covers (0: enough for about 16
  /// buckets per key, in whole 8-bit digits); the runs equal in those bits are sorted afterwards.
  int sort_bits = 0;
  /// 128-bit sums: keys a hash partition holds on average (0: a quarter of a block's table, so that one
  /// table takes a partition at once); larger ones are joined a table-full at a time.
  std::size_t partition_keys = 0;
};

/// Solves on the device (totals: totals_of(p)); the subset it returns is not yet verified
/// (ssum::solve does that). Throws ssum::backend_unavailable when four_list_cuda_refusal does,
/// ssum::insufficient_memory before allocating when even the smallest batches do not fit,
/// ssum::interrupted, ssum::cuda_error.
solution solve_four_list_cuda(const cuda& policy, const problem& p, const flipped_totals& totals,
                              const solve_options& options, const four_list_tuning& tuning = {});

/// The same, computing the totals (tests and measurements).
inline solution solve_four_list_cuda(const cuda& policy, const problem& p, const solve_options& options,
                                     const four_list_tuning& tuning = {}) {
  return solve_four_list_cuda(policy, p, totals_of(p), options, tuning);
}

}  // namespace ssum::detail

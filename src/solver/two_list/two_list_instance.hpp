#pragma once
// Internal, shared by the host and CUDA two-list solvers: the instance made non-negative
// ("flipped"); the way back from a found pair of half-sums to a subset is recover.hpp.
//
// A negative item is replaced by its magnitude, the target raised by it, and its choice
// flipped in the answer; then sums above the target can be dropped while the lists are
// built. A found pair of sums is turned back into a subset by a small meet-in-the-middle per
// half: no subset masks are stored beside the sums.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "solver/frame.hpp"
#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum::detail {

/// What a list of `items` items weighs in generation, for progress: 2 + 4 + ... + 2^items
/// (level k merges 2^(k+1) sums).
inline double generation_weight(std::size_t items) { return std::ldexp(2.0, int(items)) - 2; }

/// Whether the flipped sums need 128 bits: the total |w| (the largest of them) passes 2^64 - 1.
inline bool needs_wide_sums(const flipped_totals& totals) { return totals.total_abs > uint128(UINT64_MAX); }

template <class Sum>
struct flipped_instance {
  std::vector<Sum> weights;        // |w_i|
  std::vector<bool> flipped;       // w_i < 0
  Sum target = 0;                  // t + sum of |negative weights|
  std::size_t half = 0;            // items [0, half) form list A, [half, n) list B
  // Zero-sum only: the empty original subset becomes "exactly the flipped items"; that one
  // pair of sums must not be taken as an answer unless another subset has the same sums.
  bool exclude_trivial = false;
  std::uint64_t trivial_mask_a = 0, trivial_mask_b = 0;
  Sum trivial_a = 0, trivial_b = 0;
};

// Sum must hold the total |w| (uint64 only when it fits), and `target` must be in range
// (!totals_of(p).out_of_range()): then the shifted target lies in [0, total |w|].
template <class Sum>
flipped_instance<Sum> flip(const problem& p, int128 target) {
  flipped_instance<Sum> inst;
  const std::size_t n = p.weights.size();
  inst.half = n / 2;
  inst.weights.resize(n);
  inst.flipped.resize(n);
  int128 shifted = target;  // rises to at most the total |w| < 2^127: no overflow
  for (std::size_t i = 0; i < n; ++i) {
    const int128 w = p.weights[i];
    inst.flipped[i] = w < 0;
    const Sum mag = static_cast<Sum>(magnitude(w));
    inst.weights[i] = mag;
    if (w < 0) {
      shifted += int128(magnitude(w));
      const bool in_a = i < inst.half;
      (in_a ? inst.trivial_a : inst.trivial_b) += mag;
      (in_a ? inst.trivial_mask_a : inst.trivial_mask_b) |= std::uint64_t{1} << (in_a ? i : i - inst.half);
    }
  }
  inst.target = static_cast<Sum>(shifted);
  inst.exclude_trivial = p.zero_sum();
  return inst;
}

}  // namespace ssum::detail

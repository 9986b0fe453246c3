#pragma once
// Internal, shared by the host and CUDA two-list solvers: the instance made non-negative
// ("flipped"), and the way back from a found pair of half-sums to a subset.
//
// A negative item is replaced by its magnitude, the target raised by it, and its choice
// flipped in the answer; then sums above the target can be dropped while the lists are
// built. A found pair of sums is turned back into a subset by a small meet-in-the-middle per
// half: no subset masks are stored beside the sums.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum::detail {

/// The weights' total magnitude (the largest flipped sum) and where the target lies;
/// out_of_range: no subset reaches the target, decided without any list.
struct flipped_totals {
  uint128 total_abs = 0;       // sum of |w|, below 2^127 (checked)
  uint128 negative_abs = 0;    // sum of |w| over the negative weights
  int128 target = 0;
  // Reachable sums are [-negative_abs, total_abs - negative_abs]. Compared without forming
  // target + negative_abs, which need not fit in int128 for a target near its limits.
  bool out_of_range() const {
    if (target < 0) return magnitude(target) > negative_abs;
    return uint128(target) > total_abs - negative_abs;
  }
};

/// Throws ssum::input_error when the weights' total magnitude reaches 2^127: every solver
/// starts here, so none ever forms a sum that 128 bits cannot hold.
inline flipped_totals totals_of(const problem& p) {
  check_weight_total(p);
  flipped_totals f;
  f.target = p.target.value_or(0);
  for (const int128 w : p.weights) {
    const uint128 mag = magnitude(w);
    f.total_abs += mag;
    if (w < 0) f.negative_abs += mag;
  }
  return f;
}

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

// A subset mask of w[0, count) whose sum is `value` and which differs from `exclude` when
// one is given: meet in the middle over the two quarters (2^(count/2) sums each), each
// quarter's sums built sorted by merging level by level (no sort), then one two-pointer walk
// (low ascending, high descending): O(2^(count/2)), 1-2 ms for count = 32.
template <class Sum>
std::optional<std::uint64_t> find_subset(const Sum* w, std::size_t count, Sum value,
                                         std::optional<std::uint64_t> exclude) {
  const std::size_t q1 = count / 2, q2 = count - q1;
  struct entry {
    Sum sum;
    std::uint64_t mask;
  };
  const auto by_sum = [](const entry& x, const entry& y) { return x.sum < y.sum; };
  auto sorted_sums = [&](const Sum* ws, std::size_t m) {
    std::vector<entry> cur{{0, 0}}, shifted, next;
    cur.reserve(std::size_t{1} << m);  // no regrowth: each level doubles the list
    shifted.reserve(std::size_t{1} << m);
    next.reserve(std::size_t{1} << m);
    for (std::size_t bit = 0; bit < m; ++bit) {
      shifted.resize(cur.size());
      for (std::size_t s = 0; s < cur.size(); ++s) shifted[s] = {cur[s].sum + ws[bit], cur[s].mask | (std::uint64_t{1} << bit)};
      next.resize(2 * cur.size());
      std::merge(cur.begin(), cur.end(), shifted.begin(), shifted.end(), next.begin(), by_sum);
      cur.swap(next);
    }
    return cur;
  };
  const std::vector<entry> low = sorted_sums(w, q1), high = sorted_sums(w + q1, q2);
  // Sums stay within the total |w|, which Sum holds (the caller's choice), so low + high never wraps.
  std::size_t i = 0, j = high.size();
  while (i < low.size() && j > 0) {
    const Sum s = low[i].sum + high[j - 1].sum;
    if (s < value) {
      ++i;
    } else if (s > value) {
      --j;
    } else {
      // Every pair of the two equal runs is a subset with this sum; all but exclude qualify.
      std::size_t i_end = i, j_begin = j;
      while (i_end < low.size() && low[i_end].sum == low[i].sum) ++i_end;
      while (j_begin > 0 && high[j_begin - 1].sum == high[j - 1].sum) --j_begin;
      for (std::size_t ii = i; ii < i_end; ++ii) {
        for (std::size_t jj = j_begin; jj < j; ++jj) {
          const std::uint64_t mask = low[ii].mask | (high[jj].mask << q1);
          if (!exclude || mask != *exclude) return mask;
        }
      }
      i = i_end;  // only the excluded subset here: other sums may still pair up
      j = j_begin;
    }
  }
  return std::nullopt;
}

// Whether a pair of subsets other than the empty subset's (zero-sum instances) has the
// half-sums (sa, sb): another subset of either half with its sum.
template <class Sum>
bool has_other_subset_pair(const flipped_instance<Sum>& inst, Sum sa, Sum sb) {
  const std::size_t na_items = inst.half, nb_items = inst.weights.size() - inst.half;
  return find_subset(inst.weights.data(), na_items, sa, std::optional<std::uint64_t>(inst.trivial_mask_a)).has_value() ||
         find_subset(inst.weights.data() + na_items, nb_items, sb, std::optional<std::uint64_t>(inst.trivial_mask_b))
             .has_value();
}

// The subset (0-based, ascending, of the ORIGINAL items) behind a pair of half-sums with
// found_a + found_b == inst.target. For zero-sum instances the pair of the flipped items'
// sums stands for the empty subset; it is turned into another subset with the same sums when
// one exists. two_threads: the halves' searches may run side by side (the caller may use a
// second host thread). Throws std::logic_error when no subset has these sums (a solver bug).
template <class Sum>
std::vector<std::size_t> recover_subset(const flipped_instance<Sum>& inst, Sum found_a, Sum found_b,
                                        bool two_threads) {
  const std::size_t n = inst.weights.size();
  const std::size_t na_items = inst.half, nb_items = n - inst.half;
  const Sum* wa = inst.weights.data();
  const Sum* wb = inst.weights.data() + na_items;
  std::optional<std::uint64_t> mask_a, mask_b;
  if (inst.exclude_trivial && found_a == inst.trivial_a && found_b == inst.trivial_b) {
    mask_a = find_subset(wa, na_items, found_a, inst.trivial_mask_a);
    if (mask_a) {
      mask_b = find_subset(wb, nb_items, found_b, std::nullopt);
    } else {
      mask_a = inst.trivial_mask_a;
      mask_b = find_subset(wb, nb_items, found_b, inst.trivial_mask_b);
    }
  } else if (two_threads && na_items >= 20) {
    // The halves' searches are independent: side by side (n = 64: 8.4 ms one after the other
    // on the H200 machine's host, about a sixth of the whole solve).
    auto b = std::async(std::launch::async, [&] { return find_subset(wb, nb_items, found_b, std::nullopt); });
    mask_a = find_subset(wa, na_items, found_a, std::nullopt);
    mask_b = b.get();
  } else {
    mask_a = find_subset(wa, na_items, found_a, std::nullopt);
    mask_b = find_subset(wb, nb_items, found_b, std::nullopt);
  }
  if (!mask_a || !mask_b) throw std::logic_error("two-list: a found sum has no subset behind it");
  std::vector<std::size_t> subset;
  for (std::size_t i = 0; i < n; ++i) {
    const bool chosen = i < na_items ? ((*mask_a >> i) & 1u) : ((*mask_b >> (i - na_items)) & 1u);
    if (chosen != inst.flipped[i]) subset.push_back(i);
  }
  return subset;
}

}  // namespace ssum::detail

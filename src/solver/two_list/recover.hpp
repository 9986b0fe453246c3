#pragma once
// Internal, shared by the host and CUDA two-list solvers: the recover stage, from a found pair
// of half-sums back to a subset of the original items, by a small meet-in-the-middle per half
// (no subset masks are stored beside the sums).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <stdexcept>
#include <vector>

#include "solver/two_list/two_list_instance.hpp"

namespace ssum::detail {

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

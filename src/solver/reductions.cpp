// The reductions ahead of the dynamic program (reductions.hpp).
#include "solver/reductions.hpp"

#include <algorithm>

namespace ssum::detail {
namespace {

uint128 gcd_of(uint128 a, uint128 b) {
  while (b != 0) {
    const uint128 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

std::string text(uint128 v) { return to_string(int128(v)); }

// Keeps the nonzero items whose magnitude / g is at most r.bound (in r.weights, r.index and,
// for zero-sum, r.negative); returns how many were heavier.
std::size_t keep_light_items(const problem& p, uint128 g, reduction& r) {
  std::size_t heavy = 0;
  for (std::size_t i = 0; i < p.weights.size(); ++i) {
    const uint128 mag = magnitude(p.weights[i]) / g;
    if (mag == 0) continue;
    if (mag > r.bound) {
      ++heavy;
      continue;
    }
    r.weights.push_back(mag);
    r.index.push_back(i);
    if (r.zero_sum) r.negative.push_back(p.weights[i] < 0);
  }
  return heavy;
}

// Zero-sum: the nonzero items, divided by g, kept when not above the smaller side's sum.
reduction reduce_zero_sum(const problem& p, reduction r, uint128 g) {
  uint128 positive = 0, negative = 0;
  for (const int128 w : p.weights) (w > 0 ? positive : negative) += magnitude(w) / g;
  r.bound = std::min(positive, negative);
  if (r.bound == 0) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back("all nonzero weights have one sign: no non-empty subset sums to 0");
    return r;
  }
  if (const std::size_t heavy = keep_light_items(p, g, r)) {
    r.applied.push_back("items heavier than the smaller side's sum " + text(r.bound) + " removed (" +
                        std::to_string(heavy) + ")");
  }
  return r;
}

}  // namespace

reduction reduce(const problem& p, const flipped_totals& totals) {
  reduction r;
  r.zero_sum = p.zero_sum();
  std::size_t zeros = 0;
  uint128 g = 0;
  for (std::size_t i = 0; i < p.weights.size(); ++i) {
    if (p.weights[i] == 0) {
      if (r.zero_sum) {
        r.outcome = reduction::verdict::answered;
        r.answer = {i};
        r.applied.push_back("a zero weight is a non-empty subset summing to 0");
        return r;
      }
      ++zeros;
      continue;
    }
    g = gcd_of(magnitude(p.weights[i]), g);
  }
  r.zero_weights = zeros;
  if (zeros) r.applied.push_back("zero weights set aside (" + std::to_string(zeros) + ")");
  if (g == 0) {  // no nonzero weight: only the empty subset, sum 0
    if (r.zero_sum || totals.target != 0) r.outcome = reduction::verdict::infeasible;
    else r.outcome = reduction::verdict::answered;
    return r;
  }
  if (g > 1) r.applied.push_back("divided by the gcd " + text(g));
  if (r.zero_sum) return reduce_zero_sum(p, std::move(r), g);

  // In range: target + sum |negative| lies in [0, total |w|] (no overflow below 2^127).
  const uint128 shifted = uint128(totals.target + int128(totals.negative_abs));
  if (shifted % g != 0) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back("the gcd " + text(g) + " does not divide the target: infeasible");
    return r;
  }
  const uint128 total = totals.total_abs / g;
  uint128 target = shifted / g;
  if (totals.negative_abs != 0) {
    r.applied.push_back("negative weights flipped (target raised by " + text(totals.negative_abs) + ")");
  }
  if (total - target < target) {
    r.complemented = true;
    r.applied.push_back("complement: the items left out sum to " + text(total - target) + " (instead of " +
                        text(target) + ")");
    target = total - target;
  }
  r.bound = target;
  if (const std::size_t heavy = keep_light_items(p, g, r)) {
    r.applied.push_back("items heavier than the target removed (" + std::to_string(heavy) + ")");
  }
  return r;
}

std::vector<std::size_t> map_back(const problem& p, const reduction& r, const std::vector<std::size_t>& chosen) {
  std::vector<std::size_t> subset;
  if (r.zero_sum) {
    for (const std::size_t k : chosen) subset.push_back(r.index[k]);
    std::sort(subset.begin(), subset.end());
    return subset;
  }
  // taken[i]: item i's magnitude is in the flipped instance's subset. The complement takes
  // every nonzero item but the chosen ones (heavy items included).
  const std::size_t n = p.weights.size();
  std::vector<bool> taken(n, false);
  if (r.complemented) {
    for (std::size_t i = 0; i < n; ++i) taken[i] = p.weights[i] != 0;
    for (const std::size_t k : chosen) taken[r.index[k]] = false;
  } else {
    for (const std::size_t k : chosen) taken[r.index[k]] = true;
  }
  // A flipped item taken means the negative weight left out, and the other way round.
  for (std::size_t i = 0; i < n; ++i) {
    if (p.weights[i] != 0 && taken[i] != (p.weights[i] < 0)) subset.push_back(i);
  }
  return subset;
}

}  // namespace ssum::detail

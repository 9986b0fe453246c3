// Certificate check: the one place that decides whether an answer is right; and the limit
// on the weights that keeps every sum the solvers form exact.
#include "ssum/errors.hpp"
#include "ssum/problem.hpp"

namespace ssum {

void check_weight_total(const problem& p) { check_weight_total(p.weights); }

void check_weight_total(const std::vector<int128>& weights) {
  uint128 total = 0;
  for (const int128 w : weights) {
    const uint128 m = magnitude(w);  // 2^127 for -2^127, no overflow
    if (m > max_weight_total - total) {
      throw input_error("the weights' absolute values add up to 2^127 or more; ssum takes totals up to 2^127 - 1", 0);
    }
    total += m;
  }
}

bool is_certificate(const problem& p, const std::vector<std::size_t>& subset) {
  // Zero-sum asks for a non-empty subset; the empty one would make every instance feasible.
  if (p.zero_sum() && subset.empty()) return false;
  const std::size_t n = p.weights.size();
  // Exact for any weights, checked or not: `wraps` counts the times the int128 sum passed
  // 2^127 upwards (+1) or -2^127 downwards (-1), so the true sum is sum + wraps * 2^128. Each
  // term is within [-2^127, 2^127), so one addition wraps at most once.
  int128 sum = 0;
  long long wraps = 0;
  for (std::size_t k = 0; k < subset.size(); ++k) {
    if (subset[k] >= n) return false;
    if (k > 0 && subset[k] <= subset[k - 1]) return false;  // strictly ascending: no repeats
    const int128 w = p.weights[subset[k]];
    if (__builtin_add_overflow(sum, w, &sum)) wraps += w > 0 ? 1 : -1;
  }
  return wraps == 0 && sum == p.target.value_or(0);
}

}  // namespace ssum

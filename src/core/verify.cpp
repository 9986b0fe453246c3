// Certificate check: the one place that decides whether an answer is right.
#include "ssum/problem.hpp"

namespace ssum {

bool is_certificate(const problem& p, const std::vector<std::size_t>& subset) {
  // Zero-sum asks for a non-empty subset; the empty one would make every instance feasible.
  if (p.zero_sum() && subset.empty()) return false;
  const std::size_t n = p.weights.size();
  // n int64 terms stay below 2^63 * n < 2^127 in magnitude: int128 is exact here.
  int128 sum = 0;
  for (std::size_t k = 0; k < subset.size(); ++k) {
    if (subset[k] >= n) return false;
    if (k > 0 && subset[k] <= subset[k - 1]) return false;  // strictly ascending: no repeats
    sum += p.weights[subset[k]];
  }
  return sum == p.target.value_or(0);
}

}  // namespace ssum

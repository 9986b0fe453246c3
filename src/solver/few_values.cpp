// A subset for few distinct weights with many copies (few_values.hpp).
#include "solver/few_values.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

namespace ssum::detail {
namespace {

using u64 = std::uint64_t;

constexpr std::size_t most_values = 16;
constexpr u64 most_classes = u64(1) << 22;  // the smallest value: one table entry per class mod it

struct value {
  uint128 weight;
  u64 copies = 0;
};

// The fewest-sum combination (unbounded copies) of `others` in every class mod m, as the
// last value added to reach it (255: none; class 0 is the empty sum). Round robin: each value
// in turn, every cycle of its steps mod m walked twice from its least entry.
struct classes {
  std::vector<uint128> least;
  std::vector<unsigned char> last;
};

classes fewest_sums(u64 m, const std::vector<value>& others) {
  constexpr uint128 none = ~uint128(0);
  classes c{std::vector<uint128>(m, none), std::vector<unsigned char>(m, 255)};
  c.least[0] = 0;
  for (std::size_t j = 0; j < others.size(); ++j) {
    const uint128 w = others[j].weight;
    const u64 step = u64(w % m);
    if (step == 0) continue;
    const u64 cycles = std::gcd(step, m), length = m / cycles;
    for (u64 start = 0; start < cycles; ++start) {
      // From the cycle's least entry, one pass around relaxes every class once in order.
      u64 from = start, best = start;
      for (u64 k = 0; k < length; ++k, from = (from + step) % m) {
        if (c.least[from] < c.least[best]) best = from;
      }
      if (c.least[best] == none) continue;
      from = best;
      for (u64 k = 0; k < length; ++k) {
        const u64 to = (from + step) % m;
        if (c.least[from] != none && c.least[from] + w < c.least[to]) {
          c.least[to] = c.least[from] + w, c.last[to] = static_cast<unsigned char>(j);
        }
        from = to;
      }
    }
  }
  return c;
}

}  // namespace

std::vector<std::size_t> few_values_subset(const reduction& r) {
  if (r.outcome != reduction::verdict::open || r.zero_sum || !r.copies.empty() || r.weights.size() < 64) return {};
  std::vector<value> values;
  for (const uint128 w : r.weights) {
    auto it = std::find_if(values.begin(), values.end(), [&](const value& v) { return v.weight == w; });
    if (it == values.end()) {
      if (values.size() == most_values) return {};
      values.push_back({w, 0});
      it = values.end() - 1;
    }
    ++it->copies;
  }
  std::sort(values.begin(), values.end(), [](const value& a, const value& b) { return a.weight < b.weight; });
  if (values.size() < 2 || values[0].weight > most_classes) return {};
  const u64 m = u64(values[0].weight);
  const std::vector<value> others(values.begin() + 1, values.end());
  const classes c = fewest_sums(m, others);
  uint128 total = 0;
  for (const value& v : values) total += v.weight * v.copies;
  const long double share = static_cast<long double>(r.bound) / static_cast<long double>(total);

  std::vector<u64> take(values.size());
  for (const u64 margin : {16, 64, 256, 1024, 4096}) {
    // Each other value's copies at its share less the margin; the gap left for the
    // class's fewest sum and copies of m.
    uint128 base = 0;
    for (std::size_t j = 1; j < values.size(); ++j) {
      const u64 at_share = static_cast<u64>(share * static_cast<long double>(values[j].copies));
      take[j] = at_share > margin ? at_share - margin : 0;
      base += values[j].weight * take[j];
    }
    if (base > r.bound) continue;
    const uint128 gap = r.bound - base;
    u64 cls = u64(gap % m);
    if (c.least[cls] > gap) continue;
    bool fits = true;
    for (u64 k = cls, steps = 0; k != 0 && fits; ++steps) {  // the class's fewest sum, one value at a time
      if (steps == m) return {};  // a chain that does not end: never expected
      const unsigned j = c.last[k];
      fits = j != 255 && ++take[j + 1] <= values[j + 1].copies;
      k = (k + m - u64(others[j].weight % m)) % m;
    }
    if (!fits) continue;
    take[0] = static_cast<u64>((gap - c.least[cls]) / m);
    if (take[0] > values[0].copies) continue;
    uint128 sum = 0;
    for (std::size_t j = 0; j < values.size(); ++j) sum += values[j].weight * take[j];
    if (sum != r.bound) continue;  // never expected; the caller verifies the mapped subset too
    std::vector<std::size_t> positions;
    for (std::size_t k = 0; k < r.weights.size(); ++k) {
      const auto j = std::size_t(
          std::lower_bound(values.begin(), values.end(), r.weights[k],
                           [](const value& v, uint128 w) { return v.weight < w; }) -
          values.begin());
      if (take[j] > 0) --take[j], positions.push_back(k);
    }
    return positions;
  }
  return {};
}

}  // namespace ssum::detail

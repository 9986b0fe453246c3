#pragma once
// Karmarkar and Karp's differencing method (*The differencing method of set partitioning*,
// 1982) for the two-way partition, the heuristic the number-partitioning field reaches for
// first: replace the two largest numbers by their difference until one is left; that number
// is the difference between the two sides. Each difference puts its operands on opposite
// sides, so the sides are kept as two lists per number. A test reference and the dense
// search's peer: it finds a perfect partition only by luck, and proves nothing.
#include <cstddef>
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace ssum_reference {

struct kk_partition {
  unsigned __int128 difference = 0;  // |sum of side 1 - sum of side 0|
  std::vector<bool> side;            // per item
};

inline kk_partition karmarkar_karp(const std::vector<std::uint64_t>& weights) {
  struct number {
    unsigned __int128 value;
    std::vector<std::uint32_t> plus, minus;  // value = sum(plus) - sum(minus)
  };
  std::vector<number> numbers;
  numbers.reserve(weights.size());
  using entry = std::pair<unsigned __int128, std::size_t>;  // (value, position in numbers)
  std::priority_queue<entry> largest;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    numbers.push_back({weights[i], {std::uint32_t(i)}, {}});
    largest.push({weights[i], i});
  }
  kk_partition result;
  result.side.assign(weights.size(), false);
  if (weights.empty()) return result;
  // Appends the shorter list to the longer one (the longer one is reused).
  const auto joined = [](std::vector<std::uint32_t>& a, std::vector<std::uint32_t>& b) {
    if (a.size() < b.size()) a.swap(b);
    a.insert(a.end(), b.begin(), b.end());
    b.clear();
    return std::move(a);
  };
  while (largest.size() > 1) {
    const std::size_t a = largest.top().second;
    largest.pop();
    const std::size_t b = largest.top().second;
    largest.pop();
    number& x = numbers[a];
    number& y = numbers[b];  // x.value >= y.value
    number d{x.value - y.value, joined(x.plus, y.minus), joined(x.minus, y.plus)};
    numbers[a] = std::move(d);
    largest.push({numbers[a].value, a});
  }
  const number& last = numbers[largest.top().second];
  result.difference = last.value;
  for (const std::uint32_t i : last.plus) result.side[i] = true;
  return result;
}

}  // namespace ssum_reference

#pragma once
// Inputs shared by the host and CUDA merge tests: ascending vectors made without a sort, a
// bit-for-bit comparison (so that -0.0 / +0.0 and NaN payloads count), and the reference for
// merge path splits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace ssum_test {

// n ascending values: range > 0 gives values in [0, range) (floats: quarter steps around 0,
// signed: shifted to straddle 0), so many ties; range == 0 gives random steps of 0..999 from a
// negative start for signed types, so few ties.
template <class T>
std::vector<T> sorted_random(std::size_t n, std::uint64_t seed, std::uint64_t range) {
  std::mt19937_64 rng(seed);
  std::vector<T> v;
  v.reserve(n);
  if (range > 0) {
    std::vector<std::size_t> hist(range);
    for (std::size_t k = 0; k < n; ++k) ++hist[rng() % range];
    for (std::uint64_t r = 0; r < range; ++r) {
      T x;
      if constexpr (std::is_floating_point_v<T>) {
        x = static_cast<T>(static_cast<double>(r) * 0.25 - static_cast<double>(range) * 0.125);
      } else if constexpr (std::is_signed_v<T>) {
        x = static_cast<T>(static_cast<std::int64_t>(r) - static_cast<std::int64_t>(range / 2));
      } else {
        x = static_cast<T>(r);
      }
      v.insert(v.end(), hist[r], x);
    }
    return v;
  }
  long long x = std::is_signed_v<T> ? -500000000LL : 0;
  for (std::size_t k = 0; k < n; ++k) {
    x += static_cast<long long>(rng() % 1000);
    if constexpr (std::is_floating_point_v<T>) {
      v.push_back(static_cast<T>(static_cast<double>(x) * 0.25));
    } else {
      v.push_back(static_cast<T>(x));
    }
  }
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0);
}

// from_a[d] for d in [0, na + nb]: how many of the first d outputs of the stable merge of a
// and b (ascending under comp) come from a, by a std::merge of elements tagged with their
// input: the split of diagonal d.
template <class T, class Compare>
std::vector<std::size_t> outputs_from_a(const std::vector<T>& a, const std::vector<T>& b, Compare comp) {
  std::vector<std::pair<T, int>> ta, tb, m(a.size() + b.size());
  for (const T& x : a) ta.push_back({x, 0});
  for (const T& x : b) tb.push_back({x, 1});
  std::merge(ta.begin(), ta.end(), tb.begin(), tb.end(), m.begin(),
             [&](const auto& x, const auto& y) { return comp(x.first, y.first); });
  std::vector<std::size_t> from_a(m.size() + 1, 0);
  for (std::size_t d = 0; d < m.size(); ++d) from_a[d + 1] = from_a[d] + (m[d].second == 0);
  return from_a;
}

}  // namespace ssum_test

#pragma once
// Small random instances and their exact answers by brute force, shared by the solver tests
// of every backend and algorithm.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum_test {

inline std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

// A problem from 64-bit weights: keeps call sites with int64 vectors short.
inline ssum::problem make_problem(const std::vector<std::int64_t>& weights, std::optional<ssum::int128> target) {
  return ssum::problem{{weights.begin(), weights.end()}, target};
}

// The sums of all subsets of w[0, m), ascending (m small): the reference for a list's first
// levels, however they were built.
inline std::vector<std::uint64_t> sorted_subset_sums(const std::uint64_t* w, std::size_t m) {
  std::vector<std::uint64_t> sums;
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << m); ++mask) {
    std::uint64_t s = 0;
    for (std::size_t k = 0; k < m; ++k) s += mask >> k & 1 ? w[k] : 0;
    sums.push_back(s);
  }
  std::sort(sums.begin(), sums.end());
  return sums;
}

// Subsets summing to the target (zero-sum: non-empty ones), all 2^n of them in Gray-code
// order so that each step changes one item. Sums are int128: exact for any weights whose
// magnitudes add up to less than 2^127 (what ssum accepts), 127-bit ones included.
inline std::uint64_t brute_force_count(const ssum::problem& p) {
  const std::size_t n = p.weights.size();
  const ssum::int128 t = p.target.value_or(0);
  ssum::int128 sum = 0;
  std::uint64_t count = sum == t ? 1 : 0, gray = 0;
  for (std::uint64_t k = 1; k < (std::uint64_t{1} << n); ++k) {
    const unsigned bit = static_cast<unsigned>(__builtin_ctzll(k));
    gray ^= std::uint64_t{1} << bit;
    sum += (gray >> bit & 1) ? p.weights[bit] : -p.weights[bit];
    if (sum == t) ++count;
  }
  if (p.zero_sum()) --count;  // the empty subset does not count
  return count;
}

// Zero-sum weight sets (no target) and whether a non-empty subset sums to 0: the empty
// subset alone, sharing its half- or quarter-sums with other subsets, or beside other
// solutions. The four-list tests of both backends walk them.
inline const std::vector<std::pair<std::vector<std::int64_t>, bool>>& zero_sum_shapes() {
  static const std::vector<std::pair<std::vector<std::int64_t>, bool>> shapes = {
      {{3, 9}, false},          {{-3, -9}, false},        {{3, -3}, true},             {{0}, true},
      {{-5, 7, 11, 2}, false},  {{-5, 5, -5, 5}, true},   {{-1, -2, 3, 100}, true},    {{7, -7, 1, 2, 4}, true},
      {{-4, 1, 1, 1, 1}, true}, {{}, false},              {{-1, -1, -1, -1, 4}, true}, {{5, -5, 0, 0, 0, 0}, true},
      {{-6, -2, 1, 3, 8, 9, 10, 11}, true}, {{-2, -2, 1, 1, 1, 1, 9, 9}, true},
  };
  return shapes;
}

inline std::string describe(const ssum::problem& p) {
  std::string s = "weights:";
  for (auto w : p.weights) s += " " + ssum::to_string(w);
  return s + (p.target ? " target " + ssum::to_string(*p.target) : " zero-sum");
}

// n in [0, max_n] weights of magnitude up to `range` (signed when asked), and one of four
// targets: a subset's sum (feasible), a random value, none (zero-sum), or 0.
inline ssum::problem random_instance(std::mt19937_64& rng, std::size_t max_n, std::int64_t range, bool signed_weights) {
  ssum::problem p;
  const std::size_t n = static_cast<std::size_t>(uniform(rng, 0, static_cast<std::int64_t>(max_n)));
  for (std::size_t i = 0; i < n; ++i) p.weights.push_back(uniform(rng, signed_weights ? -range : 0, range));
  const int kind = static_cast<int>(uniform(rng, 0, 3));
  if (kind == 0) {
    ssum::int128 t = 0;
    for (auto w : p.weights) {
      if (rng() & 1) t += w;
    }
    p.target = t;
  } else if (kind == 1) {
    p.target = uniform(rng, -range, range);
  } else if (kind == 2) {
    p.target = std::nullopt;
  } else {
    p.target = 0;
  }
  return p;
}

// The ranges the tests cycle through: many equal sums, small, 40-bit and 58-bit weights.
inline std::int64_t range_for(int trial) {
  switch (trial % 4) {
    case 0: return 3;
    case 1: return 60;
    case 2: return std::int64_t{1} << 40;
    default: return std::int64_t{1} << 58;
  }
}

/// The modulus of the no-instances below: the smallest prime above n and above 64 (the
/// residue test's moduli stop at 64, so it sees nothing).
inline std::int64_t no_instance_modulus(std::size_t n) {
  std::int64_t m = std::max<std::int64_t>(std::int64_t(n), 64) + 1;
  const auto prime = [](std::int64_t v) {
    for (std::int64_t d = 2; d * d <= v; ++d)
      if (v % d == 0) return false;
    return true;
  };
  while (!prime(m)) ++m;
  return m;
}

inline int bit_width_of(std::int64_t v) {
  int b = 0;
  while (v >> b) ++b;
  return b;
}

// No subset, so the search runs to its end unless stopped: weights M r_j + 1 (M prime, above n
// and 64), so that any k items sum to k mod M, and a target whose residue mod M is (M + n) / 2,
// which no k <= n is. Their gcd is 1 and no reduction settles it. n items of about `bits` bits
// (bits at least bit_width(M) + 2).
inline ssum::problem long_no_instance(std::size_t n, int bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t m = no_instance_modulus(n);
  const int r_bits = bits - bit_width_of(m);
  ssum::problem p;
  ssum::int128 sum_r = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t r = uniform(rng, std::int64_t{1} << (r_bits - 1), (std::int64_t{1} << r_bits) - 1);
    p.weights.push_back(ssum::int128(m) * r + 1);
    sum_r += r;
  }
  p.target = ssum::int128(m) * (sum_r / 2) + (m + ssum::int128(n)) / 2;
  return p;
}

// 128-bit draws for weights past 64 bits.
inline ssum::uint128 random_uint128(std::mt19937_64& rng) { return (ssum::uint128(rng()) << 64) | rng(); }

/// A magnitude of exactly `bits` bits (its top bit set), bits in [1, 127].
inline ssum::int128 magnitude_of_bits(std::mt19937_64& rng, int bits) {
  const ssum::uint128 top = ssum::uint128(1) << (bits - 1);
  return ssum::int128(top | (random_uint128(rng) & (top - 1)));
}

/// A no-instance of n items of about `bits` bits (bits in [8 + bit_width(M), 124]; the
/// total, about n x 2^bits, must stay below 2^127) that no reduction settles, as
/// long_no_instance past 62 bits: weights M a_j + 1 and a target of residue (M + n) / 2 mod M.
inline ssum::problem wide_no_instance(std::size_t n, int bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t m = no_instance_modulus(n);
  ssum::problem p;
  ssum::int128 sum_a = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const ssum::int128 a = magnitude_of_bits(rng, bits - bit_width_of(m));
    p.weights.push_back(m * a + 1);
    sum_a += a;
  }
  p.target = m * (sum_a / 2) + (m + ssum::int128(n)) / 2;
  return p;
}

}  // namespace ssum_test

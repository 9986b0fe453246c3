#pragma once
// Instances whose total |weight| passes 2^64 (up to 2^127 - 1), for the merging two-list's
// 128-bit sums on the host (test_two_list_wide_sums.cpp) and on CUDA devices
// (cuda/test_two_list_wide_cuda.cpp), and the checks both make of an answer. The wide
// no-instance (wide_no_instance) and the 128-bit draws are in small_instances.hpp, which the
// benchmarks share.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "small_instances.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum_test {

/// The shapes of wide_weights.
enum class wide_shape {
  bits_120_126,  // magnitudes of 120 to 126 bits, as many bits as n allows below 2^127 in all
  limit,         // weights below 2^120 and one that brings the total to 2^127 - 1 exactly
  coarse,        // s * 2^120 + e, s in [-3, 3], e in [-2, 2]: many equal sums, large counts
  aliased,       // r + k * 2^64, r in [0, 7]: sums agree in their low 64 bits
};
constexpr wide_shape all_wide_shapes[] = {wide_shape::bits_120_126, wide_shape::limit, wide_shape::coarse,
                                          wide_shape::aliased};

/// n >= 1 weights of `shape`, signed when `signed_weights`; their magnitudes add up to less than 2^127.
inline std::vector<ssum::int128> wide_weights(std::mt19937_64& rng, std::size_t n, wide_shape shape,
                                              bool signed_weights) {
  const auto sign = [&](ssum::int128 m) { return signed_weights && rng() % 2 ? -m : m; };
  std::vector<ssum::int128> w(n);
  switch (shape) {
    case wide_shape::bits_120_126: {
      // n weights of at most `top` bits add up to less than n * 2^top <= 2^127.
      const int top = std::min(126, 127 - int(std::bit_width(n - 1)));
      for (auto& x : w) x = sign(magnitude_of_bits(rng, 120 + int(rng() % std::uint64_t(top - 119))));
      break;
    }
    case wide_shape::limit: {
      ssum::uint128 total = 0;
      for (std::size_t i = 0; i + 1 < n; ++i) {
        const ssum::int128 m = ssum::int128(random_uint128(rng) >> 8);  // below 2^120
        total += ssum::uint128(m);
        w[i] = sign(m);
      }
      w[n - 1] = sign(ssum::int128(ssum::max_weight_total - total));
      std::shuffle(w.begin(), w.end(), rng);
      break;
    }
    case wide_shape::coarse:
      for (auto& x : w) {
        const ssum::int128 m = ssum::int128(rng() % 4) * (ssum::int128(1) << 120) + ssum::int128(rng() % 3);
        x = sign(m);
      }
      break;
    case wide_shape::aliased:
      for (auto& x : w) x = sign(ssum::int128(rng() % 8) + ssum::int128(rng() >> 8) * (ssum::int128(1) << 64));
      break;
  }
  return w;
}

/// The targets tried for w: a planted subset's sum, that sum moved by 2^64 (the same low 64
/// bits) and by 1, zero-sum, a random value between the least and the largest sum, and the
/// int128 limits.
inline std::vector<std::optional<ssum::int128>> wide_targets(std::mt19937_64& rng, const std::vector<ssum::int128>& w) {
  ssum::int128 planted = 0, low = 0, high = 0;
  for (const ssum::int128 x : w) {
    if (rng() % 2) planted += x;
    (x < 0 ? low : high) += x;
  }
  const ssum::int128 two_64 = ssum::int128(1) << 64;
  const ssum::int128 max = ssum::int128(ssum::max_weight_total);
  const ssum::int128 between = low + ssum::int128(random_uint128(rng) % (ssum::uint128(high - low) + 1));
  // Moved by 2^64 (or by 1) the other way where the move would leave int128: a subset sum lies
  // within (-2^127, 2^127), so one of the two directions always fits.
  const ssum::int128 top = ssum::int128(~ssum::uint128(0) >> 1), bottom = -top - 1;
  const ssum::int128 up = planted <= top - two_64 ? planted + two_64 : planted - two_64;
  const ssum::int128 down = planted >= bottom + two_64 ? planted - two_64 : planted + two_64;
  const ssum::int128 next = planted < top ? planted + 1 : planted - 1;
  return {planted, up, down, next, std::nullopt, between, max, -max - 1};
}

/// The total |weight| of p.
inline ssum::uint128 total_magnitude(const ssum::problem& p) {
  ssum::uint128 total = 0;
  for (const ssum::int128 x : p.weights) total += ssum::magnitude(x);
  return total;
}

/// s against the expected verdict and count (when s has one): a found subset is a certificate,
/// re-summed here in 128 bits, and not empty for zero-sum instances.
inline void expect_wide_answer(const ssum::problem& p, const ssum::solution& s, std::uint64_t expected,
                               const std::string& what) {
  ASSERT_EQ(s.feasible, expected > 0) << what << ": " << describe(p);
  if (s.count) {
    ASSERT_TRUE(*s.count == ssum::uint128(expected))
        << what << ": count " << s.count->to_string() << ", expected " << expected << ": " << describe(p);
  }
  if (s.feasible) {
    ASSERT_TRUE(ssum::is_certificate(p, s.subset)) << what << ": " << describe(p);
    ssum::int128 sum = 0;
    for (const std::size_t i : s.subset) sum += p.weights[i];
    ASSERT_TRUE(sum == p.target.value_or(0)) << what << ": " << describe(p);
    if (p.zero_sum()) ASSERT_FALSE(s.subset.empty()) << what << ": " << describe(p);
  } else {
    ASSERT_TRUE(s.subset.empty()) << what << ": " << describe(p);
  }
}

}  // namespace ssum_test

// Weights of up to 127 bits on the host solvers (two-list and four-list): verdicts, counts and
// certificates against a 128-bit brute force, the 64/128-bit sum choice at its boundary, targets
// at the int128 limits, and the refusal of weights whose absolute values reach 2^127.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ssum/errors.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"
#include "answer_names.hpp"
#include "small_instances.hpp"

namespace {

using ssum::int128;
using ssum::uint128;
using ssum_test::brute_force_count;
using ssum_test::describe;

const int128 int128_max = int128((uint128(1) << 127) - 1);
const int128 int128_min = -int128_max - 1;
const int128 two_64 = int128(1) << 64;
const int128 two_126 = int128(1) << 126;

uint128 random_u128(std::mt19937_64& rng) { return (uint128(rng()) << 64) | rng(); }

// Uniform enough in [0, bound] for test data (the modulo bias is irrelevant here).
int128 random_magnitude(std::mt19937_64& rng, uint128 bound) {
  return int128(bound == ~uint128(0) ? random_u128(rng) : random_u128(rng) % (bound + 1));
}

int128 with_random_sign(std::mt19937_64& rng, int128 magnitude) { return rng() % 2 ? -magnitude : magnitude; }

// Weights of n items whose absolute values add up to less than 2^127, in four shapes:
//   0 spread:     each |w| up to (2^127 - 1) / n: 2^124 for n = 8, 2^122 for n = 24;
//   1 limit:      n - 1 weights below 2^120 and one that brings the total to 2^127 - 1
//                 exactly (its magnitude just below 2^127);
//   2 coarse:     s * 2^120 + e with s in [-3, 3], e in [-2, 2]: many equal sums, so the
//                 counts run into the thousands, and the low bits must match as well as the high;
//   3 aliased:    r + k * 2^64 with r in [0, 7]: the low 64 bits of most sums agree, only the
//                 high bits tell them apart.
std::vector<int128> wide_weights(std::mt19937_64& rng, std::size_t n, int shape) {
  std::vector<int128> w(n);
  const uint128 limit = ssum::max_weight_total;
  switch (shape) {
    case 0:
      for (auto& x : w) x = with_random_sign(rng, random_magnitude(rng, limit / n));
      break;
    case 1: {
      uint128 total = 0;
      for (std::size_t i = 0; i + 1 < n; ++i) {
        w[i] = with_random_sign(rng, random_magnitude(rng, (uint128(1) << 120) - 1));
        total += uint128(w[i] < 0 ? -w[i] : w[i]);
      }
      w[n - 1] = with_random_sign(rng, int128(limit - total));
      std::shuffle(w.begin(), w.end(), rng);
      break;
    }
    case 2:
      for (auto& x : w) {
        x = int128(std::int64_t(rng() % 7) - 3) * (int128(1) << 120) + (std::int64_t(rng() % 5) - 2);
      }
      break;
    default:
      for (auto& x : w) {
        x = int128(rng() % 8) + int128(std::int64_t(rng() >> 5) - (std::int64_t(1) << 58)) * two_64;
      }
      break;
  }
  return w;
}

int128 abs_total(const ssum::problem& p) {
  int128 total = 0;
  for (const int128 w : p.weights) total += w < 0 ? -w : w;
  return total;
}

// The targets tried for one set of weights: a subset's sum (feasible), that sum moved by 2^64
// (the same low 64 bits) and by 1, zero-sum, 0, a random value within the reachable range,
// and the int128 limits.
std::vector<std::optional<int128>> targets_for(std::mt19937_64& rng, const std::vector<int128>& w) {
  int128 picked = 0, low = 0, high = 0;
  for (const int128 x : w) {
    if (rng() % 2) picked += x;
    (x < 0 ? low : high) += x;
  }
  const int128 span_random = low + random_magnitude(rng, uint128(high - low));
  return {picked, picked + two_64, picked - two_64, picked + 1, std::nullopt, 0, span_random, int128_max, int128_min};
}

// Solves p with `algo` on `threads` threads, with and without a count, and checks it against
// the brute-force count: verdict, count, certificate (re-summed here in int128).
void expect_exact(const ssum::problem& p, ssum::algorithm algo, unsigned threads, std::uint64_t expected) {
  const char* name = algo == ssum::algorithm::two_list ? "two-list" : "four-list";
  for (const bool count : {true, false}) {
    ssum::solve_options options;
    options.algo = algo;
    options.count = count;
    const ssum::solution s = ssum::solve(ssum::cpu{threads}, p, options);
    ASSERT_EQ(s.algorithm, ssum_test::expected_name(p, name, count));
    ASSERT_EQ(s.feasible, expected > 0) << name << " count " << count << ": " << describe(p);
    if (count) {
      ASSERT_TRUE(s.count.has_value());
      ASSERT_TRUE(*s.count == uint128(expected))
          << name << ": count " << s.count->to_string() << ", expected " << expected << ": " << describe(p);
    }
    if (s.feasible) {
      ASSERT_TRUE(ssum::is_certificate(p, s.subset)) << name << ": " << describe(p);
      int128 sum = 0;
      for (const std::size_t i : s.subset) sum += p.weights[i];
      ASSERT_TRUE(sum == p.target.value_or(0)) << name << ": " << describe(p);
      if (p.zero_sum()) ASSERT_FALSE(s.subset.empty());
    }
  }
}

TEST(WideWeights, BothAlgorithmsMatchA128BitBruteForce) {
  std::mt19937_64 rng(127);
  int feasible_seen = 0, infeasible_seen = 0;
  std::uint64_t largest_count = 0;
  for (const std::size_t n : {8, 9, 10, 11, 13, 14, 15, 16, 17, 19, 21, 22, 23, 24}) {
    // Brute force costs 2^n per target: many instances while small, a few at the top.
    const int rounds = n <= 16 ? 8 : n <= 21 ? 4 : 2;
    for (int round = 0; round < rounds; ++round) {
      const int shape = (round + int(n)) % 4;
      const std::vector<int128> w = wide_weights(rng, n, shape);
      std::vector<std::optional<int128>> targets = targets_for(rng, w);
      if (n > 16) targets.resize(4 + round % 2);  // the subset's sum and its neighbours; zero-sum now and then
      for (const auto& t : targets) {
        const ssum::problem p{w, t};
        ASSERT_LE(abs_total(p), int128_max) << describe(p);  // the test's own sums stay exact
        const std::uint64_t expected = brute_force_count(p);
        (expected > 0 ? feasible_seen : infeasible_seen) += 1;
        largest_count = std::max(largest_count, expected);
        const unsigned threads = 1 + unsigned(round % 3);
        expect_exact(p, ssum::algorithm::two_list, threads, expected);
        expect_exact(p, ssum::algorithm::four_list, threads, expected);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  // The instances must exercise both verdicts, and counts well beyond one.
  EXPECT_GT(feasible_seen, 100);
  EXPECT_GT(infeasible_seen, 100);
  EXPECT_GT(largest_count, 1000u);
}

// Magnitudes of 2^120..2^126 with small differences: the answer hinges on the lowest bits.
TEST(WideWeights, LowBitsDecideAmongHugeWeights) {
  const int128 big = two_126 / 2 - 5;  // total: 2^126 - 13 + 2^121 + 2
  const ssum::problem hit{{big, -(big - 3), two_126 / 64 + 1, -(two_126 / 64), 1}, int128(4)};
  const ssum::problem miss{{big, -(big - 3), two_126 / 64 + 1, -(two_126 / 64), 1}, int128(4) + two_64};
  for (const auto algo : {ssum::algorithm::two_list, ssum::algorithm::four_list}) {
    expect_exact(hit, algo, 2, brute_force_count(hit));
    expect_exact(miss, algo, 2, brute_force_count(miss));
  }
  EXPECT_GT(brute_force_count(hit), 0u);
  EXPECT_EQ(brute_force_count(miss), 0u);
}

// The host solvers add in 64 bits while the total |w| fits, in 128 bits from 2^64 on: both
// sides of that boundary, with sums that need every bit.
TEST(WideWeights, SixtyFourBitBoundary) {
  const int128 half = int128(1) << 63;
  const std::vector<ssum::problem> cases = {
      {{half, half - 1}, two_64 - 1},             // total 2^64 - 1: 64-bit sums, all items
      {{half, half}, two_64},                     // total 2^64: 128-bit sums, all items
      {{half, half}, int128(0)},                  // the empty subset
      {{half, half, 1}, two_64 + 1},              // beyond 64 bits
      {{-half, -half, 1}, -two_64 + 1},           // negative, beyond 64 bits
      {{half, -half, 7, -7}, std::nullopt},       // zero-sum with 2^63 magnitudes
      {{half, half, half, half}, 3 * half},       // C(4, 3) ways
      {{half, half, half, half}, 3 * half + two_64},
  };
  for (const ssum::problem& p : cases) {
    const std::uint64_t expected = brute_force_count(p);
    expect_exact(p, ssum::algorithm::two_list, 2, expected);
    expect_exact(p, ssum::algorithm::four_list, 2, expected);
  }
}

// Totals of exactly 2^127 - 1, with targets at and beyond the int128 limits: answered, never
// overflowing (the sanitizer build checks that).
TEST(WideWeights, TotalOf2To127Minus1AndExtremeTargets) {
  const std::vector<int128> positive = {two_126, two_126 - 1};
  const std::vector<int128> negative = {-two_126, -(two_126 - 1)};
  const std::vector<int128> mixed = {two_126, -(two_126 - 4), 3};
  const std::vector<ssum::problem> cases = {
      {positive, int128_max},       // all items: the largest sum there is
      {positive, int128_min},       {positive, int128_max - 1}, {positive, two_126}, {positive, std::nullopt},
      {negative, int128_min + 1},   // all items: the least sum there is
      {negative, int128_min},       {negative, int128_max},     {negative, -two_126},
      {mixed, int128(7)},           {mixed, int128(4)},         {mixed, two_126 + 3}, {mixed, two_126 + 4},
      {mixed, -(two_126 - 7)},      {mixed, int128_max},        {mixed, int128_min},  {mixed, std::nullopt},
  };
  int feasible = 0;
  for (const ssum::problem& p : cases) {
    ASSERT_EQ(abs_total(p), int128_max);
    const std::uint64_t expected = brute_force_count(p);
    feasible += expected > 0;
    expect_exact(p, ssum::algorithm::two_list, 1, expected);
    expect_exact(p, ssum::algorithm::four_list, 1, expected);
    for (const auto which : {ssum::backend::automatic, ssum::backend::cpu}) {
      const ssum::solution s = ssum::solve(which, 2, p);
      EXPECT_EQ(s.feasible, expected > 0) << describe(p);
      EXPECT_EQ(s.backend, "cpu");
    }
  }
  EXPECT_EQ(feasible, 8);  // 2 of the positive, 2 of the negative, 4 of the mixed
}

// A total of 2^127 or more is refused by every entry point, with the limit named; -2^127 as a
// weight too. One less is solved.
TEST(WideWeights, TotalOf2To127IsRefused) {
  const std::vector<ssum::problem> refused = {
      {{two_126, two_126}, two_126},
      {{two_126, -two_126}, std::nullopt},  // the signed sum is 0, the absolute one 2^127
      {{1, int128_max}, int128(1)},
      {{int128_min}, int128_min},
      {{int128_max, int128_max, int128_max, int128_max}, int128(0)},  // wraps past 2^128 twice
  };
  for (const ssum::problem& p : refused) {
    for (const auto algo : {ssum::algorithm::automatic, ssum::algorithm::two_list, ssum::algorithm::four_list}) {
      ssum::solve_options options;
      options.algo = algo;
      try {
        ssum::solve(ssum::cpu{2}, p, options);
        ADD_FAILURE() << "solved: " << describe(p);
      } catch (const ssum::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("2^127"), std::string::npos) << e.what();
      }
    }
    EXPECT_THROW(ssum::solve(ssum::backend::automatic, 2, p), ssum::input_error) << describe(p);
    EXPECT_THROW(ssum::solve(ssum::backend::cpu, 2, p), ssum::input_error) << describe(p);
    EXPECT_THROW(ssum::two_list_planned_bytes(p), ssum::input_error) << describe(p);
    EXPECT_THROW(ssum::check_weight_total(p), ssum::input_error) << describe(p);
  }
  const ssum::problem accepted{{two_126, two_126 - 1}, two_126};
  EXPECT_TRUE(ssum::solve(ssum::cpu{2}, accepted).feasible);
}

// is_certificate is exact even for weights that solve() refuses: a subset whose true sum
// leaves int128 matches no target, however its 128-bit sum wraps.
TEST(WideWeights, CertificateCheckNeverWraps) {
  const ssum::problem wraps_to_zero{{int128_max, int128_max, 2}, std::nullopt};  // 2^128 == 0 mod 2^128
  EXPECT_FALSE(ssum::is_certificate(wraps_to_zero, {0, 1, 2}));
  const ssum::problem down{{int128_min, int128_min}, std::nullopt};
  EXPECT_FALSE(ssum::is_certificate(down, {0, 1}));
  // Out and back in: the true sum -2^127 + 2^127 - 1 - 2^127 + 2^127 - 1 = -2, though partial sums wrap.
  const ssum::problem back{{int128_min, int128_max, int128_min, int128_max}, int128(-2)};
  EXPECT_TRUE(ssum::is_certificate(back, {0, 1, 2, 3}));
  const ssum::problem up_and_down{{int128_max, int128_max, int128_min, int128_min}, int128(-2)};
  EXPECT_TRUE(ssum::is_certificate(up_and_down, {0, 1, 2, 3}));
  EXPECT_FALSE(ssum::is_certificate(ssum::problem{up_and_down.weights, int128(-2) + two_64}, {0, 1, 2, 3}));
}

}  // namespace

// The dynamic program's count (src/solver/dp/count_dp.hpp) and ssum::big_count: against brute
// force over all subsets, the two-list's count, a plain 128-bit table over every signed sum
// (rows of two limbs), closed forms (2^z, binomials), and the refusals, cancellation and
// progress around it. Counts past 2^128 are checked against Python's integers by the
// DpCount.PythonReference test (tests/reference/count_subsets.py).
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "answer_names.hpp"
#include "small_instances.hpp"
#include "solver/dp/count_dp.hpp"
#include "ssum/big_count.hpp"
#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

using namespace ssum_test;
using ssum::big_count;
using ssum::int128;
using ssum::uint128;

namespace {

ssum::solve_options counting_dp() {
  ssum::solve_options o;
  o.algo = ssum::algorithm::dynamic_programming;
  o.count = true;
  return o;
}

ssum::solution count_dp(const ssum::problem& p, unsigned threads = 2) {
  return ssum::solve(ssum::cpu{threads}, p, counting_dp());
}

// Counts every subset over the whole signed range in 128 bits (exact below 2^128: n <= 127),
// with no reduction: the reference for rows of more than one limb.
uint128 table_count(const ssum::problem& p) {
  std::int64_t low = 0, high = 0;
  for (const int128 w : p.weights) (w < 0 ? low : high) += std::int64_t(w);
  const std::int64_t goal = std::int64_t(p.target.value_or(0));
  if (goal < low || goal > high) return 0;
  std::vector<uint128> c(std::size_t(high - low + 1), 0);
  c[std::size_t(-low)] = 1;
  for (const int128 w128 : p.weights) {
    const std::int64_t w = std::int64_t(w128);
    std::vector<uint128> next = c;
    for (std::int64_t s = low; s <= high; ++s) {
      const std::int64_t from = s - w;
      if (from >= low && from <= high) next[std::size_t(s - low)] += c[std::size_t(from - low)];
    }
    c.swap(next);
  }
  return c[std::size_t(goal - low)] - (p.zero_sum() ? 1 : 0);
}

void expect_count(const ssum::problem& p, const big_count& expected) {
  SCOPED_TRACE(describe(p));
  const ssum::solution s = count_dp(p);
  EXPECT_EQ(s.algorithm, ssum_test::expected_name(p, "dp", true));
  ASSERT_TRUE(s.count.has_value());
  EXPECT_EQ(*s.count, expected);
  EXPECT_EQ(s.feasible, expected > 0u);
  if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
}

big_count power_of_two(std::size_t k) {
  std::vector<std::uint64_t> limbs(k / 64 + 1, 0);
  limbs.back() = std::uint64_t{1} << (k % 64);
  return big_count::from_limbs(limbs);
}

// 2^k - 1: k one bits.
big_count all_ones(std::size_t k) {
  std::vector<std::uint64_t> limbs(k / 64, ~std::uint64_t{0});
  if (k % 64) limbs.push_back((std::uint64_t{1} << (k % 64)) - 1);
  return big_count::from_limbs(limbs);
}

class DpCount : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ssum::detail::count_dp_available()) GTEST_SKIP() << "this build has no GMP";
  }
};

}  // namespace

TEST(BigCount, DecimalTextComparisonsAndConversions) {
  EXPECT_EQ(big_count().to_string(), "0");
  EXPECT_EQ(big_count(7).to_string(), "7");
  EXPECT_EQ(power_of_two(64).to_string(), "18446744073709551616");
  EXPECT_EQ(all_ones(128).to_string(), "340282366920938463463374607431768211455");
  EXPECT_EQ(power_of_two(128).to_string(), "340282366920938463463374607431768211456");
  EXPECT_EQ(power_of_two(200).to_string(), "1606938044258990275541962092341162602522202993782792835301376");
  EXPECT_EQ(big_count(10000000000000000000ull).to_string(), "10000000000000000000");  // 10^19: one chunk
  EXPECT_EQ(big_count(uint128(10000000000000000000ull) * 10000000000000000000ull).to_string(),
            "100000000000000000000000000000000000000");
  std::ostringstream out;
  out << power_of_two(65);
  EXPECT_EQ(out.str(), "36893488147419103232");

  EXPECT_EQ(big_count::from_limbs({5, 0, 0}), big_count(5));  // high zero limbs dropped
  EXPECT_TRUE(big_count::from_limbs({0, 0}).limbs().empty());
  EXPECT_EQ(power_of_two(64), uint128(1) << 64);
  EXPECT_LT(all_ones(128), power_of_two(128));
  EXPECT_GT(power_of_two(64), ~std::uint64_t{0});
  EXPECT_LT(big_count::from_limbs({~std::uint64_t{0}, 1}), big_count::from_limbs({0, 2}));
  EXPECT_EQ(power_of_two(129).bits(), 130u);
  EXPECT_EQ(big_count().bits(), 0u);

  EXPECT_TRUE(all_ones(128).fits_uint128());
  EXPECT_FALSE(power_of_two(128).fits_uint128());
  EXPECT_EQ(all_ones(128).to_uint128(), ~uint128(0));
  EXPECT_THROW((void)power_of_two(128).to_uint128(), std::overflow_error);
  EXPECT_EQ(static_cast<std::uint64_t>(big_count(12)), 12u);
  EXPECT_THROW((void)static_cast<std::uint64_t>(power_of_two(64)), std::overflow_error);
}

TEST_F(DpCount, MatchesBruteForceOnSmallInstances) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 1500; ++trial) {
    const std::int64_t range = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 40 : 2000;
    const ssum::problem p = random_instance(rng, 20, range, trial % 2 == 0);
    expect_count(p, brute_force_count(p));
  }
  for (const auto& [weights, feasible] : zero_sum_shapes()) {
    const auto p = make_problem(weights, std::nullopt);
    expect_count(p, brute_force_count(p));
    EXPECT_EQ(count_dp(p).feasible, feasible) << describe(p);
  }
}

TEST_F(DpCount, EdgeTargets) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 200; ++trial) {
    ssum::problem p;
    const std::size_t n = 1 + rng() % 16;
    int128 total = 0, negative = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t w = trial % 5 == 0 ? uniform(rng, -1, 1) : uniform(rng, trial % 2 ? -30 : 0, 30);
      p.weights.push_back(w);
      (w < 0 ? negative : total) += w;
    }
    for (const int128 t : {int128(0), total, total + 1, total - 1, negative, negative - 1, int128(-1), int128(1)}) {
      p.target = t;
      expect_count(p, brute_force_count(p));
    }
  }
}

TEST_F(DpCount, ZeroWeights) {
  expect_count(make_problem({}, 0), 1u);  // the empty subset
  expect_count(make_problem({}, 3), 0u);
  expect_count(make_problem({}, std::nullopt), 0u);
  expect_count(make_problem({0, 0, 0}, 0), 8u);
  expect_count(make_problem({0, 0, 0}, 1), 0u);
  expect_count(make_problem({0, 0, 0}, std::nullopt), 7u);
  expect_count(make_problem({0, 0, 4, 9}, std::nullopt), 3u);   // one sign: the zeros' own subsets
  expect_count(make_problem({0, 2, -2, 3}, std::nullopt), 3u);  // {0}, {2, -2}, {0, 2, -2}
  expect_count(make_problem({0, 0, 1, 2, 3}, 3), 8u);
  // 200 zero weights: 2^200 subsets reach 0, all but the empty one non-empty.
  const ssum::problem zeros{std::vector<int128>(200, 0), int128(0)};
  expect_count(zeros, power_of_two(200));
  expect_count(ssum::problem{zeros.weights, std::nullopt}, all_ones(200));
  // Beside other items, each zero weight doubles the count.
  ssum::problem p = make_problem({1, 2, 3, 4, 5, 6, -3}, 6);
  const std::uint64_t base = brute_force_count(p);
  p.weights.insert(p.weights.end(), 150, int128(0));
  std::vector<std::uint64_t> limbs(3, 0);
  limbs[2] = base << (150 - 128);
  expect_count(p, big_count::from_limbs(limbs));
}

TEST_F(DpCount, AgreesWithTheTwoList) {
  std::mt19937_64 rng(31);
  ssum::solve_options two;
  two.algo = ssum::algorithm::two_list;
  two.count = true;
  for (int trial = 0; trial < 40; ++trial) {
    const ssum::problem p = random_instance(rng, 40, trial % 2 ? 30 : 3000, trial % 3 != 0);
    if (p.weights.size() < 21) continue;
    SCOPED_TRACE(describe(p));
    const ssum::solution a = ssum::solve(ssum::cpu{2}, p, two);
    const ssum::solution b = count_dp(p, 1 + trial % 2);
    ASSERT_TRUE(a.count && b.count);
    EXPECT_EQ(*a.count, *b.count);
    EXPECT_EQ(a.feasible, b.feasible);
  }
}

// 64, 65 and up to 127 items: rows widen to two limbs; every count is below 2^127.
TEST_F(DpCount, WideRowsAgreeWithA128BitTable) {
  std::mt19937_64 rng(17);
  for (const std::size_t n : {63u, 64u, 65u, 100u, 127u}) {
    for (int trial = 0; trial < 6; ++trial) {
      ssum::problem p;
      std::int64_t total = 0;
      for (std::size_t i = 0; i < n; ++i) {
        p.weights.push_back(uniform(rng, trial % 2 ? -9 : 0, 12));
        total += std::int64_t(p.weights.back());
      }
      if (trial % 3 == 0) p.target = total / 2;
      else if (trial % 3 == 1) p.target = uniform(rng, -5, total / 3);
      expect_count(p, table_count(p));
    }
  }
  // All equal: C(127, 63) subsets of 127 ones sum to 63, a 124-bit number.
  ssum::problem ones{std::vector<int128>(127, 1), int128(63)};
  expect_count(ones, table_count(ones));
  EXPECT_GT(table_count(ones), uint128(1) << 120);
}

TEST_F(DpCount, AutomaticCountsBeyond120Items) {
  const ssum::problem p{std::vector<int128>(1000, 1), int128(2)};
  ssum::solve_options o;
  o.count = true;
  const ssum::solution s = ssum::solve(ssum::cpu{2}, p, o);
  EXPECT_EQ(s.algorithm, "dp");
  EXPECT_TRUE(s.feasible);
  ASSERT_TRUE(s.count.has_value());
  EXPECT_EQ(*s.count, 499500u);  // C(1000, 2)
  EXPECT_NE(s.plan.reason.find("a counting dynamic-programming table"), std::string::npos) << s.plan.reason;
  const ssum::solution none = ssum::solve(ssum::cpu{2}, ssum::problem{p.weights, std::nullopt}, o);
  EXPECT_FALSE(none.feasible);
  ASSERT_TRUE(none.count.has_value());
  EXPECT_EQ(*none.count, 0u);
  // Below 121 items automatic keeps the meet-in-the-middle count.
  const ssum::solution small = ssum::solve(ssum::cpu{1}, make_problem({1, 2, 3}, 3), o);
  EXPECT_EQ(small.algorithm, "two-list");
  ASSERT_TRUE(small.count.has_value());
  EXPECT_EQ(*small.count, 2u);
}

TEST_F(DpCount, RefusesTablesThatDoNotFit) {
  ssum::solve_options limited = counting_dp();
  limited.memory_limit = 4096;
  // 300 items of 1..2000: (bound + 1) rows of 5 limbs, far above 4 KiB.
  std::vector<int128> w;
  for (int i = 0; i < 300; ++i) w.push_back(1 + (i * 7919) % 2000);
  const ssum::problem p{w, int128(100000)};
  try {
    ssum::solve(ssum::cpu{1}, p, limited);
    FAIL() << "planned";
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_NE(std::string(e.what()).find("the dynamic program for n = 300 needs"), std::string::npos) << e.what();
  }
  ssum::solve_options automatic;
  automatic.count = true;
  automatic.memory_limit = 4096;
  try {
    ssum::solve(ssum::cpu{1}, p, automatic);
    FAIL() << "planned";
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_NE(std::string(e.what()).find("a counting dynamic-programming table of"), std::string::npos) << e.what();
  }
  // The decision alone fits where the count does not.
  ssum::solve_options decide = limited;
  decide.count = false;
  decide.memory_limit = 1 << 20;
  limited.memory_limit = 1 << 20;
  EXPECT_NO_THROW(ssum::solve(ssum::cpu{1}, p, decide));
  EXPECT_THROW(ssum::solve(ssum::cpu{1}, p, limited), ssum::insufficient_memory);
}

TEST_F(DpCount, CancelsAndReportsProgress) {
  std::vector<int128> w;
  for (int i = 0; i < 400; ++i) w.push_back(1 + i % 97);
  const ssum::problem p{w, int128(5000)};
  std::atomic<bool> cancel{true};
  ssum::solve_options o = counting_dp();
  o.cancel = &cancel;
  EXPECT_THROW(ssum::solve(ssum::cpu{1}, p, o), ssum::interrupted);
  cancel = false;
  double last = 0;
  bool monotone = true, counted = false;
  o.on_progress = [&](const ssum::progress& pr) {
    EXPECT_TRUE(pr.stage == "dp" || pr.stage == "count") << pr.stage;
    counted = counted || pr.stage == "count";
    monotone = monotone && pr.overall >= last && pr.overall <= 1;
    last = pr.overall;
  };
  const ssum::solution s = ssum::solve(ssum::cpu{1}, p, o);
  EXPECT_TRUE(s.feasible);
  ASSERT_TRUE(s.count.has_value());
  EXPECT_GT(s.count->bits(), 300u);
  EXPECT_TRUE(monotone);
  EXPECT_TRUE(counted);
  EXPECT_EQ(last, 1.0);
}

// Many items through ssum::solve as a user calls it: the automatic choice (the greedy fill
// first where solutions abound, the divisor groups among the reductions, the tables) against
// the dynamic program named outright, which neither the fill nor a choice can change: the same
// verdicts, every subset a certificate of the original input, and counts that never come from
// the fill.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "solver/dp/count_dp.hpp"
#include "ssum/generate.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;

// n weights in [1, most] (a share of them negative), the target a random point of the middle
// half of the reachable range, or zero-sum.
ssum::problem random_instance(std::mt19937_64& rng, std::size_t n, std::int64_t most, double negative,
                              bool zero_sum) {
  ssum::problem p;
  int128 low = 0, high = 0;
  for (std::size_t i = 0; i < n; ++i) {
    int128 w = int128(1 + std::int64_t(rng() % std::uint64_t(most)));
    if (std::uniform_real_distribution<double>(0, 1)(rng) < negative) w = -w;
    (w < 0 ? low : high) += w;
    p.weights.push_back(w);
  }
  if (!zero_sum) {
    const double at = std::uniform_real_distribution<double>(0.25, 0.75)(rng);
    p.target = low + int128(double(high - low) * at);
  }
  return p;
}

ssum::solve_options named_dp(bool count) {
  ssum::solve_options o;
  o.algo = ssum::algorithm::dynamic_programming;
  o.count = count;
  return o;
}

TEST(ManyItems, AutomaticAgreesWithTheDynamicProgram) {
  std::mt19937_64 rng(3939);
  int filled = 0, feasible = 0, infeasible = 0;
  for (int trial = 0; trial < 36; ++trial) {
    const std::size_t n = trial % 3 == 0 ? 2000 : trial % 3 == 1 ? 500 : 200;
    const std::int64_t most = n == 2000 ? 1000 : n == 500 ? 100000 : 10000;  // 500 items: tables of 10 ms and more
    const bool zero_sum = trial % 4 == 3;
    const double negative = trial % 2 ? 0.3 : 0.0;
    ssum::problem p = random_instance(rng, n, most, zero_sum ? 0.5 : negative, zero_sum);
    if (trial % 9 == 4) {  // every weight even, the target odd: no subset, the gcd says so
      for (int128& w : p.weights) w *= 2;
      p.target = 2 * *p.target + 1;
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + ", n = " + std::to_string(n));
    const ssum::solution automatic = ssum::solve(ssum::backend::cpu, 2, p);
    const ssum::solution table = ssum::solve(ssum::backend::cpu, 2, p, named_dp(false));
    ASSERT_EQ(automatic.status, table.status) << automatic.plan.reason;
    if (automatic.feasible) {
      EXPECT_TRUE(ssum::is_certificate(p, automatic.subset)) << automatic.algorithm;
      EXPECT_TRUE(ssum::is_certificate(p, table.subset));
      ++feasible;
    } else {
      ++infeasible;
    }
    EXPECT_NE(table.algorithm, "greedy-fill");  // a named algorithm runs as named
    filled += automatic.algorithm == "greedy-fill";
    if (zero_sum) EXPECT_NE(automatic.algorithm, "greedy-fill");  // the fill takes targets only
  }
  EXPECT_GT(filled, 5) << "the fill never answered: the comparison proves nothing about it";
  EXPECT_GT(infeasible, 2);
  EXPECT_GT(feasible, 20);
}

TEST(ManyItems, CountsNeverComeFromTheFill) {
  if (!ssum::detail::count_dp_available()) GTEST_SKIP() << "this build has no GMP: the dynamic program cannot count";
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 12; ++trial) {
    const bool zero_sum = trial % 4 == 3;
    const ssum::problem p = random_instance(rng, 150 + 10 * std::size_t(trial), 100, trial % 2 ? 0.3 : 0.0, zero_sum);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ssum::solve_options count;
    count.count = true;
    const ssum::solution automatic = ssum::solve(ssum::backend::cpu, 2, p, count);
    const ssum::solution table = ssum::solve(ssum::backend::cpu, 2, p, named_dp(true));
    ASSERT_TRUE(automatic.count && table.count);
    EXPECT_EQ(automatic.count->to_string(), table.count->to_string());
    EXPECT_NE(automatic.algorithm, "greedy-fill");
    EXPECT_EQ(automatic.feasible, table.feasible);
  }
}

// The classes of `ssum gen` at n = 10^5: each answered, and by the method that answers it in
// milliseconds (the figures are in docs/performance.md, "Many items").
TEST(ManyItems, EveryClassAtOneHundredThousandItems) {
  const struct {
    const char* cls;
    ssum::status status;
    const char* algorithm;
  } expected[] = {{"pthree", ssum::status::feasible, "greedy-fill"},
                  {"psix", ssum::status::feasible, "greedy-fill"},
                  {"evenodd", ssum::status::infeasible, "reductions"},
                  {"avis", ssum::status::infeasible, "reductions"},
                  {"somatoth", ssum::status::infeasible, "reductions"},
                  {"random", ssum::status::feasible, "completion"},
                  {"partition", ssum::status::feasible, "completion"}};
  for (const auto& e : expected) {
    SCOPED_TRACE(e.cls);
    const ssum::problem p = ssum::generate(e.cls, 100000, std::nullopt, 1);
    const ssum::solution s = ssum::solve(ssum::backend::cpu, 2, p);
    EXPECT_EQ(s.status, e.status) << s.plan.reason;
    EXPECT_EQ(s.algorithm, e.algorithm) << s.plan.reason;
    if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
}

}  // namespace

// Plans that must keep their promises: a heavy tail (many light weights, a few near 2^100 / n)
// answered by the heavy split, every subset checked here by its own sum; the completion search
// held to its planned bytes; teams capped at what the hardware runs; the greedy fill's answer
// reporting its plan's bytes and the whole solve's time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "solver/choose.hpp"
#include "ssum/detail/cpu_team.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum::int128;

// n weights: 99% uniform in [1, 10^6], 1% uniform in [1, 2^100 / n]; the target the sum of a
// random half of them, so the instance is feasible.
ssum::problem heavy_tail(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const unsigned __int128 heavy_most = (static_cast<unsigned __int128>(1) << 100) / n;
  ssum::problem p;
  int128 target = 0;
  for (std::size_t i = 0; i < n; ++i) {
    int128 w;
    if (rng() % 100 != 0) {
      w = int128(1 + rng() % 1000000);
    } else {
      const unsigned __int128 bits = (static_cast<unsigned __int128>(rng()) << 64) | rng();
      w = int128(1 + bits % heavy_most);
    }
    p.weights.push_back(w);
    if (rng() & 1) target += w;
  }
  p.target = target;
  return p;
}

// The subset's own sum, indices distinct and in range: no help from the solver's checks.
void expect_subset_sums_to_target(const ssum::problem& p, const ssum::solution& s) {
  ASSERT_TRUE(s.feasible);
  std::set<std::size_t> seen;
  int128 sum = 0;
  for (const std::size_t i : s.subset) {
    ASSERT_LT(i, p.weights.size());
    ASSERT_TRUE(seen.insert(i).second) << "index " << i << " twice";
    sum += p.weights[i];
  }
  EXPECT_TRUE(sum == *p.target) << "the subset misses the target";
}

double seconds_of(const std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(HeavySplit, AutomaticAnswersAHeavyTail) {
  for (const std::size_t n : {std::size_t{10000}, std::size_t{100000}}) {
    for (const std::uint64_t seed : {1u, 2u}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", seed " + std::to_string(seed));
      const ssum::problem p = heavy_tail(n, seed);
      ssum::solve_options o;
      o.time_limit = 60;  // a bound for a broken split: it takes about a second at most
      const ssum::solution s = ssum::solve(ssum::backend::automatic, 0, p, o);
      ASSERT_EQ(s.status, ssum::status::feasible) << s.plan.reason;
      EXPECT_EQ(s.algorithm, "heavy-split");
      expect_subset_sums_to_target(p, s);
      EXPECT_GT(s.planned_bytes, 0u);
    }
  }
}

// The completion search alone cannot bring the heavy items near the light ones; its classes
// then hold far more pairs than planned. It must refuse rather than grow past its plan.
TEST(HeavySplit, TheCompletionSearchKeepsItsPlan) {
  const ssum::problem p = heavy_tail(10000, 1);
  ssum::solve_options o;
  o.algo = ssum::algorithm::completion_search;
  o.time_limit = 120;  // far beyond the second its refusal takes
  o.memory_limit = std::uint64_t(1) << 30;
  try {
    const ssum::solution s = ssum::solve(ssum::backend::cpu, 0, p, o);
    ASSERT_NE(s.status, ssum::status::unknown) << "ran to its time limit";
    if (s.feasible) expect_subset_sums_to_target(p, s);
    EXPECT_LE(double(s.planned_bytes), double(o.memory_limit));
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_NE(std::string(e.what()).find("completion search"), std::string::npos) << e.what();
  }
}

TEST(ThreadCap, ATeamIsNoLargerThanTheHardwareAllows) {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned most = ssum::detail::threads_per_hardware_thread * hardware;
  EXPECT_LE(ssum::detail::capped_team(4096), most);
  EXPECT_EQ(ssum::detail::capped_team(4096, 3), std::min(3u, most));
  EXPECT_EQ(ssum::detail::capped_team(0), 1u);
  const ssum::problem p = ssum::generate("random", 39, std::nullopt, 7);
  const auto start = std::chrono::steady_clock::now();
  const ssum::solution s = ssum::solve(ssum::cpu{4096}, p, {});
  const double seconds = seconds_of(start);
  EXPECT_LE(s.threads, most);
  EXPECT_LT(seconds, 20.0);  // 49 s before the cap; well under a second after it
  ssum::solve_options dp;
  dp.algo = ssum::algorithm::dynamic_programming;
  const ssum::problem small = ssum::generate("random", 200, 12, 3);
  EXPECT_LE(ssum::solve(ssum::backend::cpu, 4096, small, dp).threads, most);
  ssum::solve_options four;
  four.algo = ssum::algorithm::four_list;
  EXPECT_LE(ssum::solve(ssum::backend::cpu, 4096, ssum::generate("random", 24, std::nullopt, 5), four).threads, most);
}

TEST(GreedyFillAnswer, ReportsItsPlanAndTheWholeSolve) {
  const ssum::problem p = ssum::generate("psix", 100000, std::nullopt, 12345);
  const auto start = std::chrono::steady_clock::now();
  const ssum::solution s = ssum::solve(ssum::backend::automatic, 0, p, {});
  const double wall = seconds_of(start);
  ASSERT_EQ(s.algorithm, "greedy-fill") << s.plan.reason;
  expect_subset_sums_to_target(p, s);
  EXPECT_GT(s.planned_bytes, 0u);
  EXPECT_GE(s.seconds.total, s.seconds.search);
  EXPECT_LE(s.seconds.total, wall);
  EXPECT_GE(s.seconds.total * 5, wall);  // the decision and the reductions included
}

}  // namespace

// The host dynamic program (src/solver/dp/bitset_dp.hpp) through ssum::solve: against brute
// force and the two-list, at the edges of the target range, over multi-word and multi-block
// shifts, and the refusals, cancellation and progress around it.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "small_instances.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

using namespace ssum_test;
using ssum::int128;

namespace {

ssum::solve_options dp_options() {
  ssum::solve_options o;
  o.algo = ssum::algorithm::dynamic_programming;
  return o;
}

ssum::solution solve_dp(const ssum::problem& p, unsigned threads = 2) {
  return ssum::solve(ssum::cpu{threads}, p, dp_options());
}

void expect_dp_matches_brute_force(const ssum::problem& p) {
  SCOPED_TRACE(describe(p));
  const ssum::solution s = solve_dp(p);
  EXPECT_EQ(s.algorithm, "dp");
  EXPECT_EQ(s.feasible, brute_force_count(p) > 0);
  if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
}

}  // namespace

TEST(Dp, MatchesBruteForceOnSmallInstances) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::int64_t range = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 60 : 3000;
    expect_dp_matches_brute_force(random_instance(rng, 20, range, trial % 2 == 0));
  }
  for (const auto& [weights, feasible] : zero_sum_shapes()) {
    const auto p = make_problem(weights, std::nullopt);
    EXPECT_EQ(solve_dp(p).feasible, feasible) << describe(p);
    expect_dp_matches_brute_force(p);
  }
}

TEST(Dp, EdgeTargets) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    ssum::problem p;
    const std::size_t n = 1 + rng() % 16;
    int128 total = 0, negative = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t w = uniform(rng, trial % 2 ? -200 : 0, 200);
      p.weights.push_back(w);
      (w < 0 ? negative : total) += w;
    }
    for (const int128 t : {int128(0), total, total + 1, total - 1, negative, negative - 1, negative + 1, int128(-1)}) {
      p.target = t;
      expect_dp_matches_brute_force(p);
    }
  }
}

TEST(Dp, AgreesWithTheTwoList) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    ssum::problem p = random_instance(rng, 40, trial % 2 ? 5000 : 100000, trial % 3 == 0);
    if (p.weights.size() < 21) continue;
    SCOPED_TRACE(describe(p));
    ssum::solve_options two;
    two.algo = ssum::algorithm::two_list;
    const ssum::solution a = ssum::solve(ssum::cpu{2}, p, two);
    const ssum::solution b = solve_dp(p, 1 + trial % 2);
    EXPECT_EQ(a.feasible, b.feasible);
    if (b.feasible) EXPECT_TRUE(ssum::is_certificate(p, b.subset));
  }
}

// Bounds of some 10^8 sums: several 2^20-word blocks per item, split among the threads.
TEST(Dp, LargeTablesSplitIntoBlocksAndThreads) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 4; ++trial) {
    ssum::problem p;
    for (int i = 0; i < 10; ++i) p.weights.push_back(uniform(rng, 1, 40000000));
    int128 t = 0;
    for (const int128 w : p.weights) t += (rng() & 1) ? w : 0;
    p.target = trial == 3 ? t + 1 : t;
    expect_dp_matches_brute_force(p);
  }
}

TEST(Dp, ListsItsReductions) {
  const auto p = make_problem({0, 6, -9, 15, 300}, 12);
  const ssum::solution s = solve_dp(p);
  ASSERT_TRUE(s.feasible);
  EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  ASSERT_GE(s.reductions.size(), 3u);
  EXPECT_EQ(s.reductions[0], "zero weights set aside (1)");
  EXPECT_EQ(s.reductions[1], "divided by the gcd 3");
  EXPECT_EQ(s.plan.algorithm, "dp");
}

TEST(Dp, CountingIsRefusedAndCudaNeedsADevice) {
  ssum::solve_options o = dp_options();
  o.count = true;
  try {
    ssum::solve(ssum::cpu{1}, make_problem({1, 2, 3}, 3), o);
    FAIL() << "a count was planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "counting with the dynamic program is not available yet");
  }
  // On CUDA: refused only without a CUDA build or device (tests/cuda/test_dp_cuda.cpp has the rest).
  if (!ssum::cuda_compiled() || ssum::cuda_devices().empty()) {
    EXPECT_THROW(ssum::solve(ssum::backend::cuda, 0, make_problem({1, 2, 3}, 3), dp_options()),
                 ssum::backend_unavailable);
  } else {
    const ssum::solution on_device = ssum::solve(ssum::backend::cuda, 0, make_problem({1, 2, 3}, 3), dp_options());
    EXPECT_TRUE(on_device.feasible);
    EXPECT_EQ(on_device.backend, "cuda");
  }
  // Under automatic, a count of a small instance stays with the meet-in-the-middle.
  ssum::solve_options count;
  count.count = true;
  const ssum::solution s = ssum::solve(ssum::cpu{1}, make_problem({1, 2, 3}, 3), count);
  EXPECT_EQ(s.algorithm, "two-list");
  ASSERT_TRUE(s.count.has_value());
  EXPECT_EQ(*s.count, ssum::uint128(2));
}

TEST(Dp, AutomaticTakesItBeyond120Items) {
  const ssum::problem p{std::vector<int128>(1000000, 1), int128(5)};
  const ssum::solution s = ssum::solve(ssum::cpu{2}, p);
  EXPECT_EQ(s.algorithm, "dp");
  EXPECT_TRUE(s.feasible);
  EXPECT_EQ(s.subset.size(), 5u);
  const ssum::problem q{std::vector<int128>(121, 2), int128(7)};
  const ssum::solution t = ssum::solve(ssum::cpu{2}, q);
  EXPECT_EQ(t.algorithm, "dp");
  EXPECT_FALSE(t.feasible);
  EXPECT_NE(t.plan.reason.find("the gcd 2 does not divide the target"), std::string::npos) << t.plan.reason;
}

TEST(Dp, BeyondEveryAlgorithmTheRefusalSaysWhatEachNeeds) {
  std::vector<int128> w;
  for (int i = 0; i < 200; ++i) w.push_back((int128(1) << 60) + 2 * i + 1);
  const ssum::problem p{w, int128(1) << 62};
  try {
    ssum::solve(ssum::cpu{2}, p);
    FAIL() << "planned";
  } catch (const ssum::insufficient_memory& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("n = 200 with a reduced target of ", 0), 0u) << m;
    EXPECT_NE(m.find("a dynamic-programming table of"), std::string::npos) << m;
    EXPECT_NE(m.find("meet-in-the-middle 2^100 sums"), std::string::npos) << m;
    EXPECT_TRUE(m.ends_with("no algorithm here can answer it")) << m;
  }
  ssum::solve_options limited = dp_options();
  limited.memory_limit = 1024;
  EXPECT_THROW(ssum::solve(ssum::cpu{1}, make_problem({1000, 2000, 3001}, 3000), limited), ssum::insufficient_memory);
}

TEST(Dp, CancelsAndReportsProgress) {
  const ssum::problem p{std::vector<int128>(300, 7), int128(1001)};
  std::atomic<bool> cancel{true};
  ssum::solve_options o = dp_options();
  o.cancel = &cancel;
  EXPECT_THROW(ssum::solve(ssum::cpu{1}, p, o), ssum::interrupted);
  cancel = false;
  double last = 0;
  bool monotone = true;
  o.on_progress = [&](const ssum::progress& pr) {
    EXPECT_EQ(pr.stage, "dp");
    monotone = monotone && pr.overall >= last;
    last = pr.overall;
  };
  std::vector<int128> w;
  for (int i = 0; i < 300; ++i) w.push_back(1000 + i);
  EXPECT_FALSE(ssum::solve(ssum::cpu{1}, ssum::problem{w, int128(1)}, o).feasible);  // heavy: all removed
  last = 0;
  const ssum::solution s = ssum::solve(ssum::cpu{1}, ssum::problem{w, int128(150001)}, o);
  EXPECT_TRUE(s.feasible);
  EXPECT_TRUE(monotone);
  EXPECT_EQ(last, 1.0);
}

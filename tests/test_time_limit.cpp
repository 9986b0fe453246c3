// solve_options::time_limit: every host algorithm stops when it runs out and answers
// status::unknown (no verdict, no subset), a solve that ends in time answers as without a
// limit, the caller's cancel still interrupts, and a bad limit is refused.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "small_instances.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum::int128;
using ssum_test::long_no_instance;
using ssum_test::uniform;

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The limit is honoured within its 10% and 0.2 s; the test allows a loaded machine 1 s more.
void expect_unknown_within(const ssum::problem& p, ssum::algorithm algo, double limit, const std::string& what) {
  SCOPED_TRACE(what);
  ssum::solve_options o;
  o.algo = algo;
  o.time_limit = limit;
  ssum::solution s;
  const double took = seconds_of([&] { s = ssum::solve(ssum::cpu{}, p, o); });
  EXPECT_EQ(s.status, ssum::status::unknown) << s.algorithm;
  EXPECT_FALSE(s.feasible);
  EXPECT_TRUE(s.subset.empty());
  EXPECT_FALSE(s.count.has_value());
  EXPECT_FALSE(s.plan.algorithm.empty());
  EXPECT_LT(took, limit * 5 + 1.0) << s.plan.algorithm;  // the goal, 10%, is measured by scripts/time-limits
  EXPECT_GE(took, limit * 0.99);
}

TEST(TimeLimit, EveryHostAlgorithmStopsAndAnswersUnknown) {
  // Two-list: 2^26 sums per list (about 1.5 s on two cores); four-list: n = 64, 2^32 pairs.
  expect_unknown_within(long_no_instance(52, 60, 1), ssum::algorithm::two_list, 0.2, "two-list");
  expect_unknown_within(long_no_instance(64, 60, 2), ssum::algorithm::four_list, 0.3, "four-list");
  // The four-list of 100 items builds quarter lists of 2^25 sums before any class.
  expect_unknown_within(long_no_instance(100, 60, 3), ssum::algorithm::four_list, 0.3, "four-list, n = 100");
  // The dynamic programs: 2000 items below 2^18 (the bitset or the balanced program, as
  // chosen), and a zero-sum instance (the bitset's two tables).
  expect_unknown_within(long_no_instance(2000, 18, 4), ssum::algorithm::dynamic_programming, 0.3, "dp, target");
  std::mt19937_64 rng(5);
  ssum::problem zero;
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t w = 2 * uniform(rng, 1, 100000);
    zero.weights.push_back(i % 2 ? -w : w + 1);  // the positive ones odd, the negative even
  }
  // Odd positive weights and even negative ones: a zero sum takes an even number of odd ones,
  // which exist; the tables run to the end regardless (zero-sum has no early exit).
  expect_unknown_within(zero, ssum::algorithm::dynamic_programming, 0.3, "dp, zero-sum");
}

TEST(TimeLimit, ASolveThatEndsInTimeAnswersAsWithoutALimit) {
  for (const bool feasible : {true, false}) {
    ssum::problem p = ssum::generate("pthree", 200, std::nullopt, 7);
    if (!feasible) {
      int128 total = 0;
      for (const int128 w : p.weights) total += w;
      p.target = total + 1;
    }
    ssum::solve_options o;
    o.time_limit = 30;
    const ssum::solution limited = ssum::solve(ssum::cpu{}, p, o);
    const ssum::solution plain = ssum::solve(ssum::cpu{}, p);
    EXPECT_EQ(limited.status, feasible ? ssum::status::feasible : ssum::status::infeasible);
    EXPECT_EQ(plain.status, limited.status);
    EXPECT_EQ(limited.feasible, feasible);
    if (feasible) EXPECT_TRUE(ssum::is_certificate(p, limited.subset));
  }
}

TEST(TimeLimit, TheCallersCancelStillInterrupts) {
  std::atomic<bool> cancel{false};
  ssum::solve_options o;
  o.algo = ssum::algorithm::four_list;
  o.time_limit = 60;
  o.cancel = &cancel;
  std::thread raise([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  const ssum::problem p = long_no_instance(64, 60, 6);
  double took = 0;
  EXPECT_THROW(took = seconds_of([&] { (void)ssum::solve(ssum::cpu{}, p, o); }), ssum::interrupted);
  raise.join();
  EXPECT_LT(took, 30.0);
}

// One watcher serves every solve in the process: solves on several threads at once, each
// with its own limit, each stop at its own deadline and only then; many short solves in a row
// under a limit all answer.
TEST(TimeLimit, SolvesOnSeveralThreadsEachKeepTheirOwnLimit) {
  const ssum::problem hard = long_no_instance(64, 60, 2);
  std::vector<double> took(3);
  std::vector<ssum::solution> answers(3);
  std::vector<std::thread> team;
  for (std::size_t j = 0; j < 3; ++j) {
    team.emplace_back([&, j] {
      ssum::solve_options o;
      o.algo = ssum::algorithm::four_list;
      o.time_limit = 0.3 * double(j + 1);
      took[j] = seconds_of([&] { answers[j] = ssum::solve(ssum::cpu{1}, hard, o); });
    });
  }
  ssum::solve_options o;
  o.time_limit = 30;
  for (int k = 0; k < 300; ++k) {
    const ssum::problem p = ssum::generate("random", 12, std::nullopt, 1000 + std::uint64_t(k));
    const ssum::solution s = ssum::solve(ssum::cpu{1}, p, o);
    ASSERT_NE(s.status, ssum::status::unknown) << k;
    if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
  for (std::thread& t : team) t.join();
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_EQ(answers[j].status, ssum::status::unknown) << j;
    EXPECT_GE(took[j], 0.3 * double(j + 1) * 0.99) << j;
    EXPECT_LT(took[j], 0.3 * double(j + 1) * 5 + 1.0) << j;
  }
}

TEST(TimeLimit, ABadLimitIsRefused) {
  const ssum::problem p = ssum::generate("pthree", 50, std::nullopt, 1);
  for (const double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    ssum::solve_options o;
    o.time_limit = bad;
    EXPECT_THROW((void)ssum::solve(ssum::cpu{}, p, o), std::invalid_argument) << bad;
  }
}

}  // namespace

namespace {

// A cancel that lands anywhere in the two-list's generation stops every thread of the team at
// the same point: raised after 0 to 6 ms, over and over, each solve must end (a team that
// parts at different barriers hangs), interrupted or answered.
TEST(TimeLimit, ACancelAnywhereInTheGenerationStopsTheWholeTeam) {
  const ssum::problem p = long_no_instance(44, 40, 3);
  ssum::solve_options o;
  o.algo = ssum::algorithm::two_list;
  int interrupted = 0;
  for (int run = 0; run < 120; ++run) {
    std::atomic<bool> cancel{false};
    o.cancel = &cancel;
    std::thread raiser([&cancel, run] {
      std::this_thread::sleep_for(std::chrono::microseconds(50 * run));
      cancel.store(true);
    });
    try {
      (void)ssum::solve(ssum::cpu{2}, p, o);
    } catch (const ssum::interrupted&) {
      ++interrupted;
    }
    raiser.join();
  }
  EXPECT_GT(interrupted, 10);
}

}  // namespace

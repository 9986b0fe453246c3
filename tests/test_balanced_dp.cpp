// Pisinger's balanced dynamic program (src/solver/dp/balanced_dp.hpp), called on the
// reductions directly: against brute force and the bitset dynamic program, at the edges of
// the target range, on the generator's classes, with the smallest log (the trace back rebuilt
// in segments), and the refusal, cancellation and progress around it. Every certificate is
// verified on the original instance.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "small_instances.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/errors.hpp"
#include "ssum/generate.hpp"

using namespace ssum_test;
using ssum::int128;
using ssum::detail::reduction;

namespace {

// The reduction of p when it leaves a table to fill (target mode); empty when the range check
// or the reductions answer it alone.
std::optional<reduction> open_reduction(const ssum::problem& p) {
  const ssum::detail::flipped_totals totals = ssum::detail::totals_of(p);
  if (totals.out_of_range()) return std::nullopt;
  reduction r = ssum::detail::reduce(p, totals);
  if (r.outcome != reduction::verdict::open) return std::nullopt;
  return r;
}

// The balanced program's answer to p, its certificate verified; nullopt when the reductions
// answer p without it (then brute force must say the same through the plain solve).
std::optional<bool> balanced_answer(const ssum::problem& p, const ssum::solve_options& options = {}) {
  const std::optional<reduction> r = open_reduction(p);
  if (!r) return std::nullopt;
  const ssum::solution s = ssum::detail::solve_balanced(ssum::detail::host_share_for(1, options), p, *r, options);
  EXPECT_EQ(s.algorithm, "balanced-dp");
  if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset)) << describe(p);
  return s.feasible;
}

bool bitset_answer(const ssum::problem& p, unsigned threads) {
  const std::optional<reduction> r = open_reduction(p);
  const ssum::solution s = ssum::detail::solve_dp(ssum::detail::host_share_for(threads, {}), p, *r, {});
  if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  return s.feasible;
}

// Brute force against the balanced program; returns whether the program ran (not answered
// by the reductions alone).
bool expect_matches_brute_force(const ssum::problem& p) {
  SCOPED_TRACE(describe(p));
  const std::optional<bool> got = balanced_answer(p);
  if (got) EXPECT_EQ(*got, brute_force_count(p) > 0);
  return got.has_value();
}

ssum::problem with_target(std::vector<std::int64_t> weights, int128 target) {
  return make_problem(weights, target);
}

int128 total_of(const ssum::problem& p) {
  int128 t = 0;
  for (const int128 w : p.weights) t += w;
  return t;
}

}  // namespace

TEST(BalancedDp, MatchesBruteForceOnSmallInstances) {
  std::mt19937_64 rng(21);
  int ran = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::int64_t range = trial % 4 == 0 ? 3 : trial % 4 == 1 ? 20 : trial % 4 == 2 ? 300 : 100000;
    ssum::problem p = random_instance(rng, 20, range, trial % 3 == 0);
    if (!p.target) p.target = uniform(rng, 0, range);
    ran += expect_matches_brute_force(p);
  }
  EXPECT_GT(ran, 1500);  // most instances reach the program itself
}

TEST(BalancedDp, EdgeTargetsAndShapes) {
  std::mt19937_64 rng(8);
  int ran = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 1 + rng() % 18;
    std::vector<std::int64_t> w;
    for (std::size_t i = 0; i < n; ++i) w.push_back(uniform(rng, 1, trial % 2 ? 9 : 500));
    ssum::problem p = make_problem(w, 0);
    const int128 total = total_of(p);
    for (const int128 t : {int128(0), int128(1), int128(2), total, total - 1, total / 2, total / 2 + 1,
                           total / 2 - 1, int128(w[0]), int128(w[0]) - 1}) {
      p.target = t;
      ran += expect_matches_brute_force(p);
    }
  }
  EXPECT_GT(ran, 1000);
  // All weights equal, one item, weights equal to the target, r = 1.
  for (int k = 0; k <= 13; ++k) {
    expect_matches_brute_force(with_target(std::vector<std::int64_t>(12, 7), 7 * k));
    expect_matches_brute_force(with_target(std::vector<std::int64_t>(12, 7), 7 * k + 3));
    expect_matches_brute_force(with_target(std::vector<std::int64_t>(13, 1), k));
    expect_matches_brute_force(with_target({5, 9, 9, 9, 4, 9}, k));
  }
  for (const std::int64_t t : {0, 1, 4, 5, 6}) expect_matches_brute_force(with_target({5}, t));
  EXPECT_EQ(balanced_answer(with_target({9, 9, 9, 2, 3}, 9)), std::optional<bool>(true));
  EXPECT_EQ(balanced_answer(with_target({4, 6, 8, 3, 10}, 20)), std::optional<bool>(true));
  expect_matches_brute_force(with_target({6, 10, 14, 3, 9}, 11));  // none (the residue test may see it)
}

TEST(BalancedDp, AgreesWithTheBitsetOnManyItems) {
  std::mt19937_64 rng(13);
  int feasible = 0, infeasible = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const std::size_t n = std::size_t(uniform(rng, 21, trial % 3 == 0 ? 3000 : 300));
    const std::int64_t r = trial % 4 == 0 ? 1 : trial % 4 == 1 ? 10 : trial % 4 == 2 ? 1000 : 30000;
    ssum::problem p;
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(uniform(rng, trial % 5 == 0 ? r / 2 + 1 : 1, r));
    const int128 total = total_of(p);
    // Near total / 2; and weights near multiples of 1018 (2 x 509, a prime above the residue test's
    // moduli) whose small parts add up to less than 509, so that half of these targets fall
    // between the reachable sums.
    p.target = total / 2 + uniform(rng, -3, 3);
    if (trial % 5 == 4) {
      p.weights.resize(std::min<std::size_t>(n, 150));
      for (auto& w : p.weights) w = 1018 * uniform(rng, 1, 9) + uniform(rng, 0, 3);
      p.target = total_of(p) / 2 + 509;
    }
    SCOPED_TRACE(describe(p));
    const std::optional<bool> got = balanced_answer(p);
    if (!got) continue;
    EXPECT_EQ(*got, bitset_answer(p, 1 + trial % 2));
    (*got ? feasible : infeasible) += 1;
  }
  EXPECT_GT(feasible, 30);
  EXPECT_GT(infeasible, 5);
}

// Infeasible near total / 2: weights spread so that sums have gaps, every item after the break
// item runs.
TEST(BalancedDp, InfeasibleRunsEveryItem) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 30; ++trial) {
    ssum::problem p;
    const std::size_t n = std::size_t(uniform(rng, 21, 60));
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(1018 * uniform(rng, 1, 9) + uniform(rng, 0, 3));
    p.target = total_of(p) / 2 + 509;
    SCOPED_TRACE(describe(p));
    const std::optional<bool> got = balanced_answer(p);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, bitset_answer(p, 1));
  }
}

TEST(BalancedDp, GeneratorClasses) {
  int ran = 0;
  for (const char* cls : {"pthree", "psix", "evenodd", "avis", "somatoth", "todd", "random", "planted"}) {
    for (const std::size_t n : {1, 2, 3, 10, 25, 60, 200}) {
      const std::string name = cls;
      if ((name == "psix" || name == "somatoth" || name == "avis") && n > 60) continue;
      if ((name == "todd" || name == "random" || name == "planted") && n > 25) continue;
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const ssum::problem p = ssum::generate(cls, n, name == "random" || name == "planted" ? std::optional<int>(12)
                                                                                              : std::nullopt,
                                               seed);
        SCOPED_TRACE(name + " n = " + std::to_string(n) + " seed " + std::to_string(seed));
        const std::optional<reduction> r = open_reduction(p);
        if (!r || ssum::detail::balanced_planned_bytes(*r) > 1e8) continue;  // wide weights: states of 2r
        const std::optional<bool> got = balanced_answer(p);
        ++ran;
        if (n <= 20) EXPECT_EQ(*got, brute_force_count(p) > 0);
        EXPECT_EQ(*got, bitset_answer(p, 2));
      }
    }
  }
  EXPECT_GT(ran, 40);  // the rest are settled by the reductions (avis by the count test)
}

// The smallest log (2r + 1 entries): items found late are traced back in segments, each
// rebuilt by running the items again.
TEST(BalancedDp, SmallestLogTracesBackInSegments) {
  std::mt19937_64 rng(99);
  int feasible = 0;
  for (int trial = 0; trial < 40; ++trial) {
    ssum::problem p;
    const std::size_t n = std::size_t(uniform(rng, 30, 80));
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(uniform(rng, 200, 400) * 2 + (i % 7 == 0));
    int128 t = 0;
    for (const int128 w : p.weights) t += (rng() % 3 == 0) ? w : 0;
    p.target = t;
    const std::optional<reduction> r = open_reduction(p);
    ASSERT_TRUE(r.has_value());
    std::uint64_t largest = 0;
    for (const auto w : r->weights) largest = std::max(largest, std::uint64_t(w));
    ssum::solve_options small;
    // The plan less its log's share beyond 2r + 1 entries of 8 bytes.
    small.memory_limit = std::uint64_t(ssum::detail::balanced_planned_bytes(*r)) - 8 * (3 * (2 * largest + 1) + 65536);
    const ssum::solution s = ssum::detail::solve_balanced(ssum::detail::host_share_for(1, small), p, *r, small);
    SCOPED_TRACE(describe(p));
    EXPECT_EQ(s.planned_bytes, small.memory_limit);
    ASSERT_TRUE(s.feasible);
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
    feasible += s.feasible;
    small.memory_limit -= 8;  // less than one item's changes may need
    EXPECT_THROW(ssum::detail::solve_balanced(ssum::detail::host_share_for(1, small), p, *r, small), ssum::insufficient_memory);
  }
  EXPECT_EQ(feasible, 40);
}

TEST(BalancedDp, PlansRefusesCancelsAndReportsProgress) {
  std::vector<std::int64_t> w;
  for (int i = 0; i < 3000; ++i) w.push_back(1000 + (i * 7919) % 1000);
  const ssum::problem p = make_problem(w, 2 * 1000 * 1000 + 1);
  const std::optional<reduction> r = open_reduction(p);
  ASSERT_TRUE(r.has_value());
  EXPECT_GT(ssum::detail::balanced_planned_bytes(*r), 2 * 2 * 1999 * 4.0);
  EXPECT_LT(ssum::detail::balanced_planned_bytes(*r), 2e6);
  EXPECT_GT(ssum::detail::balanced_seconds(*r), 0.0);
  ssum::solve_options o;
  o.memory_limit = 1024;
  EXPECT_THROW(ssum::detail::solve_balanced(ssum::detail::host_share_for(1, o), p, *r, o), ssum::insufficient_memory);
  o.memory_limit = 0;
  std::atomic<bool> cancel{true};
  o.cancel = &cancel;
  EXPECT_THROW(ssum::detail::solve_balanced(ssum::detail::host_share_for(1, o), p, *r, o), ssum::interrupted);
  cancel = false;
  double last = 0;
  bool monotone = true;
  o.on_progress = [&](const ssum::progress& pr) {
    monotone = monotone && pr.overall >= last;
    last = pr.overall;
  };
  const ssum::solution s = ssum::detail::solve_balanced(ssum::detail::host_share_for(1, o), p, *r, o);
  EXPECT_TRUE(s.feasible);
  EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  EXPECT_TRUE(monotone);
  EXPECT_EQ(last, 1.0);
  const ssum::problem zero = make_problem({4, -3, 7, -8}, std::nullopt);
  const reduction z = ssum::detail::reduce(zero, ssum::detail::totals_of(zero));
  ASSERT_TRUE(z.zero_sum);
  EXPECT_THROW(ssum::detail::solve_balanced(ssum::detail::host_share_for(1, {}), zero, z, {}), std::invalid_argument);
}

// The host dynamic program (src/solver/dp/bitset_dp.hpp) through ssum::solve: against brute
// force and the two-list, at the edges of the target range, over multi-word and multi-block
// shifts, and the refusals, cancellation and progress around it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "reference/dp_peers.hpp"
#include "answer_names.hpp"
#include "small_instances.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/generate.hpp"
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

bool is_dp(const std::string& algorithm) { return algorithm == "dp" || algorithm == "balanced-dp"; }

// Through ssum::solve (which picks the bitset or the balanced program), and each of the two
// directly on the reduced instance: the bitset on the grouped items, the balanced program
// (targets only) on the items as they are.
void expect_dp_matches_brute_force(const ssum::problem& p) {
  SCOPED_TRACE(describe(p));
  const bool feasible = brute_force_count(p) > 0;
  const ssum::solution s = solve_dp(p);
  EXPECT_TRUE(ssum_test::settled_by_reductions(p, false) ? s.algorithm == "reductions" : is_dp(s.algorithm))
      << s.algorithm;
  EXPECT_EQ(s.feasible, feasible);
  if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  const auto totals = ssum::detail::totals_of(p);
  if (totals.out_of_range()) return;
  const ssum::detail::reduction r = ssum::detail::reduce(p, totals);
  if (r.outcome != ssum::detail::reduction::verdict::open) return;
  const ssum::solution bits = ssum::detail::solve_dp(ssum::detail::host_share_for(2, {}), p, ssum::detail::group_equal_weights(r), {});
  EXPECT_EQ(bits.feasible, feasible);
  if (bits.feasible) EXPECT_TRUE(ssum::is_certificate(p, bits.subset));
  if (r.zero_sum) return;
  const ssum::solution balanced = ssum::detail::solve_balanced(ssum::detail::host_share_for(1, {}), p, r, {});
  EXPECT_EQ(balanced.feasible, feasible);
  if (balanced.feasible) EXPECT_TRUE(ssum::is_certificate(p, balanced.subset));
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
  EXPECT_TRUE(is_dp(s.plan.algorithm)) << s.plan.algorithm;
}

// (Counting with the dynamic program: test_dp_count.cpp.)
TEST(Dp, CudaNeedsADeviceAndSmallCountsKeepTheMeetInTheMiddle) {
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
  EXPECT_TRUE(is_dp(s.algorithm)) << s.algorithm;
  EXPECT_TRUE(s.feasible);
  EXPECT_EQ(s.subset.size(), 5u);
  const ssum::problem q{std::vector<int128>(121, 2), int128(7)};
  const ssum::solution t = ssum::solve(ssum::cpu{2}, q);
  EXPECT_EQ(t.algorithm, "reductions");  // the gcd settles it: no table
  EXPECT_FALSE(t.feasible);
  EXPECT_NE(t.plan.reason.find("the gcd 2 does not divide the target"), std::string::npos) << t.plan.reason;
}

TEST(Dp, BeyondEveryAlgorithmTheRefusalSaysWhatEachNeeds) {
  std::vector<int128> w;
  for (int i = 0; i < 200; ++i) w.push_back((int128(1) << 60) + 2 * i + 1);
  const ssum::problem p{w, (int128(1) << 62) + 100};  // four items can reach it (the count test passes)
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
  EXPECT_THROW(ssum::solve(ssum::cpu{1}, make_problem({1000, 2001, 3001, 4003, 5003, 6007}, 9008), limited), ssum::insufficient_memory);
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

// Beyond brute force: the generator's small-weight classes and random instances with many
// equal weights (grouped) against Bellman's byte table and the one-thread bitset, which must
// agree with each other too.
TEST(Dp, MatchesTheBellmanAndBitsetReferences) {
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 50 + rng() % 400;
    ssum::problem p;
    if (trial % 3 == 0) {
      p = ssum::generate(trial % 2 ? "pthree" : "evenodd", n, std::nullopt, trial);
    } else {
      const std::int64_t range = trial % 3 == 1 ? 8 : 3000;
      for (std::size_t i = 0; i < n; ++i) p.weights.push_back(uniform(rng, 1, range));
      p.target = uniform(rng, 0, range * std::int64_t(n) / 2);
    }
    SCOPED_TRACE(describe(p));
    std::vector<std::uint64_t> w;
    for (const int128 x : p.weights) w.push_back(std::uint64_t(x));
    const auto target = std::uint64_t(*p.target);
    const bool bellman = ssum_reference::bellman_reaches(w, target);
    ASSERT_EQ(ssum_reference::bitset_reaches(w, target), bellman);
    const ssum::solution s = solve_dp(p, 1 + trial % 2);
    EXPECT_EQ(s.feasible, bellman);
    if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
}

// The certificate is recovered from the checkpoints of the forward pass (linear space): with
// every checkpoint count the memory limit allows (1 to 8), through the recursion of the
// recovery (thousands of items, rows beyond the recovery's budget), with the odd item that
// must be taken first, last or in the middle, and on zero-sum instances (two tables).
TEST(Dp, RecoversTheCertificateFromCheckpointsInAnyMemory) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 8; ++trial) {
    ssum::problem p;
    const std::size_t n = 1500 + rng() % 2500;
    const bool zero_sum = trial % 4 == 3;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t w = 2 * uniform(rng, 1, 2500);  // even: the odd item below is needed
      p.weights.push_back(zero_sum && (rng() & 1) ? -w : w);
    }
    const std::size_t odd = trial % 3 == 0 ? 0 : trial % 3 == 1 ? n - 1 : n / 2;
    p.weights[odd] += 1;
    if (!zero_sum) {
      int128 total = 0;
      for (const int128 w : p.weights) total += w;
      p.target = total / 3 | 1;
    }
    SCOPED_TRACE(describe(p));
    const auto totals = ssum::detail::totals_of(p);
    const ssum::detail::reduction r = ssum::detail::reduce(p, totals);
    ASSERT_EQ(r.outcome, ssum::detail::reduction::verdict::open);
    const double smallest = ssum::detail::dp_planned_bytes(r, 0);
    const double row = (double(r.bound) / 64 + 1) * 8 * (r.zero_sum ? 2 : 1);
    for (int extra = 0; extra <= 8; extra += 1 + trial % 3) {
      ssum::solve_options o;
      o.memory_limit = std::uint64_t(smallest + extra * row + 1);
      SCOPED_TRACE("checkpoints " + std::to_string(1 + extra));
      const ssum::solution s = ssum::detail::solve_dp(ssum::detail::host_share_for(1 + unsigned(trial % 2), o), p, r, o);
      ASSERT_TRUE(s.feasible);
      EXPECT_TRUE(ssum::is_certificate(p, s.subset));
      if (!zero_sum) {
        EXPECT_TRUE(std::find(s.subset.begin(), s.subset.end(), odd) != s.subset.end());
      }
      EXPECT_LE(double(s.planned_bytes), double(o.memory_limit));
    }
  }
}

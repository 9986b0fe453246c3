// The completion search (src/solver/completion/): automatic takes it for dense instances
// beyond the exact algorithms and every subset it reports verifies on the input; it is
// deterministic, stops under a time limit (an infeasible instance that looks dense answers
// unknown), and refuses what it cannot take.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>

#include "small_instances.hpp"
#include "solver/completion/completion_search.hpp"
#include "solver/frame.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum::int128;

// n weights uniform in [2^(bits-1), 2^bits), the target floor(total / 2): a partition.
ssum::problem partition(std::size_t n, int bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ssum::problem p;
  int128 total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned __int128 bits128 = (static_cast<unsigned __int128>(rng()) << 64) | rng();
    const unsigned __int128 low = bits128 % (static_cast<unsigned __int128>(1) << (bits - 1));  // bits <= 126
    p.weights.push_back((int128(1) << (bits - 1)) + int128(low));
    total += p.weights.back();
  }
  p.target = total / 2;
  return p;
}

// Signed weights with a target: the zero-sum class's weights, the target the sum of a third.
ssum::problem signed_target(std::size_t n, std::uint64_t seed) {
  ssum::problem p = ssum::generate("zero-sum", n, std::nullopt, seed);
  int128 t = 0;
  for (std::size_t i = 0; i < n; i += 3) t += p.weights[i];
  p.target = t;
  return p;
}

TEST(Completion, AutomaticFindsSubsetsOfDenseInstances) {
  const ssum::problem cases[] = {ssum::generate("random", 100, std::nullopt, 1),
                                 ssum::generate("random", 100, std::nullopt, 4),
                                 ssum::generate("random", 1000, std::nullopt, 2),
                                 ssum::generate("planted", 300, std::nullopt, 3),
                                 partition(200, 50, 5),
                                 partition(1000, 60, 6),
                                 ssum::generate("zero-sum", 200, std::nullopt, 7),
                                 ssum::generate("zero-sum", 3000, std::nullopt, 8),
                                 signed_target(300, 9)};
  for (const ssum::problem& p : cases) {
    SCOPED_TRACE("n = " + std::to_string(p.weights.size()) + (p.target ? "" : ", zero-sum"));
    ssum::solve_options o;
    o.time_limit = 60;  // a bound for a broken search, far above the seconds it takes
    const ssum::solution s = ssum::solve(ssum::cpu{}, p, o);
    EXPECT_EQ(s.plan.algorithm, "completion") << s.plan.reason;
    ASSERT_EQ(s.status, ssum::status::feasible);
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
    EXPECT_FALSE(s.subset.empty());
  }
}

// Far more items than bits: differencing all the way leaves 0, and its sides are the answer.
TEST(Completion, DifferencingToTheEndAnswersVeryDenseInstances) {
  for (const std::uint64_t seed : {3u, 4u}) {
    const ssum::problem p = ssum::generate("random", 10000, std::nullopt, seed);
    const ssum::solution s = ssum::solve(ssum::cpu{}, p);
    EXPECT_NE(s.plan.reason.find("differencing to the end leaves 0"), std::string::npos) << s.plan.reason;
    ASSERT_TRUE(s.feasible);
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
    const ssum::problem zero = ssum::generate("zero-sum", 20000, std::nullopt, seed);  // zero-sum: non-empty
    const ssum::solution z = ssum::solve(ssum::cpu{}, zero);
    ASSERT_TRUE(z.feasible) << z.plan.reason;
    EXPECT_FALSE(z.subset.empty());
    EXPECT_TRUE(ssum::is_certificate(zero, z.subset));
  }
}

// The dense pass (O(n), differencing.hpp) answers at once, with the target in the middle,
// far from it, signed, and zero-sum; its answer is the same for any thread count.
TEST(Completion, TheDensePassAnswersManyItemsWithAnyTarget) {
  ssum::problem far = ssum::generate("random", 10000, std::nullopt, 11);
  int128 total = 0;
  for (const int128 w : far.weights) total += w;
  far.target = total / 7;  // d about 5/7 of the total, far wider than any weight
  const ssum::problem cases[] = {ssum::generate("random", 5000, std::nullopt, 10), far, partition(20000, 62, 12),
                                 signed_target(10000, 13), ssum::generate("zero-sum", 50000, std::nullopt, 14)};
  for (const ssum::problem& p : cases) {
    SCOPED_TRACE(testing::Message() << "n = " << p.weights.size());
    const ssum::solution s = ssum::solve(ssum::cpu{2}, p);
    ASSERT_TRUE(s.feasible) << s.plan.reason;
    EXPECT_EQ(s.algorithm, "completion");
    EXPECT_NE(s.plan.reason.find("a perfect partition at once"), std::string::npos) << s.plan.reason;
    EXPECT_FALSE(s.subset.empty());
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
    EXPECT_EQ(ssum::solve(ssum::cpu{1}, p).subset, s.subset);
  }
}

// The same seed finds the same subset on any number of threads; other seeds find others.
TEST(Completion, IsDeterministicForASeed) {
  const ssum::problem p = ssum::generate("random", 150, std::nullopt, 9);
  ssum::solve_options o;
  o.algo = ssum::algorithm::completion_search;
  o.seed = 42;
  const ssum::solution a = ssum::solve(ssum::cpu{2}, p, o);
  const ssum::solution b = ssum::solve(ssum::cpu{2}, p, o);
  const ssum::solution one = ssum::solve(ssum::cpu{1}, p, o);
  const ssum::solution three = ssum::solve(ssum::cpu{3}, p, o);
  ASSERT_TRUE(a.feasible);
  EXPECT_EQ(a.subset, b.subset);
  EXPECT_EQ(a.subset, one.subset);
  EXPECT_EQ(a.subset, three.subset);
  EXPECT_EQ(a.algorithm, "completion");
  std::vector<std::vector<std::size_t>> others;
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    o.seed = seed;
    const ssum::solution s = ssum::solve(ssum::cpu{2}, p, o);
    ASSERT_TRUE(s.feasible);
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
    others.push_back(s.subset);
  }
  EXPECT_FALSE(others[0] == a.subset && others[1] == a.subset && others[2] == a.subset);
}

// Weights that are multiples of 3 but one, a target 2 more than a multiple of 3: no subset,
// and no reduction sees it; the search can only run out of time.
TEST(Completion, AnInfeasibleDenseInstanceRunsOutOfTime) {
  const ssum::problem p = ssum_test::long_no_instance(150, 47, 11);
  ssum::solve_options o;
  o.time_limit = 1.0;
  const ssum::solution s = ssum::solve(ssum::cpu{}, p, o);
  EXPECT_EQ(s.plan.algorithm, "completion") << s.plan.reason;
  EXPECT_EQ(s.status, ssum::status::unknown);
  EXPECT_TRUE(s.subset.empty());
}

// Zero-sum, a partition of the positive items against the negative ones (and d) is the empty
// subset: never a perfect plan. Here every item is positive (a reduction by hand: none leaves
// this), so differencing to the end leaves 0 with only that partition; any plan must be the
// regular attempts, which search until cancelled.
TEST(Completion, AZeroSumPlanIsNotPerfectForTheEmptySubset) {
  ssum::detail::reduction r;
  r.zero_sum = true;
  for (std::size_t i = 0; i < 100; ++i) r.weights.push_back(i + 1), r.index.push_back(i), r.negative.push_back(false);
  r.weights.push_back(ssum::uint128(1) << 80), r.index.push_back(100), r.negative.push_back(false);
  r.bound = ssum::uint128(1) << 80;
  const std::optional<ssum::detail::completion_plan> plan = ssum::detail::completion_plan_for(r, 2, 1e9);
  if (!plan) return;
  EXPECT_FALSE(plan->perfect);
  EXPECT_GE(plan->items, 48u);
  ssum::problem p;
  for (const auto w : r.weights) p.weights.push_back(int128(w));
  std::atomic<bool> cancel{false};
  ssum::solve_options o;
  o.cancel = &cancel;
  std::thread stop([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  EXPECT_THROW((void)ssum::detail::solve_completion(ssum::detail::host_share_for(2, o), p, r, *plan, o), ssum::interrupted);
  stop.join();
}

// Zero-sum with the sides' sums equal (d = 0): 1..100 and 2^40 against -(2^40 + 5050), whose
// only answer is every item. Differencing to the end leaves 0 with the negative item alone on
// one side; read from either side, that partition answers.
TEST(Completion, ABalancedZeroSumPartitionAnswersWithEveryItem) {
  for (const int sign : {1, -1}) {  // and its mirror: the lone item positive
    ssum::problem p;
    for (int w = 1; w <= 100; ++w) p.weights.push_back(sign * w);
    p.weights.push_back(sign * (int128(1) << 40));
    p.weights.push_back(-sign * ((int128(1) << 40) + 5050));
    ssum::solve_options o;
    o.algo = ssum::algorithm::completion_search;
    o.time_limit = 20;
    const ssum::solution s = ssum::solve(ssum::cpu{2}, p, o);
    ASSERT_EQ(s.status, ssum::status::feasible) << s.plan.reason;
    EXPECT_EQ(s.subset.size(), p.weights.size());
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
}

TEST(Completion, RefusesWhatItCannotTake) {
  ssum::solve_options named;
  named.algo = ssum::algorithm::completion_search;
  const ssum::problem dense = ssum::generate("random", 100, std::nullopt, 1);
  EXPECT_THROW((void)ssum::solve(ssum::cpu{}, ssum::generate("random", 40, std::nullopt, 1), named),
               std::invalid_argument);  // too few items
  ssum::solve_options count = named;
  count.count = true;
  EXPECT_THROW((void)ssum::solve(ssum::cpu{}, dense, count), std::invalid_argument);
  EXPECT_THROW((void)ssum::solve(ssum::cuda{}, dense, named), ssum::backend_unavailable);
  // Sparse (200 items of 110 bits): no search, and automatic still says nothing here answers.
  ssum::problem sparse = partition(200, 110, 3);
  EXPECT_THROW((void)ssum::solve(ssum::cpu{}, sparse, named), std::invalid_argument);
  EXPECT_THROW((void)ssum::solve(ssum::cpu{}, sparse), ssum::insufficient_memory);
}

// Within the meet-in-the-middle's 120 items but beyond a day of it, and fewer than one
// solution expected: automatic refuses at once; a time limit, or a named algorithm, runs it.
TEST(Completion, OutOfReachIsRefusedUnlessASearchIsAskedFor) {
  const ssum::problem sparse = ssum::generate("random", 100, 100, 4);
  EXPECT_THROW((void)ssum::solve(ssum::cpu{}, sparse), ssum::out_of_reach);
  ssum::solve_options limited;
  limited.time_limit = 0.2;
  EXPECT_EQ(ssum::solve(ssum::cpu{}, sparse, limited).status, ssum::status::unknown);
  ssum::solve_options named = limited;
  named.algo = ssum::algorithm::four_list;
  EXPECT_EQ(ssum::solve(ssum::cpu{}, sparse, named).status, ssum::status::unknown);
  // Dense at the same size: searched, not refused (about 0.1 s; the limit leaves a loaded
  // machine room, as the search stops at its first subset).
  ssum::solve_options roomy;
  roomy.time_limit = 60;
  EXPECT_EQ(ssum::solve(ssum::cpu{}, ssum::generate("random", 100, 50, 4), roomy).status, ssum::status::feasible);
}

}  // namespace

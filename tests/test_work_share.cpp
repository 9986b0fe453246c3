// A four-list search shared by several solves (ssum/work_share.hpp), the way `mpirun -np K
// ssum solve` shares it among ranks: the pool's grants, and the shared host four-list against
// brute force and against one solve alone (verdicts, counts, stops, checkpoints).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "checkpoint_helpers.hpp"
#include "shared_search.hpp"
#include "small_instances.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum_test::brute_force_count;
using ssum_test::describe;
using ssum_test::run_shared;
using ssum_test::four_list;

ssum::solution host_solve(const ssum::problem& p, const ssum::solve_options& o, unsigned threads) {
  return ssum::solve(ssum::cpu{threads}, p, o);
}

TEST(WorkPool, GrantsShrinkAndCoverEveryUnitOnce) {
  ssum::work_pool pool(false);
  // 20 bits: a prime near 2^20 classes in 2^16 units.
  EXPECT_EQ(pool.begin(42, 80, 20, 20), 20);
  const std::uint64_t units = pool.units();
  ASSERT_EQ(units, std::uint64_t{1} << 16);
  std::vector<int> seen(units, 0);
  std::uint64_t first_size = 0, last_size = 0, grants = 0;
  while (auto g = pool.grant(3, units)) {
    ASSERT_LT((*g)[0], (*g)[1]);
    for (std::uint64_t u = (*g)[0]; u < (*g)[1]; ++u) ++seen[u];
    if (grants++ == 0) first_size = (*g)[1] - (*g)[0];
    last_size = (*g)[1] - (*g)[0];
    pool.finished((*g)[0], (*g)[1], 0);
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  EXPECT_EQ(first_size, units / 6);  // a sixth of what is left for three takers
  EXPECT_EQ(last_size, 1u);
  EXPECT_LT(grants, 200u);  // guided: logarithmic in the units, not one per unit
  EXPECT_TRUE(pool.complete());
  EXPECT_DOUBLE_EQ(pool.done(), 1.0);
}

TEST(WorkPool, HonoursMostStopAndAnotherInstance) {
  ssum::work_pool pool(true);
  EXPECT_EQ(pool.begin(7, 40, 5, 10), 5);
  EXPECT_EQ(pool.begin(7, 40, 9, 10), 5) << "the first begin fixes the plan";
  EXPECT_THROW(pool.begin(8, 40, 5, 10), ssum::input_error);
  const auto g = pool.grant(1, 1);
  ASSERT_TRUE(g);
  EXPECT_EQ((*g)[1] - (*g)[0], 1u);
  pool.finished((*g)[0], (*g)[1], 5);
  EXPECT_EQ(pool.count(), ssum::uint128(5));
  pool.stop();
  EXPECT_FALSE(pool.grant(1, 10));
  EXPECT_FALSE(pool.complete());
}

// Verdicts and counts of 1, 2 and 3 shared solves against brute force: signed, zero-sum,
// planted and no-instances, few units (small n) and many.
TEST(SharedFourList, MatchesBruteForce) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 240; ++trial) {
    const ssum::problem p = ssum_test::random_instance(rng, 18, ssum_test::range_for(trial), trial % 3 != 0);
    const std::uint64_t expected = brute_force_count(p);
    const std::size_t k = 1 + trial % 3;
    const bool count = trial % 2 == 0;
    const auto out = run_shared(k, four_list(count), [&](const ssum::solve_options& o, std::size_t) {
      return host_solve(p, o, 1);
    });
    const std::string what = describe(p) + " on " + std::to_string(k) + " solves";
    const bool feasible = expected > 0;
    if (out.subset) {
      EXPECT_TRUE(ssum::is_certificate(p, *out.subset)) << what;
    } else {
      ASSERT_TRUE(out.coordinator) << what;
      EXPECT_FALSE(feasible) << what;
    }
    EXPECT_EQ(out.subset.has_value(), feasible) << what;
    if (count) {
      ASSERT_TRUE(out.coordinator && out.coordinator->count) << what;
      EXPECT_EQ(out.coordinator->count->to_string(), std::to_string(expected)) << what;
    }
  }
}

// Many units (n = 40 and 44: 31 and 127 units), several threads a solve: the same count and
// verdict as one solve alone.
TEST(SharedFourList, CountsLikeOneSolve) {
  for (const std::size_t n : {40u, 44u}) {
    const ssum::problem p = ssum_test::many_solutions(n, 20, 11 + n);
    const ssum::solution alone = host_solve(p, four_list(true), 2);
    for (const std::size_t k : {2u, 3u}) {
      const auto out = run_shared(k, four_list(true), [&](const ssum::solve_options& o, std::size_t) {
        return host_solve(p, o, 2);
      });
      ASSERT_TRUE(out.coordinator && out.coordinator->count);
      EXPECT_EQ(out.coordinator->count->to_string(), alone.count->to_string()) << n << " items, " << k << " solves";
      EXPECT_GT(out.units, 16u);
      ASSERT_TRUE(out.subset);
      EXPECT_TRUE(ssum::is_certificate(p, *out.subset));
    }
  }
}

// A decision found by one solve stops the others: the coordinator's wait ends by the stop
// when it did not find the subset itself.
TEST(SharedFourList, TheFirstSubsetStopsTheSearch) {
  const ssum::problem p = ssum_test::many_solutions(44, 24, 5);
  const auto out = run_shared(3, four_list(false), [&](const ssum::solve_options& o, std::size_t) {
    return host_solve(p, o, 1);
  });
  ASSERT_TRUE(out.subset);
  EXPECT_TRUE(ssum::is_certificate(p, *out.subset));
  EXPECT_TRUE(out.coordinator.has_value() != out.interrupted);
}

// The pool's checkpoint: a shared count stopped part-way continues, shared again or by one
// solve alone, to the same count.
TEST(SharedFourList, CheckpointContinuesAcrossShares) {
  const ssum::problem p = ssum_test::many_solutions(44, 20, 9);
  const ssum::solution whole = host_solve(p, four_list(true), 2);
  const auto file = ssum_test::scratch_file("ssum_shared", "count.ckpt");
  {
    // Stopped once about a third of the units are finished.
    std::atomic<bool> cancel{false};
    ssum::solve_options o = four_list(true);
    o.cancel = &cancel;
    o.on_progress = [&](const ssum::progress& pr) {
      if (pr.stage == "search" && pr.fraction > 0.3) cancel.store(true);
    };
    const auto out = run_shared(2, o, [&](const ssum::solve_options& so, std::size_t) { return host_solve(p, so, 1); },
                                file.string());
    EXPECT_TRUE(out.interrupted);
    ASSERT_TRUE(std::filesystem::exists(file));
  }
  double first = -1;
  ssum::solve_options o = four_list(true);
  o.on_progress = [&](const ssum::progress& pr) {
    if (pr.stage == "search" && first < 0 && pr.fraction > 0) first = pr.fraction;
  };
  const auto out = run_shared(3, o, [&](const ssum::solve_options& so, std::size_t) { return host_solve(p, so, 1); },
                              file.string());
  ASSERT_TRUE(out.coordinator);
  ssum_test::expect_resumed_like_whole(p, *out.coordinator, whole, first, file);
}

TEST(SharedFourList, RefusesACheckpointInTheSolvesOptions) {
  const ssum::problem p = ssum_test::many_solutions(30, 20, 3);
  ssum::work_pool pool(false);
  ssum::pool_share share(pool, true);
  ssum::solve_options o = four_list(false);
  o.share = &share;
  o.checkpoint = ssum_test::scratch_file("ssum_shared", "refused.ckpt").string();
  EXPECT_THROW(host_solve(p, o, 1), std::invalid_argument);
}

}  // namespace

// Shared by two solves, automatic takes the four-list where the two lists would take more than
// a second in one (n = 54 on one thread, about 1.6 s); alone, or where they are quick, the
// two-list. (Both solves run automatic here; an MPI job's other ranks name the four-list.)
TEST(SharedFourList, AutomaticSharesWhatWouldTakeLong) {
  for (const std::size_t n : {40u, 54u}) {
    const ssum::problem p = ssum_test::many_solutions(n, int(n) - 12, 23);
    const auto out = run_shared(2, ssum::solve_options{}, [&](const ssum::solve_options& o, std::size_t) {
      return ssum::solve(ssum::backend::cpu, 1, p, o);
    });
    ASSERT_TRUE(out.subset) << n;
    EXPECT_TRUE(ssum::is_certificate(p, *out.subset));
    if (!out.coordinator) continue;  // the other solve found it first: its plan is the same
    EXPECT_EQ(out.coordinator->plan.algorithm, n == 54 ? "four-list" : "two-list") << out.coordinator->plan.reason;
    if (n == 54) EXPECT_NE(out.coordinator->plan.reason.find("shared by 2 processes"), std::string::npos);
  }
  // Alone: the two-list's plan (cut short: only the choice is looked at).
  ssum::solve_options brief;
  brief.time_limit = 0.05;
  const ssum::problem p = ssum_test::many_solutions(54, 42, 23);
  EXPECT_EQ(ssum::solve(ssum::backend::cpu, 1, p, brief).plan.algorithm, "two-list");
}

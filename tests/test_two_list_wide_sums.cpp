// The CUDA solver's merging two-list (solver/two_list/two_list_merging.hpp) with 128-bit sums,
// run over host memory and the host primitives (host_memory.hpp): totals past 2^64 up to
// 2^127 - 1, against a 128-bit brute force and the host two-list; and the choice of the sums'
// width, its memory plan and its refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "host_memory.hpp"
#include "small_instances.hpp"
#include "solver/frame.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"
#include "wide_sum_instances.hpp"

namespace {

using ssum::int128;
using ssum::uint128;
using ssum_test::brute_force_count;
using ssum_test::describe;
using ssum_test::expect_wide_answer;
using ssum_test::host_memory;

// The merging two-list with and without a count, on `threads` host threads.
void expect_merging(const ssum::problem& p, unsigned threads, std::uint64_t expected, const std::string& what) {
  host_memory memory;
  for (const bool count : {true, false}) {
    ssum::solve_options options;
    options.count = count;
    const ssum::solution s = ssum::detail::two_list_by_merging(ssum::cpu{threads}, memory, p, options, "cpu");
    expect_wide_answer(p, s, expected, what + (count ? ", count" : ", search"));
    if (::testing::Test::HasFatalFailure()) return;
    if (count) ASSERT_TRUE(s.count.has_value()) << what;
  }
}

TEST(MergingTwoListWide, MatchesBruteForceNearTheLimit) {
  std::mt19937_64 rng(2127);
  int feasible = 0, infeasible = 0, zero_sum_feasible = 0;
  std::uint64_t largest_count = 0;
  for (std::size_t n = 1; n <= 18; ++n) {
    const int rounds = n <= 12 ? 4 : 2;  // brute force: 2^n per target
    for (int round = 0; round < rounds; ++round) {
      for (const ssum_test::wide_shape shape : ssum_test::all_wide_shapes) {
        const std::vector<int128> w = ssum_test::wide_weights(rng, n, shape, round % 2 == 0 || n % 3 == 0);
        for (const auto& t : ssum_test::wide_targets(rng, w)) {
          const ssum::problem p{w, t};
          const std::uint64_t expected = brute_force_count(p);
          (expected > 0 ? feasible : infeasible) += 1;
          if (expected > 0 && !t) ++zero_sum_feasible;
          largest_count = std::max(largest_count, expected);
          expect_merging(p, 1 + unsigned(round % 3), expected, "n = " + std::to_string(n));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
  // Both verdicts, zero-sum answers and counts far beyond one must have been exercised.
  EXPECT_GT(feasible, 200);
  EXPECT_GT(infeasible, 200);
  EXPECT_GT(zero_sum_feasible, 10);
  EXPECT_GT(largest_count, 100u);
}

// Larger lists (many merge passes past the first levels): the host two-list's verdicts and counts.
TEST(MergingTwoListWide, MatchesTheHostSolver) {
  std::mt19937_64 rng(64127);
  for (const std::size_t n : {22, 27, 32}) {
    for (const ssum_test::wide_shape shape : ssum_test::all_wide_shapes) {
      const std::vector<int128> w = ssum_test::wide_weights(rng, n, shape, true);
      const auto targets = ssum_test::wide_targets(rng, w);
      for (const auto& t : {targets[0], targets[1], targets[3], targets[4]}) {  // planted, +2^64, +1, zero-sum
        const ssum::problem p{w, t};
        ssum::solve_options options;
        options.algo = ssum::algorithm::two_list;
        options.count = true;
        const ssum::solution host = ssum::solve(ssum::cpu{2}, p, options);
        ASSERT_TRUE(host.count.has_value());
        expect_merging(p, 2, static_cast<std::uint64_t>(uint128(*host.count)), "n = " + std::to_string(n));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// No-instances that only the whole search decides, and planted ones, with totals far past 2^64.
TEST(MergingTwoListWide, NoInstancesAndPlantedOnes) {
  for (const std::size_t n : {9, 16, 23, 30}) {
    const ssum::problem none = ssum_test::wide_no_instance(n, 120, n);
    ASSERT_GT(ssum_test::total_magnitude(none), uint128(UINT64_MAX));
    expect_merging(none, 2, 0, "no-instance, n = " + std::to_string(n));
    const ssum::problem planted = ssum::generate("planted", n, 120, n);
    ASSERT_GT(ssum_test::total_magnitude(planted), uint128(UINT64_MAX));
    ssum::solve_options options;
    options.algo = ssum::algorithm::two_list;
    options.count = true;
    const ssum::solution host = ssum::solve(ssum::cpu{2}, planted, options);
    ASSERT_TRUE(host.feasible);
    expect_merging(planted, 2, static_cast<std::uint64_t>(uint128(*host.count)), "planted, n = " + std::to_string(n));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// 64-bit sums while the total fits them, 128-bit ones from 2^64 on; the plan follows.
TEST(MergingTwoListWide, SumWidthFollowsTheTotal) {
  const int128 half = int128(1) << 63;
  const ssum::problem narrow{{half, half - 1}, int128(1)};  // total 2^64 - 1
  const ssum::problem wide{{half, half}, int128(1)};        // total 2^64
  const auto narrow_totals = ssum::detail::totals_of(narrow), wide_totals = ssum::detail::totals_of(wide);
  EXPECT_EQ(ssum::detail::two_list_merging_sum_bytes(narrow_totals), 8u);
  EXPECT_EQ(ssum::detail::two_list_merging_sum_bytes(wide_totals), 16u);
  for (const std::size_t n : {2, 20, 64}) {
    const double eight = ssum::detail::two_list_merging_planned_bytes(n);
    const double sixteen = ssum::detail::two_list_merging_planned_bytes(n, 16);
    EXPECT_EQ(ssum::detail::two_list_merging_planned_bytes(n, 8), eight);
    EXPECT_NEAR(sixteen - 4096, 2 * (eight - 4096), 1e-9 * sixteen) << n;
  }
  EXPECT_EQ(ssum::detail::two_list_merging_planned_bytes(narrow, narrow_totals),
            ssum::detail::two_list_merging_planned_bytes(2));
  EXPECT_EQ(ssum::detail::two_list_merging_planned_bytes(wide, wide_totals),
            ssum::detail::two_list_merging_planned_bytes(2, 16));
  // What a solve reports as its plan.
  std::mt19937_64 rng(5);
  const ssum::problem p{ssum_test::wide_weights(rng, 20, ssum_test::wide_shape::bits_120_126, false), int128(3)};
  host_memory memory;
  const ssum::solution s = ssum::detail::two_list_by_merging(ssum::cpu{1}, memory, p, {}, "cpu");
  EXPECT_EQ(s.planned_bytes, static_cast<std::uint64_t>(ssum::detail::two_list_merging_planned_bytes(20, 16)));
}

// The refusals: nothing for totals below 2^127 (totals_of refuses 2^127 itself), and as before
// more than 66 items, and counts from n = 64 on.
TEST(MergingTwoListWide, RefusesOnlyWhatItCannotHold) {
  std::mt19937_64 rng(66);
  for (const std::size_t n : {1, 63, 64, 66, 67}) {
    const ssum::problem p{ssum_test::wide_weights(rng, n, ssum_test::wide_shape::limit, true), int128(0)};
    const auto totals = ssum::detail::totals_of(p);
    ASSERT_TRUE(totals.total_abs == ssum::max_weight_total);
    EXPECT_EQ(ssum::detail::two_list_merging_refusal(p, totals, false) == nullptr, n <= 66) << n;
    EXPECT_EQ(ssum::detail::two_list_merging_refusal(p, totals, true) == nullptr, n <= 63) << n;
  }
  const ssum::problem over{{int128(ssum::max_weight_total), 1}, int128(1)};
  EXPECT_THROW(ssum::detail::totals_of(over), ssum::input_error);
  ssum::detail::flipped_totals forged;  // as if a caller skipped totals_of
  forged.total_abs = ssum::max_weight_total + 1;
  EXPECT_NE(ssum::detail::two_list_merging_refusal(over, forged, false), nullptr);
}

}  // namespace

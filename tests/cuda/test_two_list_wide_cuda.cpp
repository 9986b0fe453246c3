// The CUDA two-list with 128-bit sums (totals past 2^64, up to 2^127 - 1): its driver and
// ssum::solve against brute force and the host solver (verdicts, counts, certificates
// re-verified here) on signed, zero-sum, planted and no-instances at the 2^127 limits; and the
// 64-bit path still taken where the total fits. Skipped without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "solver/frame.hpp"
#include "solver/two_list/two_list_cuda.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"
#include "../small_instances.hpp"
#include "../wide_sum_instances.hpp"

namespace {

using ssum::int128;
using ssum::uint128;
using ssum_test::brute_force_count;
using ssum_test::expect_wide_answer;
#define SKIP_WITHOUT_DEVICE() \
  if (ssum::cuda_devices().empty()) GTEST_SKIP() << "no CUDA device present: CUDA 128-bit two-list not exercised"

// The device two-list itself (no reduction in front), with and without a count.
void expect_device_two_list(const ssum::problem& p, std::uint64_t expected, const std::string& what) {
  for (const bool count : {true, false}) {
    ssum::solve_options options;
    options.count = count;
    const ssum::solution s = ssum::detail::solve_two_list_cuda(ssum::cuda{}, p, ssum::detail::totals_of(p), options);
    EXPECT_EQ(s.backend, "cuda");
    if (count) ASSERT_TRUE(s.count.has_value()) << what;
    expect_wide_answer(p, s, expected, what + (count ? ", count" : ", search"));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The host two-list's count (exact, 128-bit sums where needed).
std::uint64_t host_count(const ssum::problem& p) {
  ssum::solve_options options;
  options.algo = ssum::algorithm::two_list;
  options.count = true;
  const ssum::solution s = ssum::solve(ssum::cpu{}, p, options);
  return static_cast<std::uint64_t>(uint128(*s.count));
}

TEST(CudaTwoListWide, MatchesBruteForceNearTheLimit) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(1270);
  int feasible = 0, infeasible = 0;
  for (const std::size_t n : {1, 2, 3, 5, 8, 11, 12, 13, 16, 19}) {
    for (const ssum_test::wide_shape shape : ssum_test::all_wide_shapes) {
      const bool signed_weights = n % 2 == 1 || shape == ssum_test::wide_shape::limit;
      const std::vector<int128> w = ssum_test::wide_weights(rng, n, shape, signed_weights);
      for (const auto& t : ssum_test::wide_targets(rng, w)) {
        const ssum::problem p{w, t};
        const std::uint64_t expected = brute_force_count(p);
        (expected > 0 ? feasible : infeasible) += 1;
        expect_device_two_list(p, expected, "n = " + std::to_string(n));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  EXPECT_GT(feasible, 40);
  EXPECT_GT(infeasible, 40);
}

// Lists of 2^14 to 2^21 sums (many merge levels past the first, the walk over many tiles).
TEST(CudaTwoListWide, MatchesTheHostSolver) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(1271);
  for (const std::size_t n : {30, 37, 44}) {
    for (const ssum_test::wide_shape shape : ssum_test::all_wide_shapes) {
      const std::vector<int128> w = ssum_test::wide_weights(rng, n, shape, true);
      const auto targets = ssum_test::wide_targets(rng, w);
      for (const auto& t : {targets[0], targets[1], targets[3], targets[4]}) {  // planted, +2^64, +1, zero-sum
        const ssum::problem p{w, t};
        expect_device_two_list(p, host_count(p), "n = " + std::to_string(n));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// No-instances only the whole search decides, and planted instances, through ssum::solve too.
TEST(CudaTwoListWide, NoInstancesAndPlantedOnes) {
  SKIP_WITHOUT_DEVICE();
  ssum::solve_options two_list;
  two_list.algo = ssum::algorithm::two_list;
  for (const auto& [n, bits] : {std::pair<std::size_t, int>{20, 120}, {36, 100}, {48, 70}}) {
    const ssum::problem none = ssum_test::wide_no_instance(n, bits, n);
    ASSERT_GT(ssum_test::total_magnitude(none), uint128(UINT64_MAX));
    expect_device_two_list(none, 0, "no-instance, n = " + std::to_string(n));
    const ssum::solution s = ssum::solve(ssum::cuda{}, none, two_list);
    EXPECT_FALSE(s.feasible);
    EXPECT_EQ(s.backend, "cuda");
    const ssum::problem planted = ssum::generate("planted", n, bits, n);
    ASSERT_GT(ssum_test::total_magnitude(planted), uint128(UINT64_MAX));
    expect_device_two_list(planted, host_count(planted), "planted, n = " + std::to_string(n));
    const ssum::solution found = ssum::solve(ssum::cuda{}, planted, two_list);
    expect_wide_answer(planted, found, 1, "planted through ssum::solve");  // no count: the verdict
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The plan tells the paths apart: 8-byte sums while the total fits 64 bits, 16-byte beyond.
TEST(CudaTwoListWide, SixtyFourBitInstancesKeepTheSixtyFourBitPath) {
  SKIP_WITHOUT_DEVICE();
  const ssum::problem narrow = ssum::generate("planted", 40, 50, 3);
  const ssum::problem wide = ssum::generate("planted", 40, 90, 3);
  const ssum::solution a = ssum::detail::solve_two_list_cuda(ssum::cuda{}, narrow, ssum::detail::totals_of(narrow), {});
  const ssum::solution b = ssum::detail::solve_two_list_cuda(ssum::cuda{}, wide, ssum::detail::totals_of(wide), {});
  EXPECT_EQ(a.planned_bytes, static_cast<std::uint64_t>(ssum::detail::two_list_merging_planned_bytes(40, 8)));
  EXPECT_EQ(b.planned_bytes, static_cast<std::uint64_t>(ssum::detail::two_list_merging_planned_bytes(40, 16)));
  expect_wide_answer(narrow, a, 1, "64-bit planted");
  expect_wide_answer(wide, b, 1, "128-bit planted");
  // Both sides of 2^64 exactly.
  const int128 half = int128(1) << 63;
  for (const ssum::problem& p : {ssum::problem{{half, half - 1, 5}, int128(half) + 5},
                                 ssum::problem{{half, half, 5}, int128(half) + 5},
                                 ssum::problem{{half, -half, 3, -3}, std::nullopt},
                                 ssum::problem{{half, half, half}, 2 * int128(half) + 1}}) {
    expect_device_two_list(p, brute_force_count(p), "at 2^64");
  }
}

// Totals of exactly 2^127 - 1 with targets at and past the int128 limits.
TEST(CudaTwoListWide, TotalOf2To127Minus1) {
  SKIP_WITHOUT_DEVICE();
  const int128 two_126 = int128(1) << 126;
  const int128 max = int128(ssum::max_weight_total);
  const std::vector<int128> positive = {two_126, two_126 - 1}, negative = {-two_126, -(two_126 - 1)};
  const std::vector<int128> mixed = {two_126, -(two_126 - 4), 3};
  for (const ssum::problem& p : {ssum::problem{positive, max}, ssum::problem{positive, -max - 1},
                                 ssum::problem{positive, two_126}, ssum::problem{positive, std::nullopt},
                                 ssum::problem{negative, -max}, ssum::problem{negative, max},
                                 ssum::problem{mixed, int128(7)}, ssum::problem{mixed, two_126 + 3},
                                 ssum::problem{mixed, std::nullopt}}) {
    expect_device_two_list(p, brute_force_count(p), ssum_test::describe(p));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace

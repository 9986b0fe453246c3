// The CUDA two-list solver (ssum::solve with ssum::cuda) against brute force and the host
// solver: verdicts, counts, certificates (re-verified here), signed and zero-sum instances
// (the empty subset's pair), the generator classes, errors. Skipped without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "solver/two_list/two_list_merging.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"
#include "../small_instances.hpp"
#include "../unique_instances.hpp"

namespace {

using ssum::int128;
#define SKIP_WITHOUT_DEVICE() \
  if (ssum::cuda_devices().empty()) GTEST_SKIP() << "no CUDA device present: CUDA solver not exercised"

using ssum_test::brute_force_count;
using ssum_test::describe;

void expect_verdict(const ssum::problem& p, const ssum::solution& s, bool feasible, const std::string& what) {
  ASSERT_EQ(s.feasible, feasible) << what;
  EXPECT_EQ(s.backend, "cuda");
  if (feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset)) << what;
}

TEST(CudaSolve, MatchesBruteForceWithCounts) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(6006);
  ssum::solve_options counting;
  counting.count = true;
  int feasible_seen = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const ssum::problem p = ssum_test::random_instance(rng, 20, ssum_test::range_for(trial), trial % 2 == 1);
    const std::uint64_t expected = brute_force_count(p);
    feasible_seen += expected > 0;
    const ssum::solution s = ssum::solve(ssum::cuda{}, p, counting);
    expect_verdict(p, s, expected > 0, describe(p));
    ASSERT_TRUE(s.count.has_value()) << describe(p);
    ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(feasible_seen, 200);
}

// A device reset between two solves (another library's cudaDeviceReset, or the driver's
// primary-context reset) frees the solver's kept device memory: the next solve allocates
// anew instead of using the dead pointer, and answers as before.
TEST(CudaSolve, AnswersAfterADeviceReset) {
  SKIP_WITHOUT_DEVICE();
  const ssum::problem p = ssum::generate("planted", 40, std::nullopt, 3);
  const ssum::solution before = ssum::solve(ssum::cuda{}, p, {});
  expect_verdict(p, before, true, "before the reset");
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  for (int again = 0; again < 2; ++again) {
    const ssum::solution after = ssum::solve(ssum::cuda{}, p, {});
    expect_verdict(p, after, true, "after the reset");
  }
  ssum::release_cuda_memory();  // nothing stale is freed twice
  EXPECT_EQ(ssum::cuda_memory_kept(), 0u);
}

// The empty subset's pair of sums is the only match, or shares its sums with another subset,
// or sits next to other matches: every zero-sum shape the device search must get right.
TEST(CudaSolve, ZeroSumTrivialPairCases) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<std::pair<std::vector<std::int64_t>, bool>> cases = {
      {{3, 9}, false},          {{-3, -9}, false},      {{3, -3}, true},        {{0}, true},
      {{-5, 7, 11, 2}, false},  {{-5, 5, -5, 5}, true}, {{-1, -2, 3, 100}, true}, {{7, -7, 1, 2, 4}, true},
      {{-4, 1, 1, 1, 1}, true}, {{}, false},
  };
  for (const auto& [w, feasible] : cases) {
    const ssum::problem p = ssum_test::make_problem(w, std::nullopt);
    ASSERT_EQ(brute_force_count(p) > 0, feasible) << "bad expectation: " << describe(p);
    expect_verdict(p, ssum::solve(ssum::cuda{}, p), feasible, describe(p));
  }
}

// Mid-size instances against the host solver (n = 30..44), random and planted.
TEST(CudaSolve, AgreesWithTheHostSolver) {
  SKIP_WITHOUT_DEVICE();
  ssum::solve_options counting;
  counting.count = true;
  for (std::size_t n : {30, 33, 36, 40, 44}) {
    for (const char* cls : {"random", "planted", "zero-sum"}) {
      const ssum::problem p = ssum::generate(cls, n, 24, 7 + n);
      const ssum::solution host = ssum::solve(ssum::cpu{}, p, counting);
      const ssum::solution dev = ssum::solve(ssum::cuda{}, p, counting);
      expect_verdict(p, dev, host.feasible, std::string(cls) + " n=" + std::to_string(n));
      ASSERT_TRUE(dev.count && host.count);
      EXPECT_EQ(static_cast<std::uint64_t>(*dev.count), static_cast<std::uint64_t>(*host.count)) << cls << " n=" << n;
    }
  }
}

// One mid-size instance of each class with its count, small enough for compute-sanitizer
// (scripts/gpu-check runs memcheck and racecheck on it): n = 30, lists of 2^15 sums.
TEST(CudaSolve, MidSizeInstanceForSanitizers) {
  SKIP_WITHOUT_DEVICE();
  ssum::solve_options counting;
  counting.count = true;
  for (const char* cls : {"random", "planted", "zero-sum"}) {
    const ssum::problem p = ssum::generate(cls, 30, 20, 30);
    const ssum::solution host = ssum::solve(ssum::cpu{}, p, counting);
    const ssum::solution dev = ssum::solve(ssum::cuda{}, p, counting);
    expect_verdict(p, dev, host.feasible, cls);
    ASSERT_TRUE(dev.count && host.count);
    EXPECT_EQ(static_cast<std::uint64_t>(*dev.count), static_cast<std::uint64_t>(*host.count)) << cls;
  }
}

// The solver keeps its device memory between solves; release_cuda_memory gives it back, and
// the next solve allocates again and answers the same.
TEST(CudaSolve, KeepsAndReleasesItsDeviceMemory) {
  SKIP_WITHOUT_DEVICE();
  const ssum::problem p = ssum::generate("planted", 44, 30, 5);  // lists of 2^22 sums: 80 MiB
  const ssum::solution first = ssum::solve(ssum::cuda{}, p);
  expect_verdict(p, first, true, "first solve");
  // The solver's own account: the device's free memory also moves with other processes
  // (ctest runs the huge-list tests beside this one).
  EXPECT_GE(double(ssum::cuda_memory_kept()), double(first.planned_bytes));
  ssum::release_cuda_memory();
  EXPECT_EQ(ssum::cuda_memory_kept(), 0u);
  const ssum::solution again = ssum::solve(ssum::cuda{}, p);
  expect_verdict(p, again, true, "after release");
  EXPECT_EQ(again.subset, first.subset);
  ssum::release_cuda_memory();
}

// The largest n up to 66 whose two lists the device holds now, from 64 (lists past 2^31 sums,
// about 20 GiB) to 66 (2^32 sums, about 80 GiB: an H200's, not an H100's), or 0.
std::size_t largest_huge_n() {
  for (std::size_t n = 66; n >= 64; --n) {
    if (double(ssum::cuda_devices().front().free_memory) >= 1.05 * ssum::detail::two_list_merging_planned_bytes(n)) {
      return n;
    }
  }
  return 0;
}

// n = 63 up to 66: lists past 2^31 sums (each half's last item stays out of its list), so
// 64-bit sizes and indexes through generation, search and count on the device (n = 66, lists
// of 2^32 sums, where the device holds about 80 GiB). All weights even and the target odd
// make a no-instance that the whole search must prove; planted n = 64 and the largest must
// be solved.
TEST(CudaSolve, HugeListsUpTo2To32) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t top = largest_huge_n();
  if (top == 0) {
    GTEST_SKIP() << "device has less than " << ssum::detail::two_list_merging_planned_bytes(64) / (1 << 30)
                 << " GiB free: huge lists not exercised";
  }
  std::mt19937_64 rng(64);
  for (std::size_t n : {std::size_t(63), top}) {
    ssum::problem parity;
    int128 total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      parity.weights.push_back(int128(2 * (rng() >> 9)));  // even, below 2^56
      total += parity.weights.back();
    }
    parity.target = total / 2 + 1 - (total / 2) % 2;  // odd
    ssum::solve_options counting;
    counting.count = n < 64;  // counts from n = 64 on are refused, see RefusesWhatItCannotDo
    const ssum::solution s = ssum::solve(ssum::cuda{}, parity, counting);
    expect_verdict(parity, s, false, "parity n=" + std::to_string(n));
    if (counting.count) {
      ASSERT_TRUE(s.count.has_value());
      EXPECT_EQ(static_cast<std::uint64_t>(*s.count), 0u);
    }
  }
  for (std::size_t n : {std::size_t(64), top}) {
    const ssum::problem planted = ssum::generate("planted", n, std::nullopt, n);
    expect_verdict(planted, ssum::solve(ssum::cuda{}, planted), true, "planted n=" + std::to_string(n));
  }
  ssum::release_cuda_memory();
}

// Exactly one solution in lists beyond 2^31 sums, where a search that drops sums would answer
// "infeasible" and a count would come out 0 (the parity no-instances above cannot tell).
// Unique by construction (ssum_test::light_heavy: superincreasing light items at the first,
// the last held and the left-out item of each half, all others heavier than their total):
// the solution at the very start of both lists (only the two left-out items: the shift that
// adds both) or at their very end (all but those: the largest sum of each list). n = 63:
// lists of 2^30 and 2^31 sums, counted (count == 1); the largest n the device holds (66:
// 2^32 each), find only (counts are refused from n = 64 on).
TEST(CudaSolve, UniqueSolutionsInHugeLists) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t top = largest_huge_n();
  if (top == 0) {
    GTEST_SKIP() << "device has less than " << ssum::detail::two_list_merging_planned_bytes(64) / (1 << 30)
                 << " GiB free: huge lists not exercised";
  }
  std::mt19937_64 rng(6366);
  for (const std::size_t n : {std::size_t(63), top}) {
    const std::size_t h = n / 2;
    // List A holds items [0, h - 1), list B [h, n - 1); h - 1 and n - 1 are left out.
    const std::vector<std::size_t> light = {0, h - 2, h - 1, h, n - 2, n - 1};
    for (const bool complement : {false, true}) {
      const ssum_test::unique_instance u = ssum_test::light_heavy(rng, n, light, {h - 1, n - 1}, complement, complement);
      ASSERT_TRUE(ssum::is_certificate(u.p, u.subset)) << u.what;
      ssum::solve_options options;
      options.count = n < 64;
      ssum::solution s;
      try {
        s = ssum::solve(ssum::cuda{}, u.p, options);
      } catch (const ssum::insufficient_memory& e) {  // another test's lists on the device meanwhile
        GTEST_SKIP() << u.what << ": " << e.what();
      }
      expect_verdict(u.p, s, true, u.what);
      EXPECT_EQ(s.subset, u.subset) << u.what;
      if (options.count) {
        ASSERT_TRUE(s.count.has_value()) << u.what;
        EXPECT_EQ(static_cast<std::uint64_t>(*s.count), 1u) << u.what;
      }
    }
  }
  ssum::release_cuda_memory();
}

TEST(CudaSolve, RefusesWhatItCannotDo) {
  SKIP_WITHOUT_DEVICE();
  // Totals of 2^65 that no reduction shrinks (gcd 1, no item above the target, which is half):
  // 128-bit sums on the device (test_two_list_wide_cuda.cpp checks them at length).
  const ssum::problem wide{{INT64_MAX, INT64_MAX - 1, INT64_MAX - 2, INT64_MAX - 3}, int128(INT64_MAX) * 2 - 3};
  EXPECT_TRUE(ssum::solve(ssum::cuda{}, wide).feasible);
  // 127-bit weights: a total of 2^127 - 1 is the device's too; 2^127 is nobody's.
  const int128 two_126 = int128(1) << 126;
  EXPECT_TRUE(ssum::solve(ssum::cuda{}, ssum::problem{{two_126, -(two_126 - 1)}, int128(1)}).feasible);
  EXPECT_TRUE(ssum::solve(ssum::backend::automatic, 0, ssum::problem{{two_126, -(two_126 - 1)}, int128(1)}).feasible);
  EXPECT_THROW(ssum::solve(ssum::cuda{}, ssum::problem{{two_126, two_126}, int128(1)}), ssum::input_error);
  ssum::solve_options tight;
  tight.memory_limit = 1 << 20;  // 1 MiB cannot hold two lists of 2^20 sums
  const ssum::problem big = ssum::generate("random", 40, 20, 1);
  EXPECT_THROW(ssum::solve(ssum::cuda{}, big, tight), ssum::insufficient_memory);
  const ssum::problem out_of_range{{1, 2, 4}, 100};
  EXPECT_FALSE(ssum::solve(ssum::cuda{}, out_of_range).feasible);
  // The two-list's own limits (auto takes the four-list there instead).
  ssum::solve_options two_list_only;
  two_list_only.algo = ssum::algorithm::two_list;
  EXPECT_THROW(ssum::solve(ssum::cuda{}, ssum::generate("random", 67, 20, 1), two_list_only), ssum::backend_unavailable);
  two_list_only.count = true;
  EXPECT_THROW(ssum::solve(ssum::cuda{}, ssum::generate("random", 64, 20, 1), two_list_only), ssum::backend_unavailable);
}

}  // namespace

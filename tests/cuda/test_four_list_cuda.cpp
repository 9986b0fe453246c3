// The GPU four-list (ssum::solve with ssum::cuda and algorithm::four_list) against brute force,
// the host four-list and the GPU two-list: verdicts, counts, certificates (re-verified here),
// signed and zero-sum instances, 64- and 128-bit sums, forced small batches (many batches,
// splits) and large partitions (joined a table-full at a time), checkpoints, memory limits,
// refusals, cancel. Skipped without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "solver/four_list/four_list_cuda.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"
#include "../answer_names.hpp"
#include "../small_instances.hpp"
#include "../unique_instances.hpp"

namespace {

using ssum::int128;
using ssum::detail::four_list_tuning;
using ssum_test::brute_force_count;
using ssum_test::describe;

#define SKIP_WITHOUT_DEVICE() \
  if (ssum::cuda_devices().empty()) GTEST_SKIP() << "no CUDA device present: CUDA four-list not exercised"

ssum::solve_options four_list(bool count = false) {
  ssum::solve_options o;
  o.algo = ssum::algorithm::four_list;
  o.count = count;
  return o;
}

void expect_verdict(const ssum::problem& p, const ssum::solution& s, bool feasible, const std::string& what) {
  ASSERT_EQ(s.feasible, feasible) << what;
  EXPECT_EQ(s.backend, "cuda") << what;
  // Through ssum::solve, what the reductions settle says so; the internal entry is the four-list.
  if (s.algorithm != "four-list") EXPECT_EQ(s.algorithm, ssum_test::expected_name(p, "four-list", s.count.has_value())) << what;
  if (feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset)) << what;
}

// Through the internal entry with knobs: the solver's own subset is not verified there.
ssum::solution solve_tuned(const ssum::problem& p, const ssum::solve_options& options, const four_list_tuning& tuning) {
  return ssum::detail::solve_four_list_cuda(ssum::cuda{}, p, options, tuning);
}

// The default, tiny batches (16 sums or one bucket: a batch per class, classes split down to
// a few outer sums; the host test goes down to single ones), an 8-bit radix sort of 64-bit
// sums (the run fix-up everywhere, long runs sorted again) and partitions of 2^16 128-bit keys
// (one partition per batch here, joined a table-full at a time).
four_list_tuning tuning_for(int trial) {
  four_list_tuning t;
  if (trial % 3 == 1) t.max_batch = 16;
  if (trial % 3 == 2) {
    t.sort_bits = 8;
    t.partition_keys = 1 << 16;
  }
  return t;
}

// Random weights of `bits` bits (signed when asked), n of them.
ssum::problem wide_instance(std::mt19937_64& rng, std::size_t n, int bits, bool signed_weights) {
  ssum::problem p;
  for (std::size_t i = 0; i < n; ++i) {
    ssum::uint128 w = (ssum::uint128(rng()) << 64 | rng()) >> (128 - bits);
    w |= ssum::uint128(1) << (bits - 1);
    int128 v = int128(w);
    if (signed_weights && rng() % 2) v = -v;
    p.weights.push_back(v);
  }
  return p;
}

TEST(CudaFourList, MatchesBruteForceWithCounts) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(7007);
  int feasible_seen = 0;
  for (int trial = 0; trial < 900; ++trial) {
    const ssum::problem p =
        ssum_test::random_instance(rng, trial % 5 == 0 ? 20 : 16, ssum_test::range_for(trial), trial % 2 == 1);
    const std::uint64_t expected = brute_force_count(p);
    feasible_seen += expected > 0;
    const ssum::solve_options options = four_list(trial % 7 != 3);
    const ssum::solution s =
        trial % 3 == 0 ? ssum::solve(ssum::cuda{}, p, options) : solve_tuned(p, options, tuning_for(trial));
    expect_verdict(p, s, expected > 0, describe(p) + " tuning " + std::to_string(trial % 3));
    if (options.count) {
      ASSERT_TRUE(s.count.has_value()) << describe(p);
      ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(feasible_seen, 300);
}

// Every n from 8 to 20 (n not divisible by 4 included), many seeds, each tuning.
TEST(CudaFourList, EverySmallSizeManySeeds) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(808);
  for (std::size_t n = 8; n <= 20; ++n) {
    for (int seed = 0; seed < 24; ++seed) {
      ssum::problem p;
      const bool signed_weights = seed % 2 == 1;
      const std::int64_t range = ssum_test::range_for(seed / 2);
      for (std::size_t i = 0; i < n; ++i) {
        p.weights.push_back(ssum_test::uniform(rng, signed_weights ? -range : 1, range));
      }
      if (seed % 4 != 3) {  // a subset's sum (feasible) or zero-sum
        int128 t = 0;
        for (auto w : p.weights) t += (rng() & 1) ? w : 0;
        p.target = t;
      }
      const std::uint64_t expected = brute_force_count(p);
      const ssum::solution s = solve_tuned(p, four_list(true), tuning_for(seed));
      const std::string what = describe(p) + " tuning " + std::to_string(seed % 3);
      expect_verdict(p, s, expected > 0, what);
      ASSERT_TRUE(s.count.has_value()) << what;
      ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << what;
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// The empty subset's quadruple alone, sharing its sums, or beside other matches in its batch.
TEST(CudaFourList, ZeroSumTrivialQuadruple) {
  SKIP_WITHOUT_DEVICE();
  for (int tune = 0; tune < 3; ++tune) {
    for (const auto& [w, feasible] : ssum_test::zero_sum_shapes()) {
      const ssum::problem p = ssum_test::make_problem(w, std::nullopt);
      ASSERT_EQ(brute_force_count(p) > 0, feasible) << "bad expectation: " << describe(p);
      const ssum::solution s = solve_tuned(p, four_list(tune == 2), tuning_for(tune));
      expect_verdict(p, s, feasible, describe(p));
      if (tune == 2) {
        ASSERT_TRUE(s.count.has_value()) << describe(p);
        EXPECT_EQ(static_cast<std::uint64_t>(*s.count), brute_force_count(p)) << describe(p);
      }
    }
  }
}

// n = 21..40 against the host four-list, with counts; small batches must not change anything.
TEST(CudaFourList, AgreesWithTheHostFourList) {
  SKIP_WITHOUT_DEVICE();
  const ssum::solve_options counting = four_list(true);
  for (std::size_t n : {21, 26, 29, 32, 35, 38, 40}) {
    for (const char* cls : {"random", "planted", "zero-sum"}) {
      const ssum::problem p = ssum::generate(cls, n, n % 3 == 0 ? 14 : 40, 500 + n);
      const ssum::solution host = ssum::solve(ssum::cpu{}, p, counting);
      for (const std::size_t batch : {std::size_t{0}, std::size_t{1} << 12}) {
        four_list_tuning tuning;
        tuning.max_batch = batch;
        const ssum::solution dev = solve_tuned(p, counting, tuning);
        const std::string what = std::string(cls) + " n=" + std::to_string(n) + " batch=" + std::to_string(batch);
        expect_verdict(p, dev, host.feasible, what);
        ASSERT_TRUE(dev.count && host.count);
        EXPECT_EQ(static_cast<std::uint64_t>(*dev.count), static_cast<std::uint64_t>(*host.count)) << what;
      }
    }
  }
}

// Against the device two-list at sizes where both run many batches' worth of sums.
TEST(CudaFourList, AgreesWithTheDeviceTwoList) {
  SKIP_WITHOUT_DEVICE();
  ssum::solve_options two;
  two.algo = ssum::algorithm::two_list;
  two.count = true;
  for (std::size_t n : {44, 47}) {
    for (const char* cls : {"random", "planted", "zero-sum"}) {
      const ssum::problem p = ssum::generate(cls, n, 36, 9 + n);
      const ssum::solution a = ssum::solve(ssum::cuda{}, p, two);
      four_list_tuning tuning;
      tuning.max_batch = 1 << 18;  // 2^22-2^24 sums per side: tens of batches
      const ssum::solution b = solve_tuned(p, four_list(true), tuning);
      const std::string what = std::string(cls) + " n=" + std::to_string(n);
      expect_verdict(p, b, a.feasible, what);
      ASSERT_TRUE(a.count && b.count) << what;
      EXPECT_EQ(static_cast<std::uint64_t>(*a.count), static_cast<std::uint64_t>(*b.count)) << what;
    }
  }
}

// One mid-size instance of each class with its count and small batches, small enough for
// compute-sanitizer (memcheck, racecheck): n = 30, 2^15 sums per side.
TEST(CudaFourList, MidSizeInstanceForSanitizers) {
  SKIP_WITHOUT_DEVICE();
  four_list_tuning tuning;
  tuning.max_batch = 1 << 11;
  for (const char* cls : {"random", "planted", "zero-sum"}) {
    const ssum::problem p = ssum::generate(cls, 30, std::nullopt, 30);
    const ssum::solution host = ssum::solve(ssum::cpu{}, p, four_list(true));
    const ssum::solution dev = solve_tuned(p, four_list(true), tuning);
    expect_verdict(p, dev, host.feasible, cls);
    ASSERT_TRUE(dev.count && host.count) << cls;
    EXPECT_EQ(static_cast<std::uint64_t>(*dev.count), static_cast<std::uint64_t>(*host.count)) << cls;
  }
  // 128-bit sums, and partitions larger than a table.
  std::mt19937_64 rng(30);
  ssum::problem wide = wide_instance(rng, 30, 90, true);
  wide.target = wide.weights[0] + wide.weights[7] + wide.weights[29];
  tuning.partition_keys = 1 << 14;
  const ssum::solution host = ssum::solve(ssum::cpu{}, wide, four_list(true));
  const ssum::solution dev = solve_tuned(wide, four_list(true), tuning);
  expect_verdict(wide, dev, true, "wide n=30");
  ASSERT_TRUE(dev.count && host.count);
  EXPECT_EQ(static_cast<std::uint64_t>(*dev.count), static_cast<std::uint64_t>(*host.count));
}

// Exactly one solution (ssum_test::light_heavy: unique by construction, light items at the
// first and last item of each quarter), counted once through hundreds of small batches: a
// batch or a class dropped or matched twice shows as a count of 0 or 2. The solution's class
// (its a + b, items [0, n/2) after the flip, mod M as four_list_in_batches takes M) is moved
// to the last class, M - 1, and to the first, 0, by adding to one heavy item of the first
// half (still heavier than all light items together: the argument holds).
TEST(CudaFourList, UniqueSolutionThroughManyBatches) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = 48;
  const std::uint64_t m = ssum::detail::modulus_for(ssum::detail::largest_modulus_bits(n));
  const std::vector<std::size_t> light = {0, 11, 12, 23, 24, 35, 36, 47};
  std::mt19937_64 rng(4848);
  struct plan {
    std::vector<std::size_t> chosen;
    bool complement;
    std::optional<std::uint64_t> cls;  // the class to move the solution to
  };
  const std::vector<plan> plans = {{{11, 36}, false, std::nullopt}, {{0, 47}, true, m - 1}, {{23, 24}, true, 0}};
  for (std::size_t k = 0; k < plans.size(); ++k) {
    ssum_test::unique_instance u = ssum_test::light_heavy(rng, n, light, plans[k].chosen, plans[k].complement, k == 1);
    if (plans[k].cls) {
      // Item 1 is heavy and taken by the flipped instance (a complement takes every heavy item).
      std::uint64_t left = 0;
      for (std::size_t i = 0; i < n / 2; ++i) {
        const bool in_subset = std::binary_search(u.subset.begin(), u.subset.end(), i);
        if (in_subset != (u.p.weights[i] < 0)) left += static_cast<std::uint64_t>(ssum::magnitude(u.p.weights[i]));
      }
      const std::uint64_t delta = (*plans[k].cls + m - left % m) % m;
      u.p.weights[1] += u.p.weights[1] < 0 ? -int128(delta) : int128(delta);
      int128 target = 0;
      for (const std::size_t i : u.subset) target += u.p.weights[i];
      u.p.target = target;
      u.what += " class " + std::to_string(*plans[k].cls);
    }
    ASSERT_TRUE(ssum::is_certificate(u.p, u.subset)) << u.what;
    for (const int sort_bits : {0, 8}) {
      four_list_tuning tuning;
      tuning.max_batch = 1 << 16;  // 2^24 sums per side: hundreds of batches
      tuning.sort_bits = sort_bits;
      const std::string what = u.what + " sort_bits=" + std::to_string(sort_bits);
      const ssum::solution s = solve_tuned(u.p, four_list(true), tuning);
      expect_verdict(u.p, s, true, what);
      EXPECT_EQ(s.subset, u.subset) << what;
      ASSERT_TRUE(s.count.has_value()) << what;
      EXPECT_EQ(static_cast<std::uint64_t>(*s.count), 1u) << what;
    }
  }
}

// Totals past 2^64 (128-bit sums), up to the 2^127 limit: brute force at n <= 20, the host
// four-list at n = 24..40, on planted, signed, zero-sum and no-instances, every tuning.
TEST(CudaFourList, SumsPast64BitsAgreeWithTheHost) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(1270);
  for (int trial = 0; trial < 120; ++trial) {
    const std::size_t n = trial < 90 ? 12 + trial % 9 : 24 + 4 * (trial % 5);
    // Weights below 2^bits, n of them: a total below 2^127 (what ssum accepts) at the top.
    const int bits = std::min(trial % 3 == 0 ? 66 : trial % 3 == 1 ? 100 : 122, 127 - int(std::bit_width(n - 1)));
    ssum::problem p = wide_instance(rng, n, bits, trial % 2 == 1);
    if (trial % 4 == 0) {
      p.target.reset();
    } else if (trial % 4 == 1) {
      int128 t = 0;
      for (std::size_t i = 0; i < p.weights.size(); i += 3) t += p.weights[i];
      p.target = t;
    } else if (trial % 4 == 2) {
      p.target = int128(1) << (bits - 2);
    } else {
      for (auto& w : p.weights) w &= ~int128(1);  // even weights, odd target: none
      p.target = int128(1);
    }
    const ssum::solve_options counting = four_list(trial % 5 != 4);
    std::uint64_t expected = 0;
    if (n <= 20) {
      expected = brute_force_count(p);
    } else {
      const ssum::solution host = ssum::solve(ssum::cpu{}, p, four_list(true));
      expected = static_cast<std::uint64_t>(*host.count);
    }
    // Beyond n = 20 the tiny batches would take minutes: batches of 2^12 keys instead.
    four_list_tuning tuning = tuning_for(trial);
    if (n > 20 && tuning.max_batch) tuning.max_batch = 1 << 12;
    const ssum::solution s = solve_tuned(p, counting, tuning);
    const std::string what = describe(p) + " tuning " + std::to_string(trial % 3);
    expect_verdict(p, s, expected > 0, what);
    if (counting.count) {
      ASSERT_TRUE(s.count.has_value()) << what;
      EXPECT_EQ(static_cast<std::uint64_t>(*s.count), expected) << what;
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// automatic on the device takes the four-list when the two lists do not fit the limit.
TEST(CudaFourList, AutomaticTakesItWhenTheTwoListsDoNotFit) {
  SKIP_WITHOUT_DEVICE();
  const ssum::problem p = ssum::generate("planted", 40, std::nullopt, 4);
  ssum::solve_options options;
  options.memory_limit = static_cast<std::uint64_t>(ssum::detail::two_list_merging_planned_bytes(40) / 2);
  const ssum::solution s = ssum::solve(ssum::cuda{}, p, options);
  expect_verdict(p, s, true, "planted n=40 in half the two lists' plan");
  EXPECT_LE(double(s.planned_bytes), double(options.memory_limit));
  options.memory_limit = 0;
  EXPECT_EQ(ssum::solve(ssum::cuda{}, p, options).algorithm, "two-list");
}

TEST(CudaFourList, RefusesWhatItCannotDo) {
  SKIP_WITHOUT_DEVICE();
  // Totals of 2^65 that no reduction shrinks (gcd 1, no item above the target, which is half):
  // 128-bit sums, no refusal.
  const ssum::problem wide{{INT64_MAX, INT64_MAX - 1, INT64_MAX - 2, INT64_MAX - 3}, int128(INT64_MAX) * 2 - 3};
  expect_verdict(wide, ssum::solve(ssum::cuda{}, wide, four_list()), true, "total 2^65");
  // Beyond 120 items (through the internal entry: ssum::solve's reductions would settle these).
  std::vector<int128> many(121, 3);
  EXPECT_THROW(solve_tuned(ssum::problem{many, int128(4)}, four_list(), {}), ssum::backend_unavailable);
  const ssum::problem big = ssum::generate("random", 40, 20, 1);
  ssum::solve_options tight = four_list();
  tight.memory_limit = 1 << 16;  // not even the lists and the pools' margin
  EXPECT_THROW(ssum::solve(ssum::cuda{}, big, tight), ssum::insufficient_memory);
  const ssum::problem out_of_range{{1, 2, 4}, 100};
  EXPECT_FALSE(ssum::solve(ssum::cuda{}, out_of_range, four_list()).feasible);
  std::atomic<bool> stop{true};
  ssum::solve_options cancelled = four_list();
  cancelled.cancel = &stop;
  EXPECT_THROW(ssum::solve(ssum::cuda{}, big, cancelled), ssum::interrupted);
  // The arena is free again after the throws: a solve still works.
  expect_verdict(big, ssum::solve(ssum::cuda{}, big, four_list()), ssum::solve(ssum::cpu{}, big).feasible,
                 "after throws");
}

// n = 64 and 72 no-instances that no reduction settles (multiples of 3 but one, a target 2 mod
// 3): the whole search at the sizes the four-list is for, with the default batches, on 64-bit
// sums and on density-1 ones (weights of n bits, 128-bit sums). About 0.4-14 s on an H200.
TEST(CudaFourList, LargeNoInstances) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : {64, 72}) {
    for (const bool dense : {false, true}) {
      const ssum::problem none = dense ? ssum_test::wide_no_instance(n, int(n), 72) : ssum_test::long_no_instance(n, 54, 72);
      const std::string what = std::string(dense ? "density-1" : "none") + " n=" + std::to_string(n);
      if (dense && n == 72) continue;  // 13 s: the benchmark's (scripts/time-four-list dense:72)
      const ssum::solution s = ssum::solve(ssum::cuda{}, none, four_list());
      expect_verdict(none, s, false, what);
      EXPECT_EQ(s.algorithm, "four-list") << what;
      EXPECT_LT(double(s.planned_bytes), 16e9) << what;
    }
  }
  const ssum::problem planted = ssum::generate("planted", 72, std::nullopt, 72);
  expect_verdict(planted, ssum::solve(ssum::cuda{}, planted, four_list()), true, "planted n=72");
  ssum::release_cuda_memory();
}

}  // namespace

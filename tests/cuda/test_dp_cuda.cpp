// The device dynamic program (src/solver/dp/bitset_dp_cuda.cu) through ssum::solve(cuda, ...) with
// algorithm::dynamic_programming, against brute force and the host dynamic program: the
// verdicts must be identical and every device certificate verifies on the original instance.
// Bounds at the word and tile edges (the fused pass's tile is 2048 words, its halo 1024),
// items that take the fused path, the wide path and both, zero-sum and signed weights,
// infeasible instances that run every pass, a table beyond 2^31 sums, the refusal,
// cancellation and progress. Skipped without a device.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"
#include "../answer_names.hpp"
#include "../small_instances.hpp"

namespace {

using ssum::int128;
using ssum_test::describe;
using ssum_test::uniform;

#define SKIP_WITHOUT_DEVICE() \
  if (ssum::cuda_devices().empty()) GTEST_SKIP() << "no CUDA device present: the device dynamic program not exercised"

ssum::solve_options dp_options() {
  ssum::solve_options o;
  o.algo = ssum::algorithm::dynamic_programming;
  return o;
}

ssum::detail::reduction reduced(const ssum::problem& p) { return ssum::detail::reduce(p, ssum::detail::totals_of(p)); }

// The device's answer with its certificate checked; the host's verdict (or brute force's
// where the instance is small) must be the same.
void expect_agrees(const ssum::problem& p, const std::string& what, bool brute = false) {
  SCOPED_TRACE(what);
  const ssum::solution dev = ssum::solve(ssum::cuda{}, p, dp_options());
  EXPECT_EQ(dev.algorithm, ssum_test::expected_name(p, "dp", false));
  EXPECT_EQ(dev.backend, "cuda");
  const bool expected =
      brute ? ssum_test::brute_force_count(p) > 0 : ssum::solve(ssum::cpu{}, p, dp_options()).feasible;
  ASSERT_EQ(dev.feasible, expected) << describe(p);
  if (dev.feasible) {
    EXPECT_TRUE(ssum::is_certificate(p, dev.subset)) << describe(p);
  }
}

// n weights in [lo, hi] and the target t, with enough items that the complement does not
// apply (total >= 2t). residue3: every weight a multiple of 3 but one, 1 mod 3, and t = 2 mod
// 3, so that no subset reaches t although the gcd is 1 (every pass runs).
ssum::problem bounded_instance(std::mt19937_64& rng, std::uint64_t t, std::uint64_t lo, std::uint64_t hi,
                               bool residue3 = false) {
  ssum::problem p;
  int128 total = 0;
  if (residue3) {
    t += (2 + 3 - t % 3) % 3;
    p.weights.push_back(int128(3 * (std::uint64_t(uniform(rng, std::int64_t(lo), std::int64_t(hi))) / 3) + 1));
    total += p.weights.back();
  }
  while (total < 2 * int128(t) || p.weights.size() < 2) {
    std::uint64_t w = std::uint64_t(uniform(rng, std::int64_t(lo), std::int64_t(hi)));
    if (residue3) w = 3 * std::max<std::uint64_t>(1, w / 3);
    p.weights.push_back(int128(w));
    total += p.weights.back();
  }
  p.target = int128(t);
  return p;
}

// An infeasible instance that no reduction settles, so that the program runs every pass:
// every weight a multiple of 67 (past the residue classes' moduli, 2..64) but five distinct
// primes that are 1 mod 67, and t = 10 mod 67 (the sums reach the residues 0..5 alone). The
// primes share no divisor, so the divisor groups (three at most) cannot cover the items.
// Weights in [lo, hi] (hi - lo of a few thousand at least), total >= 2t.
ssum::problem unsettled_infeasible(std::mt19937_64& rng, std::uint64_t t, std::uint64_t lo, std::uint64_t hi) {
  const auto prime = [](std::uint64_t v) {
    if (v < 2) return false;
    for (std::uint64_t d = 2; d * d <= v; ++d) {
      if (v % d == 0) return false;
    }
    return true;
  };
  ssum::problem p;
  int128 total = 0;
  std::uint64_t v = lo + (67 - lo % 67) % 67 + 1 + 67 * std::uint64_t(uniform(rng, 0, std::int64_t((hi - lo) / 67 / 2)));
  while (p.weights.size() < 5) {
    if (v > hi) v = lo + (67 - lo % 67) % 67 + 1;  // wrapped: the smallest candidate on
    if (prime(v)) p.weights.push_back(int128(v)), total += int128(v);
    v += 67;
  }
  t += (10 + 67 - t % 67) % 67;
  while (total < 2 * int128(t)) {
    p.weights.push_back(int128(67 * std::max<std::uint64_t>(1, std::uint64_t(uniform(rng, std::int64_t(lo), std::int64_t(hi))) / 67)));
    total += p.weights.back();
  }
  p.target = int128(t);
  return p;
}

TEST(CudaDp, MatchesBruteForceOnSmallInstances) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(2121);
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t range = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 60 : 3000;
    const ssum::problem p = ssum_test::random_instance(rng, 16, range, trial % 2 == 0);
    expect_agrees(p, "random " + std::to_string(trial), true);
    if (HasFatalFailure()) return;
  }
  for (const auto& [weights, feasible] : ssum_test::zero_sum_shapes()) {
    const auto p = ssum_test::make_problem(weights, std::nullopt);
    EXPECT_EQ(ssum::solve(ssum::cuda{}, p, dp_options()).feasible, feasible) << describe(p);
  }
}

// Bounds of one word and around it: 1..62, 63, 64, 65, 127, 128, 129.
TEST(CudaDp, BoundsAroundOneWord) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(64);
  std::vector<std::uint64_t> bounds = {63, 64, 65, 127, 128, 129};
  for (std::uint64_t t = 1; t < 63; t += 7) bounds.push_back(t);
  for (const std::uint64_t t : bounds) {
    for (int k = 0; k < 6; ++k) {
      const ssum::problem p = bounded_instance(rng, t, 1, t, k % 3 == 2);
      if (reduced(p).bound != int128(t) && k % 3 != 2) continue;  // a gcd above 1: another bound
      expect_agrees(p, "t = " + std::to_string(t) + " k = " + std::to_string(k), p.weights.size() <= 20);
    }
  }
}

// Tables of tile - 1, tile and tile + 1 words and others (non powers of two), with small items
// (fused passes), wide ones (one pass each) and items of every size (both and the switch).
TEST(CudaDp, TileEdgesSmallAndWideItems) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(2048);
  for (const std::uint64_t words : {1023ull, 1024ull, 1025ull, 2047ull, 2048ull, 2049ull, 3001ull, 4095ull, 4097ull,
                                    6145ull, 20011ull}) {
    const std::uint64_t t = 64 * (words - 1) + 1 + rng() % 63;
    struct range {
      std::uint64_t lo, hi;
      const char* name;
    };
    for (const range& r : {range{1, 600, "small"}, range{1, 65535, "up to the halo"},
                           range{65536, std::max<std::uint64_t>(65536, t), "wide"}, range{1, t, "any"}}) {
      if (r.lo > t) continue;
      for (const bool residue3 : {false, true}) {
        const ssum::problem p = bounded_instance(rng, t, r.lo, std::min(r.hi, t), residue3);
        const std::string what = std::to_string(words) + " words, " + r.name + (residue3 ? ", infeasible" : "");
        expect_agrees(p, what);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The passes the schedule says: small items fused, wide ones alone, both in one table.
TEST(CudaDp, BothKernelPathsRun) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(7);
  const ssum::problem p = unsettled_infeasible(rng, 30000001, 1, 400000);
  const ssum::detail::reduction r = reduced(p);
  ASSERT_EQ(r.outcome, ssum::detail::reduction::verdict::open);
  ssum::detail::dp_cuda_stats stats;
  const ssum::solution s = ssum::detail::solve_dp(ssum::cuda{}, p, r, {}, &stats);
  EXPECT_FALSE(s.feasible);
  EXPECT_EQ(stats.items, r.weights.size());  // infeasible: every pass ran
  EXPECT_GT(stats.fused_passes, 0u);
  EXPECT_LT(stats.fused_passes, stats.passes);
  EXPECT_GT(stats.passes, stats.fused_passes + 100);
  EXPECT_GT(stats.bitset_bytes, 0);
  EXPECT_EQ(ssum::solve(ssum::cpu{}, p, dp_options()).feasible, false);
}

// Signed weights (flipped), complements, gcds and zero-sum (two tables) against the host.
TEST(CudaDp, SignedAndZeroSumInstances) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 120; ++trial) {
    ssum::problem p;
    const std::size_t n = std::size_t(uniform(rng, 1, 80));
    const std::int64_t range = trial % 3 == 0 ? 200 : trial % 3 == 1 ? 5000 : 150000;
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(uniform(rng, -range, range));
    if (trial % 2 == 0) p.target = uniform(rng, -range * 4, range * 4);
    expect_agrees(p, "signed " + std::to_string(trial));
    if (HasFatalFailure()) return;
  }
  // Zero-sum without a common sum: the positives are multiples of 6, the negative magnitudes'
  // sums 12001, 18002 and 30003 are not.
  ssum::problem none;
  for (int i = 0; i < 200; ++i) none.weights.push_back(int128(6 * uniform(rng, 1, 3000)));
  none.weights.push_back(int128(-(6 * 2000 + 1)));
  none.weights.push_back(int128(-(6 * 3000 + 2)));
  expect_agrees(none, "zero-sum, no common sum");
}

// A table beyond 2^31 sums (bitsets of 256 MiB and more, first items of 8 GiB): a planted
// subset is found, and an instance no subset solves runs to the end.
TEST(CudaDp, BeyondTwoToThe31Sums) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(31);
  ssum::problem planted;
  int128 t = 0;
  for (int i = 0; i < 64; ++i) {
    planted.weights.push_back(int128(uniform(rng, std::int64_t{1} << 26, std::int64_t{1} << 27)));
    if (i % 2 == 0) t += planted.weights.back();
  }
  planted.target = t;
  ASSERT_GT(reduced(planted).bound, int128(1) << 31);
  try {
    const ssum::solution s = ssum::solve(ssum::cuda{}, planted, dp_options());
    EXPECT_TRUE(s.feasible);
    EXPECT_TRUE(ssum::is_certificate(planted, s.subset));
    const ssum::problem none = unsettled_infeasible(rng, (std::uint64_t{1} << 31) + 12345, 1u << 25, 1u << 26);
    ASSERT_FALSE(ssum_test::settled_by_reductions(none, false));
    EXPECT_FALSE(ssum::solve(ssum::cuda{}, none, dp_options()).feasible);
  } catch (const ssum::insufficient_memory& e) {
    GTEST_SKIP() << "the device cannot hold the table: " << e.what();
  }
  ssum::release_cuda_memory();
}

TEST(CudaDp, RefusesWhatDoesNotFitAndCancels) {
  SKIP_WITHOUT_DEVICE();
  ssum::solve_options limited = dp_options();
  limited.memory_limit = 4096;
  std::mt19937_64 rng(4096);
  const ssum::problem p = unsettled_infeasible(rng, 90000, 1000, 9000);
  // The host's program answers it (nothing before the table settles it), so the device's
  // refusal comes from its own plan.
  const ssum::solution host = ssum::solve(ssum::cpu{}, p, dp_options());
  ASSERT_EQ(host.algorithm, "dp") << host.plan.reason;
  ASSERT_FALSE(host.feasible);
  try {
    ssum::solve(ssum::cuda{}, p, limited);
    FAIL() << "planned beyond the limit";
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_NE(std::string(e.what()).find("the dynamic program on CUDA device 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(" needs "), std::string::npos) << e.what();
  }
  std::atomic<bool> cancel{true};
  ssum::solve_options o = dp_options();
  o.cancel = &cancel;
  EXPECT_THROW(ssum::solve(ssum::cuda{}, ssum::problem{std::vector<int128>(300, 7), int128(1001)}, o),
               ssum::interrupted);
}

TEST(CudaDp, ReportsProgressUpToOne) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(5);
  const ssum::problem p = unsettled_infeasible(rng, 20000000, 1000, 200000);
  ASSERT_EQ(ssum::solve(ssum::cpu{}, p, dp_options()).algorithm, "dp");  // not settled before the table
  ssum::solve_options o = dp_options();
  double last = 0;
  bool monotone = true;
  int reports = 0;
  o.on_progress = [&](const ssum::progress& pr) {
    EXPECT_EQ(pr.stage, "dp");
    monotone = monotone && pr.overall >= last;
    last = pr.overall;
    ++reports;
  };
  EXPECT_FALSE(ssum::solve(ssum::cuda{}, p, o).feasible);
  EXPECT_TRUE(monotone);
  EXPECT_EQ(last, 1.0);
  EXPECT_GE(reports, 2);
}

// Small enough for compute-sanitizer: fused and wide passes, and two zero-sum tables.
TEST(CudaDp, SmallInstancesForSanitizers) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(11);
  expect_agrees(bounded_instance(rng, 64 * 2049 + 5, 1, 900), "fused");
  expect_agrees(bounded_instance(rng, 64 * 2049 + 5, 1, 64 * 2049, true), "fused and wide");
  ssum::problem zero;
  for (int i = 0; i < 40; ++i) zero.weights.push_back(int128(uniform(rng, -70000, 70000)));
  expect_agrees(zero, "zero-sum");
}

// Under automatic, where solutions abound and the host's program would stop early, it runs
// first for as long as the device would take (psix, n = 1000: about 0.25 s on the H200
// machine's host; a slower host hands over to the device, which finds it too); a no-instance
// goes to the device at once, which proves it.
TEST(CudaDp, AutomaticFindsFirstWhereSolutionsAbound) {
  SKIP_WITHOUT_DEVICE();
  const ssum::problem psix = ssum::generate("psix", 1000, std::nullopt, 2);
  const ssum::solution found = ssum::solve(ssum::backend::automatic, 0, psix);
  ASSERT_TRUE(found.feasible) << found.plan.reason;
  EXPECT_TRUE(ssum::is_certificate(psix, found.subset));
  EXPECT_EQ(found.plan.algorithm, "greedy-fill") << found.plan.reason;  // before any table, host or device
  EXPECT_EQ(found.backend, "cpu");
  // Multiples of 3 but one, a target 2 mod 3: T about 1.2e9, seconds of work on any host.
  const ssum::problem none = ssum_test::long_no_instance(1000, 22, 1);
  const ssum::solution proof = ssum::solve(ssum::backend::automatic, 0, none);
  EXPECT_EQ(proof.status, ssum::status::infeasible) << proof.plan.reason;
  EXPECT_EQ(proof.backend, "cuda") << proof.plan.reason;
}

}  // namespace

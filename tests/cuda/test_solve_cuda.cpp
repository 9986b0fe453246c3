// The CUDA two-list solver (ssum::solve with ssum::cuda) against brute force and the host
// solver: verdicts, counts, certificates (re-verified here), signed and zero-sum instances
// (the empty subset's pair), the generator classes, errors. Skipped without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;
#define SKIP_WITHOUT_DEVICE() \
  if (ssum::cuda_devices().empty()) GTEST_SKIP() << "no CUDA device present: CUDA solver not exercised"

// Subsets summing to the target (zero-sum: non-empty ones), all 2^n of them in Gray order.
std::uint64_t brute_force_count(const ssum::problem& p) {
  const std::size_t n = p.weights.size();
  const int128 t = p.target.value_or(0);
  int128 sum = 0;
  std::uint64_t count = sum == t ? 1 : 0, gray = 0;
  for (std::uint64_t k = 1; k < (std::uint64_t{1} << n); ++k) {
    const unsigned bit = static_cast<unsigned>(__builtin_ctzll(k));
    gray ^= std::uint64_t{1} << bit;
    sum += (gray >> bit & 1) ? int128(p.weights[bit]) : -int128(p.weights[bit]);
    if (sum == t) ++count;
  }
  if (p.zero_sum()) --count;
  return count;
}

std::string describe(const ssum::problem& p) {
  std::string s = "weights:";
  for (auto w : p.weights) s += " " + std::to_string(w);
  return s + (p.target ? " target " + ssum::to_string(*p.target) : " zero-sum");
}

std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

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
    ssum::problem p;
    const std::size_t n = static_cast<std::size_t>(uniform(rng, 0, 20));
    const int regime = trial % 4;
    const std::int64_t range = regime == 0 ? 3 : regime == 1 ? 100 : regime == 2 ? (std::int64_t{1} << 40) : (std::int64_t{1} << 58);
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(uniform(rng, trial % 2 ? -range : 0, range));
    const int kind = static_cast<int>(uniform(rng, 0, 3));
    if (kind == 0) {
      int128 t = 0;
      for (auto w : p.weights) if (rng() & 1) t += w;
      p.target = t;
    } else if (kind == 1) {
      p.target = uniform(rng, -range, range);
    } else if (kind == 2) {
      p.target = std::nullopt;
    } else {
      p.target = 0;
    }
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
    const ssum::problem p{w, std::nullopt};
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

TEST(CudaSolve, RefusesWhatItCannotDo) {
  SKIP_WITHOUT_DEVICE();
  const ssum::problem wide{{INT64_MAX, INT64_MAX, INT64_MAX}, int128(INT64_MAX) * 3};
  EXPECT_THROW(ssum::solve(ssum::cuda{}, wide), ssum::backend_unavailable);
  ssum::solve_options tight;
  tight.memory_limit = 1 << 20;  // 1 MiB cannot hold two lists of 2^20 sums
  const ssum::problem big = ssum::generate("random", 40, 20, 1);
  EXPECT_THROW(ssum::solve(ssum::cuda{}, big, tight), ssum::insufficient_memory);
  const ssum::problem out_of_range{{1, 2, 4}, 100};
  EXPECT_FALSE(ssum::solve(ssum::cuda{}, out_of_range).feasible);
}

}  // namespace

// Instances with exactly one solution (tests/unique_instances.hpp), planted at the ends of the
// lists, the quarters and the halves: a solver that drops one block pair, one group of them,
// one sum of a level or one residue class answers "infeasible" or a count of 0 here, where
// instances with many solutions would still find another. Every host algorithm (the two-list,
// the four-list, and the GPU two-list's merging form over host memory), every thread count,
// with and without counts; each against the sequential reference's count, and each instance
// once more made unsolvable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "solver/two_list/two_list_merging.hpp"
#include "host_memory.hpp"
#include "small_instances.hpp"
#include "ssum/ssum.hpp"
#include "unique_instances.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define SSUM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SSUM_UNDER_ASAN 1
#endif
#endif

namespace {

using ssum::int128;
using ssum_test::unique_instance;

using ssum_test::host_memory;  // the GPU two-list's glue over host memory (host_memory.hpp)

enum class algo { two_list, four_list, merging };
const char* name_of(algo a) { return a == algo::two_list ? "two-list" : a == algo::four_list ? "four-list" : "merging"; }

ssum::solution solve(algo a, unsigned threads, const ssum::problem& p, bool count) {
  ssum::solve_options options;
  options.count = count;
  if (a == algo::merging) {
    host_memory memory;
    return ssum::detail::two_list_by_merging(ssum::cpu{threads}, memory, p, options, "cpu");
  }
  options.algo = a == algo::two_list ? ssum::algorithm::two_list : ssum::algorithm::four_list;
  return ssum::solve(ssum::cpu{threads}, p, options);
}

// The thread counts: one, the machine's, more than it has, odd ones (uneven block shares).
#if defined(SSUM_UNDER_ASAN)
const std::vector<unsigned> thread_counts = {1, 3, 16};
#else
const std::vector<unsigned> thread_counts = {1, 2, 3, 4, 7, 16};
#endif

// The planted subset found (the only one: the solver's subset must be it), counted once.
void expect_found(const unique_instance& u, algo a, unsigned threads, bool count) {
  const std::string what = u.what + " " + name_of(a) + " threads=" + std::to_string(threads) + (count ? " count" : "");
  const ssum::solution s = solve(a, threads, u.p, count);
  ASSERT_TRUE(s.feasible) << what;
  EXPECT_TRUE(ssum::is_certificate(u.p, s.subset)) << what;
  EXPECT_EQ(s.subset, u.subset) << what;
  if (count) {
    ASSERT_TRUE(s.count.has_value()) << what;
    EXPECT_EQ(static_cast<std::uint64_t>(*s.count), u.solutions) << what;
  } else {
    EXPECT_FALSE(s.count.has_value()) << what;
  }
}

// The unsolvable twin: infeasible, no subset, a count of 0.
void expect_missed(const unique_instance& u, algo a, unsigned threads, bool count) {
  const std::string what = "miss: " + u.what + " " + name_of(a) + " threads=" + std::to_string(threads);
  const ssum::solution s = solve(a, threads, u.miss, count);
  EXPECT_FALSE(s.feasible) << what;
  EXPECT_TRUE(s.subset.empty()) << what;
  if (count) {
    ASSERT_TRUE(s.count.has_value()) << what;
    EXPECT_EQ(static_cast<std::uint64_t>(*s.count), 0u) << what;
  }
}

// Every shape of unique_shapes with its complement, and the zero-sum ones, for n items; built
// (and counted by the reference) once for all three algorithms.
const std::vector<unique_instance>& instances_for(std::size_t n) {
  static std::map<std::size_t, std::vector<unique_instance>> built;
  if (const auto it = built.find(n); it != built.end()) return it->second;
  std::mt19937_64 rng(1000 + n);
  std::vector<unique_instance>& out = built[n];
  for (const ssum_test::shape& s : ssum_test::unique_shapes(n, rng)) {
    for (bool complement : {false, true}) out.push_back(ssum_test::planted_target(rng, s, complement));
    // Zero-sum: balanced by the last item not taken or, in turn, the first (every item: none is
    // left), and negated in turn.
    const auto free = ssum_test::indices_of([&] {
      std::vector<bool> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = !s.take[i];
      return v;
    }());
    if (free.empty()) continue;
    const std::size_t balance = out.size() % 4 == 2 ? free.front() : free.back();
    out.push_back(ssum_test::planted_zero_sum(rng, s, balance, out.size() % 3 == 0));
  }
  for (const unique_instance& u : out) {
    EXPECT_EQ(u.solutions, 1u) << "not unique: " << u.what;
    EXPECT_EQ(u.miss_solutions, 0u) << "miss solvable: " << u.what;
  }
  return out;
}

int failures() { return ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count(); }

// Every instance on every thread count, counting on every other one (alternating between
// instances, so that each thread count runs both ways); its twin on one thread count in turn.
void run_all(algo a, const std::vector<std::size_t>& sizes) {
  std::size_t k = 0;
  for (const std::size_t n : sizes) {
    for (const unique_instance& u : instances_for(n)) {
      if (u.solutions != 1 || u.miss_solutions != 0) continue;  // reported above
      for (std::size_t t = 0; t < thread_counts.size(); ++t) expect_found(u, a, thread_counts[t], (k + t) % 2 == 1);
      expect_missed(u, a, thread_counts[k % thread_counts.size()], k % 2 == 0);
      ++k;
      if (failures() > 40) return;  // enough to see which shapes fail
    }
  }
}

// n = 30 and 34: lists of 2^15 and 2^17 sums, enough for a team of threads and 64 blocks per
// thread; 31 and 35: halves of unequal size.
#if defined(SSUM_UNDER_ASAN)
const std::vector<std::size_t> mid_sizes = {30, 35};
#else
const std::vector<std::size_t> mid_sizes = {30, 31, 34, 35};
#endif

TEST(UniqueSolutions, TwoListEveryShapeEveryThreadCount) { run_all(algo::two_list, mid_sizes); }
TEST(UniqueSolutions, FourListEveryShapeEveryThreadCount) { run_all(algo::four_list, mid_sizes); }
TEST(UniqueSolutions, MergingTwoListEveryShapeEveryThreadCount) { run_all(algo::merging, mid_sizes); }

// Larger lists (2^20 and 2^22 sums): the extremes and a random middle, every algorithm, a
// few thread counts.
TEST(UniqueSolutions, LargeInstances) {
#if defined(SSUM_UNDER_ASAN)
  const std::vector<std::size_t> sizes = {40};
#else
  const std::vector<std::size_t> sizes = {40, 44};
#endif
  std::size_t k = 0;
  for (const std::size_t n : sizes) {
    std::mt19937_64 rng(4000 + n);
    for (const ssum_test::shape& s : ssum_test::unique_shapes(n, rng)) {
      const bool extreme = s.name.rfind("all of A, none", 0) == 0 || s.name.rfind("none of A", 0) == 0 ||
                           s.name.rfind("every item", 0) == 0 || s.name.rfind("the last item alone, heavy", 0) == 0 ||
                           s.name.rfind("random middle 0", 0) == 0;
      if (!extreme) continue;
      const unique_instance u = ssum_test::planted_target(rng, s, k % 2 == 1);
      ASSERT_EQ(u.solutions, 1u) << u.what;
      ASSERT_EQ(u.miss_solutions, 0u) << u.what;
      for (const algo a : {algo::two_list, algo::four_list, algo::merging}) {
        for (const unsigned threads : {2u, 7u}) expect_found(u, a, threads, (k + threads) % 2 == 1);
        expect_missed(u, a, 3, k % 2 == 0);
      }
      ++k;
    }
  }
}

// The four-list's residue classes: the solution's a + b (items [0, n/2) after the flip) runs
// through 64 consecutive values, so that it lies once in every class of any modulus up to 64
// (the host four-list takes 7 at n = 36, 31 at n = 40), the last one included.
TEST(UniqueSolutions, FourListEveryResidueClass) {
#if defined(SSUM_UNDER_ASAN)
  const std::vector<std::size_t> sizes = {36};
#else
  const std::vector<std::size_t> sizes = {36, 40};
#endif
  for (const std::size_t n : sizes) {
    std::mt19937_64 rng(500 + n);
    ssum_test::shape s{"random, item 0 taken", std::vector<bool>(n), std::vector<bool>(n), std::vector<bool>(n)};
    for (std::size_t i = 0; i < n; ++i) {
      s.take[i] = i == 0 || rng() % 2 == 0;
      s.negative[i] = i != 0 && rng() % 3 == 0;  // item 0 stays positive: +delta moves a + b up
    }
    const unique_instance base = ssum_test::planted_target(rng, s, false);
    for (std::int64_t delta = 0; delta < 64; ++delta) {
      unique_instance u = base;
      u.p.weights[0] += delta;
      *u.p.target += delta;
      u.what = base.what + " delta=" + std::to_string(delta);
      u.solutions = ssum_test::reference_count(u.p);
      ASSERT_EQ(u.solutions, 1u) << u.what;
      expect_found(u, algo::four_list, delta % 2 == 0 ? 1 : 3, delta % 4 < 2);
      if (delta % 8 == 0) {
        u.miss = ssum::problem{u.p.weights, *u.p.target + 1};
        ASSERT_EQ(ssum_test::reference_count(u.miss), 0u) << u.what;
        expect_missed(u, algo::four_list, 2, true);
      }
    }
  }
}

// Counts with runs of equal sums: three equal weights in list A's half and two in B's, one of
// each in the planted subset: 3 x 2 = 6 solutions, one run of 3 equal a's against one of 2
// equal b's (the reference counts them too).
TEST(UniqueSolutions, CountsRunsOfEqualSums) {
  for (const std::size_t n : {30, 35}) {
    std::mt19937_64 rng(600 + n);
    const std::size_t h = n / 2;
    for (int variant = 0; variant < 4; ++variant) {
      ssum_test::shape s{"equal weights " + std::to_string(variant), std::vector<bool>(n), std::vector<bool>(n),
                         std::vector<bool>(n)};
      for (std::size_t i = 0; i < n; ++i) {
        s.take[i] = rng() % 2 == 0;
        s.negative[i] = variant % 2 == 1 && rng() % 3 == 0;
      }
      // The copies: items 1, h - 1, 3 of A (the last of A among them), n - 1 and h + 1 of B.
      const std::size_t copies_a[3] = {1, h - 1, 3}, copies_b[2] = {n - 1, h + 1};
      for (std::size_t i : copies_a) s.take[i] = i == copies_a[variant % 3], s.negative[i] = false;
      for (std::size_t i : copies_b) s.take[i] = i == copies_b[variant % 2], s.negative[i] = variant >= 2;
      unique_instance u = ssum_test::planted_target(rng, s, false);
      const int128 x = u.p.weights[copies_a[0]], y = u.p.weights[copies_b[0]];
      for (std::size_t i : copies_a) {
        if (s.take[i]) *u.p.target += x - u.p.weights[i];
        u.p.weights[i] = x;
      }
      for (std::size_t i : copies_b) {
        if (s.take[i] != s.negative[i]) *u.p.target += y - u.p.weights[i];
        u.p.weights[i] = y;
      }
      ASSERT_TRUE(ssum::is_certificate(u.p, u.subset)) << u.what;
      ASSERT_EQ(ssum_test::reference_count(u.p), 6u) << u.what;
      for (const algo a : {algo::two_list, algo::four_list, algo::merging}) {
        for (const unsigned threads : thread_counts) {
          const std::string what = u.what + " " + name_of(a) + " threads=" + std::to_string(threads);
          const ssum::solution sol = solve(a, threads, u.p, true);
          ASSERT_TRUE(sol.feasible) << what;
          EXPECT_TRUE(ssum::is_certificate(u.p, sol.subset)) << what;
          ASSERT_TRUE(sol.count.has_value()) << what;
          EXPECT_EQ(static_cast<std::uint64_t>(*sol.count), 6u) << what;
        }
      }
    }
  }
}

// The construction the GPU tests rest on (light_heavy: unique by an argument, not by a count),
// checked where the reference can count: the same light positions as there (the first, the
// last held and the left-out item of each half), both signs, complements; every host solver
// finds the one subset and counts it once.
TEST(UniqueSolutions, LightHeavyDesignIsUniqueByConstruction) {
  std::mt19937_64 rng(66);
  for (const std::size_t n : {30, 33}) {
    const std::size_t h = n / 2;
    const std::vector<std::size_t> light = {0, h - 2, h - 1, h, n - 2, n - 1};
    const std::vector<std::vector<std::size_t>> chosen = {{h - 1, n - 1}, {0, h}, {h - 2, n - 2, n - 1}, {}};
    for (std::size_t c = 0; c < chosen.size(); ++c) {
      for (const bool complement : {false, true}) {
        const unique_instance u = ssum_test::light_heavy(rng, n, light, chosen[c], complement, c % 2 == 1);
        ASSERT_TRUE(ssum::is_certificate(u.p, u.subset)) << u.what;
        ASSERT_EQ(ssum_test::reference_count(u.p), 1u) << u.what;
        for (const algo a : {algo::two_list, algo::four_list, algo::merging}) expect_found(u, a, 2, true);
      }
    }
  }
}

}  // namespace

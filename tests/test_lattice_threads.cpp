// The lattice stage's enumeration on several threads: the same solutions as on one, verified,
// no two alike; the limit, cancel and the clock stop every worker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lattice_checks.hpp"
#include "solver/lattice/lattice_rows.hpp"
#include "ssum/rows.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;
using ssum::rows_problem;
using ssum::detail::lattice_options;
using ssum::detail::lattice_result;
using ssum::detail::solve_rows_lattice;
using ssum_test::brute_force;
using ssum_test::subset_set;
using ssum_test::verified_set;

// m rows of n coefficients in 0..top; the targets are the rows' sums over a random subset.
rows_problem planted_rows(std::size_t m, std::size_t n, int top, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> coefficient(0, top);
  rows_problem p;
  p.rows.assign(m, std::vector<int128>(n));
  p.targets.assign(m, 0);
  for (auto& row : p.rows)
    for (auto& a : row) a = coefficient(rng);
  for (std::size_t j = 0; j < n; ++j)
    if (rng() & 1)
      for (std::size_t i = 0; i < m; ++i) p.targets[i] += p.rows[i][j];
  return p;
}

// One row of 60 columns, target half the total: more solutions than any run lists.
rows_problem endless_instance() {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> coefficient(0, 100);
  rows_problem p;
  p.rows.assign(1, std::vector<int128>(60));
  int128 total = 0;
  for (auto& a : p.rows[0]) total += a = coefficient(rng);
  p.targets = {total / 2};
  return p;
}

TEST(LatticeThreads, QoblibInstancesOnOneTwoFourThreads) {
  SKIP_WITHOUT_FPLLL();
  const std::filesystem::path dir = std::filesystem::path(SSUM_SOURCE_DIR) / "tests/data/marketsplit";
  int instances = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".dat") continue;
    ++instances;
    const rows_problem p = ssum::read_rows(entry.path().string());
    for (const unsigned threads : {1u, 2u, 4u}) {
      SCOPED_TRACE(entry.path().filename().string() + " on " + std::to_string(threads) + " threads");
      lattice_options o;
      o.threads = threads;
      const lattice_result r = solve_rows_lattice(p, o);
      ASSERT_EQ(r.subsets.size(), 1u);
      verified_set(p, r);
      EXPECT_FALSE(r.cancelled);
      EXPECT_FALSE(r.timed_out);
    }
  }
  EXPECT_GE(instances, 3);
}

TEST(LatticeThreads, PlantedInstancesOnOneTwoFourThreads) {
  SKIP_WITHOUT_FPLLL();
  std::mt19937_64 rng(31);
  for (std::size_t m = 2; m <= 5; ++m) {
    const std::size_t n = 10 * m;
    const rows_problem p = planted_rows(m, n, 100, rng);
    for (const unsigned threads : {1u, 2u, 4u}) {
      SCOPED_TRACE("m = " + std::to_string(m) + " on " + std::to_string(threads) + " threads");
      lattice_options o;
      o.threads = threads;
      const lattice_result r = solve_rows_lattice(p, o);
      ASSERT_EQ(r.subsets.size(), 1u);
      verified_set(p, r);
    }
  }
}

// With limit 0, four threads list the same set as one (every subtree of every pass is taken
// once), and on these small instances that set is every solution.
TEST(LatticeThreads, AllSolutionsAgreeWithOneThreadAndBruteForce) {
  SKIP_WITHOUT_FPLLL();
  std::mt19937_64 rng(77);
  std::size_t solutions = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const std::size_t m = 1 + trial % 3, n = 12 + trial % 9;
    SCOPED_TRACE("trial " + std::to_string(trial));
    // Coefficients 0..10 on odd trials: many solutions per instance.
    const rows_problem p = planted_rows(m, n, trial % 2 ? 10 : 100, rng);
    const subset_set expected = brute_force(p);
    lattice_options o;
    o.limit = 0;
    const lattice_result one = solve_rows_lattice(p, o);
    o.threads = 4;
    const lattice_result four = solve_rows_lattice(p, o);
    o.threads = 0;  // every hardware thread
    const lattice_result all = solve_rows_lattice(p, o);
    EXPECT_TRUE(one.exhausted);
    EXPECT_TRUE(four.exhausted);
    EXPECT_TRUE(all.exhausted);
    EXPECT_EQ(verified_set(p, one), expected);
    EXPECT_EQ(verified_set(p, four), expected);
    EXPECT_EQ(verified_set(p, all), expected);
    solutions += expected.size();
  }
  EXPECT_GT(solutions, 100u);
}

// A limit filled by one worker stops the others: exactly `limit` subsets, none twice.
TEST(LatticeThreads, LimitStopsEveryWorker) {
  SKIP_WITHOUT_FPLLL();
  const rows_problem p = endless_instance();
  for (const std::uint64_t limit : {1u, 3u, 50u}) {
    SCOPED_TRACE(limit);
    lattice_options o;
    o.limit = limit;
    o.threads = 4;
    const lattice_result r = solve_rows_lattice(p, o);
    EXPECT_EQ(r.subsets.size(), limit);
    EXPECT_FALSE(r.exhausted);
    EXPECT_FALSE(r.cancelled);
    verified_set(p, r);
  }
}

TEST(LatticeThreads, CancelDuringThreadedEnumeration) {
  SKIP_WITHOUT_FPLLL();
  std::atomic<bool> cancel{false};
  lattice_options o;
  o.cancel = &cancel;
  o.limit = 0;
  o.threads = 4;
  const rows_problem p = endless_instance();
  std::chrono::steady_clock::time_point raised;  // read after the join
  std::thread raiser([&] {
    // Past the reduction, into the enumeration, on a loaded machine under sanitizers too.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    raised = std::chrono::steady_clock::now();
    cancel = true;
  });
  const lattice_result r = solve_rows_lattice(p, o);
  const auto returned = std::chrono::steady_clock::now();
  raiser.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.exhausted);
  // The goal is well under a second; 5 s holds on a loaded 2-core machine under sanitizers.
  EXPECT_LT(std::chrono::duration<double>(returned - raised).count(), 5.0);
  if (r.enumerate_seconds > 0) {
    EXPECT_GT(r.subsets.size(), 0u);
  }
  verified_set(p, r);
}

TEST(LatticeThreads, TimeLimitStopsEveryWorker) {
  SKIP_WITHOUT_FPLLL();
  lattice_options o;
  o.time_limit = 0.5;
  o.limit = 0;
  o.threads = 4;
  const auto start = std::chrono::steady_clock::now();
  const lattice_result r = solve_rows_lattice(endless_instance(), o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exhausted);
  EXPECT_LT(took, 0.5 + 5.0);
}

}  // namespace

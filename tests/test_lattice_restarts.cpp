// The lattice stage's randomized restarts: with a tiny node budget (a restart after every
// round of 2^16 nodes or so) it still finds planted solutions, each verified, agrees with brute
// force, and stops promptly for the clock and for cancel while restarting.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lattice_checks.hpp"
#include "solver/lattice/lattice_rows.hpp"
#include "solver/lattice/restart_portfolio.hpp"
#include "ssum/rows.hpp"

namespace {

using ssum::int128;
using ssum::rows_problem;
using ssum::detail::lattice_options;
using ssum::detail::lattice_result;
using ssum::detail::solve_rows_lattice;
using ssum_test::brute_force;
using ssum_test::seconds_since;
using ssum_test::verified_set;

// m rows of n coefficients: a planted subset meets every row, or (unplanted) each target is
// half the row's total plus one, likely met by none.
rows_problem random_rows(std::size_t m, std::size_t n, std::mt19937_64& rng, bool planted) {
  if (planted) {
    const std::vector<std::size_t> subset = ssum_test::random_subset(n, rng);
    return ssum_test::random_rows(m, n, rng, subset);
  }
  rows_problem p = ssum_test::random_rows(m, n, rng, {});
  for (std::size_t i = 0; i < m; ++i) {
    int128 total = 0;
    for (const int128 a : p.rows[i]) total += a;
    p.targets[i] = total / 2 + 1;
  }
  return p;
}

rows_problem hard_instance() {
  const std::filesystem::path file =
      std::filesystem::path(SSUM_SOURCE_DIR) / "bench/data/marketsplit/ms_09_100_002.dat";
  return ssum::read_rows(file.string());
}

// Small instances against brute force, restarting after every budget: a subset found is one
// of brute force's, and when brute force has none the stage finds none.
TEST(LatticeRestarts, SmallInstancesAgainstBruteForce) {
  SKIP_WITHOUT_FPLLL();
  std::mt19937_64 rng(11);
  for (std::size_t m = 2; m <= 4; ++m)
    for (const bool planted : {true, false})
      for (int trial = 0; trial < 3; ++trial) {
        SCOPED_TRACE("m = " + std::to_string(m) + (planted ? ", planted" : ", not planted"));
        const rows_problem p = random_rows(m, 20, rng, planted);
        const auto all = brute_force(p);
        for (unsigned threads : {1u, 2u}) {
          lattice_options o;
          o.restart_nodes = 1;
          o.threads = threads;
          o.seed = trial;
          const lattice_result r = solve_rows_lattice(p, o);
          const auto found = verified_set(p, r);
          if (all.empty()) {
            EXPECT_TRUE(found.empty());
          } else {
            ASSERT_EQ(found.size(), 1u);
            EXPECT_EQ(all.count(*found.begin()), 1u);
          }
        }
      }
}

// A market split instance whose enumeration is large: with a tiny budget it restarts, and
// still answers within the time given.
TEST(LatticeRestarts, MarketSplitFoundAfterRestarts) {
  SKIP_WITHOUT_FPLLL();
  const std::filesystem::path file =
      std::filesystem::path(SSUM_SOURCE_DIR) / "bench/data/marketsplit/ms_07_050_001.dat";
  const rows_problem p = ssum::read_rows(file.string());
  lattice_options o;
  o.restart_nodes = 1;
  o.time_limit = 120;
  const lattice_result r = solve_rows_lattice(p, o);
  ASSERT_EQ(r.subsets.size(), 1u);
  verified_set(p, r);
  EXPECT_FALSE(r.timed_out);
}

// The clock stops a run of many short restarts (mostly BKZ re-reductions) promptly.
TEST(LatticeRestarts, TimeLimitDuringRestarts) {
  SKIP_WITHOUT_FPLLL();
  const rows_problem p = hard_instance();
  for (unsigned threads : {1u, 2u}) {
    lattice_options o;
    o.restart_nodes = 1;
    o.time_limit = 1.5;
    o.threads = threads;
    const auto start = std::chrono::steady_clock::now();
    const lattice_result r = solve_rows_lattice(p, o);
    const double took = seconds_since(start);
    verified_set(p, r);
    if (!r.subsets.empty()) continue;  // a lucky restart: nothing to time
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.exhausted);
    EXPECT_LT(took, 1.5 + 3.0);  // one BKZ tour of block 40 in dimension 72 at most, generously
  }
}

TEST(LatticeRestarts, CancelDuringRestarts) {
  SKIP_WITHOUT_FPLLL();
  const rows_problem p = hard_instance();
  for (unsigned threads : {1u, 2u}) {
    std::atomic<bool> cancel{false};
    lattice_options o;
    o.restart_nodes = 1;
    o.cancel = &cancel;
    o.threads = threads;
    std::chrono::steady_clock::time_point raised;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      raised = std::chrono::steady_clock::now();
      cancel.store(true);
    });
    const lattice_result r = solve_rows_lattice(p, o);
    const auto returned = std::chrono::steady_clock::now();
    canceller.join();
    verified_set(p, r);
    if (!r.subsets.empty()) continue;
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(std::chrono::duration<double>(returned - raised).count(), 3.0);
  }
}

}  // namespace

namespace {

// Luby's sequence against its definition: t_i = 2^(k-1) where i = 2^k - 1, else t_(i - 2^(k-1) + 1)
// for 2^(k-1) <= i < 2^k - 1, computed here by the recursion on a table.
TEST(LatticeRestarts, LubySequence) {
  std::vector<std::uint64_t> t(1, 0);
  for (std::uint64_t i = 1; i < 5000; ++i) {
    std::uint64_t k = 1;
    while ((std::uint64_t(1) << k) - 1 < i) ++k;
    t.push_back((std::uint64_t(1) << k) - 1 == i ? std::uint64_t(1) << (k - 1) : t[i - (std::uint64_t(1) << (k - 1)) + 1]);
    ASSERT_EQ(ssum::detail::luby(i), t[i]) << "i = " << i;
  }
  EXPECT_EQ(ssum::detail::luby(1), 1u);
  EXPECT_EQ(ssum::detail::luby(7), 4u);
}

// A round's unit: the base until there is a rate to go by, then the nodes the enumeration
// visits in the re-reduction's time where that is more, never less than the base, and capped.
TEST(LatticeRestarts, RestartUnitMatchesTheReductionsTime) {
  using ssum::detail::restart_unit;
  const std::uint64_t base = std::uint64_t(1) << 22;
  EXPECT_EQ(restart_unit(base, 0, 0, 1.0), base);           // no enumeration yet
  EXPECT_EQ(restart_unit(base, 1000000, 0.001, 1.0), base); // too short to be a rate
  EXPECT_EQ(restart_unit(base, 20000000, 1.0, 0.0), base);  // no reduction timed
  EXPECT_EQ(restart_unit(base, 20000000, 1.0, 0.1), base);  // 2 x 10^6 nodes: below the base
  EXPECT_EQ(restart_unit(base, 20000000, 1.0, 2.0), 40000000u);  // 20 M/s for 2 s
  EXPECT_EQ(restart_unit(base, std::uint64_t(1) << 62, 0.02, 1e6), std::uint64_t(1) << 62);  // capped
  EXPECT_EQ(ssum::detail::round_budget(base, 8), 4 * base);  // luby(7) = 4
  EXPECT_EQ(ssum::detail::round_budget(std::uint64_t(1) << 62, 8), UINT64_MAX);  // saturates, never 0
}

}  // namespace

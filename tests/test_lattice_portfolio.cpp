// The lattice stage's restarts on several threads, a portfolio of streams: with a tiny node
// budget (many rounds) it answers planted instances with verified subsets, a subset found
// ends every stream without reporting a stop, and cancel and the clock stop every stream
// promptly, reported as the caller's cancel or the clock, not as another stream's success.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "ssum/rows.hpp"

namespace {

using ssum::rows_problem;
using ssum::detail::lattice_options;
using ssum::detail::lattice_result;
using ssum::detail::solve_rows_lattice;
using ssum_test::seconds_since;
using ssum_test::verified_set;

rows_problem hard_instance() {
  const std::filesystem::path file =
      std::filesystem::path(SSUM_SOURCE_DIR) / "bench/data/marketsplit/ms_09_100_002.dat";
  return ssum::read_rows(file.string());
}

// Planted instances of 6 rows and 60 columns, restarting after every 2^16 nodes or so on
// bases of BKZ-10 (with block 40 round 1 or a basis row often answers them, on some runs
// all): each answered with a verified subset, no stop reported, and some after many rounds.
TEST(LatticePortfolio, PlantedInstancesOnTwoAndFourStreams) {
  SKIP_WITHOUT_FPLLL();
  std::mt19937_64 rng(5);
  std::uint64_t most_rounds = 0;
  for (int trial = 0; trial < 3; ++trial) {
    const std::size_t m = 6, n = 60;
    const rows_problem p = ssum_test::random_rows(m, n, rng, ssum_test::random_subset(n, rng));
    for (const unsigned threads : {2u, 4u}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + " on " + std::to_string(threads) + " threads");
      std::atomic<bool> cancel{false};  // never raised: a stream's success must not read as it
      lattice_options o;
      o.restart_nodes = 1;
      o.block_size = 10;
      o.threads = threads;
      o.seed = trial;
      o.cancel = &cancel;
      o.time_limit = 60;
      const lattice_result r = solve_rows_lattice(p, o);
      ASSERT_EQ(r.subsets.size(), 1u);
      verified_set(p, r);
      EXPECT_FALSE(r.cancelled);
      EXPECT_FALSE(r.timed_out);
      EXPECT_FALSE(r.exhausted);
      most_rounds = std::max(most_rounds, r.rounds);
    }
  }
  EXPECT_GT(most_rounds, 1u) << "no instance reached the portfolio";
}

// Cancel raised while the streams restart: every stream stops within the bound, and the
// result says cancelled (the caller's flag, not the portfolio's own stop).
TEST(LatticePortfolio, CancelStopsEveryStream) {
  SKIP_WITHOUT_FPLLL();
  const rows_problem p = hard_instance();
  for (const unsigned threads : {2u, 4u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    std::atomic<bool> cancel{false};
    lattice_options o;
    o.restart_nodes = 1;
    o.block_size = 10;  // a quick first reduction: the portfolio by the cancel, under sanitizers too
    o.cancel = &cancel;
    o.threads = threads;
    std::chrono::steady_clock::time_point raised;  // read after the join
    std::thread raiser([&] {
      // Past the first reduction and round 1, into the portfolio, under sanitizers too.
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      raised = std::chrono::steady_clock::now();
      cancel.store(true);
    });
    const lattice_result r = solve_rows_lattice(p, o);
    const auto returned = std::chrono::steady_clock::now();
    raiser.join();
    verified_set(p, r);
    if (!r.subsets.empty()) {  // a lucky round before the cancel: no stop reported
      EXPECT_FALSE(r.cancelled);
      continue;
    }
    EXPECT_TRUE(r.cancelled);
    EXPECT_FALSE(r.timed_out);
    EXPECT_FALSE(r.exhausted);
    EXPECT_GT(r.rounds, 1u);
    // The goal is well under a second (one BKZ tour); 5 s holds on a loaded 2-core machine
    // under sanitizers.
    EXPECT_LT(std::chrono::duration<double>(returned - raised).count(), 5.0);
  }
}

TEST(LatticePortfolio, TimeLimitStopsEveryStream) {
  SKIP_WITHOUT_FPLLL();
  const rows_problem p = hard_instance();
  for (const unsigned threads : {2u, 4u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    std::atomic<bool> cancel{false};  // never raised: the clock must not read as a cancel
    lattice_options o;
    o.restart_nodes = 1;
    o.block_size = 10;
    o.time_limit = 1.5;
    o.cancel = &cancel;
    o.threads = threads;
    const auto start = std::chrono::steady_clock::now();
    const lattice_result r = solve_rows_lattice(p, o);
    const double took = seconds_since(start);
    verified_set(p, r);
    if (!r.subsets.empty()) {
      EXPECT_FALSE(r.timed_out);
      continue;
    }
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.cancelled);
    EXPECT_FALSE(r.exhausted);
    EXPECT_GT(r.rounds, 1u);
    EXPECT_LT(took, 1.5 + 5.0);
  }
}

}  // namespace

// Several callers at once, each a portfolio of two streams: every stream of every solve calls
// fplll's LLL and pruned BKZ at the same time as the others, on matrices of its own (under the
// sanitizers, a shared state in fplll shows). Each answers its own instance with a verified subset.
TEST(LatticePortfolio, SeveralSolvesAtOnce) {
  SKIP_WITHOUT_FPLLL();
  constexpr int callers = 3;
  std::mt19937_64 rng(11);
  std::vector<rows_problem> problems;
  for (int c = 0; c < callers; ++c) {
    const std::size_t m = 6, n = 60;
    problems.push_back(ssum_test::random_rows(m, n, rng, ssum_test::random_subset(n, rng)));
  }
  std::vector<lattice_result> results(callers);
  std::vector<std::thread> team;
  for (int c = 0; c < callers; ++c)
    team.emplace_back([&, c] {
      lattice_options o;
      o.restart_nodes = 1;  // many rounds: many re-reductions at once
      o.block_size = 20;    // pruned BKZ (fplll's strategies) with its preprocessing tours
      o.threads = 2;
      o.seed = c;
      o.time_limit = 120;
      results[c] = solve_rows_lattice(problems[c], o);
    });
  for (std::thread& t : team) t.join();
  std::uint64_t most_rounds = 0;
  for (int c = 0; c < callers; ++c) {
    SCOPED_TRACE("caller " + std::to_string(c));
    ASSERT_EQ(results[c].subsets.size(), 1u);
    verified_set(problems[c], results[c]);
    EXPECT_FALSE(results[c].timed_out);
    most_rounds = std::max(most_rounds, results[c].rounds);
  }
  EXPECT_GT(most_rounds, 1u) << "no solve reached its portfolio";
}

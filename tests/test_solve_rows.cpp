// ssum::solve_rows against brute force over all 2^n column subsets: decisions and counts on
// the fold (rows within 127 bits) and on the fold and check (rows past it), instances out of
// bounds, the checkpoint and device refusals past 127 bits, and the QOBLIB instances of the
// test data answered with a subset that meets every row.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ssum/errors.hpp"
#include "ssum/explain.hpp"
#include "ssum/solve_rows.hpp"
#include "solver/lattice/lattice_rows.hpp"

namespace {

using ssum::int128;
using ssum::rows_problem;

// The subsets (as masks) meeting every row.
std::vector<std::uint32_t> brute_force(const rows_problem& p) {
  std::vector<std::uint32_t> found;
  const std::size_t n = p.columns();
  for (std::uint32_t mask = 0; mask < (std::uint32_t{1} << n); ++mask) {
    bool all = true;
    for (std::size_t i = 0; i < p.rows.size() && all; ++i) {
      int128 sum = 0;
      for (std::size_t j = 0; j < n; ++j)
        if (mask >> j & 1) sum += p.rows[i][j];
      all = sum == p.targets[i];
    }
    if (all) found.push_back(mask);
  }
  return found;
}

// m rows of n coefficients drawn from [lo, hi]; the targets those of a random subset, or
// (planted = false) one more than that on the first row.
rows_problem random_rows(std::mt19937_64& rng, std::size_t m, std::size_t n, std::int64_t lo, std::int64_t hi,
                         bool planted) {
  rows_problem p;
  std::vector<bool> x(n);
  for (std::size_t j = 0; j < n; ++j) x[j] = rng() & 1;
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<int128> row(n);
    int128 t = 0;
    for (std::size_t j = 0; j < n; ++j) {
      row[j] = std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
      if (x[j]) t += row[j];
    }
    p.rows.push_back(row);
    p.targets.push_back(t + (!planted && i == 0 ? 1 : 0));
  }
  return p;
}

void expect_answers_like_brute_force(const rows_problem& p, const std::string& method) {
  const std::vector<std::uint32_t> want = brute_force(p);
  ssum::solve_options o;
  const ssum::rows_solution d = ssum::solve_rows(ssum::backend::cpu, 2, p, o);
  if (!(want.empty() && d.method == "bounds")) {  // a target past its row's reach is settled at once
    EXPECT_EQ(d.method, method);
  }
  EXPECT_EQ(d.answer.feasible, !want.empty());
  EXPECT_EQ(d.answer.status, want.empty() ? ssum::status::infeasible : ssum::status::feasible);
  if (d.answer.feasible) {
    EXPECT_TRUE(ssum::is_rows_certificate(p, d.answer.subset));
  }
  o.count = true;
  const ssum::rows_solution c = ssum::solve_rows(ssum::backend::cpu, 2, p, o);
  ASSERT_TRUE(c.answer.count.has_value());
  EXPECT_EQ(c.answer.count->to_string(), std::to_string(want.size()));
}

TEST(SolveRows, FoldedRowsAgainstBruteForce) {
  std::mt19937_64 rng(48);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t m = 2 + std::size_t(trial % 5), n = 6 + std::size_t(trial % 11);
    const rows_problem p = trial % 3 == 0 ? random_rows(rng, m, n, -3, 4, trial % 2)  // many solutions
                                          : random_rows(rng, m, n, 0, 100, trial % 2);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_TRUE(ssum::encode_rows(p).has_value());
    expect_answers_like_brute_force(p, "fold");
  }
}

TEST(SolveRows, RowsPastOneSumAreFoldedInPartAndChecked) {
  std::mt19937_64 rng(49);
  for (int trial = 0; trial < 12; ++trial) {
    // Six rows of 16 coefficients near 2^26: 6 x 30 bits, past the 127 of one sum.
    const std::size_t n = 10 + std::size_t(trial % 7);
    rows_problem p = random_rows(rng, 6, n, 1 << 25, 1 << 26, trial % 2);
    if (trial % 4 == 3) {  // a duplicate column: two solutions for each one
      for (auto& row : p.rows) row[1] = row[0];
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_FALSE(ssum::encode_rows(p).has_value());
    expect_answers_like_brute_force(p, "fold and check");
  }
}

TEST(SolveRows, TargetsOutOfReachAndRefusals) {
  const rows_problem out{{{1, 2, 3}, {4, 5, 6}}, {7, 100}};
  ssum::solve_options o;
  o.count = true;
  const ssum::rows_solution s = ssum::solve_rows(ssum::backend::cpu, 1, out, o);
  EXPECT_EQ(s.method, "bounds");
  EXPECT_EQ(s.answer.status, ssum::status::infeasible);
  EXPECT_EQ(s.answer.count->to_string(), "0");

  std::mt19937_64 rng(50);
  const rows_problem wide = random_rows(rng, 6, 12, 1 << 25, 1 << 26, true);
  o = {};
  o.checkpoint = (std::filesystem::temp_directory_path() / "ssum_rows_never_written").string();
  EXPECT_THROW(ssum::solve_rows(ssum::backend::cpu, 1, wide, o), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(o.checkpoint));
  o = {};
  EXPECT_THROW(ssum::solve_rows(ssum::backend::cuda, 0, wide, o), ssum::backend_unavailable);
  EXPECT_THROW(ssum::solve_rows(ssum::backend::cpu, 1, rows_problem{{{1, 2}}, {0, 1}}, o), std::invalid_argument);
}

TEST(SolveRows, TheLatticeStageRacesTheExactSearchAndNeverSaysNone) {
  // Four rows of coefficients up to 10^6 over 60 columns: the lattice reduction finds the
  // planted subset in a fraction of a second, where the four-list searches for seconds. Four
  // threads: one for the lattice beside the exact search.
  std::mt19937_64 rng(51);
  const rows_problem low_density = random_rows(rng, 4, 60, 0, 1000000, true);
  ssum::solve_options o;
  o.time_limit = 300;  // a bound for a machine where the lattice fails: the four-list answers
  const ssum::rows_solution s = ssum::solve_rows(ssum::backend::cpu, 4, low_density, o);
  ASSERT_TRUE(s.answer.feasible);
  EXPECT_TRUE(ssum::is_rows_certificate(low_density, s.answer.subset));
  if (s.method == "lattice") {
    EXPECT_EQ(s.answer.algorithm, "lattice");
    EXPECT_GT(s.lattice_seconds, 0);
  } else {
    EXPECT_EQ(s.method, "fold");  // built without fplll, or the exact search was first
  }
  // No solution: whatever the lattice finds (nothing), the exact search proves it.
  for (int trial = 0; trial < 6; ++trial) {
    const rows_problem none = random_rows(rng, 3, 18, 0, 50, false);
    const std::vector<std::uint32_t> want = brute_force(none);
    const ssum::rows_solution r = ssum::solve_rows(ssum::backend::cpu, 4, none, ssum::solve_options{});
    EXPECT_EQ(r.answer.feasible, !want.empty());
    if (r.answer.feasible) {
      EXPECT_TRUE(ssum::is_rows_certificate(none, r.answer.subset));
    }
    EXPECT_NE(r.answer.status, ssum::status::unknown);
  }
}

// Past 127 bits the lattice races the fold-and-check listing too: six rows of coefficients up
// to 10^6 over 64 columns (about 156 bits), where listing the subsets of the five rows that
// fold and checking each on the sixth runs for minutes, the lattice finds the planted subset
// in a fraction of a second. A named enumerator is obeyed there, or refused with its reason.
TEST(SolveRows, PastOneSumTheLatticeRacesAndANamedAlgorithmIsObeyed) {
  std::mt19937_64 rng(52);
  const rows_problem p = random_rows(rng, 6, 64, 0, 1000000, true);
  ASSERT_FALSE(ssum::encode_rows(p).has_value());
  ssum::solve_options named;
  named.algo = ssum::algorithm::completion_search;
  EXPECT_THROW(ssum::solve_rows(ssum::backend::cpu, 1, p, named), std::invalid_argument);
  named.algo = ssum::algorithm::two_list;  // 64 items: past the meet in the middle's 60
  try {
    ssum::solve_rows(ssum::backend::cpu, 1, p, named);
    FAIL() << "the two-list listed 64 items";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("60 items"), std::string::npos) << e.what();
  }
  if (!ssum::detail::lattice_available()) GTEST_SKIP() << "built without fplll: no lattice stage to race";
  ssum::solve_options o;
  o.time_limit = 60;  // the listing alone answers "unknown" by then
  const ssum::rows_solution s = ssum::solve_rows(ssum::backend::cpu, 4, p, o);
  ASSERT_TRUE(s.answer.feasible) << s.method << ": " << s.answer.plan.reason;
  EXPECT_TRUE(ssum::is_rows_certificate(p, s.answer.subset));
  EXPECT_EQ(s.method, "lattice");
  EXPECT_LT(s.rows_folded, 6u);  // the rows that fold, the others checked
}

// Where the exact search on the host cannot end within the time limit (QOBLIB's ms_10_050: a
// four-list its plan expects to take days), the lattice stage takes all of the team's threads
// but one, and says so; where it is quick (the low-density rows above), it keeps one.
TEST(SolveRows, TheLatticeTakesTheThreadsOfAHopelessExactSearch) {
  if (!ssum::detail::lattice_available()) GTEST_SKIP() << "built without fplll: no lattice stage to race";
  const rows_problem p = ssum::read_rows(
      (std::filesystem::path(SSUM_SOURCE_DIR) / "bench/data/marketsplit/ms_10_050_000.dat").string());
  ssum::solve_options o;
  o.time_limit = 300;
  const ssum::rows_solution s = ssum::solve_rows(ssum::backend::cpu, 4, p, o);
  ASSERT_TRUE(s.answer.feasible) << s.method << ": " << s.answer.plan.reason;
  EXPECT_TRUE(ssum::is_rows_certificate(p, s.answer.subset));
  ASSERT_EQ(s.method, "lattice") << s.answer.plan.reason;
  EXPECT_EQ(s.answer.threads, 3u);
  EXPECT_NE(s.answer.plan.reason.find("on 3 threads"), std::string::npos) << s.answer.plan.reason;

  // The plan says the share: without a time limit the exact search, which alone proves
  // "none", keeps half the team when its plan expects over an hour.
  auto races_line = [&](const ssum::solve_options& with) {
    for (const ssum::plan_candidate& c : ssum::explain_rows(ssum::backend::cpu, 4, p, with).candidates)
      if (c.algorithm == "lattice") return c.role + ": " + c.why;
    return std::string("no lattice line");
  };
  EXPECT_NE(races_line(o).find("races: "), std::string::npos);
  EXPECT_NE(races_line(o).find("on 3 threads"), std::string::npos) << races_line(o);
  EXPECT_NE(races_line(ssum::solve_options{}).find("on 2 threads"), std::string::npos) << races_line({});

  std::mt19937_64 rng(51);
  const rows_problem low_density = random_rows(rng, 4, 60, 0, 1000000, true);
  const ssum::rows_solution quick = ssum::solve_rows(ssum::backend::cpu, 4, low_density, o);
  ASSERT_TRUE(quick.answer.feasible);
  if (quick.method == "lattice") EXPECT_EQ(quick.answer.threads, 1u);
  else EXPECT_NE(quick.answer.plan.reason.find("on one thread"), std::string::npos) << quick.answer.plan.reason;
}

TEST(SolveRows, QoblibInstancesOfTheTestData) {
  const std::filesystem::path dir = std::filesystem::path(SSUM_SOURCE_DIR) / "tests/data/marketsplit";
  int solved = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".dat") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const rows_problem p = ssum::read_rows(entry.path().string());
    const ssum::rows_solution s = ssum::solve_rows(ssum::backend::cpu, 2, p, ssum::solve_options{});
    EXPECT_EQ(s.method, "fold");
    ASSERT_TRUE(s.answer.feasible);
    EXPECT_TRUE(ssum::is_rows_certificate(p, s.answer.subset));
    ++solved;
  }
  EXPECT_GE(solved, 3);
}

}  // namespace

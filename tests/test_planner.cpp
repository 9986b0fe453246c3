// The plan's table (ssum::explain, src/solver/planner.hpp): every candidate costed, the one a
// solve runs marked, and the decision agreeing with the table: the chosen plan is the fastest
// exact candidate that fits, but for the rules the table states (the two-list keeps what
// answers within a millisecond; the completion search takes a dense decision no exact
// candidate answers within 10 s; the reductions answer what they settle).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ssum/explain.hpp"
#include "ssum/ssum.hpp"

namespace {

const ssum::plan_candidate* chosen_of(const ssum::plan_table& t) {
  const ssum::plan_candidate* c = nullptr;
  for (const ssum::plan_candidate& row : t.candidates) {
    if (row.role == "chosen") {
      EXPECT_EQ(c, nullptr) << "two rows chosen";
      c = &row;
    }
  }
  return c;
}

const ssum::plan_candidate* fastest_exact(const ssum::plan_table& t) {
  const ssum::plan_candidate* best = nullptr;
  for (const ssum::plan_candidate& row : t.candidates) {
    if (row.exact && row.fits && row.seconds >= 0 && row.algorithm != "reductions" &&
        (!best || row.seconds < best->seconds)) {
      best = &row;
    }
  }
  return best;
}

struct shape {
  const char* cls;
  std::size_t n;
  std::optional<int> bits;
};

const shape shapes[] = {{"random", 0, {}},       {"random", 1, {}},       {"random", 20, {}},
                        {"random", 40, {}},      {"random", 30, 12},      {"random", 200, 20},
                        {"random", 100, 55},     {"random", 1000, 30},    {"psix", 1000, {}},
                        {"pthree", 10000, {}},   {"somatoth", 1000, {}},  {"evenodd", 1000, {}},
                        {"zero-sum", 40, {}},    {"planted", 48, {}},     {"partition", 100, 60}};

TEST(Planner, TheDecisionIsTheTablesFastestExactCandidate) {
  for (const shape& s : shapes) {
    for (const bool count : {false, true}) {
      const ssum::problem p = ssum::generate(s.cls, s.n, s.bits, 7);
      ssum::solve_options o;
      o.count = count;
      const ssum::plan_table t = ssum::explain(ssum::backend::cpu, 2, p, o);
      SCOPED_TRACE(std::string(s.cls) + " n = " + std::to_string(s.n) + (count ? " count" : " decide") + ": " +
                   t.chosen.algorithm + ", " + t.chosen.reason + t.refusal);
      EXPECT_EQ(t.question, count ? "count" : "decide");
      EXPECT_EQ(t.threads, 2u);
      ASSERT_FALSE(t.candidates.empty());
      EXPECT_EQ(t.candidates.front().algorithm, "reductions");
      if (t.chosen.algorithm.empty()) {
        EXPECT_FALSE(t.refusal.empty());
        EXPECT_EQ(chosen_of(t), nullptr);
        continue;
      }
      const ssum::plan_candidate* chosen = chosen_of(t);
      ASSERT_NE(chosen, nullptr);
      EXPECT_EQ(chosen->algorithm, t.chosen.algorithm);
      EXPECT_EQ(chosen->backend, "cpu");
      EXPECT_TRUE(chosen->takes);
      if (chosen->algorithm == "reductions") continue;
      EXPECT_TRUE(chosen->fits);
      const ssum::plan_candidate* best = fastest_exact(t);
      if (!chosen->exact) {
        EXPECT_EQ(chosen->algorithm, "completion");
        EXPECT_FALSE(count);
        if (best) EXPECT_GT(best->seconds, 10);
        continue;
      }
      ASSERT_NE(best, nullptr);
      if (chosen->algorithm == "two-list" && chosen->seconds <= 1e-3) continue;
      EXPECT_LE(chosen->seconds, best->seconds * 1.0001) << "the fastest is " << best->algorithm;
    }
  }
}

TEST(Planner, ExplainNamesWhatSolveRuns) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 1 + rng() % 36;
    const int bits = 4 + int(rng() % 40);
    const ssum::problem p = ssum::generate(trial % 3 ? "random" : "zero-sum", n, bits, rng());
    for (const bool count : {false, true}) {
      ssum::solve_options o;
      o.count = count;
      o.memory_limit = std::uint64_t(1) << 30;  // below what is free: the room in the reasons stays put
      const ssum::plan_table t = ssum::explain(ssum::backend::cpu, 2, p, o);
      const ssum::solution s = ssum::solve(ssum::backend::cpu, 2, p, o);
      SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::to_string(bits) + " bits");
      EXPECT_EQ(t.chosen.algorithm, s.plan.algorithm);
      EXPECT_EQ(t.chosen.backend, s.plan.backend);
      EXPECT_EQ(t.chosen.reason, s.plan.reason);
    }
  }
}

TEST(Planner, NamedAlgorithmsAreCheckedAgainstTheSameTable) {
  const ssum::problem p = ssum::generate("random", 44, std::nullopt, 3);
  for (const ssum::algorithm a : {ssum::algorithm::two_list, ssum::algorithm::four_list,
                                  ssum::algorithm::dynamic_programming}) {
    ssum::solve_options o;
    o.algo = a;
    const ssum::plan_table t = ssum::explain(ssum::backend::cpu, 2, p, o);
    // The dp's table of 2^56 sums cannot fit: the named plan is refused, and the table says so.
    if (a == ssum::algorithm::dynamic_programming) {
      EXPECT_TRUE(t.chosen.algorithm.empty());
      EXPECT_NE(t.refusal.find("needs"), std::string::npos) << t.refusal;
      continue;
    }
    EXPECT_EQ(t.chosen.algorithm, a == ssum::algorithm::two_list ? "two-list" : "four-list");
    EXPECT_NE(t.chosen.reason.find("asked for"), std::string::npos) << t.chosen.reason;
  }
}

TEST(Planner, ABadArgumentIsThrownNotTabled) {
  ssum::solve_options o;
  o.algo = ssum::algorithm::completion_search;
  o.count = true;
  EXPECT_THROW(ssum::explain(ssum::backend::cpu, 2, ssum::generate("random", 20, std::nullopt, 1), o),
               std::invalid_argument);
}

// Past every algorithm's items the instance is refused by type (ssum::instance_refused, still a
// std::invalid_argument): the table records it; a bad argument is no instance_refused.
TEST(Planner, AnInstancePastEveryAlgorithmIsRefusedByType) {
  const ssum::problem wide = ssum::generate("random", 200, 16, 1);
  ssum::solve_options four;
  four.algo = ssum::algorithm::four_list;
  EXPECT_THROW(ssum::solve(ssum::backend::cpu, 2, wide, four), ssum::instance_refused);
  const ssum::plan_table t = ssum::explain(ssum::backend::cpu, 2, wide, four);
  EXPECT_TRUE(t.chosen.algorithm.empty());
  EXPECT_NE(t.refusal.find("at most"), std::string::npos) << t.refusal;
  ssum::listing_options sixty_one;
  sixty_one.algo = ssum::algorithm::two_list;
  EXPECT_THROW(ssum::list_subsets(ssum::backend::cpu, 2, ssum::generate("random", 61, 16, 1), sixty_one,
                                  [](const auto&) { return true; }),
               ssum::instance_refused);
  ssum::solve_options bad;
  bad.algo = ssum::algorithm::completion_search;
  bad.count = true;
  try {
    (void)ssum::solve(ssum::backend::cpu, 2, ssum::generate("random", 20, std::nullopt, 1), bad);
    ADD_FAILURE() << "a count by the completion search was not refused";
  } catch (const ssum::instance_refused& e) {
    ADD_FAILURE() << "a bad argument taken for the instance's refusal: " << e.what();
  } catch (const std::invalid_argument&) {
  }
}

TEST(Planner, AnInstanceBeyondReachIsExplainedWithoutRunning) {
  // Density 1 at n = 120: a solve refuses it at once (no time limit); explain says why and
  // costs every candidate. Without the refusal this would run for years: ctest's timeout
  // catches a solve started by mistake.
  const ssum::problem p = ssum::generate("random", 120, 120, 5);
  const ssum::plan_table t = ssum::explain(ssum::backend::cpu, 2, p, {});
  EXPECT_TRUE(t.chosen.algorithm.empty());
  EXPECT_NE(t.refusal.find("no proof is possible"), std::string::npos) << t.refusal;
  bool four = false;
  for (const auto& c : t.candidates) four = four || (c.algorithm == "four-list" && c.takes && c.seconds > 86400);
  EXPECT_TRUE(four);
}

TEST(Planner, ListingTableMatchesTheListing) {
  for (const std::size_t n : {0u, 1u, 12u, 30u, 50u, 200u}) {
    const ssum::problem p = ssum::generate("random", n, 16, n + 1);
    for (const std::size_t items : {std::size_t{2}, SIZE_MAX}) {
      ssum::listing_options o;
      o.max_items = items;
      o.limit = 3;
      o.memory_limit = std::uint64_t(1) << 30;
      const ssum::plan_table t = ssum::explain_listing(ssum::backend::cpu, 2, p, o);
      const ssum::listing l = ssum::list_subsets(ssum::backend::cpu, 2, p, o, [](const auto&) { return true; });
      SCOPED_TRACE("n = " + std::to_string(n));
      EXPECT_EQ(t.question, "list");
      EXPECT_EQ(t.chosen.algorithm, l.plan.algorithm);
      EXPECT_EQ(t.chosen.reason, l.plan.reason);
      const ssum::plan_candidate* chosen = chosen_of(t);
      ASSERT_NE(chosen, nullptr);
      EXPECT_EQ(chosen->algorithm, l.algorithm);
    }
  }
  // On the device only the GPU's meet in the middle lists; without one the backend is refused.
  if (ssum::cuda_devices().empty()) {
    EXPECT_THROW(ssum::explain_listing(ssum::backend::cuda, 2, ssum::generate("random", 5, 8, 1), {}),
                 ssum::backend_unavailable);
  } else {
    const ssum::plan_table t = ssum::explain_listing(ssum::backend::cuda, 2, ssum::generate("random", 5, 8, 1), {});
    EXPECT_EQ(t.chosen.backend, "cuda");
    for (const ssum::plan_candidate& c : t.candidates) EXPECT_EQ(c.backend, "cuda") << c.algorithm;
  }
}

// Two rows of 120 columns of about 110 bits: no exact algorithm fits (the four-list of one
// row's fold needs hundreds of GiB), so under automatic the lattice stage runs alone where it
// is built, and the table says why; without fplll the refusal stands.
TEST(Planner, RowsNoExactAlgorithmTakesGoToTheLattice) {
  std::mt19937_64 rng(3);
  ssum::rows_problem p;
  std::vector<int> x(120);
  for (int& v : x) v = int(rng() & 1);
  for (int r = 0; r < 2; ++r) {
    std::vector<ssum::int128> row;
    ssum::int128 t = 0;
    for (int j = 0; j < 120; ++j) {
      const ssum::int128 w = (ssum::int128(rng() >> 10) << 56) | ssum::int128(rng() >> 8);
      row.push_back(w);
      if (x[std::size_t(j)]) t += w;
    }
    p.rows.push_back(row);
    p.targets.push_back(t);
  }
  ssum::solve_options o;
  o.memory_limit = std::uint64_t(1) << 30;
  const ssum::plan_table t = ssum::explain_rows(ssum::backend::cpu, 2, p, o);
  const ssum::plan_candidate& lattice = t.candidates.back();
  EXPECT_EQ(lattice.algorithm, "lattice");
  EXPECT_FALSE(lattice.exact);
  if (lattice.takes) {
    EXPECT_EQ(t.chosen.algorithm, "lattice");
    EXPECT_EQ(lattice.role, "chosen");
    EXPECT_NE(t.chosen.reason.find("no exact algorithm"), std::string::npos) << t.chosen.reason;
    // And the solve does what the table says, within a time limit: a subset or unknown.
    o.time_limit = 2;
    const ssum::rows_solution s = ssum::solve_rows(ssum::backend::cpu, 2, p, o);
    EXPECT_EQ(s.method, "lattice");
    EXPECT_NE(s.answer.status, ssum::status::infeasible);
    if (s.answer.feasible) EXPECT_TRUE(ssum::is_rows_certificate(p, s.answer.subset));
  } else {
    EXPECT_TRUE(t.chosen.algorithm.empty());
    EXPECT_NE(t.refusal.find("needs"), std::string::npos) << t.refusal;
    o.time_limit = 2;
    EXPECT_THROW(ssum::solve_rows(ssum::backend::cpu, 2, p, o), ssum::insufficient_memory);
  }
}

TEST(Planner, RowsFoldTakesThePlannersChoice) {
  // Several rows of small numbers over 100 columns: the fold is 18 bits, the counting table
  // answers at once (the two lists would need 2^50 sums).
  std::mt19937_64 rng(9);
  ssum::rows_problem p;
  for (int r = 0; r < 2; ++r) {
    std::vector<ssum::int128> row;
    ssum::int128 total = 0;
    for (int j = 0; j < 100; ++j) row.push_back(ssum::int128(rng() % 20)), total += row.back();
    p.rows.push_back(row);
    p.targets.push_back(total / 2);
  }
  ssum::solve_options o;
  o.count = true;
  const ssum::plan_table t = ssum::explain_rows(ssum::backend::cpu, 2, p, o);
  EXPECT_EQ(t.question.rfind("rows: count", 0), 0u) << t.question;
  EXPECT_EQ(t.chosen.algorithm, "dp") << t.chosen.reason << t.refusal;
  const ssum::rows_solution s = ssum::solve_rows(ssum::backend::cpu, 2, p, o);
  EXPECT_EQ(s.answer.algorithm, "dp");
  ASSERT_TRUE(s.answer.count.has_value());
}

}  // namespace

namespace {

TEST(Planner, RowsRaceTheLatticeWhereTheExactSearchTakesASecondOrMore) {
  const std::string data = std::string(SSUM_SOURCE_DIR);
  const ssum::rows_problem slow = ssum::read_rows(data + "/bench/data/marketsplit/ms_07_050_001.dat");
  const ssum::rows_problem quick = ssum::read_rows(data + "/tests/data/marketsplit/ms_04_050_001.dat");
  const ssum::plan_table s = ssum::explain_rows(ssum::backend::cpu, 2, slow, {});
  const ssum::plan_table q = ssum::explain_rows(ssum::backend::cpu, 2, quick, {});
  ASSERT_EQ(s.candidates.back().algorithm, "lattice");
  ASSERT_EQ(q.candidates.back().algorithm, "lattice");
  if (!s.candidates.back().takes) GTEST_SKIP() << "this build has no fplll: " << s.candidates.back().why;
  EXPECT_EQ(s.candidates.back().role, "races");
  EXPECT_EQ(q.candidates.back().role, "") << "an exact search of milliseconds runs alone";
  // A count is the exact algorithms' alone.
  ssum::solve_options count;
  count.count = true;
  EXPECT_EQ(ssum::explain_rows(ssum::backend::cpu, 2, slow, count).candidates.back().role, "");
}

}  // namespace

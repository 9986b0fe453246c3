// The lattice stage on one sum of low density (src/solver/lattice/one_sum_lattice.hpp): it
// races the exact search where that would take seconds, runs alone where every exact algorithm
// refuses, and never answers "none"; counts, zero-sum, named algorithms and dense sums are the
// exact algorithms' alone.
#include <gtest/gtest.h>

#include <string>

#include "solver/lattice/lattice_rows.hpp"
#include "ssum/explain.hpp"
#include "ssum/ssum.hpp"

namespace {

std::string lattice_role(const ssum::plan_table& t) {
  for (const ssum::plan_candidate& c : t.candidates) {
    if (c.algorithm == "lattice") return c.role.empty() ? "listed" : c.role;
  }
  return "";
}

TEST(OneSumLattice, APlantedLowDensitySumIsFoundAtOnce) {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    // 60 items of 90 bits (density 0.67): the four-list takes about 40 s on 2 cores.
    const ssum::problem p = ssum::generate("planted", 60, 90, seed);
    ssum::solve_options o;
    o.time_limit = 300;  // a bound for a broken build, far above the lattice's second
    const ssum::solution s = ssum::solve(ssum::backend::cpu, 2, p, o);
    ASSERT_EQ(s.status, ssum::status::feasible) << s.plan.reason;
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
    const std::string role = lattice_role(ssum::explain(ssum::backend::cpu, 2, p, o));
    if (!ssum::detail::lattice_available()) {
      EXPECT_EQ(role, "");
      continue;
    }
    EXPECT_EQ(s.algorithm, "lattice") << s.plan.reason;
    EXPECT_NE(s.plan.reason.find("density 0.67"), std::string::npos) << s.plan.reason;
    EXPECT_EQ(role, "races");
  }
}

TEST(OneSumLattice, NothingFoundIsUnknownNeverNone) {
  // 90 items of 120 bits, a target no subset is likely to meet: out of reach for the exact
  // algorithms; under a time limit the lattice (or without fplll the exact search) ends unknown.
  const ssum::problem p = ssum::generate("random", 90, 120, 1);
  ssum::solve_options o;
  o.time_limit = 1;
  const ssum::solution s = ssum::solve(ssum::backend::cpu, 2, p, o);
  EXPECT_EQ(s.status, ssum::status::unknown);
  EXPECT_TRUE(s.subset.empty());
  if (ssum::detail::lattice_available()) {
    // A time limit lets the exact search run: the lattice races it, and the exact search's
    // verdict (unknown) stands. Without one, every exact plan is refused: the lattice alone.
    EXPECT_NE(s.plan.reason.find("the lattice stage ran beside it"), std::string::npos) << s.plan.reason;
    const ssum::plan_table t = ssum::explain(ssum::backend::cpu, 2, p, {});
    EXPECT_EQ(t.chosen.algorithm, "lattice") << t.refusal;
    EXPECT_EQ(lattice_role(t), "chosen");
  }
}

TEST(OneSumLattice, TakesNoPartOutsideItsShape) {
  const ssum::problem planted = ssum::generate("planted", 60, 90, 1);
  ssum::solve_options count;
  count.count = true;
  EXPECT_EQ(lattice_role(ssum::explain(ssum::backend::cpu, 2, planted, count)), "");
  ssum::solve_options named;
  named.algo = ssum::algorithm::four_list;
  EXPECT_EQ(lattice_role(ssum::explain(ssum::backend::cpu, 2, planted, named)), "");
  // Density 1: the lattice does not pay; the refusal stands as it is.
  const ssum::problem dense = ssum::generate("random", 120, 120, 5);
  EXPECT_EQ(lattice_role(ssum::explain(ssum::backend::cpu, 2, dense, {})), "");
  EXPECT_THROW(ssum::solve(ssum::backend::cpu, 2, dense, {}), ssum::out_of_reach);
  // Zero-sum: the lattice's target 0 holds the empty subset; not its question.
  const ssum::problem zero = ssum::generate("zero-sum", 60, 90, 1);
  EXPECT_EQ(lattice_role(ssum::explain(ssum::backend::cpu, 2, zero, {})), "");
}

}  // namespace

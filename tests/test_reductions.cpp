// The reductions ahead of every algorithm (src/solver/reductions.hpp): each one alone and
// all combined, every reduced subset mapped back and verified on the original instance, and
// every verdict compared with brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "small_instances.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"

using namespace ssum_test;
using ssum::int128;
using ssum::uint128;
using ssum::detail::reduction;

namespace {

bool lists(const reduction& r, const std::string& start) {
  return std::any_of(r.applied.begin(), r.applied.end(), [&](const std::string& a) { return a.rfind(start, 0) == 0; });
}

// A subset of the reduced instance (positions in r.weights) that answers it, by brute force:
// with a target, one summing to r.bound; zero-sum, a non-empty one whose positive and
// negative parts balance. Empty optional: none.
std::optional<std::vector<std::size_t>> reduced_answer(const reduction& r) {
  const std::size_t m = r.weights.size();
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << m); ++mask) {
    int128 sum = 0;
    std::vector<std::size_t> chosen;
    for (std::size_t k = 0; k < m; ++k) {
      if (!(mask >> k & 1)) continue;
      chosen.push_back(k);
      const int128 w = int128(r.weights[k]);
      sum += r.zero_sum && r.negative[k] ? -w : w;
    }
    if (r.zero_sum ? (mask != 0 && sum == 0) : sum == int128(r.bound)) return chosen;
  }
  return std::nullopt;
}

// The reduction of p agrees with brute force, and its answer maps back to a certificate.
void expect_reduction_sound(const ssum::problem& p) {
  SCOPED_TRACE(describe(p));
  const auto totals = ssum::detail::totals_of(p);
  const bool feasible = brute_force_count(p) > 0;
  if (totals.out_of_range()) {
    EXPECT_FALSE(feasible);
    return;
  }
  const reduction r = ssum::detail::reduce(p, totals);
  ASSERT_EQ(r.weights.size(), r.index.size());
  for (const uint128 w : r.weights) {
    EXPECT_GE(w, uint128(1));
    EXPECT_LE(w, r.bound);
  }
  switch (r.outcome) {
    case reduction::verdict::infeasible:
      EXPECT_FALSE(feasible);
      return;
    case reduction::verdict::answered:
      EXPECT_TRUE(feasible);
      EXPECT_TRUE(ssum::is_certificate(p, r.answer));
      return;
    case reduction::verdict::open:
      break;
  }
  const auto chosen = reduced_answer(r);
  EXPECT_EQ(chosen.has_value(), feasible);
  if (chosen) {
    const auto subset = ssum::detail::map_back(p, r, *chosen);
    EXPECT_TRUE(ssum::is_certificate(p, subset));
  }
}

}  // namespace

TEST(Reductions, ZeroWeightsAreSetAside) {
  const auto p = make_problem({0, 4, 0, 3, 0, 2}, 4);
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  EXPECT_TRUE(lists(r, "zero weights set aside (3)"));
  EXPECT_EQ(r.applied.size(), 1u);
  EXPECT_EQ(r.weights.size(), 3u);
  expect_reduction_sound(p);
  // Zero-sum: a zero weight is the answer by itself.
  const auto z = make_problem({5, 0, -3}, std::nullopt);
  const reduction rz = ssum::detail::reduce(z, ssum::detail::totals_of(z));
  EXPECT_EQ(rz.outcome, reduction::verdict::answered);
  EXPECT_EQ(rz.answer, std::vector<std::size_t>{1});
  // Only zeros: the empty subset reaches 0 and nothing else.
  const auto only = make_problem({0, 0}, 0);
  EXPECT_EQ(ssum::detail::reduce(only, ssum::detail::totals_of(only)).outcome, reduction::verdict::answered);
}

TEST(Reductions, TheGcdDividesOrProvesInfeasible) {
  const auto p = make_problem({6, 9, 15}, 24);
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  EXPECT_TRUE(lists(r, "divided by the gcd 3"));
  EXPECT_TRUE(r.complemented);  // 2, 3, 5 towards 8: the items left out sum to 2
  EXPECT_EQ(r.bound, uint128(2));
  expect_reduction_sound(p);
  const auto q = make_problem({6, 9, 15}, 25);
  const reduction rq = ssum::detail::reduce(q, ssum::detail::totals_of(q));
  EXPECT_EQ(rq.outcome, reduction::verdict::infeasible);
  EXPECT_TRUE(lists(rq, "the gcd 3 does not divide the target"));
}

TEST(Reductions, NegativeWeightsAreFlipped) {
  const auto p = make_problem({-3, 5, 7}, 2);
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  EXPECT_TRUE(lists(r, "negative weights flipped (target raised by 3)"));
  expect_reduction_sound(p);
  expect_reduction_sound(make_problem({-3, -5, -7}, -8));
  expect_reduction_sound(make_problem({-3, -5, -7}, -9));
}

TEST(Reductions, TheComplementIsTakenWhenSmaller) {
  const auto p = make_problem({1, 2, 3, 4, 10}, 18);
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  EXPECT_TRUE(r.complemented);
  EXPECT_EQ(r.bound, uint128(2));
  EXPECT_TRUE(lists(r, "complement"));
  EXPECT_TRUE(lists(r, "items heavier than the target removed (3)"));
  expect_reduction_sound(p);
  const auto q = make_problem({1, 2, 3, 4, 10}, 3);
  EXPECT_FALSE(ssum::detail::reduce(q, ssum::detail::totals_of(q)).complemented);
}

TEST(Reductions, HeavyItemsAreRemoved) {
  const auto p = make_problem({1, 2, 100, 50}, 3);
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  EXPECT_TRUE(lists(r, "items heavier than the target removed (2)"));
  EXPECT_EQ(r.weights.size(), 2u);
  expect_reduction_sound(p);
  // Zero-sum: nothing above the smaller side's sum can balance.
  const auto z = make_problem({-2, -3, 5, 40}, std::nullopt);
  const reduction rz = ssum::detail::reduce(z, ssum::detail::totals_of(z));
  EXPECT_EQ(rz.bound, uint128(5));
  EXPECT_EQ(rz.weights.size(), 3u);
  expect_reduction_sound(z);
  const auto one_sign = make_problem({2, 3}, std::nullopt);
  EXPECT_EQ(ssum::detail::reduce(one_sign, ssum::detail::totals_of(one_sign)).outcome, reduction::verdict::infeasible);
}

// Zero-sum: removing a weight above the other side's whole sum lowers its own side's sum, which
// can leave another weight above it; the removal repeats until none is, and one sign left
// means infeasible. 1..100 with 10^26 and -2*10^26: -2*10^26 goes, and no negative is left to
// balance 10^26 or anything else.
TEST(Reductions, ZeroSumRemovalRepeatsUntilNothingChanges) {
  ssum::problem p;
  for (int w = 1; w <= 100; ++w) p.weights.push_back(w);
  const int128 e26 = int128(100000000000000LL) * 1000000000000LL;
  p.weights.push_back(e26);
  p.weights.push_back(-2 * e26);
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  EXPECT_EQ(r.outcome, reduction::verdict::infeasible);
  EXPECT_TRUE(lists(r, "items heavier than the other side's sum removed until none is (1 in 1 round): only "
                       "one sign is left"));
  // Several rounds before one sign is left: -27 (above 1 + 9), then 9 (above 3), then -3 (above 1).
  const auto links = make_problem({1, -3, 9, -27}, std::nullopt);
  const reduction rl = ssum::detail::reduce(links, ssum::detail::totals_of(links));
  EXPECT_EQ(rl.outcome, reduction::verdict::infeasible);
  EXPECT_TRUE(lists(rl, "items heavier than the other side's sum removed until none is (3 in 3 rounds): only "
                        "one sign is left"));
  // A chain of alternating signs, each three times the last, over small weights of both signs:
  // the chain goes one link a round, and what is left keeps its answers.
  const int128 b = int128(1) << 40;
  const auto q = make_problem({3, -5, 4, -2, 1}, std::nullopt);
  ssum::problem chain = q;
  for (const int128 w : {b, -3 * b, 9 * b, -27 * b}) chain.weights.push_back(w);
  const reduction rc = ssum::detail::reduce(chain, ssum::detail::totals_of(chain));
  EXPECT_EQ(rc.outcome, reduction::verdict::open);
  EXPECT_TRUE(lists(rc, "items heavier than the other side's sum removed until none is (4 in 4 rounds); the "
                        "smaller side's sum is 7"));
  EXPECT_EQ(rc.bound, uint128(7));
  EXPECT_EQ(rc.index, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  expect_reduction_sound(chain);
  // Nothing to remove: nothing listed.
  const reduction none = ssum::detail::reduce(q, ssum::detail::totals_of(q));
  EXPECT_TRUE(none.applied.empty());
  EXPECT_EQ(none.bound, uint128(7));
}

// Random signed weights with a few huge ones of both signs (several rounds of removal), with
// and without a target: every verdict against brute force, every open reduction's answer
// mapped back to the original.
TEST(Reductions, HugeWeightsOfBothSignsKeepEveryAnswer) {
  std::mt19937_64 rng(404);
  std::size_t several_rounds = 0, infeasible = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    ssum::problem p = random_instance(rng, 12, trial % 3 == 0 ? 5 : 50, true);
    const int huge = static_cast<int>(uniform(rng, 1, 6));
    const std::int64_t base = trial % 2 == 0 ? uniform(rng, 1, 200) : std::int64_t{1} << uniform(rng, 20, 50);
    int128 w = base;
    for (int j = 0; j < huge; ++j) {
      const bool negative = trial % 4 < 2 ? j % 2 == 1 : (rng() & 1);
      p.weights.push_back(negative ? -w : w);
      w = w * uniform(rng, 1, 4) + uniform(rng, 0, 60);
    }
    std::shuffle(p.weights.begin(), p.weights.end(), rng);
    if (p.target && trial % 5 == 0) *p.target += p.weights.front();  // the target near a huge weight
    expect_reduction_sound(p);
    const auto totals = ssum::detail::totals_of(p);
    if (!p.zero_sum() || totals.out_of_range()) continue;
    const reduction r = ssum::detail::reduce(p, totals);
    several_rounds += std::any_of(r.applied.begin(), r.applied.end(),
                                  [](const std::string& a) { return a.find(" rounds)") != std::string::npos; });
    infeasible += r.outcome == reduction::verdict::infeasible;
  }
  EXPECT_GT(several_rounds, 50u);  // the shapes do force repeated removal
  EXPECT_GT(infeasible, 50u);
}

// Many items and a long removal: one sort a side, not a pass per round.
TEST(Reductions, ZeroSumRemovalIsFastOnManyItems) {
  ssum::problem p;
  for (std::int64_t i = 1; i <= 500000; ++i) p.weights.push_back(i % 2 ? i : -i);
  int128 w = int128(1) << 50;
  for (int j = 0; j < 60; ++j, w = w * 2 + 1) p.weights.push_back(j % 2 ? -w : w);
  const auto start = std::chrono::steady_clock::now();
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.outcome, reduction::verdict::open);
  EXPECT_EQ(r.weights.size(), 500000u);
  EXPECT_LT(seconds, 5.0);
}

TEST(Reductions, CombinedTheyKeepEveryAnswer) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 3000; ++trial) {
    ssum::problem p = random_instance(rng, 12, trial % 3 == 0 ? 4 : 40, trial % 2 == 0);
    // Common factors and zeros, so that the gcd and zero reductions are exercised too.
    const std::int64_t factor = 1 + trial % 3;
    for (auto& w : p.weights) w *= factor;
    if (trial % 5 == 0 && !p.weights.empty()) p.weights[rng() % p.weights.size()] = 0;
    if (p.target && trial % 7 == 0) *p.target *= factor;
    expect_reduction_sound(p);
  }
  for (const auto& [weights, feasible] : zero_sum_shapes()) {
    const auto p = make_problem(weights, std::nullopt);
    EXPECT_EQ(brute_force_count(p) > 0, feasible);
    expect_reduction_sound(p);
  }
}

// The meet-in-the-middle algorithms run on the reduced instance too: each named algorithm on
// instances with common factors, zero weights and heavy items answers as brute force does,
// lists the reductions, and its subset (mapped back) verifies on the original; counts (no zero
// weights, which counting keeps) match brute force.
TEST(Reductions, MeetInTheMiddleRunsOnTheReducedInstance) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 400; ++trial) {
    ssum::problem p = random_instance(rng, 14, trial % 3 == 0 ? 6 : 60, trial % 2 == 0);
    const std::int64_t factor = 2 + trial % 4;
    for (auto& w : p.weights) w *= factor;
    if (p.target && trial % 4 != 0) *p.target *= factor;
    if (trial % 3 == 0 && !p.weights.empty()) p.weights[rng() % p.weights.size()] = 0;
    if (trial % 5 == 0) p.weights.push_back(int128(1) << 40);  // heavy: beyond any target here
    const bool zero = std::find(p.weights.begin(), p.weights.end(), int128(0)) != p.weights.end();
    SCOPED_TRACE(describe(p));
    const std::uint64_t count = brute_force_count(p);
    for (const auto algo : {ssum::algorithm::two_list, ssum::algorithm::four_list}) {
      ssum::solve_options options;
      options.algo = algo;
      const ssum::solution s = ssum::solve(ssum::cpu{1}, p, options);
      EXPECT_EQ(s.feasible, count > 0);
      if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
      const auto totals = ssum::detail::totals_of(p);
      if (!totals.out_of_range()) EXPECT_EQ(s.reductions, ssum::detail::reduce(p, totals).applied);
      if (zero) continue;
      options.count = true;
      const ssum::solution c = ssum::solve(ssum::cpu{1}, p, options);
      ASSERT_TRUE(c.count.has_value());
      EXPECT_EQ(*c.count, uint128(count));
    }
  }
}

// Totals at or beyond 2^64 that a common factor brings below it: the reduced instance is what
// the solvers see, so 64-bit sums serve it, and the answer is still exact on the original.
TEST(Reductions, TheGcdBringsWideTotalsIntoSixtyFourBits) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    ssum::problem p = random_instance(rng, 20, 1 << 20, trial % 2 == 0);
    for (auto& w : p.weights) w *= int128(1) << 60;
    if (p.target) *p.target *= int128(1) << 60;
    SCOPED_TRACE(describe(p));
    const ssum::solution s = ssum::solve(ssum::cpu{}, p, {});
    const ssum::problem small = [&] {
      ssum::problem q = p;
      for (auto& w : q.weights) w >>= 60;
      if (q.target) *q.target >>= 60;
      return q;
    }();
    EXPECT_EQ(s.feasible, brute_force_count(small) > 0);
    if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
}

namespace {

// The sums in [0, r.bound] that subsets of r's items reach (zero-sum: each side's own), with
// the positions of one subset per sum, by brute force over the items.
std::map<std::pair<bool, uint128>, std::vector<std::size_t>> reachable(const reduction& r) {
  std::map<std::pair<bool, uint128>, std::vector<std::size_t>> sums;
  const std::size_t m = r.weights.size();
  for (const bool negative : {false, true}) {
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << m); ++mask) {
      uint128 sum = 0;
      std::vector<std::size_t> chosen;
      bool other_side = false;
      for (std::size_t k = 0; k < m; ++k) {
        if (!(mask >> k & 1)) continue;
        other_side |= (r.zero_sum && r.negative[k]) != negative;
        chosen.push_back(k);
        sum += r.weights[k];
      }
      if (!other_side && sum <= r.bound) sums.emplace(std::make_pair(negative, sum), chosen);
    }
    if (!r.zero_sum) break;
  }
  return sums;
}

}  // namespace

// Grouping equal weights keeps every reachable sum (within the bound, on each side), needs
// fewer items where weights repeat, and its subsets map back to certificates.
TEST(Reductions, GroupedEqualWeightsReachTheSameSums) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 600; ++trial) {
    ssum::problem p = random_instance(rng, 16, 1 + trial % 4, trial % 2 == 0);  // many repeats
    const auto totals = ssum::detail::totals_of(p);
    if (totals.out_of_range()) continue;
    const reduction r = ssum::detail::reduce(p, totals);
    if (r.outcome != reduction::verdict::open) continue;
    SCOPED_TRACE(describe(p));
    const reduction g = ssum::detail::group_equal_weights(r);
    ASSERT_EQ(g.copies.size(), g.weights.size());
    std::size_t stood_for = 0;
    for (const std::size_t c : g.copies) stood_for += c;
    EXPECT_EQ(stood_for, g.index.size());
    EXPECT_LE(g.weights.size(), r.weights.size());
    for (std::size_t k = 1; k < g.weights.size(); ++k) {
      if (!g.zero_sum || g.negative[k] == g.negative[k - 1]) EXPECT_GE(g.weights[k - 1], g.weights[k]);
    }
    const auto before = reachable(r), after = reachable(g);
    ASSERT_EQ(before.size(), after.size());
    for (const auto& [key, chosen] : after) EXPECT_TRUE(before.count(key));
    if (!g.zero_sum) {
      const auto hit = after.find({false, g.bound});
      EXPECT_EQ(hit != after.end(), brute_force_count(p) > 0);
      if (hit != after.end()) EXPECT_TRUE(ssum::is_certificate(p, ssum::detail::map_back(p, g, hit->second)));
    }
  }
  // 12 equal weights become the items 1, 2, 4 and 5 copies of it.
  const auto p = make_problem(std::vector<std::int64_t>(12, 7), 7 * 6);
  const reduction g = ssum::detail::group_equal_weights(ssum::detail::reduce(p, ssum::detail::totals_of(p)));
  EXPECT_EQ(g.copies.size(), 4u);
  EXPECT_TRUE(lists(g, "equal weights grouped (12 items into 4)"));
}

// The count test settles the Avis class (every k-subset's sum in a band narrower than one
// weight) without a table, and never calls a feasible instance infeasible.
TEST(Reductions, TheCountTestSettlesNarrowBands) {
  for (const std::size_t n : {10, 11, 100, 1000, 10000}) {
    const ssum::problem p = ssum::generate("avis", n, std::nullopt, 1);
    const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
    EXPECT_EQ(r.outcome, reduction::verdict::infeasible) << n;
    EXPECT_TRUE(lists(r, "no number of items reaches the target")) << n;
  }
  const auto band = make_problem({100, 101, 102}, 150);  // one item is below, two above
  EXPECT_EQ(ssum::detail::reduce(band, ssum::detail::totals_of(band)).outcome, reduction::verdict::infeasible);
  expect_reduction_sound(band);
  // From 256 items a histogram settles it first; its verdicts are those of sorting, here
  // computed apart, on narrow bands, wide ones and targets from the lightest item to the middle.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 256 + rng() % 300;
    const std::int64_t low = 1000000, spread = trial % 3 == 0 ? 50 : trial % 3 == 1 ? 5000 : 1000000;
    std::vector<std::int64_t> w(n);
    std::int64_t total = 0;
    for (std::int64_t& x : w) x = low + std::int64_t(rng() % spread), total += x;
    const std::int64_t target = low + std::int64_t(rng() % std::uint64_t(total / 2 - low));
    std::vector<std::int64_t> sorted = w;
    std::sort(sorted.begin(), sorted.end());
    bool some = false;
    std::int64_t light = 0, heavy = 0;
    for (std::size_t k = 0; k <= n && !some; ++k) {
      some = light <= target && target <= heavy;
      if (k < n) light += sorted[k], heavy += sorted[n - 1 - k];
    }
    const auto p = make_problem(w, target);
    const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
    EXPECT_EQ(r.outcome == reduction::verdict::infeasible, !some) << "trial " << trial;
  }
  const auto edge = make_problem({100, 101, 102}, 201);  // 100 + 101: the lightest pair exactly
  EXPECT_EQ(ssum::detail::reduce(edge, ssum::detail::totals_of(edge)).outcome, reduction::verdict::open);
  expect_reduction_sound(edge);
}

// Divisor groups (src/solver/divisor_groups.hpp): every verdict against brute force over all
// subsets (small) or a plain reachability table (larger), every subset checked and mapped
// back, the somatoth class proven infeasible fast, and the edges.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "solver/divisor_groups.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/generate.hpp"

using ssum::int128;
using ssum::uint128;
using ssum::detail::reduction;
using ssum::detail::settle_by_divisor_groups;

namespace {

// Whether some subset of the original weights reaches the target: all 2^n subsets.
bool brute_feasible(const ssum::problem& p) {
  const std::size_t n = p.weights.size();
  std::vector<int128> sums{0};
  for (std::size_t i = 0; i < n; ++i) {  // sums of all subsets, doubling per item
    const std::size_t size = sums.size();
    for (std::size_t k = 0; k < size; ++k) sums.push_back(sums[k] + p.weights[i]);
  }
  for (const int128 s : sums) {
    if (s == *p.target) return true;
  }
  return false;
}

// Whether some subset of r.weights reaches r.bound: one byte per sum (r.bound small).
bool table_feasible(const reduction& r) {
  const std::size_t t = std::size_t(r.bound);
  std::vector<char> reach(t + 1, 0);
  reach[0] = 1;
  for (const uint128 w : r.weights) {
    const std::size_t a = std::size_t(w);
    for (std::size_t s = t; s >= a; --s) reach[s] |= reach[s - a];
    if (reach[t]) return true;
  }
  return reach[t];
}

enum class outcome { not_open, declined, infeasible, feasible };

// Checks a feasible verdict's positions (distinct, in range, summing to r.bound, a
// certificate once mapped back) and returns what the method said; `feasible` is the
// reference's answer, which an infeasible verdict must match.
outcome check(const ssum::problem& p, const reduction& r, const std::optional<bool>& feasible_ref,
              double most_work = 2e8) {
  if (r.outcome != reduction::verdict::open) return outcome::not_open;
  const auto v = settle_by_divisor_groups(r, most_work);
  if (!v) return outcome::declined;
  EXPECT_GE(v->divisors.size(), 1u);
  EXPECT_LE(v->divisors.size(), 3u);
  for (const auto g : v->divisors) EXPECT_GT(g, 1u);
  if (v->infeasible) {
    EXPECT_TRUE(v->positions.empty());
    if (feasible_ref) {
      EXPECT_FALSE(*feasible_ref) << "proven infeasible, but a subset exists";
    }
    return outcome::infeasible;
  }
  EXPECT_FALSE(v->positions.empty());
  const std::set<std::size_t> distinct(v->positions.begin(), v->positions.end());
  EXPECT_EQ(distinct.size(), v->positions.size()) << "a position taken twice";
  uint128 sum = 0;
  for (const std::size_t i : v->positions) {
    EXPECT_LT(i, r.weights.size());
    if (i < r.weights.size()) sum += r.weights[i];
  }
  EXPECT_TRUE(sum == r.bound) << "the positions miss the target";
  if (feasible_ref) {
    EXPECT_TRUE(*feasible_ref);
  }
  EXPECT_TRUE(ssum::is_certificate(p, ssum::detail::map_back(p, r, v->positions)));
  return outcome::feasible;
}

// The reductions before this step, whose open instances the step is tested on.
reduction reduced(const ssum::problem& p) { return ssum::detail::reduce(p, ssum::detail::totals_of(p), false, false); }

std::uint64_t pick(std::mt19937_64& rng, std::uint64_t lo, std::uint64_t hi) {
  return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
}

// Weights k * g for g among `gens` (each item picks one), k in [1, most_k].
std::vector<int128> structured(std::mt19937_64& rng, std::size_t n, const std::vector<std::uint64_t>& gens,
                               std::uint64_t most_k) {
  std::vector<int128> w;
  for (std::size_t i = 0; i < n; ++i) w.push_back(int128(pick(rng, 1, most_k) * gens[i % gens.size()]));
  return w;
}

// Targets: a random subset's sum, a Frobenius-like number of the first two generators
// (shifted), and a random value up to the total.
int128 some_target(std::mt19937_64& rng, const std::vector<int128>& w, const std::vector<std::uint64_t>& gens,
                   int kind) {
  int128 total = 0;
  for (const int128 x : w) total += x;
  if (kind == 0) {
    int128 s = 0;
    for (const int128 x : w) s += (rng() & 1) ? x : 0;
    return s;
  }
  if (kind == 1) return int128((gens[0] - 1) * (gens[1] - 1)) - 1 + int128(pick(rng, 0, 3)) * int128(gens[0]);
  return int128(pick(rng, 0, std::uint64_t(total)));
}

struct tally {
  int settled = 0, declined = 0, feasible = 0, infeasible = 0;
  void add(outcome o) {
    if (o == outcome::declined) ++declined;
    if (o == outcome::feasible) ++feasible, ++settled;
    if (o == outcome::infeasible) ++infeasible, ++settled;
  }
};

void small_structured(std::size_t generators, bool coprime, std::uint64_t seed, tally& t) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::uint64_t> gens;
    while (gens.size() < generators) {
      const std::uint64_t g = pick(rng, 24, 300);
      bool ok = true;
      for (const auto h : gens) ok = ok && (!coprime || std::gcd(g, h) == 1) && g != h;
      if (ok) gens.push_back(g);
    }
    if (!coprime) {  // a shared factor between generators
      const std::uint64_t f = pick(rng, 2, 6);
      for (auto& g : gens) g *= (rng() & 1) ? f : 1;
    }
    const std::size_t n = pick(rng, 2, round % 10 == 0 ? 22 : 16);
    ssum::problem p;
    p.weights = structured(rng, n, gens, pick(rng, 2, 30));
    p.target = some_target(rng, p.weights, gens, round % 3);
    t.add(check(p, reduced(p), brute_feasible(p)));
  }
}

}  // namespace

TEST(DivisorGroups, TwoGeneratorsCoprimeAgainstBruteForce) {
  tally t;
  small_structured(2, true, 1, t);
  std::printf("two coprime: %d settled (%d feasible, %d infeasible), %d declined\n", t.settled, t.feasible,
              t.infeasible, t.declined);
  EXPECT_GT(t.feasible, 20);
  EXPECT_GT(t.infeasible, 20);
}

TEST(DivisorGroups, TwoGeneratorsSharedFactorAgainstBruteForce) {
  tally t;
  small_structured(2, false, 2, t);
  std::printf("two shared: %d settled (%d feasible, %d infeasible), %d declined\n", t.settled, t.feasible,
              t.infeasible, t.declined);
  EXPECT_GT(t.settled, 40);
}

TEST(DivisorGroups, ThreeGeneratorsAgainstBruteForce) {
  tally t;
  small_structured(3, true, 3, t);
  small_structured(3, false, 4, t);
  std::printf("three: %d settled (%d feasible, %d infeasible), %d declined\n", t.settled, t.feasible, t.infeasible,
              t.declined);
  EXPECT_GT(t.feasible, 10);
  EXPECT_GT(t.infeasible, 10);
}

TEST(DivisorGroups, UnstructuredDeclinesOrAgrees) {
  std::mt19937_64 rng(5);
  tally t;
  for (int round = 0; round < 300; ++round) {
    ssum::problem p;
    const std::size_t n = pick(rng, 1, round % 10 == 0 ? 22 : 16);
    const std::uint64_t top = round % 2 ? 1000 : 1000000;
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(int128(pick(rng, 1, top)));
    int128 total = 0;
    for (const int128 x : p.weights) total += x;
    p.target = int128(pick(rng, 0, std::uint64_t(total)));
    t.add(check(p, reduced(p), brute_feasible(p)));
  }
  std::printf("unstructured: %d settled, %d declined\n", t.settled, t.declined);
}

TEST(DivisorGroups, LargerAgainstTable) {
  std::mt19937_64 rng(6);
  tally t;
  for (int round = 0; round < 24; ++round) {
    const bool wide = round % 2 == 0;  // few items, t near 10^6; or many items, t near 10^5
    const std::size_t n = wide ? pick(rng, 50, 300) : pick(rng, 500, 2000);
    const std::size_t generators = 2 + round % 2;
    std::vector<std::uint64_t> gens;
    while (gens.size() < generators) {
      const std::uint64_t g = pick(rng, 30, 1000);
      bool ok = true;
      for (const auto h : gens) ok = ok && std::gcd(g, h) == 1;
      if (ok) gens.push_back(g);
    }
    ssum::problem p;
    p.weights = structured(rng, n, gens, wide ? 40 : 2);
    // Near 10^6 or 10^5; or, half the time, the first two generators' Frobenius number exactly.
    p.target = int128((wide ? 1000000 : 100000) - std::int64_t(pick(rng, 0, 5000)));
    if (round % 4 < 2) p.target = int128((gens[0] - 1) * (gens[1] - 1) - 1);
    const reduction r = reduced(p);
    if (r.outcome != reduction::verdict::open || r.bound > 2000000) continue;
    t.add(check(p, r, table_feasible(r)));
  }
  std::printf("larger: %d settled (%d feasible, %d infeasible), %d declined\n", t.settled, t.feasible, t.infeasible,
              t.declined);
  EXPECT_GT(t.settled, 10);
}

TEST(DivisorGroups, SomatothIsProvenInfeasible) {
  for (const std::size_t n : {std::size_t(1000), std::size_t(10000), std::size_t(100000)}) {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      const ssum::problem p = ssum::generate("somatoth", n, std::nullopt, seed);
      const auto start = std::chrono::steady_clock::now();
      const reduction r = reduced(p);
      ASSERT_EQ(r.outcome, reduction::verdict::open) << "n = " << n << ", seed " << seed;
      const auto v = settle_by_divisor_groups(r);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ASSERT_TRUE(v.has_value()) << "n = " << n << ", seed " << seed;
      EXPECT_TRUE(v->infeasible);
      EXPECT_EQ(v->divisors.size(), 2u);
      std::printf("somatoth n = %zu seed %u: %zu items reduced, divisors %llu %llu, %.4f s (reduce included)\n", n,
                  unsigned(seed), r.weights.size(), (unsigned long long)v->divisors[0],
                  (unsigned long long)v->divisors[1], seconds);
      if (n == 100000) {
        EXPECT_LT(seconds, 0.5);
      }
    }
  }
}

TEST(DivisorGroups, Edges) {
  // No items: reduce settles them; an open reduction without items is declined.
  ssum::problem none;
  none.target = 0;
  EXPECT_EQ(check(none, reduced(none), true), outcome::not_open);
  reduction empty;
  EXPECT_FALSE(settle_by_divisor_groups(empty).has_value());
  // t = 0 with items: every item is removed as heavier than 0, nothing left to group.
  ssum::problem zero{{120, 360}, int128(0)};
  const reduction rz = reduced(zero);
  if (rz.outcome == reduction::verdict::open) {
    EXPECT_FALSE(settle_by_divisor_groups(rz).has_value());
  }
  // Zero-sum is not for this method.
  ssum::problem zs{{300, -300, 600}, std::nullopt};
  EXPECT_FALSE(settle_by_divisor_groups(reduced(zs)).has_value());
  // One item, after the gcd: weight 1, no divisor above 1.
  ssum::problem one{{700}, int128(700)};
  EXPECT_NE(check(one, reduced(one), true), outcome::infeasible);
  // One item in a hand-made reduction: one group of one item.
  reduction single;
  single.weights = {1000};
  single.index = {0};
  single.bound = 1000;
  auto v = settle_by_divisor_groups(single);
  ASSERT_TRUE(v.has_value());
  EXPECT_FALSE(v->infeasible);
  EXPECT_EQ(v->positions, std::vector<std::size_t>{0});
  single.bound = 1999;
  v = settle_by_divisor_groups(single);
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->infeasible);
  // A third group of one item (the rest), reachable only with it, and then without it.
  for (const int128 extra : {int128(0), int128(1)}) {
    ssum::problem lone;
    for (int k = 1; k <= 7; ++k) lone.weights.push_back(97 * k), lone.weights.push_back(89 * (k + 1));
    lone.weights.push_back(1009 * 3);
    lone.target = int128(97 * 2 + 89 * 3 + 1009 * 3) + extra;
    EXPECT_NE(check(lone, reduced(lone), brute_feasible(lone)), outcome::not_open);
  }
  // Equal divisors: two generators that coincide, equal weights, and a third generator.
  std::mt19937_64 rng(9);
  tally t;
  for (int round = 0; round < 60; ++round) {
    ssum::problem eq;
    eq.weights = structured(rng, 14, {60, 60, 77}, 5);
    eq.weights.push_back(eq.weights[0]);
    eq.weights.push_back(eq.weights[0]);
    eq.target = some_target(rng, eq.weights, {60, 77}, round % 3);
    t.add(check(eq, reduced(eq), brute_feasible(eq)));
  }
  EXPECT_GT(t.settled, 20);
  // Weights beyond 64 bits (128-bit gcds): declined or agreeing with brute force.
  for (int round = 0; round < 20; ++round) {
    ssum::problem wide;
    const int128 g1 = (int128(1) << 70) + 3 * round + 1, g2 = (int128(1) << 69) + 7;
    for (int k = 1; k <= 6; ++k) wide.weights.push_back(g1 * k), wide.weights.push_back(g2 * (k + round % 3));
    wide.target = g1 * (round % 5) + g2 * (round % 4) + (round % 2);
    check(wide, reduced(wide), brute_feasible(wide));
  }
  // No budget: declined.
  const ssum::problem soma = ssum::generate("somatoth", 1000, std::nullopt, 1);
  EXPECT_FALSE(settle_by_divisor_groups(reduced(soma), 1).has_value());
}

namespace {

// The step inside reduce(): listed, its subset a certificate of the original instance, its
// infeasible verdict the brute force's; counting, it never answers with one subset.
TEST(DivisorGroups, ReduceListsTheStepAndMapsItsCertificateBack) {
  std::mt19937_64 rng(909);
  int answered = 0, infeasible = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<std::uint64_t> gens;
    while (gens.size() < 2 + std::size_t(round % 2)) {
      // Generators large enough that a table over the target would cost more than the step
      // (reduce() skips it below 2^26 items times target).
      const std::uint64_t g = pick(rng, 20000, 300000);
      bool ok = true;
      for (const auto h : gens) ok = ok && std::gcd(g, h) == 1;
      if (ok) gens.push_back(g);
    }
    ssum::problem p;
    p.weights = structured(rng, pick(rng, 4, 20), gens, pick(rng, 2, 30));
    for (auto& w : p.weights) w = (rng() % 4 == 0) ? -w : w;  // signed: the flip comes first
    p.target = some_target(rng, p.weights, gens, round % 3);
    const bool feasible = brute_feasible(p);
    const auto totals = ssum::detail::totals_of(p);
    if (totals.out_of_range()) continue;
    const reduction r = ssum::detail::reduce(p, totals);
    const bool by_groups = !r.applied.empty() && r.applied.back().find("groups of common divisors") != std::string::npos;
    if (r.outcome == reduction::verdict::answered) {
      EXPECT_TRUE(ssum::is_certificate(p, r.answer));
      answered += by_groups;
    }
    if (r.outcome == reduction::verdict::infeasible) {
      EXPECT_FALSE(feasible);
      infeasible += by_groups;
    }
    const reduction counted = ssum::detail::reduce(p, totals, true);
    if (by_groups && r.outcome == reduction::verdict::answered) EXPECT_EQ(counted.outcome, reduction::verdict::open);
    if (by_groups && r.outcome == reduction::verdict::infeasible) EXPECT_EQ(counted.outcome, r.outcome);
  }
  EXPECT_GT(answered, 20);
  EXPECT_GT(infeasible, 20);
}

}  // namespace

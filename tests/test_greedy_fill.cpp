// The greedy fill with an exact core (src/solver/completion/greedy_fill.hpp): every subset it
// returns is checked here on its own (sum, distinct positions in range), mapped back to the
// original instance and checked there; the dense classes must be answered, and instances
// without an answer (or outside the method) must come back empty, never with a wrong subset.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "solver/completion/completion_search.hpp"
#include "solver/completion/greedy_fill.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/errors.hpp"
#include "ssum/generate.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

using ssum::int128;
using ssum::problem;
using ssum::uint128;
using ssum::detail::greedy_fill;
using ssum::detail::greedy_fill_limits;
using ssum::detail::reduction;

namespace {

struct outcome {
  reduction r;
  std::vector<std::size_t> positions;  // greedy_fill's answer
  double seconds = 0;                  // greedy_fill alone
};

bool lists(const reduction& r, const std::string& start) {
  return std::any_of(r.applied.begin(), r.applied.end(), [&](const std::string& a) { return a.rfind(start, 0) == 0; });
}

// Checks a non-empty answer independently of greedy_fill, on the reduced instance and, mapped
// back, on the original one.
void expect_sound(const problem& p, const reduction& r, const std::vector<std::size_t>& positions) {
  if (positions.empty()) return;
  std::vector<char> seen(r.weights.size(), 0);
  uint128 sum = 0;
  for (const std::size_t k : positions) {
    ASSERT_LT(k, r.weights.size());
    ASSERT_FALSE(seen[k]) << "position " << k << " twice";
    seen[k] = 1;
    sum += r.weights[k];
  }
  EXPECT_TRUE(sum == r.bound) << "the positions miss the reduced target";
  const std::vector<std::size_t> subset = ssum::detail::map_back(p, r, positions);
  EXPECT_TRUE(ssum::is_certificate(p, subset)) << "the mapped-back subset is no certificate";
}

// Reduces p (which must be in range) and runs greedy_fill on it, the answer checked.
outcome run(const problem& p, const greedy_fill_limits& limits = {}, const ssum::solve_options& options = {}) {
  outcome o;
  const auto totals = ssum::detail::totals_of(p);
  EXPECT_FALSE(totals.out_of_range());
  o.r = ssum::detail::reduce(p, totals);
  const auto start = std::chrono::steady_clock::now();
  o.positions = greedy_fill(o.r, options, limits);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_sound(p, o.r, o.positions);
  return o;
}

// Random weights in [-low, high] (no zero) and, as target, the sum of a random subset.
problem signed_instance(std::size_t n, std::int64_t low, std::int64_t high, std::uint64_t seed, double take) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> weight(-low, high);
  std::bernoulli_distribution pick(take);
  problem p;
  int128 target = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t w = 0;
    while (w == 0) w = weight(rng);
    p.weights.push_back(w);
    if (pick(rng)) target += w;
  }
  p.target = target;
  return p;
}

// Whether some subset of p (empty included) reaches its target, by a table of all sums.
bool brute_feasible(const problem& p) {
  int128 low = 0, high = 0;
  for (const int128 w : p.weights) (w < 0 ? low : high) += w;
  if (*p.target < low || *p.target > high) return false;
  std::vector<char> reach(std::size_t(high - low) + 1, 0);
  reach[std::size_t(-low)] = 1;  // the empty subset
  for (const int128 w : p.weights) {
    std::vector<char> next = reach;
    for (std::size_t s = 0; s < reach.size(); ++s) {
      if (reach[s]) next[std::size_t(int128(s) + w)] = 1;
    }
    reach.swap(next);
  }
  return reach[std::size_t(*p.target - low)] != 0;
}

}  // namespace

TEST(GreedyFill, AnswersPsixAndPthree) {
  for (const char* cls : {"psix", "pthree"}) {
    for (const std::size_t n : {std::size_t(1000), std::size_t(10000), std::size_t(100000)}) {
      for (const std::uint64_t seed : {1, 2, 3, 17}) {
        SCOPED_TRACE(std::string(cls) + " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
        const problem p = ssum::generate(cls, n, std::nullopt, seed);
        const outcome o = run(p);
        ASSERT_EQ(o.r.outcome, reduction::verdict::open);
        ASSERT_FALSE(o.positions.empty()) << "no subset found";
        if (n == 100000) {
          std::printf("[ timing ] %s n=%zu seed=%llu: greedy_fill %.4f s, %zu items taken\n", cls, n,
                      static_cast<unsigned long long>(seed), o.seconds, o.positions.size());
        }
      }
    }
  }
}

TEST(GreedyFill, PsixAtOneHundredThousand) {
  const problem p = ssum::generate("psix", 100000, std::nullopt, 12345);
  const auto totals = ssum::detail::totals_of(p);
  const auto start = std::chrono::steady_clock::now();
  const reduction r = ssum::detail::reduce(p, totals);
  const std::vector<std::size_t> positions = greedy_fill(r, {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ timing ] psix n=100000: reduce + greedy_fill %.4f s\n", seconds);
  ASSERT_FALSE(positions.empty());
  expect_sound(p, r, positions);
}

// Grouped equal weights (the bitset's input) are items of their group's weight: answered, and
// mapped back through the copies.
TEST(GreedyFill, AnswersGroupedEqualWeights) {
  for (const char* cls : {"pthree", "psix"}) {
    const problem p = ssum::generate(cls, 20000, std::nullopt, 5);
    const reduction grouped = ssum::detail::group_equal_weights(ssum::detail::reduce(p, ssum::detail::totals_of(p)));
    const std::vector<std::size_t> positions = greedy_fill(grouped, {});
    ASSERT_FALSE(positions.empty()) << cls;
    expect_sound(p, grouped, positions);
  }
}

TEST(GreedyFill, SignedWeightsThroughFlipAndComplement) {
  // Negative weights of up to `low`, positive ones of up to `high`, the target a random subset's
  // sum: the flip always applies; the complement where the flipped target passes half the total.
  struct shape {
    std::int64_t low, high;
    double take;
  };
  int complemented = 0, plain = 0;
  for (const std::size_t n : {std::size_t(1000), std::size_t(10000)}) {
    for (const std::uint64_t seed : {5, 6, 7}) {
      for (const shape s : {shape{1000000, 1000000, 0.5}, shape{1000000, 100000, 0.9}, shape{100000, 1000000, 0.9},
                            shape{1000000, 1000000, 0.2}}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed) + " low=" + std::to_string(s.low) +
                     " high=" + std::to_string(s.high) + " take=" + std::to_string(s.take));
        const problem p = signed_instance(n, s.low, s.high, seed, s.take);
        const outcome o = run(p);
        ASSERT_EQ(o.r.outcome, reduction::verdict::open);
        EXPECT_TRUE(lists(o.r, "negative weights flipped"));
        (o.r.complemented ? complemented : plain) += 1;
        EXPECT_FALSE(o.positions.empty()) << "no subset found";
      }
    }
  }
  EXPECT_GT(complemented, 0);
  EXPECT_GT(plain, 0);
}

TEST(GreedyFill, BoundAboveHalfAfterHeavyItemsRemoved) {
  // Light items and a few heavier than the target: once those are gone the bound is 70% of
  // what is left, so the method aims at the items left out.
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::int64_t> light(1, 1000);
  problem p;
  int128 light_total = 0;
  for (int i = 0; i < 5000; ++i) p.weights.push_back(light(rng)), light_total += p.weights.back();
  for (int i = 0; i < 8; ++i) p.weights.push_back(int128(1000000000));
  p.target = light_total * 7 / 10;
  const outcome o = run(p);
  ASSERT_EQ(o.r.outcome, reduction::verdict::open);
  EXPECT_TRUE(lists(o.r, "items heavier than the target removed"));
  uint128 total = 0;
  for (const uint128 w : o.r.weights) total += w;
  EXPECT_TRUE(2 * o.r.bound > total);
  EXPECT_FALSE(o.positions.empty());
}

TEST(GreedyFill, ItemsAboveHalfTheTarget) {
  // Many items just above half the target (two never fit together) beside small ones.
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int64_t> small(1, 2000), large(600000, 900000);
  problem p;
  for (int i = 0; i < 3000; ++i) p.weights.push_back(small(rng));
  for (int i = 0; i < 200; ++i) p.weights.push_back(large(rng));
  p.target = 1000001;
  const outcome o = run(p);
  ASSERT_EQ(o.r.outcome, reduction::verdict::open);
  EXPECT_FALSE(o.positions.empty());
}

TEST(GreedyFill, DeterministicForASeed) {
  const problem p = ssum::generate("psix", 20000, std::nullopt, 8);
  const outcome a = run(p), b = run(p);
  EXPECT_EQ(a.positions, b.positions);
  greedy_fill_limits other;
  other.seed = 77;
  const outcome c = run(p, other);
  EXPECT_FALSE(c.positions.empty());
}

TEST(GreedyFill, SmallCoresStillSound) {
  for (const std::size_t most : {std::size_t(2), std::size_t(10), std::size_t(24), std::size_t(30)}) {
    for (const char* cls : {"psix", "pthree"}) {
      SCOPED_TRACE(std::string(cls) + " most_core=" + std::to_string(most));
      greedy_fill_limits limits;
      limits.most_core = most;
      limits.attempts = 8;
      const outcome o = run(ssum::generate(cls, 5000, std::nullopt, 4), limits);
      if (most >= 24) {
        EXPECT_FALSE(o.positions.empty());
      }
    }
  }
}

TEST(GreedyFill, DeclinesZeroSum) {
  problem p = signed_instance(2000, 1000000, 1000000, 11, 0.5);
  p.target.reset();
  const outcome o = run(p);
  ASSERT_TRUE(o.r.zero_sum);
  EXPECT_TRUE(o.positions.empty());
}

TEST(GreedyFill, TinyInstancesAgainstBruteForce) {
  std::mt19937_64 rng(2024);
  int found = 0, feasible_count = 0, cases = 0;
  for (std::size_t n = 1; n <= 22; ++n) {
    for (int round = 0; round < 30; ++round) {
      const std::int64_t hi = round % 3 == 0 ? 3 : round % 3 == 1 ? 30 : 1000;
      std::uniform_int_distribution<std::int64_t> weight(round % 2 ? -hi : 1, hi);
      problem p;
      int128 low = 0, high = 0;
      for (std::size_t i = 0; i < n; ++i) {
        std::int64_t w = 0;
        while (w == 0) w = weight(rng);
        p.weights.push_back(w);
        (w < 0 ? low : high) += w;
      }
      std::uniform_int_distribution<std::int64_t> target{std::int64_t(low), std::int64_t(high)};
      p.target = target(rng);
      SCOPED_TRACE(ssum::format_problem(p));
      const bool feasible = brute_feasible(p);
      const outcome o = run(p);
      ++cases;
      feasible_count += feasible;
      found += !o.positions.empty();
      if (!feasible) {
        EXPECT_TRUE(o.positions.empty()) << "a subset for an infeasible instance";
      }
    }
  }
  std::printf("[ info   ] tiny: %d cases, %d feasible, %d answered\n", cases, feasible_count, found);
}

TEST(GreedyFill, InfeasibleInstancesComeBackEmpty) {
  {  // All weights even, an odd target: the gcd says infeasible and the method declines.
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<std::int64_t> weight(1, 500000);
    problem p;
    for (int i = 0; i < 10000; ++i) p.weights.push_back(2 * weight(rng));
    p.target = int128(2) * 10000 * 500000 / 4 + 1;
    const outcome o = run(p);
    EXPECT_EQ(o.r.outcome, reduction::verdict::infeasible);
    EXPECT_TRUE(o.positions.empty());
  }
  for (const std::size_t n : {std::size_t(1000), std::size_t(10000)}) {  // the evenodd class
    const outcome o = run(ssum::generate("evenodd", n, std::nullopt, 3));
    EXPECT_TRUE(o.positions.empty());
  }
  // Weights M w + 1 (M = 10007, a prime above the 10001 items and the residue test's moduli):
  // any k items sum to k mod M, so a target of residue (M + n) / 2 is out of reach, but no
  // reduction sees it (gcd 1) and the normal law expects countless solutions.
  for (const std::uint64_t seed : {1, 2}) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> weight(1, 300000);
    constexpr std::int64_t m = 10007;
    problem p;
    int128 sum_w = 0;
    for (int i = 0; i < 10001; ++i) {
      const std::int64_t w = weight(rng);
      p.weights.push_back(int128(m) * w + 1);
      sum_w += w;
    }
    p.target = m * (sum_w / 4) + (m + 10001) / 2;
    greedy_fill_limits limits;
    limits.attempts = 6;
    const outcome o = run(p, limits);
    ASSERT_EQ(o.r.outcome, reduction::verdict::open);
    EXPECT_TRUE(o.positions.empty());
  }
}

TEST(GreedyFill, DeclinesWhenTooFewSolutionsExpected) {
  // 40 weights of 40 bits: about 2^40 subsets over a range of 2^45, a few solutions at best.
  std::mt19937_64 rng(5);
  problem p;
  int128 total = 0;
  for (int i = 0; i < 40; ++i) p.weights.push_back(int128(rng() >> 24)), total += p.weights.back();
  p.target = total / 2;
  const outcome o = run(p);
  EXPECT_LT(ssum::detail::log2_expected_solutions(o.r), 8);
  EXPECT_TRUE(o.positions.empty());
}

TEST(GreedyFill, RaisedCancelThrows) {
  const problem p = ssum::generate("psix", 10000, std::nullopt, 1);
  const reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  std::atomic<bool> cancel{true};
  ssum::solve_options options;
  options.cancel = &cancel;
  EXPECT_THROW(greedy_fill(r, options), ssum::interrupted);
  cancel = false;
  EXPECT_FALSE(greedy_fill(r, options).empty());
}

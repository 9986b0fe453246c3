// The host solver against brute force, the sequential reference and known-answer classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "solver/two_list/two_list_merging.hpp"
#include "host_memory.hpp"
#include "reference/sequential_two_list.hpp"
#include "answer_names.hpp"
#include "small_instances.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum::int128;

void expect_solution(const ssum::problem& p, const ssum::solution& s, bool expected, const std::string& what) {
  ASSERT_EQ(s.feasible, expected) << what;
  if (s.feasible) {
    EXPECT_TRUE(ssum::is_certificate(p, s.subset)) << what;
  } else {
    EXPECT_TRUE(s.subset.empty()) << what;
  }
}

using ssum_test::brute_force_count;
using ssum_test::describe;
using ssum_test::uniform;

// Thousands of small instances in several regimes: tiny weights (many equal sums, many
// zero-sum answers), signed and unsigned wide weights, targets hit and missed.
TEST(SolveCpu, MatchesBruteForceOnRandomSmallInstances) {
  std::mt19937_64 rng(20261129);
  int feasible_seen = 0, infeasible_seen = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    ssum::problem p;
    const std::size_t n = static_cast<std::size_t>(trial % 97 == 0 ? uniform(rng, 17, 20) : uniform(rng, 0, 14));
    const int regime = trial % 5;
    const std::int64_t range = regime == 0 ? 6 : regime == 1 ? 1000 : regime == 2 ? (std::int64_t{1} << 40) : INT64_MAX / 32;
    const bool signed_weights = regime != 3;
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(uniform(rng, signed_weights ? -range : 0, range));
    const int kind = static_cast<int>(uniform(rng, 0, 3));
    if (kind == 0) {
      int128 t = 0;  // a subset's sum: feasible
      for (auto w : p.weights) if (rng() & 1) t += w;
      p.target = t;
    } else if (kind == 1) {
      p.target = uniform(rng, -3 * range, 3 * range);
    } else if (kind == 2) {
      p.target = std::nullopt;
    } else {
      p.target = 0;
    }
    const bool expected = brute_force_count(p) > 0;
    (expected ? feasible_seen : infeasible_seen)++;
    const auto s = ssum::solve(ssum::cpu{static_cast<unsigned>(1 + trial % 3)}, p);
    expect_solution(p, s, expected, describe(p));
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The mix must exercise both answers a meaningful number of times.
  EXPECT_GT(feasible_seen, 1000);
  EXPECT_GT(infeasible_seen, 500);
}

// --count against brute force: every regime above, duplicates and zeros included (index sets
// count separately), with and without a target, on 1-3 threads.
TEST(SolveCpu, CountsMatchBruteForce) {
  std::mt19937_64 rng(424242);
  ssum::solve_options counting;
  counting.count = true;
  for (int trial = 0; trial < 1500; ++trial) {
    const bool wide = trial % 4 == 3;  // the 128-bit list path
    const ssum::problem p =
        ssum_test::random_instance(rng, 16, wide ? INT64_MAX : ssum_test::range_for(trial), trial % 2 == 1);
    const auto s = ssum::solve(ssum::cpu{static_cast<unsigned>(1 + trial % 3)}, p, counting);
    const std::uint64_t expected = brute_force_count(p);
    ASSERT_TRUE(s.count.has_value()) << describe(p);
    ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    expect_solution(p, s, expected > 0, describe(p));
    if (::testing::Test::HasFatalFailure()) return;
  }
  const ssum::problem none{{1, 2, 4}, 100};  // out of range: answered without lists
  const auto s = ssum::solve(ssum::cpu{1}, none, counting);
  ASSERT_TRUE(s.count.has_value());
  EXPECT_EQ(static_cast<std::uint64_t>(*s.count), 0u);
  EXPECT_FALSE(ssum::solve(ssum::cpu{1}, none).count.has_value()) << "no count unless asked";
}

// Counts in the millions, on lists large enough for a team of threads and many block pairs:
// small signed weights, checked against a dynamic program over all reachable sums.
TEST(SolveCpu, LargeCountsMatchDynamicProgramming) {
  std::mt19937_64 rng(99);
  ssum::solve_options counting;
  counting.count = true;
  for (int trial = 0; trial < 4; ++trial) {
    ssum::problem p;
    const std::int64_t range = trial < 2 ? 3 : 40;
    for (int i = 0; i < 32; ++i) p.weights.push_back(uniform(rng, trial % 2 ? -range : 0, range));
    // ways[s + offset]: subsets (index sets, the empty one included) with sum s.
    std::int64_t lo = 0, hi = 0;
    for (auto w : p.weights) (w < 0 ? lo : hi) += w;
    std::vector<std::uint64_t> ways(static_cast<std::size_t>(hi - lo + 1), 0);
    ways[static_cast<std::size_t>(-lo)] = 1;
    for (auto w : p.weights) {
      std::vector<std::uint64_t> next = ways;
      for (std::int64_t s = lo; s <= hi; ++s) {
        const std::int64_t from = s - w;
        if (from >= lo && from <= hi) next[static_cast<std::size_t>(s - lo)] += ways[static_cast<std::size_t>(from - lo)];
      }
      ways = std::move(next);
    }
    for (const std::optional<int128> t : {std::optional<int128>(hi / 3), std::optional<int128>(), std::optional<int128>(0)}) {
      p.target = t;
      const std::int64_t want = static_cast<std::int64_t>(t.value_or(0));
      std::uint64_t expected = ways[static_cast<std::size_t>(want - lo)];
      if (!t) --expected;  // zero-sum: not the empty subset
      const auto s = ssum::solve(ssum::cpu{2}, p, counting);
      ASSERT_TRUE(s.count.has_value());
      EXPECT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
      if (t && *t != 0) EXPECT_GT(expected, 1000u) << "the case should count many subsets";
      expect_solution(p, s, expected > 0, describe(p));
    }
  }
}

using ssum_test::host_memory;  // the merge-built two-list over host memory (host_memory.hpp)

TEST(SolveCpu, MergingTwoListMatchesBruteForce) {
  std::mt19937_64 rng(31337);
  ssum::solve_options counting;
  counting.count = true;
  host_memory memory;
  for (int trial = 0; trial < 1500; ++trial) {
    const ssum::problem p = ssum_test::random_instance(rng, 16, ssum_test::range_for(trial), trial % 2 == 1);
    const std::uint64_t expected = brute_force_count(p);
    const ssum::solution s =
        ssum::detail::two_list_by_merging(ssum::cpu{static_cast<unsigned>(1 + trial % 3)}, memory, p, counting, "cpu");
    expect_solution(p, s, expected > 0, describe(p));
    ASSERT_TRUE(s.count.has_value()) << describe(p);
    ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Zero-sum shapes of the empty subset's pair: alone, sharing its sums, beside other matches.
  for (const std::vector<std::int64_t>& w : std::vector<std::vector<std::int64_t>>{
           {3, 9}, {-3, -9}, {3, -3}, {0}, {-5, 5, -5, 5}, {-1, -2, 3, 100}, {-4, 1, 1, 1, 1}, {}}) {
    const ssum::problem p = ssum_test::make_problem(w, std::nullopt);
    const auto s = ssum::detail::two_list_by_merging(ssum::cpu{2}, memory, p, counting, "cpu");
    expect_solution(p, s, brute_force_count(p) > 0, describe(p));
    ASSERT_TRUE(s.count.has_value()) << describe(p);
    EXPECT_EQ(static_cast<std::uint64_t>(*s.count), brute_force_count(p)) << describe(p);
  }
  // A total past 2^64 takes 128-bit sums (test_two_list_wide_sums.cpp checks them at length).
  const ssum::problem wide{{INT64_MAX, INT64_MAX, INT64_MAX}, int128(INT64_MAX) * 3};
  const auto s_wide = ssum::detail::two_list_by_merging(ssum::cpu{1}, memory, wide, counting, "cpu");
  expect_solution(wide, s_wide, true, describe(wide));
  ASSERT_TRUE(s_wide.count.has_value());
  EXPECT_EQ(static_cast<std::uint64_t>(*s_wide.count), 1u);
  // Its limits: lists of 2^32 sums (n = 66), counts below n = 64.
  for (std::size_t n : {63, 64, 66, 67}) {
    const ssum::problem p = ssum::generate("random", n, 20, 1);
    const auto totals = ssum::detail::totals_of(p);
    EXPECT_EQ(ssum::detail::two_list_merging_refusal(p, totals, false) == nullptr, n <= 66) << n;
    EXPECT_EQ(ssum::detail::two_list_merging_refusal(p, totals, true) == nullptr, n <= 63) << n;
  }
}

// The four-list (Schroeppel-Shamir, modular) against brute force: verdicts, certificates and
// counts, every regime, n not divisible by 4, zero-sum (the empty quadruple), 1-3 threads.
TEST(SolveCpu, FourListMatchesBruteForce) {
  std::mt19937_64 rng(4444);
  for (int trial = 0; trial < 1500; ++trial) {
    // Every fifth instance has wide weights (the 128-bit path), every fifth (offset) weights
    // that are multiples of 1024, so that residues cluster: a power-of-two modulus would put
    // them all in one class.
    const bool wide = trial % 5 == 2, clustered = trial % 5 == 4;
    ssum::problem p = ssum_test::random_instance(rng, 16, wide ? INT64_MAX : clustered ? 50 : ssum_test::range_for(trial),
                                                 trial % 2 == 1 || clustered);
    if (clustered) {
      for (auto& w : p.weights) w *= 1024;
      if (p.target) *p.target *= 1024;
    }
    ssum::solve_options options;
    options.algo = ssum::algorithm::four_list;
    options.count = trial % 2 == 0;
    const std::uint64_t expected = brute_force_count(p);
    const auto s = ssum::solve(ssum::cpu{static_cast<unsigned>(1 + trial % 3)}, p, options);
    EXPECT_EQ(s.algorithm, ssum_test::expected_name(p, "four-list", options.count));
    expect_solution(p, s, expected > 0, describe(p));
    if (options.count) {
      ASSERT_TRUE(s.count.has_value()) << describe(p);
      ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Beyond brute force: the four lists against the two lists, n = 20..40 (not all multiples of
// 4), the benchmark classes and signed zero-sum instances, with counts.
TEST(SolveCpu, FourListAgreesWithTwoList) {
  ssum::solve_options two, four;
  two.algo = ssum::algorithm::two_list;
  four.algo = ssum::algorithm::four_list;
  two.count = four.count = true;
  for (std::size_t n : {20, 23, 26, 29, 32, 35, 38, 40}) {
    for (const char* cls : {"random", "planted", "zero-sum"}) {
      const ssum::problem p = ssum::generate(cls, n, n % 3 == 0 ? 12 : 30, 100 + n);
      const auto a = ssum::solve(ssum::cpu{2}, p, two);
      const auto b = ssum::solve(ssum::cpu{2}, p, four);
      EXPECT_EQ(a.feasible, b.feasible) << cls << " n=" << n;
      ASSERT_TRUE(a.count.has_value() && b.count.has_value()) << cls << " n=" << n;
      EXPECT_EQ(static_cast<std::uint64_t>(*a.count), static_cast<std::uint64_t>(*b.count)) << cls << " n=" << n;
      if (b.feasible) EXPECT_TRUE(ssum::is_certificate(p, b.subset)) << cls << " n=" << n;
    }
  }
}

// Heavy duplicates: zero and equal weights put whole runs of equal sums in one class, which
// the four-list counts by multiplicities (one table entry per distinct sum). 2^n subsets of n
// zeros: n = 40 is 2^40 quadruples, beyond any enumeration.
TEST(SolveCpu, FourListCountsRunsOfEqualSums) {
  ssum::solve_options two, four;
  two.algo = ssum::algorithm::two_list;
  four.algo = ssum::algorithm::four_list;
  two.count = four.count = true;
  for (std::size_t n : {34, 40}) {
    const ssum::problem zeros{std::vector<int128>(n, 0), int128(0)};
    auto s = ssum::solve(ssum::cpu{2}, zeros, four);
    EXPECT_EQ(s.count.value(), ssum::uint128(1) << n) << n;  // every subset, the empty one too
    expect_solution(zeros, s, true, "zeros, target 0");
    const ssum::problem zero_sum{std::vector<int128>(n, 0), std::nullopt};
    s = ssum::solve(ssum::cpu{2}, zero_sum, four);
    EXPECT_EQ(s.count.value(), (ssum::uint128(1) << n) - 1) << n;  // not the empty one
    expect_solution(zero_sum, s, true, "zeros, zero-sum");
    EXPECT_FALSE(s.subset.empty());
    if (n == 34) EXPECT_EQ(s.count.value(), ssum::solve(ssum::cpu{2}, zero_sum, two).count.value());
  }
  // Small weight alphabets against brute force: a few distinct sums, each many times over,
  // with and without a target (the empty subset's quadruple inside a run).
  std::mt19937_64 rng(1717);
  const std::vector<std::vector<std::int64_t>> alphabets = {{0}, {0, 1}, {-1, 0, 1}, {3}, {0, 5, -5}, {-2, 1, 1, 4}};
  for (int trial = 0; trial < 900; ++trial) {
    const auto& letters = alphabets[trial % alphabets.size()];
    std::vector<std::int64_t> w(static_cast<std::size_t>(uniform(rng, 0, 16)));
    for (auto& x : w) x = letters[static_cast<std::size_t>(uniform(rng, 0, std::int64_t(letters.size()) - 1))];
    std::optional<int128> t;
    if (trial % 3 != 0) t = uniform(rng, -6, 12);
    const ssum::problem p = ssum_test::make_problem(w, t);
    const std::uint64_t expected = brute_force_count(p);
    const auto s = ssum::solve(ssum::cpu{static_cast<unsigned>(1 + trial % 3)}, p, four);
    ASSERT_EQ(static_cast<std::uint64_t>(s.count.value()), expected) << describe(p);
    expect_solution(p, s, expected > 0, describe(p));
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Beyond brute force: against the two-list's count.
  for (std::size_t n : {28, 31, 36}) {
    for (const auto& letters : alphabets) {
      std::vector<std::int64_t> w(n);
      for (auto& x : w) x = letters[static_cast<std::size_t>(uniform(rng, 0, std::int64_t(letters.size()) - 1))];
      for (const std::optional<int128> t : {std::optional<int128>(), std::optional<int128>(3)}) {
        const ssum::problem p = ssum_test::make_problem(w, t);
        const auto a = ssum::solve(ssum::cpu{2}, p, two);
        const auto b = ssum::solve(ssum::cpu{2}, p, four);
        EXPECT_EQ(a.count.value(), b.count.value()) << describe(p);
        expect_solution(p, b, a.count.value() > 0, describe(p));
      }
    }
  }
}

// Weights whose total does not fit in 64 bits take the 128-bit list path.
TEST(SolveCpu, WideWeightsUseExactSums) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    ssum::problem p;
    const std::size_t n = static_cast<std::size_t>(uniform(rng, 3, 14));
    for (std::size_t i = 0; i < n; ++i) {
      const int pick = static_cast<int>(uniform(rng, 0, 3));
      p.weights.push_back(pick == 0 ? INT64_MIN : pick == 1 ? INT64_MAX : uniform(rng, INT64_MIN / 2, INT64_MAX));
    }
    if (trial % 3 == 0) {
      p.target = std::nullopt;
    } else {
      int128 t = 0;
      for (auto w : p.weights) if (rng() & 1) t += w;
      p.target = t + (trial % 3 == 1 ? 0 : 1);
    }
    expect_solution(p, ssum::solve(ssum::cpu{2}, p), brute_force_count(p) > 0, describe(p));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Beyond brute force: the independent sequential reference decides n = 21..36.
TEST(SolveCpu, MatchesSequentialReferenceUpTo36) {
  std::mt19937_64 rng(36);
  for (std::size_t n = 21; n <= 36; ++n) {
    for (int trial = 0; trial < 3; ++trial) {
      ssum::problem p;
      const int bits = trial == 0 ? 12 : trial == 1 ? 30 : 50;
      const bool signed_weights = (n + trial) % 2 == 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t m = uniform(rng, 1, (std::int64_t{1} << bits) - 1);
        p.weights.push_back(signed_weights && (rng() & 1) ? -m : m);
      }
      if (trial == 2 && signed_weights) {
        p.target = std::nullopt;
      } else {
        int128 sum = 0;
        for (auto w : p.weights) sum += w;
        p.target = sum / 2 + (trial == 1 ? 1 : 0);
      }
      std::optional<int128> t = p.target;
      const bool expected = ssum_reference::feasible<int128>(p.weights, t);
      expect_solution(p, ssum::solve(ssum::cpu{2}, p), expected, "n=" + std::to_string(n) + " " + describe(p));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(SolveCpu, EdgeCases) {
  struct edge {
    std::vector<std::int64_t> w;
    std::optional<int128> t;
    bool feasible;
    const char* what;
  };
  const std::vector<edge> cases = {
      {{}, 0, true, "n = 0, target 0: the empty subset"},
      {{}, 1, false, "n = 0, target 1"},
      {{}, std::nullopt, false, "n = 0, zero-sum: nothing non-empty"},
      {{0}, std::nullopt, true, "a single zero weight is a non-empty zero-sum subset"},
      {{5}, std::nullopt, false, "n = 1, zero-sum, weight 5"},
      {{5}, 5, true, "n = 1 hit"},
      {{5}, 4, false, "n = 1 miss"},
      {{-5}, -5, true, "n = 1 negative hit"},
      {{3, 9}, 0, true, "explicit target 0 accepts the empty subset"},
      {{3, 9}, std::nullopt, false, "zero-sum refuses the empty subset"},
      {{3, -3}, std::nullopt, true, "opposite pair"},
      {{7, 7, 7, 7}, 14, true, "duplicates"},
      {{7, 7, 7, 7}, 15, false, "duplicates miss"},
      {{1, 2, 4}, -1, false, "target below the least reachable sum"},
      {{1, 2, 4}, 8, false, "target above the greatest reachable sum"},
      {{1, 2, 4}, 7, true, "target equal to the greatest reachable sum"},
      {{-4, -2, -1}, -7, true, "all negative, least sum"},
      {{INT64_MIN, INT64_MIN, INT64_MAX, INT64_MAX}, std::nullopt, false, "extremes: no zero-sum"},
      {{INT64_MIN, INT64_MAX, 1}, std::nullopt, true, "extremes: INT64_MIN + INT64_MAX + 1 = 0"},
      {{INT64_MAX, INT64_MAX, INT64_MAX}, int128(INT64_MAX) * 3, true, "sum beyond 64 bits"},
      {{INT64_MAX, INT64_MAX, INT64_MAX}, int128(INT64_MAX) * 3 + 1, false, "just beyond"},
  };
  for (const edge& e : cases) {
    const ssum::problem p = ssum_test::make_problem(e.w, e.t);
    ASSERT_EQ(brute_force_count(p) > 0, e.feasible) << "bad expectation: " << e.what;
    expect_solution(p, ssum::solve(ssum::cpu{2}, p), e.feasible, e.what);
  }
}

TEST(SolveCpu, ThreadCountsAgree) {
  const ssum::problem p = ssum::generate("random", 30, 20, 5);
  const bool expected = ssum_reference::feasible<int128>(p.weights, p.target);
  for (unsigned threads : {1u, 2u, 3u, 7u}) {
    const auto s = ssum::solve(ssum::cpu{threads}, p);
    EXPECT_EQ(s.threads, threads);
    expect_solution(p, s, expected, "threads " + std::to_string(threads));
  }
}

TEST(SolveCpu, KnownAnswerClasses) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    for (std::size_t n : {20u, 29u, 34u}) {
      for (const char* cls : {"evenodd", "somatoth", "avis"}) {
        const auto p = ssum::generate(cls, n, std::nullopt, seed);
        EXPECT_FALSE(ssum::solve(ssum::cpu{}, p).feasible) << cls << " n=" << n;
      }
      for (const char* cls : {"planted", "zero-sum"}) {
        const auto p = ssum::generate(cls, n, std::nullopt, seed);
        expect_solution(p, ssum::solve(ssum::cpu{}, p), true, std::string(cls) + " n=" + std::to_string(n));
      }
    }
  }
}

TEST(SolveCpu, CancellationStopsTheSolve) {
  const ssum::problem p = ssum::generate("random", 32, std::nullopt, 3);
  std::atomic<bool> cancel{true};
  ssum::solve_options options;
  options.cancel = &cancel;
  EXPECT_THROW(ssum::solve(ssum::cpu{2}, p, options), ssum::interrupted);
}

TEST(SolveCpu, RefusesPlansThatDoNotFitBeforeAllocating) {
  const ssum::problem p = ssum::generate("random", 40, std::nullopt, 3);
  ssum::solve_options options;
  options.memory_limit = 1 << 20;
  options.algo = ssum::algorithm::two_list;
  try {
    ssum::solve(ssum::cpu{2}, p, options);
    FAIL() << "expected insufficient_memory";
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_DOUBLE_EQ(e.bytes_needed(), ssum::two_list_planned_bytes(p));
    EXPECT_DOUBLE_EQ(e.bytes_available(), double(1 << 20));
    EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos);
  }
  // Far beyond any machine: refused, never attempted.
  ssum::problem huge = ssum::generate("random", 100, std::nullopt, 3);
  EXPECT_THROW(ssum::solve(ssum::cpu{2}, huge, options), ssum::insufficient_memory);
  options.algo = ssum::algorithm::four_list;
  options.memory_limit = 1 << 10;  // not even the four quarter lists
  EXPECT_THROW(ssum::solve(ssum::cpu{2}, p, options), ssum::insufficient_memory);
}

// algorithm::automatic takes the four-list when the two lists do not fit the limit.
TEST(SolveCpu, AutomaticFallsBackToFourListsWithinTheLimit) {
  for (const char* cls : {"random", "planted"}) {
    const ssum::problem p = ssum::generate(cls, 36, std::nullopt, 11);
    ssum::solve_options options;
    options.memory_limit = 4 << 20;  // the two lists of n = 36 plan 2.5 x 2^18 x 8 bytes = 5 MiB
    ASSERT_GT(ssum::two_list_planned_bytes(p), double(options.memory_limit));
    const auto s = ssum::solve(ssum::cpu{2}, p, options);
    EXPECT_EQ(s.algorithm, "four-list");
    EXPECT_LE(double(s.planned_bytes), double(options.memory_limit));
    EXPECT_EQ(s.feasible, ssum::solve(ssum::cpu{2}, p).feasible) << cls;
    if (s.feasible) EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
}

TEST(SolveCpu, PlannedBytesFollowTheListSizes) {
  const ssum::problem p = ssum::generate("random", 48, std::nullopt, 1);
  // List A (2^24), list B (2^24) and half of B as merge buffer, 8 bytes each.
  EXPECT_DOUBLE_EQ(ssum::two_list_planned_bytes(p), (std::ldexp(1.0, 24) * 2.5) * 8);
  ssum::problem wide{{INT64_MAX, INT64_MAX, INT64_MAX}, 0};
  EXPECT_DOUBLE_EQ(ssum::two_list_planned_bytes(wide), (2 + 1.5 * 4) * 16.0);
}

TEST(SolveCpu, ReportsProgressThroughTheStages) {
  const ssum::problem p = ssum::generate("random", 26, std::nullopt, 9);
  std::set<std::string> stages;
  double last_generate_b = 0;
  ssum::solve_options options;
  options.on_progress = [&](const ssum::progress& pr) {
    stages.insert(pr.stage);
    EXPECT_GE(pr.fraction, 0.0);
    EXPECT_LE(pr.fraction, 1.0);
    if (pr.stage == "generate B") last_generate_b = pr.fraction;
  };
  ssum::solve(ssum::cpu{2}, p, options);
  EXPECT_TRUE(stages.count("generate A") && stages.count("generate B") && stages.count("prune") &&
              stages.count("search"));
  EXPECT_DOUBLE_EQ(last_generate_b, 1.0);
}

// Progress in proportion to the work (ssum::progress::overall): never back, ends at 1; on the
// two-list the end of A's generation is its share of the documented model, with n = 40:
// generation level k of a list 2^(k+1) units (A: 2^21 - 2), the search 0.2 per sum of both
// lists (0.2 x 2^21), so A's share is (2^21 - 2) / (2 (2^21 - 2) + 0.2 x 2^21), about 0.4545.
TEST(SolveCpu, ProgressIsProportionalToTheWork) {
  const auto record = [](const ssum::problem& p, ssum::solve_options options) {
    std::vector<ssum::progress> seen;
    options.on_progress = [&](const ssum::progress& pr) { seen.push_back(pr); };
    ssum::solve(ssum::cpu{2}, p, options);
    return seen;
  };
  const auto expect_monotone = [](const std::vector<ssum::progress>& seen, const std::string& what) {
    ASSERT_FALSE(seen.empty()) << what;
    for (std::size_t k = 1; k < seen.size(); ++k) {
      EXPECT_LE(seen[k - 1].overall, seen[k].overall) << what << " at " << k << " (" << seen[k].stage << ")";
    }
    EXPECT_GE(seen.front().overall, 0.0) << what;
    EXPECT_DOUBLE_EQ(seen.back().overall, 1.0) << what;
  };
  const ssum::problem p = ssum::generate("random", 40, std::nullopt, 8);
  ssum::solve_options options;
  options.algo = ssum::algorithm::two_list;
  auto seen = record(p, options);
  expect_monotone(seen, "two-list");
  double end_of_a = -1;
  for (const auto& pr : seen) {
    if (pr.stage == "generate A") end_of_a = pr.overall;
  }
  const double share = (std::ldexp(1.0, 21) - 2) / (2 * (std::ldexp(1.0, 21) - 2) + 0.2 * std::ldexp(1.0, 21));
  EXPECT_NEAR(end_of_a, share, 0.1 * share);
  options.count = true;
  expect_monotone(record(p, options), "two-list count");
  options.algo = ssum::algorithm::four_list;
  expect_monotone(record(p, options), "four-list count");
  options.count = false;
  expect_monotone(record(ssum::generate("planted", 36, std::nullopt, 2), options), "four-list, found early");
  // The merge-built two-list of the CUDA solver, over host memory.
  host_memory memory;
  ssum::solve_options merging;
  merging.count = true;
  seen.clear();
  merging.on_progress = [&](const ssum::progress& pr) { seen.push_back(pr); };
  ssum::detail::two_list_by_merging(ssum::cpu{2}, memory, p, merging, "cpu");
  expect_monotone(seen, "merging two-list");
}

// Byte counts in messages: whole bytes, then three significant digits in binary units, and no
// wrapped integer for plans beyond 2^64 bytes.
TEST(SolveCpu, FormatsByteCounts) {
  EXPECT_EQ(ssum::format_bytes(0), "0 bytes");
  EXPECT_EQ(ssum::format_bytes(1), "1 byte");
  EXPECT_EQ(ssum::format_bytes(1023), "1023 bytes");
  EXPECT_EQ(ssum::format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(ssum::format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(ssum::format_bytes(1023.9 * 1024), "1.00 MiB");
  EXPECT_EQ(ssum::format_bytes(10.0 * (1 << 20)), "10.0 MiB");
  EXPECT_EQ(ssum::format_bytes(std::ldexp(2.5, 33)), "20.0 GiB");
  EXPECT_EQ(ssum::format_bytes(std::ldexp(1.0, 63)), "8.00 EiB");
  EXPECT_EQ(ssum::format_bytes(std::ldexp(1.0, 64)), "more than 2^64 bytes");
  EXPECT_EQ(ssum::format_bytes(std::ldexp(1.0, 160)), "more than 2^64 bytes");
  // Every refusal names both counts that way.
  ssum::solve_options options;
  options.algo = ssum::algorithm::two_list;
  const ssum::problem big = ssum::generate("random", 157, std::nullopt, 1);
  try {
    ssum::solve(ssum::cpu{2}, big, options);
    FAIL() << "expected insufficient_memory";
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_NE(std::string(e.what()).find("needs more than 2^64 bytes; "), std::string::npos) << e.what();
  }
  options.algo = ssum::algorithm::four_list;
  options.memory_limit = 1;
  try {
    ssum::solve(ssum::cpu{2}, ssum::generate("random", 40, std::nullopt, 1), options);
    FAIL() << "expected insufficient_memory";
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_TRUE(std::string(e.what()).ends_with("KiB; 1 byte is available")) << e.what();
  }
  // Under automatic, beyond the meet-in-the-middle: the dynamic program answers.
  const ssum::solution many = ssum::solve(ssum::cpu{2}, ssum::problem{std::vector<int128>(121, 1), int128(5)});
  EXPECT_TRUE(many.algorithm == "dp" || many.algorithm == "balanced-dp") << many.algorithm;
  EXPECT_TRUE(many.feasible);
  EXPECT_EQ(many.subset.size(), 5u);
}

// Without a device, asking for CUDA is an error, never a silent fall-back; with one, it runs
// there. automatic keeps small instances on the host either way.
TEST(SolveCpu, NamedBackendRunsThereOrIsReportedNotFaked) {
  const ssum::problem p{{1, 2, 3}, 3};
  if (ssum::cuda_devices().empty()) {
    EXPECT_THROW(ssum::solve(ssum::backend::cuda, 1, p), ssum::backend_unavailable);
  } else {
    const ssum::solution s = ssum::solve(ssum::backend::cuda, 1, p);
    EXPECT_TRUE(s.feasible);
    EXPECT_EQ(s.backend, "cuda");
  }
  const ssum::solution s = ssum::solve(ssum::backend::automatic, 1, p);
  EXPECT_TRUE(s.feasible);
  EXPECT_EQ(s.backend, "cpu");
}

}  // namespace

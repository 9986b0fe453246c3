// ssum::list_subsets' plan: the meet in the middle where its lists fit and it is expected
// sooner, the four-list for narrow windows where the lists do not fit (or cost more), a clear
// refusal where neither can take the instance; the listing each plan hands out against the
// enumerator run directly, every subset re-summed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "solver/few_items/enumerate_few.hpp"
#include "solver/two_list/enumerate.hpp"
#include "ssum/int128.hpp"
#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;

struct listed {
  ssum::listing summary;
  std::vector<std::vector<std::size_t>> subsets;
};

listed list(const ssum::problem& p, const ssum::listing_options& o, unsigned threads = 2) {
  listed out;
  out.summary = ssum::list_subsets(ssum::backend::cpu, threads, p, o, [&](const std::vector<std::size_t>& s) {
    out.subsets.push_back(s);
    return true;
  });
  std::sort(out.subsets.begin(), out.subsets.end());
  return out;
}

std::vector<std::vector<std::size_t>> by_meet_in_the_middle(const ssum::problem& p, const ssum::listing_options& o) {
  ssum::detail::enumerate_request r;
  r.weights = &p.weights;
  r.lo = p.target.value_or(0);
  r.hi = p.target ? o.high.value_or(*p.target) : 0;
  r.non_empty = !p.target;
  r.min_items = o.min_items;
  r.max_items = o.max_items;
  std::vector<std::vector<std::size_t>> out;
  ssum::detail::enumerate_subsets(r, [&](const std::vector<std::size_t>& s) {
    out.push_back(s);
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

ssum::problem random_problem(std::mt19937_64& rng, std::size_t n, std::int64_t top) {
  ssum::problem p;
  int128 t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    p.weights.push_back(std::uniform_int_distribution<std::int64_t>(-top / 4, top)(rng));
    if (rng() & 1) t += p.weights.back();
  }
  p.target = t;
  return p;
}

TEST(ListSubsets, NarrowWindowsPastTheListsGoToTheFourList) {
  std::mt19937_64 rng(48);
  for (int trial = 0; trial < 6; ++trial) {
    const ssum::problem p = random_problem(rng, 38 + std::size_t(trial), std::int64_t(1) << 30);
    ssum::listing_options o;
    o.high = *p.target + trial % 3;
    o.memory_limit = 12 << 20;  // the half lists of n >= 38 need 16 MiB: only the four-list fits
    if (trial % 2) o.max_items = 10;
    const listed got = list(p, o);
    EXPECT_EQ(got.subsets, by_meet_in_the_middle(p, o)) << "trial " << trial;
    EXPECT_TRUE(got.summary.complete);
    EXPECT_EQ(got.summary.listed, got.subsets.size());
    EXPECT_EQ(got.summary.algorithm, "four-list");
    EXPECT_LE(got.summary.planned_bytes, std::uint64_t(12 << 20));
  }
}

TEST(ListSubsets, ThePlanSaysWhichAndWhy) {
  std::mt19937_64 rng(49);
  ssum::problem p = random_problem(rng, 40, std::int64_t(1) << 40);
  ssum::listing_options o;
  o.limit = 2;
  o.memory_limit = 64 << 20;  // two lists of 2^20 sums with masks need 32 MiB or more: the four-list sooner
  listed got = list(p, o);
  EXPECT_EQ(got.summary.algorithm, "four-list");
  EXPECT_NE(got.summary.plan.reason.find("one target at a time"), std::string::npos) << got.summary.plan.reason;
  EXPECT_EQ(got.summary.threads, 2u);
  o.high = *p.target + 5000;  // a window past the four-list's: the meet in the middle
  got = list(p, o);
  EXPECT_EQ(got.summary.algorithm, "two-list");
  o.high.reset();
  o.max_items = 3;  // 3 of 40: small size-bounded lists
  got = list(p, o);
  EXPECT_EQ(got.summary.algorithm, "two-list");
}

TEST(ListSubsets, RefusalsNameWhatWouldBeNeeded) {
  ssum::problem p;
  for (int i = 0; i < 130; ++i) p.weights.push_back((int128(1) << 60) + i);  // past every plan's bounds
  p.target = int128(3) << 60;
  ssum::listing_options o;
  try {
    list(p, o);
    FAIL() << "130 items listed";
  } catch (const ssum::insufficient_memory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("at most 60 items"), std::string::npos) << what;
    EXPECT_NE(what.find("120 items"), std::string::npos) << what;
    EXPECT_EQ(what.find("needs"), std::string::npos) << what;  // none planned a size
  }
  p.weights.assign(70, 1000003);  // the four-list takes 70 items, but not a window of 2001 values
  p.target = 10000000;
  o.high = 10002000;
  o.memory_limit = 32 << 20;  // nor the table of 71 x 10^7 sums (89 MB)
  EXPECT_THROW(list(p, o), ssum::insufficient_memory);
}

TEST(ListSubsets, ManySmallWeightsGoToTheTable) {
  std::mt19937_64 rng(50);
  ssum::problem p = random_problem(rng, 22, 50);
  ssum::listing_options o;
  o.high = *p.target + 2;
  listed got = list(p, o);
  EXPECT_EQ(got.summary.algorithm, "dp");
  EXPECT_EQ(got.subsets, by_meet_in_the_middle(p, o));
  ssum::problem ones;
  ones.weights.assign(200, 1);
  ones.target = 10;
  o = {};
  o.limit = 1;  // C(200, 10) subsets: the first at once
  got = list(ones, o);
  EXPECT_EQ(got.summary.algorithm, "dp");
  ASSERT_EQ(got.subsets.size(), 1u);
  EXPECT_EQ(got.subsets[0].size(), 10u);
  EXPECT_FALSE(got.summary.complete);
}


// Every subset of p with a sum in [lo, hi] and a size in [a, b] (zero-sum: non-empty, sum 0),
// over all 2^n masks.
std::vector<std::vector<std::size_t>> brute_force(const ssum::problem& p, int128 lo, int128 hi, std::size_t a,
                                                  std::size_t b) {
  const std::size_t n = p.weights.size();
  std::vector<std::vector<std::size_t>> out;
  for (std::uint64_t mask = 0; mask < (std::uint64_t(1) << n); ++mask) {
    const std::size_t size = std::size_t(__builtin_popcountll(mask));
    if (size < a || size > b || (!p.target && size == 0)) continue;
    int128 sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += mask >> i & 1 ? p.weights[i] : 0;
    if (sum < lo || sum > hi) continue;
    std::vector<std::size_t> s;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask >> i & 1) s.push_back(i);
    }
    out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Sizes and windows near n are listed as the complements of few items: each enumerator named
// (and the plan's own choice) hands out exactly the brute-force set, signed and unsigned
// weights, exact sizes, size windows, value windows and zero-sum.
TEST(ListSubsets, ItemsNearNAreListedAsComplements) {
  std::mt19937_64 rng(51);
  const ssum::algorithm algos[] = {ssum::algorithm::automatic, ssum::algorithm::two_list, ssum::algorithm::four_list,
                                   ssum::algorithm::dynamic_programming};
  int complemented = 0, compared = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const std::size_t n = 12 + std::size_t(trial) % 9;  // 12 .. 20
    const bool zero_sum = trial % 6 == 5;
    ssum::problem p;
    const std::int64_t top = trial % 2 ? 60 : 400;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t low = trial % 4 < 2 ? 0 : -top;  // unsigned, then signed weights
      p.weights.push_back(std::uniform_int_distribution<std::int64_t>(low, top)(rng));
    }
    int128 total = 0;
    for (const int128 w : p.weights) total += w;
    ssum::listing_options o;
    // A subset of n - 2 items or so: leave two out of the total.
    const int128 t = total - p.weights[rng() % n] - p.weights[rng() % n];
    if (!zero_sum) p.target = t;
    switch (trial % 3) {
      case 0: o.min_items = o.max_items = n - 1 - std::size_t(trial / 3) % 3; break;  // exactly K near n
      case 1: o.min_items = n - 4, o.max_items = trial % 2 ? n : n - 1; break;      // a size window near n
      case 2: o.min_items = n - 3; break;                                           // at least n - 3
    }
    if (!zero_sum && trial % 4 == 3) o.high = t + 1 + int128(rng() % 40);  // a value window too
    const int128 lo = p.target.value_or(0), hi = p.target ? o.high.value_or(lo) : 0;
    const auto want = brute_force(p, lo, hi, o.min_items, std::min(o.max_items, n));
    for (const ssum::algorithm algo : algos) {
      o.algo = algo;
      SCOPED_TRACE("trial " + std::to_string(trial) + " algorithm " + std::to_string(int(algo)));
      listed got;
      try {
        got = list(p, o);
      } catch (const std::exception& e) {
        // Only a named enumerator may decline (the table past its span); the plan always answers.
        ASSERT_NE(algo, ssum::algorithm::automatic) << e.what();
        continue;
      }
      EXPECT_EQ(got.subsets, want);
      EXPECT_EQ(got.summary.listed, want.size());
      EXPECT_TRUE(got.summary.complete);
      complemented += got.summary.plan.reason.find("complement was taken") != std::string::npos;
      ++compared;
      // A limit counts and stops as before: the first two, complete only when none is left.
      ssum::listing_options two = o;
      two.limit = 2;
      const listed some = list(p, two);
      EXPECT_EQ(some.subsets.size(), std::min<std::size_t>(2, want.size()));
      EXPECT_EQ(some.summary.complete, want.size() <= 2);
      for (const auto& s : some.subsets) EXPECT_TRUE(std::binary_search(want.begin(), want.end(), s));
    }
  }
  EXPECT_GE(compared, 60);
  EXPECT_GE(complemented, 40);  // most of them took the complement
}

// Windows whose ends lie at the edges of 128 bits: total - hi must not overflow.
TEST(ListSubsets, ComplementWindowsAtTheEdgesOf128Bits) {
  std::mt19937_64 rng(52);
  ssum::problem p;
  for (int i = 0; i < 14; ++i) {
    const int128 w = (int128(1) << 122) + int128(rng() % 1000);
    p.weights.push_back(i % 3 ? w : -w);  // |w| adds up to below 2^126
  }
  const int128 most = std::numeric_limits<int128>::max(), least = std::numeric_limits<int128>::min();
  ssum::listing_options o;
  o.min_items = 12;
  for (const auto& [lo, hi] : {std::pair{least, most}, std::pair{least, int128(0)}, std::pair{int128(0), most}}) {
    p.target = lo;
    o.high = hi;
    const listed got = list(p, o);
    EXPECT_EQ(got.subsets, brute_force(p, lo, hi, 12, 14));
    EXPECT_NE(got.summary.plan.reason.find("complement was taken"), std::string::npos) << got.summary.plan.reason;
  }
}

// 55 items of 60 wide weights: the complement's 5 make small lists, where the 55 would need
// two half lists of 2^30 sums.
TEST(ListSubsets, FiftyFiveOfSixtyIsQuick) {
  std::mt19937_64 rng(53);
  ssum::problem p;
  int128 total = 0;
  for (int i = 0; i < 60; ++i) {
    p.weights.push_back(int128(rng() >> 5) + 1);
    total += p.weights.back();
  }
  p.target = total - p.weights[3] - p.weights[17] - p.weights[29] - p.weights[41] - p.weights[58];
  ssum::listing_options o;
  o.min_items = o.max_items = 55;
  o.algo = ssum::algorithm::two_list;
  const auto start = std::chrono::steady_clock::now();
  const listed got = list(p, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);  // about 0.05 s on 2 cores
  EXPECT_TRUE(got.summary.complete);
  EXPECT_NE(got.summary.plan.reason.find("complement was taken"), std::string::npos) << got.summary.plan.reason;
  EXPECT_LT(got.summary.planned_bytes, std::uint64_t(1) << 30);
  ASSERT_GE(got.subsets.size(), 1u);
  for (const auto& s : got.subsets) {
    EXPECT_EQ(s.size(), 55u);
    int128 sum = 0;
    for (const std::size_t i : s) sum += p.weights[i];
    EXPECT_TRUE(sum == *p.target);
  }
}

// A zero-sum complement: the whole set is listed when it sums to 0, the empty set never.
TEST(ListSubsets, ZeroSumComplementKeepsTheEmptySetOut) {
  ssum::problem p;
  p.weights = {3, -3, 5, -5, 0, 2, -2};
  ssum::listing_options o;
  o.min_items = 5;
  const listed got = list(p, o);
  EXPECT_EQ(got.subsets, brute_force(p, 0, 0, 5, 7));
  EXPECT_TRUE(std::binary_search(got.subsets.begin(), got.subsets.end(), std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
  o.min_items = 0;
  o.max_items = 7;
  EXPECT_EQ(list(p, o).subsets, brute_force(p, 0, 0, 1, 7));
}

// The walk over every subset of a few items, run directly: the brute-force set in ascending
// order, the limit's look past it, a stop, signed weights and zero-sum.
TEST(ListSubsets, TheFewItemsWalkMatchesBruteForce) {
  std::mt19937_64 rng(54);
  for (int trial = 0; trial < 30; ++trial) {
    const std::size_t n = std::size_t(trial) % 15;
    ssum::problem p;
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(int128(rng() % 21) - (trial % 2 ? 10 : 0));
    if (trial % 5) p.target = int128(rng() % 31) - 5;
    ssum::detail::enumerate_request r;
    r.weights = &p.weights;
    r.lo = p.target.value_or(0);
    r.hi = p.target ? r.lo + int128(trial % 3) : 0;
    r.non_empty = !p.target;
    r.min_items = std::size_t(trial) % 3;
    r.max_items = r.min_items + std::size_t(trial) % 5;
    const auto want = brute_force(p, r.lo, r.hi, r.min_items, r.max_items);
    std::vector<std::vector<std::size_t>> got;
    const auto all = ssum::detail::enumerate_subsets_few(r, [&](const std::vector<std::size_t>& s) {
      got.push_back(s);
      return true;
    });
    EXPECT_EQ(got, want) << "trial " << trial;  // lexicographic: already sorted
    EXPECT_TRUE(all.complete);
    r.limit = 2;
    got.clear();
    const auto two = ssum::detail::enumerate_subsets_few(r, [&](const std::vector<std::size_t>& s) {
      got.push_back(s);
      return true;
    });
    EXPECT_EQ(got.size(), std::min<std::size_t>(2, want.size()));
    EXPECT_EQ(two.complete, want.size() <= 2) << "trial " << trial;
    r.limit = 0;
    const auto stop = ssum::detail::enumerate_subsets_few(r, [](const std::vector<std::size_t>&) { return false; });
    EXPECT_EQ(stop.listed, want.empty() ? 0u : 1u);
    EXPECT_EQ(stop.complete, want.empty());
  }
  EXPECT_DOUBLE_EQ(ssum::detail::enumerate_few_steps(121, 3), 1 + 121 + 7260 + 287980);
}

// Past the meet in the middle's 60 items with a window too wide for the four-list and sums too
// wide for the table: two items of 70 (and, as complements, 68 of them) by the walk.
TEST(ListSubsets, AFewItemsOfManyAreWalked) {
  std::mt19937_64 rng(55);
  ssum::problem p;
  int128 total = 0;
  for (int i = 0; i < 70; ++i) {
    p.weights.push_back(int128(rng() >> 4) - (i % 3 ? 0 : int128(1) << 59));
    total += p.weights.back();
  }
  const int128 pair = p.weights[5] + p.weights[44];
  ssum::listing_options o;
  o.high = pair + (int128(1) << 58);  // far past 1024 values
  std::vector<std::vector<std::size_t>> want;
  for (std::size_t i = 0; i < 70; ++i) {
    for (std::size_t j = i + 1; j < 70; ++j) {
      const int128 s = p.weights[i] + p.weights[j];
      if (s >= pair && s <= *o.high) want.push_back({i, j});
    }
  }
  p.target = pair;
  o.min_items = o.max_items = 2;
  listed got = list(p, o);
  EXPECT_EQ(got.summary.algorithm, "few-items");
  EXPECT_EQ(got.subsets, want);
  // The same pairs as the 68 items they leave out.
  p.target = total - *o.high;
  o.high = total - pair;
  o.min_items = o.max_items = 68;
  got = list(p, o);
  EXPECT_EQ(got.summary.algorithm, "few-items");
  EXPECT_NE(got.summary.plan.reason.find("complement was taken"), std::string::npos) << got.summary.plan.reason;
  ASSERT_EQ(got.subsets.size(), want.size());
  std::vector<std::vector<std::size_t>> left_out;
  for (const auto& s : got.subsets) {
    std::vector<std::size_t> rest;
    for (std::size_t i = 0, k = 0; i < 70; ++i) {
      if (k < s.size() && s[k] == i) ++k;
      else rest.push_back(i);
    }
    left_out.push_back(rest);
  }
  std::sort(left_out.begin(), left_out.end());
  EXPECT_EQ(left_out, want);
}

}  // namespace

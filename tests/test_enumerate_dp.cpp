// The subset enumerator by a table over sums (dynamic programming, backtracking through the
// table) against brute force over all 2^n subsets: the same set for every window, size bound
// and sign of weights, each once and ascending; against the meet in the middle at n <= 30; the
// limit, the callback's stop, cancel (before the call, while listing, from another thread) and
// the memory budget; past 60 items, a size-bounded case against every triple and n = 2000
// small weights under a limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "enumerate_checks.hpp"
#include "solver/dp/enumerate_dp.hpp"
#include "solver/two_list/enumerate.hpp"
#include "ssum/errors.hpp"

namespace {

using namespace enumerate_checks;

// The masks the table (by_table) or the meet in the middle lists, in the order listed.
std::vector<std::uint64_t> masks_of(const enumerate_request& r, bool by_table, enumerate_result* result = nullptr) {
  return listed_masks(
      r,
      [by_table](const enumerate_request& q, const auto& f) {
        return by_table ? enumerate_subsets_dp(q, f) : ssum::detail::enumerate_subsets(q, f);
      },
      result);
}

using ssum::int128;
using ssum::detail::enumerate_dp_bytes;
using ssum::detail::enumerate_request;
using ssum::detail::enumerate_result;
using ssum::detail::enumerate_subsets_dp;

std::vector<int128> random_weights(std::mt19937_64& rng, std::size_t n, int kind) {
  std::vector<int128> w(n);
  for (auto& x : w) {
    switch (kind) {
      case 0: x = std::uniform_int_distribution<int>(-4, 4)(rng); break;        // zeros, duplicates, negatives
      case 1: x = std::uniform_int_distribution<int>(1, 100)(rng); break;       // positive
      case 2: x = std::uniform_int_distribution<int>(0, 3)(rng); break;         // many equal
      default: x = std::uniform_int_distribution<int>(-1000, 1000)(rng); break;  // mixed signs, wider
    }
  }
  return w;
}

void expect_same_set(std::vector<std::uint64_t> got, const std::vector<std::uint64_t>& expected, int round) {
  std::sort(got.begin(), got.end());
  EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end()) << "a subset listed twice, round " << round;
  EXPECT_EQ(got, expected) << "round " << round;
}

TEST(EnumerateDp, MatchesBruteForceOnRandomInstances) {
  std::mt19937_64 rng(20240612);
  std::size_t subsets = 0;
  for (int round = 0; round < 800; ++round) {
    const std::size_t n = round % 8 == 7 ? 12 + rng() % 5 : rng() % 12;  // up to 16
    const std::vector<int128> w = random_weights(rng, n, int(rng() % 4));
    const query q = random_query(rng, w);
    const std::vector<std::uint64_t> expected = brute_force(w, q);
    enumerate_result result;
    expect_same_set(masks_of(request_for(w, q), true, &result), expected, round);
    EXPECT_TRUE(result.complete);
    EXPECT_FALSE(result.cancelled);
    subsets += expected.size();
  }
  std::printf("%zu subsets checked\n", subsets);
}

// The named edges, one by one: lo == hi, lo > hi, a window past the total, K = 0 and K = n,
// size ranges, the zero-sum form.
TEST(EnumerateDp, NamedWindowsAndSizeBounds) {
  const std::vector<int128> w = {3, -2, 0, 5, 3, -1, 0, 2, 7, -4, 1, 3};
  const std::size_t n = w.size();
  int128 total = 0;
  for (const int128 x : w) total += x;  // 17; the positive ones add up to 24
  std::vector<query> queries;
  const auto add = [&](int128 lo, int128 hi, std::size_t least, std::size_t most, bool non_empty) {
    query q;
    q.lo = lo, q.hi = hi, q.min_items = least, q.max_items = most, q.non_empty = non_empty;
    queries.push_back(q);
  };
  add(5, 5, 0, SIZE_MAX, false);       // lo == hi
  add(6, 5, 0, SIZE_MAX, false);       // empty window
  add(25, 40, 0, SIZE_MAX, false);     // past every sum
  add(-40, -8, 0, SIZE_MAX, false);    // below every sum
  add(24, 24, 0, SIZE_MAX, false);     // exactly the largest sum
  add(-7, -7, 0, SIZE_MAX, false);     // exactly the smallest
  add(0, 0, 0, SIZE_MAX, true);        // zero-sum form
  add(0, 0, 0, SIZE_MAX, false);       // the empty subset too
  add(-100, 100, 0, 0, false);         // K = 0: the empty subset alone
  add(0, 0, 0, 0, true);               // K = 0, non-empty: nothing
  add(total, total, n, n, false);      // K = n: every item
  add(total - 1, total - 1, n, n, false);
  add(-100, 100, 3, 5, false);         // a size range
  add(4, 9, 2, 2, false);
  add(4, 9, 11, SIZE_MAX, false);      // only a lower bound
  add(-3, 3, 0, 4, true);              // only an upper bound
  add(-100, 100, 5, 4, false);         // min > max: nothing
  add(-100, 100, n + 1, SIZE_MAX, false);  // more items than there are
  for (std::size_t k = 0; k < queries.size(); ++k) {
    enumerate_result result;
    expect_same_set(masks_of(request_for(w, queries[k]), true, &result), brute_force(w, queries[k]), int(k));
    EXPECT_TRUE(result.complete);
  }
  // An empty window needs no table at all.
  EXPECT_EQ(enumerate_dp_bytes(w, 6, 5, 0, SIZE_MAX), 0.0);
  EXPECT_EQ(enumerate_dp_bytes(w, 25, 40, 0, SIZE_MAX), 0.0);
  EXPECT_EQ(enumerate_dp_bytes(w, 0, 0, 5, 4), 0.0);
}

TEST(EnumerateDp, EdgeSizes) {
  for (std::size_t n = 0; n <= 6; ++n) {
    const std::vector<int128> w(n, 0);  // every subset sums to 0
    for (const bool non_empty : {false, true}) {
      query q;
      q.non_empty = non_empty;
      std::vector<std::uint64_t> got = masks_of(request_for(w, q), true);
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, brute_force(w, q)) << "n = " << n;
      EXPECT_EQ(got.size(), (std::size_t{1} << n) - (non_empty ? 1 : 0));
    }
  }
}

// The same set as the meet in the middle, at n up to 30 (past brute force), narrow windows.
TEST(EnumerateDp, MatchesMeetInTheMiddle) {
  std::mt19937_64 rng(30);
  std::size_t subsets = 0;
  for (int round = 0; round < 40; ++round) {
    const std::size_t n = 17 + rng() % 14;
    std::vector<int128> w(n);
    const int reach = n > 24 ? 20000 : 2000;  // keeps the counts in the tens of thousands
    for (auto& x : w) x = std::uniform_int_distribution<int>(round % 2 ? -reach : 1, reach)(rng);
    const std::uint64_t some = rng() & ((std::uint64_t{1} << n) - 1);
    const int128 s = sum_of(w, some);
    query q;
    q.lo = s - int128(rng() % 3);
    q.hi = s + int128(rng() % 3);
    if (round % 3 == 1) q.min_items = q.max_items = std::size_t(std::popcount(some));
    if (round % 3 == 2) q.min_items = 2, q.max_items = n - 3;
    if (round % 5 == 4) q.lo = q.hi = 0, q.non_empty = true;
    std::vector<std::uint64_t> expected = masks_of(request_for(w, q), false);
    std::sort(expected.begin(), expected.end());
    enumerate_result result;
    expect_same_set(masks_of(request_for(w, q), true, &result), expected, round);
    EXPECT_TRUE(result.complete);
    subsets += expected.size();
  }
  std::printf("%zu subsets, as the meet in the middle lists\n", subsets);
}

// limit = 1 and 2 tell none, one, or several: complete only when nothing is left unlisted.
TEST(EnumerateDp, LimitTellsNoneUniqueOrSeveral) {
  const std::vector<int128> w = {1, 2, 4, 8, 16, 3};
  const struct {
    int128 target;
    std::size_t count;
  } cases[] = {{64, 0}, {1, 1}, {2, 1}, {3, 2}, {7, 2}, {34, 1}};  // 3 = 1 + 2 = 3; 7 = 1+2+4 = 4+3
  for (const auto& c : cases) {
    ASSERT_EQ(brute_force(w, {c.target, c.target}).size(), c.count);
    for (const std::uint64_t limit : {1, 2}) {
      enumerate_request r = request_for(w, {c.target, c.target});
      r.limit = limit;
      enumerate_result result;
      const std::vector<std::uint64_t> got = masks_of(r, true, &result);
      EXPECT_EQ(got.size(), std::min<std::uint64_t>(limit, c.count));
      EXPECT_EQ(result.complete, c.count <= limit) << "target " << int(c.target) << ", limit " << limit;
      EXPECT_FALSE(result.cancelled);
    }
  }
}

TEST(EnumerateDp, LimitListsExactlyThatManyDistinctValidOnes) {
  std::mt19937_64 rng(8);
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = rng() % 16;
    const std::vector<int128> w = random_weights(rng, n, int(rng() % 4));
    const query q = random_query(rng, w);
    const std::vector<std::uint64_t> all = brute_force(w, q);
    const std::uint64_t limit = 1 + rng() % (all.size() + 3);
    enumerate_request r = request_for(w, q);
    r.limit = limit;
    enumerate_result result;
    std::vector<std::uint64_t> got = masks_of(r, true, &result);
    ASSERT_EQ(got.size(), std::min<std::uint64_t>(limit, all.size()));
    std::sort(got.begin(), got.end());
    EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end());
    for (const std::uint64_t m : got) EXPECT_TRUE(std::binary_search(all.begin(), all.end(), m));
    EXPECT_EQ(result.complete, all.size() <= limit) << "limit " << limit << " of " << all.size();
  }
}

TEST(EnumerateDp, CallbackReturningFalseStopsAtOnce) {
  const std::vector<int128> w(12, 1);
  enumerate_request r = request_for(w, {0, 12});
  for (const std::uint64_t stop_at : {1, 2, 100, 4096}) {
    std::uint64_t calls = 0;
    const enumerate_result result = enumerate_subsets_dp(r, [&](const std::vector<std::size_t>&) {
      return ++calls < stop_at;
    });
    EXPECT_EQ(calls, stop_at);
    EXPECT_EQ(result.listed, stop_at);
    EXPECT_FALSE(result.complete);
    EXPECT_FALSE(result.cancelled);
  }
}

TEST(EnumerateDp, CancelStopsSoonWithoutThrowing) {
  const std::vector<int128> w(20, 0);  // 2^20 subsets, all summing to 0
  std::atomic<bool> cancel{true};
  enumerate_request r = request_for(w, {});
  r.cancel = &cancel;
  // Raised before the call: nothing listed.
  std::uint64_t calls = 0;
  const enumerate_result before =
      enumerate_subsets_dp(r, [&](const std::vector<std::size_t>&) { return ++calls, true; });
  EXPECT_TRUE(before.cancelled);
  EXPECT_FALSE(before.complete);
  EXPECT_EQ(before.listed, 0u);
  EXPECT_EQ(calls, 0u);
  // Raised while listing: stops within a poll's steps.
  cancel.store(false);
  const enumerate_result during = enumerate_subsets_dp(r, [&](const std::vector<std::size_t>&) {
    if (++calls == 10) cancel.store(true);
    return true;
  });
  EXPECT_TRUE(during.cancelled);
  EXPECT_FALSE(during.complete);
  EXPECT_EQ(during.listed, calls);
  EXPECT_LT(calls, 10u + 4096u);  // a walk step at least per subset, polled every 4096
}

// Raised from another thread while the table is built (56 MB here) or walked: answered within
// a fraction of the 0.1 s a caller waits for.
TEST(EnumerateDp, CancelFromAnotherThreadIsAnsweredSoon) {
  std::mt19937_64 rng(600);
  std::vector<int128> w(600);
  int128 total = 0;
  for (auto& x : w) total += (x = std::uniform_int_distribution<int>(1, 5000)(rng));
  enumerate_request r = request_for(w, {total / 2, total / 2});  // far too many subsets to finish
  for (const int delay_ms : {1, 20}) {
    std::atomic<bool> cancel{false};
    r.cancel = &cancel;
    std::chrono::steady_clock::time_point raised_at;
    std::thread raiser([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      raised_at = std::chrono::steady_clock::now();
      cancel.store(true);
    });
    const enumerate_result result = enumerate_subsets_dp(r, [](const std::vector<std::size_t>&) { return true; });
    const auto answered = std::chrono::steady_clock::now();
    raiser.join();
    EXPECT_TRUE(result.cancelled);
    EXPECT_FALSE(result.complete);
    EXPECT_LT(std::chrono::duration<double>(answered - raised_at).count(), 2.5) << "raised after " << delay_ms << " ms";
  }
}

// The plan: n + 1 rows over the clipped span, a bitset per size only where the bounds
// restrict; the budget refuses before allocating; a span past 2^40 is no table.
TEST(EnumerateDp, PlansAndRefusesByTheBudget) {
  const std::vector<int128> ones(100, 1);
  // Sums 0..100, clipped to 0..50 by hi = 50: 51 bits, one word, 101 rows.
  EXPECT_EQ(enumerate_dp_bytes(ones, 50, 50, 0, SIZE_MAX), 8.0 * 101);
  EXPECT_EQ(enumerate_dp_bytes(ones, 50, 50, 0, 100), 8.0 * 101);          // max_items = n: no sizes
  EXPECT_EQ(enumerate_dp_bytes(ones, 50, 50, 1, 100), 8.0 * 101 * 101);    // sizes 0..100
  EXPECT_EQ(enumerate_dp_bytes(ones, 50, 50, 0, 9), 8.0 * 101 * 10);       // sizes 0..9
  EXPECT_EQ(enumerate_dp_bytes(ones, 0, 100, 0, SIZE_MAX), 8.0 * 2 * 101);  // 101 bits: two words
  // Mixed signs: neg = -300, pos = 200; lo = 150 clips the low end to 150 - 200 = -50.
  const std::vector<int128> mixed = {100, -300, 100};
  EXPECT_EQ(enumerate_dp_bytes(mixed, 150, 1000, 0, SIZE_MAX), 8.0 * 4 * 4);  // -50..200: 251 bits
  const std::vector<int128> wide = {int128(1) << 50, -(int128(1) << 50)};
  EXPECT_TRUE(std::isinf(enumerate_dp_bytes(wide, -(int128(1) << 50), int128(1) << 50, 0, SIZE_MAX)));

  enumerate_request r = request_for(ones, {50, 50});
  r.limit = 1;
  r.max_bytes = 8.0 * 101;  // fits exactly
  std::uint64_t calls = 0;
  EXPECT_EQ(enumerate_subsets_dp(r, [&](const std::vector<std::size_t>&) { return ++calls, true; }).listed, 1u);
  r.max_bytes -= 1;
  calls = 0;
  EXPECT_THROW(enumerate_subsets_dp(r, [&](const std::vector<std::size_t>&) { return ++calls, true; }),
               ssum::insufficient_memory);
  EXPECT_EQ(calls, 0u);
  // An empty window lists nothing, complete, whatever the budget.
  r.lo = 51, r.hi = 50;
  EXPECT_TRUE(enumerate_subsets_dp(r, [](const std::vector<std::size_t>&) { return true; }).complete);
  // Too wide a span: refused by the budget, or as no table at all without one.
  enumerate_request too_wide = request_for(wide, {-(int128(1) << 50), int128(1) << 50});
  too_wide.max_bytes = 1e15;
  EXPECT_THROW(enumerate_subsets_dp(too_wide, [](const std::vector<std::size_t>&) { return true; }),
               ssum::insufficient_memory);
  too_wide.max_bytes = 0;
  EXPECT_THROW(enumerate_subsets_dp(too_wide, [](const std::vector<std::size_t>&) { return true; }),
               std::invalid_argument);
  const std::vector<int128> huge = {int128(1) << 126, int128(1) << 126};
  EXPECT_THROW(enumerate_subsets_dp(request_for(huge, {}), [](const std::vector<std::size_t>&) { return true; }),
               std::invalid_argument);
  EXPECT_THROW(enumerate_subsets_dp(enumerate_request{}, [](const std::vector<std::size_t>&) { return true; }),
               std::invalid_argument);
}

// A weight far above the window clips the table to a few sums (-2..5 here) and is never
// taken; sums that rise past the clipped range and come back down are not followed.
TEST(EnumerateDp, HugeWeightAboveTheWindow) {
  const std::vector<int128> w = {int128(1) << 100, 1, 2, 3, -2, 4, -1};
  const query q{3, 3};
  EXPECT_EQ(enumerate_dp_bytes(w, 3, 3, 0, SIZE_MAX), 8.0 * 8);  // neg = -3: sums -3..6, one word
  expect_same_set(masks_of(request_for(w, q), true), brute_force(w, q), 0);
  for (int128 lo = -4; lo <= 11; ++lo)
    for (int128 hi = lo; hi <= lo + 3; ++hi) {
      const query window{lo, hi};
      expect_same_set(masks_of(request_for(w, window), true), brute_force(w, window), int(lo * 10 + hi));
    }
}

// Past the meet in the middle's 60 items, under a size bound: n = 70, exactly 3 items, against
// every triple.
TEST(EnumerateDp, SeventyItemsThreeAtATimeMatchEveryTriple) {
  std::mt19937_64 rng(70);
  std::vector<int128> w(70);
  for (auto& x : w) x = std::uniform_int_distribution<int>(1, 300)(rng);
  const int128 target = w[4] + w[33] + w[69];
  std::set<std::vector<std::size_t>> expected;
  for (std::size_t a = 0; a < 70; ++a)
    for (std::size_t b = a + 1; b < 70; ++b)
      for (std::size_t c = b + 1; c < 70; ++c)
        if (w[a] + w[b] + w[c] == target) expected.insert({a, b, c});
  query q{target, target};
  q.min_items = q.max_items = 3;
  std::set<std::vector<std::size_t>> got;
  const enumerate_result result = enumerate_subsets_dp(request_for(w, q), [&](const std::vector<std::size_t>& s) {
    EXPECT_TRUE(got.insert(s).second) << "listed twice";
    return true;
  });
  EXPECT_TRUE(result.complete);
  EXPECT_EQ(got, expected);
  EXPECT_GT(expected.size(), 10u);
}

// n = 2000 weights in 1..50, half the total: the first 1000 subsets, each summed.
TEST(EnumerateDp, TwoThousandSmallWeightsUnderALimit) {
  std::mt19937_64 rng(2000);
  std::vector<int128> w(2000);
  int128 total = 0;
  for (auto& x : w) total += (x = std::uniform_int_distribution<int>(1, 50)(rng));
  const int128 target = total / 2;
  enumerate_request r = request_for(w, {target, target});
  r.limit = 1000;
  std::set<std::vector<std::size_t>> seen;
  const enumerate_result result = enumerate_subsets_dp(r, [&](const std::vector<std::size_t>& s) {
    int128 sum = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      EXPECT_LT(s[k], w.size());
      if (k) {
        EXPECT_LT(s[k - 1], s[k]);
      }
      sum += w[s[k]];
    }
    EXPECT_TRUE(sum == target);
    EXPECT_TRUE(seen.insert(s).second) << "listed twice";
    return true;
  });
  EXPECT_EQ(result.listed, 1000u);
  EXPECT_FALSE(result.complete);  // far more than 1000 exist
  EXPECT_FALSE(result.cancelled);
  std::printf("n = 2000: table of %.1f MB\n", enumerate_dp_bytes(w, target, target, 0, SIZE_MAX) / 1e6);
}

}  // namespace

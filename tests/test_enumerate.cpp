// The subset enumerator (meet in the middle, Horowitz-Sahni) against brute force over all 2^n
// subsets: the same set of subsets for every window, size bound and sign of weights, each once
// and ascending; the limit, the callback's stop and cancel; at n = 40, its count against a
// dynamic program over sums; under a size bound, the smaller lists' plan and n = 60 against
// every combination.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "enumerate_checks.hpp"
#include "solver/two_list/enumerate.hpp"
#include "ssum/errors.hpp"

namespace {

using namespace enumerate_checks;

// What the meet in the middle lists, as masks in the order listed.
std::vector<std::uint64_t> listed_masks(const enumerate_request& r, enumerate_result* result = nullptr) {
  return enumerate_checks::listed_masks(
      r, [](const enumerate_request& q, const auto& f) { return enumerate_subsets(q, f); }, result);
}

using ssum::int128;
using ssum::detail::enumerate_request;
using ssum::detail::enumerate_result;
using ssum::detail::enumerate_subsets;

std::vector<int128> random_weights(std::mt19937_64& rng, std::size_t n, int kind) {
  std::vector<int128> w(n);
  for (auto& x : w) {
    switch (kind) {
      case 0: x = std::uniform_int_distribution<int>(-4, 4)(rng); break;      // zeros, duplicates
      case 1: x = std::uniform_int_distribution<int>(1, 100)(rng); break;     // positive
      case 2: x = std::uniform_int_distribution<std::int64_t>(-(1LL << 40), 1LL << 40)(rng); break;
      case 3: x = std::uniform_int_distribution<int>(0, 3)(rng); break;       // many equal
      default: {  // past 2^63 in total: the 128-bit lists
        x = int128(std::uniform_int_distribution<std::int64_t>(-(1LL << 62), 1LL << 62)(rng)) << 58;
        break;
      }
    }
  }
  return w;
}

TEST(EnumerateSubsets, MatchesBruteForceOnRandomInstances) {
  std::mt19937_64 rng(20240611);
  std::size_t instances = 0, subsets = 0;
  for (int round = 0; round < 700; ++round) {
    // Mostly small n (every edge size often), some up to 20.
    const std::size_t n = round % 7 == 6 ? 14 + rng() % 7 : rng() % 14;
    const std::vector<int128> w = random_weights(rng, n, int(rng() % 5));
    const query q = random_query(rng, w);
    const std::vector<std::uint64_t> expected = brute_force(w, q);
    enumerate_result result;
    std::vector<std::uint64_t> got = listed_masks(request_for(w, q), &result);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end()) << "a subset listed twice, n = " << n;
    ASSERT_EQ(got, expected) << "round " << round << ", n = " << n;
    EXPECT_TRUE(result.complete);
    EXPECT_FALSE(result.cancelled);
    ++instances;
    subsets += expected.size();
  }
  std::printf("%zu instances, %zu subsets checked\n", instances, subsets);
}

TEST(EnumerateSubsets, EdgeSizes) {
  for (std::size_t n = 0; n <= 5; ++n) {
    const std::vector<int128> w(n, 0);  // all equal: every subset sums to 0
    for (const bool non_empty : {false, true}) {
      query q;
      q.non_empty = non_empty;
      std::vector<std::uint64_t> got = listed_masks(request_for(w, q));
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, brute_force(w, q)) << "n = " << n;
      EXPECT_EQ(got.size(), (std::size_t{1} << n) - (non_empty ? 1 : 0));
    }
  }
}

TEST(EnumerateSubsets, LimitListsExactlyThatManyDistinctValidOnes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = rng() % 16;
    const std::vector<int128> w = random_weights(rng, n, int(rng() % 4));
    const query q = random_query(rng, w);
    const std::vector<std::uint64_t> all = brute_force(w, q);
    const std::uint64_t limit = 1 + rng() % (all.size() + 3);
    enumerate_request r = request_for(w, q);
    r.limit = limit;
    enumerate_result result;
    std::vector<std::uint64_t> got = listed_masks(r, &result);
    ASSERT_EQ(got.size(), std::min<std::uint64_t>(limit, all.size()));
    std::sort(got.begin(), got.end());
    EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end());
    for (const std::uint64_t m : got) EXPECT_TRUE(std::binary_search(all.begin(), all.end(), m));
    EXPECT_EQ(result.complete, all.size() <= limit) << "limit " << limit << " of " << all.size();
  }
}

TEST(EnumerateSubsets, CallbackReturningFalseStopsAtOnce) {
  const std::vector<int128> w(12, 1);
  query q;
  q.lo = 0;
  q.hi = 12;
  enumerate_request r = request_for(w, q);
  for (const std::uint64_t stop_at : {1, 2, 100, 4096}) {
    std::uint64_t calls = 0;
    const enumerate_result result = enumerate_subsets(r, [&](const std::vector<std::size_t>&) {
      return ++calls < stop_at;
    });
    EXPECT_EQ(calls, stop_at);
    EXPECT_EQ(result.listed, stop_at);
    EXPECT_FALSE(result.complete);
    EXPECT_FALSE(result.cancelled);
  }
}

TEST(EnumerateSubsets, CancelStopsSoonWithoutThrowing) {
  const std::vector<int128> w(20, 0);  // 2^20 subsets, all summing to 0
  query q;
  std::atomic<bool> cancel{false};
  enumerate_request r = request_for(w, q);
  r.cancel = &cancel;
  std::uint64_t calls = 0;
  const enumerate_result result = enumerate_subsets(r, [&](const std::vector<std::size_t>&) {
    if (++calls == 10) cancel.store(true);
    return true;
  });
  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.listed, calls);
  EXPECT_LT(calls, 10u + 8192u);  // polled every few thousand steps
  // Raised before the start: nothing listed.
  calls = 0;
  const enumerate_result before = enumerate_subsets(r, [&](const std::vector<std::size_t>&) { return ++calls, true; });
  EXPECT_TRUE(before.cancelled);
  EXPECT_EQ(before.listed, 0u);
  EXPECT_EQ(calls, 0u);
}

TEST(EnumerateSubsets, RefusesWhatItCannotHold) {
  std::vector<int128> w(61, 1);
  query q;
  EXPECT_THROW(enumerate_subsets(request_for(w, q), [](const std::vector<std::size_t>&) { return true; }),
               std::invalid_argument);
  w.assign(30, 1);
  enumerate_request r = request_for(w, q);
  r.max_bytes = 1 << 20;  // the lists take 2 * 2^15 * 16 bytes = 1 MiB: fits exactly
  EXPECT_EQ(ssum::detail::enumerate_list_bytes(w), double(1 << 20));
  EXPECT_EQ(enumerate_subsets(r, [](const std::vector<std::size_t>&) { return true; }).listed, 1u);  // {}
  r.max_bytes = (1 << 20) - 1;
  EXPECT_THROW(enumerate_subsets(r, [](const std::vector<std::size_t>&) { return true; }),
               ssum::insufficient_memory);
  const std::vector<int128> huge = {int128(1) << 126, int128(1) << 126};
  EXPECT_THROW(enumerate_subsets(request_for(huge, q), [](const std::vector<std::size_t>&) { return true; }),
               std::invalid_argument);
  EXPECT_EQ(ssum::detail::enumerate_planned_bytes(40), 32.0 * 2 * (1 << 20));
}

// Under a size bound each half keeps only its subsets of at most max_items items: the plan is
// sum_{k <= min(c, max_items)} C(c, k) entries per half of c items, counted here by Pascal's
// triangle, and 2^c per half once the bound reaches the half.
TEST(EnumerateSubsets, BoundedListsArePlannedByTheirEntries) {
  std::vector<std::vector<double>> pascal(33, std::vector<double>(33, 0));
  for (std::size_t c = 0; c <= 32; ++c) {
    pascal[c][0] = 1;
    for (std::size_t k = 1; k <= c; ++k) pascal[c][k] = pascal[c - 1][k - 1] + (k < c ? pascal[c - 1][k] : 0);
  }
  const auto entries = [&](std::size_t c, std::size_t m) {
    double e = 0;
    for (std::size_t k = 0; k <= std::min(c, m); ++k) e += pascal[c][k];
    return e;
  };
  for (const std::size_t n : {0, 1, 7, 20, 31, 40, 59, 60}) {
    const std::vector<int128> narrow(n, 1), wide(n, int128(1) << 120);
    for (const std::size_t m : {std::size_t(0), std::size_t(1), std::size_t(4), std::size_t(5), n / 2, n, SIZE_MAX}) {
      const double count = entries(n / 2, m) + entries(n - n / 2, m);
      EXPECT_EQ(ssum::detail::enumerate_list_bytes(narrow, m), 16 * count) << "n = " << n << ", m = " << m;
      if (n == 1) {  // wide sums (n = 0 has none), sum |w| below 2^127
        EXPECT_EQ(ssum::detail::enumerate_list_bytes(wide, m), 32 * count);
      }
    }
  }
  // n = 60, at most 5 items: 2 * (1 + 30 + 435 + 4060 + 27405 + 142506) sums, 5.6 MB.
  const std::vector<int128> w(60, 1);
  EXPECT_EQ(ssum::detail::enumerate_list_bytes(w, 5), 16.0 * 2 * 174437);
  EXPECT_EQ(ssum::detail::enumerate_list_bytes(w), 16.0 * 2 * double(1 << 30));
  // The budget is checked against the bounded plan: 5.6 MB passes where 32 GiB would not.
  query q;
  q.lo = q.hi = 1 << 20;  // past every sum of at most 5 ones: nothing listed
  q.max_items = 5;
  enumerate_request r = request_for(w, q);
  r.max_bytes = 16.0 * 2 * 174437;
  EXPECT_TRUE(enumerate_subsets(r, [](const std::vector<std::size_t>&) { return true; }).complete);
  r.max_bytes -= 1;
  EXPECT_THROW(enumerate_subsets(r, [](const std::vector<std::size_t>&) { return true; }),
               ssum::insufficient_memory);
}

// n = 60 under size bounds up to 5 items, small weights and a planted 5-subset target: the
// same set as the k-combinations of the 60 items (k <= 5, 5.8 million), checked one by one.
TEST(EnumerateSubsets, SixtyItemsUnderASizeBoundMatchEveryCombination) {
  std::mt19937_64 rng(60);
  std::vector<int128> w(60);
  for (auto& x : w) x = std::uniform_int_distribution<int>(1, 1000)(rng);
  const std::uint64_t planted =
      (std::uint64_t{1} << 3) | (std::uint64_t{1} << 17) | (std::uint64_t{1} << 29) | (std::uint64_t{1} << 30) |
      (std::uint64_t{1} << 58);  // across both halves
  const int128 target = sum_of(w, planted);
  // by_size[k]: every k-subset with that sum, as masks.
  std::vector<std::vector<std::uint64_t>> by_size(6);
  for (std::size_t k = 0; k <= 5; ++k) {
    std::vector<int> pick(60, 0);
    std::fill(pick.end() - std::ptrdiff_t(k), pick.end(), 1);  // the first arrangement
    do {
      int128 sum = 0;
      std::uint64_t mask = 0;
      for (std::size_t i = 0; i < 60; ++i)
        if (pick[i]) sum += w[i], mask |= std::uint64_t{1} << i;
      if (sum == target) by_size[k].push_back(mask);
    } while (std::next_permutation(pick.begin(), pick.end()));
  }
  ASSERT_NE(std::find(by_size[5].begin(), by_size[5].end(), planted), by_size[5].end());
  const std::pair<std::size_t, std::size_t> bounds[] = {{5, 5}, {4, 5}, {4, 4}, {0, 4}, {0, 5}, {2, 3}, {1, 5}};
  for (const auto& [least, most] : bounds) {
    std::vector<std::uint64_t> expected;
    for (std::size_t k = least; k <= most; ++k) expected.insert(expected.end(), by_size[k].begin(), by_size[k].end());
    std::sort(expected.begin(), expected.end());
    query q;
    q.lo = q.hi = target;
    q.min_items = least;
    q.max_items = most;
    enumerate_result result;
    std::vector<std::uint64_t> got = listed_masks(request_for(w, q), &result);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end());
    EXPECT_EQ(got, expected) << "sizes " << least << ".." << most;
    EXPECT_TRUE(result.complete);
    std::printf("n = 60, %zu..%zu items: %zu subsets, as the combinations find\n", least, most, got.size());
  }
}

// Subsets of positive weights with sum in [lo, hi], by a table over sums (exact in 64 bits
// for n <= 63).
std::uint64_t dp_count(const std::vector<int128>& w, std::int64_t lo, std::int64_t hi) {
  std::vector<std::uint64_t> ways(std::size_t(hi) + 1, 0);
  ways[0] = 1;
  for (const int128 x : w)
    for (std::int64_t s = hi; s >= std::int64_t(x); --s) ways[std::size_t(s)] += ways[std::size_t(s - std::int64_t(x))];
  std::uint64_t count = 0;
  for (std::int64_t s = std::max<std::int64_t>(lo, 0); s <= hi; ++s) count += ways[std::size_t(s)];
  return count;
}

TEST(EnumerateSubsets, CountAtFortyItemsMatchesDynamicProgram) {
  std::mt19937_64 rng(40);
  std::vector<int128> w(40);
  std::int64_t total = 0;
  for (auto& x : w) total += std::int64_t(x = std::uniform_int_distribution<int>(1, 1 << 16)(rng));
  const std::int64_t lo = total / 2, hi = total / 2;  // about 4 million subsets
  query q;
  q.lo = lo;
  q.hi = hi;
  std::uint64_t count = 0;
  const enumerate_result result = enumerate_subsets(request_for(w, q), [&](const std::vector<std::size_t>& items) {
    ++count;
    if (count % 65536 == 1) {  // spot-check sums
      int128 s = 0;
      for (const std::size_t k : items) s += w[k];
      EXPECT_EQ(s, int128(lo));
    }
    return true;
  });
  const std::uint64_t expected = dp_count(w, lo, hi);
  EXPECT_GT(expected, 1000000u);
  EXPECT_EQ(count, expected);
  EXPECT_EQ(result.listed, expected);
  EXPECT_TRUE(result.complete);
  std::printf("n = 40: %llu subsets, as the dynamic program counts\n", static_cast<unsigned long long>(count));
}

// A figure, not a check: subsets streamed per second through the callback.
TEST(EnumerateSubsets, StreamingRate) {
  std::mt19937_64 rng(44);
  std::vector<int128> w(44);
  int128 total = 0;
  for (auto& x : w) total += (x = std::uniform_int_distribution<int>(1, 64)(rng));
  query q;
  q.lo = q.hi = total / 2;
  enumerate_request r = request_for(w, q);
  r.limit = 10'000'000;
  std::uint64_t items = 0;
  const auto start = std::chrono::steady_clock::now();
  const enumerate_result result = enumerate_subsets(r, [&](const std::vector<std::size_t>& s) {
    items += s.size();
    return true;
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.listed, r.limit);
  std::printf("n = 44, weights in [1, 64]: %llu subsets (%.1f items each) in %.3f s: %.3g subsets/s\n",
              static_cast<unsigned long long>(result.listed), double(items) / double(result.listed), seconds,
              double(result.listed) / seconds);
}

}  // namespace

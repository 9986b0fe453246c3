// The four-list listing (Schroeppel-Shamir, modular split) against brute force over all 2^n
// subsets and against the meet-in-the-middle listing: the same set for every narrow window,
// size bound and sign of weights (128-bit sums included), each subset once and ascending, on
// one and two threads; the limit's one-more look, the callback's stop and exception, cancel,
// the window and memory refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "enumerate_checks.hpp"
#include "solver/four_list/enumerate_four.hpp"
#include "ssum/errors.hpp"

namespace {

using namespace enumerate_checks;

using ssum::int128;
using ssum::detail::enumerate_request;
using ssum::detail::enumerate_result;
using ssum::detail::enumerate_subsets;
using ssum::detail::enumerate_subsets_four;

// The four-list's subsets as sorted masks; fails on a duplicate.
std::vector<std::uint64_t> four_masks(const enumerate_request& r, unsigned threads, enumerate_result* result = nullptr) {
  std::vector<std::uint64_t> masks;
  const enumerate_result got = enumerate_subsets_four(r, threads, [&](const std::vector<std::size_t>& items) {
    masks.push_back(mask_of(items, r.weights->size()));
    return true;
  });
  EXPECT_EQ(got.listed, masks.size());
  std::sort(masks.begin(), masks.end());
  EXPECT_EQ(std::adjacent_find(masks.begin(), masks.end()), masks.end()) << "a subset listed twice";
  if (result) *result = got;
  return masks;
}

std::vector<int128> random_weights(std::mt19937_64& rng, std::size_t n, int kind) {
  std::vector<int128> w(n);
  for (auto& x : w) {
    switch (kind) {
      case 0: x = std::uniform_int_distribution<int>(-4, 4)(rng); break;  // zeros, duplicates
      case 1: x = std::uniform_int_distribution<int>(1, 100)(rng); break;
      case 2: x = std::uniform_int_distribution<std::int64_t>(-(1LL << 40), 1LL << 40)(rng); break;
      case 3: x = std::uniform_int_distribution<int>(0, 3)(rng); break;  // many equal
      default:  // past 2^64 in total: the 128-bit lists
        x = int128(std::uniform_int_distribution<std::int64_t>(-(1LL << 62), 1LL << 62)(rng)) << 58;
        break;
    }
  }
  return w;
}

// A target some subset reaches, so windows around it are not empty.
int128 planted(std::mt19937_64& rng, const std::vector<int128>& w) {
  int128 t = 0;
  for (const int128 x : w)
    if (rng() & 1) t += x;
  return t;
}

TEST(EnumerateFour, SameSetAsBruteForce) {
  std::mt19937_64 rng(47);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = std::size_t(trial % 15);  // 0 .. 14: quarters of 0 items too
    const int kind = trial % 5;
    const std::vector<int128> w = random_weights(rng, n, kind);
    enumerate_request r;
    r.weights = &w;
    r.lo = planted(rng, w);
    r.hi = r.lo + (trial % 3 == 0 ? std::uniform_int_distribution<int>(0, 12)(rng) : 0);
    r.non_empty = trial % 7 == 0;
    if (r.non_empty) r.lo = r.hi = 0;
    if (trial % 4 == 1) r.max_items = n / 2;
    if (trial % 4 == 2) r.min_items = r.max_items = std::min<std::size_t>(n, 3);
    const std::vector<std::uint64_t> want = brute_force(r);
    enumerate_result got;
    EXPECT_EQ(four_masks(r, 1 + unsigned(trial % 2), &got), want) << "trial " << trial << " n " << n;
    EXPECT_TRUE(got.complete);
    EXPECT_FALSE(got.cancelled);
  }
}

TEST(EnumerateFour, SameSetAsTheMeetInTheMiddle) {
  std::mt19937_64 rng(4747);
  for (int trial = 0; trial < 24; ++trial) {
    const std::size_t n = 20 + std::size_t(trial % 9);
    const int kinds[3] = {1, 2, 4};  // small weights at n = 28 have millions of subsets: brute force covers them
    const std::vector<int128> w = random_weights(rng, n, kinds[trial % 3]);
    enumerate_request r;
    r.weights = &w;
    r.lo = planted(rng, w);
    r.hi = r.lo + (trial % 2);
    if (trial % 3 == 0) r.max_items = n / 3;
    std::vector<std::uint64_t> want;
    enumerate_subsets(r, [&](const std::vector<std::size_t>& items) {
      want.push_back(mask_of(items, n));
      return true;
    });
    std::sort(want.begin(), want.end());
    EXPECT_EQ(four_masks(r, 2), want) << "trial " << trial;
  }
}

TEST(EnumerateFour, EmptyWindowsAndWindowsPastTheTotal) {
  const std::vector<int128> w = {3, -5, 7, 11, 2};
  enumerate_request r;
  r.weights = &w;
  r.lo = 5, r.hi = 4;  // empty
  enumerate_result got;
  EXPECT_TRUE(four_masks(r, 2, &got).empty());
  EXPECT_TRUE(got.complete);
  r.lo = 24, r.hi = 1000000;  // past the total 23: clipped, nothing reachable
  EXPECT_TRUE(four_masks(r, 2, &got).empty());
  EXPECT_TRUE(got.complete);
  r.lo = 20, r.hi = int128(1) << 100;  // wide, but only 20..23 reachable: clipped to 4 values
  EXPECT_EQ(four_masks(r, 1), brute_force(r));
  r.lo = -(int128(1) << 120), r.hi = -4;  // below: clipped at -5
  EXPECT_EQ(four_masks(r, 1), brute_force(r));
}

TEST(EnumerateFour, RefusesAWideWindowManyItemsAndAPlanPastTheBudget) {
  std::vector<int128> w(40, 1000);
  enumerate_request r;
  r.weights = &w;
  r.lo = 0, r.hi = 5000;
  EXPECT_THROW(enumerate_subsets_four(r, 1, [](const auto&) { return true; }), std::invalid_argument);
  std::vector<int128> many(121, 1);
  r.weights = &many;
  r.lo = r.hi = 3;
  EXPECT_THROW(enumerate_subsets_four(r, 1, [](const auto&) { return true; }), std::invalid_argument);
  r.weights = &w;
  r.max_bytes = 1000;
  EXPECT_THROW(enumerate_subsets_four(r, 1, [](const auto&) { return true; }), ssum::insufficient_memory);
}

TEST(EnumerateFour, LimitLooksForOneMore) {
  std::vector<int128> w = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};  // every sum unique
  enumerate_request r;
  r.weights = &w;
  r.lo = r.hi = 1000;
  r.limit = 1;
  enumerate_result got;
  EXPECT_EQ(four_masks(r, 2, &got).size(), 1u);
  EXPECT_TRUE(got.complete) << "unique: nothing more to find";
  w.push_back(1000);  // a second way
  r.limit = 1;
  EXPECT_EQ(four_masks(r, 2, &got).size(), 1u);
  EXPECT_FALSE(got.complete);
  r.limit = 2;
  EXPECT_EQ(four_masks(r, 2, &got).size(), 2u);
  EXPECT_TRUE(got.complete);
  r.limit = 0;
  r.lo = r.hi = 5000;
  EXPECT_EQ(four_masks(r, 2, &got), brute_force(r));
}

TEST(EnumerateFour, CallbackStopsAndItsExceptionComesBack) {
  std::vector<int128> w(16, 0);  // 2^16 subsets sum to 0
  enumerate_request r;
  r.weights = &w;
  std::uint64_t calls = 0;
  enumerate_result got = enumerate_subsets_four(r, 2, [&](const auto&) { return ++calls < 10; });
  EXPECT_EQ(calls, 10u);
  EXPECT_EQ(got.listed, 10u);
  EXPECT_FALSE(got.complete);
  calls = 0;
  EXPECT_THROW(enumerate_subsets_four(r, 2,
                                      [&](const auto&) -> bool {
                                        if (++calls == 5) throw std::runtime_error("the caller's");
                                        return true;
                                      }),
               std::runtime_error);
  EXPECT_EQ(calls, 5u);
}

TEST(EnumerateFour, CancelBeforeOrDuring) {
  std::vector<int128> w(36, 0);
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = int128(1) << (k % 20);
  enumerate_request r;
  r.weights = &w;
  r.lo = r.hi = 123457;
  std::atomic<bool> cancel{true};
  r.cancel = &cancel;
  enumerate_result got = enumerate_subsets_four(r, 2, [](const auto&) { return true; });
  EXPECT_TRUE(got.cancelled);
  EXPECT_FALSE(got.complete);
  cancel = false;
  std::uint64_t calls = 0;
  got = enumerate_subsets_four(r, 2, [&](const auto&) {
    if (++calls == 3) cancel = true;
    return true;
  });
  EXPECT_TRUE(got.cancelled);
  EXPECT_FALSE(got.complete);
  EXPECT_GE(got.listed, 3u);
}

TEST(EnumerateFour, ZeroSumSkipsOnlyTheEmptySubset) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const std::vector<int128> w = random_weights(rng, 4 + std::size_t(trial % 11), 0);
    enumerate_request r;
    r.weights = &w;
    r.non_empty = true;
    EXPECT_EQ(four_masks(r, 2), brute_force(r)) << "trial " << trial;
  }
}

}  // namespace

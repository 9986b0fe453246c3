// The host meet in the middle handing its subsets as packed half masks (enumerate_pairs), against
// the index listing (enumerate_subsets) and brute force: the same subsets in the same order, the
// same limit and completeness, the sink's stop and cancel, every stretch size.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "enumerate_checks.hpp"
#include "solver/two_list/enumerate.hpp"

namespace {

using namespace enumerate_checks;
using ssum::int128;
using ssum::detail::enumerate_pairs;
using ssum::detail::enumerate_request;
using ssum::detail::enumerate_result;
using ssum::detail::enumerate_subsets;
using ssum::detail::pairs_handed;

// A pair (a's mask | b's mask << 32, the halves split at n / 2) as a mask over the n items.
std::uint64_t unpacked(std::uint64_t pair, std::size_t n) {
  return (pair & 0xffffffffu) | (pair >> 32) << (n / 2);
}

// The masks enumerate_pairs hands out, in order, with the stretches' sizes.
std::vector<std::uint64_t> paired_masks(const enumerate_request& r, std::uint64_t stretch, enumerate_result* result,
                                        std::vector<std::size_t>* stretches = nullptr) {
  std::vector<std::uint64_t> masks;
  const enumerate_result got = enumerate_pairs(r, stretch, [&](std::span<std::uint64_t> pairs) {
    EXPECT_GE(pairs.size(), 1u);
    EXPECT_LE(pairs.size(), std::max<std::uint64_t>(1, stretch));
    if (stretches) stretches->push_back(pairs.size());
    for (const std::uint64_t p : pairs) masks.push_back(unpacked(p, r.weights->size()));
    return pairs_handed{pairs.size(), true};
  });
  EXPECT_EQ(got.listed, masks.size());
  if (result) *result = got;
  return masks;
}

std::vector<std::uint64_t> indexed_masks(const enumerate_request& r, enumerate_result* result) {
  return listed_masks(r, [](const enumerate_request& q, const auto& f) { return enumerate_subsets(q, f); }, result);
}

std::vector<int128> random_weights(std::mt19937_64& rng, std::size_t n, bool wide) {
  std::vector<int128> w(n);
  for (auto& x : w) {
    x = wide ? int128(std::uniform_int_distribution<std::int64_t>(-(1LL << 62), 1LL << 62)(rng)) << 58
             : int128(std::uniform_int_distribution<int>(-6, 40)(rng));
  }
  return w;
}

// Every subset of small weights (|w| <= 40, n <= 16): a window past every sum on both sides.
enumerate_request whole_window(const std::vector<int128>& w) {
  query everything;
  everything.lo = -1000;
  everything.hi = 1000;
  return request_for(w, everything);
}

TEST(EnumeratePairs, SameSubsetsInTheSameOrderAsTheIndexListing) {
  std::mt19937_64 rng(20261207);
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = rng() % 17;  // 0 and 1 item too
    const std::vector<int128> w = random_weights(rng, n, round % 5 == 4);
    enumerate_request r = request_for(w, random_query(rng, w));
    r.threads = 1 + round % 2;  // the halves built one after the other, or at once
    constexpr std::uint64_t stretches[] = {0, 1, 3, 64, 1 << 20};
    const std::uint64_t stretch = stretches[rng() % 5];
    enumerate_result by_index, by_pairs;
    const std::vector<std::uint64_t> expected = indexed_masks(r, &by_index);
    const std::vector<std::uint64_t> got = paired_masks(r, stretch, &by_pairs);
    ASSERT_EQ(got, expected) << "round " << round << ", n = " << n << ", stretch " << stretch;
    EXPECT_EQ(by_pairs.complete, by_index.complete);
    EXPECT_TRUE(by_pairs.complete);
    std::vector<std::uint64_t> sorted = got;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, brute_force(r)) << "round " << round;
  }
}

TEST(EnumeratePairs, StretchesAreFullButTheLast) {
  std::mt19937_64 rng(5);
  const std::vector<int128> w = random_weights(rng, 16, false);
  const enumerate_request r = whole_window(w);
  for (const std::uint64_t stretch : {1u, 7u, 1000u, 65536u, 65537u}) {
    std::vector<std::size_t> stretches;
    enumerate_result result;
    const std::vector<std::uint64_t> got = paired_masks(r, stretch, &result, &stretches);
    ASSERT_EQ(got.size(), std::size_t{1} << 16);
    for (std::size_t k = 0; k + 1 < stretches.size(); ++k) EXPECT_EQ(stretches[k], stretch);
    EXPECT_TRUE(result.complete);
  }
}

TEST(EnumeratePairs, LimitAsTheIndexListingHasIt) {
  std::mt19937_64 rng(11);
  const std::vector<int128> w = random_weights(rng, 14, false);
  query q;
  q.lo = 30;
  q.hi = 40;
  q.min_items = 3;  // a size bound below the larger half: the sized lists too
  q.max_items = 5;
  const std::size_t all = brute_force(w, q).size();
  ASSERT_GT(all, 3u);
  for (const std::uint64_t limit : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t(all - 1), std::uint64_t(all),
                                    std::uint64_t(all + 1)}) {
    enumerate_request r = request_for(w, q);
    r.limit = limit;
    enumerate_result by_index, by_pairs;
    const std::vector<std::uint64_t> expected = indexed_masks(r, &by_index);
    const std::vector<std::uint64_t> got = paired_masks(r, 4, &by_pairs);
    EXPECT_EQ(got, expected) << "limit " << limit;
    EXPECT_EQ(by_pairs.complete, by_index.complete) << "limit " << limit;
    EXPECT_EQ(by_pairs.complete, limit >= all) << "limit " << limit;
  }
}

TEST(EnumeratePairs, SinkStoppingPartWayEndsTheListing) {
  std::mt19937_64 rng(3);
  const std::vector<int128> w = random_weights(rng, 16, false);
  const enumerate_request r = whole_window(w);
  int calls = 0;
  const enumerate_result got = enumerate_pairs(r, 100, [&](std::span<std::uint64_t> pairs) {
    ++calls;
    return calls == 3 ? pairs_handed{pairs.size() / 2, false} : pairs_handed{pairs.size(), true};
  });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(got.listed, 250u);  // two whole stretches and half of the third
  EXPECT_FALSE(got.complete);
  EXPECT_FALSE(got.cancelled);
}

TEST(EnumeratePairs, CancelHandsOutWhatWasFoundAndStops) {
  std::mt19937_64 rng(9);
  const std::vector<int128> w = random_weights(rng, 40, false);
  query wide;
  wide.lo = -100000;
  wide.hi = 100000;  // every one of the 2^40 subsets: far more than a cancel lets through
  std::atomic<bool> cancel{false};
  enumerate_request r = request_for(w, wide);
  r.cancel = &cancel;
  r.threads = 2;
  std::uint64_t handed = 0;
  const enumerate_result got = enumerate_pairs(r, 1 << 12, [&](std::span<std::uint64_t> pairs) {
    for (const std::uint64_t p : pairs) EXPECT_TRUE(sum_of(w, unpacked(p, w.size())) >= wide.lo);
    handed += pairs.size();
    if (handed >= (1u << 16)) cancel.store(true);
    return pairs_handed{pairs.size(), true};
  });
  EXPECT_TRUE(got.cancelled);
  EXPECT_FALSE(got.complete);
  EXPECT_EQ(got.listed, handed);
  EXPECT_LT(handed, std::uint64_t{1} << 22);  // stopped within a few polls, not at the end

  cancel.store(true);  // raised before the call: nothing built, nothing handed
  std::uint64_t after = 0;
  const enumerate_result early = enumerate_pairs(r, 64, [&](std::span<std::uint64_t> pairs) {
    after += pairs.size();
    return pairs_handed{pairs.size(), true};
  });
  EXPECT_TRUE(early.cancelled);
  EXPECT_EQ(after, 0u);
}

}  // namespace

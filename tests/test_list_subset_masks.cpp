// ssum::list_subset_masks against ssum::list_subsets: the same subsets in the same order, the
// same listed, complete and plan, on random instances (signed weights, windows, zero-sum, size
// bounds, limits, each named enumerator, plans that take the complement), on_masks stopping
// the listing, cancel, and the edges of the mask: 0, 1 and 64 items listed, 65 refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "solver/subset_masks.hpp"
#include "ssum/errors.hpp"
#include "ssum/int128.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;

struct run {
  ssum::listing summary;
  std::vector<std::uint64_t> masks;
  std::string error;  // what the listing threw, if it did
};

std::uint64_t mask_of(const std::vector<std::size_t>& s) {
  std::uint64_t m = 0;
  for (const std::size_t i : s) m |= std::uint64_t(1) << i;
  return m;
}

run by_subsets(const ssum::problem& p, const ssum::listing_options& o) {
  run out;
  try {
    out.summary = ssum::list_subsets(ssum::backend::cpu, 2, p, o, [&](const std::vector<std::size_t>& s) {
      out.masks.push_back(mask_of(s));
      return true;
    });
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

run by_masks(const ssum::problem& p, const ssum::listing_options& o) {
  run out;
  try {
    out.summary = ssum::list_subset_masks(ssum::backend::cpu, 2, p, o, [&](std::span<const std::uint64_t> batch) {
      EXPECT_FALSE(batch.empty());
      out.masks.insert(out.masks.end(), batch.begin(), batch.end());
      return true;
    });
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

void expect_same(const ssum::problem& p, const ssum::listing_options& o, const std::string& what) {
  const run want = by_subsets(p, o), got = by_masks(p, o);
  ASSERT_EQ(got.error, want.error) << what;
  if (want.summary.algorithm != "four-list") {
    EXPECT_EQ(got.masks, want.masks) << what;  // the same enumerator: the same order too
  } else {
    // The four-list's threads take residue classes as they come: the order (and, under a
    // limit, which subsets) varies; each one must be one of the full listing's.
    ssum::listing_options every = o;
    every.limit = 0;
    std::vector<std::uint64_t> all = by_subsets(p, every).masks, mine = got.masks;
    std::sort(all.begin(), all.end());
    std::sort(mine.begin(), mine.end());
    EXPECT_TRUE(std::includes(all.begin(), all.end(), mine.begin(), mine.end())) << what;
    EXPECT_EQ(mine.size(), want.masks.size()) << what;
    if (o.limit == 0) EXPECT_EQ(mine, all) << what;
  }
  EXPECT_EQ(got.summary.listed, want.summary.listed) << what;
  EXPECT_EQ(got.summary.listed, got.masks.size()) << what;
  EXPECT_EQ(got.summary.complete, want.summary.complete) << what;
  EXPECT_EQ(got.summary.plan.reason, want.summary.plan.reason) << what;
  EXPECT_EQ(got.summary.algorithm, want.summary.algorithm) << what;
}

ssum::problem random_problem(std::mt19937_64& rng, std::size_t n, std::int64_t top, bool is_signed, bool zero_sum) {
  ssum::problem p;
  int128 t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    p.weights.push_back(std::uniform_int_distribution<std::int64_t>(is_signed ? -top : 1, top)(rng));
    if (rng() & 1) t += p.weights.back();
  }
  if (!zero_sum) p.target = t;
  return p;
}

TEST(ListSubsetMasks, MatchesListSubsetsOnRandomInstances) {
  std::mt19937_64 rng(7);
  const ssum::algorithm algos[] = {ssum::algorithm::automatic, ssum::algorithm::two_list, ssum::algorithm::four_list,
                                   ssum::algorithm::dynamic_programming};
  int compared = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 2 + std::size_t(trial) % 19;  // 2 .. 20
    const bool zero_sum = trial % 5 == 4;
    const ssum::problem p = random_problem(rng, n, trial % 2 ? 30 : 5000, trial % 3 != 0, zero_sum);
    ssum::listing_options o;
    if (!zero_sum && trial % 4 >= 2) o.high = *p.target + int128(rng() % 200);
    if (trial % 6 == 1) o.min_items = n / 3, o.max_items = n / 2;
    if (trial % 6 == 3) o.min_items = n - 3;  // near n: the complement may be taken
    for (const ssum::algorithm algo : algos) {
      o.algo = algo;
      for (const std::uint64_t limit : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(2)}) {
        o.limit = limit;
        expect_same(p, o, "trial " + std::to_string(trial) + " algorithm " + std::to_string(int(algo)) + " limit " +
                              std::to_string(limit));
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 40 * 4 * 3);
}

TEST(ListSubsetMasks, ComplementPlansAreMappedBack) {
  std::mt19937_64 rng(11);
  int complemented = 0;
  for (int trial = 0; trial < 16; ++trial) {
    const std::size_t n = 14 + std::size_t(trial) % 7;
    ssum::problem p = random_problem(rng, n, trial % 2 ? 50 : 900, trial % 4 >= 2, false);
    int128 total = 0;
    for (const int128 w : p.weights) total += w;
    p.target = total - p.weights[rng() % n] - p.weights[rng() % n];
    ssum::listing_options o;
    o.min_items = n - 3;
    o.max_items = n - 1 - std::size_t(trial) % 2;
    if (trial % 3 == 2) o.high = *p.target + 25;
    for (const std::uint64_t limit : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(2)}) {
      o.limit = limit;
      expect_same(p, o, "trial " + std::to_string(trial) + " limit " + std::to_string(limit));
    }
    o.limit = 0;
    complemented += by_masks(p, o).summary.plan.reason.find("complement was taken") != std::string::npos;
  }
  EXPECT_GE(complemented, 8);
}

// Many subsets (more than one host batch): on_masks returning false ends the listing after
// that batch, incomplete; a limit cuts the last batch.
TEST(ListSubsetMasks, OnMasksReturningFalseStops) {
  ssum::problem p;
  p.weights.assign(22, 1);
  p.target = 11;  // C(22, 11) = 705432 subsets
  ssum::listing_options o;
  int calls = 0;
  std::uint64_t got = 0;
  const ssum::listing l = ssum::list_subset_masks(ssum::backend::cpu, 2, p, o, [&](std::span<const std::uint64_t> b) {
    ++calls;
    got += b.size();
    return false;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(l.listed, got);
  EXPECT_GT(got, 0u);
  EXPECT_FALSE(l.complete);
  o.limit = 5000;
  got = 0;
  const ssum::listing some = ssum::list_subset_masks(ssum::backend::cpu, 2, p, o, [&](std::span<const std::uint64_t> b) {
    for (const std::uint64_t m : b) EXPECT_EQ(__builtin_popcountll(m), 11);
    got += b.size();
    return true;
  });
  EXPECT_EQ(got, 5000u);
  EXPECT_EQ(some.listed, 5000u);
  EXPECT_FALSE(some.complete);
}

// Cancel throws listing_interrupted after what was handed out: every buffered mask went out
// before the throw, and so_far counts them.
TEST(ListSubsetMasks, CancelThrowsAfterTheBatchesHandedOut) {
  ssum::problem p;
  p.weights.assign(24, 1);
  p.target = 12;
  std::atomic<bool> cancel{false};
  ssum::listing_options o;
  o.cancel = &cancel;
  std::uint64_t got = 0;
  try {
    ssum::list_subset_masks(ssum::backend::cpu, 2, p, o, [&](std::span<const std::uint64_t> b) {
      got += b.size();
      if (got >= 10000) cancel = true;
      return true;
    });
    FAIL() << "no listing_interrupted";
  } catch (const ssum::listing_interrupted& e) {
    EXPECT_EQ(e.so_far.listed, got);
    EXPECT_FALSE(e.so_far.complete);
    EXPECT_GE(got, 10000u);
  }
}

TEST(ListSubsetMasks, NoItemsOneItemSixtyFourAndSixtyFive) {
  ssum::problem none;
  none.target = 0;
  expect_same(none, {}, "n = 0");
  EXPECT_EQ(by_masks(none, {}).masks, std::vector<std::uint64_t>{0});  // the empty subset sums to 0
  ssum::problem one;
  one.weights = {5};
  one.target = 5;
  EXPECT_EQ(by_masks(one, {}).masks, std::vector<std::uint64_t>{1});
  one.target = 0;
  ssum::listing_options window;
  window.high = 5;
  expect_same(one, window, "n = 1, window [0, 5]");
  EXPECT_EQ(by_masks(one, window).masks.size(), 2u);

  std::mt19937_64 rng(64);
  ssum::problem big;
  for (int i = 0; i < 64; ++i) big.weights.push_back(std::uniform_int_distribution<std::int64_t>(-1000000, 1000000)(rng));
  big.target = big.weights[3] + big.weights[63];
  ssum::listing_options two;
  two.min_items = two.max_items = 2;
  expect_same(big, two, "n = 64, two items");
  EXPECT_GE(by_masks(big, two).masks.size(), 1u);
  int128 total = 0;
  for (const int128 w : big.weights) total += w;
  big.target = total - big.weights[0] - big.weights[63];  // 62 items: bit 63's complement
  ssum::listing_options many;
  many.min_items = 62;
  expect_same(big, many, "n = 64, 62 items");
  const run far = by_masks(big, many);
  ASSERT_GE(far.masks.size(), 1u);
  EXPECT_NE(far.summary.plan.reason.find("complement was taken"), std::string::npos);

  big.weights.push_back(1);
  EXPECT_THROW(ssum::list_subset_masks(ssum::backend::cpu, 2, big, two,
                                       [](std::span<const std::uint64_t>) { return true; }),
               ssum::instance_refused);
  EXPECT_EQ(by_subsets(big, two).error, "");  // list_subsets takes it
}

// The refusals list_subsets makes, made alike.
TEST(ListSubsetMasks, RefusesAsListSubsetsDoes) {
  ssum::problem p;
  p.weights = {1, 2, 3};
  ssum::listing_options o;
  o.high = 3;  // a window on a zero-sum instance
  expect_same(p, o, "zero-sum with a window");
  EXPECT_NE(by_masks(p, o).error, "");
  p.target = 3;
  o = {};
  o.min_items = 3, o.max_items = 2;
  expect_same(p, o, "sizes the wrong way round");
  o = {};
  o.algo = ssum::algorithm::completion_search;
  expect_same(p, o, "the completion search");
}

// The device path's conversion without a device: pairs mask_a | mask_b << 32 become item
// masks (mask_b shifted to n/2), flipped back when the complement was listed, verified (one
// thread and a team past 2^15), handed on as one batch; a pair outside the window throws.
TEST(ListSubsetMasks, DevicePairsBecomeItemMasks) {
  std::mt19937_64 rng(3);
  const std::size_t n = 41, h = n / 2;
  std::vector<int128> w;
  for (std::size_t i = 0; i < n; ++i) w.push_back(std::uniform_int_distribution<std::int64_t>(-50, 1000)(rng));
  int128 total = 0;
  for (const int128 x : w) total += x;
  for (const bool complemented : {false, true}) {
    for (const std::size_t count : {std::size_t(1000), std::size_t(1) << 16}) {
      std::vector<std::uint64_t> pairs, want;
      int128 lo = total, hi = -total;
      for (std::size_t k = 0; k < count; ++k) {
        const std::uint64_t a = rng() & ((std::uint64_t(1) << h) - 1), b = rng() & ((std::uint64_t(1) << (n - h)) - 1);
        pairs.push_back(a | b << 32);
        const std::uint64_t listed = a | b << h, mask = complemented ? listed ^ ((std::uint64_t(1) << n) - 1) : listed;
        want.push_back(mask);
        int128 s = 0;
        for (std::size_t i = 0; i < n; ++i)
          if (mask >> i & 1) s += w[i];
        lo = std::min(lo, s), hi = std::max(hi, s);
      }
      const ssum::detail::mask_verifier v(w, lo, hi, 0, n, false);
      std::vector<std::uint64_t> got;
      const std::function<bool(std::span<const std::uint64_t>)> take = [&](std::span<const std::uint64_t> b) {
        got.assign(b.begin(), b.end());
        return true;
      };
      ssum::detail::mask_receiver r(take, v, complemented, 2);
      std::vector<std::uint64_t> batch = pairs;
      EXPECT_TRUE(r.pairs(batch, h));
      EXPECT_EQ(got, want);
      // A window one short of the largest sum: that mask is refused.
      const ssum::detail::mask_verifier narrow(w, lo, hi - 1, 0, n, false);
      ssum::detail::mask_receiver strict(take, narrow, complemented, 2);
      batch = pairs;
      EXPECT_THROW(strict.pairs(batch, h), std::logic_error);
    }
  }
}

}  // namespace

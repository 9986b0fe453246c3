// ssum::list_subsets' plan: the meet in the middle where its lists fit and it is expected
// sooner, the four-list for narrow windows where the lists do not fit (or cost more), a clear
// refusal where neither can take the instance; the listing each plan hands out against the
// enumerator run directly, every subset re-summed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "solver/two_list/enumerate.hpp"
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

}  // namespace

// The meet in the middle's listing on the device (solver/two_list/enumerate_cuda.hpp) against
// the host's (enumerate_subsets): the same subsets in the same order, the same `complete` and
// `listed` under limits, size bounds, zero-sum, signed weights and windows, at batch sizes that
// put pair boundaries everywhere; counts past 2^32 pairs; the sums' 2^63 edge; and
// ssum::list_subsets and ssum::list_subset_masks with backend::cuda. Skipped without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "solver/two_list/enumerate.hpp"
#include "solver/two_list/enumerate_cuda.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/errors.hpp"
#include "ssum/explain.hpp"
#include "ssum/generate.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;
using subsets = std::vector<std::vector<std::size_t>>;
#define SKIP_WITHOUT_DEVICE() \
  if (ssum::cuda_devices().empty()) GTEST_SKIP() << "no CUDA device present: the GPU listing not exercised"

struct run {
  subsets listed;
  ssum::detail::enumerate_result result;
};

// stop_after: on_subset returns false on that call (0: never).
run on_host(const ssum::detail::enumerate_request& r, std::size_t stop_after = 0) {
  run out;
  out.result = ssum::detail::enumerate_subsets(r, [&](const std::vector<std::size_t>& s) {
    out.listed.push_back(s);
    return stop_after == 0 || out.listed.size() < stop_after;
  });
  return out;
}

run on_device(const ssum::detail::enumerate_request& r, const ssum::detail::enumerate_cuda_tuning& t,
              std::size_t stop_after = 0) {
  run out;
  out.result = ssum::detail::enumerate_subsets_cuda(0, r, [&](const std::vector<std::size_t>& s) {
    out.listed.push_back(s);
    return stop_after == 0 || out.listed.size() < stop_after;
  }, t);
  return out;
}

// The host lists in the device's order, (sum, mask) of the first half then of the second,
// except under a size bound that drops subsets of the larger half: it then walks its lists by
// size, and the two are compared as sets (every subset the device lists is one the host lists,
// as many, `complete` alike).
void expect_same(const ssum::detail::enumerate_request& r, const std::string& what, std::size_t stop_after = 0) {
  const run host = on_host(r, stop_after);
  const std::size_t n = r.weights->size();
  const bool same_order = std::min(r.max_items, n) >= n - n / 2;
  ssum::detail::enumerate_request unlimited = r;
  unlimited.limit = 0;
  run every = on_host(unlimited);
  std::sort(every.listed.begin(), every.listed.end());
  // Batches of 1, 3 and 64 pairs at most, and the default doubling from 4096.
  for (const std::uint64_t largest : {std::uint64_t(1), std::uint64_t(3), std::uint64_t(64), std::uint64_t(1) << 24}) {
    ssum::detail::enumerate_cuda_tuning t;
    t.first_batch = largest < 4096 ? 1 : 4096;
    t.largest_batch = largest;
    const run dev = on_device(r, t, stop_after);
    if (same_order) {
      ASSERT_EQ(dev.listed, host.listed) << what << ", batches up to " << largest;
    } else {
      for (const auto& s : dev.listed)
        ASSERT_TRUE(std::binary_search(every.listed.begin(), every.listed.end(), s)) << what << ": not a host subset";
      if (r.limit == 0 && stop_after == 0) {
        subsets sorted = dev.listed;
        std::sort(sorted.begin(), sorted.end());
        ASSERT_EQ(sorted, every.listed) << what << ", batches up to " << largest;
      }
    }
    EXPECT_EQ(dev.result.listed, host.result.listed) << what;
    EXPECT_EQ(dev.result.complete, host.result.complete) << what;
    EXPECT_FALSE(dev.result.cancelled) << what;
  }
}

TEST(CudaEnumerate, MatchesTheHostOnRandomInstances) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 120; ++trial) {
    const std::size_t n = trial < 4 ? std::size_t(trial) : 1 + rng() % 18;
    std::vector<int128> w(n);
    const std::int64_t span = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 40 : 1000000;
    for (auto& x : w) x = int128(std::int64_t(rng() % (2 * span + 1)) - (trial % 2 ? span : 0));
    ssum::detail::enumerate_request r;
    r.weights = &w;
    int128 total = 0;
    for (const int128 x : w) total += x;
    r.lo = int128(std::int64_t(rng() % (2 * span + 1)) - span) + (n ? total / 2 : 0);
    r.hi = r.lo + int128(std::int64_t(rng() % 5) * (span > 100 ? span / 10 : 1));
    r.non_empty = trial % 7 == 0;
    if (trial % 5 == 1) r.min_items = rng() % (n + 1);
    if (trial % 5 == 2) r.max_items = rng() % (n + 1);
    if (trial % 4 == 3) r.limit = 1 + rng() % 3;
    const std::string what = "trial " + std::to_string(trial) + ", n = " + std::to_string(n);
    expect_same(r, what);
    if (::testing::Test::HasFatalFailure()) return;
    expect_same(r, what + ", stopped by the caller after 2", 2);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Many subsets (weights 1..6, the middle sum): thousands of pairs across many batches; a zero
// weight and the empty subset under zero-sum.
TEST(CudaEnumerate, ManyPairsAcrossBatches) {
  SKIP_WITHOUT_DEVICE();
  std::vector<int128> w;
  for (int i = 0; i < 21; ++i) w.push_back(1 + i % 6);
  w[4] = 0;
  ssum::detail::enumerate_request r;
  r.weights = &w;
  r.lo = r.hi = 35;
  expect_same(r, "weights 1..6, target 35");
  std::vector<int128> zero_sum = {3, -3, 0, 5, -2, -3, 1, 4, -4, 2, -1, 0, 7, -7};
  r.weights = &zero_sum;
  r.lo = r.hi = 0;
  r.non_empty = true;
  expect_same(r, "zero-sum");
}

// Sums at the 2^63 edge: the weights' magnitudes add up to 2^63 - 1, windows at both ends.
TEST(CudaEnumerate, SumsAtTheTwoToThe63Edge) {
  SKIP_WITHOUT_DEVICE();
  const int128 big = int128(1) << 61;
  // 7 x 2^60 - 1 - 7 + 3 + 5 and 2^60 - 1 more: 2^63 - 1.
  std::vector<int128> w = {big, big - 1, -(big - 7), big / 2, -3, 5, big / 2 - 1};
  int128 magnitude = 0;
  for (const int128 x : w) magnitude += x < 0 ? -x : x;
  ASSERT_EQ(magnitude, (int128(1) << 63) - 1);
  ssum::detail::enumerate_request r;
  r.weights = &w;
  int128 least = 0, most = 0;
  for (const int128 x : w) (x < 0 ? least : most) += x;
  for (const auto& window : std::vector<std::pair<int128, int128>>{
           {most, most}, {least, least}, {most - big, most}, {least, least + big}, {-(int128(1) << 100), int128(1) << 100},
           {0, 0}, {most + 1, most + 5}}) {
    r.lo = window.first;
    r.hi = window.second;
    expect_same(r, "window " + ssum::to_string(r.lo) + " to " + ssum::to_string(r.hi));
  }
  std::vector<int128> too_wide = {int128(1) << 62, int128(1) << 62};
  EXPECT_FALSE(ssum::detail::enumerate_cuda_refusal(too_wide).empty());
  std::vector<int128> too_many(61, 1);
  EXPECT_FALSE(ssum::detail::enumerate_cuda_refusal(too_many).empty());
  r.weights = &too_many;
  EXPECT_THROW(on_device(r, {}), std::invalid_argument);
}

// 2^40 pairs of zero weights sum to 0: the running counts pass 2^32 and the listing stops at
// its limit, knowing more exist.
TEST(CudaEnumerate, CountsPastTwoToThe32Pairs) {
  SKIP_WITHOUT_DEVICE();
  std::vector<int128> w(40, 0);
  ssum::detail::enumerate_request r;
  r.weights = &w;
  r.limit = 1000;
  const run dev = on_device(r, {});
  EXPECT_EQ(dev.result.listed, 1000u);
  EXPECT_FALSE(dev.result.complete);
  const run host = on_host(r);
  EXPECT_EQ(dev.listed, host.listed);
}

TEST(CudaEnumerate, CancelStopsTheListing) {
  SKIP_WITHOUT_DEVICE();
  std::vector<int128> w(36, 0);
  ssum::detail::enumerate_request r;
  r.weights = &w;
  std::atomic<bool> cancel{false};
  r.cancel = &cancel;
  std::uint64_t seen = 0;
  const auto res = ssum::detail::enumerate_subsets_cuda(0, r, [&](const std::vector<std::size_t>&) {
    if (++seen == 100000) cancel = true;
    return true;
  });
  EXPECT_TRUE(res.cancelled);
  EXPECT_FALSE(res.complete);
  EXPECT_LT(res.listed, 200000u);
  cancel = true;  // raised before the start: nothing is formed
  seen = 0;
  const auto before = ssum::detail::enumerate_subsets_cuda(0, r, [&](const std::vector<std::size_t>&) { return ++seen, true; });
  EXPECT_TRUE(before.cancelled);
  EXPECT_EQ(seen, 0u);
}

// The public door: backend::cuda lists by the device's two-list, the subsets equal the host's
// as a set (the host may have planned another enumerator), each verified by list_subsets; and
// explain_listing names the same plan.
TEST(CudaEnumerate, ListSubsetsOnTheDevice) {
  SKIP_WITHOUT_DEVICE();
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const ssum::problem p = ssum::generate("planted", 30, 20, seed);
    ssum::listing_options o;
    subsets dev, host;
    const ssum::listing l = ssum::list_subsets(ssum::backend::cuda, 0, p, o, [&](const std::vector<std::size_t>& s) {
      dev.push_back(s);
      return true;
    });
    EXPECT_EQ(l.backend, "cuda");
    EXPECT_EQ(l.algorithm, "two-list");
    EXPECT_TRUE(l.complete);
    ssum::list_subsets(ssum::backend::cpu, 0, p, o, [&](const std::vector<std::size_t>& s) {
      host.push_back(s);
      return true;
    });
    std::sort(dev.begin(), dev.end());
    std::sort(host.begin(), host.end());
    EXPECT_EQ(dev, host) << "seed " << seed;
    EXPECT_GE(dev.size(), 1u);
    const ssum::plan_table t = ssum::explain_listing(ssum::backend::cuda, 0, p, o);
    EXPECT_EQ(t.chosen.backend, "cuda");
    EXPECT_EQ(t.chosen.reason, l.plan.reason);
  }
  ssum::listing_options dp;
  dp.algo = ssum::algorithm::dynamic_programming;
  EXPECT_THROW(ssum::list_subsets(ssum::backend::cuda, 0, ssum::generate("planted", 20, 10, 1), dp,
                                  [](const std::vector<std::size_t>&) { return true; }),
               std::invalid_argument);
  // The memory limit caps the device's plan as it caps the host's: a plan beyond it is refused
  // before anything is allocated, on either backend and under automatic.
  ssum::listing_options tight;
  tight.memory_limit = 1;
  const ssum::problem p = ssum::generate("planted", 40, 30, 4);
  for (const ssum::backend b : {ssum::backend::cuda, ssum::backend::automatic}) {
    std::size_t calls = 0;
    EXPECT_THROW(ssum::list_subsets(b, 0, p, tight, [&](const std::vector<std::size_t>&) { return ++calls, true; }),
                 ssum::insufficient_memory);
    EXPECT_EQ(calls, 0u);
  }
}

// Near the device's size: 2^24 and 2^25 sums a half, a narrow window, against the host.
TEST(CudaEnumerate, LargeHalvesMatchTheHost) {
  SKIP_WITHOUT_DEVICE();
  const ssum::problem p = ssum::generate("planted", 49, 40, 5);
  ssum::detail::enumerate_request r;
  r.weights = &p.weights;
  r.lo = *p.target - 3000;
  r.hi = *p.target + 3000;
  expect_same(r, "n = 49, 40 bits");
}


// The bulk listing on the device: the masks of list_subsets on the same backend, in the same
// order, with the same listed and complete (limits 1 and 2, many masks across stretches, a size
// bound near n whose complement the plan may take), and the host's subsets as a set.
TEST(CudaEnumerate, ListSubsetMasksOnTheDevice) {
  SKIP_WITHOUT_DEVICE();
  const auto mask_of = [](const std::vector<std::size_t>& s) {
    std::uint64_t m = 0;
    for (const std::size_t i : s) m |= std::uint64_t(1) << i;
    return m;
  };
  const auto by_subsets = [&](ssum::backend b, const ssum::problem& p, const ssum::listing_options& o,
                              std::vector<std::uint64_t>& out) {
    return ssum::list_subsets(b, 0, p, o, [&](const std::vector<std::size_t>& s) {
      out.push_back(mask_of(s));
      return true;
    });
  };
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 12; ++trial) {
    const std::size_t n = 24 + std::size_t(trial) % 13;  // 24 .. 36
    const bool zero_sum = trial % 4 == 3;
    ssum::problem p;
    int128 t = 0;
    for (std::size_t i = 0; i < n; ++i) {
      p.weights.push_back(std::uniform_int_distribution<std::int64_t>(trial % 2 ? -400 : 1, 1000)(rng));
      if (rng() & 1) t += p.weights.back();
    }
    if (!zero_sum) p.target = t;
    ssum::listing_options o;
    if (!zero_sum && trial % 3 == 1) o.high = t + 50;
    if (trial % 6 == 2) o.min_items = n - 3;
    if (trial % 6 == 5) o.min_items = 3, o.max_items = n / 3;
    for (const std::uint64_t limit : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(2)}) {
      o.limit = limit;
      SCOPED_TRACE("trial " + std::to_string(trial) + " limit " + std::to_string(limit));
      std::vector<std::uint64_t> masks, want, host;
      const ssum::listing l = ssum::list_subset_masks(ssum::backend::cuda, 0, p, o, [&](std::span<const std::uint64_t> b) {
        masks.insert(masks.end(), b.begin(), b.end());
        return true;
      });
      const ssum::listing w = by_subsets(ssum::backend::cuda, p, o, want);
      EXPECT_EQ(l.backend, "cuda");
      EXPECT_EQ(masks, want);
      EXPECT_EQ(l.listed, w.listed);
      EXPECT_EQ(l.complete, w.complete);
      const ssum::listing h = by_subsets(ssum::backend::cpu, p, o, host);
      EXPECT_EQ(l.complete, h.complete);
      EXPECT_EQ(l.listed, h.listed);
      if (limit == 0) {
        std::sort(masks.begin(), masks.end());
        std::sort(host.begin(), host.end());
        EXPECT_EQ(masks, host);
      }
    }
  }
  // Millions of masks: several device batches and stretches, verified by a team of threads.
  const ssum::problem p = ssum::generate("planted", 34, 8, 6);
  ssum::listing_options o;
  int128 total = 0;
  for (const int128 x : p.weights) total += x;
  o.limit = 3'000'000;
  const ssum::problem wide{p.weights, total / 2 - 200};
  o.high = total / 2 + 200;
  std::vector<std::uint64_t> masks, want;
  std::size_t calls = 0;
  const ssum::listing l = ssum::list_subset_masks(ssum::backend::cuda, 4, wide, o, [&](std::span<const std::uint64_t> b) {
    masks.insert(masks.end(), b.begin(), b.end());
    return ++calls, true;
  });
  by_subsets(ssum::backend::cuda, wide, o, want);
  EXPECT_EQ(masks.size(), 3'000'000u);
  EXPECT_EQ(masks, want);
  EXPECT_GT(calls, 1u);
  EXPECT_FALSE(l.complete);
}

}  // namespace

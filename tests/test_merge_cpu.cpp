// Host merges and the equal-pairs search (ssum/merge.hpp, ssum/merge_path.hpp with ssum::cpu):
//   merge_path_split   every diagonal of small random inputs against a std::merge of tagged
//                      elements (which input each output came from);
//   merge_path_partition  every piece size, 1 to past the end, the same reference;
//   merge              against std::merge, bit for bit, for empty, tiny, lane-sized, very
//                      unequal and random lengths; int32/int64/uint32/uint64/float/double;
//                      ascending (ssum::less) and descending (ssum::greater); -0.0/+0.0 and NaN;
//   merge_by_key       stability: equal keys across inputs, values record their origin;
//   merge_generated    plus_constant and minus_reversed against materialised inputs;
//   find_pair_sum /    against brute force (n <= 300, many seeds, many duplicates, signed and
//   count_pair_sums    unsigned, values at the type's limits) and against a hash-map reference
//                      for 10^5 elements; targets with no, one and many pairs.
// Every case runs with 1, 2, 3 and 8 threads. Small inputs would run on one thread through
// the public API, so the detail functions are also called with grain 1 (a team for any size).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sorted_inputs.hpp"
#include "ssum/merge.hpp"
#include "ssum/pair_sum.hpp"
#include "ssum/merge_path.hpp"

namespace {

constexpr unsigned kThreads[] = {1, 2, 3, 8};

using ssum_test::outputs_from_a;
using ssum_test::same_bits;
using ssum_test::sorted_random;

template <class T>
struct merge_case {
  std::vector<T> a, b;
  std::string what;
};

// Every case against std::merge with the same comparator, bit for bit. The thread count is
// the outer loop (see check_pairs).
template <class T, class Compare = ssum::less>
void check_merges(const std::vector<merge_case<T>>& cases, Compare comp = {}) {
  std::vector<std::vector<T>> want;
  for (const merge_case<T>& c : cases) {
    want.emplace_back(c.a.size() + c.b.size());
    std::merge(c.a.begin(), c.a.end(), c.b.begin(), c.b.end(), want.back().begin(), comp);
  }
  for (unsigned th : kThreads) {
    for (std::size_t grain : {std::size_t(1), std::size_t(0)}) {  // 0: the public API
      for (std::size_t k = 0; k < cases.size(); ++k) {
        const std::vector<T>& a = cases[k].a;
        const std::vector<T>& b = cases[k].b;
        std::vector<T> got(want[k].size(), T(7));
        if (grain == 0) {
          ssum::merge(ssum::cpu{th}, a.data(), a.size(), b.data(), b.size(), got.data(), comp);
        } else {
          ssum::detail::cpu_merge(th, grain, a.data(), a.size(), b.data(), b.size(), got.data(), comp);
        }
        ASSERT_TRUE(same_bits(got, want[k])) << cases[k].what << " na=" << a.size() << " nb=" << b.size()
                                             << " threads=" << th << " grain=" << grain;
      }
    }
  }
}

// ---- merge_path_split --------------------------------------------------------------------

TEST(MergePathSplit, EveryDiagonalMatchesStdMerge) {
  std::mt19937_64 rng(1);
  for (int rep = 0; rep < 400; ++rep) {
    const std::size_t na = rng() % 21, nb = rng() % 21;
    const std::vector<int> a = sorted_random<int>(na, rng(), 6), b = sorted_random<int>(nb, rng(), 6);
    // Reference: merge (value, from_b) pairs by value only; std::merge is stable.
    std::vector<std::pair<int, int>> ta, tb, m(na + nb);
    for (int x : a) ta.push_back({x, 0});
    for (int x : b) tb.push_back({x, 1});
    std::merge(ta.begin(), ta.end(), tb.begin(), tb.end(), m.begin(),
               [](const auto& x, const auto& y) { return x.first < y.first; });
    std::size_t from_a = 0;
    const auto b_at = [&b](std::size_t j) { return b[j]; };
    for (std::size_t d = 0; d <= na + nb; ++d) {
      ASSERT_EQ(ssum::merge_path_split(a.data(), na, b_at, nb, d, ssum::less{}), from_a)
          << "rep=" << rep << " d=" << d;
      ASSERT_EQ(ssum::merge_path_split(a.begin(), na, b_at, nb, d, ssum::less{}), from_a);  // an iterator
      if (d < na + nb) from_a += m[d].second == 0;
    }
    EXPECT_EQ(ssum::merge_path_split(a.data(), na, b_at, nb, na + nb + 5, ssum::less{}), na);  // clamped
  }
}

TEST(MergePathSplit, DescendingAndTiesGoToA) {
  const std::vector<int> a = {9, 5, 5, 1}, b = {5, 5, 0};
  const auto b_at = [&b](std::size_t j) { return b[j]; };
  // merge: 9a 5a 5a 5b 5b 1a 0b
  const std::size_t want[] = {0, 1, 2, 3, 3, 3, 4, 4};
  for (std::size_t d = 0; d <= 7; ++d) EXPECT_EQ(ssum::merge_path_split(a.data(), 4, b_at, 3, d, ssum::greater{}), want[d]);
}

// ---- merge_path_partition ------------------------------------------------------------------

TEST(MergePathPartition, MatchesTaggedStdMergeForEveryPieceSize) {
  std::mt19937_64 rng(11);
  for (int rep = 0; rep < 40; ++rep) {
    const std::size_t na = rep % 7 == 0 ? 0 : rng() % 3000, nb = rep % 5 == 0 ? 0 : rng() % 3000;
    const std::vector<std::int64_t> a = sorted_random<std::int64_t>(na, rng(), rep % 2 ? 40 : 0),
                                    b = sorted_random<std::int64_t>(nb, rng(), rep % 2 ? 40 : 0);
    const std::vector<std::size_t> from_a = outputs_from_a(a, b, ssum::less{});
    const std::size_t total = na + nb;
    const auto b_at = [&b](std::size_t j) { return b[j]; };
    for (std::size_t piece : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(96), std::size_t(1000),
                              total + 1, total + 5}) {
      const std::size_t want_pieces = (total + piece - 1) / piece;
      for (unsigned th : kThreads) {
        std::vector<std::size_t> splits(want_pieces + 2, 12345);
        ASSERT_EQ(ssum::merge_path_partition(ssum::cpu{th}, a.data(), na, b_at, nb, piece, splits.data()), want_pieces);
        for (std::size_t k = 0; k <= want_pieces; ++k) {
          ASSERT_EQ(splits[k], from_a[std::min(k * piece, total)])
              << "rep " << rep << " na=" << na << " nb=" << nb << " piece " << piece << " k " << k;
        }
        EXPECT_EQ(splits[want_pieces + 1], 12345u) << "wrote past pieces + 1 entries";
      }
    }
  }
}

// Many pieces (a team of threads shares them), descending inputs, and the argument checks.
TEST(MergePathPartition, ManyPiecesDescendingAndBadArguments) {
  std::vector<std::uint32_t> a = sorted_random<std::uint32_t>(300000, 5, 1000),
                             b = sorted_random<std::uint32_t>(200001, 6, 1000);
  std::reverse(a.begin(), a.end());
  std::reverse(b.begin(), b.end());
  const std::vector<std::size_t> from_a = outputs_from_a(a, b, ssum::greater{});
  const auto b_at = [&b](std::size_t j) { return b[j]; };
  const std::size_t total = a.size() + b.size(), piece = 5, pieces = (total + piece - 1) / piece;
  for (unsigned th : kThreads) {
    std::vector<std::size_t> splits(pieces + 1);
    ASSERT_EQ(ssum::merge_path_partition(ssum::cpu{th}, a.data(), a.size(), b_at, b.size(), piece, splits.data(),
                                         ssum::greater{}),
              pieces);
    for (std::size_t k = 0; k <= pieces; ++k) ASSERT_EQ(splits[k], from_a[std::min(k * piece, total)]) << k;
  }
  std::size_t one = 0;
  EXPECT_THROW(ssum::merge_path_partition(ssum::cpu{}, a.data(), a.size(), b_at, b.size(), 0, &one),
               std::invalid_argument);
  EXPECT_THROW(ssum::merge_path_partition(ssum::cpu{}, a.data(), a.size(), b_at, b.size(), 4, nullptr),
               std::invalid_argument);
  // Empty inputs: no pieces, one split.
  EXPECT_EQ(ssum::merge_path_partition(ssum::cpu{}, a.data(), 0, b_at, 0, 3, &one), 0u);
  EXPECT_EQ(one, 0u);
}

// ---- merge, typed ------------------------------------------------------------------------

template <class T>
class MergeTyped : public ::testing::Test {};
using MergeTypes = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(MergeTyped, MergeTypes);

TYPED_TEST(MergeTyped, FixedSizes) {
  using T = TypeParam;
  const std::pair<std::size_t, std::size_t> sizes[] = {{0, 0},       {0, 1000},    {1000, 0},     {1, 1},
                                                       {1023, 1025}, {4095, 4097}, {1000007, 1000}, {1000, 1000007},
                                                       {3, 70000},   {70001, 2}};
  std::uint64_t seed = 10;
  std::vector<merge_case<T>> cases;
  for (auto [na, nb] : sizes) {
    for (std::uint64_t range : {std::uint64_t(0), std::uint64_t(50)}) {  // distinct-ish, and many ties
      std::vector<T> a = sorted_random<T>(na, ++seed, range);
      std::vector<T> b = sorted_random<T>(nb, ++seed, range);
      cases.push_back({std::move(a), std::move(b), "range=" + std::to_string(range)});
    }
  }
  check_merges(cases);
}

TYPED_TEST(MergeTyped, RandomLengths) {
  using T = TypeParam;
  std::mt19937_64 rng(2);
  std::vector<merge_case<T>> cases;
  for (int rep = 0; rep < 25; ++rep) {
    const std::size_t cap = rep < 20 ? 3000 : 150000;
    const std::size_t na = rng() % cap, nb = rng() % cap;
    const std::uint64_t seed_a = rng(), seed_b = rng(), range_a = rng() % 2 ? 0 : 20;
    cases.push_back({sorted_random<T>(na, seed_a, range_a), sorted_random<T>(nb, seed_b, 20), "random"});
  }
  check_merges(cases);
}

TYPED_TEST(MergeTyped, Descending) {
  using T = TypeParam;
  std::vector<merge_case<T>> cases;
  for (auto [na, nb] : {std::pair<std::size_t, std::size_t>{0, 5}, {777, 5}, {1023, 1025}, {90000, 50001}}) {
    std::vector<T> a = sorted_random<T>(na, na, 100), b = sorted_random<T>(nb, nb + 1, 100);
    std::reverse(a.begin(), a.end());
    std::reverse(b.begin(), b.end());
    cases.push_back({std::move(a), std::move(b), "descending"});
  }
  check_merges(cases, ssum::greater{});
}

TYPED_TEST(MergeTyped, DisjointAndInterleavedRanges) {
  using T = TypeParam;
  std::vector<T> lo(70000), hi(70000), even(70000), odd(70000);
  for (std::size_t i = 0; i < lo.size(); ++i) {
    lo[i] = static_cast<T>(i);
    hi[i] = static_cast<T>(i + 100000);
    even[i] = static_cast<T>(2 * i);
    odd[i] = static_cast<T>(2 * i + 1);
  }
  check_merges<T>({{lo, hi, "lo,hi"},
                   {hi, lo, "hi,lo"},
                   {even, odd, "even,odd"},
                   {lo, lo, "equal inputs"},
                   {std::vector<T>(100000, T(3)), std::vector<T>(100001, T(3)), "all equal"}});
}

template <class T>
class MergeFloat : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MergeFloat, FloatTypes);

// -0.0 and +0.0 are equal under ssum::less, so stability shows in the sign bits; NaNs go last.
TYPED_TEST(MergeFloat, SignedZerosAndNaNs) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<merge_case<T>> cases;
  for (std::size_t n : {std::size_t(10), std::size_t(50000)}) {
    std::vector<T> a, b;
    for (std::size_t i = 0; i < n; ++i) {
      a.push_back(i % 3 ? T(-0.0) : T(0.0));
      b.push_back(i % 2 ? T(0.0) : T(-0.0));
    }
    a.push_back(T(1));
    b.push_back(T(1));
    a.push_back(nan);
    b.push_back(nan);
    b.push_back(nan);
    cases.push_back({a, b, "zeros/NaN"});
  }
  check_merges(cases);
}

// ---- merge_by_key ------------------------------------------------------------------------

TEST(MergeByKey, StableAcrossAndWithinInputs) {
  for (auto [na, nb] : {std::pair<std::size_t, std::size_t>{0, 0}, {0, 9}, {9, 0}, {1, 1}, {1023, 1025},
                        {100003, 99991}, {300000, 17}}) {
    for (std::uint64_t range : {std::uint64_t(3), std::uint64_t(1000)}) {
      const std::vector<std::int32_t> ak = sorted_random<std::int32_t>(na, na + range, range);
      const std::vector<std::int32_t> bk = sorted_random<std::int32_t>(nb, nb * 7 + range, range);
      std::vector<std::uint64_t> av(na), bv(nb);  // value = origin: a's i, b's (1 << 40) + j
      for (std::size_t i = 0; i < na; ++i) av[i] = i;
      for (std::size_t j = 0; j < nb; ++j) bv[j] = (std::uint64_t(1) << 40) + j;
      std::vector<std::pair<std::int32_t, std::uint64_t>> pa, pb, want(na + nb);
      for (std::size_t i = 0; i < na; ++i) pa.push_back({ak[i], av[i]});
      for (std::size_t j = 0; j < nb; ++j) pb.push_back({bk[j], bv[j]});
      std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), want.begin(),
                 [](const auto& x, const auto& y) { return x.first < y.first; });
      for (unsigned th : kThreads) {
        for (std::size_t grain : {std::size_t(0), std::size_t(1)}) {
          std::vector<std::int32_t> ok(na + nb);
          std::vector<std::uint64_t> ov(na + nb);
          if (grain == 0) {
            ssum::merge_by_key(ssum::cpu{th}, ak.data(), av.data(), na, bk.data(), bv.data(), nb, ok.data(),
                               ov.data());
          } else {
            ssum::detail::cpu_merge_by_key(th, grain, ak.data(), av.data(), na, bk.data(), bv.data(), nb, ok.data(),
                                           ov.data(), ssum::less{});
          }
          for (std::size_t k = 0; k < na + nb; ++k) {
            ASSERT_EQ(ok[k], want[k].first) << "na=" << na << " nb=" << nb << " threads=" << th << " k=" << k;
            ASSERT_EQ(ov[k], want[k].second) << "na=" << na << " nb=" << nb << " threads=" << th << " k=" << k;
          }
        }
      }
    }
  }
}

TEST(MergeByKey, DescendingWithStringValues) {
  const std::vector<int> ak = {5, 5, 3, 1}, bk = {5, 4, 3, 3, 0};
  const std::vector<std::string> av = {"a0", "a1", "a2", "a3"}, bv = {"b0", "b1", "b2", "b3", "b4"};
  std::vector<int> ok(9);
  std::vector<std::string> ov(9);
  ssum::merge_by_key(ssum::cpu{3}, ak.data(), av.data(), 4, bk.data(), bv.data(), 5, ok.data(), ov.data(),
                     ssum::greater{});
  EXPECT_EQ(ok, (std::vector<int>{5, 5, 5, 4, 3, 3, 3, 1, 0}));
  EXPECT_EQ(ov, (std::vector<std::string>{"a0", "a1", "b0", "b1", "a2", "b2", "b3", "a3", "b4"}));
}

// ---- merge_generated ---------------------------------------------------------------------

template <class T>
class MergeGenerated : public ::testing::Test {};
using IntTypes = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(MergeGenerated, IntTypes);

TYPED_TEST(MergeGenerated, PlusConstantAndMinusReversed) {
  using T = TypeParam;
  for (auto [na, nb] : {std::pair<std::size_t, std::size_t>{0, 0}, {0, 5}, {5, 0}, {1023, 1025}, {200003, 150001}}) {
    const std::vector<T> a = sorted_random<T>(na, na + 1, 1u << 20), d = sorted_random<T>(nb, nb + 2, 1u << 20);
    const T c = T(12345), t = T(1u << 21);
    std::vector<T> plus_b(nb), minus_b(nb);
    for (std::size_t j = 0; j < nb; ++j) {
      plus_b[j] = static_cast<T>(d[j] + c);
      minus_b[j] = static_cast<T>(t - d[nb - 1 - j]);
    }
    std::vector<T> want_p(na + nb), want_m(na + nb);
    std::merge(a.begin(), a.end(), plus_b.begin(), plus_b.end(), want_p.begin());
    std::merge(a.begin(), a.end(), minus_b.begin(), minus_b.end(), want_m.begin());
    for (unsigned th : kThreads) {
      std::vector<T> got(na + nb);
      ssum::merge_generated(ssum::cpu{th}, a.data(), na, ssum::plus_constant<T>{d.data(), c}, nb, got.data());
      ASSERT_EQ(got, want_p) << "plus_constant na=" << na << " nb=" << nb << " threads=" << th;
      ssum::merge_generated(ssum::cpu{th}, a.data(), na, ssum::minus_reversed<T>{d.data(), nb, t}, nb, got.data());
      ASSERT_EQ(got, want_m) << "minus_reversed na=" << na << " nb=" << nb << " threads=" << th;
      ssum::detail::cpu_merge_generated(th, 1, a.data(), na, ssum::minus_reversed<T>{d.data(), nb, t}, nb,
                                        got.data(), ssum::less{});
      ASSERT_EQ(got, want_m) << "minus_reversed grain 1, na=" << na << " nb=" << nb << " threads=" << th;
    }
  }
}

// merge_generated_batch on the host: each merge as merge_generated would do it.
TYPED_TEST(MergeGenerated, BatchMatchesStdMerge) {
  using T = TypeParam;
  const std::pair<std::size_t, std::size_t> sizes[] = {{0, 0}, {3, 0}, {0, 4}, {1023, 1025}, {70001, 65537}};
  std::vector<std::vector<T>> as, ds, wants, outs;
  std::vector<ssum::generated_merge<T, ssum::plus_constant<T>>> merges;
  for (std::size_t k = 0; k < std::size(sizes); ++k) {
    const auto [na, nb] = sizes[k];
    as.push_back(sorted_random<T>(na, 40 + k, 1u << 20));
    ds.push_back(sorted_random<T>(nb, 50 + k, 1u << 20));
  }
  for (std::size_t k = 0; k < std::size(sizes); ++k) {
    const T c = static_cast<T>(100 * k + 1);
    std::vector<T> b(ds[k].size()), want(as[k].size() + ds[k].size());
    for (std::size_t j = 0; j < b.size(); ++j) b[j] = static_cast<T>(ds[k][j] + c);
    std::merge(as[k].begin(), as[k].end(), b.begin(), b.end(), want.begin());
    wants.push_back(std::move(want));
    outs.emplace_back(wants.back().size());
  }
  for (std::size_t k = 0; k < std::size(sizes); ++k) {
    merges.push_back({as[k].data(), as[k].size(), ssum::plus_constant<T>{ds[k].data(), static_cast<T>(100 * k + 1)},
                      ds[k].size(), outs[k].data()});
  }
  ssum::merge_generated_batch(ssum::cpu{2}, merges.data(), merges.size());
  for (std::size_t k = 0; k < std::size(sizes); ++k) EXPECT_EQ(outs[k], wants[k]) << "merge " << k;
}

TEST(MergeGenerated, LambdaGenerator) {
  std::vector<double> a = sorted_random<double>(5000, 3, 0), want(10000);
  std::vector<double> sq(5000);
  for (std::size_t j = 0; j < 5000; ++j) sq[j] = double(j) * double(j) - 1e6;
  std::merge(a.begin(), a.end(), sq.begin(), sq.end(), want.begin());
  std::vector<double> got(10000);
  ssum::merge_generated(ssum::cpu{2}, a.data(), 5000, [](std::size_t j) { return double(j) * double(j) - 1e6; }, 5000,
                        got.data());
  EXPECT_TRUE(same_bits(got, want));
}

// ---- equal pairs -------------------------------------------------------------------------

template <class T>
class PairSums : public ::testing::Test {};
using PairTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(PairSums, PairTypes);

template <class T>
std::uint64_t brute_count(const std::vector<T>& a, const std::vector<T>& b, T t) {
  std::uint64_t n = 0;
  for (T x : a)
    for (T y : b) n += static_cast<__int128>(x) + static_cast<__int128>(y) == static_cast<__int128>(t);
  return n;
}

template <class T>
struct pair_case {
  std::vector<T> a, b;
  T t;
  std::uint64_t want;
  std::string what;
};

// The thread count is the outer loop: OpenMP's waiting threads spin, and on a machine with
// fewer cores than threads, alternating team sizes call after call makes each region wait
// for a scheduler time slice.
template <class T>
void check_pairs(const std::vector<pair_case<T>>& cases, bool with_small_grains = true) {
  for (unsigned th : kThreads) {
    for (std::size_t grain : {std::size_t(1), std::size_t(7), std::size_t(0)}) {  // 0: the public API
      if (grain && !with_small_grains) continue;
      for (const pair_case<T>& c : cases) {
        const std::vector<T>& a = c.a;
        const std::vector<T>& b = c.b;
        std::uint64_t count;
        ssum::pair_match m;
        if (grain == 0) {
          count = ssum::count_pair_sums(ssum::cpu{th}, a.data(), a.size(), b.data(), b.size(), c.t);
          m = ssum::find_pair_sum(ssum::cpu{th}, a.data(), a.size(), b.data(), b.size(), c.t);
        } else {
          count = ssum::detail::cpu_count_pair_sums(th, grain, a.data(), a.size(), b.data(), b.size(), c.t);
          const auto r = ssum::detail::cpu_find_pair_sum(th, grain, a.data(), a.size(), b.data(), b.size(), c.t);
          m = {r.found, r.i, r.j};
        }
        const auto where = [&] {
          return c.what + " na=" + std::to_string(a.size()) + " nb=" + std::to_string(b.size()) +
                 " t=" + std::to_string(static_cast<long long>(c.t)) + " threads=" + std::to_string(th) +
                 " grain=" + std::to_string(grain);
        };
        ASSERT_EQ(count, c.want) << where();
        ASSERT_EQ(m.found, c.want > 0) << where();
        if (m.found) {
          ASSERT_LT(m.i, a.size()) << where();
          ASSERT_LT(m.j, b.size()) << where();
          ASSERT_TRUE(static_cast<__int128>(a[m.i]) + static_cast<__int128>(b[m.j]) == static_cast<__int128>(c.t))
              << where() << " i=" << m.i << " j=" << m.j;
        }
      }
    }
  }
}

TYPED_TEST(PairSums, AgainstBruteForce) {
  using T = TypeParam;
  using lim = std::numeric_limits<T>;
  std::mt19937_64 rng(42);
  std::vector<pair_case<T>> cases;
  for (int seed = 0; seed < 60; ++seed) {
    const std::size_t na = rng() % 301, nb = rng() % 301;
    // Mostly small values with many duplicates; every fourth seed values at the type's limits,
    // where t - b would overflow.
    const bool edges = seed % 4 == 3;
    auto draw = [&](std::size_t n) {
      std::vector<T> v(n);
      for (T& x : v) {
        if (edges) {
          const std::uint64_t r = rng() % 8;
          x = r < 4 ? static_cast<T>(lim::min() + T(r)) : static_cast<T>(lim::max() - T(r - 4));
          if (rng() % 3 == 0) x = static_cast<T>(rng() % 5);
        } else {
          x = static_cast<T>(rng() % 12);
          if constexpr (std::is_signed_v<T>) x = static_cast<T>(x - 4);
        }
      }
      std::sort(v.begin(), v.end());
      return v;
    };
    const std::vector<T> a = draw(na), b = draw(nb);
    std::vector<T> targets = {T(0), T(5), T(7), T(23), lim::min(), lim::max(), static_cast<T>(lim::max() - 1)};
    if constexpr (std::is_signed_v<T>) targets.push_back(T(-1));
    if (na && nb) {  // a sum that is there, unless it wraps (computed modulo 2^64, then cut to T)
      const std::uint64_t x = static_cast<std::uint64_t>(a[rng() % na]), y = static_cast<std::uint64_t>(b[rng() % nb]);
      targets.push_back(static_cast<T>(x + y));
    }
    for (T t : targets) cases.push_back({a, b, t, brute_count(a, b, t), "seed=" + std::to_string(seed)});
  }
  check_pairs(cases);
}

TYPED_TEST(PairSums, RunsAcrossLanesAndThreads) {
  using T = TypeParam;
  std::vector<pair_case<T>> cases;
  for (std::size_t na : {std::size_t(1), std::size_t(37), std::size_t(300)}) {
    for (std::size_t nb : {std::size_t(1), std::size_t(45), std::size_t(300)}) {
      const std::vector<T> a(na, T(3)), b(nb, T(4));
      cases.push_back({a, b, T(7), std::uint64_t(na) * nb, "all equal"});
      cases.push_back({a, b, T(6), 0, "all equal, no pair"});
      std::vector<T> a2(a), b2(b);  // one more value each side
      a2.insert(a2.begin(), T(1));
      b2.push_back(T(6));
      cases.push_back({a2, b2, T(7), std::uint64_t(na) * nb + 1, "two runs"});
    }
  }
  check_pairs(cases);
}

TEST(PairSums, EmptyInputs) {
  const std::vector<int> some = {1, 2, 3}, none;
  check_pairs<int>({{none, none, 3, 0, "empty"}, {some, none, 3, 0, "empty b"}, {none, some, 3, 0, "empty a"}});
}

// Several targets: found iff some target has a pair (brute force), and then the first such
// target (the host tries them in order) with a true pair.
TYPED_TEST(PairSums, AnyTargetAgainstBruteForce) {
  using T = TypeParam;
  std::mt19937_64 rng(43);
  for (int seed = 0; seed < 40; ++seed) {
    const std::size_t na = rng() % 120, nb = rng() % 120;
    const std::vector<T> a = sorted_random<T>(na, rng(), 30), b = sorted_random<T>(nb, rng(), 30);
    std::vector<T> ts;
    for (std::size_t k = rng() % 7; k > 0; --k) {
      ts.push_back(na && nb && rng() % 2 ? static_cast<T>(a[rng() % na] + b[rng() % nb]) : static_cast<T>(rng() % 90));
    }
    std::size_t first = ts.size();
    for (std::size_t k = 0; k < ts.size() && first == ts.size(); ++k) {
      if (brute_count(a, b, ts[k]) > 0) first = k;
    }
    for (unsigned th : kThreads) {
      const ssum::any_pair_match m =
          ssum::find_any_pair_sum(ssum::cpu{th}, a.data(), na, b.data(), nb, ts.data(), ts.size());
      const std::string where = "seed=" + std::to_string(seed) + " threads=" + std::to_string(th);
      ASSERT_EQ(m.found, first < ts.size()) << where;
      if (!m.found) continue;
      ASSERT_EQ(m.target, first) << where;
      ASSERT_LT(m.i, na) << where;
      ASSERT_LT(m.j, nb) << where;
      ASSERT_TRUE(static_cast<__int128>(a[m.i]) + static_cast<__int128>(b[m.j]) == static_cast<__int128>(ts[first]))
          << where;
    }
  }
}

template <class T>
std::uint64_t hash_count(const std::vector<T>& a, const std::vector<T>& b, T t) {
  std::unordered_map<T, std::uint64_t> in_b;
  for (T y : b) ++in_b[y];
  std::uint64_t n = 0;
  for (T x : a) {
    // y = t - x exactly, when it fits in T.
    const __int128 y = static_cast<__int128>(t) - static_cast<__int128>(x);
    if (y < static_cast<__int128>(std::numeric_limits<T>::min()) || y > static_cast<__int128>(std::numeric_limits<T>::max()))
      continue;
    const auto it = in_b.find(static_cast<T>(y));
    if (it != in_b.end()) n += it->second;
  }
  return n;
}

template <class T>
class PairSumsLarge : public ::testing::Test {};
using LargeTypes = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(PairSumsLarge, LargeTypes);

TYPED_TEST(PairSumsLarge, AgainstHashMap) {
  using T = TypeParam;
  constexpr std::size_t n = 100000;
  std::mt19937_64 rng(7);
  std::vector<pair_case<T>> cases;
  // Even values only: an odd target has no pair. Spread 4n: few pairs; spread n/8: many.
  for (std::uint64_t spread : {std::uint64_t(4 * n), std::uint64_t(n / 8)}) {
    std::vector<T> a(n), b(n + 13);
    for (T& x : a) x = static_cast<T>(2 * (rng() % spread));
    for (T& y : b) y = static_cast<T>(2 * (rng() % spread));
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    for (T t : {static_cast<T>(2 * spread + 1), static_cast<T>(2 * spread), static_cast<T>(spread),
                static_cast<T>(a[n / 2] + b[n / 3]), static_cast<T>(4 * spread)}) {
      cases.push_back({a, b, t, hash_count(a, b, t), "spread=" + std::to_string(spread)});
    }
    // Exactly one pair: the largest a with the largest b, everything else below half of t.
    std::vector<T> a1(a), b1(b);
    const T big = static_cast<T>(8 * spread);
    a1.back() = big;
    b1.back() = big;
    cases.push_back({a1, b1, static_cast<T>(2 * big), 1, "one pair"});
  }
  check_pairs(cases, false);
}

}  // namespace

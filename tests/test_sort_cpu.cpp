// Host odd-even sorts (ssum/sort.hpp with ssum::cpu) against std::stable_sort and std::sort:
// sizes around the small-sort limit (64), the merge network's block (1024) and the parallel
// threshold (4096); sorted, reversed, all-equal, few-distinct and random inputs; every
// arithmetic key type, user key types and comparators. odd_even_sort must be stable (exactly
// std::stable_sort's result, values included); odd_even_merge_sort must return the sorted keys
// with each key's own value, and the same bits for every thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ssum/sort.hpp"

namespace {

constexpr unsigned kThreads[] = {1, 2, 3, 8};
constexpr std::size_t kSizes[] = {0, 1, 2, 3, 63, 64, 65, 1023, 1024, 1025, 4095, 4096, 4097, 100003};
constexpr std::size_t kLarge = 1000003;

enum class Pattern { sorted, reversed, equal, few, random };
constexpr Pattern kPatterns[] = {Pattern::sorted, Pattern::reversed, Pattern::equal, Pattern::few, Pattern::random};

const char* name(Pattern p) {
  switch (p) {
    case Pattern::sorted: return "sorted";
    case Pattern::reversed: return "reversed";
    case Pattern::equal: return "equal";
    case Pattern::few: return "few";
    case Pattern::random: return "random";
  }
  return "?";
}

std::string where(std::size_t n, Pattern p, unsigned threads = 0) {
  return "n=" + std::to_string(n) + " " + name(p) + (threads ? " threads=" + std::to_string(threads) : "");
}

template <class T>
std::vector<T> make_keys(std::size_t n, Pattern p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
      case Pattern::sorted: v[i] = static_cast<T>(i); break;
      case Pattern::reversed: v[i] = static_cast<T>(n - i); break;
      case Pattern::equal: v[i] = T(5); break;
      case Pattern::few: v[i] = static_cast<T>(rng() % 8); break;  // values in [0, 8)
      case Pattern::random:
        if constexpr (std::is_floating_point_v<T>) {
          v[i] = static_cast<T>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
        } else {
          v[i] = static_cast<T>(rng());  // the full range, negative keys included
        }
        break;
    }
  }
  return v;
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) return ::testing::AssertionFailure() << "bits differ at " << i;
  }
  return ::testing::AssertionSuccess();
}

/// got[i] and want[i] equivalent under comp at every i (for an unstable sort: same sorted keys).
template <class T, class C>
::testing::AssertionResult equivalent(const std::vector<T>& got, const std::vector<T>& want, C comp) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (comp(got[i], want[i]) || comp(want[i], got[i])) return ::testing::AssertionFailure() << "keys differ at " << i;
  }
  return ::testing::AssertionSuccess();
}

/// std::stable_sort of (key, value) pairs by key: the one result a stable sort may give.
template <class K, class V, class C>
void stable_reference(const std::vector<K>& keys, const std::vector<V>& values, C comp, std::vector<K>& out_keys,
                      std::vector<V>& out_values) {
  std::vector<std::pair<K, V>> kv(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) kv[i] = {keys[i], values[i]};
  std::stable_sort(kv.begin(), kv.end(), [&](const auto& a, const auto& b) { return comp(a.first, b.first); });
  out_keys.resize(kv.size());
  out_values.resize(kv.size());
  for (std::size_t i = 0; i < kv.size(); ++i) {
    out_keys[i] = kv[i].first;
    out_values[i] = kv[i].second;
  }
}

std::vector<std::uint32_t> iota_values(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

/// For an unstable sort with value = original index: the values are a permutation of 0..n-1
/// and every key sits with its own value (bitwise: -0.0 and NaN payloads must travel too).
template <class K>
::testing::AssertionResult carries_values(const std::vector<K>& keys, const std::vector<std::uint32_t>& values,
                                          const std::vector<K>& original) {
  std::vector<bool> seen(original.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint32_t v = values[i];
    if (v >= original.size() || seen[v]) return ::testing::AssertionFailure() << "values not a permutation at " << i;
    seen[v] = true;
    if (std::memcmp(&keys[i], &original[v], sizeof(K)) != 0)
      return ::testing::AssertionFailure() << "key at " << i << " is not its value's key";
  }
  return ::testing::AssertionSuccess();
}

// ---- every arithmetic key type ------------------------------------------------------------

template <class T>
class SortCpu : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(SortCpu, KeyTypes);

TYPED_TEST(SortCpu, KeysMatchStd) {
  using T = TypeParam;
  for (std::size_t n : kSizes) {
    for (Pattern p : kPatterns) {
      SCOPED_TRACE(where(n, p));
      const std::vector<T> in = make_keys<T>(n, p, n * 7 + 1);
      std::vector<T> ref = in;
      std::stable_sort(ref.begin(), ref.end(), ssum::less{});
      std::vector<T> a = in;
      ssum::odd_even_sort(ssum::cpu{}, a.data(), n);
      EXPECT_TRUE(same_bits(a, ref)) << "odd_even_sort";
      std::vector<T> b = in;
      ssum::odd_even_merge_sort(ssum::cpu{}, b.data(), n);
      EXPECT_TRUE(equivalent(b, ref, ssum::less{})) << "odd_even_merge_sort";
    }
  }
}

TYPED_TEST(SortCpu, DescendingMatchesStd) {
  using T = TypeParam;
  for (std::size_t n : kSizes) {
    for (Pattern p : {Pattern::sorted, Pattern::few, Pattern::random}) {
      SCOPED_TRACE(where(n, p));
      const std::vector<T> in = make_keys<T>(n, p, n * 7 + 2);
      const std::vector<std::uint32_t> idx = iota_values(n);
      std::vector<T> ref_keys;
      std::vector<std::uint32_t> ref_values;
      stable_reference(in, idx, ssum::greater{}, ref_keys, ref_values);
      std::vector<T> a = in;
      std::vector<std::uint32_t> av = idx;
      ssum::odd_even_sort(ssum::cpu{}, a.data(), av.data(), n, ssum::greater{});
      EXPECT_TRUE(same_bits(a, ref_keys));
      EXPECT_TRUE(same_bits(av, ref_values)) << "not stable";
      std::vector<T> b = in;
      ssum::odd_even_merge_sort(ssum::cpu{}, b.data(), n, ssum::greater{});
      EXPECT_TRUE(equivalent(b, ref_keys, ssum::greater{}));
    }
  }
}

TYPED_TEST(SortCpu, PairsStableAndCarried) {
  using T = TypeParam;
  for (std::size_t n : kSizes) {
    for (Pattern p : kPatterns) {
      SCOPED_TRACE(where(n, p));
      const std::vector<T> in = make_keys<T>(n, p, n * 7 + 3);
      const std::vector<std::uint32_t> idx = iota_values(n);
      std::vector<T> ref_keys;
      std::vector<std::uint32_t> ref_values;
      stable_reference(in, idx, ssum::less{}, ref_keys, ref_values);
      std::vector<T> a = in;
      std::vector<std::uint32_t> av = idx;
      ssum::odd_even_sort(ssum::cpu{}, a.data(), av.data(), n);
      EXPECT_TRUE(same_bits(a, ref_keys));
      EXPECT_TRUE(same_bits(av, ref_values)) << "odd_even_sort is not stable";
      std::vector<T> b = in;
      std::vector<std::uint32_t> bv = idx;
      ssum::odd_even_merge_sort(ssum::cpu{}, b.data(), bv.data(), n);
      EXPECT_TRUE(equivalent(b, ref_keys, ssum::less{}));
      EXPECT_TRUE(carries_values(b, bv, in));
    }
  }
}

// ---- thread counts ------------------------------------------------------------------------

// Stable: exactly std::stable_sort whatever the thread count (and so whatever the number of
// blocks). Merge network: the same bits, values included, for every thread count.
template <class T>
void check_thread_counts(std::size_t n, Pattern p) {
  SCOPED_TRACE(where(n, p));
  const std::vector<T> in = make_keys<T>(n, p, n * 7 + 4);
  const std::vector<std::uint32_t> idx = iota_values(n);
  std::vector<T> ref_keys, net_keys;
  std::vector<std::uint32_t> ref_values, net_values;
  stable_reference(in, idx, ssum::less{}, ref_keys, ref_values);
  for (unsigned t : kThreads) {
    SCOPED_TRACE("threads=" + std::to_string(t));
    std::vector<T> a = in;
    std::vector<std::uint32_t> av = idx;
    ssum::odd_even_sort(ssum::cpu{t}, a.data(), av.data(), n);
    EXPECT_TRUE(same_bits(a, ref_keys));
    EXPECT_TRUE(same_bits(av, ref_values));
    std::vector<T> b = in;
    std::vector<std::uint32_t> bv = idx;
    ssum::odd_even_merge_sort(ssum::cpu{t}, b.data(), bv.data(), n);
    EXPECT_TRUE(equivalent(b, ref_keys, ssum::less{}));
    EXPECT_TRUE(carries_values(b, bv, in));
    if (t == kThreads[0]) {
      net_keys = b;
      net_values = bv;
    } else {
      EXPECT_TRUE(same_bits(b, net_keys)) << "merge network keys depend on the thread count";
      EXPECT_TRUE(same_bits(bv, net_values)) << "merge network values depend on the thread count";
    }
  }
}

TEST(SortCpuThreads, CountsAgree) {
  for (std::size_t n : {std::size_t(65), std::size_t(1025), std::size_t(4097), std::size_t(9000), std::size_t(100003)}) {
    check_thread_counts<std::int32_t>(n, Pattern::few);
    check_thread_counts<double>(n, Pattern::random);
    check_thread_counts<std::uint64_t>(n, Pattern::reversed);
  }
}

// Many sizes past the small sort, so that blocks are uneven in every way; keys in [0, 2) and
// [0, 8) (the 0-1 principle's inputs, and many ties to keep in order).
TEST(SortCpuThreads, UnevenBlocks) {
  std::mt19937_64 rng(77);
  for (int rep = 0; rep < 24; ++rep) {
    const std::size_t n = 65 + rng() % 20000;
    const std::uint64_t range = rep % 2 ? 2 : 8;
    std::vector<std::int32_t> in(n);
    for (auto& x : in) x = static_cast<std::int32_t>(rng() % range);
    const std::vector<std::uint32_t> idx = iota_values(n);
    std::vector<std::int32_t> ref_keys;
    std::vector<std::uint32_t> ref_values;
    stable_reference(in, idx, ssum::less{}, ref_keys, ref_values);
    for (unsigned t : kThreads) {
      SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(t));
      std::vector<std::int32_t> a = in;
      std::vector<std::uint32_t> av = idx;
      ssum::odd_even_sort(ssum::cpu{t}, a.data(), av.data(), n);
      EXPECT_TRUE(same_bits(a, ref_keys));
      EXPECT_TRUE(same_bits(av, ref_values));
      std::vector<std::int32_t> b = in;
      ssum::odd_even_merge_sort(ssum::cpu{t}, b.data(), n);
      EXPECT_TRUE(same_bits(b, ref_keys));
    }
  }
}

// ---- every 0-1 input of up to 12 keys (the 0-1 principle) -----------------------------------

TEST(SortCpuZeroOne, Exhaustive) {
  for (std::size_t n = 0; n <= 12; ++n) {
    for (std::uint32_t bits = 0; bits < (1u << n); ++bits) {
      std::vector<std::uint8_t> in;  // push_back: GCC 12 misreads indexed stores for n = 0
      for (std::size_t i = 0; i < n; ++i) in.push_back(static_cast<std::uint8_t>((bits >> i) & 1u));
      const std::vector<std::uint32_t> idx = iota_values(n);
      std::vector<std::uint8_t> ref_keys;
      std::vector<std::uint32_t> ref_values;
      stable_reference(in, idx, ssum::less{}, ref_keys, ref_values);
      std::vector<std::uint8_t> a = in;
      std::vector<std::uint32_t> av = idx;
      ssum::odd_even_sort(ssum::cpu{1}, a.data(), av.data(), n);
      ASSERT_EQ(a, ref_keys) << "n=" << n << " bits=" << bits;
      ASSERT_EQ(av, ref_values) << "n=" << n << " bits=" << bits;
      std::vector<std::uint8_t> b = in;
      ssum::odd_even_merge_sort(ssum::cpu{1}, b.data(), n);
      ASSERT_EQ(b, ref_keys) << "n=" << n << " bits=" << bits;
    }
  }
}

// ---- a million keys -----------------------------------------------------------------------

TEST(SortCpuLarge, Int32Keys) {
  const std::vector<std::int32_t> in = make_keys<std::int32_t>(kLarge, Pattern::random, 11);
  std::vector<std::int32_t> ref = in;
  std::sort(ref.begin(), ref.end());
  std::vector<std::int32_t> a = in;
  ssum::odd_even_sort(ssum::cpu{}, a.data(), kLarge);
  EXPECT_TRUE(same_bits(a, ref));
  std::vector<std::int32_t> b = in;
  ssum::odd_even_merge_sort(ssum::cpu{}, b.data(), kLarge);
  EXPECT_TRUE(same_bits(b, ref));
}

TEST(SortCpuLarge, UInt64PairsFewDistinct) {
  const std::vector<std::uint64_t> in = make_keys<std::uint64_t>(kLarge, Pattern::few, 12);
  const std::vector<std::uint32_t> idx = iota_values(kLarge);
  std::vector<std::uint64_t> ref_keys;
  std::vector<std::uint32_t> ref_values;
  stable_reference(in, idx, ssum::less{}, ref_keys, ref_values);
  std::vector<std::uint64_t> a = in;
  std::vector<std::uint32_t> av = idx;
  ssum::odd_even_sort(ssum::cpu{}, a.data(), av.data(), kLarge);
  EXPECT_TRUE(same_bits(a, ref_keys));
  EXPECT_TRUE(same_bits(av, ref_values)) << "not stable";
  std::vector<std::uint64_t> b = in;
  std::vector<std::uint32_t> bv = idx;
  ssum::odd_even_merge_sort(ssum::cpu{}, b.data(), bv.data(), kLarge);
  EXPECT_TRUE(same_bits(b, ref_keys));
  EXPECT_TRUE(carries_values(b, bv, in));
}

// ---- floating point: signed zeros and NaNs --------------------------------------------------

template <class T>
class SortCpuFloat : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SortCpuFloat, FloatTypes);

// -0.0 and +0.0 are equal keys: the stable sort keeps their input order, sign bits included.
TYPED_TEST(SortCpuFloat, SignedZerosKeepTheirOrder) {
  using T = TypeParam;
  std::mt19937_64 rng(5);
  for (std::size_t n : {std::size_t(10), std::size_t(64), std::size_t(100), std::size_t(5000), std::size_t(20000)}) {
    std::vector<T> in(n);
    const T choices[] = {T(-0.0), T(0.0), T(-1), T(1), T(0.5)};
    for (T& x : in) x = choices[rng() % 5];
    std::vector<bool> zero_signs;  // the sign bits of the zeros, in input order
    for (T x : in)
      if (x == T(0)) zero_signs.push_back(std::signbit(x));
    for (unsigned t : kThreads) {
      SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(t));
      std::vector<T> ref = in;
      std::stable_sort(ref.begin(), ref.end(), ssum::less{});
      std::vector<T> a = in;
      ssum::odd_even_sort(ssum::cpu{t}, a.data(), n);
      EXPECT_TRUE(same_bits(a, ref));
      std::vector<bool> got;
      for (T x : a)
        if (x == T(0)) got.push_back(std::signbit(x));
      EXPECT_EQ(got, zero_signs);
      std::vector<T> d = in, dref = in;
      std::stable_sort(dref.begin(), dref.end(), ssum::greater{});
      ssum::odd_even_sort(ssum::cpu{t}, d.data(), n, ssum::greater{});
      EXPECT_TRUE(same_bits(d, dref));
    }
  }
}

// NaNs (either sign) go last with ssum::less and first with ssum::greater; numbers in order.
TYPED_TEST(SortCpuFloat, NaNsLastAscendingFirstDescending) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::mt19937_64 rng(6);
  for (std::size_t n : {std::size_t(50), std::size_t(1000), std::size_t(10000)}) {
    std::vector<T> in(n);
    std::size_t nans = 0;
    for (T& x : in) {
      const auto r = rng() % 10;
      x = r == 0 ? nan : r == 1 ? -nan : static_cast<T>(static_cast<int>(rng() % 2001) - 1000) / T(8);
      nans += std::isnan(x);
    }
    const std::vector<std::uint32_t> idx = iota_values(n);
    for (unsigned t : kThreads) {
      SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(t));
      for (bool ascending : {true, false}) {
        auto check_layout = [&](const std::vector<T>& v) {
          const std::size_t first_nan = ascending ? n - nans : 0;
          for (std::size_t i = 0; i < n; ++i) {
            const bool should_be_nan = i >= first_nan && i < first_nan + nans;
            ASSERT_EQ(bool(std::isnan(v[i])), should_be_nan) << "at " << i;
          }
          const auto lo = v.begin() + (ascending ? 0 : std::ptrdiff_t(nans));
          const auto hi = lo + std::ptrdiff_t(n - nans);
          if (ascending) EXPECT_TRUE(std::is_sorted(lo, hi));
          else EXPECT_TRUE(std::is_sorted(lo, hi, [](T a, T b) { return a > b; }));
        };
        std::vector<T> ref_keys;
        std::vector<std::uint32_t> ref_values;
        std::vector<T> a = in, b = in;
        std::vector<std::uint32_t> av = idx, bv = idx;
        if (ascending) {
          stable_reference(in, idx, ssum::less{}, ref_keys, ref_values);
          ssum::odd_even_sort(ssum::cpu{t}, a.data(), av.data(), n);
          ssum::odd_even_merge_sort(ssum::cpu{t}, b.data(), bv.data(), n);
        } else {
          stable_reference(in, idx, ssum::greater{}, ref_keys, ref_values);
          ssum::odd_even_sort(ssum::cpu{t}, a.data(), av.data(), n, ssum::greater{});
          ssum::odd_even_merge_sort(ssum::cpu{t}, b.data(), bv.data(), n, ssum::greater{});
        }
        SCOPED_TRACE(ascending ? "less" : "greater");
        check_layout(a);
        EXPECT_TRUE(same_bits(a, ref_keys));
        EXPECT_TRUE(same_bits(av, ref_values));
        check_layout(b);
        EXPECT_TRUE(carries_values(b, bv, in));
      }
    }
  }
}

// ---- user key types ------------------------------------------------------------------------

struct record {  // not trivially copyable: the merge network swaps, buffers move strings
  std::string name;
  int rank = 0;
  bool operator==(const record&) const = default;
};
struct by_rank {
  bool operator()(const record& a, const record& b) const { return a.rank < b.rank; }
};

TEST(SortCpuUserKey, RecordsByRank) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(63),
                        std::size_t(64), std::size_t(65), std::size_t(1023), std::size_t(1025), std::size_t(4097),
                        std::size_t(30000)}) {
    std::mt19937_64 rng(n);
    std::vector<record> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = {"record number " + std::to_string(i), static_cast<int>(rng() % 50)};
    std::vector<record> ref = in;
    std::stable_sort(ref.begin(), ref.end(), by_rank{});
    for (unsigned t : {1u, 3u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(t));
      std::vector<record> a = in;
      ssum::odd_even_sort(ssum::cpu{t}, a.data(), n, by_rank{});
      EXPECT_TRUE(a == ref);
      std::vector<record> b = in;
      ssum::odd_even_merge_sort(ssum::cpu{t}, b.data(), n, by_rank{});
      EXPECT_TRUE(std::is_sorted(b.begin(), b.end(), by_rank{}));
      auto full = [](const record& x, const record& y) { return std::tie(x.rank, x.name) < std::tie(y.rank, y.name); };
      std::vector<record> bs = b, rs = ref;
      std::sort(bs.begin(), bs.end(), full);
      std::sort(rs.begin(), rs.end(), full);
      EXPECT_TRUE(bs == rs) << "not a permutation";
    }
  }
}

struct point {  // trivially copyable, compared on x only (descending), with string values
  std::int32_t x, y;
};
struct by_x_descending {
  bool operator()(const point& a, const point& b) const { return a.x > b.x; }
};

TEST(SortCpuUserKey, PointsWithStringValues) {
  for (std::size_t n : {std::size_t(65), std::size_t(1000), std::size_t(8191)}) {
    std::mt19937_64 rng(n + 1);
    std::vector<point> in(n);
    std::vector<std::string> vals(n);
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = {static_cast<std::int32_t>(rng() % 100), static_cast<std::int32_t>(i)};
      vals[i] = "v" + std::to_string(i);
    }
    for (unsigned t : kThreads) {
      SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(t));
      std::vector<point> a = in;
      std::vector<std::string> av = vals;
      ssum::odd_even_sort(ssum::cpu{t}, a.data(), av.data(), n, by_x_descending{});
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(av[i], "v" + std::to_string(a[i].y)) << "value left its key at " << i;
        if (i > 0) {
          ASSERT_GE(a[i - 1].x, a[i].x) << "not sorted at " << i;
          if (a[i - 1].x == a[i].x) {
            ASSERT_LT(a[i - 1].y, a[i].y) << "not stable at " << i;
          }
        }
      }
      std::vector<point> b = in;
      std::vector<std::string> bv = vals;
      ssum::odd_even_merge_sort(ssum::cpu{t}, b.data(), bv.data(), n, by_x_descending{});
      std::vector<bool> seen(n);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(bv[i], "v" + std::to_string(b[i].y)) << "value left its key at " << i;
        ASSERT_FALSE(seen[b[i].y]);
        seen[b[i].y] = true;
        if (i > 0) {
          ASSERT_GE(b[i - 1].x, b[i].x) << "not sorted at " << i;
        }
      }
    }
  }
}

// ---- nothing to sort --------------------------------------------------------------------

TEST(SortCpuEdge, EmptyTouchesNothing) {
  for (unsigned t : kThreads) {
    ssum::odd_even_sort(ssum::cpu{t}, static_cast<int*>(nullptr), 0);
    ssum::odd_even_sort(ssum::cpu{t}, static_cast<int*>(nullptr), static_cast<double*>(nullptr), 0);
    ssum::odd_even_merge_sort(ssum::cpu{t}, static_cast<int*>(nullptr), 0);
    ssum::odd_even_merge_sort(ssum::cpu{t}, static_cast<int*>(nullptr), static_cast<double*>(nullptr), 0);
    ssum::segmented_odd_even_sort(ssum::cpu{t}, static_cast<int*>(nullptr), 0, nullptr, 0);
    const std::size_t zeros[] = {0, 0, 0};
    ssum::segmented_odd_even_sort(ssum::cpu{t}, static_cast<int*>(nullptr), 0, zeros, 2);
    std::vector<int> k = {3, 2, 1};
    std::vector<double> v = {1, 2, 3};
    ssum::odd_even_sort(ssum::cpu{t}, k.data(), v.data(), 0);
    ssum::odd_even_merge_sort(ssum::cpu{t}, k.data(), v.data(), 0);
    ssum::odd_even_sort(ssum::cpu{t}, k.data(), v.data(), 1);
    ssum::odd_even_merge_sort(ssum::cpu{t}, k.data(), v.data(), 1);
    EXPECT_EQ(k, (std::vector<int>{3, 2, 1}));
    EXPECT_EQ(v, (std::vector<double>{1, 2, 3}));
  }
}

// ---- segmented ----------------------------------------------------------------------------

/// The expected result: each segment stably sorted on its own, everything else as it was.
template <class C>
void segmented_reference(std::vector<std::int32_t>& keys, std::vector<std::uint32_t>& values,
                         const std::vector<std::size_t>& offsets, C comp) {
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    const std::size_t lo = offsets[s], hi = offsets[s + 1];
    std::vector<std::int32_t> k(keys.begin() + lo, keys.begin() + hi), rk;
    std::vector<std::uint32_t> v(values.begin() + lo, values.begin() + hi), rv;
    stable_reference(k, v, comp, rk, rv);
    std::copy(rk.begin(), rk.end(), keys.begin() + lo);
    std::copy(rv.begin(), rv.end(), values.begin() + lo);
  }
}

template <class C>
void check_segmented(std::size_t n, const std::vector<std::size_t>& offsets, std::uint64_t range, C comp) {
  std::mt19937_64 rng(n + offsets.size());
  std::vector<std::int32_t> in(n);
  for (auto& x : in) x = static_cast<std::int32_t>(rng() % range);
  const std::vector<std::uint32_t> idx = iota_values(n);
  std::vector<std::int32_t> ref_keys = in;
  std::vector<std::uint32_t> ref_values = idx;
  segmented_reference(ref_keys, ref_values, offsets, comp);
  const std::size_t segments = offsets.size() - 1;
  for (unsigned t : kThreads) {
    SCOPED_TRACE("n=" + std::to_string(n) + " segments=" + std::to_string(segments) + " threads=" + std::to_string(t));
    std::vector<std::int32_t> a = in;
    std::vector<std::uint32_t> av = idx;
    ssum::segmented_odd_even_sort(ssum::cpu{t}, a.data(), av.data(), n, offsets.data(), segments, comp);
    EXPECT_TRUE(same_bits(a, ref_keys));
    EXPECT_TRUE(same_bits(av, ref_values));
    std::vector<std::int32_t> b = in;
    ssum::segmented_odd_even_sort(ssum::cpu{t}, b.data(), n, offsets.data(), segments, comp);
    EXPECT_TRUE(same_bits(b, ref_keys));
  }
}

TEST(SortCpuSegmented, EmptySingleUnevenAndGaps) {
  // [0, 5) before the first segment and [190, 200) after the last are untouched; [5, 5) and
  // [20, 20) are empty, [5, 6) has one element, the rest are uneven.
  const std::vector<std::size_t> offsets = {5, 5, 6, 20, 20, 100, 130, 190};
  check_segmented(200, offsets, 8, ssum::less{});
  check_segmented(200, offsets, 1000, ssum::greater{});
  check_segmented(190, offsets, 8, ssum::less{});  // the last segment ends at n
}

// Segments are consecutive ([offsets[s], offsets[s + 1])), so the keys no segment covers are
// [0, offsets[0]) and [offsets[segments], n): both must stay where they are.
TEST(SortCpuSegmented, LongSegmentsWithHeadAndTail) {
  // 60 segments, lengths up to 3000 (past the small sort: the block form on one thread), a
  // third of them short, some empty.
  std::mt19937_64 rng(99);
  std::vector<std::size_t> offsets = {37};
  for (int s = 0; s < 60; ++s) offsets.push_back(offsets.back() + (rng() % 3 == 0 ? rng() % 70 : rng() % 3000));
  const std::size_t n = offsets.back() + 123;
  check_segmented(n, offsets, 16, ssum::less{});
  check_segmented(n, offsets, 1u << 30, ssum::greater{});
}

TEST(SortCpuSegmented, OutsideTheSegmentsStaysPut) {
  // Segments [10, 40), [40, 40), [40, 41), [41, 200) of n = 300, on reversed keys: [0, 10) and
  // [200, 300) would move under any sort, and must not.
  const std::vector<std::size_t> offsets = {10, 40, 40, 41, 200};
  std::vector<std::int32_t> keys(300);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::int32_t>(300 - i);
  for (unsigned t : kThreads) {
    std::vector<std::int32_t> out = keys;
    ssum::segmented_odd_even_sort(ssum::cpu{t}, out.data(), out.size(), offsets.data(), offsets.size() - 1);
    for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(out[i], keys[i]);
    for (std::size_t i = 200; i < 300; ++i) EXPECT_EQ(out[i], keys[i]);
    EXPECT_TRUE(std::is_sorted(out.begin() + 10, out.begin() + 40));
    EXPECT_TRUE(std::is_sorted(out.begin() + 41, out.begin() + 200));
    EXPECT_EQ(out[40], keys[40]);
  }
}

TEST(SortCpuSegmented, ManySmallSegments) {
  // 2^14 keys in segments of 32 and of 17 (the last one shorter).
  for (std::size_t len : {std::size_t(32), std::size_t(17)}) {
    const std::size_t n = std::size_t(1) << 14;
    std::vector<std::size_t> offsets;
    for (std::size_t o = 0; o < n; o += len) offsets.push_back(o);
    offsets.push_back(n);
    check_segmented(n, offsets, 8, ssum::less{});
  }
}

TEST(SortCpuSegmented, InvalidOffsetsThrowAndTouchNothing) {
  std::vector<std::int32_t> keys(100);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::int32_t>(100 - i);
  std::vector<std::uint32_t> values = iota_values(100);
  const std::vector<std::int32_t> keys0 = keys;
  const std::vector<std::uint32_t> values0 = values;
  const std::vector<std::vector<std::size_t>> bad = {
      {0, 50, 40, 100},  // decreasing
      {0, 50, 101},      // past n
      {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 99},  // decreasing only at the very end
      {101},             // no segments, but the one offset is past n
  };
  for (unsigned t : kThreads) {
    for (const auto& off : bad) {
      EXPECT_THROW(ssum::segmented_odd_even_sort(ssum::cpu{t}, keys.data(), 100, off.data(), off.size() - 1),
                   std::invalid_argument);
      EXPECT_THROW(ssum::segmented_odd_even_sort(ssum::cpu{t}, keys.data(), values.data(), 100, off.data(),
                                                 off.size() - 1),
                   std::invalid_argument);
    }
    EXPECT_THROW(ssum::segmented_odd_even_sort(ssum::cpu{t}, keys.data(), 100, nullptr, 3), std::invalid_argument);
    EXPECT_EQ(keys, keys0);
    EXPECT_EQ(values, values0);
  }
}

}  // namespace

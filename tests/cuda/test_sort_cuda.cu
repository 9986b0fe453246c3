// CUDA odd-even transposition sorts against std::stable_sort. Skipped without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "device_array.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/sort.hpp"

namespace {

using ssum_test::device_array;
#define SKIP_WITHOUT_DEVICE() SSUM_SKIP_WITHOUT_DEVICE("CUDA sort")

enum class pattern { random, sorted, reversed, equal, few_values, extremes };

// Integers over their whole range (negatives and the top bits included); floats of both signs.
template <class K>
K random_key(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<K>) return static_cast<K>(double(rng() % 2000001) - 1e6);
  else return static_cast<K>(rng());
}

// The type's limits and their neighbours: where a comparison or a sentinel can go wrong.
template <class K>
K extreme_key(std::mt19937_64& rng) {
  using L = std::numeric_limits<K>;
  if constexpr (std::is_floating_point_v<K>) {
    const K pick[] = {L::infinity(), -L::infinity(), L::max(), L::lowest(), K(1), K(-1), L::min(), -L::min()};
    return pick[rng() % 8];
  } else {
    const K pick[] = {L::max(), L::lowest(), K(0), K(1), static_cast<K>(-1), static_cast<K>(L::max() - 1),
                      static_cast<K>(L::lowest() + 1)};
    return pick[rng() % 7];
  }
}

template <class K>
std::vector<K> make_keys(std::size_t n, pattern p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> k(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
      case pattern::random: k[i] = random_key<K>(rng); break;
      case pattern::extremes: k[i] = extreme_key<K>(rng); break;
      case pattern::sorted: k[i] = static_cast<K>(i); break;
      case pattern::reversed: k[i] = static_cast<K>(n - i); break;
      case pattern::equal: k[i] = K(7); break;
      case pattern::few_values: k[i] = static_cast<K>(rng() % 8); break;
    }
  }
  return k;
}

// Reference: std::stable_sort of (key, original index) by key.
template <class K, class C>
void expect_stable_sorted(const std::vector<K>& input, C comp, const std::string& what) {
  const std::size_t n = input.size();
  std::vector<std::uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  std::vector<std::uint32_t> expect_idx = idx;
  std::stable_sort(expect_idx.begin(), expect_idx.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return comp(input[a], input[b]); });
  std::vector<K> expect_keys(n);
  for (std::size_t i = 0; i < n; ++i) expect_keys[i] = input[expect_idx[i]];

  device_array<K> keys(input);
  ssum::odd_even_sort(ssum::cuda{}, keys.ptr, n, comp);
  const auto got = keys.to_host();
  ASSERT_EQ(std::memcmp(got.data(), expect_keys.data(), n * sizeof(K)), 0) << what << " keys, n=" << n;

  device_array<K> keys2(input);
  device_array<std::uint32_t> values(idx);
  ssum::odd_even_sort(ssum::cuda{}, keys2.ptr, values.ptr, n, comp);
  EXPECT_EQ(values.to_host(), expect_idx) << what << " stability, n=" << n;
}

template <class K>
class CudaSort : public ::testing::Test {};
using key_types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(CudaSort, key_types);

TYPED_TEST(CudaSort, MatchesStableSortAtEdgeSizesAndPatterns) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : {0, 1, 2, 3, 31, 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049, 6143, 100003}) {
    for (pattern p : {pattern::random, pattern::sorted, pattern::reversed, pattern::equal, pattern::few_values,
                      pattern::extremes}) {
      const auto input = make_keys<TypeParam>(n, p, n * 5 + int(p));
      expect_stable_sorted(input, ssum::less{}, "ascending");
      expect_stable_sorted(input, ssum::greater{}, "descending");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TYPED_TEST(CudaSort, LargeRandomAndFewValues) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = 1000003;
  expect_stable_sorted(make_keys<TypeParam>(n, pattern::random, 1), ssum::less{}, "random 10^6+3");
  expect_stable_sorted(make_keys<TypeParam>(n, pattern::few_values, 2), ssum::greater{}, "few values 10^6+3");
}

TEST(CudaSortFloat, NaNAndSignedZeroPolicy) {
  SKIP_WITHOUT_DEVICE();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> input = {3.f, nan, -0.f, 1.f, 0.f, nan, -2.f, -0.f, std::numeric_limits<float>::infinity()};
  for (int rep = 0; rep < 300; ++rep) input.push_back(rep % 3 == 0 ? nan : float(rep % 7) - 3.f);
  expect_stable_sorted(input, ssum::less{}, "NaN last");
  expect_stable_sorted(input, ssum::greater{}, "NaN first");
  device_array<float> keys(input);
  ssum::odd_even_sort(ssum::cuda{}, keys.ptr, input.size());
  const auto got = keys.to_host();
  const std::size_t nans = std::count_if(input.begin(), input.end(), [](float x) { return std::isnan(x); });
  for (std::size_t i = 0; i < input.size(); ++i) EXPECT_EQ(std::isnan(got[i]), i >= input.size() - nans) << i;
}

TYPED_TEST(CudaSort, SegmentedMatchesPerSegmentStableSort) {
  SKIP_WITHOUT_DEVICE();
  using K = TypeParam;
  // Empty, single, warp-sized, block-sized and multi-tile segments; 4 keys before the first
  // and 3 after the last belong to no segment and must stay where they are.
  std::vector<std::size_t> offsets = {4};
  for (std::size_t len : {0, 1, 2, 33, 256, 257, 1000, 2048, 2049, 5000, 0, 7, 300}) offsets.push_back(offsets.back() + len);
  const std::size_t n = offsets.back() + 3;
  const auto input = make_keys<K>(n, pattern::few_values, 3);
  std::vector<K> expect = input;
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    std::stable_sort(expect.begin() + offsets[s], expect.begin() + offsets[s + 1], ssum::less{});
  }
  device_array<K> keys(input);
  device_array<std::size_t> d_offsets(offsets);
  ssum::segmented_odd_even_sort(ssum::cuda{}, keys.ptr, n, d_offsets.ptr, offsets.size() - 1);
  EXPECT_EQ(keys.to_host(), expect);
}

// Every length class of the segmented sort, many segments each, with values (stability) and
// without, ascending and descending: lengths 0..40 cover the 8-lane class and its edge,
// 200..300 the warp class, 500..1100 the wide warp class, 1500..2100 the block class.
TYPED_TEST(CudaSort, SegmentedLengthClassesMatchStableSort) {
  SKIP_WITHOUT_DEVICE();
  using K = TypeParam;
  std::mt19937_64 rng(11);
  std::vector<std::size_t> offsets = {0};
  for (int s = 0; s < 41; ++s) offsets.push_back(offsets.back() + s);
  for (int s = 0; s < 300; ++s) offsets.push_back(offsets.back() + rng() % 33);
  for (std::size_t len : {200, 255, 256, 257, 300, 511, 512, 513, 1023, 1024, 1025, 1100, 1500, 2047, 2048, 2049, 3001}) {
    offsets.push_back(offsets.back() + len);
  }
  for (int s = 0; s < 40; ++s) offsets.push_back(offsets.back() + 33 + rng() % 1000);
  const std::size_t n = offsets.back();
  for (pattern p : {pattern::random, pattern::few_values, pattern::reversed}) {
    const auto input = make_keys<K>(n, p, 17 + int(p));
    std::vector<std::uint32_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0u);
    for (bool descending : {false, true}) {
      std::vector<std::uint32_t> expect_idx = idx;
      for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
        std::stable_sort(expect_idx.begin() + offsets[s], expect_idx.begin() + offsets[s + 1],
                         [&](std::uint32_t a, std::uint32_t b) {
                           return descending ? ssum::greater{}(input[a], input[b]) : ssum::less{}(input[a], input[b]);
                         });
      }
      std::vector<K> expect_keys(n);
      for (std::size_t i = 0; i < n; ++i) expect_keys[i] = input[expect_idx[i]];
      device_array<std::size_t> d_offsets(offsets);
      device_array<K> keys(input);
      device_array<K> keys2(input);
      device_array<std::uint32_t> values(idx);
      if (descending) {
        ssum::segmented_odd_even_sort(ssum::cuda{}, keys.ptr, n, d_offsets.ptr, offsets.size() - 1, ssum::greater{});
        ssum::segmented_odd_even_sort(ssum::cuda{}, keys2.ptr, values.ptr, n, d_offsets.ptr, offsets.size() - 1,
                                      ssum::greater{});
      } else {
        ssum::segmented_odd_even_sort(ssum::cuda{}, keys.ptr, n, d_offsets.ptr, offsets.size() - 1);
        ssum::segmented_odd_even_sort(ssum::cuda{}, keys2.ptr, values.ptr, n, d_offsets.ptr, offsets.size() - 1);
      }
      const auto got = keys.to_host();
      ASSERT_EQ(std::memcmp(got.data(), expect_keys.data(), n * sizeof(K)), 0) << "keys, pattern " << int(p);
      const auto got2 = keys2.to_host();
      ASSERT_EQ(std::memcmp(got2.data(), expect_keys.data(), n * sizeof(K)), 0) << "pair keys, pattern " << int(p);
      ASSERT_EQ(values.to_host(), expect_idx) << "stability, pattern " << int(p) << (descending ? " descending" : "");
    }
  }
}

TEST(CudaSortErrors, BadOffsetsAreRefusedBeforeTouchingData) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<int> input = {5, 4, 3, 2, 1};
  device_array<int> keys(input);
  device_array<std::size_t> decreasing(std::vector<std::size_t>{0, 3, 2, 5});
  EXPECT_THROW(ssum::segmented_odd_even_sort(ssum::cuda{}, keys.ptr, 5, decreasing.ptr, 3), std::invalid_argument);
  device_array<std::size_t> beyond(std::vector<std::size_t>{0, 6});
  EXPECT_THROW(ssum::segmented_odd_even_sort(ssum::cuda{}, keys.ptr, 5, beyond.ptr, 1), std::invalid_argument);
  // Overlapping long segments (offsets that go down and up again) must not overflow a list.
  // (10 segments of 100 keys in 100 keys: the 33..256 list has room for 3.)
  std::vector<int> hundred(100);
  std::iota(hundred.rbegin(), hundred.rend(), 0);
  device_array<int> keys100(hundred);
  std::vector<std::size_t> zigzag;
  for (int i = 0; i < 20; ++i) zigzag.push_back(i % 2 ? 100 : 0);
  device_array<std::size_t> d_zigzag(zigzag);
  EXPECT_THROW(ssum::segmented_odd_even_sort(ssum::cuda{}, keys100.ptr, 100, d_zigzag.ptr, zigzag.size() - 1),
               std::invalid_argument);
  EXPECT_EQ(keys100.to_host(), hundred);
  EXPECT_EQ(keys.to_host(), input);
  EXPECT_THROW(ssum::segmented_odd_even_sort(ssum::cuda{}, keys.ptr, 5, static_cast<const std::size_t*>(nullptr), 1),
               std::invalid_argument);
  int* null = nullptr;
  EXPECT_THROW(ssum::odd_even_sort(ssum::cuda{}, null, 3), std::invalid_argument);
}

}  // namespace

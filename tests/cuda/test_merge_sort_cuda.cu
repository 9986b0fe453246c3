// CUDA odd-even merge sort (Batcher's network) against std::sort and against the host network.
// Skipped without a device. The sort is not stable: keys are compared with the reference
// (after -0.0 -> +0.0: the two are equal under ssum::less, so their order is unspecified),
// pairs as a multiset. The network is oblivious, so the device must also reproduce the host
// backend's output bit for bit, values of equal keys included.
// "LargeRandom" in a name marks the slow tests (a sanitizer run can leave them out).
#include <cuda_runtime.h>
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

#include "device_array.cuh"
#include "ssum/sort.hpp"

namespace {

using ssum_test::device_array;
#define SKIP_WITHOUT_DEVICE() SSUM_SKIP_WITHOUT_DEVICE("CUDA odd-even merge sort")

constexpr std::size_t tile = 4096;  // src/cuda/sort/odd_even_merge_sort.cu: oem_policy::tile

enum class pattern { random, sorted, reversed, equal, few_values, extremes };
const pattern all_patterns[] = {pattern::random, pattern::sorted,     pattern::reversed,
                                pattern::equal,  pattern::few_values, pattern::extremes};

const char* name_of(pattern p) {
  switch (p) {
    case pattern::random: return "random";
    case pattern::sorted: return "sorted";
    case pattern::reversed: return "reversed";
    case pattern::equal: return "equal";
    case pattern::few_values: return "few_values";
    case pattern::extremes: return "extremes";
  }
  return "?";
}

template <class K>
K random_key(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<K>) return static_cast<K>((double(rng() % 2000001) - 1e6) / 8);
  else return static_cast<K>(rng());  // the whole range, negatives included
}

// The keys that equal the sentinels of either comparator (max/lowest, NaN/-inf) and friends.
template <class K>
K extreme_key(std::mt19937_64& rng) {
  using L = std::numeric_limits<K>;
  if constexpr (std::is_floating_point_v<K>) {
    const K pick[] = {L::quiet_NaN(), L::infinity(), -L::infinity(), K(0), -K(0), L::max(), L::lowest(), K(1)};
    return pick[rng() % 8];
  } else {
    const K pick[] = {L::max(), L::lowest(), K(0), K(1), static_cast<K>(-1), static_cast<K>(L::max() - 1)};
    return pick[rng() % 6];
  }
}

template <class K>
std::vector<K> make_keys(std::size_t n, pattern p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> k(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
      case pattern::random: k[i] = random_key<K>(rng); break;
      case pattern::sorted: k[i] = static_cast<K>(i); break;
      case pattern::reversed: k[i] = static_cast<K>(n - i); break;
      case pattern::equal: k[i] = K(7); break;
      case pattern::few_values: k[i] = static_cast<K>(rng() % 8); break;
      case pattern::extremes: k[i] = extreme_key<K>(rng); break;
    }
  }
  return k;
}

// -0.0 -> +0.0 (equal under the comparators); everything else unchanged, NaN included.
template <class K>
K normalised(K x) {
  if constexpr (std::is_floating_point_v<K>) return x == K(0) ? K(0) : x;
  else return x;
}

template <class K>
using bits_of = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;

template <class K>
bits_of<K> key_bits(K x) {
  const K y = normalised(x);
  bits_of<K> b;
  std::memcpy(&b, &y, sizeof b);
  return b;
}

// First index where the keys differ (after normalising), or n.
template <class K>
std::size_t first_difference(const std::vector<K>& a, const std::vector<K>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (key_bits(a[i]) != key_bits(b[i])) return i;
  }
  return a.size();
}

template <class K, class C>
void expect_sorts(const std::vector<K>& input, C comp, const std::string& what) {
  const std::size_t n = input.size();
  std::vector<K> expect = input;
  std::sort(expect.begin(), expect.end(), comp);

  device_array<K> keys(input);
  ssum::odd_even_merge_sort(ssum::cuda{}, keys.ptr, n, comp);
  const auto got = keys.to_host();
  const std::size_t at = first_difference(got, expect);
  ASSERT_EQ(at, n) << what << " keys, n=" << n << ": got " << +got[at] << ", expected " << +expect[at];

  // Pairs: keys as above; (key, value) pairs a permutation of the input's.
  std::vector<std::uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  device_array<K> keys2(input);
  device_array<std::uint32_t> values(idx);
  ssum::odd_even_merge_sort(ssum::cuda{}, keys2.ptr, values.ptr, n, comp);
  const auto got2 = keys2.to_host();
  const auto got_values = values.to_host();
  ASSERT_EQ(first_difference(got2, expect), n) << what << " pair keys, n=" << n;
  std::vector<std::pair<bits_of<K>, std::uint32_t>> in_pairs(n), out_pairs(n);
  for (std::size_t i = 0; i < n; ++i) {
    in_pairs[i] = {key_bits(input[i]), idx[i]};
    out_pairs[i] = {key_bits(got2[i]), got_values[i]};
  }
  std::sort(in_pairs.begin(), in_pairs.end());
  std::sort(out_pairs.begin(), out_pairs.end());
  ASSERT_TRUE(in_pairs == out_pairs) << what << " pairs are not a permutation of the input's, n=" << n;
}

// The device runs the host's network comparator for comparator: identical bits, values too.
template <class K, class C>
void expect_same_as_host_network(const std::vector<K>& input, C comp, const std::string& what) {
  const std::size_t n = input.size();
  std::vector<K> host_keys = input;
  std::vector<std::uint32_t> host_values(n);
  std::iota(host_values.begin(), host_values.end(), 0u);
  device_array<K> keys(input);
  device_array<std::uint32_t> values(host_values);
  ssum::odd_even_merge_sort(ssum::cpu{}, host_keys.data(), host_values.data(), n, comp);
  ssum::odd_even_merge_sort(ssum::cuda{}, keys.ptr, values.ptr, n, comp);
  const auto got = keys.to_host();
  ASSERT_EQ(std::memcmp(got.data(), host_keys.data(), n * sizeof(K)), 0) << what << " keys differ from the host's, n=" << n;
  EXPECT_EQ(values.to_host(), host_values) << what << " values differ from the host's, n=" << n;
}

template <class K>
class CudaMergeSort : public ::testing::Test {};
using key_types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(CudaMergeSort, key_types);

const std::size_t edge_sizes[] = {0,        1,    2,        3,        31,           1023,     1024,   1025,
                                  tile - 1, tile, tile + 1, 2 * tile + 5, 8 * tile - 1, 8 * tile + 1, 100003};

TYPED_TEST(CudaMergeSort, MatchesStdSortAtEdgeSizesAndPatterns) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : edge_sizes) {
    for (pattern p : all_patterns) {
      const auto input = make_keys<TypeParam>(n, p, n * 7 + int(p));
      expect_sorts(input, ssum::less{}, std::string("ascending ") + name_of(p));
      expect_sorts(input, ssum::greater{}, std::string("descending ") + name_of(p));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TYPED_TEST(CudaMergeSort, SameBitsAsHostNetwork) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : {std::size_t(3), std::size_t(1000), tile + 1, std::size_t(70001)}) {
    for (pattern p : {pattern::few_values, pattern::extremes, pattern::random}) {
      const auto input = make_keys<TypeParam>(n, p, n + int(p));
      expect_same_as_host_network(input, ssum::less{}, std::string("ascending ") + name_of(p));
      expect_same_as_host_network(input, ssum::greater{}, std::string("descending ") + name_of(p));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TYPED_TEST(CudaMergeSort, LargeRandomAndFewValues) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = 1000003;
  expect_sorts(make_keys<TypeParam>(n, pattern::random, 1), ssum::less{}, "random 10^6+3");
  expect_sorts(make_keys<TypeParam>(n, pattern::few_values, 2), ssum::greater{}, "few values 10^6+3");
  expect_sorts(make_keys<TypeParam>(n, pattern::reversed, 3), ssum::less{}, "reversed 10^6+3");
  expect_same_as_host_network(make_keys<TypeParam>(n, pattern::extremes, 4), ssum::greater{}, "extremes 10^6+3");
}

template <class F>
void nan_and_signed_zero_policy() {
  const F nan = std::numeric_limits<F>::quiet_NaN(), inf = std::numeric_limits<F>::infinity();
  std::vector<F> input = {F(3), nan, F(-0.0), F(1), F(0), nan, F(-2), F(-0.0), inf, -inf};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5000; ++i) input.push_back(rng() % 5 == 0 ? nan : rng() % 5 == 1 ? F(rng() % 2 ? -0.0 : 0.0) : F(int(rng() % 15) - 7));
  expect_sorts(input, ssum::less{}, "NaN last");
  expect_sorts(input, ssum::greater{}, "NaN first");
  // Spelled out: under less the NaNs are the last keys, under greater the first.
  const std::size_t nans = std::count_if(input.begin(), input.end(), [](F x) { return std::isnan(x); });
  for (bool ascending : {true, false}) {
    device_array<F> keys(input);
    if (ascending) ssum::odd_even_merge_sort(ssum::cuda{}, keys.ptr, input.size(), ssum::less{});
    else ssum::odd_even_merge_sort(ssum::cuda{}, keys.ptr, input.size(), ssum::greater{});
    const auto got = keys.to_host();
    for (std::size_t i = 0; i < got.size(); ++i) {
      const bool nan_place = ascending ? i >= got.size() - nans : i < nans;
      ASSERT_EQ(std::isnan(got[i]), nan_place) << (ascending ? "less" : "greater") << " at " << i;
    }
  }
}

TEST(CudaMergeSortFloat, NaNLastAndSignedZerosEqualFloat) {
  SKIP_WITHOUT_DEVICE();
  nan_and_signed_zero_policy<float>();
}

TEST(CudaMergeSortFloat, NaNLastAndSignedZerosEqualDouble) {
  SKIP_WITHOUT_DEVICE();
  nan_and_signed_zero_policy<double>();
}

TEST(CudaMergeSortStream, OrderedOnThePolicysStream) {
  SKIP_WITHOUT_DEVICE();
  const auto input = make_keys<std::uint64_t>(300001, pattern::random, 9);
  auto expect = input;
  std::sort(expect.begin(), expect.end());
  device_array<std::uint64_t> keys(input);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ssum::odd_even_merge_sort(ssum::cuda{stream, 0}, keys.ptr, input.size());
  std::vector<std::uint64_t> got(input.size());
  ASSERT_EQ(cudaMemcpyAsync(got.data(), keys.ptr, got.size() * 8, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaStreamDestroy(stream);
  EXPECT_TRUE(got == expect);
}

TEST(CudaMergeSortErrors, NullPointersAreRefused) {
  SKIP_WITHOUT_DEVICE();
  int* null = nullptr;
  EXPECT_THROW(ssum::odd_even_merge_sort(ssum::cuda{}, null, 3), std::invalid_argument);
  device_array<int> keys(std::vector<int>{3, 2, 1});
  std::uint32_t* no_values = nullptr;
  EXPECT_THROW(ssum::odd_even_merge_sort(ssum::cuda{}, keys.ptr, no_values, 3), std::invalid_argument);
  EXPECT_EQ(keys.to_host(), (std::vector<int>{3, 2, 1}));
  EXPECT_NO_THROW(ssum::odd_even_merge_sort(ssum::cuda{}, null, 0));  // n == 0 touches nothing
}

// More than 2^31 keys: 64-bit indexes everywhere. Needs about 17 GB of device memory (keys and
// the scratch copy). The input is a known multiset, so the output is checked as a whole
// permutation in O(n) without a host sort: key i is (i mod m) * c mod 2^32 for an odd c, a
// bijection of 32-bit values, so value v stands for class j = v * c^-1 mod 2^32, which must be
// below m, and appears exactly as often as i mod m takes the value j among i < n.
TEST(CudaMergeSortHuge, LargeRandomBeyond2To31Keys) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = (std::size_t(1) << 31) + 4099, m = (std::size_t(1) << 30) + 12345;
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  if (free_bytes < 2 * n * sizeof(std::uint32_t) + (std::size_t(1) << 30)) GTEST_SKIP() << "not enough device memory";
  constexpr std::uint32_t c = 2654435761u;
  std::uint32_t c_inverse = c;  // Newton's iteration for the inverse modulo 2^32 of an odd number
  for (int k = 0; k < 5; ++k) c_inverse *= 2u - c * c_inverse;
  ASSERT_EQ(c * c_inverse, 1u);
  std::vector<std::uint32_t> input(n);
  for (std::size_t i = 0; i < n; ++i) input[i] = static_cast<std::uint32_t>(i % m) * c;
  device_array<std::uint32_t> keys(input);
  ssum::odd_even_merge_sort(ssum::cuda{}, keys.ptr, n);
  ASSERT_EQ(cudaMemcpy(input.data(), keys.ptr, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  std::size_t unsorted = 0, foreign = 0, wrong_multiplicity = 0, runs = 0;
  for (std::size_t i = 0; i < n;) {
    if (i > 0 && input[i] < input[i - 1]) ++unsorted;
    std::size_t end = i + 1;
    while (end < n && input[end] == input[i]) ++end;
    const std::size_t j = static_cast<std::uint32_t>(input[i] * c_inverse);
    if (j >= m) {
      ++foreign;
    } else if (end - i != n / m + (j < n % m ? 1 : 0)) {
      ++wrong_multiplicity;
    }
    ++runs;
    i = end;
  }
  EXPECT_EQ(unsorted, 0u);
  EXPECT_EQ(foreign, 0u);
  EXPECT_EQ(wrong_multiplicity, 0u);
  EXPECT_EQ(runs, m);  // with the checks above: every class, each as often as it occurs
}

}  // namespace

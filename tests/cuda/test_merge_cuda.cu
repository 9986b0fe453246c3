// CUDA merges and the equal-pairs search (ssum/merge.hpp with ssum::cuda):
//   merge              against std::merge, bit for bit: sizes 0/0, 0/n, n/0, 1/1, around one
//                      tile (tile - 1, tile, tile + 1 outputs and inputs), 10^6 + 7 by 10^3,
//                      very unequal lengths; all six types; ssum::less and ssum::greater;
//                      few and many equal keys;
//   merge_by_key       stability: many equal keys across inputs, values tag input and position;
//   floats             NaN, -0.0 / +0.0, infinities against std::merge with ssum::less;
//   merge_generated    plus_constant and minus_reversed against the materialised b;
//   find_pair_sum /    against brute force (small, many seeds, duplicates, negative values,
//   count_pair_sums    values at the type's limits, no-match targets) and a std::map
//                      multiplicity reference (large, long runs of equal values across tiles);
//   bulk-copied tiles (CudaMergeBulk, CudaPairSumsBulk): the persistent kernels that the calls
//                      above run on sm_90, in small shapes and with few blocks, so that blocks
//                      go round their rings of stages, ranges start and end at every offset
//                      inside 16 bytes and arrays end inside a partial 16-byte piece;
//   errors, streams, and (CudaMergeLarge.*) more than 2^31 outputs / diagonals.
// Every test skips, saying so, where no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/merge/merge_bulk_kernels.cuh"
#include "cuda/merge/merge_kernels.cuh"
#include "device_array.cuh"
#include "../sorted_inputs.hpp"
#include "ssum/merge.hpp"

namespace {

#define CHECK_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

using ssum_test::device_array;
#define SKIP_WITHOUT_DEVICE() SSUM_SKIP_WITHOUT_DEVICE("CUDA merge")

// Tile sizes, for edge cases at tile +- 1: merge_by_key uses merge_tuning's, the key-only
// merges merge_bulk_tuning's (4-byte keys) or merge_keys_tuning's, the pair sums
// pair_sum_bulk_tuning's.
template <class T>
constexpr std::size_t tile_of() {
  return ssum::cuda_detail::merge_tuning<T>::tile;
}
template <class T>
constexpr std::size_t keys_tile_of() {
  using bulk = ssum::cuda_detail::merge_bulk_tuning<T>;
  return bulk::used ? std::size_t(bulk::threads) * bulk::items : ssum::cuda_detail::merge_keys_tuning<T>::tile;
}
template <class T>
constexpr std::size_t pair_tile_of() {
  return ssum::cuda_detail::pair_sum_bulk_tuning<T>::tile;
}

using ssum_test::same_bits;
using ssum_test::sorted_random;

// First index where x and y differ (for messages).
template <class T>
std::size_t first_difference(const std::vector<T>& x, const std::vector<T>& y) {
  const std::size_t n = std::min(x.size(), y.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (std::memcmp(&x[k], &y[k], sizeof(T)) != 0) return k;
  }
  return n;
}

template <class T, class Compare>
void check_merge(const std::vector<T>& a, const std::vector<T>& b, Compare comp, const std::string& what) {
  std::vector<T> expect(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin(), comp);
  device_array<T> d_a(a), d_b(b), d_out(expect.size());
  ssum::merge(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), d_out.ptr, comp);
  const std::vector<T> got = d_out.to_host();
  EXPECT_TRUE(same_bits(got, expect)) << what << ": na=" << a.size() << " nb=" << b.size()
                                      << " first difference at " << first_difference(got, expect);
}

template <class T>
std::vector<T> descending(std::vector<T> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

// (na, nb) pairs around the tile of type T, plus the issue's cases.
template <class T>
std::vector<std::pair<std::size_t, std::size_t>> merge_sizes() {
  const std::size_t t = keys_tile_of<T>();
  std::vector<std::pair<std::size_t, std::size_t>> s = {
      {0, 0},         {0, 5},          {5, 0},         {0, t + 1},         {t + 1, 0},     {1, 1},
      {1, 0},         {0, 1},          {t - 1, 0},     {0, t},             {t / 3, t - 1 - t / 3},
      {t / 3, t - t / 3}, {t / 3, t + 1 - t / 3}, {t - 1, 1}, {1, t - 1},      {t - 1, t},     {t, t},
      {t + 1, t},     {t + 1, t + 1},  {2 * t + 3, t - 1}, {1000007, 1000}, {1000, 1000007}, {1, 100000},
      {100000, 1},    {3, 777777},     {777777, 3}};
  std::mt19937_64 rng(17);
  for (int k = 0; k < 6; ++k) s.emplace_back(rng() % 300000, rng() % 300000);
  return s;
}

template <class T>
class CudaMerge : public ::testing::Test {};
using merge_types = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(CudaMerge, merge_types);

TYPED_TEST(CudaMerge, MatchesStdMergeAtEdgeSizes) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  std::uint64_t seed = 1;
  for (const auto& [na, nb] : merge_sizes<T>()) {
    for (std::uint64_t range : {std::uint64_t{0}, std::uint64_t{50}}) {
      const std::vector<T> a = sorted_random<T>(na, seed++, range), b = sorted_random<T>(nb, seed++, range);
      const std::string what = "range " + std::to_string(range);
      check_merge(a, b, ssum::less{}, "less, " + what);
      check_merge(descending(a), descending(b), ssum::greater{}, "greater, " + what);
    }
  }
}

// 16-byte loads and stores are taken only where the pointers allow them: inputs and output
// off alignment in every combination give the same merge.
TYPED_TEST(CudaMerge, OffsetPointersMatchStdMerge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t t = keys_tile_of<T>();
  std::uint64_t seed = 900;
  for (const auto& [na, nb] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {t - 1, t + 2}, {3 * t + 5, 7}, {100003, 77777}}) {
    const std::vector<T> a = sorted_random<T>(na + 3, seed++, 50), b = sorted_random<T>(nb + 3, seed++, 50);
    device_array<T> d_a(a), d_b(b), d_out(na + nb + 3);
    for (int oa : {0, 1, 3}) {
      for (int ob : {0, 2}) {
        for (int oo : {0, 1}) {
          std::vector<T> expect(na + nb);
          std::merge(a.begin() + oa, a.begin() + oa + na, b.begin() + ob, b.begin() + ob + nb, expect.begin(), ssum::less{});
          ssum::merge(ssum::cuda{}, d_a.ptr + oa, na, d_b.ptr + ob, nb, d_out.ptr + oo, ssum::less{});
          const std::vector<T> all = d_out.to_host();
          const std::vector<T> got(all.begin() + oo, all.begin() + oo + na + nb);
          EXPECT_TRUE(same_bits(got, expect)) << "offsets " << oa << "/" << ob << "/" << oo << " na=" << na << " nb=" << nb;
        }
      }
    }
  }
}

// Inputs from disjoint or interleaved value ranges: whole tiles from one input.
TYPED_TEST(CudaMerge, DisjointAndAllEqualInputs) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t t = keys_tile_of<T>();
  const std::vector<T> low = sorted_random<T>(3 * t + 7, 3, 0);
  std::vector<T> high(low.size());  // every element above low's last
  for (std::size_t k = 0; k < low.size(); ++k) high[k] = static_cast<T>(low[k] + (low.back() - low.front()) + T(1));
  check_merge(low, high, ssum::less{}, "a below b");
  check_merge(high, low, ssum::less{}, "a above b");
  check_merge(descending(high), descending(low), ssum::greater{}, "a above b, greater");
  const std::vector<T> same_a(2 * t + 1, T(5)), same_b(t + 3, T(5));
  check_merge(same_a, same_b, ssum::less{}, "all equal");
  check_merge(same_a, same_b, ssum::greater{}, "all equal, greater");
}

// Stability: equal keys across and within inputs; the values record input and position.
template <class K, class V, class Compare>
void check_by_key(const std::vector<K>& a, const std::vector<K>& b, Compare comp, const std::string& what) {
  const V b_tag = V(1) << (sizeof(V) * 8 - 1);
  std::vector<V> av(a.size()), bv(b.size());
  for (std::size_t k = 0; k < a.size(); ++k) av[k] = static_cast<V>(k);
  for (std::size_t k = 0; k < b.size(); ++k) bv[k] = static_cast<V>(b_tag | static_cast<V>(k));
  std::vector<std::pair<K, V>> pa(a.size()), pb(b.size()), expect(a.size() + b.size());
  for (std::size_t k = 0; k < a.size(); ++k) pa[k] = {a[k], av[k]};
  for (std::size_t k = 0; k < b.size(); ++k) pb[k] = {b[k], bv[k]};
  std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), expect.begin(),
             [comp](const std::pair<K, V>& x, const std::pair<K, V>& y) { return comp(x.first, y.first); });
  std::vector<K> expect_keys(expect.size());
  std::vector<V> expect_values(expect.size());
  for (std::size_t k = 0; k < expect.size(); ++k) expect_keys[k] = expect[k].first, expect_values[k] = expect[k].second;

  device_array<K> d_a(a), d_b(b), d_out(expect.size());
  device_array<V> d_av(av), d_bv(bv), d_out_v(expect.size());
  ssum::merge_by_key(ssum::cuda{}, d_a.ptr, d_av.ptr, a.size(), d_b.ptr, d_bv.ptr, b.size(), d_out.ptr, d_out_v.ptr,
                     comp);
  const std::vector<K> keys = d_out.to_host();
  const std::vector<V> values = d_out_v.to_host();
  EXPECT_TRUE(same_bits(keys, expect_keys)) << what << ": keys differ at " << first_difference(keys, expect_keys);
  EXPECT_EQ(values, expect_values) << what << ": values differ at " << first_difference(values, expect_values);
}

TYPED_TEST(CudaMerge, MergeByKeyIsStable) {
  SKIP_WITHOUT_DEVICE();
  using K = TypeParam;
  const std::size_t t = tile_of<K>();
  const std::pair<std::size_t, std::size_t> sizes[] = {{0, 0},          {0, 10},         {10, 0},         {1, 1},
                                                       {t - 1, t + 1},  {3 * t + 5, 2 * t - 7}, {1000007, 1000},
                                                       {1000, 1000007}, {5, 300001}};
  std::uint64_t seed = 100;
  for (const auto& [na, nb] : sizes) {
    for (std::uint64_t range : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{0}}) {
      const std::vector<K> a = sorted_random<K>(na, seed++, range), b = sorted_random<K>(nb, seed++, range);
      const std::string what = "range " + std::to_string(range) + " na=" + std::to_string(na) +
                               " nb=" + std::to_string(nb);
      check_by_key<K, std::uint32_t>(a, b, ssum::less{}, "u32 values, less, " + what);
      check_by_key<K, std::uint64_t>(a, b, ssum::less{}, "u64 values, less, " + what);
      check_by_key<K, std::uint32_t>(descending(a), descending(b), ssum::greater{}, "u32 values, greater, " + what);
      check_by_key<K, std::uint64_t>(descending(a), descending(b), ssum::greater{}, "u64 values, greater, " + what);
    }
  }
}

TYPED_TEST(CudaMerge, FloatSpecialValues) {
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) {
    SKIP_WITHOUT_DEVICE();
    using lim = std::numeric_limits<T>;
    const T specials[] = {lim::quiet_NaN(), -lim::quiet_NaN(), T(-0.0), T(0.0), lim::infinity(), -lim::infinity(),
                          lim::denorm_min(), -lim::denorm_min(), lim::max(), lim::lowest(), T(1), T(-1)};
    std::mt19937_64 rng(7);
    for (std::size_t n : {std::size_t{12}, std::size_t{1000}, 3 * tile_of<T>() + 1, std::size_t{200003}}) {
      std::vector<T> a(n), b(n / 2 + 1);
      for (auto& x : a) x = specials[rng() % 12];
      for (auto& x : b) x = specials[rng() % 12];
      std::stable_sort(a.begin(), a.end(), ssum::less{});
      std::stable_sort(b.begin(), b.end(), ssum::less{});
      check_merge(a, b, ssum::less{}, "specials, less");
      std::stable_sort(a.begin(), a.end(), ssum::greater{});
      std::stable_sort(b.begin(), b.end(), ssum::greater{});
      check_merge(a, b, ssum::greater{}, "specials, greater");
    }
  } else {
    GTEST_SKIP() << "floating point only";
  }
}

template <class T, class BAt, class Compare>
void check_generated(const std::vector<T>& a, const std::vector<T>& data, BAt gen_on_host, BAt gen_on_device,
                     std::size_t nb, Compare comp, const std::string& what) {
  std::vector<T> b(nb);
  for (std::size_t j = 0; j < nb; ++j) b[j] = gen_on_host(j);
  std::vector<T> expect(a.size() + nb);
  std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin(), comp);
  device_array<T> d_a(a), d_out(expect.size());
  ssum::merge_generated(ssum::cuda{}, d_a.ptr, a.size(), gen_on_device, nb, d_out.ptr, comp);
  const std::vector<T> got = d_out.to_host();
  EXPECT_TRUE(same_bits(got, expect)) << what << ": na=" << a.size() << " nb=" << nb << " data=" << data.size()
                                      << " first difference at " << first_difference(got, expect);
}

TYPED_TEST(CudaMerge, MergeGeneratedMatchesMaterialised) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t t = keys_tile_of<T>();
  const std::pair<std::size_t, std::size_t> sizes[] = {{0, 0}, {0, 7},         {7, 0},          {1, 1},
                                                       {t - 1, t}, {t + 1, 2 * t}, {1000007, 1000}, {1000, 1000007}};
  std::uint64_t seed = 500;
  for (const auto& [na, nb] : sizes) {
    for (std::uint64_t range : {std::uint64_t{0}, std::uint64_t{40}}) {
      const std::vector<T> a = sorted_random<T>(na, seed++, range);
      const std::vector<T> data = sorted_random<T>(nb, seed++, range);
      device_array<T> d_data(data);
      const T c = static_cast<T>(3);
      // t above every element, so t - b stays in range for unsigned types too.
      const T tt = static_cast<T>((data.empty() ? T(0) : data.back()) + static_cast<T>(5));
      const std::string what = "range " + std::to_string(range);
      check_generated(a, data, ssum::plus_constant<T>{data.data(), c}, ssum::plus_constant<T>{d_data.ptr, c}, nb,
                      ssum::less{}, "plus_constant, less, " + what);
      check_generated(a, data, ssum::minus_reversed<T>{data.data(), nb, tt}, ssum::minus_reversed<T>{d_data.ptr, nb, tt},
                      nb, ssum::less{}, "minus_reversed, less, " + what);
      // Descending: a and data descending; minus_reversed of descending data descends.
      const std::vector<T> ad = descending(a), dd = descending(data);
      device_array<T> d_dd(dd);
      const T low = static_cast<T>(dd.empty() ? T(0) : dd.front());  // the largest
      const T td = static_cast<T>(low + static_cast<T>(5));
      check_generated(ad, dd, ssum::plus_constant<T>{dd.data(), c}, ssum::plus_constant<T>{d_dd.ptr, c}, nb,
                      ssum::greater{}, "plus_constant, greater, " + what);
      check_generated(ad, dd, ssum::minus_reversed<T>{dd.data(), nb, td}, ssum::minus_reversed<T>{d_dd.ptr, nb, td}, nb,
                      ssum::greater{}, "minus_reversed, greater, " + what);
    }
  }
  // b shorter than data: minus_reversed reads data[n - 1 - j], the top nb elements.
  const std::vector<T> a = sorted_random<T>(5000, 9, 0), data = sorted_random<T>(3000, 10, 0);
  device_array<T> d_data(data);
  const T tt = static_cast<T>(data.back() + static_cast<T>(1));
  check_generated(a, data, ssum::minus_reversed<T>{data.data(), 3000, tt}, ssum::minus_reversed<T>{d_data.ptr, 3000, tt},
                  1234, ssum::less{}, "minus_reversed, nb < n");
}

// merge_generated_batch: 0 to 6 merges per call (a launch takes four; groups beyond), of
// sizes from empty to many tiles side by side (their grids and partitions concatenated), each
// against std::merge of a with data + c; descending too.
TYPED_TEST(CudaMerge, MergeGeneratedBatchMatchesStdMerge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t t = keys_tile_of<T>();
  const std::pair<std::size_t, std::size_t> sizes[] = {{0, 0},     {1, 1},         {t - 1, t},      {t, t},
                                                       {t + 1, 3}, {4097, 4097},   {300000, 300000}, {2 * t + 5, 0},
                                                       {0, 777},   {123457, 98765}, {1 << 20, 1 << 20}};
  std::mt19937_64 rng(606);
  for (int round = 0; round < 8; ++round) {
    const bool desc = round % 2 == 1;
    const std::size_t count = round < 2 ? std::size_t(round) * 2 + 1 : rng() % 7;  // 1, 3, then 0..6
    std::vector<std::vector<T>> as, datas, wants;
    std::vector<std::unique_ptr<device_array<T>>> d_as, d_datas, d_outs;
    std::vector<ssum::generated_merge<T, ssum::plus_constant<T>>> merges;
    for (std::size_t k = 0; k < count; ++k) {
      const auto [na, nb] = sizes[rng() % std::size(sizes)];
      std::vector<T> a = sorted_random<T>(na, rng(), k % 2 ? 40 : 0), data = sorted_random<T>(nb, rng(), k % 2 ? 40 : 0);
      if (desc) {
        a = descending(a);
        data = descending(data);
      }
      const T c = static_cast<T>(k + 1);
      std::vector<T> b(nb), want(na + nb);
      for (std::size_t j = 0; j < nb; ++j) b[j] = static_cast<T>(data[j] + c);
      if (desc) {
        std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin(), ssum::greater{});
      } else {
        std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin(), ssum::less{});
      }
      d_as.push_back(std::make_unique<device_array<T>>(a));
      d_datas.push_back(std::make_unique<device_array<T>>(data));
      d_outs.push_back(std::make_unique<device_array<T>>(na + nb));
      merges.push_back({d_as.back()->ptr, na, ssum::plus_constant<T>{d_datas.back()->ptr, c}, nb, d_outs.back()->ptr});
      wants.push_back(std::move(want));
    }
    if (desc) {
      ssum::merge_generated_batch(ssum::cuda{}, merges.data(), merges.size(), ssum::greater{});
    } else {
      ssum::merge_generated_batch(ssum::cuda{}, merges.data(), merges.size());
    }
    for (std::size_t k = 0; k < count; ++k) {
      const std::vector<T> got = d_outs[k]->to_host();
      EXPECT_TRUE(same_bits(got, wants[k])) << "round " << round << " merge " << k << " of " << count
                                            << ": na=" << merges[k].na << " nb=" << merges[k].nb
                                            << " first difference at " << first_difference(got, wants[k]);
    }
  }
  const ssum::generated_merge<T, ssum::plus_constant<T>> bad{nullptr, 3, ssum::plus_constant<T>{nullptr, T(1)}, 0,
                                                             nullptr};
  EXPECT_THROW(ssum::merge_generated_batch(ssum::cuda{}, &bad, 1), std::invalid_argument);
}

// ---- equal pairs ----------------------------------------------------------------------

template <class T>
class CudaPairSums : public ::testing::Test {};
using pair_types = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(CudaPairSums, pair_types);

using wide = __int128;

template <class T>
std::uint64_t brute_count(const std::vector<T>& a, const std::vector<T>& b, T t) {
  std::uint64_t n = 0;
  for (T x : a)
    for (T y : b) n += static_cast<wide>(x) + static_cast<wide>(y) == static_cast<wide>(t);
  return n;
}

// Multiplicity reference: count(t) = sum over values y of B of mult_A(t - y) x mult_B(y), with
// t - y computed exactly and skipped outside T.
template <class T>
struct map_reference {
  std::map<T, std::uint64_t> in_a, in_b;
  map_reference(const std::vector<T>& a, const std::vector<T>& b) {
    for (T x : a) ++in_a[x];
    for (T y : b) ++in_b[y];
  }
  std::uint64_t count(T t) const {
    std::uint64_t n = 0;
    for (const auto& [y, mult_b] : in_b) {
      const wide need = static_cast<wide>(t) - static_cast<wide>(y);
      if (need < static_cast<wide>(std::numeric_limits<T>::min()) ||
          need > static_cast<wide>(std::numeric_limits<T>::max()))
        continue;
      const auto it = in_a.find(static_cast<T>(need));
      if (it != in_a.end()) n += it->second * mult_b;
    }
    return n;
  }
};

template <class T>
std::uint64_t map_count(const std::vector<T>& a, const std::vector<T>& b, T t) {
  return map_reference<T>(a, b).count(t);
}

// Runs both searches on the device and checks them against `expect` (the true count).
template <class T>
void check_pairs(const std::vector<T>& a, const std::vector<T>& b, T t, std::uint64_t expect,
                 const std::string& what) {
  device_array<T> d_a(a), d_b(b);
  const std::uint64_t got = ssum::count_pair_sums(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), t);
  EXPECT_EQ(got, expect) << what << ": count, na=" << a.size() << " nb=" << b.size() << " t=" << +t;
  const ssum::pair_match m = ssum::find_pair_sum(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), t);
  EXPECT_EQ(m.found, expect > 0) << what << ": find, na=" << a.size() << " nb=" << b.size() << " t=" << +t;
  if (m.found) {
    ASSERT_LT(m.i, a.size()) << what;
    ASSERT_LT(m.j, b.size()) << what;
    EXPECT_TRUE(static_cast<wide>(a[m.i]) + static_cast<wide>(b[m.j]) == static_cast<wide>(t))
        << what << ": a[" << m.i << "] = " << +a[m.i] << " + b[" << m.j << "] = " << +b[m.j] << " != " << +t;
    // Deterministic: the smallest a index with a partner, and that partner's first b.
    std::size_t first = a.size(), partner = b.size();
    for (std::size_t i = 0; i < a.size(); ++i) {
      const wide need = static_cast<wide>(t) - static_cast<wide>(a[i]);
      const auto it = std::lower_bound(b.begin(), b.end(), need, [](T x, wide v) { return static_cast<wide>(x) < v; });
      if (it != b.end() && static_cast<wide>(*it) == need) {
        first = i;
        partner = static_cast<std::size_t>(it - b.begin());
        break;
      }
    }
    EXPECT_EQ(m.i, first) << what << ": not the first a with a partner";
    EXPECT_EQ(m.j, partner) << what << ": not the first b for a[i]";
  }
}

TYPED_TEST(CudaPairSums, MatchBruteForceOnSmallInputs) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  std::mt19937_64 rng(2024);
  for (int round = 0; round < 60; ++round) {
    const std::size_t na = rng() % 301, nb = rng() % 301;
    const std::uint64_t range = round % 3 == 0 ? 0 : (round % 3 == 1 ? 8 : 40);  // 8: long runs
    const std::vector<T> a = sorted_random<T>(na, rng(), range), b = sorted_random<T>(nb, rng(), range);
    std::vector<T> targets = {T(0), T(1), T(3), static_cast<T>(range), static_cast<T>(-1)};
    if (na && nb) {
      for (int k = 0; k < 4; ++k) targets.push_back(static_cast<T>(a[rng() % na] + b[rng() % nb]));  // has a match
    }
    for (T t : targets) check_pairs(a, b, t, brute_count(a, b, t), "round " + std::to_string(round));
  }
}

TYPED_TEST(CudaPairSums, ValuesAtTheTypeLimits) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  using lim = std::numeric_limits<T>;
  std::vector<T> v = {lim::min(), static_cast<T>(lim::min() + 1), static_cast<T>(lim::min() + 2), T(0), T(1), T(2),
                      static_cast<T>(lim::max() - 2), static_cast<T>(lim::max() - 1), lim::max(),
                      static_cast<T>(lim::max() / 2), static_cast<T>(lim::max() / 2 + 1)};
  if constexpr (std::is_signed_v<T>) {
    v.push_back(T(-1));
    v.push_back(T(-2));
    v.push_back(static_cast<T>(lim::min() / 2));
  }
  std::sort(v.begin(), v.end());
  // With duplicates too: every value three times.
  std::vector<T> v3;
  for (T x : v) v3.insert(v3.end(), 3, x);
  std::vector<T> targets = v;
  for (T x : v)
    for (T y : v) {
      const wide s = static_cast<wide>(x) + static_cast<wide>(y);
      if (s >= static_cast<wide>(lim::min()) && s <= static_cast<wide>(lim::max())) targets.push_back(static_cast<T>(s));
    }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  for (T t : targets) {
    check_pairs(v, v, t, brute_count(v, v, t), "limits");
    check_pairs(v3, v, t, brute_count(v3, v, t), "limits, a tripled");
    check_pairs(v, v3, t, brute_count(v, v3, t), "limits, b tripled");
  }
}

TYPED_TEST(CudaPairSums, MatchMapReferenceOnLargeInputs) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t na = 1000000, nb = 1000007;
  for (std::uint64_t range : {std::uint64_t{0}, std::uint64_t{1} << 16, std::uint64_t{300}}) {
    const std::vector<T> a = sorted_random<T>(na, 11 + range, range), b = sorted_random<T>(nb, 12 + range, range);
    std::mt19937_64 rng(range);
    std::vector<T> targets = {static_cast<T>(a[na / 2] + b[nb / 3]), static_cast<T>(a[0] + b[nb - 1]),
                              static_cast<T>(a[na - 1] + b[0]), static_cast<T>(a[rng() % na] + b[rng() % nb]),
                              static_cast<T>(range / 2)};
    const map_reference<T> ref(a, b);
    for (T t : targets) check_pairs(a, b, t, ref.count(t), "range " + std::to_string(range));
  }
  // No match anywhere: even values only, odd targets (a full walk, no early exit).
  std::vector<T> a = sorted_random<T>(na, 5, 0), b = sorted_random<T>(nb, 6, 0);
  for (auto& x : a) x = static_cast<T>(x & ~T(1));
  for (auto& x : b) x = static_cast<T>(x & ~T(1));
  for (T t : {static_cast<T>(a[na / 2] + b[nb / 2] + 1), T(1), static_cast<T>(a[0] + b[0] + 1)}) {
    check_pairs(a, b, t, std::uint64_t{0}, "no match");
  }
}

// Runs of one value longer than a tile, in A and in C, starting and ending mid-tile.
TYPED_TEST(CudaPairSums, LongRunsAcrossTiles) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t t = pair_tile_of<T>();
  const T v = T(40), w = T(60), target = T(100);
  for (const auto& [ra, rb] : {std::pair<std::size_t, std::size_t>{3 * t + 5, 2 * t + 1}, {1, 5 * t}, {5 * t, 1},
                               {t - 1, t + 1}, {t / 2, 7 * t / 3}}) {
    // a: some smaller values, then a run of v, then larger; b likewise around w.
    std::vector<T> a(t / 3, T(10)), b(t / 5, T(20));
    a.insert(a.end(), ra, v);
    b.insert(b.end(), rb, w);
    a.insert(a.end(), t / 7 + 1, T(70));
    b.insert(b.end(), t / 2 + 3, T(80));
    // Sums a + b: 30, 70, 90 (10 + 80, 70 + 20), 60, 100 (40 + 60 only), 120, 130, 150.
    const std::uint64_t expect = std::uint64_t(ra) * rb;
    const std::string what = "runs " + std::to_string(ra) + " x " + std::to_string(rb);
    check_pairs(a, b, target, expect, what);
    check_pairs(a, b, T(90), map_count(a, b, T(90)), what + ", t=90");
    check_pairs(a, b, T(150), map_count(a, b, T(150)), what + ", t=150");
    // Everything one value: all pairs match.
    const std::vector<T> all_a(ra, v), all_b(rb, w);
    check_pairs(all_a, all_b, target, std::uint64_t(ra) * rb, what + ", all equal");
  }
}

// ---- several targets at once ------------------------------------------------------------

// The first a index with a partner for t, and that partner's first b (na, nb: none).
template <class T>
std::pair<std::size_t, std::size_t> first_pair(const std::vector<T>& a, const std::vector<T>& b, T t) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const wide need = static_cast<wide>(t) - static_cast<wide>(a[i]);
    const auto it = std::lower_bound(b.begin(), b.end(), need, [](T x, wide v) { return static_cast<wide>(x) < v; });
    if (it != b.end() && static_cast<wide>(*it) == need) return {i, static_cast<std::size_t>(it - b.begin())};
  }
  return {a.size(), b.size()};
}

// find_any_pair_sum on the device against first_pair per target: the first target (in order)
// with a match, its smallest a index, that a's first b.
template <class T>
void check_any(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& ts, const std::string& what) {
  device_array<T> d_a(a), d_b(b);
  const ssum::any_pair_match m =
      ssum::find_any_pair_sum(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), ts.data(), ts.size());
  bool expect_found = false;
  std::size_t target = 0, i = a.size(), j = b.size();
  for (std::size_t k = 0; k < ts.size() && !expect_found; ++k) {
    std::tie(i, j) = first_pair(a, b, ts[k]);
    expect_found = i < a.size();
    target = k;
  }
  const std::string where = what + ": na=" + std::to_string(a.size()) + " nb=" + std::to_string(b.size()) +
                            " targets=" + std::to_string(ts.size());
  ASSERT_EQ(m.found, expect_found) << where;
  if (!expect_found) return;
  EXPECT_EQ(m.target, target) << where;
  EXPECT_EQ(m.i, i) << where;
  EXPECT_EQ(m.j, j) << where;
  ASSERT_LT(m.target, ts.size()) << where;
  ASSERT_LT(m.i, a.size()) << where;
  ASSERT_LT(m.j, b.size()) << where;
  EXPECT_TRUE(static_cast<wide>(a[m.i]) + static_cast<wide>(b[m.j]) == static_cast<wide>(ts[m.target])) << where;
}

TYPED_TEST(CudaPairSums, AnyTargetMatchesBruteForceOnSmallInputs) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  std::mt19937_64 rng(77);
  for (int round = 0; round < 60; ++round) {
    const std::size_t na = rng() % 301, nb = rng() % 301;
    const std::uint64_t range = round % 3 == 0 ? 0 : (round % 3 == 1 ? 8 : 40);
    const std::vector<T> a = sorted_random<T>(na, rng(), range), b = sorted_random<T>(nb, rng(), range);
    std::vector<T> pool = {T(0), T(1), T(3), static_cast<T>(range), static_cast<T>(-1), std::numeric_limits<T>::max(),
                           std::numeric_limits<T>::min()};
    if (na && nb) {
      for (int k = 0; k < 4; ++k) pool.push_back(static_cast<T>(a[rng() % na] + b[rng() % nb]));
    }
    // 0 to 9 targets (groups of four and a partial one), repeats allowed.
    const std::size_t count = rng() % 10;
    std::vector<T> ts;
    for (std::size_t k = 0; k < count; ++k) ts.push_back(pool[rng() % pool.size()]);
    check_any(a, b, ts, "round " + std::to_string(round));
  }
}

// Many tiles per target (all targets' tiles in one grid): no match
// anywhere (every tile walked), a single match for one target only, C's of very different
// lengths (targets that clip most of B), and matches for every target.
TYPED_TEST(CudaPairSums, AnyTargetOnLargeInputs) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t na = 1000000, nb = 1000007;
  std::vector<T> a = sorted_random<T>(na, 21, 0), b = sorted_random<T>(nb, 22, 0);
  for (auto& x : a) x = static_cast<T>(x & ~T(1));  // even values: odd targets never match
  for (auto& x : b) x = static_cast<T>(x & ~T(1));
  const T mid = static_cast<T>(a[na / 2] + b[nb / 2]);
  const std::vector<T> odd = {static_cast<T>(mid + 1), static_cast<T>(a[0] + b[0] + 1),
                              static_cast<T>(a[na - 1] + b[nb - 1] - 1), static_cast<T>(a[na / 5] + b[nb - 7] + 3)};
  check_any(a, b, odd, "no match");
  for (std::size_t k = 0; k < 4; ++k) {
    // One target can match (an even sum, possibly several pairs), the others cannot.
    std::vector<T> ts = odd;
    const std::size_t x = (k * 2654435761u + 12345) % na, y = (k * 40503u + 777) % nb;
    ts[k] = static_cast<T>(a[x] + b[y]);
    check_any(a, b, ts, "one target of four matches, k=" + std::to_string(k));
    // The match near the very end of A, for the last target.
    ts = odd;
    ts[3] = static_cast<T>(a[na - 1 - k] + b[k]);
    check_any(a, b, ts, "last target, end of A, k=" + std::to_string(k));
  }
  // Targets that keep few b's (t - b representable / no wrap): C's of different lengths.
  std::vector<T> clipped = {static_cast<T>(a[na / 3] + b[5]), static_cast<T>(mid + 1),
                            static_cast<T>(a[100] + b[nb / 2]), static_cast<T>(a[na - 2] + b[nb - 3])};
  check_any(a, b, clipped, "mixed C lengths");
  // An earlier target matching only late in A, a later one early: the earlier target wins.
  std::vector<T> late_early = odd;
  late_early[1] = static_cast<T>(a[na - 3] + b[nb - 2]);
  late_early[2] = static_cast<T>(a[2] + b[1]);
  check_any(a, b, late_early, "earlier target matches late");
  // Six targets: two groups; the first has no match, the second one does.
  std::vector<T> six = odd;
  six.push_back(static_cast<T>(mid + 3));
  six.push_back(static_cast<T>(a[na / 7] + b[nb / 9]));
  check_any(a, b, six, "second group");
}

// Searches of 4096 tiles and more go one target per launch (merge.cu): the same answers.
TYPED_TEST(CudaPairSums, AnyTargetOneByOneWhenLarge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t tile = ssum::cuda_detail::pair_sum_tuning<T>::tile, na = 2048 * tile + 17, nb = 2048 * tile + 5;
  // Even values, ascending, inside every type (up to about 2^25 here), a few repeated.
  std::vector<T> a(na), b(nb);
  for (std::size_t i = 0; i < na; ++i) a[i] = static_cast<T>(2 * (i + i / 7) - (std::is_signed_v<T> ? 4000000 : 0));
  for (std::size_t j = 0; j < nb; ++j) b[j] = static_cast<T>(2 * (j - j / 5));
  const T mid = static_cast<T>(a[na / 2] + b[nb / 2]);
  std::vector<T> ts = {static_cast<T>(mid + 1), static_cast<T>(mid + 3), static_cast<T>(a[na - 5] + b[7]),
                       static_cast<T>(a[3] + b[nb / 2])};
  check_any(a, b, ts, "large, third target");
  ts[2] = static_cast<T>(mid + 5);
  ts[3] = static_cast<T>(mid + 7);
  check_any(a, b, ts, "large, no match");
}

// ---- errors and streams ---------------------------------------------------------------

// Inputs that break the contract (not sorted): the results are unspecified, but no kernel may
// read or write outside the arrays (tile_at clamps the splits), so the stream stays healthy.
// ---- bulk-copied tiles -------------------------------------------------------------------

// Whether the bulk kernels must run here (a device of compute capability 9.0 or later): then
// the tests check that they did rather than their fallback.
bool device_runs_bulk_copies() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  return major >= 9;
}

template <class T>
class CudaMergeBulk : public ::testing::Test {};
TYPED_TEST_SUITE(CudaMergeBulk, merge_types);

// Sizes for tiles of 96 and 160 outputs: empty, single, one tile +- 1, ranges ending anywhere
// inside a 16-byte piece, many tiles per block.
std::vector<std::pair<std::size_t, std::size_t>> bulk_sizes() {
  std::vector<std::pair<std::size_t, std::size_t>> s = {
      {0, 0},  {0, 1},  {1, 0},   {1, 1},   {95, 0},   {0, 97},    {95, 1},      {96, 96},    {97, 95},
      {159, 1}, {1, 160}, {161, 0}, {1000, 3}, {3, 1000}, {4099, 4097}, {20011, 19999}, {5, 60001}};
  std::mt19937_64 rng(321);
  for (int k = 0; k < 6; ++k) s.emplace_back(rng() % 40000, rng() % 40000);
  return s;
}

template <int Threads, int Items, int Stages, class T, class BAt, class Compare>
void check_bulk_merge(const std::vector<T>& a, const T* d_a, BAt b_at, std::size_t nb, const std::vector<T>& expect,
                      Compare comp, unsigned max_blocks, const std::string& what) {
  device_array<T> d_out(expect.size());
  ssum::cuda_detail::launch_merge_bulk<Threads, Items, Stages, 1>(nullptr, d_a, a.size(), b_at, nb, d_out.ptr, comp,
                                                                  max_blocks);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
  const std::vector<T> got = d_out.to_host();
  EXPECT_TRUE(same_bits(got, expect)) << what << " " << Threads << "x" << Items << " stages " << Stages
                                      << " blocks " << max_blocks << ": na=" << a.size() << " nb=" << nb
                                      << " first difference at " << first_difference(got, expect);
}

TYPED_TEST(CudaMergeBulk, SmallTilesFewBlocksMatchStdMerge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  using namespace ssum::cuda_detail;
  if (device_runs_bulk_copies()) {
    // The shapes below really run merge_tiles_bulk here.
    auto* kernel = merge_tiles_bulk<32, 3, 3, 1, T, load_at<T>, ssum::less>;
    EXPECT_TRUE(persistent_shape_of(kernel, 32 + merge_bulk_helper_threads, bulk_smem_bytes<T, 32, 3, 3>()).runs);
  }
  std::uint64_t seed = 900;
  for (const auto& [na, nb] : bulk_sizes()) {
    for (std::uint64_t range : {std::uint64_t{0}, std::uint64_t{30}}) {
      const std::vector<T> a = sorted_random<T>(na, seed++, range), b = sorted_random<T>(nb, seed++, range);
      std::vector<T> expect(na + nb);
      std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin(), ssum::less{});
      device_array<T> d_a(a), d_b(b);
      const std::string what = "range " + std::to_string(range);
      check_bulk_merge<32, 3, 3>(a, d_a.ptr, load_at<T>{d_b.ptr}, nb, expect, ssum::less{}, 3, what);
      check_bulk_merge<32, 5, 2>(a, d_a.ptr, load_at<T>{d_b.ptr}, nb, expect, ssum::less{}, 2, what);
      check_bulk_merge<64, 3, 4>(a, d_a.ptr, load_at<T>{d_b.ptr}, nb, expect, ssum::less{}, 0, what);
      check_bulk_merge<32, 7, 3>(a, d_a.ptr, load_at<T>{d_b.ptr}, nb, expect, ssum::less{}, 5, what);
      // Descending, ssum::greater.
      const std::vector<T> ad = descending(a), bd = descending(b);
      std::vector<T> expect_d(na + nb);
      std::merge(ad.begin(), ad.end(), bd.begin(), bd.end(), expect_d.begin(), ssum::greater{});
      device_array<T> d_ad(ad), d_bd(bd);
      check_bulk_merge<32, 3, 3>(ad, d_ad.ptr, load_at<T>{d_bd.ptr}, nb, expect_d, ssum::greater{}, 3,
                                    "greater, " + what);
    }
  }
}

// The generators: plus_constant (forward b) and minus_reversed (b read backwards out of the
// stage), with few blocks; minus_reversed over the top nb of a longer array too.
TYPED_TEST(CudaMergeBulk, GeneratedInputsMatchStdMerge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  using namespace ssum::cuda_detail;
  std::uint64_t seed = 1900;
  for (const auto& [na, nb] : bulk_sizes()) {
    const std::vector<T> a = sorted_random<T>(na, seed++, 0), data = sorted_random<T>(nb + 7, seed++, 0);
    device_array<T> d_a(a), d_data(data);
    const T c = static_cast<T>(3);
    std::vector<T> plus(nb), minus(nb);
    for (std::size_t j = 0; j < nb; ++j) plus[j] = static_cast<T>(data[j] + c);
    const T tt = static_cast<T>(data.back() + static_cast<T>(5));
    for (std::size_t j = 0; j < nb; ++j) minus[j] = static_cast<T>(tt - data[nb + 7 - 1 - j]);
    std::vector<T> want_plus(na + nb), want_minus(na + nb);
    std::merge(a.begin(), a.end(), plus.begin(), plus.end(), want_plus.begin(), ssum::less{});
    std::merge(a.begin(), a.end(), minus.begin(), minus.end(), want_minus.begin(), ssum::less{});
    check_bulk_merge<32, 3, 3>(a, d_a.ptr, ssum::plus_constant<T>{d_data.ptr, c}, nb, want_plus, ssum::less{}, 3,
                               "plus_constant");
    check_bulk_merge<32, 3, 3>(a, d_a.ptr, ssum::minus_reversed<T>{d_data.ptr, nb + 7, tt}, nb, want_minus,
                               ssum::less{}, 3, "minus_reversed");
    check_bulk_merge<64, 5, 2>(a, d_a.ptr, ssum::minus_reversed<T>{d_data.ptr, nb + 7, tt}, nb, want_minus,
                                  ssum::less{}, 0, "minus_reversed");
    check_bulk_merge<32, 7, 3>(a, d_a.ptr, ssum::plus_constant<T>{d_data.ptr, c}, nb, want_plus, ssum::less{}, 4,
                                  "plus_constant");
  }
}

// Batches of up to four merges through few blocks: tiles of different merges share a block's
// ring.
TYPED_TEST(CudaMergeBulk, BatchesMatchStdMerge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  using namespace ssum::cuda_detail;
  const auto sizes = bulk_sizes();
  std::mt19937_64 rng(77);
  for (int round = 0; round < 6; ++round) {
    const int count = 1 + round % 4;
    std::vector<std::vector<T>> wants;
    std::vector<std::unique_ptr<device_array<T>>> keep, outs;
    std::vector<ssum::generated_merge<T, ssum::plus_constant<T>>> merges;
    for (int k = 0; k < count; ++k) {
      const auto [na, nb] = sizes[rng() % sizes.size()];
      const std::vector<T> a = sorted_random<T>(na, rng(), k % 2 ? 30 : 0), data = sorted_random<T>(nb, rng(), 0);
      const T c = static_cast<T>(k + 1);
      std::vector<T> b(nb), want(na + nb);
      for (std::size_t j = 0; j < nb; ++j) b[j] = static_cast<T>(data[j] + c);
      std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin(), ssum::less{});
      keep.push_back(std::make_unique<device_array<T>>(a));
      const T* d_a = keep.back()->ptr;
      keep.push_back(std::make_unique<device_array<T>>(data));
      outs.push_back(std::make_unique<device_array<T>>(na + nb));
      merges.push_back({d_a, na, ssum::plus_constant<T>{keep.back()->ptr, c}, nb, outs.back()->ptr});
      wants.push_back(std::move(want));
    }
    if (round % 2) {
      launch_merge_batch_bulk<32, 3, 3, 1>(nullptr, merges.data(), count, ssum::less{}, 4);
    } else {
      launch_merge_batch_bulk<32, 5, 3, 1>(nullptr, merges.data(), count, ssum::less{}, 4);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int k = 0; k < count; ++k) {
      const std::vector<T> got = outs[k]->to_host();
      EXPECT_TRUE(same_bits(got, wants[k])) << "round " << round << " merge " << k << ": na=" << merges[k].na
                                            << " nb=" << merges[k].nb << " first difference at "
                                            << first_difference(got, wants[k]);
    }
  }
}

// ssum::merge_path_partition on the device against a tagged std::merge (which input each
// output came from): empty inputs, one side empty, ties, 10^6 + 7 by 10^3, pieces from one
// output (more than 4096 pieces: the warps' bracketed searches) to past the end.
template <class T, class Compare>
void check_partition(const std::vector<T>& a, const std::vector<T>& b, Compare comp, const std::string& what) {
  const std::vector<std::size_t> from_a = ssum_test::outputs_from_a(a, b, comp);
  device_array<T> d_a(a), d_b(b);
  const std::size_t total = a.size() + b.size();
  for (std::size_t piece : {std::size_t(1), std::size_t(7), std::size_t(96), std::size_t(9728), total + 1}) {
    const std::size_t pieces = (total + piece - 1) / piece;
    device_array<std::size_t> d_splits(pieces + 1);
    ASSERT_EQ(ssum::merge_path_partition(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), piece, d_splits.ptr, comp),
              pieces);
    const std::vector<std::size_t> got = d_splits.to_host();
    for (std::size_t k = 0; k <= pieces; ++k) {
      ASSERT_EQ(got[k], from_a[std::min(k * piece, total)])
          << what << " na=" << a.size() << " nb=" << b.size() << " piece " << piece << " k " << k;
    }
  }
}

TYPED_TEST(CudaMergeBulk, MergePathPartitionMatchesTaggedStdMerge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::vector<std::pair<std::size_t, std::size_t>> sizes = {
      {0, 0}, {0, 5}, {5, 0}, {1, 1}, {9727, 1}, {9728, 9729}, {1000007, 1000}, {40000, 39999}};
  std::uint64_t seed = 7100;
  for (const auto& [na, nb] : sizes) {
    const std::vector<T> a = sorted_random<T>(na, seed++, 30), b = sorted_random<T>(nb, seed++, 30);
    check_partition(a, b, ssum::less{}, "ties");
    if (na == 40000) check_partition(descending(a), descending(b), ssum::greater{}, "greater");
  }
}

// Argument checks come before any CUDA call (no device needed).
TEST(CudaMergePathPartition, BadArgumentsThrow) {
  const std::uint32_t* none = nullptr;
  std::size_t* no_splits = nullptr;
  EXPECT_THROW(ssum::merge_path_partition(ssum::cuda{}, none, 0, none, 0, 0, no_splits), std::invalid_argument);
  EXPECT_THROW(ssum::merge_path_partition(ssum::cuda{}, none, 0, none, 0, 1, no_splits), std::invalid_argument);
  std::size_t host_split = 0;  // a non-null pointer; the null a must be refused first
  EXPECT_THROW(ssum::merge_path_partition(ssum::cuda{}, none, 5, none, 0, 1, &host_split), std::invalid_argument);
  EXPECT_THROW(ssum::merge_path_partition(ssum::cuda{}, none, SIZE_MAX, none, 2, 1, &host_split),
               std::invalid_argument);
}

// The splitting warp's search (host and device code): the first true of a false-then-true
// predicate, against std::partition_point, and in about log_Ways of the range's rounds.
TEST(CudaMergeSplits, ThreadPartitionPointMatchesStdPartitionPoint) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 20000; ++t) {
    const std::size_t lo = rng() % 1000, len = t % 3 ? rng() % 100 : rng() % 5000000, hi = lo + len;
    const std::size_t answer = lo + (len ? rng() % (len + 1) : 0);
    std::size_t probes2 = 0, probes8 = 0;
    const std::size_t got2 = ssum::cuda_detail::thread_partition_point<2>(lo, hi, [&](std::size_t k) {
      ++probes2;
      return k >= answer;
    });
    const std::size_t got8 = ssum::cuda_detail::thread_partition_point<8>(lo, hi, [&](std::size_t k) {
      ++probes8;
      return k >= answer;
    });
    ASSERT_EQ(got2, answer) << "binary, [" << lo << ", " << hi << ")";
    ASSERT_EQ(got8, answer) << "8-way, [" << lo << ", " << hi << ")";
    // A binary search takes at most ceil(log2(len + 1)) + 1 probes; 8-way rounds of 7.
    const double bits = std::log2(double(len) + 1.0);
    EXPECT_LE(double(probes2), std::ceil(bits) + 1) << len;
    EXPECT_LE(double(probes8), 7.0 * (std::ceil(bits / 3.0) + 2)) << len;
  }
  // The full range of a 2^28-output merge's diagonal.
  std::size_t probes = 0;
  const std::size_t n = std::size_t{1} << 27;
  EXPECT_EQ(ssum::cuda_detail::thread_partition_point<2>(0, n, [&](std::size_t k) { return ++probes, k >= n - 3; }),
            n - 3);
  EXPECT_LE(probes, 28u);
}

// merge_tiles_bulk keeps its tile queue zeroed per stream from one launch to the next (the
// last block zeroes it): merges of growing and shrinking sizes back to back on one stream,
// with few blocks and with all, checked after a single synchronisation. Plus the public
// ssum::merge of 4-byte keys (the same kernel) on that stream.
TYPED_TEST(CudaMergeBulk, BackToBackOnOneStreamMatchStdMerge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  using namespace ssum::cuda_detail;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<std::pair<std::size_t, std::size_t>> sizes = {
      {3000, 2000}, {40000, 39999}, {1, 0}, {5, 60001}, {20011, 19999}, {96, 96}, {40000, 40000}, {7, 9}};
  std::vector<std::vector<T>> wants;
  std::vector<std::unique_ptr<device_array<T>>> keep, outs;
  std::uint64_t seed = 4400;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto [na, nb] = sizes[k];
    const std::vector<T> a = sorted_random<T>(na, seed++, k % 2 ? 30 : 0), b = sorted_random<T>(nb, seed++, 0);
    std::vector<T> want(na + nb);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin(), ssum::less{});
    keep.push_back(std::make_unique<device_array<T>>(a));
    const T* d_a = keep.back()->ptr;
    keep.push_back(std::make_unique<device_array<T>>(b));
    const T* d_b = keep.back()->ptr;
    outs.push_back(std::make_unique<device_array<T>>(na + nb));
    if (k % 3 == 2) {
      ssum::merge(ssum::cuda{stream}, d_a, na, d_b, nb, outs.back()->ptr);
    } else {
      launch_merge_bulk<32, 3, 2, 1>(stream, d_a, na, load_at<T>{d_b}, nb, outs.back()->ptr, ssum::less{},
                                     k % 3 == 0 ? 3u : 0u);
    }
    wants.push_back(std::move(want));
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const std::vector<T> got = outs[k]->to_host();
    EXPECT_TRUE(same_bits(got, wants[k])) << "merge " << k << ": na=" << sizes[k].first << " nb=" << sizes[k].second
                                          << " first difference at " << first_difference(got, wants[k]);
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
}

template <class T>
class CudaPairSumsBulk : public ::testing::Test {};
TYPED_TEST_SUITE(CudaPairSumsBulk, pair_types);

// pair_sum_tiles_bulk in small shapes with few blocks, counts and finds against the
// multiplicity reference, one to four targets per launch (a match of an earlier target or
// earlier a stops a block's later tiles; the reported match must still be the first one).
TYPED_TEST(CudaPairSumsBulk, SmallTilesFewBlocksMatchReference) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  using namespace ssum::cuda_detail;
  if (device_runs_bulk_copies()) {
    auto* kernel = pair_sum_tiles_bulk<32, 3, 2, 1, true, T>;
    EXPECT_TRUE(persistent_shape_of(kernel, 64, bulk_smem_bytes<T, 32, 3, 2>()).runs);
  }
  std::mt19937_64 rng(4242);
  for (const auto& [na, nb] : bulk_sizes()) {
    if (na == 0 || nb == 0) continue;
    const std::uint64_t range = rng() % 3 == 0 ? 50 : 0;  // long runs of equal values, or few
    const std::vector<T> a = sorted_random<T>(na, rng(), range), b = sorted_random<T>(nb, rng(), range);
    const map_reference<T> ref(a, b);
    // Targets: sums of existing pairs (matches, maybe many) and a likely miss.
    std::vector<T> ts;
    // (Sums taken modulo 2^bits: a target that wraps is just another target.)
    const auto sum = [](wide x, wide y) { return static_cast<T>(static_cast<std::uint64_t>(x + y)); };
    for (int k = 0; k < 3; ++k) ts.push_back(sum(a[rng() % na], b[rng() % nb]));
    ts.push_back(sum(a[0], wide(b[0]) - 1));
    std::shuffle(ts.begin(), ts.end(), rng);
    device_array<T> d_a(a), d_b(b);
    for (T t : ts) {
      const std::uint64_t want = ref.count(t);
      const pair_sum_state c2 = launch_pair_sums_bulk<32, 3, 2, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 3);
      EXPECT_EQ(c2.count, want) << "count 32x3 s2, na=" << na << " nb=" << nb;
      const pair_sum_state c3 = launch_pair_sums_bulk<64, 5, 3, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 0);
      EXPECT_EQ(c3.count, want) << "count 64x5 s3, na=" << na << " nb=" << nb;
      const pair_sum_state c4 = launch_pair_sums_bulk<32, 7, 2, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 2);
      EXPECT_EQ(c4.count, want) << "count 32x7 s2, na=" << na << " nb=" << nb;
    }
    for (int count = 1; count <= 4; ++count) {
      // The first target (in order) with a match, and its smallest a index with a partner.
      int want_target = -1;
      std::size_t want_i = 0, want_j = 0;
      for (int k = 0; k < count && want_target < 0; ++k) {
        for (std::size_t i = 0; i < na; ++i) {
          const wide need = static_cast<wide>(ts[k]) - static_cast<wide>(a[i]);
          const auto it =
              std::lower_bound(b.begin(), b.end(), need, [](T x, wide v) { return static_cast<wide>(x) < v; });
          if (it != b.end() && static_cast<wide>(*it) == need) {
            want_target = k;
            want_i = i;
            want_j = static_cast<std::size_t>(it - b.begin());
            break;
          }
        }
      }
      for (unsigned blocks : {1u, 3u, 0u}) {
        const pair_sum_state f =
            blocks == 3 ? launch_pair_sums_bulk<32, 7, 2, 1, true>(nullptr, d_a.ptr, na, d_b.ptr, nb, ts.data(), count, blocks)
                        : launch_pair_sums_bulk<32, 3, 2, 1, true>(nullptr, d_a.ptr, na, d_b.ptr, nb, ts.data(), count, blocks);
        EXPECT_EQ(f.found != 0, want_target >= 0) << "find, " << count << " targets, na=" << na << " nb=" << nb;
        if (f.found && want_target >= 0) {
          EXPECT_EQ(f.target, want_target) << "na=" << na << " nb=" << nb << " blocks " << blocks;
          EXPECT_EQ(f.i, want_i) << "na=" << na << " nb=" << nb << " blocks " << blocks;
          EXPECT_EQ(f.j, want_j) << "na=" << na << " nb=" << nb << " blocks " << blocks;
        }
      }
    }
  }
}

TEST(CudaMergeErrors, UnsortedInputsNeverFault) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(99);
  for (std::size_t n : {std::size_t{1000}, std::size_t{3000000}, std::size_t{30000000}}) {
    std::vector<std::int32_t> a(n), b(n + 7);
    for (auto& x : a) x = static_cast<std::int32_t>(rng());
    for (auto& x : b) x = static_cast<std::int32_t>(rng());
    device_array<std::int32_t> d_a(a), d_b(b), d_out(a.size() + b.size());
    ssum::merge(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), d_out.ptr);
    const std::int32_t ts[3] = {5, -7, 123456789};
    (void)ssum::find_pair_sum(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), 5);
    (void)ssum::find_any_pair_sum(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), ts, 3);
    (void)ssum::count_pair_sums(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), 5);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaGetLastError());
  }
}

TEST(CudaMergeErrors, NullPointersAreRejected) {
  SKIP_WITHOUT_DEVICE();
  const std::int32_t* null = nullptr;
  std::int32_t* out = nullptr;
  const std::uint32_t* null_v = nullptr;
  std::uint32_t* out_v = nullptr;
  device_array<std::int32_t> d(std::vector<std::int32_t>{1, 2, 3});
  EXPECT_THROW(ssum::merge(ssum::cuda{}, null, 10, d.ptr, 3, d.ptr, ssum::less{}), std::invalid_argument);
  EXPECT_THROW(ssum::merge(ssum::cuda{}, d.ptr, 3, null, 10, d.ptr), std::invalid_argument);
  EXPECT_THROW(ssum::merge(ssum::cuda{}, d.ptr, 3, d.ptr, 3, out), std::invalid_argument);
  EXPECT_NO_THROW(ssum::merge(ssum::cuda{}, null, 0, null, 0, out));
  EXPECT_THROW(ssum::merge_by_key(ssum::cuda{}, d.ptr, null_v, 3, null, null_v, 0, out, out_v), std::invalid_argument);
  EXPECT_NO_THROW(ssum::merge_by_key(ssum::cuda{}, null, null_v, 0, null, null_v, 0, out, out_v));
  EXPECT_THROW(ssum::merge_generated(ssum::cuda{}, d.ptr, 3, ssum::plus_constant<std::int32_t>{nullptr, 1}, 5, out),
               std::invalid_argument);
  EXPECT_THROW(ssum::merge_generated(ssum::cuda{}, null, 0, ssum::minus_reversed<std::int32_t>{d.ptr, 3, 9}, 4, d.ptr),
               std::invalid_argument);  // nb > n
  EXPECT_THROW(ssum::count_pair_sums(ssum::cuda{}, null, 5, d.ptr, 3, 4), std::invalid_argument);
  EXPECT_THROW(ssum::find_pair_sum(ssum::cuda{}, d.ptr, 3, null, 5, 4), std::invalid_argument);
  EXPECT_EQ(ssum::count_pair_sums(ssum::cuda{}, null, 0, d.ptr, 3, 4), 0u);
  EXPECT_FALSE(ssum::find_pair_sum(ssum::cuda{}, d.ptr, 3, null, 0, 4).found);
}

TEST(CudaMergeStreams, RunsOrderedOnTheGivenStream) {
  SKIP_WITHOUT_DEVICE();
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto a = sorted_random<std::uint64_t>(1 << 20, 1, 0), b = sorted_random<std::uint64_t>((1 << 20) + 3, 2, 0);
  device_array<std::uint64_t> d_a(a), d_b(b), d_out(a.size() + b.size());
  ssum::merge(ssum::cuda{stream}, d_a.ptr, a.size(), d_b.ptr, b.size(), d_out.ptr);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<std::uint64_t> expect(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin());
  EXPECT_EQ(d_out.to_host(), expect);
  const std::uint64_t t = a[12345] + b[54321];
  EXPECT_EQ(ssum::count_pair_sums(ssum::cuda{stream}, d_a.ptr, a.size(), d_b.ptr, b.size(), t), map_count(a, b, t));
  CHECK_CUDA(cudaStreamDestroy(stream));
}

// ---- more than 2^31 outputs ------------------------------------------------------------
// a = the multiples of 3 below n, b = the other numbers below n, so the merge is 0, 1, ..., n-1:
// checked on the device. Inputs are built on the device too (17 GiB in all).

__global__ void fill_thirds(std::uint32_t* a, std::size_t na, std::uint32_t* b, std::size_t nb) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < na || k < nb; k += stride) {
    if (k < na) a[k] = static_cast<std::uint32_t>(3 * k);
    if (k < nb) b[k] = static_cast<std::uint32_t>(3 * (k / 2) + 1 + k % 2);  // 1, 2, 4, 5, 7, 8, ...
  }
}

__global__ void count_not_iota(const std::uint32_t* out, std::size_t n, unsigned long long* bad,
                               unsigned long long* first_bad) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    if (out[k] != static_cast<std::uint32_t>(k)) {
      atomicAdd(bad, 1ull);
      atomicMin(first_bad, static_cast<unsigned long long>(k));
    }
  }
}

struct thirds {
  std::size_t n, na, nb;
  explicit thirds(std::size_t total) : n(total), na((total + 2) / 3), nb(total - (total + 2) / 3) {}
};

bool enough_device_memory(std::size_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return false;
  return free_bytes >= bytes + (std::size_t{1} << 30);
}

TEST(CudaMergeLarge, BeyondTwoToThe31Outputs) {
  SKIP_WITHOUT_DEVICE();
  const thirds s((std::size_t{1} << 31) + 3 * 12345 + 2);  // every value still fits uint32
  if (!enough_device_memory(2 * s.n * 4)) GTEST_SKIP() << "needs " << 2 * s.n * 4 / (1 << 30) + 1 << " GiB";
  device_array<std::uint32_t> d_a(s.na), d_b(s.nb), d_out(s.n);
  device_array<unsigned long long> d_bad(2);
  fill_thirds<<<4096, 256>>>(d_a.ptr, s.na, d_b.ptr, s.nb);
  CHECK_CUDA(cudaGetLastError());
  ssum::merge(ssum::cuda{}, d_a.ptr, s.na, d_b.ptr, s.nb, d_out.ptr);
  const unsigned long long init[2] = {0, ~0ull};
  CHECK_CUDA(cudaMemcpy(d_bad.ptr, init, sizeof init, cudaMemcpyHostToDevice));
  count_not_iota<<<4096, 256>>>(d_out.ptr, s.n, d_bad.ptr, d_bad.ptr + 1);
  CHECK_CUDA(cudaDeviceSynchronize());
  const auto bad = d_bad.to_host();
  EXPECT_EQ(bad[0], 0u) << "first wrong output at " << bad[1];
  // Swapped inputs: the same output.
  CHECK_CUDA(cudaMemset(d_out.ptr, 0, s.n * 4));
  ssum::merge(ssum::cuda{}, d_b.ptr, s.nb, d_a.ptr, s.na, d_out.ptr);
  CHECK_CUDA(cudaMemcpy(d_bad.ptr, init, sizeof init, cudaMemcpyHostToDevice));
  count_not_iota<<<4096, 256>>>(d_out.ptr, s.n, d_bad.ptr, d_bad.ptr + 1);
  CHECK_CUDA(cudaDeviceSynchronize());
  const auto bad2 = d_bad.to_host();
  EXPECT_EQ(bad2[0], 0u) << "swapped: first wrong output at " << bad2[1];
}

// The walk over A and C = t - B reversed with more than 2^31 diagonals. a + b = t with a = 3i
// and b a non-multiple of 3: for t = 0 mod 3 nothing matches; otherwise each i with
// 1 <= t - 3i <= n - 1 matches exactly one b.
TEST(CudaMergeLarge, PairSumsBeyondTwoToThe31Diagonals) {
  SKIP_WITHOUT_DEVICE();
  const thirds s((std::size_t{1} << 31) + 3 * 4321 + 1);
  if (!enough_device_memory(s.n * 4)) GTEST_SKIP() << "needs " << s.n * 4 / (1 << 30) + 1 << " GiB";
  device_array<std::uint32_t> d_a(s.na), d_b(s.nb);
  fill_thirds<<<4096, 256>>>(d_a.ptr, s.na, d_b.ptr, s.nb);
  CHECK_CUDA(cudaDeviceSynchronize());
  const auto expected = [&](std::uint64_t t) {
    if (t % 3 == 0) return std::uint64_t{0};
    // i from ceil((t - (n - 1)) / 3) (at least 0) to floor((t - 1) / 3), below na.
    const std::int64_t lo = std::max<std::int64_t>(0, (static_cast<std::int64_t>(t) - static_cast<std::int64_t>(s.n - 1) + 2) / 3);
    const std::int64_t hi = std::min<std::int64_t>(static_cast<std::int64_t>(s.na) - 1, (static_cast<std::int64_t>(t) - 1) / 3);
    return hi < lo ? std::uint64_t{0} : static_cast<std::uint64_t>(hi - lo + 1);
  };
  for (std::uint32_t t : {static_cast<std::uint32_t>(s.n - 2), static_cast<std::uint32_t>(s.n - 1),
                          static_cast<std::uint32_t>(s.n), static_cast<std::uint32_t>(s.n + s.n / 3),
                          static_cast<std::uint32_t>(3 * 1000), 4000000000u}) {
    const std::uint64_t expect = expected(t);
    EXPECT_EQ(ssum::count_pair_sums(ssum::cuda{}, d_a.ptr, s.na, d_b.ptr, s.nb, t), expect) << "t=" << t;
    const ssum::pair_match m = ssum::find_pair_sum(ssum::cuda{}, d_a.ptr, s.na, d_b.ptr, s.nb, t);
    EXPECT_EQ(m.found, expect > 0) << "t=" << t;
    if (m.found) {
      ASSERT_LT(m.i, s.na);
      ASSERT_LT(m.j, s.nb);
      std::uint32_t x = 0, y = 0;
      CHECK_CUDA(cudaMemcpy(&x, d_a.ptr + m.i, 4, cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(&y, d_b.ptr + m.j, 4, cudaMemcpyDeviceToHost));
      EXPECT_EQ(std::uint64_t{x} + y, std::uint64_t{t}) << "i=" << m.i << " j=" << m.j;
    }
  }
}

}  // namespace

// CUDA merges (ssum/merge.hpp with ssum::cuda):
//   merge              against std::merge, bit for bit: sizes 0/0, 0/n, n/0, 1/1, around one
//                      tile (tile - 1, tile, tile + 1 outputs and inputs), 10^6 + 7 by 10^3,
//                      very unequal lengths; all six types; ssum::less and ssum::greater;
//                      few and many equal keys;
//   merge_by_key       stability: many equal keys across inputs, values tag input and position;
//   floats             NaN, -0.0 / +0.0, infinities against std::merge with ssum::less;
//   merge_generated    plus_constant and minus_reversed against the materialised b;
//   bulk-copied tiles (CudaMergeBulk): the persistent kernels that the calls
//                      above run on sm_90, in small shapes and with few blocks, so that blocks
//                      go round their rings of stages, ranges start and end at every offset
//                      inside 16 bytes and arrays end inside a partial 16-byte piece;
//   errors, streams, and more than 2^31 outputs (CudaMergeLarge).
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

#include "cuda/merge/bulk_stage.cuh"
#include "cuda/merge/merge_launch.cuh"
#include "cuda/merge/merge_tiles_bulk.cuh"
#include "device_array.cuh"
#include "merge_inputs.cuh"
#include "../sorted_inputs.hpp"
#include "ssum/merge.hpp"

namespace {

#define CHECK_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

using ssum_test::bulk_sizes;
using ssum_test::device_array;
using ssum_test::device_runs_bulk_copies;
using ssum_test::enough_device_memory;
using ssum_test::fill_thirds;
using ssum_test::thirds;
#define SKIP_WITHOUT_DEVICE() SSUM_SKIP_WITHOUT_DEVICE("CUDA merge")

// Tile sizes, for edge cases at tile +- 1: merge_by_key uses merge_tuning's classic tiles,
// the key-only merges its bulk tiles (4-byte keys) or classic tiles (8-byte keys).
template <class T>
constexpr std::size_t tile_of() {
  return ssum::cuda_detail::merge_tuning<T>::classic::tile;
}
template <class T>
constexpr std::size_t keys_tile_of() {
  using tuning = ssum::cuda_detail::merge_tuning<T>;
  return tuning::bulk::used ? tuning::bulk::tile : tuning::classic::tile;
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

// ---- bulk-copied tiles -------------------------------------------------------------------

template <class T>
class CudaMergeBulk : public ::testing::Test {};
TYPED_TEST_SUITE(CudaMergeBulk, merge_types);

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

// ---- errors and streams ---------------------------------------------------------------

// Inputs that break the contract (not sorted): the results are unspecified, but no kernel may
// read or write outside the arrays (tile_at clamps the splits), so the stream stays healthy.
TEST(CudaMergeErrors, UnsortedInputsNeverFault) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(99);
  for (std::size_t n : {std::size_t{1000}, std::size_t{3000000}, std::size_t{30000000}}) {
    std::vector<std::int32_t> a(n), b(n + 7);
    for (auto& x : a) x = static_cast<std::int32_t>(rng());
    for (auto& x : b) x = static_cast<std::int32_t>(rng());
    device_array<std::int32_t> d_a(a), d_b(b), d_out(a.size() + b.size());
    ssum::merge(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), d_out.ptr);
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
  CHECK_CUDA(cudaStreamDestroy(stream));
}

// ---- more than 2^31 outputs ------------------------------------------------------------
// a = the multiples of 3 below n, b = the other numbers below n, so the merge is 0, 1, ..., n-1:
// checked on the device. Inputs are built on the device too (17 GiB in all).

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

}  // namespace

// The CUDA merges and pair sums on ssum::uint128 (the two-list's sums past 2^64):
//   merge, merge_generated  against std::merge over the materialised b, bit for bit: sizes 0,
//   (both generators),      1, one tile - 1, tile, tile + 1, non-powers of two, very unequal
//   merge_generated_batch   lengths; values that differ only in their high 64 bits, only in
//                           their low ones, and long runs of equal values;
//   merge_path_partition    against the host's splits;
//   find_pair_sum,          against a multiplicity reference (std::map): counts, the smallest
//   count_pair_sums,        match, several targets in order, targets next to 2^64 and at the
//   find_any_pair_sum       type's top; the bulk-copied walk in small shapes with few blocks;
//   first subset sums       the two-list's first levels in 128 bits, against the host's.
// Every test skips, saying so, where no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda/pair_sum/pair_sum_launch.cuh"
#include "cuda/merge/merge_launch.cuh"
#include "device_array.cuh"
#include "merge_inputs.cuh"
#include "ssum/int128.hpp"
#include "ssum/merge.hpp"
#include "ssum/pair_sum.hpp"
#include "ssum/problem.hpp"
#include "solver/two_list/first_subset_sums.cuh"

namespace {

using ssum::uint128;
using ssum_test::device_array;
#define SKIP_WITHOUT_DEVICE() SSUM_SKIP_WITHOUT_DEVICE("CUDA 128-bit merges and pair sums")

constexpr std::size_t merge_tile = ssum::cuda_detail::merge_tuning<uint128>::classic::tile;
constexpr std::size_t pair_tile = ssum::cuda_detail::pair_sum_tuning<uint128>::tile;
const uint128 two_64 = uint128(1) << 64;

std::string text(uint128 v) { return ssum::to_string(ssum::int128(v >> 1)) + "*2+" + std::to_string(unsigned(v & 1)); }

// n ascending values below 2^126 (so that any two add up without wrapping), of one of four kinds:
// 0 random over all 126 bits; 1 equal low 64 bits, a few distinct high ones (only the high
// half tells them apart); 2 equal high bits, small low ones (only the low half does, long
// runs of equal values); 3 around 2^64 (the carry between the halves).
std::vector<uint128> sorted_wide(std::mt19937_64& rng, std::size_t n, int kind) {
  std::vector<uint128> v(n);
  const std::uint64_t low = rng();
  for (auto& x : v) {
    switch (kind) {
      case 0: x = ((uint128(rng()) << 64) | rng()) >> 2; break;
      case 1: x = (uint128(rng() % 50) << 64) | low; break;
      case 2: x = (uint128(low >> 2) << 64) + rng() % 60; break;
      default: x = two_64 - 30 + rng() % 60; break;
    }
  }
  std::sort(v.begin(), v.end());
  return v;
}

// The sizes of one input: empty, one, around a tile of each kind, and non-powers of two.
std::vector<std::size_t> sizes_around(std::size_t tile) {
  return {0, 1, 2, tile - 1, tile, tile + 1, 3 * tile + 7, 1000, 12345};
}

std::size_t first_difference(const std::vector<uint128>& x, const std::vector<uint128>& y) {
  return std::size_t(std::mismatch(x.begin(), x.end(), y.begin(), y.end()).first - x.begin());
}

TEST(CudaWideMerge, MergeMatchesStdMerge) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(128);
  int kind = 0;
  for (const std::size_t na : sizes_around(merge_tile)) {
    for (const std::size_t nb : sizes_around(merge_tile)) {
      if (na * nb > 40000000) continue;
      kind = (kind + 1) % 4;
      const std::vector<uint128> a = sorted_wide(rng, na, kind), b = sorted_wide(rng, nb, kind);
      std::vector<uint128> want(na + nb);
      std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
      device_array<uint128> d_a(a), d_b(b), d_out(na + nb);
      ssum::merge(ssum::cuda{}, d_a.ptr, na, d_b.ptr, nb, d_out.ptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<uint128> got = d_out.to_host();
      ASSERT_TRUE(got == want) << "na " << na << " nb " << nb << " kind " << kind << ": first difference at "
                               << first_difference(got, want);
    }
  }
  // Very unequal lengths, a million outputs.
  const std::vector<uint128> a = sorted_wide(rng, 1000003, 0), b = sorted_wide(rng, 3, 0);
  std::vector<uint128> want(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
  device_array<uint128> d_a(a), d_b(b), d_out(want.size());
  ssum::merge(ssum::cuda{}, d_b.ptr, b.size(), d_a.ptr, a.size(), d_out.ptr);
  std::vector<uint128> want_ba(want.size());
  std::merge(b.begin(), b.end(), a.begin(), a.end(), want_ba.begin());
  EXPECT_TRUE(d_out.to_host() == want_ba);
}

// The two-list's own merge: L with L + w (plus_constant), and the pair sums' t - b reversed.
TEST(CudaWideMerge, GeneratedMatchesMaterialised) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(129);
  for (const std::size_t n : sizes_around(merge_tile)) {
    for (int kind = 0; kind < 4; ++kind) {
      const std::vector<uint128> a = sorted_wide(rng, n, kind);
      const uint128 w = kind % 2 ? two_64 + 1 : (uint128(rng()) << 60) + rng() % 3;
      std::vector<uint128> shifted(n), want(2 * n);
      for (std::size_t k = 0; k < n; ++k) shifted[k] = a[k] + w;
      std::merge(a.begin(), a.end(), shifted.begin(), shifted.end(), want.begin());
      device_array<uint128> d_a(a), d_out(2 * n);
      ssum::merge_generated(ssum::cuda{}, d_a.ptr, n, ssum::plus_constant<uint128>{d_a.ptr, w}, n, d_out.ptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<uint128> got = d_out.to_host();
      ASSERT_TRUE(got == want) << "plus_constant, n " << n << " kind " << kind << ": first difference at "
                               << first_difference(got, want);
      // minus_reversed: t - a[n - 1 - j], ascending; t at the top of the sums' range.
      const uint128 t = (uint128(1) << 127) - 1;
      std::vector<uint128> reversed(n);
      for (std::size_t j = 0; j < n; ++j) reversed[j] = t - a[n - 1 - j];
      std::merge(a.begin(), a.end(), reversed.begin(), reversed.end(), want.begin());
      ssum::merge_generated(ssum::cuda{}, d_a.ptr, n, ssum::minus_reversed<uint128>{d_a.ptr, n, t}, n, d_out.ptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      got = d_out.to_host();
      ASSERT_TRUE(got == want) << "minus_reversed, n " << n << " kind " << kind;
    }
  }
}

// Up to six merges per call (the launches take four at a time), empty ones among them.
TEST(CudaWideMerge, BatchMatchesOneByOne) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(130);
  using gen = ssum::plus_constant<uint128>;
  const std::vector<std::size_t> sizes = {0, 1, merge_tile / 2, merge_tile / 2 + 1, 4097, 1 << 15};
  for (std::size_t count = 1; count <= sizes.size(); ++count) {
    std::vector<std::vector<uint128>> inputs, wants;
    std::vector<std::unique_ptr<device_array<uint128>>> d_in, d_out;
    std::vector<ssum::generated_merge<uint128, gen>> merges;
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t n = sizes[(k + count) % sizes.size()];
      inputs.push_back(sorted_wide(rng, n, int(k % 4)));
      const uint128 w = (uint128(rng() % 7) << 64) + rng() % 5;
      std::vector<uint128> shifted(n), want(2 * n);
      for (std::size_t x = 0; x < n; ++x) shifted[x] = inputs.back()[x] + w;
      std::merge(inputs.back().begin(), inputs.back().end(), shifted.begin(), shifted.end(), want.begin());
      wants.push_back(want);
      d_in.push_back(std::make_unique<device_array<uint128>>(inputs.back()));
      d_out.push_back(std::make_unique<device_array<uint128>>(2 * n));
      merges.push_back({d_in.back()->ptr, n, gen{d_in.back()->ptr, w}, n, d_out.back()->ptr});
    }
    ssum::merge_generated_batch(ssum::cuda{}, merges.data(), merges.size());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (std::size_t k = 0; k < count; ++k) {
      EXPECT_TRUE(d_out[k]->to_host() == wants[k]) << count << " merges, merge " << k;
    }
  }
}

TEST(CudaWideMerge, PartitionMatchesTheHost) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(131);
  for (const std::size_t na : {std::size_t{0}, std::size_t{1}, merge_tile + 1, std::size_t{50001}}) {
    for (const std::size_t nb : {std::size_t{1}, merge_tile - 1, std::size_t{70003}}) {
      const std::vector<uint128> a = sorted_wide(rng, na, 1), b = sorted_wide(rng, nb, 1);
      for (const std::size_t piece : {std::size_t{1}, std::size_t{777}, merge_tile}) {
        if ((na + nb) / piece > 200000) continue;
        std::vector<std::size_t> want((na + nb) / piece + 2);
        const std::size_t pieces = ssum::merge_path_partition(
            ssum::cpu{1}, a.data(), na, [&](std::size_t j) { return b[j]; }, nb, piece, want.data());
        want.resize(pieces + 1);
        device_array<uint128> d_a(a), d_b(b);
        device_array<std::size_t> d_splits(pieces + 1);
        EXPECT_EQ(ssum::merge_path_partition(ssum::cuda{}, d_a.ptr, na, d_b.ptr, nb, piece, d_splits.ptr), pieces);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_EQ(d_splits.to_host(), want) << "na " << na << " nb " << nb << " piece " << piece;
      }
    }
  }
}

// ---- pair sums -------------------------------------------------------------------------

// Multiplicities of b, and the first match of a target in (i, then j) order.
struct wide_reference {
  const std::vector<uint128>& a;
  const std::vector<uint128>& b;
  std::map<uint128, std::uint64_t> in_b;
  wide_reference(const std::vector<uint128>& a_, const std::vector<uint128>& b_) : a(a_), b(b_) {
    for (const uint128 x : b) ++in_b[x];
  }
  std::uint64_t count(uint128 t) const {
    std::uint64_t c = 0;
    for (const uint128 x : a) {
      if (x > t) break;
      const auto it = in_b.find(t - x);
      if (it != in_b.end()) c += it->second;
    }
    return c;
  }
  // {found, i, j}: the smallest i with a partner, and its first partner.
  std::pair<bool, std::pair<std::size_t, std::size_t>> first(uint128 t) const {
    for (std::size_t i = 0; i < a.size() && a[i] <= t; ++i) {
      const auto it = std::lower_bound(b.begin(), b.end(), t - a[i]);
      if (it != b.end() && *it == t - a[i]) return {true, {i, std::size_t(it - b.begin())}};
    }
    return {false, {0, 0}};
  }
};

// Targets: sums of existing pairs (maybe many matches), the same moved by 2^64 and by 1, 0,
// and the top of the type (b's above t are clipped before the walk).
std::vector<uint128> wide_targets(std::mt19937_64& rng, const std::vector<uint128>& a, const std::vector<uint128>& b) {
  std::vector<uint128> ts = {0, ~uint128(0)};
  if (a.empty() || b.empty()) return ts;
  for (int k = 0; k < 3; ++k) {
    const uint128 s = a[rng() % a.size()] + b[rng() % b.size()];
    ts.insert(ts.end(), {s, s + two_64, s - two_64, s + 1});
  }
  return ts;
}

TEST(CudaWidePairSums, FindAndCountMatchTheReference) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(132);
  int kind = 0, matched = 0;
  for (const std::size_t na : sizes_around(pair_tile)) {
    for (const std::size_t nb : {std::size_t{0}, std::size_t{1}, pair_tile - 1, pair_tile + 1, std::size_t{54321}}) {
      kind = (kind + 1) % 4;
      const std::vector<uint128> a = sorted_wide(rng, na, kind), b = sorted_wide(rng, nb, kind);
      const wide_reference ref(a, b);
      device_array<uint128> d_a(a), d_b(b);
      const std::vector<uint128> ts = wide_targets(rng, a, b);
      for (const uint128 t : ts) {
        const std::string what = "na " + std::to_string(na) + " nb " + std::to_string(nb) + " kind " +
                                 std::to_string(kind) + " t " + text(t);
        EXPECT_EQ(ssum::count_pair_sums(ssum::cuda{}, d_a.ptr, na, d_b.ptr, nb, t), ref.count(t)) << what;
        const auto want = ref.first(t);
        const ssum::pair_match m = ssum::find_pair_sum(ssum::cuda{}, d_a.ptr, na, d_b.ptr, nb, t);
        ASSERT_EQ(m.found, want.first) << what;
        matched += m.found;
        if (m.found) {
          EXPECT_EQ(m.i, want.second.first) << what;
          EXPECT_EQ(m.j, want.second.second) << what;
        }
      }
      // Several targets at once: the first one (in order) with a match answers.
      for (std::size_t k = 1; k <= ts.size(); k += 3) {
        const ssum::any_pair_match any = ssum::find_any_pair_sum(ssum::cuda{}, d_a.ptr, na, d_b.ptr, nb, ts.data(), k);
        std::size_t want_target = k;
        for (std::size_t x = 0; x < k && want_target == k; ++x) {
          if (ref.first(ts[x]).first) want_target = x;
        }
        ASSERT_EQ(any.found, want_target < k) << "na " << na << " nb " << nb << ", " << k << " targets";
        if (any.found) {
          EXPECT_EQ(any.target, want_target);
          EXPECT_EQ(any.i, ref.first(ts[want_target]).second.first);
          EXPECT_EQ(any.j, ref.first(ts[want_target]).second.second);
        }
      }
    }
  }
  EXPECT_GT(matched, 50);
}

// The bulk-copied walk (sm_90) in small shapes with few blocks, so that blocks go round their
// rings of stages: counts and finds against the reference.
TEST(CudaWidePairSums, BulkWalkInSmallTilesWithFewBlocks) {
  SKIP_WITHOUT_DEVICE();
  using namespace ssum::cuda_detail;
  if (ssum_test::device_runs_bulk_copies()) {
    auto* kernel = pair_sum_tiles_bulk<32, 3, 2, 1, true, uint128>;
    EXPECT_TRUE(persistent_shape_of(kernel, 64, bulk_smem_bytes<uint128, 32, 3, 2>()).runs);
  }
  std::mt19937_64 rng(133);
  int kind = 0;
  for (const auto& [na, nb] : ssum_test::bulk_sizes()) {
    if (na == 0 || nb == 0) continue;
    kind = (kind + 1) % 4;
    const std::vector<uint128> a = sorted_wide(rng, na, kind), b = sorted_wide(rng, nb, kind);
    const wide_reference ref(a, b);
    device_array<uint128> d_a(a), d_b(b);
    std::vector<uint128> ts = wide_targets(rng, a, b);
    for (const uint128 t : ts) {
      const std::uint64_t want = ref.count(t);
      const pair_sum_state c2 = launch_pair_sums<32, 3, 2, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 3);
      EXPECT_EQ(c2.count, want) << "count 32x3, na " << na << " nb " << nb << " t " << text(t);
      const pair_sum_state c3 = launch_pair_sums<64, 5, 3, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 0);
      EXPECT_EQ(c3.count, want) << "count 64x5, na " << na << " nb " << nb << " t " << text(t);
    }
    for (std::size_t first = 0; first + 4 <= ts.size(); first += 4) {
      int want_target = -1;
      for (int k = 0; k < 4 && want_target < 0; ++k) {
        if (ref.first(ts[first + k]).first) want_target = k;
      }
      for (const unsigned blocks : {1u, 3u}) {
        const pair_sum_state f =
            launch_pair_sums<32, 3, 2, 1, true>(nullptr, d_a.ptr, na, d_b.ptr, nb, ts.data() + first, 4, blocks);
        ASSERT_EQ(f.found != 0, want_target >= 0) << "find, na " << na << " nb " << nb << " blocks " << blocks;
        if (want_target >= 0) {
          const auto w = ref.first(ts[first + want_target]);
          EXPECT_EQ(f.target, want_target);
          EXPECT_EQ(f.i, w.second.first) << "na " << na << " nb " << nb << " blocks " << blocks;
          EXPECT_EQ(f.j, w.second.second) << "na " << na << " nb " << nb << " blocks " << blocks;
        }
      }
    }
  }
}

// ---- the two-list's first levels --------------------------------------------------------

std::vector<uint128> sorted_subset_sums(const std::vector<uint128>& w) {
  std::vector<uint128> sums;
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << w.size()); ++mask) {
    uint128 s = 0;
    for (std::size_t k = 0; k < w.size(); ++k) s += mask >> k & 1 ? w[k] : 0;
    sums.push_back(s);
  }
  std::sort(sums.begin(), sums.end());
  return sums;
}

TEST(CudaWideFirstSubsetSums, MatchSortedBruteForce) {
  SKIP_WITHOUT_DEVICE();
  constexpr std::size_t most = ssum::cuda_detail::first_subset_sums_items_for<uint128>();
  static_assert(most == 10, "two 16 KiB buffers of 128-bit sums");
  std::mt19937_64 rng(134);
  for (int trial = 0; trial < 44; ++trial) {
    const std::size_t m = static_cast<std::size_t>(trial % 11);  // 0 .. 10 weights
    std::vector<uint128> w(m);
    for (auto& x : w) {
      // Ties (equal small weights), weights that differ in the high half only, and 122-bit ones.
      x = trial % 4 == 0 ? uint128(rng() % 3) : trial % 4 == 1 ? (uint128(rng() % 4) << 64) + 7
                                                               : ((uint128(rng()) << 64) | rng()) >> 6;
    }
    device_array<uint128> out(std::size_t{1} << m);
    ssum::cuda_detail::launch_first_subset_sums(w.data(), m, out.ptr, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(out.to_host() == sorted_subset_sums(w)) << "m = " << m << ", trial " << trial;
  }
  // Ten weights whose sum is 2^127 - 1 exactly: the largest sum is the top of the range.
  std::vector<uint128> top(10, ssum::max_weight_total / 10);
  top[0] += ssum::max_weight_total - (ssum::max_weight_total / 10) * 10;
  device_array<uint128> out(1024);
  ssum::cuda_detail::launch_first_subset_sums(top.data(), top.size(), out.ptr, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(out.to_host() == sorted_subset_sums(top));
}

TEST(CudaWideFirstSubsetSums, RefusesMoreThanItHolds) {
  const std::vector<uint128> w(11, 1);
  EXPECT_THROW(ssum::cuda_detail::launch_first_subset_sums(w.data(), w.size(), nullptr, nullptr),
               std::invalid_argument);
}

}  // namespace

// CUDA equal-pairs search (ssum/pair_sum.hpp with ssum::cuda):
//   find_pair_sum /    against brute force (small, many seeds, duplicates, negative values,
//   count_pair_sums    values at the type's limits, no-match targets) and a std::map
//                      multiplicity reference (large, long runs of equal values across tiles);
//   find_any_pair_sum  several targets, in groups and one by one, against the first match of
//                      each target in order;
//   bulk-copied tiles (CudaPairSumsBulk): the persistent walk that the calls above run on
//                      sm_90, in small shapes and with few blocks;
//   more than 2^31 diagonals (CudaMergeLarge.PairSumsBeyondTwoToThe31Diagonals).
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
#include "cuda/pair_sum/pair_sum_launch.cuh"
#include "device_array.cuh"
#include "merge_inputs.cuh"
#include "../sorted_inputs.hpp"
#include "ssum/pair_sum.hpp"

namespace {

#define CHECK_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

using ssum_test::bulk_sizes;
using ssum_test::device_array;
using ssum_test::device_runs_bulk_copies;
using ssum_test::enough_device_memory;
using ssum_test::fill_thirds;
using ssum_test::thirds;
#define SKIP_WITHOUT_DEVICE() SSUM_SKIP_WITHOUT_DEVICE("CUDA pair sums")

// The walk's tile, for edge cases at tile +- 1 (pair_sum_tuning's).
template <class T>
constexpr std::size_t pair_tile_of() {
  return ssum::cuda_detail::pair_sum_tuning<T>::tile;
}

using ssum_test::sorted_random;

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

// Searches of 4096 tiles and more go one target per launch (pair_sum.cu): the same answers.
TYPED_TEST(CudaPairSums, AnyTargetOneByOneWhenLarge) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  const std::size_t tile = pair_tile_of<T>(), na = 2048 * tile + 17, nb = 2048 * tile + 5;
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

// ---- bulk-copied tiles -------------------------------------------------------------------

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
      const pair_sum_state c2 = launch_pair_sums<32, 3, 2, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 3);
      EXPECT_EQ(c2.count, want) << "count 32x3 s2, na=" << na << " nb=" << nb;
      const pair_sum_state c3 = launch_pair_sums<64, 5, 3, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 0);
      EXPECT_EQ(c3.count, want) << "count 64x5 s3, na=" << na << " nb=" << nb;
      const pair_sum_state c4 = launch_pair_sums<32, 7, 2, 1, false>(nullptr, d_a.ptr, na, d_b.ptr, nb, &t, 1, 2);
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
            blocks == 3 ? launch_pair_sums<32, 7, 2, 1, true>(nullptr, d_a.ptr, na, d_b.ptr, nb, ts.data(), count, blocks)
                        : launch_pair_sums<32, 3, 2, 1, true>(nullptr, d_a.ptr, na, d_b.ptr, nb, ts.data(), count, blocks);
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

// ---- errors and streams ---------------------------------------------------------------

// Inputs that break the contract (not sorted): the results are unspecified, but no kernel may
// read or write outside the arrays (tile_between clamps the splits), so the stream stays healthy.
TEST(CudaPairSumsErrors, UnsortedInputsNeverFault) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(99);
  for (std::size_t n : {std::size_t{1000}, std::size_t{3000000}, std::size_t{30000000}}) {
    std::vector<std::int32_t> a(n), b(n + 7);
    for (auto& x : a) x = static_cast<std::int32_t>(rng());
    for (auto& x : b) x = static_cast<std::int32_t>(rng());
    device_array<std::int32_t> d_a(a), d_b(b);
    const std::int32_t ts[3] = {5, -7, 123456789};
    (void)ssum::find_pair_sum(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), 5);
    (void)ssum::find_any_pair_sum(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), ts, 3);
    (void)ssum::count_pair_sums(ssum::cuda{}, d_a.ptr, a.size(), d_b.ptr, b.size(), 5);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaGetLastError());
  }
}

TEST(CudaPairSumsErrors, NullPointersAreRejected) {
  SKIP_WITHOUT_DEVICE();
  const std::int32_t* null = nullptr;
  device_array<std::int32_t> d(std::vector<std::int32_t>{1, 2, 3});
  EXPECT_THROW(ssum::count_pair_sums(ssum::cuda{}, null, 5, d.ptr, 3, 4), std::invalid_argument);
  EXPECT_THROW(ssum::find_pair_sum(ssum::cuda{}, d.ptr, 3, null, 5, 4), std::invalid_argument);
  EXPECT_EQ(ssum::count_pair_sums(ssum::cuda{}, null, 0, d.ptr, 3, 4), 0u);
  EXPECT_FALSE(ssum::find_pair_sum(ssum::cuda{}, d.ptr, 3, null, 0, 4).found);
}

TEST(CudaPairSumsStreams, RunsOrderedOnTheGivenStream) {
  SKIP_WITHOUT_DEVICE();
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto a = sorted_random<std::uint64_t>(1 << 20, 1, 0), b = sorted_random<std::uint64_t>((1 << 20) + 3, 2, 0);
  device_array<std::uint64_t> d_a(a), d_b(b);
  const std::uint64_t t = a[12345] + b[54321];
  EXPECT_EQ(ssum::count_pair_sums(ssum::cuda{stream}, d_a.ptr, a.size(), d_b.ptr, b.size(), t), map_count(a, b, t));
  CHECK_CUDA(cudaStreamDestroy(stream));
}

// ---- more than 2^31 diagonals -----------------------------------------------------------

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

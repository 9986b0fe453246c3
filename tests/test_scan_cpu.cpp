// Host scans and compaction (ssum/scan.hpp with ssum::cpu) against std::inclusive_scan,
// std::exclusive_scan and std::copy_if, at sizes around the block boundaries, for every
// thread count; floating-point results must also have the same bits whatever the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ssum/scan.hpp"

namespace {

constexpr std::size_t B = ssum::detail::cpu_scan_block;
constexpr unsigned kThreads[] = {1, 2, 3, 8};

std::vector<std::size_t> test_sizes() {
  std::vector<std::size_t> s = {0, 1, 2, 31, 32, 33, B - 1, B, B + 1, 3 * B + 5, 1000007};
  std::mt19937_64 rng(2024);
  for (int i = 0; i < 10; ++i) s.push_back(rng() % 1000);
  for (int i = 0; i < 10; ++i) s.push_back(rng() % (4 * B));
  return s;
}

// Inputs whose scans are exact and UB-free under every operator: unsigned values span the full
// range (plus wraps, as std:: does), signed ones stay far from overflow, and floating-point ones
// are small integers so that every partial sum is exact whatever the association.
template <class T>
std::vector<T> random_input(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (std::is_unsigned_v<T>) {
      x = static_cast<T>(rng());
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
      x = static_cast<T>(static_cast<std::int64_t>(rng() % 2001) - 1000);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      x = static_cast<T>(rng() % 2000000001) - 1000000000;
    } else {
      x = static_cast<T>(static_cast<int>(rng() % 9) - 4);
    }
  }
  return v;
}

template <class T>
T some_init() {
  if constexpr (std::is_unsigned_v<T>) return static_cast<T>(0x9e3779b97f4a7c15ull);
  return T(3);
}

template <class T, class F>
void for_each_op(F&& f) {
  f(ssum::plus{}, "plus");
  f(ssum::minimum{}, "minimum");
  f(ssum::maximum{}, "maximum");
  if constexpr (std::is_integral_v<T>) f(ssum::bit_or{}, "bit_or");
}

// Element-wise comparison that reports the first difference rather than two whole vectors.
template <class T>
::testing::AssertionResult same(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) return ::testing::AssertionFailure() << "first difference at " << i;
  }
  return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "bits differ at " << i << ": " << got[i] << " vs " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::string where(std::size_t n, unsigned threads, const char* op) {
  return "n=" + std::to_string(n) + " threads=" + std::to_string(threads) + " op=" + op;
}

template <class T>
class ScanCpu : public ::testing::Test {};
using ScanTypes = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(ScanCpu, ScanTypes);

TYPED_TEST(ScanCpu, InclusiveMatchesStd) {
  using T = TypeParam;
  const T init = some_init<T>();
  for (std::size_t n : test_sizes()) {
    const std::vector<T> in = random_input<T>(n, n);
    for_each_op<T>([&](auto op, const char* name) {
      std::vector<T> ref(n), ref_init(n), out(n);
      std::inclusive_scan(in.begin(), in.end(), ref.begin(), op);
      std::inclusive_scan(in.begin(), in.end(), ref_init.begin(), op, init);
      for (unsigned t : kThreads) {
        SCOPED_TRACE(where(n, t, name));
        ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, op);
        EXPECT_TRUE(same(out, ref));
        ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, op, init);
        EXPECT_TRUE(same(out, ref_init));
      }
    });
  }
}

TYPED_TEST(ScanCpu, ExclusiveMatchesStd) {
  using T = TypeParam;
  const T init = some_init<T>();
  for (std::size_t n : test_sizes()) {
    const std::vector<T> in = random_input<T>(n, n + 1);
    for_each_op<T>([&](auto op, const char* name) {
      std::vector<T> ref(n), out(n);
      std::exclusive_scan(in.begin(), in.end(), ref.begin(), init, op);
      for (unsigned t : kThreads) {
        SCOPED_TRACE(where(n, t, name));
        ssum::exclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, init, op);
        EXPECT_TRUE(same(out, ref));
      }
    });
  }
}

TYPED_TEST(ScanCpu, InPlace) {
  using T = TypeParam;
  const T init = some_init<T>();
  for (std::size_t n : {std::size_t(1), std::size_t(33), B, B + 1, 3 * B + 5}) {
    const std::vector<T> in = random_input<T>(n, n + 2);
    std::vector<T> ref(n), ref_init(n), ref_ex(n);
    std::inclusive_scan(in.begin(), in.end(), ref.begin(), ssum::plus{});
    std::inclusive_scan(in.begin(), in.end(), ref_init.begin(), ssum::plus{}, init);
    std::exclusive_scan(in.begin(), in.end(), ref_ex.begin(), init, ssum::plus{});
    for (unsigned t : kThreads) {
      SCOPED_TRACE(where(n, t, "plus"));
      std::vector<T> buf = in;
      ssum::inclusive_scan(ssum::cpu{t}, buf.data(), buf.data(), n);
      EXPECT_TRUE(same(buf, ref));
      buf = in;
      ssum::inclusive_scan(ssum::cpu{t}, buf.data(), buf.data(), n, ssum::plus{}, init);
      EXPECT_TRUE(same(buf, ref_init));
      buf = in;
      ssum::exclusive_scan(ssum::cpu{t}, buf.data(), buf.data(), n, init);
      EXPECT_TRUE(same(buf, ref_ex));
    }
  }
}

TYPED_TEST(ScanCpu, EmptyTouchesNothing) {
  using T = TypeParam;
  const T sentinel = T(42);
  std::vector<T> in = {sentinel}, out = {sentinel};
  for (unsigned t : kThreads) {
    ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), 0);
    ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), 0, ssum::plus{}, T(1));
    ssum::exclusive_scan(ssum::cpu{t}, in.data(), out.data(), 0, T(1));
    ssum::inclusive_scan(ssum::cpu{t}, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0);
    EXPECT_EQ(ssum::copy_if(ssum::cpu{t}, in.data(), out.data(), 0, [](T) { return true; }), 0u);
    EXPECT_EQ(in[0], sentinel);
    EXPECT_EQ(out[0], sentinel);
  }
}

TYPED_TEST(ScanCpu, CopyIfMatchesStd) {
  using T = TypeParam;
  const T sentinel = T(123);
  auto none = [](T) { return false; };
  auto all = [](T) { return true; };
  auto even = [](T x) { return static_cast<std::uint64_t>(x) % 2 == 0; };  // alternate, on iota input
  auto some = [](T x) {  // about half, at random, on random input
    if constexpr (std::is_unsigned_v<T>) return (x >> 7) % 2 == 0;
    else return x < T(0);
  };
  for (std::size_t n : test_sizes()) {
    const std::vector<T> rnd = random_input<T>(n, n + 3);
    std::vector<T> iota(n);
    for (std::size_t i = 0; i < n; ++i) iota[i] = static_cast<T>(i);
    auto check = [&](const std::vector<T>& in, auto pred, const char* name) {
      std::vector<T> ref;
      std::copy_if(in.begin(), in.end(), std::back_inserter(ref), pred);
      for (unsigned t : kThreads) {
        SCOPED_TRACE(where(n, t, name));
        std::vector<T> out(n, sentinel);
        const std::size_t count = ssum::copy_if(ssum::cpu{t}, in.data(), out.data(), n, pred);
        ASSERT_EQ(count, ref.size());
        EXPECT_TRUE(same(std::vector<T>(out.begin(), out.begin() + count), ref));
        EXPECT_TRUE(std::all_of(out.begin() + count, out.end(), [&](T x) { return x == sentinel; }))
            << "wrote past the count";
      }
    };
    check(rnd, none, "none");
    check(rnd, all, "all");
    check(iota, even, "alternate");
    check(rnd, some, "random");
  }
}

// ---- a user operator that is associative but not commutative ----------------------------

struct affine {  // x -> a*x + b (mod 2^64)
  std::uint64_t a, b;
  bool operator==(const affine&) const = default;
};
struct then {  // then{}(f, g) = g after f
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

TEST(ScanCpuUserOp, NonCommutativeMatchesStd) {
  const affine init{3, 5};
  for (std::size_t n : test_sizes()) {
    std::mt19937_64 rng(n);
    std::vector<affine> in(n);
    for (affine& f : in) f = {rng(), rng()};
    std::vector<affine> ref(n), ref_init(n), ref_ex(n), out(n);
    std::inclusive_scan(in.begin(), in.end(), ref.begin(), then{});
    std::inclusive_scan(in.begin(), in.end(), ref_init.begin(), then{}, init);
    std::exclusive_scan(in.begin(), in.end(), ref_ex.begin(), init, then{});
    for (unsigned t : kThreads) {
      SCOPED_TRACE(where(n, t, "then"));
      ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, then{});
      EXPECT_TRUE(same(out, ref));
      ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, then{}, init);
      EXPECT_TRUE(same(out, ref_init));
      ssum::exclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, init, then{});
      EXPECT_TRUE(same(out, ref_ex));
      out = in;
      ssum::exclusive_scan(ssum::cpu{t}, out.data(), out.data(), n, init, then{});
      EXPECT_TRUE(same(out, ref_ex));
    }
  }
}

// ---- floating point: same bits for every thread count ----------------------------------

template <class T>
class ScanCpuFloat : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ScanCpuFloat, FloatTypes);

TYPED_TEST(ScanCpuFloat, BitIdenticalAcrossThreadsAndAccurate) {
  using T = TypeParam;
  using Wide = std::conditional_t<std::is_same_v<T, float>, double, long double>;
  // Error relative to the running sum of |x|. The blocked order bounds it by about
  // (block + n/block) * epsilon (4e-3 for float, 7e-12 for double); these inputs reach
  // 2e-5 and 4e-14, so the tolerances below leave a wide margin yet catch any real slip.
  const Wide tol = std::is_same_v<T, float> ? 5e-4 : 5e-12;
  std::mt19937_64 rng(7);
  std::vector<std::size_t> sizes = {B - 1, B, B + 1, 2 * B, 3 * B + 5, 1000007};
  for (int i = 0; i < 4; ++i) sizes.push_back(2 * B + rng() % (6 * B));
  for (std::size_t n : sizes) {
    for (T lo : {T(0), T(-1)}) {  // positive, and mixed signs
      std::uniform_real_distribution<T> dist(lo, T(1));
      std::vector<T> in(n);
      for (T& x : in) x = dist(rng);
      const T init = T(0.1);
      // Each mode: inclusive, inclusive with init, exclusive, and inclusive in place.
      auto run = [&](unsigned t, int mode) {
        std::vector<T> out(n);
        if (mode == 0) ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), n);
        if (mode == 1) ssum::inclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, ssum::plus{}, init);
        if (mode == 2) ssum::exclusive_scan(ssum::cpu{t}, in.data(), out.data(), n, init);
        if (mode == 3) {
          out = in;
          ssum::inclusive_scan(ssum::cpu{t}, out.data(), out.data(), n);
        }
        return out;
      };
      for (int mode = 0; mode < 4; ++mode) {
        SCOPED_TRACE("n=" + std::to_string(n) + " mode=" + std::to_string(mode) + " lo=" + std::to_string(lo));
        const std::vector<T> first = run(1, mode);
        for (unsigned t : {2u, 3u, 8u}) EXPECT_TRUE(same_bits(run(t, mode), first)) << "threads=" << t;
        // Accuracy against a wider sum, in the same inclusive/exclusive shape.
        Wide sum = mode == 1 || mode == 2 ? Wide(init) : Wide(0), mag = std::abs(sum), worst = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const Wide x = in[i];
          if (mode != 2) sum += x, mag += std::abs(x);  // inclusive: x counts at i
          worst = std::max(worst, std::abs(Wide(first[i]) - sum) / std::max(mag, Wide(1e-30)));
          if (mode == 2) sum += x, mag += std::abs(x);  // exclusive: from i + 1
        }
        EXPECT_LT(worst, tol);
        if (n <= B && mode == 0) {  // one block: exactly the sequential left fold
          std::vector<T> seq(n);
          std::inclusive_scan(in.begin(), in.end(), seq.begin());
          EXPECT_TRUE(same_bits(first, seq));
        }
      }
    }
  }
}

// The tolerance above is relative to the running sum of |x|, so it cannot see one dropped or
// doubled element late in a long scan. Values whose every partial sum is exact in T (small
// integers, |prefix| < 2^24 for float) make any association give the sequential result
// bit for bit: one element lost anywhere changes an output.
TYPED_TEST(ScanCpuFloat, ExactValuesMatchTheSequentialScanBitForBit) {
  using T = TypeParam;
  std::mt19937_64 rng(11);
  for (std::size_t n : {B - 1, B, B + 1, 3 * B + 5, std::size_t{1000007}}) {
    std::vector<T> in(n);
    for (T& x : in) x = static_cast<T>(static_cast<int>(rng() % 17) - 8);  // |prefix| <= 8n < 2^24
    std::vector<T> want(n), got(n);
    std::inclusive_scan(in.begin(), in.end(), want.begin());
    for (unsigned t : kThreads) {
      ssum::inclusive_scan(ssum::cpu{t}, in.data(), got.data(), n);
      EXPECT_TRUE(same_bits(got, want)) << "inclusive, n=" << n << " threads=" << t;
      std::exclusive_scan(in.begin(), in.end(), want.begin(), T(3));
      ssum::exclusive_scan(ssum::cpu{t}, in.data(), got.data(), n, T(3));
      EXPECT_TRUE(same_bits(got, want)) << "exclusive, n=" << n << " threads=" << t;
      std::inclusive_scan(in.begin(), in.end(), want.begin());
    }
  }
}

// ---- odds and ends --------------------------------------------------------------------

TEST(ScanCpuMisc, DefaultThreadCount) {
  const std::size_t n = 3 * B + 5;
  std::vector<std::uint64_t> in = random_input<std::uint64_t>(n, 9), ref(n), out(n);
  std::inclusive_scan(in.begin(), in.end(), ref.begin());
  ssum::inclusive_scan(ssum::cpu{}, in.data(), out.data(), n);
  EXPECT_TRUE(same(out, ref));
}

TEST(ScanCpuMisc, CopyIfCallsPredOncePerElement) {
  for (std::size_t n : {std::size_t(100), 3 * B + 5}) {
    const std::vector<std::int32_t> in = random_input<std::int32_t>(n, 11);
    std::vector<std::int32_t> out(n);
    for (unsigned t : kThreads) {
      std::atomic<std::size_t> calls{0};
      ssum::copy_if(ssum::cpu{t}, in.data(), out.data(), n, [&](std::int32_t x) {
        calls.fetch_add(1, std::memory_order_relaxed);
        return x > 0;
      });
      EXPECT_EQ(calls.load(), n) << "n=" << n << " threads=" << t;
    }
  }
}

}  // namespace

// CUDA scans and compaction against std::inclusive_scan / std::exclusive_scan / std::copy_if.
// Every test skips, saying so, where no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "cuda/scan/block_scan.cuh"
#include "cuda/scan/scan_kernels.cuh"
#include "cuda/scan/scan_policy.cuh"
#include "device_array.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/scan.hpp"

namespace {

#define CHECK_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

using ssum_test::device_array;
#define SKIP_WITHOUT_DEVICE() SSUM_SKIP_WITHOUT_DEVICE("CUDA scan")

// Values whose sums stay exact in every type (floats included: small integers), so results
// can be compared exactly even though the device associates differently from std::.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) x = static_cast<T>(static_cast<int>(rng() % 17) - 8);
    else if constexpr (std::is_signed_v<T>) x = static_cast<T>(static_cast<std::int64_t>(rng() % 2001) - 1000);
    else x = static_cast<T>(rng());  // unsigned: wrap-around is well defined, exercise it
  }
  return v;
}

template <class T>
class CudaScan : public ::testing::Test {};
using scan_types = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(CudaScan, scan_types);

template <class T>
std::vector<std::size_t> scan_sizes() {
  constexpr std::size_t tile = ssum::cuda_detail::scan_policy<T, T>::transposing::tile;
  std::vector<std::size_t> sizes = {0, 1, 2, 31, 32, 33, 255, 256, 257, tile - 1, tile, tile + 1, 2 * tile + 3,
                                    1000007};
  if constexpr (std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {  // the vectorized kernel's tiles
    constexpr std::size_t vtile = ssum::cuda_detail::scan_policy<T, T>::vectorized::tile;
    for (std::size_t s : {vtile - 1, vtile, vtile + 1, 3 * vtile + 5}) sizes.push_back(s);
  }
  std::mt19937_64 rng(99);
  for (int i = 0; i < 8; ++i) sizes.push_back(rng() % (1u << 20));
  return sizes;
}

template <class T, class Op>
void check_all_modes(std::size_t n, Op op, std::uint64_t seed) {
  const std::vector<T> in = random_values<T>(n, seed);
  const T init = static_cast<T>(3);
  std::vector<T> expect(n);
  device_array<T> d_in(in), d_out(n);

  std::inclusive_scan(in.begin(), in.end(), expect.begin(), op);
  ssum::inclusive_scan(ssum::cuda{}, d_in.ptr, d_out.ptr, n, op);
  EXPECT_EQ(d_out.to_host(), expect) << "inclusive, n=" << n;

  std::inclusive_scan(in.begin(), in.end(), expect.begin(), op, init);
  ssum::inclusive_scan(ssum::cuda{}, d_in.ptr, d_out.ptr, n, op, init);
  EXPECT_EQ(d_out.to_host(), expect) << "inclusive with init, n=" << n;

  std::exclusive_scan(in.begin(), in.end(), expect.begin(), init, op);
  ssum::exclusive_scan(ssum::cuda{}, d_in.ptr, d_out.ptr, n, init, op);
  EXPECT_EQ(d_out.to_host(), expect) << "exclusive, n=" << n;

  // In place: the output overwrites the input.
  ssum::exclusive_scan(ssum::cuda{}, d_in.ptr, d_in.ptr, n, init, op);
  EXPECT_EQ(d_in.to_host(), expect) << "exclusive in place, n=" << n;
}

TYPED_TEST(CudaScan, PlusMatchesStdAtEdgeSizes) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : scan_sizes<TypeParam>()) check_all_modes<TypeParam>(n, ssum::plus{}, n + 1);
}

TYPED_TEST(CudaScan, MinMaxMatchStd) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{4097}, std::size_t{300001}}) {
    check_all_modes<TypeParam>(n, ssum::minimum{}, 7 * n);
    check_all_modes<TypeParam>(n, ssum::maximum{}, 11 * n);
  }
}

TYPED_TEST(CudaScan, BitOrMatchesStd) {
  if constexpr (std::is_integral_v<TypeParam>) {
    SKIP_WITHOUT_DEVICE();
    for (std::size_t n : {std::size_t{5}, std::size_t{2049}, std::size_t{123457}}) {
      check_all_modes<TypeParam>(n, ssum::bit_or{}, n);
    }
  } else {
    GTEST_SKIP() << "bit_or is for integers";
  }
}

// Floats: the same bits on every run (fixed association), for values where rounding matters.
TYPED_TEST(CudaScan, FloatScansAreDeterministic) {
  if constexpr (std::is_floating_point_v<TypeParam>) {
    SKIP_WITHOUT_DEVICE();
    const std::size_t n = 3000017;
    std::mt19937_64 rng(5);
    std::vector<TypeParam> in(n);
    for (auto& x : in) x = static_cast<TypeParam>(std::ldexp(double(rng() % 1000003), -int(rng() % 40)));
    device_array<TypeParam> d_in(in), d_a(n), d_b(n);
    ssum::inclusive_scan(ssum::cuda{}, d_in.ptr, d_a.ptr, n, ssum::plus{});
    ssum::inclusive_scan(ssum::cuda{}, d_in.ptr, d_b.ptr, n, ssum::plus{});
    const auto a = d_a.to_host(), b = d_b.to_host();
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(TypeParam)), 0);
    // And close to the exact (long double) prefix.
    long double exact = 0;
    for (std::size_t i = 0; i < n; ++i) {
      exact += in[i];
      if (i % 9973 == 0 || i == n - 1) EXPECT_NEAR(double(a[i]), double(exact), 1e-4 * double(exact) + 1e-30);
    }
  } else {
    GTEST_SKIP() << "integer scans are exact";
  }
}

TYPED_TEST(CudaScan, CopyIfMatchesStd) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  for (std::size_t n : scan_sizes<T>()) {
    std::vector<T> in = random_values<T>(n, n + 5);
    for (std::size_t i = 0; i < n; i += 3) in[i] = T(0);
    device_array<T> d_in(in), d_out(n);
    std::vector<T> expect;
    std::copy_if(in.begin(), in.end(), std::back_inserter(expect), ssum::nonzero{});
    const std::size_t count = ssum::copy_if(ssum::cuda{}, d_in.ptr, d_out.ptr, n, ssum::nonzero{});
    ASSERT_EQ(count, expect.size()) << "n=" << n;
    auto got = d_out.to_host();
    got.resize(count);
    EXPECT_EQ(got, expect) << "n=" << n;

    const ssum::in_range<T> range{T(0), T(5)};
    expect.clear();
    std::copy_if(in.begin(), in.end(), std::back_inserter(expect), range);
    ASSERT_EQ(ssum::copy_if(ssum::cuda{}, d_in.ptr, d_out.ptr, n, range), expect.size());
    got = d_out.to_host();
    got.resize(expect.size());
    EXPECT_EQ(got, expect) << "in_range, n=" << n;
  }
}

// Pointers off 16-byte alignment take the transposing kernel instead of the vectorized one;
// results must not change. Input and output misaligned alike, and only one of them.
TYPED_TEST(CudaScan, MisalignedPointersMatchStd) {
  SKIP_WITHOUT_DEVICE();
  using T = TypeParam;
  for (std::size_t n : {std::size_t{1}, std::size_t{4095}, std::size_t{4097}, std::size_t{100003}}) {
    const std::vector<T> in = random_values<T>(n + 1, n);
    device_array<T> d_in(in), d_out(n + 1);
    std::vector<T> expect(n);
    std::inclusive_scan(in.begin() + 1, in.end(), expect.begin(), ssum::plus{});
    ssum::inclusive_scan(ssum::cuda{}, d_in.ptr + 1, d_out.ptr + 1, n, ssum::plus{});
    auto got = d_out.to_host();
    EXPECT_TRUE(std::equal(expect.begin(), expect.end(), got.begin() + 1)) << "both misaligned, n=" << n;
    ssum::inclusive_scan(ssum::cuda{}, d_in.ptr + 1, d_out.ptr, n, ssum::plus{});
    got = d_out.to_host();
    EXPECT_TRUE(std::equal(expect.begin(), expect.end(), got.begin())) << "input misaligned, n=" << n;
    std::exclusive_scan(in.begin(), in.end() - 1, expect.begin(), T(3), ssum::plus{});
    ssum::exclusive_scan(ssum::cuda{}, d_in.ptr, d_out.ptr + 1, n, T(3), ssum::plus{});
    got = d_out.to_host();
    EXPECT_TRUE(std::equal(expect.begin(), expect.end(), got.begin() + 1)) << "output misaligned, n=" << n;
  }
}

// The warp-specialized kernel (persistent blocks, a ring of bulk-copied tiles), which the
// scans take from 64 MiB on sm_90, launched directly in its default shape and a small one:
// every mode, every operator, its tiles' edge sizes, and rings reused many times over.
template <class T, class Launch, class Op>
void check_launch(Launch launch, std::size_t n, Op op, std::uint64_t seed) {
  using namespace ssum::cuda_detail;
  const std::vector<T> in = random_values<T>(n, seed);
  const T init = static_cast<T>(5);
  std::vector<T> expect(n);
  device_array<T> d_in(in), d_out(n);
  scan_params<T> p{};
  std::inclusive_scan(in.begin(), in.end(), expect.begin(), op);
  launch(d_in.ptr, d_out.ptr, n, op, p);
  EXPECT_EQ(d_out.to_host(), expect) << "inclusive, n=" << n;
  p.has_init = true;
  p.init = init;
  std::inclusive_scan(in.begin(), in.end(), expect.begin(), op, init);
  launch(d_in.ptr, d_out.ptr, n, op, p);
  EXPECT_EQ(d_out.to_host(), expect) << "inclusive with init, n=" << n;
  p.exclusive = true;
  std::exclusive_scan(in.begin(), in.end(), expect.begin(), init, op);
  launch(d_in.ptr, d_in.ptr, n, op, p);  // in place
  EXPECT_EQ(d_in.to_host(), expect) << "exclusive in place, n=" << n;
}

TYPED_TEST(CudaScan, SpecializedKernelMatchesStd) {
  using T = TypeParam;
  if constexpr (std::is_integral_v<T>) {
    SKIP_WITHOUT_DEVICE();
    using namespace ssum::cuda_detail;
    using tuning = typename scan_policy<T, T>::specialized;
    auto* kernel = scan_tiles_specialized<tuning::consumers, tuning::rows, tuning::stages, tuning::min_blocks, T,
                                          ssum::plus>;
    if (!runs_bulk_copy_code(kernel)) GTEST_SKIP() << "the device or the build has no sm_90 code";
    const auto tuned = [](const T* in, T* out, std::size_t n, auto op, scan_params<T> p) {
      EXPECT_TRUE((launch_specialized_scan<tuning::consumers, tuning::rows, tuning::stages, tuning::min_blocks>(
          nullptr, in, out, n, op, p)));
    };
    // Two consumers, two stages of 1 KiB tiles: every stage is reused many times (the
    // barriers' phases alternate).
    const auto small = [](const T* in, T* out, std::size_t n, auto op, scan_params<T> p) {
      EXPECT_TRUE((launch_specialized_scan<2, 2, 2, 1>(nullptr, in, out, n, op, p)));
    };

    constexpr std::size_t tile = specialized_scan_shape<tuning::consumers, tuning::rows, T>::tile_t::size;
    constexpr std::size_t small_tile = specialized_scan_shape<2, 2, T>::tile_t::size;
    // 2 x 10^7: about 18 tiles per block of the default shape, so its stages are reused too
    // (only the sum there: under racecheck each element costs a lot).
    check_launch<T>(tuned, 20000000, ssum::plus{}, 1);
    for (std::size_t n : {std::size_t{1}, std::size_t{33}, small_tile - 1, small_tile, small_tile + 1, tile - 1, tile,
                          tile + 1, 3 * tile + 17, std::size_t{1000007}}) {
      check_launch<T>(tuned, n, ssum::plus{}, n);
      check_launch<T>(small, n, ssum::plus{}, n + 1);
      check_launch<T>(tuned, n, ssum::minimum{}, 3 * n);
      check_launch<T>(tuned, n, ssum::maximum{}, 5 * n);
      check_launch<T>(small, n, ssum::bit_or{}, 7 * n);
    }
  } else {
    GTEST_SKIP() << "the specialized kernel is for integers";
  }
}

TEST(CudaScanErrors, NullPointersAreRejected) {
  SKIP_WITHOUT_DEVICE();
  int* null = nullptr;
  EXPECT_THROW(ssum::inclusive_scan(ssum::cuda{}, null, null, 10, ssum::plus{}), std::invalid_argument);
  EXPECT_NO_THROW(ssum::inclusive_scan(ssum::cuda{}, null, null, 0, ssum::plus{}));
}

// A sum of n random values on `stream` (at an odd offset when not aligned: the transposing
// kernel), checked against std::inclusive_scan.
template <class T>
void expect_inclusive_sum(cudaStream_t stream, std::size_t n, std::uint64_t seed, bool aligned = true) {
  const auto in = random_values<T>(n + 1, seed);
  device_array<T> d_in(in), d_out(n + 1);
  const std::size_t at = aligned ? 0 : 1;  // an odd offset takes the transposing kernel
  ssum::inclusive_scan(ssum::cuda{stream}, d_in.ptr + at, d_out.ptr + at, n, ssum::plus{});
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<T> expect(n);
  std::inclusive_scan(in.begin() + at, in.begin() + at + n, expect.begin());
  const auto got = d_out.to_host();
  EXPECT_TRUE(std::equal(expect.begin(), expect.end(), got.begin() + at)) << "n=" << n << " aligned=" << aligned;
}

TEST(CudaScanStreams, RunsOrderedOnTheGivenStream) {
  SKIP_WITHOUT_DEVICE();
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  expect_inclusive_sum<std::int64_t>(stream, 1 << 20, 1);
  CHECK_CUDA(cudaStreamDestroy(stream));
}

// Tile state kept per stream from call to call (kept_state.cuh): each kernel leaves it zeroed
// for the next. Growing sizes, alternating kernels and types, and streams of their own, all
// on the state left by the calls before; every result checked.
TEST(CudaScanKeptState, CallAfterCallOnOneStream) {
  SKIP_WITHOUT_DEVICE();
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::uint64_t seed = 1;
  for (std::size_t n : {std::size_t{1}, std::size_t{4097}, std::size_t{1000007}, std::size_t{3}, std::size_t{1} << 22,
                        std::size_t{33}, (std::size_t{1} << 24) + 5, std::size_t{100000}}) {
    expect_inclusive_sum<std::int32_t>(stream, n, seed++);
    expect_inclusive_sum<std::uint64_t>(stream, n, seed++);
    expect_inclusive_sum<std::int64_t>(stream, n, seed++, false);
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  expect_inclusive_sum<std::int32_t>(nullptr, 1 << 20, seed++);  // the legacy stream
}

TEST(CudaScanKeptState, StreamsOfSeveralThreads) {
  SKIP_WITHOUT_DEVICE();
  cudaStream_t shared;
  CHECK_CUDA(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, shared] {
      cudaStream_t own;
      ASSERT_EQ(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), cudaSuccess);
      for (int i = 0; i < 5; ++i) {
        const std::size_t n = (std::size_t{1} << (12 + 2 * i)) + 17 * t;
        expect_inclusive_sum<std::int32_t>(t % 2 ? own : shared, n, 100 * t + i);
        expect_inclusive_sum<std::int64_t>(cudaStreamPerThread, n, 100 * t + i + 50);
      }
      ASSERT_EQ(cudaStreamDestroy(own), cudaSuccess);
    });
  }
  for (auto& t : threads) t.join();
  CHECK_CUDA(cudaStreamDestroy(shared));
}

// A stream being captured keeps no state (a graph may run on any stream): the captured scan
// takes its own scratch, and the graph replays correctly, twice.
TEST(CudaScanKeptState, CapturedIntoAGraph) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = (1 << 20) + 3;
  const auto in = random_values<std::int32_t>(n, 5);
  device_array<std::int32_t> d_in(in), d_out(n);
  std::vector<std::int32_t> expect(n);
  std::inclusive_scan(in.begin(), in.end(), expect.begin());
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  expect_inclusive_sum<std::int32_t>(stream, n, 6);  // the stream has kept state already
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  ssum::inclusive_scan(ssum::cuda{stream}, d_in.ptr, d_out.ptr, n, ssum::plus{});
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    CHECK_CUDA(cudaMemset(d_out.ptr, 0, n * sizeof(std::int32_t)));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(d_out.to_host(), expect) << "replay " << replay;
  }
  expect_inclusive_sum<std::int32_t>(stream, n, 7);  // and the kept state is still good
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
}

// After a device reset every buffer is gone: the new context has a new id, so the state kept
// for the old one is never used.
TEST(CudaScanKeptState, AfterADeviceReset) {
  SKIP_WITHOUT_DEVICE();
  expect_inclusive_sum<std::int32_t>(nullptr, 1 << 20, 8);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaDeviceReset());
  expect_inclusive_sum<std::int32_t>(nullptr, 1 << 20, 9);
  expect_inclusive_sum<std::int64_t>(nullptr, 1 << 20, 10);
}

// More than 2^31 elements: 8-bit input, 64-bit sums. Checked at a million sample positions.
TEST(CudaScanLarge, BeyondTwoToThe31Elements) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = (std::size_t{1} << 31) + 4099;
  std::size_t free_bytes = 0, total = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < n * 9 + (std::size_t{1} << 30)) GTEST_SKIP() << "needs " << n * 9 / (1 << 30) << " GiB of device memory";
  std::vector<std::uint8_t> in(n);
  std::mt19937_64 rng(31);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(&in[i], &r, std::min<std::size_t>(8, n - i));
  }
  device_array<std::uint8_t> d_in(in);
  device_array<std::uint64_t> d_out(n);
  ssum::inclusive_scan(ssum::cuda{}, d_in.ptr, d_out.ptr, n, ssum::plus{});
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::size_t> probes;
  for (std::size_t i = 0; i < n; i += 2039) probes.push_back(i);
  for (std::size_t i = n - 5000; i < n; ++i) probes.push_back(i);
  std::sort(probes.begin(), probes.end());
  std::uint64_t prefix = 0;
  std::size_t next = 0, mismatches = 0;
  for (std::size_t p : probes) {
    for (; next <= p; ++next) prefix += in[next];
    std::uint64_t got = 0;
    CHECK_CUDA(cudaMemcpy(&got, d_out.ptr + p, sizeof got, cudaMemcpyDeviceToHost));
    if (got != prefix && ++mismatches < 5) ADD_FAILURE() << "element " << p << ": " << got << " != " << prefix;
  }
  EXPECT_EQ(mismatches, 0u);
}

// More than 2^31 int32-sized elements through the vectorized kernel (uint32, wrapping sums),
// in place, every element checked.
TEST(CudaScanLarge, VectorizedBeyondTwoToThe31Elements) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = (std::size_t{1} << 31) + 77;
  std::size_t free_bytes = 0, total = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < n * 4 + (std::size_t{1} << 30)) GTEST_SKIP() << "needs " << n * 4 / (1 << 30) + 1 << " GiB of device memory";
  std::vector<std::uint32_t> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>((i * 0x9e3779b97f4a7c15ull) >> 40);
  device_array<std::uint32_t> d(in);
  ssum::inclusive_scan(ssum::cuda{}, d.ptr, d.ptr, n, ssum::plus{}, std::uint32_t{5});
  CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<std::uint32_t> got = d.to_host();
  std::uint32_t prefix = 5;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    prefix += in[i];
    if (got[i] != prefix && ++mismatches < 5) ADD_FAILURE() << "element " << i << ": " << got[i] << " != " << prefix;
  }
  EXPECT_EQ(mismatches, 0u);
}

// The block-level scans on their own, as other kernels use them.
template <class BlockScan, class Op>
__global__ void block_scan_kernel(const int* in, int* inc, int* exc, int* total, Op op) {
  __shared__ typename BlockScan::storage s;
  int i, e, t;
  BlockScan::scan(in[threadIdx.x], op, i, e, t, s);
  inc[threadIdx.x] = i;
  exc[threadIdx.x] = e;
  if (threadIdx.x == 0) *total = t;
}

template <class BlockScan, class Op>
void check_block_scan(Op op) {
  constexpr int threads = 1024;
  const auto in = random_values<std::int32_t>(threads, 77);
  device_array<int> d_in(in), d_inc(threads), d_exc(threads), d_total(1);
  block_scan_kernel<BlockScan><<<1, threads>>>(d_in.ptr, d_inc.ptr, d_exc.ptr, d_total.ptr, op);
  CHECK_CUDA(cudaGetLastError());
  std::vector<int> expect(threads);
  std::inclusive_scan(in.begin(), in.end(), expect.begin(), op);
  EXPECT_EQ(d_inc.to_host(), expect);
  const auto exc = d_exc.to_host();
  for (int t = 1; t < threads; ++t) ASSERT_EQ(exc[t], expect[t - 1]) << t;
  EXPECT_EQ(d_total.to_host()[0], expect.back());
}

TEST(CudaBlockScan, WarpShuffleAgreesWithStd) {
  SKIP_WITHOUT_DEVICE();
  using namespace ssum::cuda_detail;
  check_block_scan<block_scan_warp<1024, int>>(ssum::plus{});
  check_block_scan<block_scan_warp<1024, int>>(ssum::maximum{});
}

}  // namespace

// The first levels of the CUDA two-list's generation (src/solver/two_list/first_subset_sums.cuh): one
// block's sorted subset sums against every subset summed and sorted on the host.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "solver/two_list/first_subset_sums.cuh"
#include "../small_instances.hpp"
#include "device_array.cuh"

namespace {

using ssum_test::device_array;

#define SKIP_WITHOUT_DEVICE() \
  if (!ssum_test::have_device()) GTEST_SKIP() << "no CUDA device present: first subset sums not exercised"

std::vector<std::uint64_t> all_sums_sorted(const std::vector<std::uint64_t>& w) {
  return ssum_test::sorted_subset_sums(w.data(), w.size());
}

std::vector<std::uint64_t> on_device(const std::vector<std::uint64_t>& w) {
  device_array<std::uint64_t> out(std::size_t{1} << w.size());
  ssum::cuda_detail::launch_first_subset_sums(w.data(), w.size(), out.ptr, nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return out.to_host();
}

TEST(CudaFirstSubsetSums, MatchSortedBruteForce) {
  SKIP_WITHOUT_DEVICE();
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t m = static_cast<std::size_t>(trial % 12);  // 0 .. 11 weights
    // Small ranges give zeros, equal weights and equal sums (ties); wide ones come near 2^64.
    const int bits = trial % 3 == 0 ? 2 : trial % 3 == 1 ? 20 : 59;
    std::vector<std::uint64_t> w(m);
    for (auto& x : w) x = rng() >> (64 - bits);
    EXPECT_EQ(on_device(w), all_sums_sorted(w)) << "m = " << m << ", bits = " << bits;
  }
  // Eleven weights whose sum is 2^64 - 1 exactly: every sum fits, the largest is the top value.
  std::vector<std::uint64_t> top(11, UINT64_MAX / 11);
  top[0] += UINT64_MAX - (UINT64_MAX / 11) * 11;
  EXPECT_EQ(on_device(top), all_sums_sorted(top));
}

TEST(CudaFirstSubsetSums, RefusesMoreThanItHolds) {
  const std::vector<std::uint64_t> w(12, 1);
  EXPECT_THROW(ssum::cuda_detail::launch_first_subset_sums(w.data(), w.size(), nullptr, nullptr), std::invalid_argument);
}

}  // namespace

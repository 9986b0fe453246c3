// Runs only where a CUDA device is present; elsewhere each test says why it skipped.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"

namespace {

bool have_device() { return !ssum::cuda_devices().empty(); }

TEST(CudaDevice, BuildHasCudaBackend) { EXPECT_TRUE(ssum::cuda_compiled()); }

TEST(CudaDevice, QueryReportsSaneProperties) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device present: device query not exercised";
  for (const auto& d : ssum::cuda_devices()) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_major, 5);
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.total_memory, 0u);
    EXPECT_LE(d.free_memory, d.total_memory);
  }
}

// Asking for the devices leaves the caller's current device as it was (the query visits each).
TEST(CudaDevice, QueryKeepsTheCallersDevice) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device present: device query not exercised";
  const int last = static_cast<int>(ssum::cuda_devices().size()) - 1;
  ASSERT_EQ(cudaSetDevice(last), cudaSuccess);
  (void)ssum::cuda_devices();
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, last);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  (void)ssum::cuda_devices();
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);
}

TEST(CudaDevice, SelfTestKernelRunsAndChecks) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device present: kernel not run";
  EXPECT_NO_THROW(ssum::cuda_self_test(0));
}

TEST(CudaDevice, BadOrdinalIsRefused) {
  EXPECT_THROW(ssum::cuda_self_test(-1), ssum::backend_unavailable);
  EXPECT_THROW(ssum::cuda_self_test(1 << 20), ssum::backend_unavailable);
}

}  // namespace

// Runs only where a CUDA device is present; elsewhere each test says why it skipped.
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

TEST(CudaDevice, SelfTestKernelRunsAndChecks) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device present: kernel not run";
  EXPECT_NO_THROW(ssum::cuda_self_test(0));
}

TEST(CudaDevice, BadOrdinalIsRefused) {
  EXPECT_THROW(ssum::cuda_self_test(-1), ssum::backend_unavailable);
  EXPECT_THROW(ssum::cuda_self_test(1 << 20), ssum::backend_unavailable);
}

}  // namespace

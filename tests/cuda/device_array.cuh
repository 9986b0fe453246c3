#pragma once
// What the CUDA tests share: a device copy of a host vector, and skipping without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "ssum/cuda_device.hpp"

namespace ssum_test {

inline bool have_device() { return !ssum::cuda_devices().empty(); }

template <class T>
struct device_array {
  T* ptr = nullptr;
  std::size_t size = 0;
  explicit device_array(std::size_t n) : size(n) {
    if (n) EXPECT_EQ(cudaMalloc(&ptr, n * sizeof(T)), cudaSuccess);
  }
  explicit device_array(const std::vector<T>& host) : device_array(host.size()) {
    if (size) EXPECT_EQ(cudaMemcpy(ptr, host.data(), size * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    // From pageable memory cudaMemcpy may return before the copy lands, ordered only on the
    // legacy stream: a kernel on a non-blocking stream could read the buffer before it.
    EXPECT_EQ(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
  }
  ~device_array() { cudaFree(ptr); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  std::vector<T> to_host() const {
    std::vector<T> host(size);
    if (size) EXPECT_EQ(cudaMemcpy(host.data(), ptr, size * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
};

}  // namespace ssum_test

#define SSUM_SKIP_WITHOUT_DEVICE(what) \
  if (!ssum_test::have_device()) GTEST_SKIP() << "no CUDA device present: " what " not exercised"

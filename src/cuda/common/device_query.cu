// Device discovery and a self test that proves the build's device code runs on the GPU.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "ssum/cuda_device.hpp"

namespace ssum {
namespace {

// Writes a value every thread can compute on its own, so the host can check each one.
__global__ void self_test_kernel(std::uint64_t* out, std::uint64_t n) {
  const std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = i * i + 7;
}

}  // namespace

bool cuda_compiled() noexcept { return true; }

std::vector<cuda_device_info> cuda_devices() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  // No device or no driver is an ordinary answer on a CPU-only machine, not an error.
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return {};
  }
  SSUM_CUDA_CHECK(status);
  std::vector<cuda_device_info> devices;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    SSUM_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    cuda_device_info info;
    info.ordinal = d;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.total_memory = prop.totalGlobalMem;
    // cudaMemGetInfo asks the current device: d for the call, the caller's again afterwards.
    const cuda_detail::device_scope on(d);
    SSUM_CUDA_CHECK(cudaMemGetInfo(&info.free_memory, &info.total_memory));
    devices.push_back(info);
  }
  return devices;
}

void cuda_self_test(int device) {
  if (device < 0 || device >= static_cast<int>(cuda_devices().size())) {
    throw backend_unavailable("no CUDA device with ordinal " + std::to_string(device));
  }
  SSUM_CUDA_CHECK(cudaSetDevice(device));
  constexpr std::uint64_t n = 1000003;  // not a multiple of the block size: tests the tail guard
  std::uint64_t* d_out = nullptr;
  SSUM_CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(std::uint64_t)));
  std::vector<std::uint64_t> host(n);
  try {
    constexpr unsigned block = 256;
    self_test_kernel<<<unsigned((n + block - 1) / block), block>>>(d_out, n);
    SSUM_CUDA_CHECK_LAUNCH("self_test_kernel");
    SSUM_CUDA_CHECK(cudaMemcpy(host.data(), d_out, n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(d_out);
    throw;
  }
  SSUM_CUDA_CHECK(cudaFree(d_out));
  for (std::uint64_t i = 0; i < n; ++i) {
    if (host[i] != i * i + 7) {
      throw cuda_error("CUDA self test: element " + std::to_string(i) + " is wrong", 0);
    }
  }
}

}  // namespace ssum

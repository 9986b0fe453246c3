#pragma once
// Inputs and device checks shared by the CUDA merge and pair-sum tests.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace ssum_test {

// Whether the bulk kernels must run here (a device of compute capability 9.0 or later): then
// the tests check that they did rather than their fallback.
inline bool device_runs_bulk_copies() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) return false;
  return major >= 9;
}

// Sizes for tiles of 96 and 160 outputs: empty, single, one tile +- 1, ranges ending anywhere
// inside a 16-byte piece, many tiles per block.
inline std::vector<std::pair<std::size_t, std::size_t>> bulk_sizes() {
  std::vector<std::pair<std::size_t, std::size_t>> s = {
      {0, 0},  {0, 1},  {1, 0},   {1, 1},   {95, 0},   {0, 97},    {95, 1},      {96, 96},    {97, 95},
      {159, 1}, {1, 160}, {161, 0}, {1000, 3}, {3, 1000}, {4099, 4097}, {20011, 19999}, {5, 60001}};
  std::mt19937_64 rng(321);
  for (int k = 0; k < 6; ++k) s.emplace_back(rng() % 40000, rng() % 40000);
  return s;
}

// a = the multiples of 3 below n, b = the other numbers below n (their merge is 0, 1, ...,
// n - 1), built on the device.
// static: each test file that includes this header holds its own copy of the kernel.
static __global__ void fill_thirds(std::uint32_t* a, std::size_t na, std::uint32_t* b, std::size_t nb) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < na || k < nb; k += stride) {
    if (k < na) a[k] = static_cast<std::uint32_t>(3 * k);
    if (k < nb) b[k] = static_cast<std::uint32_t>(3 * (k / 2) + 1 + k % 2);  // 1, 2, 4, 5, 7, 8, ...
  }
}

struct thirds {
  std::size_t n, na, nb;
  explicit thirds(std::size_t total) : n(total), na((total + 2) / 3), nb(total - (total + 2) / 3) {}
};

inline bool enough_device_memory(std::size_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return false;
  return free_bytes >= bytes + (std::size_t{1} << 30);
}

}  // namespace ssum_test

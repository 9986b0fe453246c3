// ssum's CUDA primitives for the Python module's device arrays: output memory, the calls into
// scan.hpp, sort.hpp and merge.hpp, and the sortedness check that merge() makes on the host
// for numpy arrays. Everything runs on the legacy default stream (CuPy's and PyTorch's default).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "device_primitives.hpp"
#include "ssum/detail/cuda_types.hpp"
#include "ssum/errors.hpp"
#include "ssum/functional.hpp"
#include "ssum/merge.hpp"
#include "ssum/scan.hpp"
#include "ssum/sort.hpp"

namespace ssum::python::device {
namespace {

constexpr cudaStream_t stream = nullptr;  // the legacy default stream

// "No device or driver" is a missing backend, as for ssum.solve(backend="cuda"), not a failure.
void require(int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    cudaGetLastError();  // leave no error behind for a later launch check to report
    throw backend_unavailable("a CUDA device array was passed, but no CUDA device or driver is usable here");
  }
  SSUM_CUDA_CHECK(status);
  if (device < 0 || device >= count) {
    throw backend_unavailable("the array is on CUDA device " + std::to_string(device) + ", but " +
                              std::to_string(count) + " device(s) are visible");
  }
}

ssum::cuda policy(int device) { return ssum::cuda{stream, device}; }

template <class T>
__global__ void find_unsorted(const T* a, std::size_t n, unsigned long long* first) {
  const std::size_t step = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = 1 + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += step) {
    if (ssum::less{}(a[i], a[i - 1])) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

}  // namespace

void* allocate(std::size_t bytes, int device) {
  require(device);
  cuda_detail::device_scope on(device);
  void* p = nullptr;
  const cudaError_t status = cudaMallocAsync(&p, bytes ? bytes : 1, stream);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free = 0, total = 0;
    SSUM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    throw insufficient_memory::needs("the output array on CUDA device " + std::to_string(device), double(bytes),
                                     double(free));
  }
  SSUM_CUDA_CHECK(status);
  return p;
}

void release(void* p, int device) noexcept {
  int previous = device;
  cudaGetDevice(&previous);
  if (previous != device) cudaSetDevice(device);
  cudaFreeAsync(p, stream);
  if (previous != device) cudaSetDevice(previous);
  cudaGetLastError();  // e.g. cudaErrorCudartUnloading at exit: nothing to do, nothing to leave behind
}

template <class T>
void inclusive_scan(const T* in, T* out, std::size_t n, int device) {
  ssum::inclusive_scan(policy(device), in, out, n);
}

template <class T>
void exclusive_scan(const T* in, T* out, std::size_t n, int device) {
  ssum::exclusive_scan(policy(device), in, out, n, T(0));
}

template <class T>
void sort(const T* in, T* out, std::size_t n, int device) {
  if (n == 0) return;
  cuda_detail::device_scope on(device);
  SSUM_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  // Batcher's network, as on the host: the transposition sort is quadratic on unsorted keys.
  ssum::odd_even_merge_sort(policy(device), out, n);
}

template <class T>
std::size_t first_unsorted(const T* a, std::size_t n, int device) {
  require(device);
  if (n < 2) return n;
  cuda_detail::device_scope on(device);
  cuda_detail::device_buffer first(sizeof(unsigned long long), stream);
  SSUM_CUDA_CHECK(cudaMemsetAsync(first.as<void>(), 0xff, sizeof(unsigned long long), stream));  // "none"
  constexpr unsigned threads = 256;
  const std::size_t wanted = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(wanted < 4096 ? wanted : 4096);  // grid-stride beyond
  find_unsorted<<<blocks, threads, 0, stream>>>(a, n, first.as<unsigned long long>());
  SSUM_CUDA_CHECK_LAUNCH("find_unsorted");
  unsigned long long host = 0;
  SSUM_CUDA_CHECK(cudaMemcpyAsync(&host, first.as<void>(), sizeof host, cudaMemcpyDeviceToHost, stream));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host < n ? static_cast<std::size_t>(host) : n;
}

template <class T>
void merge(const T* a, std::size_t na, const T* b, std::size_t nb, T* out, int device) {
  ssum::merge(policy(device), a, na, b, nb, out);
}

#define SSUM_PYTHON_DEVICE_INSTANTIATE(T)                                                    \
  template void inclusive_scan<T>(const T*, T*, std::size_t, int);                          \
  template void exclusive_scan<T>(const T*, T*, std::size_t, int);                          \
  template void sort<T>(const T*, T*, std::size_t, int);                                    \
  template std::size_t first_unsorted<T>(const T*, std::size_t, int);                       \
  template void merge<T>(const T*, std::size_t, const T*, std::size_t, T*, int);
SSUM_FOR_EACH_CUDA_KEY(SSUM_PYTHON_DEVICE_INSTANTIATE)
#undef SSUM_PYTHON_DEVICE_INSTANTIATE

}  // namespace ssum::python::device

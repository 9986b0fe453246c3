#pragma once
// What the CUDA backend sees. Host-only: usable from any C++ translation unit.
#include <cstddef>
#include <string>
#include <vector>

namespace ssum {

struct cuda_device_info {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0, free_memory = 0;
};

/// True when this build contains the CUDA backend.
bool cuda_compiled() noexcept;

/// The usable devices; empty when none is present or no driver is loaded (or the build has
/// no CUDA backend). Throws ssum::cuda_error on any other CUDA failure.
std::vector<cuda_device_info> cuda_devices();

/// Runs a small kernel on `device` and checks its result on the host: proves that the
/// build's device code runs there. Throws ssum::cuda_error or ssum::backend_unavailable.
void cuda_self_test(int device = 0);

/// The CUDA solver keeps its lists' device memory from one solve to the next (allocating and
/// freeing tens of GiB costs tens of ms each time). This gives it back to the device now;
/// the next solve allocates again. Without CUDA: does nothing. Throws ssum::cuda_error.
void release_cuda_memory();

/// Bytes of device memory the CUDA solvers keep now, over all devices (0 after
/// release_cuda_memory(), and without CUDA). Unlike the device's free memory, other processes
/// do not change it.
std::size_t cuda_memory_kept();

}  // namespace ssum

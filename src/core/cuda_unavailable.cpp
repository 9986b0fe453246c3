// Built instead of src/cuda/ when CUDA is not found or switched off.
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"

namespace ssum {

bool cuda_compiled() noexcept { return false; }

std::vector<cuda_device_info> cuda_devices() { return {}; }

void cuda_self_test(int) { throw backend_unavailable("this build of ssum has no CUDA backend"); }

}  // namespace ssum

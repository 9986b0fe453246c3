#pragma once
// Every CUDA runtime call and every launch goes through these: a failure becomes an
// ssum::cuda_error carrying the cudaError_t code and where it happened.
#include <cuda_runtime.h>

#include <string>

#include "ssum/errors.hpp"

namespace ssum::cuda_detail {

inline void check(cudaError_t status, const char* what, const char* file, int line) {
  if (status != cudaSuccess) {
    throw cuda_error(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                         cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")",
                     static_cast<int>(status));
  }
}

}  // namespace ssum::cuda_detail

#define SSUM_CUDA_CHECK(call) ::ssum::cuda_detail::check((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: a bad configuration shows up in cudaGetLastError.
#define SSUM_CUDA_CHECK_LAUNCH(name) ::ssum::cuda_detail::check(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)

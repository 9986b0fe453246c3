#pragma once
// Temporary device memory ordered on a stream: cudaMallocAsync / cudaFreeAsync, so taking
// and returning scratch space never synchronises the host (the pool keeps it cheap).
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/check.cuh"

namespace ssum::cuda_detail {

class device_buffer {
 public:
  device_buffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    SSUM_CUDA_CHECK(cudaMallocAsync(&data_, bytes, stream));
  }
  ~device_buffer() {
    if (data_) cudaFreeAsync(data_, stream_);  // no throwing from a destructor; the stream reports later errors
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  template <class T>
  T* as(std::size_t byte_offset = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(data_) + byte_offset);
  }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

// Makes `device` current for the scope and restores the caller's device afterwards.
class device_scope {
 public:
  explicit device_scope(int device) {
    SSUM_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device != previous_) SSUM_CUDA_CHECK(cudaSetDevice(device));
  }
  ~device_scope() { cudaSetDevice(previous_); }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace ssum::cuda_detail

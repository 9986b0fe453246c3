// ssum's CUDA scan against cub::DeviceScan::InclusiveSum and a device-to-device copy of the
// same bytes, side by side in one run; and 1024 ints in one block, the classic textbook case
// ("seed1024"): the whole call, and the block scan alone in one block.
// Time is measured with CUDA events around a batch of calls (manual time); bytes_per_second
// counts bytes read plus bytes written.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <string>

#include "cuda/scan/block_scan.cuh"
#include "cuda_batch_timer.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/scan.hpp"

namespace {

using ssum::detail::check;

template <class T>
struct buffers {
  T* in = nullptr;
  T* out = nullptr;
  explicit buffers(std::size_t n) {
    check(cudaMalloc(&in, n * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(T)), "cudaMalloc");
    check(cudaMemset(in, 1, n * sizeof(T)), "cudaMemset");
  }
  ~buffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

// Batches of 100 calls for small inputs, 10 for large ones.
template <class F>
void time_batches(benchmark::State& state, std::size_t bytes, F f) {
  ssum::detail::time_batches(state, bytes, bytes < (1u << 24) ? 100 : 10, f);
}

template <class T>
void ssum_inclusive_sum(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << state.range(0);
  buffers<T> b(n);
  time_batches(state, 2 * n * sizeof(T), [&] { ssum::inclusive_scan(ssum::cuda{}, b.in, b.out, n, ssum::plus{}); });
}

template <class T>
void cub_inclusive_sum(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << state.range(0);
  buffers<T> b(n);
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, b.in, b.out, n), "cub sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  time_batches(state, 2 * n * sizeof(T), [&] { cub::DeviceScan::InclusiveSum(temp, temp_bytes, b.in, b.out, n); });
  cudaFree(temp);
}

template <class T>
void copy_same_bytes(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << state.range(0);
  buffers<T> b(n);
  time_batches(state, 2 * n * sizeof(T), [&] { cudaMemcpyAsync(b.out, b.in, n * sizeof(T), cudaMemcpyDeviceToDevice); });
}

// The classic case: 1024 ints. The whole ssum call (launches included) and one bare block.
void seed_case_ssum_call(benchmark::State& state) {
  buffers<int> b(1024);
  time_batches(state, 2 * 1024 * sizeof(int), [&] { ssum::inclusive_scan(ssum::cuda{}, b.in, b.out, 1024, ssum::plus{}); });
}

template <class BlockScan>
__global__ void one_block_scan(const int* in, int* out) {
  __shared__ typename BlockScan::storage s;
  int inc, exc, total;
  BlockScan::scan(in[threadIdx.x], ssum::plus{}, inc, exc, total, s);
  out[threadIdx.x] = inc;
}

template <class BlockScan>
void seed_case_one_block(benchmark::State& state) {
  buffers<int> b(1024);
  time_batches(state, 2 * 1024 * sizeof(int), [&] { one_block_scan<BlockScan><<<1, 1024>>>(b.in, b.out); });
}

void register_all() {
  using namespace ssum::cuda_detail;
  const auto add = [](const char* name, void (*fn)(benchmark::State&), int log_n) {
    auto* b = benchmark::RegisterBenchmark(name, fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.2);
    if (log_n) b->Arg(log_n);
  };
  // 2^22 and 2^26 bracket where the integer scan changes kernel (64 MiB, scan_policy.cuh).
  for (int log_n : {16, 20, 22, 24, 26, 28}) {
    add("scan/int32/ssum", ssum_inclusive_sum<std::int32_t>, log_n);
    add("scan/int32/cub", cub_inclusive_sum<std::int32_t>, log_n);
    add("scan/int32/copy", copy_same_bytes<std::int32_t>, log_n);
    add("scan/int64/ssum", ssum_inclusive_sum<std::int64_t>, log_n);
    add("scan/int64/cub", cub_inclusive_sum<std::int64_t>, log_n);
    add("scan/int64/copy", copy_same_bytes<std::int64_t>, log_n);
  }
  add("seed1024/ssum_call", seed_case_ssum_call, 0);
  add("seed1024/one_block_warp", seed_case_one_block<block_scan_warp<1024, int>>, 0);
}

}  // namespace

int main(int argc, char** argv) { return ssum::detail::run_benchmarks(argc, argv, "bench_scan_cuda", register_all); }

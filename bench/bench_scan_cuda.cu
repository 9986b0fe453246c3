// ssum's CUDA scan against cub::DeviceScan::InclusiveSum and a device-to-device copy of the
// same bytes, side by side in one run; and the seed document's case (1024 ints, one block).
// Time is measured with CUDA events around a batch of calls (manual time); bytes_per_second
// counts bytes read plus bytes written.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <string>

#include "cuda_batch_timer.cuh"
#include "cuda/scan/block_scan.cuh"
#include "cuda/scan/scan_kernels.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/scan.hpp"

namespace {

using ssum_bench::check;

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
  ssum_bench::time_batches(state, bytes, bytes < (1u << 24) ? 100 : 10, f);
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

// The single-pass scan with another launch shape or block scan than scan_tuning's, so that
// the choice in scan_tuning stays a measured one.
template <int Threads, int Items, int MinBlocks, template <int, class> class BlockScan, int Flags = 0, class T = std::int32_t>
void ssum_inclusive_sum_shape(benchmark::State& state) {
  using namespace ssum::cuda_detail;
  const std::size_t n = std::size_t{1} << state.range(0);
  buffers<T> b(n);
  time_batches(state, 2 * n * sizeof(T), [&] {
    launch_look_back_scan<Threads, Items, MinBlocks, BlockScan<Threads, T>, Flags>(nullptr, b.in, b.out, n, ssum::plus{}, scan_params<T>{});
  });
}

// The vectorized kernel (16-byte loads, no shared-memory transpose) in other shapes than
// vectorized_scan_tuning's, so that its choice stays a measured one.
template <int Threads, int Vectors, int MinBlocks, int Flags, class T = std::int32_t>
void ssum_vectorized_shape(benchmark::State& state) {
  using namespace ssum::cuda_detail;
  const std::size_t n = std::size_t{1} << state.range(0);
  buffers<T> b(n);
  time_batches(state, 2 * n * sizeof(T), [&] {
    launch_vectorized_scan<Threads, Vectors, MinBlocks, Flags>(nullptr, b.in, b.out, n, ssum::plus{}, scan_params<T>{});
  });
}

// The vectorized kernel in its default shape as every call was before tile state was kept
// (kept_state.cuh): fresh scratch from the pool and a memset for each call.
template <class T>
void ssum_scratch_per_call(benchmark::State& state) {
  using namespace ssum::cuda_detail;
  using tuning = vectorized_scan_tuning<T>;
  using state_t = tile_state<T>;
  const std::size_t n = std::size_t{1} << state.range(0);
  const std::size_t tiles = (n + tuning::tile - 1) / tuning::tile;
  buffers<T> b(n);
  time_batches(state, 2 * n * sizeof(T), [&] {
    device_buffer scratch(state_t::bytes(tiles), nullptr);
    check(cudaMemsetAsync(scratch.as<void>(), 0, state_t::bytes(tiles)), "cudaMemsetAsync");
    scan_params<T> p{};
    p.state = state_t::bind(scratch.as<void>(), tiles);
    launch_vectorized_scan_kernel<tuning::threads, tuning::vectors, tuning::min_blocks, tuning::flags>(
        nullptr, b.in, b.out, n, ssum::plus{}, p);
  });
}

// The warp-specialized kernel (persistent blocks, a ring of Stages bulk-copied tiles; a
// reducer warp, a look-back warp and Consumers scanning warps).
template <int Consumers, int Rows, int Stages, int MinBlocks, int Flags, class T = std::int32_t>
void ssum_specialized_shape(benchmark::State& state) {
  using namespace ssum::cuda_detail;
  const std::size_t n = std::size_t{1} << state.range(0);
  buffers<T> b(n);
  time_batches(state, 2 * n * sizeof(T), [&] {
    launch_specialized_scan<Consumers, Rows, Stages, MinBlocks, Flags>(nullptr, b.in, b.out, n, ssum::plus{},
                                                                      scan_params<T>{});
  });
}

// The seed's case: 1024 ints. The whole ssum call (launches included) and one bare block.
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
  for (int log_n : {16, 20, 24, 28}) {
    add("scan/int32/ssum", ssum_inclusive_sum<std::int32_t>, log_n);
    add("scan/int32/ssum_tree_block", ssum_inclusive_sum_shape<256, 16, 1, block_scan_tree, 15>, log_n);
    if (log_n >= 20) {  // the runners-up of the launch-shape search (docs/performance.md)
      add("scan/int32/shape_256x24_mb5", ssum_inclusive_sum_shape<256, 24, 5, block_scan_warp, 15>, log_n);
      add("scan/int32/shape_512x16_mb3", ssum_inclusive_sum_shape<512, 16, 3, block_scan_warp, 15>, log_n);
      // The scan_variant flags (tile_scan.cuh): 1 backoff, 2 full_tile, 4 streaming,
      // 8 warp_transpose; scan_tuning takes 15.
      add("scan/int32/variant_0", ssum_inclusive_sum_shape<256, 16, 8, block_scan_warp, 0>, log_n);
      add("scan/int32/variant_2", ssum_inclusive_sum_shape<256, 16, 8, block_scan_warp, 2>, log_n);
      add("scan/int32/variant_7", ssum_inclusive_sum_shape<256, 16, 8, block_scan_warp, 7>, log_n);
      add("scan/int32/variant_15_128x16_mb12", ssum_inclusive_sum_shape<128, 16, 12, block_scan_warp, 15>, log_n);
      add("scan/int64/variant_0", ssum_inclusive_sum_shape<256, 8, 1, block_scan_warp, 0, std::int64_t>, log_n);
      add("scan/int64/variant_15_mb4", ssum_inclusive_sum_shape<256, 8, 4, block_scan_warp, 15, std::int64_t>, log_n);
    }
    if (log_n >= 20) {
      // Vectorized kernel shapes: threads x vectors / blocks per SM, flags 5 = backoff +
      // streaming (the default), 0 = none. The transposing kernel's default for reference.
      add("scan/int32/transposing_256x16_mb8", ssum_inclusive_sum_shape<256, 16, 8, block_scan_warp, 15>, log_n);
      add("scan/int32/vec_256x4_mb5", ssum_vectorized_shape<256, 4, 5, 5>, log_n);
      add("scan/int32/vec_256x6_mb4", ssum_vectorized_shape<256, 6, 4, 5>, log_n);
      add("scan/int32/vec_128x8_mb6_flags0", ssum_vectorized_shape<128, 8, 6, 0>, log_n);
      add("scan/int32/vec_128x8_mb6_flags4", ssum_vectorized_shape<128, 8, 6, 4>, log_n);
      add("scan/int32/vec_128x12_mb4", ssum_vectorized_shape<128, 12, 4, 5>, log_n);
      add("scan/int32/vec_64x8_mb12", ssum_vectorized_shape<64, 8, 12, 5>, log_n);
      add("scan/int64/transposing_256x8_mb1", ssum_inclusive_sum_shape<256, 8, 1, block_scan_warp, 15, std::int64_t>, log_n);
      add("scan/int64/vec_128x8_mb4", ssum_vectorized_shape<128, 8, 4, 5, std::int64_t>, log_n);
      add("scan/int64/vec_256x4_mb4", ssum_vectorized_shape<256, 4, 4, 5, std::int64_t>, log_n);
    }
    if (log_n >= 20) {
      // Specialized: consumer warps x rows x stages / blocks per SM (tile = consumers x 512 x
      // rows bytes).
      add("scan/int32/spec_8x4x6_mb2", ssum_specialized_shape<8, 4, 6, 2, 5>, log_n);
      add("scan/int32/spec_8x4x4_mb3", ssum_specialized_shape<8, 4, 4, 3, 5>, log_n);
      add("scan/int32/spec_6x4x8_mb2", ssum_specialized_shape<6, 4, 8, 2, 5>, log_n);
      add("scan/int32/spec_12x4x4_mb2", ssum_specialized_shape<12, 4, 4, 2, 5>, log_n);
      add("scan/int32/spec_8x8x6_mb1", ssum_specialized_shape<8, 8, 6, 1, 5>, log_n);
      add("scan/int32/spec_8x4x6_mb2_flags1", ssum_specialized_shape<8, 4, 6, 2, 1>, log_n);
      add("scan/int64/spec_8x4x6_mb2", ssum_specialized_shape<8, 4, 6, 2, 5, std::int64_t>, log_n);
      add("scan/int64/spec_8x4x4_mb3", ssum_specialized_shape<8, 4, 4, 3, 5, std::int64_t>, log_n);
      add("scan/int64/spec_8x6x4_mb2", ssum_specialized_shape<8, 6, 4, 2, 5, std::int64_t>, log_n);
    }
    add("scan/int32/cub", cub_inclusive_sum<std::int32_t>, log_n);
    add("scan/int32/copy", copy_same_bytes<std::int32_t>, log_n);
    add("scan/int64/ssum", ssum_inclusive_sum<std::int64_t>, log_n);
    add("scan/int64/cub", cub_inclusive_sum<std::int64_t>, log_n);
    add("scan/int64/copy", copy_same_bytes<std::int64_t>, log_n);
  }
  for (int log_n : {16, 20, 22}) {  // what kept tile state saves (ssum rows: kept)
    add("scan/int32/scratch_per_call", ssum_scratch_per_call<std::int32_t>, log_n);
    add("scan/int64/scratch_per_call", ssum_scratch_per_call<std::int64_t>, log_n);
  }
  for (int log_n : {22, 26}) {  // where the default kernel changes (scan.cu)
    add("scan/int32/ssum", ssum_inclusive_sum<std::int32_t>, log_n);
    add("scan/int32/vec_128x8_mb6", ssum_vectorized_shape<128, 8, 6, 5>, log_n);
    add("scan/int32/spec_8x4x6_mb2", ssum_specialized_shape<8, 4, 6, 2, 5>, log_n);
    add("scan/int32/cub", cub_inclusive_sum<std::int32_t>, log_n);
    add("scan/int64/ssum", ssum_inclusive_sum<std::int64_t>, log_n);
    add("scan/int64/vec_128x8_mb4", ssum_vectorized_shape<128, 8, 4, 5, std::int64_t>, log_n);
    add("scan/int64/spec_8x4x4_mb3", ssum_specialized_shape<8, 4, 4, 3, 5, std::int64_t>, log_n);
    add("scan/int64/cub", cub_inclusive_sum<std::int64_t>, log_n);
  }
  add("seed1024/ssum_call", seed_case_ssum_call, 0);
  add("seed1024/one_block_warp", seed_case_one_block<block_scan_warp<1024, int>>, 0);
  add("seed1024/one_block_tree", seed_case_one_block<block_scan_tree<1024, int>>, 0);
}

}  // namespace

int main(int argc, char** argv) { return ssum_bench::run_benchmarks(argc, argv, "bench_scan_cuda", register_all); }

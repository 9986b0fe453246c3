// Whole-array sorts on one device: ssum::odd_even_merge_sort (Batcher's network, O(n log^2 n)
// comparators) against cub::DeviceMergeSort::SortKeys, thrust::sort (a radix sort for these
// key types) and cub::DeviceRadixSort::SortKeys, uint32 and uint64 random keys, 2^10 ... 2^26,
// so that the crossover is visible.
//
// Every timed call sorts the SAME unsorted input: it first restores the work buffer from a
// pristine copy with cudaMemcpyAsync, inside the timed batch. merge_sort/restore_only/<type>/<n>
// times that copy alone: subtract its call_us from the others' to get the sort by itself.
// Names: merge_sort/<sorter>/<u32|u64>/<n>; call_us is the time of one call (restore included),
// keys/s = n / (call_us - restore_only's call_us).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cstdint>
#include <cstdio>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <random>
#include <string>
#include <vector>

#include "cuda_batch_timer.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/sort.hpp"

namespace {

using ssum::detail::check;

template <class K>
struct keys_on_device {
  K* pristine = nullptr;
  K* work = nullptr;
  std::size_t n;
  explicit keys_on_device(std::size_t count) : n(count) {
    std::mt19937_64 rng(42);
    std::vector<K> host(n);
    for (auto& x : host) x = static_cast<K>(rng());
    check(cudaMalloc(&pristine, n * sizeof(K)), "cudaMalloc");
    check(cudaMalloc(&work, n * sizeof(K)), "cudaMalloc");
    check(cudaMemcpy(pristine, host.data(), n * sizeof(K), cudaMemcpyHostToDevice), "upload");
  }
  ~keys_on_device() {
    cudaFree(pristine);
    cudaFree(work);
  }
  keys_on_device(const keys_on_device&) = delete;
  keys_on_device& operator=(const keys_on_device&) = delete;
  void restore() const { cudaMemcpyAsync(work, pristine, n * sizeof(K), cudaMemcpyDeviceToDevice); }
};

// Fewer calls per batch for the big sizes: a batch of 2^26 keys already runs for milliseconds.
int batch_for(std::size_t n) { return n >= (std::size_t(1) << 22) ? 3 : 20; }

template <class K>
void time_sort(benchmark::State& state, std::size_t n, keys_on_device<K>& k, auto sort) {
  ssum::detail::time_batches(state, n * sizeof(K), batch_for(n), [&] {
    k.restore();
    sort();
  });
}

template <class K>
void bench_ssum(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  keys_on_device<K> k(n);
  time_sort(state, n, k, [&] { ssum::odd_even_merge_sort(ssum::cuda{}, k.work, n); });
}

template <class K>
void bench_cub_merge(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  keys_on_device<K> k(n);
  std::size_t temp_bytes = 0;
  check(cub::DeviceMergeSort::SortKeys(nullptr, temp_bytes, k.work, static_cast<std::int64_t>(n), ssum::less{}),
        "cub merge sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  time_sort(state, n, k, [&] {
    cub::DeviceMergeSort::SortKeys(temp, temp_bytes, k.work, static_cast<std::int64_t>(n), ssum::less{});
  });
  cudaFree(temp);
}

template <class K>
void bench_thrust(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  keys_on_device<K> k(n);
  // thrust allocates its temporaries per call (through the default allocator): part of its cost.
  time_sort(state, n, k, [&] { thrust::sort(thrust::device, k.work, k.work + n); });
}

template <class K>
void bench_cub_radix(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  keys_on_device<K> k(n);
  K* out = nullptr;
  check(cudaMalloc(&out, n * sizeof(K)), "cudaMalloc");
  std::size_t temp_bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, k.work, out, static_cast<std::int64_t>(n)), "cub radix sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  time_sort(state, n, k, [&] {
    cub::DeviceRadixSort::SortKeys(temp, temp_bytes, k.work, out, static_cast<std::int64_t>(n));
  });
  cudaFree(temp);
  cudaFree(out);
}

template <class K>
void bench_restore_only(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  keys_on_device<K> k(n);
  ssum::detail::time_batches(state, 0, batch_for(n), [&] { k.restore(); });
}

}  // namespace

int main(int argc, char** argv) {
  if (ssum::cuda_devices().empty()) {
    std::puts("bench_merge_sort_cuda: no CUDA device present; nothing measured");
    return 0;
  }
  const auto add = [](const std::string& name, void (*fn)(benchmark::State&)) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1);
    for (int e = 10; e <= 26; e += 2) b->Arg(std::int64_t(1) << e);
    return b;
  };
  add("merge_sort/ssum/u32", bench_ssum<std::uint32_t>);
  add("merge_sort/cub_merge/u32", bench_cub_merge<std::uint32_t>);
  add("merge_sort/thrust/u32", bench_thrust<std::uint32_t>);
  add("merge_sort/cub_radix/u32", bench_cub_radix<std::uint32_t>);
  add("merge_sort/restore_only/u32", bench_restore_only<std::uint32_t>);
  add("merge_sort/ssum/u64", bench_ssum<std::uint64_t>);
  add("merge_sort/cub_merge/u64", bench_cub_merge<std::uint64_t>);
  add("merge_sort/thrust/u64", bench_thrust<std::uint64_t>);
  add("merge_sort/cub_radix/u64", bench_cub_radix<std::uint64_t>);
  add("merge_sort/restore_only/u64", bench_restore_only<std::uint64_t>);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

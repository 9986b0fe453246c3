// ssum's CUDA odd-even transposition sorts: 1024 reversed ints in one block, the classic
// textbook case ("seed1024": 18 ms with a host round-trip per round), and batched sorts
// against cub::DeviceSegmentedSort, in one run.
// Every timed call first restores the unsorted input with a device-to-device copy (a sort of
// sorted keys would exit early); "restore_only" times that copy alone.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_segmented_sort.cuh>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_batch_timer.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/sort.hpp"

namespace {

using ssum::detail::check;

template <class F>
void time_calls(benchmark::State& state, F f) {
  ssum::detail::time_batches(state, 0, 20, f);
}

struct keys_on_device {
  std::uint32_t* pristine = nullptr;
  std::uint32_t* work = nullptr;
  std::size_t n;
  explicit keys_on_device(const std::vector<std::uint32_t>& host) : n(host.size()) {
    check(cudaMalloc(&pristine, n * 4), "cudaMalloc");
    check(cudaMalloc(&work, n * 4), "cudaMalloc");
    check(cudaMemcpy(pristine, host.data(), n * 4, cudaMemcpyHostToDevice), "upload");
  }
  ~keys_on_device() {
    cudaFree(pristine);
    cudaFree(work);
  }
  void restore() const { cudaMemcpyAsync(work, pristine, n * 4, cudaMemcpyDeviceToDevice); }
};

std::vector<std::uint32_t> reversed(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint32_t>(n - i);
  return v;
}

std::vector<std::uint32_t> random_keys(std::size_t n) {
  std::mt19937_64 rng(42);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = static_cast<std::uint32_t>(rng());
  return v;
}

void seed_case_ssum(benchmark::State& state) {
  keys_on_device k(reversed(1024));
  time_calls(state, [&] {
    k.restore();
    ssum::odd_even_sort(ssum::cuda{}, k.work, k.n);
  });
}

// The same call on keys already in order: two quiet rounds, then the exit. The difference
// to the reversed case is the cost of the ~31 further merge-split rounds.
void seed_case_sorted_ssum(benchmark::State& state) {
  std::vector<std::uint32_t> sorted = reversed(1024);
  std::reverse(sorted.begin(), sorted.end());
  keys_on_device k(sorted);
  time_calls(state, [&] {
    k.restore();
    ssum::odd_even_sort(ssum::cuda{}, k.work, k.n);
  });
}

void seed_case_restore_only(benchmark::State& state) {
  keys_on_device k(reversed(1024));
  time_calls(state, [&] { k.restore(); });
}

std::vector<std::size_t> offsets_for(std::size_t n, std::size_t segment) {
  std::vector<std::size_t> off;
  for (std::size_t i = 0; i <= n; i += segment) off.push_back(i);
  if (off.back() != n) off.push_back(n);
  return off;
}

void segmented_ssum(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << 24, seg = static_cast<std::size_t>(state.range(0));
  keys_on_device k(random_keys(n));
  const auto off = offsets_for(n, seg);
  std::size_t* d_off = nullptr;
  check(cudaMalloc(&d_off, off.size() * sizeof(std::size_t)), "cudaMalloc");
  check(cudaMemcpy(d_off, off.data(), off.size() * sizeof(std::size_t), cudaMemcpyHostToDevice), "upload");
  time_calls(state, [&] {
    k.restore();
    ssum::segmented_odd_even_sort(ssum::cuda{}, k.work, n, d_off, off.size() - 1);
  });
  cudaFree(d_off);
}

void segmented_cub(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << 24, seg = static_cast<std::size_t>(state.range(0));
  keys_on_device k(random_keys(n));
  const auto off_host = offsets_for(n, seg);
  std::vector<long long> off64(off_host.begin(), off_host.end());
  long long* d_off = nullptr;
  check(cudaMalloc(&d_off, off64.size() * 8), "cudaMalloc");
  check(cudaMemcpy(d_off, off64.data(), off64.size() * 8, cudaMemcpyHostToDevice), "upload");
  std::uint32_t* out = nullptr;
  check(cudaMalloc(&out, n * 4), "cudaMalloc");
  const long long segments = static_cast<long long>(off64.size() - 1);
  std::size_t temp_bytes = 0;
  check(cub::DeviceSegmentedSort::StableSortKeys(nullptr, temp_bytes, k.work, out, static_cast<long long>(n), segments,
                                                 d_off, d_off + 1),
        "cub sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  time_calls(state, [&] {
    k.restore();
    cub::DeviceSegmentedSort::StableSortKeys(temp, temp_bytes, k.work, out, static_cast<long long>(n), segments, d_off,
                                             d_off + 1);
  });
  cudaFree(temp);
  cudaFree(out);
  cudaFree(d_off);
}

void segmented_restore_only(benchmark::State& state) {
  keys_on_device k(random_keys(std::size_t{1} << 24));
  time_calls(state, [&] { k.restore(); });
}

}  // namespace

int main(int argc, char** argv) {
  if (ssum::cuda_devices().empty()) {
    std::puts("bench_sort_cuda: no CUDA device present; nothing measured");
    return 0;
  }
  const auto add = [](const char* name, void (*fn)(benchmark::State&)) {
    return benchmark::RegisterBenchmark(name, fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.2);
  };
  add("seed1024_reversed/ssum_odd_even_sort", seed_case_ssum);
  add("seed1024_reversed/restore_only", seed_case_restore_only);
  add("seed1024_sorted/ssum_odd_even_sort", seed_case_sorted_ssum);
  for (int seg : {32, 256, 1024}) {
    add("segmented_2^24/ssum", segmented_ssum)->Arg(seg);
    add("segmented_2^24/cub_stable", segmented_cub)->Arg(seg);
  }
  add("segmented_2^24/restore_only", segmented_restore_only);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

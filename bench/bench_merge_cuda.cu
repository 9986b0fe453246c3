// ssum's CUDA merge against thrust::merge, cub::DeviceMerge::MergeKeys and a device-to-device
// copy of the same output bytes, side by side in one run; the fused merge_generated
// (b + constant computed while loading) against the plain merge; two merges batched against
// one by one; and the equal-pairs find and count (one target, four at once or one by one).
// Inputs: two equal halves of random sorted keys (31 random bits for uint32, 63 for uint64,
// so that adding a small constant never wraps), total sizes 2^20, 2^24, 2^28.
// Time: CUDA events around batches of calls (manual time). bytes_per_second counts
// (na + nb) x sizeof(T) x 2 per call (every key read once and written once) for every peer,
// the copy included, so the rates compare directly; call_us is the time of one call.
// Names: merge/<peer>/<type>/<total elements>.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/merge.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_merge.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuda_batch_timer.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/merge.hpp"
#include "ssum/pair_sum.hpp"

namespace {

using ssum::detail::check;

template <class T>
const char* type_name() {
  return sizeof(T) == 4 ? "u32" : "u64";
}

template <class T>
__global__ void random_keys(T* out, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (k + 1);  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    out[k] = static_cast<T>(z >> (sizeof(T) == 4 ? 33 : 1));  // top bit clear: room for + constant
  }
}

// Device arrays a, b (each n / 2 random sorted keys) and out (n), kept across the benchmarks
// of one type and size (they run in that order), rebuilt when the size changes.
template <class T>
struct inputs {
  std::size_t n = 0, half = 0;
  T* a = nullptr;
  T* b = nullptr;
  T* out = nullptr;
  T* out2 = nullptr;  // for checking one peer against another

  explicit inputs(std::size_t total) : n(total), half(total / 2) {
    check(cudaMalloc(&a, half * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&b, half * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&out, n * sizeof(T)), "cudaMalloc");
    check(cudaMalloc(&out2, n * sizeof(T)), "cudaMalloc");
    sorted_keys(a, 1);
    sorted_keys(b, 2);
    check(cudaDeviceSynchronize(), "input generation");
  }
  ~inputs() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(out);
    cudaFree(out2);
  }
  inputs(const inputs&) = delete;
  inputs& operator=(const inputs&) = delete;

  void sorted_keys(T* dst, std::uint64_t seed) {
    random_keys<<<1024, 256>>>(out, half, seed * 0x1234567ull);
    check(cudaGetLastError(), "random_keys");
    std::size_t temp_bytes = 0;
    check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, out, dst, half), "cub sort sizing");
    void* temp = nullptr;
    check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    check(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, out, dst, half), "cub sort");
    check(cudaDeviceSynchronize(), "cub sort");
    cudaFree(temp);
  }

  static inputs& get(std::size_t total) {
    static std::unique_ptr<inputs> held;
    if (!held || held->n != total) {
      held.reset();  // free first: at 2^28 x 8 bytes two sets would not need to coexist
      held = std::make_unique<inputs>(total);
    }
    return *held;
  }

  // out equals what cub::DeviceMerge writes (one check per benchmark, outside the timing).
  bool matches_cub() {
    std::size_t temp_bytes = 0;
    check(cub::DeviceMerge::MergeKeys(nullptr, temp_bytes, a, half, b, half, out2), "cub sizing");
    void* temp = nullptr;
    check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    check(cub::DeviceMerge::MergeKeys(temp, temp_bytes, a, half, b, half, out2), "cub merge");
    check(cudaDeviceSynchronize(), "cub merge");
    cudaFree(temp);
    return thrust::equal(thrust::device, out, out + n, out2);
  }
};

// Batches of 100 calls for small inputs, 10 for large ones.
template <class F>
void time_batches(benchmark::State& state, std::size_t bytes, F f) {
  ssum::detail::time_batches(state, bytes, bytes < (std::size_t{1} << 26) ? 100 : 10, f);
}

template <class T>
std::size_t merge_bytes(std::size_t n) {
  return 2 * n * sizeof(T);
}

template <class T>
void ssum_merge(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  time_batches(state, merge_bytes<T>(n), [&] { ssum::merge(ssum::cuda{}, in.a, in.half, in.b, in.half, in.out); });
  if (!in.matches_cub()) state.SkipWithError("ssum merge differs from cub::DeviceMerge");
}

template <class T>
void ssum_merge_plus_constant(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  const ssum::plus_constant<T> b_at{in.b, static_cast<T>(12345)};
  time_batches(state, merge_bytes<T>(n),
               [&] { ssum::merge_generated(ssum::cuda{}, in.a, in.half, b_at, in.half, in.out); });
}

// Two merges of the solver's kind side by side, each over a quarter of the data (a with b + c
// into out, b with a + c into out2): one merge_generated_batch against two merge_generated
// calls. Bytes: the same as one merge of all n.
template <class T>
std::array<ssum::generated_merge<T, ssum::plus_constant<T>>, 2> two_merges(const inputs<T>& in) {
  const std::size_t q = in.half / 2;
  return {{{in.a, q, ssum::plus_constant<T>{in.b, static_cast<T>(12345)}, q, in.out},
           {in.b, q, ssum::plus_constant<T>{in.a, static_cast<T>(777)}, q, in.out2}}};
}

template <class T>
void ssum_two_merges(benchmark::State& state, std::size_t n, bool batched) {
  inputs<T>& in = inputs<T>::get(n);
  const auto merges = two_merges(in);
  time_batches(state, merge_bytes<T>(n), [&] {
    if (batched) {
      ssum::merge_generated_batch(ssum::cuda{}, merges.data(), 2);
    } else {
      for (const auto& m : merges) ssum::merge_generated(ssum::cuda{}, m.a, m.na, m.b_at, m.nb, m.out);
    }
  });
}
template <class T>
void ssum_two_merges_batched(benchmark::State& state, std::size_t n) {
  ssum_two_merges<T>(state, n, true);
}
template <class T>
void ssum_two_merges_one_by_one(benchmark::State& state, std::size_t n) {
  ssum_two_merges<T>(state, n, false);
}

// The same with c = 0: tells the generator's cost from the data's.
template <class T>
void ssum_merge_plus_zero(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  const ssum::plus_constant<T> b_at{in.b, static_cast<T>(0)};
  time_batches(state, merge_bytes<T>(n),
               [&] { ssum::merge_generated(ssum::cuda{}, in.a, in.half, b_at, in.half, in.out); });
}

template <class T>
void thrust_merge(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  time_batches(state, merge_bytes<T>(n), [&] {
    thrust::merge(thrust::cuda::par_nosync, in.a, in.a + in.half, in.b, in.b + in.half, in.out);
  });
}

template <class T>
void cub_merge(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  std::size_t temp_bytes = 0;
  check(cub::DeviceMerge::MergeKeys(nullptr, temp_bytes, in.a, in.half, in.b, in.half, in.out), "cub sizing");
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
  time_batches(state, merge_bytes<T>(n), [&] {
    cub::DeviceMerge::MergeKeys(temp, temp_bytes, in.a, in.half, in.b, in.half, in.out);
  });
  cudaFree(temp);
}

template <class T>
void copy_same_bytes(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  time_batches(state, merge_bytes<T>(n),
               [&] { cudaMemcpyAsync(in.out, in.out2, n * sizeof(T), cudaMemcpyDeviceToDevice); });
}

// The equal-pairs count over the same halves (it waits for its result: one call per batch
// entry includes the synchronisation). Bytes: each key read once.
template <class T>
void ssum_count_pair_sums(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  T t = 0;
  check(cudaMemcpy(&t, in.b + in.half / 3, sizeof(T), cudaMemcpyDeviceToHost), "copy");
  t = static_cast<T>(t + 1000);
  time_batches(state, n * sizeof(T), [&] {
    benchmark::DoNotOptimize(ssum::count_pair_sums(ssum::cuda{}, in.a, in.half, in.b, in.half, t));
  });
}

// find_pair_sum over the same halves with t = 2^63 - 1: every b takes part and a match is
// unlikely (about 2^-9 at 2^28 keys), so the whole walk runs, as in the solver's no-instances;
// "found" says when one was hit anyway. Bytes: each key read once.
template <class T>
void ssum_find_pair_sum(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  const T t = static_cast<T>(std::numeric_limits<T>::max() >> 1);
  unsigned found = 0;
  time_batches(state, n * sizeof(T),
               [&] { found = ssum::find_pair_sum(ssum::cuda{}, in.a, in.half, in.b, in.half, t).found; });
  state.counters["found"] = found;
}

// The solver's four shifted searches over the same halves: targets t - d for d in {0, d1, d2,
// d1 + d2}, shifts of a few percent of the key range as the left-out items of a list are (a
// match stays unlikely, so every walk runs whole). One by one: four find_pair_sum calls; at
// once: one find_any_pair_sum (one launch of each kernel). Bytes: each key read once per target.
template <class T>
std::vector<T> shifted_targets() {
  const T t = static_cast<T>(std::numeric_limits<T>::max() >> 1);
  const T d1 = static_cast<T>(std::numeric_limits<T>::max() / 40), d2 = static_cast<T>(std::numeric_limits<T>::max() / 33);
  return {t, static_cast<T>(t - d1), static_cast<T>(t - d2), static_cast<T>(t - d1 - d2)};
}

template <class T>
void ssum_find_four_one_by_one(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  const std::vector<T> ts = shifted_targets<T>();
  unsigned found = 0;
  time_batches(state, 4 * n * sizeof(T), [&] {
    found = 0;
    for (T t : ts) found += ssum::find_pair_sum(ssum::cuda{}, in.a, in.half, in.b, in.half, t).found;
  });
  state.counters["found"] = found;
}

template <class T>
void ssum_find_four_at_once(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  const std::vector<T> ts = shifted_targets<T>();
  unsigned found = 0;
  time_batches(state, 4 * n * sizeof(T), [&] {
    found = ssum::find_any_pair_sum(ssum::cuda{}, in.a, in.half, in.b, in.half, ts.data(), ts.size()).found;
  });
  state.counters["found"] = found;
}

template <class T>
void register_type(std::size_t n) {
  const auto add = [n](const std::string& what, void (*fn)(benchmark::State&, std::size_t)) {
    const std::string name = what + "/" + type_name<T>() + "/" + std::to_string(n);
    benchmark::RegisterBenchmark(name.c_str(), [fn, n](benchmark::State& s) { fn(s, n); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.2);
  };
  add("merge/ssum", ssum_merge<T>);
  add("merge/thrust", thrust_merge<T>);
  add("merge/cub", cub_merge<T>);
  add("merge/copy", copy_same_bytes<T>);
  add("merge_generated/ssum_plus_constant", ssum_merge_plus_constant<T>);
  add("merge_generated/ssum_plus_zero", ssum_merge_plus_zero<T>);
  add("merge_generated/ssum_two_batched", ssum_two_merges_batched<T>);
  add("merge_generated/ssum_two_one_by_one", ssum_two_merges_one_by_one<T>);
  add("pair_sums/ssum_count", ssum_count_pair_sums<T>);
  if constexpr (sizeof(T) == 8) {  // 4-byte keys at these sizes always hold a match
    add("pair_sums/ssum_find", ssum_find_pair_sum<T>);
    add("pair_sums/ssum_find_four_one_by_one", ssum_find_four_one_by_one<T>);
    add("pair_sums/ssum_find_four_at_once", ssum_find_four_at_once<T>);
  }
}

void register_all() {
  for (int log_n : {20, 24, 28}) {
    register_type<std::uint32_t>(std::size_t{1} << log_n);
    register_type<std::uint64_t>(std::size_t{1} << log_n);
  }
}

}  // namespace

int main(int argc, char** argv) { return ssum::detail::run_benchmarks(argc, argv, "bench_merge_cuda", register_all); }

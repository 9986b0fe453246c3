// ssum's CUDA merge against thrust::merge, cub::DeviceMerge::MergeKeys and a device-to-device
// copy of the same output bytes, side by side in one run; the fused merge_generated
// (b + constant computed while loading) against the plain merge; other tile shapes of ssum's
// kernels (merge_tiles, and merge_tiles_bulk / pair_sum_tiles_bulk with bulk-copied tiles;
// `ssum_classic`: merge_tiles in its default shape, beside the default path); and the
// equal-pairs find and count.
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

#include "cuda/merge/merge_bulk_kernels.cuh"
#include "cuda/merge/merge_kernels.cuh"
#include "cuda_batch_timer.cuh"
#include "ssum/cuda_device.hpp"
#include "ssum/merge.hpp"

namespace {

using ssum_bench::check;

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
  ssum_bench::time_batches(state, bytes, bytes < (std::size_t{1} << 26) ? 100 : 10, f);
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
// The same two merges batched through the classic tile kernel (merge_tiles_batch).
template <class T>
void ssum_two_merges_batched_classic(benchmark::State& state, std::size_t n) {
  using tuning = ssum::cuda_detail::merge_keys_tuning<T>;
  inputs<T>& in = inputs<T>::get(n);
  const auto merges = two_merges(in);
  time_batches(state, merge_bytes<T>(n), [&] {
    ssum::cuda_detail::launch_merge_batch<tuning::threads, tuning::items>(nullptr, merges.data(), 2, ssum::less{});
  });
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

template <class T, int Threads, int Items, int MinBlocks = 1, bool VectorIo = ssum::cuda_detail::merge_tuning<T>::vector_io>
void ssum_merge_shape(benchmark::State& state, std::size_t n) {
  using namespace ssum::cuda_detail;
  inputs<T>& in = inputs<T>::get(n);
  const merge_no_values* none = nullptr;
  time_batches(state, merge_bytes<T>(n), [&] {
    launch_merge<Threads, Items, MinBlocks, VectorIo>(nullptr, in.a, none, in.half, load_at<T>{in.b}, none, in.half, in.out,
                                 static_cast<merge_no_values*>(nullptr), ssum::less{});
  });
  if (!in.matches_cub()) state.SkipWithError("ssum merge (this shape) differs from cub::DeviceMerge");
}

// merge_tiles_bulk in other shapes (tile = Threads x Items, Stages per block, MinBlocks per SM).
template <class T, int Threads, int Items, int Stages, int MinBlocks>
void ssum_merge_bulk_shape(benchmark::State& state, std::size_t n) {
  using namespace ssum::cuda_detail;
  inputs<T>& in = inputs<T>::get(n);
  time_batches(state, merge_bytes<T>(n), [&] {
    launch_merge_bulk<Threads, Items, Stages, MinBlocks>(nullptr, in.a, in.half, load_at<T>{in.b}, in.half, in.out,
                                                         ssum::less{});
  });
  if (!in.matches_cub()) state.SkipWithError("ssum bulk merge (this shape) differs from cub::DeviceMerge");
}

// The classic one-tile-per-block kernel (merge_tiles, registers to shared memory) in the
// default shape, for the comparison with merge_tiles_bulk in the same run.
template <class T>
void ssum_merge_classic(benchmark::State& state, std::size_t n) {
  using tuning = ssum::cuda_detail::merge_keys_tuning<T>;
  ssum_merge_shape<T, tuning::threads, tuning::items>(state, n);
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
// "found" says when one was hit anyway. Any tile shape; bytes: each key read once.
template <class T, int Threads = ssum::cuda_detail::pair_sum_tuning<T>::threads,
          int Items = ssum::cuda_detail::pair_sum_tuning<T>::items,
          int MinBlocks = ssum::cuda_detail::pair_sum_tuning<T>::min_blocks>
void ssum_find_pair_sum_shape(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  const T t = static_cast<T>(std::numeric_limits<T>::max() >> 1);
  unsigned found = 0;
  time_batches(state, n * sizeof(T), [&] {
    found = ssum::cuda_detail::launch_pair_sums<Threads, Items, MinBlocks, true>(nullptr, in.a, in.half, in.b, in.half, t).found;
  });
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

// pair_sum_tiles_bulk in other shapes; the classic kernel is ssum_find_pair_sum_shape.
template <class T, int Threads, int Items, int Stages, int MinBlocks>
void ssum_find_bulk_shape(benchmark::State& state, std::size_t n) {
  inputs<T>& in = inputs<T>::get(n);
  const T t = static_cast<T>(std::numeric_limits<T>::max() >> 1);
  unsigned found = 0;
  time_batches(state, n * sizeof(T), [&] {
    found = ssum::cuda_detail::launch_pair_sums_bulk<Threads, Items, Stages, MinBlocks, true>(nullptr, in.a, in.half,
                                                                                             in.b, in.half, &t, 1)
                .found;
  });
  state.counters["found"] = found;
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
  add("merge/ssum_classic", ssum_merge_classic<T>);
  add("merge/thrust", thrust_merge<T>);
  add("merge/cub", cub_merge<T>);
  add("merge/copy", copy_same_bytes<T>);
  add("merge_generated/ssum_plus_constant", ssum_merge_plus_constant<T>);
  // Other launch shapes than merge_keys_tuning's (256 x 19 for 4-byte keys, 256 x 11 for
  // 8-byte; merge_by_key and the pair sums use merge_tuning's 256 x 15 / 256 x 11).
  add("merge/ssum_256x11", ssum_merge_shape<T, 256, 11>);
  add("merge/ssum_256x15", ssum_merge_shape<T, 256, 15>);
  add("merge/ssum_256x19", ssum_merge_shape<T, 256, 19>);
  add("merge/ssum_256x15_mb8", ssum_merge_shape<T, 256, 15, 8>);
  add("merge/ssum_256x11_mb8", ssum_merge_shape<T, 256, 11, 8>);
  add("merge/ssum_128x15_mb16", ssum_merge_shape<T, 128, 15, 16>);
  // 16-byte loads and stores (load_tile_vectorized) on and off, whatever the type's default.
  add("merge/ssum_256x19_scalar_io", ssum_merge_shape<T, 256, 19, 1, false>);
  add("merge/ssum_256x19_vector_io", ssum_merge_shape<T, 256, 19, 1, true>);
  add("merge/ssum_256x23_vector_io", ssum_merge_shape<T, 256, 23, 1, true>);
  add("merge/ssum_256x11_scalar_io", ssum_merge_shape<T, 256, 11, 1, false>);
  add("merge/ssum_256x11_vector_io", ssum_merge_shape<T, 256, 11, 1, true>);
  add("merge/ssum_128x19_vector_io_mb8", ssum_merge_shape<T, 128, 19, 8, true>);
  add("merge_generated/ssum_plus_zero", ssum_merge_plus_zero<T>);
  add("merge_generated/ssum_two_batched", ssum_two_merges_batched<T>);
  add("merge_generated/ssum_two_batched_classic", ssum_two_merges_batched_classic<T>);
  add("merge_generated/ssum_two_one_by_one", ssum_two_merges_one_by_one<T>);
  // Twice the threads per tile (half the partition's splits), as much shared memory as fits.
  if constexpr (sizeof(T) == 8) add("merge/ssum_512x11", ssum_merge_shape<T, 512, 11>);
  if constexpr (sizeof(T) == 4) {
    add("merge/ssum_512x19", ssum_merge_shape<T, 512, 19>);
    // CUB's sm_90 shape for 4-byte keys (512 x 15): 828 against 697 us at 2^28 (eighth
    // session; 512 x 11 757, 256 x 23 762, 512 x 15 at 2 blocks per SM 871).
    add("merge/ssum_512x15", ssum_merge_shape<T, 512, 15>);
  }
  // merge_tiles_bulk shapes (threads x items, stages, blocks per SM).
  if constexpr (sizeof(T) == 4) {
    add("merge/ssum_bulk_256x19_s3_mb3", ssum_merge_bulk_shape<T, 256, 19, 3, 3>);
    add("merge/ssum_bulk_512x19_s2_mb2", ssum_merge_bulk_shape<T, 512, 19, 2, 2>);
    add("merge/ssum_bulk_384x19_s2_mb2", ssum_merge_bulk_shape<T, 384, 19, 2, 2>);
    add("merge/ssum_bulk_512x19_s3_mb1", ssum_merge_bulk_shape<T, 512, 19, 3, 1>);
    add("merge/ssum_bulk_512x23_s2_mb1", ssum_merge_bulk_shape<T, 512, 23, 2, 1>);
    add("merge/ssum_bulk_512x15_s3_mb2", ssum_merge_bulk_shape<T, 512, 15, 3, 2>);
  } else {
    add("merge/ssum_bulk_256x11_s3_mb3", ssum_merge_bulk_shape<T, 256, 11, 3, 3>);
    add("merge/ssum_bulk_512x11_s2_mb2", ssum_merge_bulk_shape<T, 512, 11, 2, 2>);
  }
  add("pair_sums/ssum_count", ssum_count_pair_sums<T>);
  if constexpr (sizeof(T) == 8) {  // 4-byte keys at these sizes always hold a match
    add("pair_sums/ssum_find", ssum_find_pair_sum_shape<T>);  // the classic walk, pair_sum_tuning
    {
      using bulk = ssum::cuda_detail::pair_sum_bulk_tuning<T>;  // what find_pair_sum runs
      add("pair_sums/ssum_find_bulk",
          ssum_find_bulk_shape<T, bulk::threads, bulk::items, bulk::stages, bulk::min_blocks>);
    }
    add("pair_sums/ssum_find_256x11", ssum_find_pair_sum_shape<T, 256, 11>);
    add("pair_sums/ssum_find_256x16", ssum_find_pair_sum_shape<T, 256, 16>);
    add("pair_sums/ssum_find_256x23_mb1", ssum_find_pair_sum_shape<T, 256, 23, 1>);
    add("pair_sums/ssum_find_128x24", ssum_find_pair_sum_shape<T, 128, 24>);
    add("pair_sums/ssum_find_128x32", ssum_find_pair_sum_shape<T, 128, 32>);
    add("pair_sums/ssum_find_512x11", ssum_find_pair_sum_shape<T, 512, 11>);
    add("pair_sums/ssum_find_512x23_mb2", ssum_find_pair_sum_shape<T, 512, 23, 2>);
    add("pair_sums/ssum_find_bulk_256x23_s3_mb1", ssum_find_bulk_shape<T, 256, 23, 3, 1>);
    add("pair_sums/ssum_find_bulk_128x23_s2_mb4", ssum_find_bulk_shape<T, 128, 23, 2, 4>);
    add("pair_sums/ssum_find_bulk_256x15_s2_mb3", ssum_find_bulk_shape<T, 256, 15, 2, 3>);
    add("pair_sums/ssum_find_bulk_256x15_s3_mb2", ssum_find_bulk_shape<T, 256, 15, 3, 2>);
    add("pair_sums/ssum_find_bulk_128x31_s2_mb3", ssum_find_bulk_shape<T, 128, 31, 2, 3>);
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

int main(int argc, char** argv) { return ssum_bench::run_benchmarks(argc, argv, "bench_merge_cuda", register_all); }

// The solvers side by side in one run, on the benchmark instances of docs/instances.md (weights below 2^62/n):
//   ssum_cuda     ssum::solve(cuda{}, ...): lists merged and searched on the device;
//   ssum_cuda_four_list   the same call with algorithm::four_list: batches of residue classes
//                 expanded, radix-sorted and matched on the device (O(2^(n/4)) lists);
//   thrust_peer   what a user writes with Thrust in an afternoon: each list by thrust::merge
//                 of L with L + w (a transform iterator), then thrust::binary_search of
//                 t - a in B for every a in A;
//   ssum_cpu      ssum's host solver on every host core;
//   sequential    the sequential Horowitz-Sahni reference on one core (up to n = 48).
// Random instances are no-instances up to n = 56 (the whole search runs); at 60 and 64 they
// have solutions and the searches stop early. "none" has no solution that any reduction can
// see: weights that are multiples of 3 but one, and a target 2 mod 3 (the tests'
// long_no_instance, weights of 62 - bit_width(n) bits so that the total stays below 2^62),
// so that two-list and four-list are compared over the whole search at n = 64, and the
// four-list's n = 72 goal is measured (solve/none/ssum_cuda_four_list_large: one iteration,
// filter it in or out by name). "none_wide" is the same no-instance with weights of 66 bits
// (the tests' wide_no_instance): its total passes 2^64, so the two-list's whole search at
// n = 64 runs in 128-bit sums, beside the 64-bit one (solve/none/ssum_cuda/64).
// Whole-call wall time per iteration; ssum's per-stage seconds as counters.
// Plot: scripts/plot-solve BENCH_JSON docs/solve-time.png
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/logical.h>
#include <thrust/merge.h>

#include <bit>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "reference/sequential_two_list.hpp"
#include "small_instances.hpp"
#include "ssum/ssum.hpp"

namespace {

ssum::problem make_instance(const std::string& cls, std::size_t n) {
  if (cls == "none_wide") return ssum_test::wide_no_instance(n, 66, 2026);
  if (cls != "none") return ssum::generate(cls, n, std::nullopt, 2026);
  return ssum_test::long_no_instance(n, 62 - int(std::bit_width(n)), 2026);
}

const ssum::problem& instance(const std::string& cls, std::size_t n) {
  static std::map<std::pair<std::string, std::size_t>, ssum::problem> cache;
  const auto key = std::make_pair(cls, n);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make_instance(cls, n)).first;
  return it->second;
}

struct plus_w {
  std::uint64_t w;
  __host__ __device__ std::uint64_t operator()(std::uint64_t x) const { return x + w; }
};
struct is_true {
  __host__ __device__ bool operator()(bool x) const { return x; }
};
struct partner {  // the b that a needs; a sentinel that no sum reaches when a > t
  std::uint64_t t;
  __host__ __device__ std::uint64_t operator()(std::uint64_t a) const { return a <= t ? t - a : ~std::uint64_t{0}; }
};

thrust::device_vector<std::uint64_t> thrust_sums(const std::vector<ssum::int128>& w, std::size_t lo, std::size_t hi) {
  thrust::device_vector<std::uint64_t> cur(1, 0), nxt;
  for (std::size_t i = lo; i < hi; ++i) {
    nxt.resize(2 * cur.size());
    const auto shifted = thrust::make_transform_iterator(cur.begin(), plus_w{static_cast<std::uint64_t>(w[i])});
    thrust::merge(cur.begin(), cur.end(), shifted, shifted + cur.size(), nxt.begin());
    cur.swap(nxt);
  }
  return cur;
}

// Positive weights only (the benchmark classes): no flip needed.
bool thrust_two_list(const ssum::problem& p) {
  const std::uint64_t t = static_cast<std::uint64_t>(*p.target);
  const std::size_t half = p.weights.size() / 2;
  const auto a = thrust_sums(p.weights, 0, half);
  const auto b = thrust_sums(p.weights, half, p.weights.size());
  thrust::device_vector<bool> hit(a.size());
  const auto need = thrust::make_transform_iterator(a.begin(), partner{t});
  thrust::binary_search(b.begin(), b.end(), need, need + a.size(), hit.begin());
  return thrust::any_of(hit.begin(), hit.end(), is_true{});
}

void ssum_on_device(benchmark::State& state, const char* cls, ssum::algorithm algo) {
  const auto& p = instance(cls, static_cast<std::size_t>(state.range(0)));
  ssum::solve_options options;
  options.algo = algo;
  ssum::solution s;
  // One untimed solve first (up to n = 66), so that the timed one finds the solver's memory
  // allocated, as every solve but a process's first does.
  if (state.range(0) <= 66) s = ssum::solve(ssum::cuda{}, p, options);
  for (auto _ : state) s = ssum::solve(ssum::cuda{}, p, options);
  state.counters["feasible"] = s.feasible;
  state.counters["generate_ms"] = s.seconds.generate * 1e3;
  state.counters["search_ms"] = s.seconds.search * 1e3;
  state.counters["recover_ms"] = s.seconds.recover * 1e3;
  state.counters["planned_MiB"] = double(s.planned_bytes) / (1 << 20);
  ssum::release_cuda_memory();  // the solver keeps its lists' memory; the peers need it
}

void ssum_cuda(benchmark::State& state, const char* cls) { ssum_on_device(state, cls, ssum::algorithm::two_list); }

void ssum_cuda_four_list(benchmark::State& state, const char* cls) {
  ssum_on_device(state, cls, ssum::algorithm::four_list);
}

void thrust_peer(benchmark::State& state, const char* cls) {
  const auto& p = instance(cls, static_cast<std::size_t>(state.range(0)));
  bool feasible = false;
  for (auto _ : state) {
    feasible = thrust_two_list(p);
    cudaDeviceSynchronize();
  }
  state.counters["feasible"] = feasible;
}

void ssum_cpu(benchmark::State& state, const char* cls) {
  const auto& p = instance(cls, static_cast<std::size_t>(state.range(0)));
  ssum::solution s;
  for (auto _ : state) s = ssum::solve(ssum::cpu{}, p);
  state.counters["feasible"] = s.feasible;
  state.counters["threads"] = s.threads;
}

void sequential(benchmark::State& state, const char* cls) {
  const auto& p = instance(cls, static_cast<std::size_t>(state.range(0)));
  bool feasible = false;
  for (auto _ : state) feasible = ssum_reference::feasible<std::int64_t>(p.weights, static_cast<std::int64_t>(*p.target));
  state.counters["feasible"] = feasible;
}

}  // namespace

int main(int argc, char** argv) {
  if (ssum::cuda_devices().empty()) {
    std::puts("bench_solve_cuda: no CUDA device present; nothing measured");
    return 0;
  }
  for (const char* cls : {"random", "planted"}) {
    const std::string c = cls;
    // n = 24..36 (ssum_cuda and ssum_cpu only) locate the size where the device starts to pay.
    for (int n : {24, 28, 32, 36, 40, 48, 56, 60, 64}) {
      const auto add = [&](const char* who, void (*fn)(benchmark::State&, const char*)) {
        benchmark::RegisterBenchmark(("solve/" + c + "/" + who).c_str(), fn, cls)
            ->Arg(n)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(n >= 60 ? 1 : n >= 48 ? 3 : 10);
      };
      add("ssum_cuda", ssum_cuda);
      if (c == "random" && (n == 48 || n == 56 || n == 64)) add("ssum_cuda_four_list", ssum_cuda_four_list);
      if (n >= 40) add("thrust_peer", thrust_peer);
      if (n <= 56) add("ssum_cpu", ssum_cpu);
      if (n <= 48) add("sequential", sequential);
    }
  }
  // The whole search at n = 64 by both algorithms, the two-list at n = 66 (its largest), and
  // the four-list alone at n = 72; the two-list's at n = 64 in 128-bit sums next to its 64-bit one.
  for (const auto& [cls, who, fn, n] :
       {std::make_tuple("none", "ssum_cuda", ssum_cuda, 64), std::make_tuple("none_wide", "ssum_cuda", ssum_cuda, 64),
        std::make_tuple("none", "ssum_cuda", ssum_cuda, 66),
        std::make_tuple("none", "ssum_cuda_four_list", ssum_cuda_four_list, 64),
        std::make_tuple("none", "ssum_cuda_four_list_large", ssum_cuda_four_list, 72)}) {
    benchmark::RegisterBenchmark((std::string("solve/") + cls + "/" + who).c_str(), fn, cls)
        ->Arg(n)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// The dynamic program three ways in one run, each on the same reduced instance
// (solver/reductions.hpp):
//   ssum_cuda    ssum::detail::solve_dp(cuda{}, ...): bitsets on the device, small items fused
//                several to a pass over tiles in shared memory, wide ones one pass each;
//   thrust_peer  what a user writes with Thrust: one byte per sum, per item a thrust::transform
//                of reach[s] | reach[s - w] into a second buffer, swapped, and reach[T] read
//                back after each item (the early exit);
//   ssum_cpu     the host dynamic program on every host core.
// Instances: uniform weights in [1, hi] with the target n * hi / 4 (T = 10^7 .. 10^10; the
// goal: T = 10^10, n = 10^3 under 1 s and 20 times the host), pthree (weights <= 1000, where
// fusion matters), and two that no subset solves, so that every pass runs: avis n = 1000, and
// multiples of 3 but one with a target of 2 mod 3. Whole-call wall time per iteration;
// ssum_cuda's counters: passes run, fused passes, the bitset bytes they read and wrote
// (bytes_per_second: over the whole call), and the cost model's estimate (model_ms, the whole
// table without an early exit).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "solver/dp/bitset_dp.hpp"
#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum::detail::reduction;

struct instance {
  ssum::problem p;
  reduction r;
};

// none: weights M r + 1 with M = 1009, a prime above n and above the residue test's moduli, so
// that k items sum to k mod M, and a target of residue (M + n) / 2 mod M, which no k <= n is:
// no subset, and no reduction sees it.
ssum::problem uniform_instance(std::size_t n, std::uint64_t hi, bool none) {
  constexpr std::uint64_t m = 1009;
  std::mt19937_64 rng(2026 + n);
  std::uniform_int_distribution<std::uint64_t> pick(1, hi);
  ssum::problem p;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t w = pick(rng);
    p.weights.push_back(ssum::int128(none ? m * std::max<std::uint64_t>(1, w / m) + 1 : w));
  }
  std::uint64_t t = std::uint64_t(n) * hi / 4;
  if (none) t = t - t % m + (m + n) / 2;
  p.target = ssum::int128(t);
  return p;
}

const instance& get(const std::string& name) {
  static std::map<std::string, instance> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  ssum::problem p;
  if (name == "T1e10_n1000") p = uniform_instance(1000, 40000000, false);
  else if (name == "T1e7_n1000") p = uniform_instance(1000, 40000, false);
  else if (name == "T1e8_n10000") p = uniform_instance(10000, 40000, false);
  else if (name == "T1e9_n1000") p = uniform_instance(1000, 4000000, false);
  else if (name == "T1e9_n10000") p = uniform_instance(10000, 400000, false);
  else if (name == "none_T1e9_n1000") p = uniform_instance(1000, 4000000, true);
  else if (name == "pthree_n10000") p = ssum::generate("pthree", 10000, std::nullopt, 2026);
  else if (name == "pthree_n100000") p = ssum::generate("pthree", 100000, std::nullopt, 2026);
  else p = ssum::generate("avis", 1000, std::nullopt, 2026);  // avis_n1000
  reduction r = ssum::detail::reduce(p, ssum::detail::totals_of(p));
  return cache.emplace(name, instance{std::move(p), std::move(r)}).first->second;
}

void ssum_cuda(benchmark::State& state, std::string name) {
  const instance& in = get(name);
  ssum::detail::dp_cuda_stats stats;
  ssum::solution s = ssum::detail::solve_dp(ssum::cuda{}, in.p, in.r, {}, &stats);  // the arena allocated
  for (auto _ : state) s = ssum::detail::solve_dp(ssum::cuda{}, in.p, in.r, {}, &stats);
  state.counters["feasible"] = s.feasible;
  state.counters["T"] = double(in.r.bound);
  state.counters["n"] = double(in.r.weights.size());
  state.counters["passes"] = double(stats.passes);
  state.counters["fused_passes"] = double(stats.fused_passes);
  state.counters["items_run"] = double(stats.items);
  state.counters["search_ms"] = s.seconds.search * 1e3;
  state.counters["model_ms"] = ssum::detail::dp_cuda_seconds(in.r) * 1e3;
  state.counters["bitset_GB"] = stats.bitset_bytes / 1e9;
  state.counters["bytes_per_second"] =
      benchmark::Counter(stats.bitset_bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["planned_GiB"] = double(s.planned_bytes) / double(1ull << 30);
  ssum::release_cuda_memory();  // the peers need the device's memory
}

struct reach_step {
  const unsigned char* in;
  std::uint64_t w;
  __host__ __device__ unsigned char operator()(std::uint64_t s) const { return in[s] | (s >= w ? in[s - w] : 0); }
};

bool thrust_dp(const reduction& r) {
  const std::uint64_t t = std::uint64_t(r.bound);
  thrust::device_vector<unsigned char> a(t + 1, 0), b(t + 1, 0);
  a[0] = 1;
  for (const ssum::uint128& w : r.weights) {
    thrust::transform(thrust::counting_iterator<std::uint64_t>(0), thrust::counting_iterator<std::uint64_t>(t + 1),
                      b.begin(), reach_step{thrust::raw_pointer_cast(a.data()), std::uint64_t(w)});
    a.swap(b);
    if (a[t]) return true;
  }
  return bool(a[t]);
}

void thrust_peer(benchmark::State& state, std::string name) {
  const instance& in = get(name);
  bool feasible = false;
  for (auto _ : state) {
    feasible = thrust_dp(in.r);
    cudaDeviceSynchronize();
  }
  state.counters["feasible"] = feasible;
}

void ssum_cpu(benchmark::State& state, std::string name) {
  const instance& in = get(name);
  ssum::solution s;
  const ssum::detail::host_share host = ssum::detail::host_share_for(0, {});
  for (auto _ : state) s = ssum::detail::solve_dp(host, in.p, in.r, {});
  state.counters["feasible"] = s.feasible;
  state.counters["threads"] = s.threads;
}

}  // namespace

int main(int argc, char** argv) {
  if (ssum::cuda_devices().empty()) {
    std::puts("bench_dp_cuda: no CUDA device present; nothing measured");
    return 0;
  }
  struct row {
    const char* name;
    int gpu, thrust, cpu;  // iterations; 0: not run
  };
  const row rows[] = {
      {"pthree_n10000", 10, 3, 3}, {"pthree_n100000", 5, 0, 0}, {"T1e7_n1000", 10, 3, 3},
      {"T1e8_n10000", 5, 1, 1},    {"T1e9_n1000", 5, 1, 1},     {"T1e9_n10000", 3, 0, 0},
      {"none_T1e9_n1000", 3, 0, 0}, {"avis_n1000", 5, 1, 1},    {"T1e10_n1000", 3, 1, 1},
  };
  for (const row& r : rows) {
    const auto add = [&](const char* who, void (*fn)(benchmark::State&, std::string), int iterations) {
      if (iterations == 0) return;
      benchmark::RegisterBenchmark((std::string("dp/") + r.name + "/" + who).c_str(), fn, std::string(r.name))
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(iterations);
    };
    add("ssum_cuda", ssum_cuda, r.gpu);
    add("thrust_peer", thrust_peer, r.thrust);
    add("ssum_cpu", ssum_cpu, r.cpu);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// ssum's solve on the many-item classes against the dynamic programs a programmer writes
// first (tests/reference/dp_peers.hpp: Bellman's byte table and the one-thread bitset) and
// Pisinger's balanced program on the reductions alone (balanced_peer: what the exact tables do
// without the greedy fill and the divisor groups), side by side in one run: the generator's
// pthree, psix, evenodd, avis and somatoth classes, and random weights below 100 with the
// target near half the total, at n = 10^2 to 10^6 (seeds 1 to 3 from n = 10^5 on: /s1 ...).
// A peer runs only where its work stays below about a minute.
// Run: build/release/bench/bench_dp_cpu [--benchmark_filter=pthree]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "reference/dp_peers.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/reductions.hpp"
#include "ssum/ssum.hpp"

namespace {

struct instance {
  std::string name;
  ssum::problem p;
  std::vector<std::uint64_t> weights;  // the peers' input: the weights as they are
  std::uint64_t target = 0;
};

instance make(const std::string& cls, std::size_t n, std::uint64_t seed) {
  instance x;
  x.name = cls + "/" + std::to_string(n) + (seed == 2026 ? "" : "/s" + std::to_string(seed));
  if (cls == "half") {  // random weights in [1, 100], target half the total: many solutions
    std::mt19937_64 rng(n + seed);
    ssum::int128 total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      x.p.weights.push_back(ssum::int128(1 + rng() % 100));
      total += x.p.weights.back();
    }
    x.p.target = total / 2;
  } else {
    x.p = ssum::generate(cls, n, std::nullopt, seed);
  }
  for (const ssum::int128 w : x.p.weights) x.weights.push_back(std::uint64_t(w));
  x.target = std::uint64_t(*x.p.target);
  return x;
}

void ssum_solve(benchmark::State& state, const instance* x) {
  ssum::solution s;
  for (auto _ : state) s = ssum::solve(ssum::backend::cpu, 0, x->p);
  state.counters["feasible"] = s.feasible;
  state.counters["threads"] = s.threads;
  state.counters["planned_MiB"] = double(s.planned_bytes) / (1 << 20);
  state.SetLabel(s.algorithm);
}

// Pisinger's balanced program on the reductions before the divisor groups, as the exact
// program answers without the greedy fill (which goes first under automatic).
void balanced_peer(benchmark::State& state, const instance* x) {
  const auto totals = ssum::detail::totals_of(x->p);
  const ssum::detail::host_share host = ssum::detail::host_share_for(1, {});
  ssum::solution s;
  for (auto _ : state) {
    const ssum::detail::reduction r = ssum::detail::reduce(x->p, totals, false, false);
    s = r.outcome == ssum::detail::reduction::verdict::open ? ssum::detail::solve_balanced(host, x->p, r, {})
                                                             : ssum::solution{};
  }
  state.counters["feasible"] = s.feasible;
}

template <bool (*Peer)(const std::vector<std::uint64_t>&, std::uint64_t)>
void peer(benchmark::State& state, const instance* x) {
  bool feasible = false;
  for (auto _ : state) benchmark::DoNotOptimize(feasible = Peer(x->weights, x->target));
  state.counters["feasible"] = feasible;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  static std::vector<instance> instances;
  const std::vector<std::string> classes = {"pthree", "psix", "evenodd", "avis", "somatoth", "half"};
  for (const std::string& cls : classes) {
    for (const std::size_t n : {100, 1000, 10000, 100000, 1000000}) {
      for (const std::uint64_t seed : {2026, 1, 2, 3}) {
        if (seed != 2026 && n < 100000) continue;
        try {
          instances.push_back(make(cls, n, seed));
        } catch (const std::exception&) {  // the class has no instance of this size (int64 weights)
        }
      }
    }
  }
  for (const instance& x : instances) {
    // Peer work: Bellman a byte per item and sum (~1 ns each), the bitset a word (~2 ns).
    const double work = double(x.weights.size()) * double(x.target);
    std::uint64_t largest = 0;
    for (const std::uint64_t w : x.weights) largest = std::max(largest, w);
    benchmark::RegisterBenchmark(("ssum/" + x.name).c_str(), [&x](benchmark::State& s) { ssum_solve(s, &x); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    // The balanced program: about 3.5 ns per item and weight unit at most (psix 10^4: 3.5 s).
    if (double(x.weights.size()) * double(largest) * 3.5e-9 < 60) {
      benchmark::RegisterBenchmark(("balanced_peer/" + x.name).c_str(),
                                   [&x](benchmark::State& s) { balanced_peer(s, &x); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    if (work / 64 * 2e-9 < 60) {
      benchmark::RegisterBenchmark(("bitset_peer/" + x.name).c_str(),
                                   [&x](benchmark::State& s) { peer<ssum_reference::bitset_reaches>(s, &x); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    if (work * 1e-9 < 60) {
      benchmark::RegisterBenchmark(("bellman_peer/" + x.name).c_str(),
                                   [&x](benchmark::State& s) { peer<ssum_reference::bellman_reaches>(s, &x); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// ssum's host two-list and four-list solvers against the sequential Horowitz-Sahni reference (the peer),
// side by side in one run, on random no-instances: every sum is generated and searched.
// Run: build/release/bench/bench_solve_cpu   (scripts/bench-cpu adds memory and ratios)
#include <benchmark/benchmark.h>

#include <map>
#include <optional>

#include "reference/sequential_two_list.hpp"
#include "ssum/ssum.hpp"

namespace {

// The benchmark class (docs/instances.md, `random`): weights uniform below 2^62/n, target just above half the sum.
const ssum::problem& instance(std::size_t n) {
  static std::map<std::size_t, ssum::problem> cache;
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, ssum::generate("random", n, std::nullopt, 2026)).first;
  return it->second;
}

void sequential_reference(benchmark::State& state) {
  const auto& p = instance(static_cast<std::size_t>(state.range(0)));
  const std::optional<std::int64_t> t = static_cast<std::int64_t>(*p.target);  // sums < 2^62 fit
  for (auto _ : state) {
    const bool feasible = ssum_reference::feasible<std::int64_t>(p.weights, t);
    if (feasible) state.SkipWithError("instance unexpectedly feasible: not a full search");
    benchmark::DoNotOptimize(feasible);
  }
}

void run_ssum(benchmark::State& state, ssum::algorithm algo) {
  const auto& p = instance(static_cast<std::size_t>(state.range(0)));
  ssum::solution s;
  ssum::solve_options options;
  options.algo = algo;
  for (auto _ : state) {
    s = ssum::solve(ssum::cpu{}, p, options);
    if (s.feasible) state.SkipWithError("instance unexpectedly feasible: not a full search");
  }
  state.counters["threads"] = s.threads;
  state.counters["generate_ms"] = s.seconds.generate * 1e3;
  state.counters["search_ms"] = (s.seconds.prune + s.seconds.search) * 1e3;
  state.counters["planned_MiB"] = double(s.planned_bytes) / (1 << 20);
}

void ssum_cpu(benchmark::State& state) { run_ssum(state, ssum::algorithm::two_list); }
void ssum_cpu_four_list(benchmark::State& state) { run_ssum(state, ssum::algorithm::four_list); }

}  // namespace

BENCHMARK(sequential_reference)->Arg(40)->Arg(44)->Arg(48)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(ssum_cpu)->Arg(40)->Arg(44)->Arg(48)->Arg(52)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();
BENCHMARK(ssum_cpu_four_list)->Arg(40)->Arg(44)->Arg(48)->Arg(52)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

BENCHMARK_MAIN();

// Pisinger's balanced dynamic program (balanced_dp.hpp) against the bitset dynamic program
// (bitset_dp.hpp, one and two threads), side by side on reduced instances with the target
// near total / 2: uniform weights in [1, r] (feasible: both stop early), the same with every
// weight near a multiple of r / 8 and a target between the reachable sums (infeasible: every
// item runs, what the cost models describe), and the generator's pthree and psix. A pair is
// left out when a model puts it beyond a few seconds or its table beyond 2 GiB. Counters:
// model_s (balanced_seconds or dp_seconds) beside the measured time, planned_MiB, feasible.
// The bitset runs on 1 and 2 threads and on every thread of the machine (bitset_tall), so that
// its thread model is checked where it decides: a 1,000-item no-instance with T ~ 1.2 x 10^9
// (multiples of 3 but one, target 2 mod 3: no reduction settles it) and psix. --long admits
// pairs whose model says up to a minute (default 4 s).
// Run: build/release/bench/bench_dp_crossover [--long] [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "small_instances.hpp"
#include "ssum/generate.hpp"
#include "ssum/policy.hpp"

namespace {

using ssum::detail::reduction;

struct instance {
  std::string name;
  ssum::problem p;
  reduction r;
};

ssum::problem uniform_weights(std::size_t n, std::int64_t r, bool gaps, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ssum::problem p;
  ssum::int128 total = 0;
  const std::int64_t step = std::max<std::int64_t>(r / 8, 1);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t w = std::uniform_int_distribution<std::int64_t>(1, r)(rng);
    // Near a multiple of step, the small parts adding up to less than step / 2.
    if (gaps) w = step * std::uniform_int_distribution<std::int64_t>(1, 8)(rng) + std::int64_t(rng() % 2);
    p.weights.push_back(w);
    total += w;
  }
  p.target = total / 2 + (gaps ? step / 2 : 0);
  return p;
}

bool make_reduction(instance& in) {
  const ssum::detail::flipped_totals totals = ssum::detail::totals_of(in.p);
  if (totals.out_of_range()) return false;
  in.r = ssum::detail::reduce(in.p, totals);
  return in.r.outcome == reduction::verdict::open;
}

double most_model_seconds = 4;
constexpr double most_bytes = 2.0 * (1u << 30);

void run_balanced(benchmark::State& state, const instance& in) {
  ssum::solution s;
  const ssum::detail::host_share host = ssum::detail::host_share_for(1, {});
  for (auto _ : state) s = ssum::detail::solve_balanced(host, in.p, in.r, {});
  state.counters["model_s"] = ssum::detail::balanced_seconds(in.r);
  state.counters["planned_MiB"] = double(s.planned_bytes) / (1 << 20);
  state.counters["feasible"] = s.feasible;
  state.counters["recover_ms"] = s.seconds.recover * 1e3;
}

void run_bitset(benchmark::State& state, const instance& in, unsigned threads) {
  ssum::solution s;
  const ssum::detail::host_share host = ssum::detail::host_share_for(threads, {});
  for (auto _ : state) s = ssum::detail::solve_dp(host, in.p, in.r, {});
  state.counters["model_s"] = ssum::detail::dp_seconds(in.r, threads);
  state.counters["planned_MiB"] = double(s.planned_bytes) / (1 << 20);
  state.counters["feasible"] = s.feasible;
}

void register_pair(instance in) {
  if (!make_reduction(in)) return;
  static std::deque<instance> kept;  // registered benchmarks refer to these: never moved
  kept.push_back(std::move(in));
  const instance& i = kept.back();
  const auto tune = [](benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.2);
  };
  if (ssum::detail::balanced_seconds(i.r) < most_model_seconds &&
      ssum::detail::balanced_planned_bytes(i.r) < most_bytes) {
    tune(benchmark::RegisterBenchmark(("balanced/" + i.name).c_str(), [&i](benchmark::State& s) { run_balanced(s, i); }));
  }
  if (i.r.bound <= ssum::uint128(ssum::detail::dp_most_sums) && ssum::detail::dp_planned_bytes(i.r) < most_bytes) {
    const unsigned all = ssum::resolved_threads(ssum::cpu{});
    std::vector<unsigned> counts{1, 2};
    if (all > 2) counts.push_back(all);
    for (const unsigned threads : counts) {
      if (ssum::detail::dp_seconds(i.r, threads) > most_model_seconds) continue;
      const std::string name = threads > 2 ? "bitset_tall" : "bitset_t" + std::to_string(threads);
      tune(benchmark::RegisterBenchmark((name + "/" + i.name).c_str(),
                                        [&i, threads](benchmark::State& s) { run_bitset(s, i, threads); }));
    }
  }
}

void register_all() {
  for (const std::size_t n : {100, 1000, 10000, 100000}) {
    for (const std::int64_t r : {10, 100, 1000, 10000, 100000, 1000000}) {
      const std::string size = "n" + std::to_string(n) + "_r" + std::to_string(r);
      register_pair({"uniform_" + size, uniform_weights(n, r, false, 7), {}});
      if (r >= 100) register_pair({"gaps_" + size, uniform_weights(n, r, true, 7), {}});
    }
  }
  for (const std::size_t n : {1000, 10000, 100000}) {
    register_pair({"pthree_n" + std::to_string(n), ssum::generate("pthree", n, std::nullopt, 1), {}});
  }
  for (const std::size_t n : {100, 1000, 10000}) {
    register_pair({"psix_n" + std::to_string(n), ssum::generate("psix", n, std::nullopt, 1), {}});
  }
  register_pair({"none_n1000_b22", ssum_test::long_no_instance(1000, 22, 1), {}});
}

}  // namespace

int main(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    if (std::string(argv[k]) != "--long") continue;
    most_model_seconds = 60;
    for (int j = k; j + 1 < argc; ++j) argv[j] = argv[j + 1];
    --argc;
    break;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// ssum's completion search on dense instances against the number-partitioning field's peers
// (tests/reference/dense_peers.hpp: Karmarkar-Karp then local search, and Korf's complete
// Karmarkar-Karp), side by side in one run. Each benchmark answers a set of instances (five
// seeds of a class), each within the same time cap, in as many passes as fill a quarter of a
// second, and reports how many it found per pass and the found-rate: instances found per
// second spent. A peer that finds none has a rate below 1 / (its seconds), which is what the
// ratio against it is computed from.
// Run: build/release/bench/bench_dense_cpu [--benchmark_filter=partition] [--cap=SECONDS]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "reference/dense_peers.hpp"
#include "ssum/ssum.hpp"

namespace {

double cap_seconds = 1.0;  // per instance, for every solver

struct instance_set {
  std::string name;
  std::vector<ssum::problem> problems;
  std::vector<std::vector<std::uint64_t>> weights;  // the peers' input
};

instance_set make(const std::string& cls, std::size_t n, std::optional<int> bits) {
  instance_set s;
  s.name = cls + "/" + std::to_string(n) + (bits ? "/" + std::to_string(*bits) + "bit" : "");
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    s.problems.push_back(ssum::generate(cls, n, bits, seed));
    std::vector<std::uint64_t> w;
    for (const ssum::int128 x : s.problems.back().weights) w.push_back(std::uint64_t(x));
    s.weights.push_back(std::move(w));
  }
  return s;
}

using seconds_clock = std::chrono::steady_clock;

template <class Solve>
void answer_all(benchmark::State& state, const instance_set* s, Solve&& solve) {
  int found = 0, passes = 0;
  double spent = 0;
  for (auto _ : state) {
    // Passes over the set until a quarter of a second is spent: a rate of milliseconds'
    // solves from one pass would be mostly noise.
    found = 0, passes = 0;
    const auto start = seconds_clock::now();
    do {
      for (std::size_t k = 0; k < s->problems.size(); ++k) found += solve(k) ? 1 : 0;
      ++passes;
      spent = std::chrono::duration<double>(seconds_clock::now() - start).count();
    } while (spent < 0.25);
  }
  state.counters["found"] = double(found) / passes;
  state.counters["of"] = double(s->problems.size());
  state.counters["passes"] = passes;
  state.counters["seconds"] = spent;
  state.counters["found_per_s"] = double(found) / spent;
  // A rate no solver with none found can exceed: one find in the time it spent.
  state.counters["rate_bound"] = double(std::max(found, 1)) / spent;
}

void ssum_completion(benchmark::State& state, const instance_set* s) {
  answer_all(state, s, [&](std::size_t k) {
    ssum::solve_options o;
    o.time_limit = cap_seconds;
    const ssum::solution x = ssum::solve(ssum::backend::cpu, 0, s->problems[k], o);
    if (x.status == ssum::status::feasible && !ssum::is_certificate(s->problems[k], x.subset)) {
      state.SkipWithError("ssum reported a subset that does not verify");
    }
    state.SetLabel(x.algorithm);
    return x.status == ssum::status::feasible;
  });
}

template <std::optional<std::vector<std::size_t>> (*Peer)(const std::vector<std::uint64_t>&, unsigned __int128,
                                                          double)>
void peer(benchmark::State& state, const instance_set* s) {
  answer_all(state, s, [&](std::size_t k) {
    const auto target = static_cast<unsigned __int128>(*s->problems[k].target);
    const auto found = Peer(s->weights[k], target, cap_seconds);
    if (found && !ssum::is_certificate(s->problems[k], *found)) state.SkipWithError("a peer's subset does not verify");
    return found.has_value();
  });
}

std::optional<std::vector<std::size_t>> kk_local_search(const std::vector<std::uint64_t>& w, unsigned __int128 t,
                                                         double seconds) {
  return ssum_reference::kk_local_search(w, t, seconds);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--cap=", 6) == 0) cap_seconds = std::stod(argv[i] + 6);
  }
  static std::vector<instance_set> sets;
  for (const std::size_t n : {100, 1000, 10000}) sets.push_back(make("random", n, std::nullopt));
  for (const std::size_t n : {100, 1000, 10000}) sets.push_back(make("partition", n, 60));
  for (const instance_set& s : sets) {
    benchmark::RegisterBenchmark(("dense/" + s.name + "/ssum").c_str(), ssum_completion, &s)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("dense/" + s.name + "/kk_local_search").c_str(), peer<kk_local_search>, &s)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("dense/" + s.name + "/ckk").c_str(), peer<ssum_reference::ckk>, &s)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Host inclusive scan: ssum::inclusive_scan(ssum::cpu{}) against std::inclusive_scan, and
// against std::inclusive_scan(std::execution::par) where the standard library has a parallel
// backend (libstdc++ needs TBB for that; without it the case is left out, since it would be
// the sequential loop again). Bytes processed = read + write, so the rate is DRAM GB/s.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#if __has_include(<tbb/tbb.h>)
#include <execution>
#define SSUM_BENCH_STD_PAR 1
#endif

#include "ssum/scan.hpp"

namespace {

// One input/output pair per type, kept across cases of the same size: a 2^28 x int64 pair
// is 4 GiB, so it is made (and every page touched) once, outside the timed loops.
template <class T>
std::vector<T>& buffer(int which, std::size_t n) {
  static std::vector<T> bufs[2];
  std::vector<T>& b = bufs[which];
  if (b.size() != n) {
    b = std::vector<T>();  // free first: never hold two big buffers of a kind at once
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<T>(i % 7 + which);  // touches every page
  }
  return b;
}

template <class T, class Scan>
void run(benchmark::State& state, std::size_t n, Scan scan) {
  const T* in = buffer<T>(0, n).data();
  T* out = buffer<T>(1, n).data();
  for (auto _ : state) {
    scan(in, out, n);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * n * sizeof(T)));
}

template <class T>
void add(const std::string& type, int log2n) {
  const std::size_t n = std::size_t(1) << log2n;
  const std::string suffix = "<" + type + ">/2^" + std::to_string(log2n);
  auto reg = [&](const std::string& name, auto scan) {
    benchmark::RegisterBenchmark((name + suffix).c_str(), [n, scan](benchmark::State& s) { run<T>(s, n, scan); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
  reg("ssum_cpu_all_threads", [](const T* in, T* out, std::size_t m) { ssum::inclusive_scan(ssum::cpu{}, in, out, m); });
  reg("ssum_cpu_1_thread", [](const T* in, T* out, std::size_t m) { ssum::inclusive_scan(ssum::cpu{1}, in, out, m); });
  reg("std_seq", [](const T* in, T* out, std::size_t m) { std::inclusive_scan(in, in + m, out); });
#ifdef SSUM_BENCH_STD_PAR
  reg("std_par", [](const T* in, T* out, std::size_t m) { std::inclusive_scan(std::execution::par, in, in + m, out); });
#endif
}

// Registered size by size so that each buffer pair is built once per size.
const int registered = [] {
  for (int log2n : {24, 28}) add<std::int32_t>("int32", log2n);
  for (int log2n : {24, 28}) add<std::int64_t>("int64", log2n);
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();

#pragma once
// Timing of CUDA work for Google Benchmark: CUDA events around batches of calls (manual
// time), so that short calls are not timed one launch at a time. One benchmark iteration is
// one batch; the "call_us" counter is the time of one call, "host_us" the host's time to
// enqueue one, and bytes_per_second counts `bytes` per call.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "ssum/cuda_device.hpp"

namespace ssum::detail {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class F>
void time_batches(benchmark::State& state, std::size_t bytes, int batch, F f) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  f();  // warm-up: first-call costs (module load, pool growth) are not the steady state
  check(cudaDeviceSynchronize(), "warm-up");
  double call_us = 0, host_us = 0;
  for (auto _ : state) {
    check(cudaEventRecord(start), "record");
    const auto enqueue = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) f();
    host_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - enqueue).count() / batch;
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    state.SetIterationTime(ms / 1e3);
    call_us += ms * 1e3 / batch;
  }
  if (bytes) state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * batch * static_cast<std::int64_t>(bytes));
  state.counters["call_us"] = benchmark::Counter(call_us, benchmark::Counter::kAvgIterations);
  // The host's time to enqueue one call: where it nears call_us, the host, not the GPU, is
  // what the figure measures.
  state.counters["host_us"] = benchmark::Counter(host_us, benchmark::Counter::kAvgIterations);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// main() of a CUDA benchmark: registers (only where a device is present) and runs.
template <class Register>
int run_benchmarks(int argc, char** argv, const char* name, Register register_all) {
  if (ssum::cuda_devices().empty()) {
    std::printf("%s: no CUDA device present; nothing measured\n", name);
    return 0;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace ssum::detail

// The subset enumerator (src/solver/two_list/enumerate.hpp), one thread, and its GPU form
// (enumerate_cuda.hpp) side by side:
//   stream/<n>   weights in [1, 64], window {total / 2}: far more subsets than the limit, so
//                each run builds both half lists and streams the first 10^7 subsets through
//                the callback (which only adds up their sizes);
//   lists/<n>    the same weights, an empty-handed window past the total: the two half lists
//                and the join's pointer walk alone, nothing listed.
//   cuda_stream/<n>, cuda_lists/<n>: the same on device 0 (skipped without one), the pairs
//                handed to the same callback on the host.
//   masks_cpu/<n>, masks_cuda/<n>: ssum::list_subset_masks on backend::cpu and backend::cuda
//                (skipped without a device), weights in [1, 2^40] and a window around total / 2
//                sized for about 3 x 10^7 (cpu) or 10^8 (cuda) subsets, each batch folded
//                into a checksum by the C++ callback; subsets/s is over the whole call, plan
//                and lists included.
// Items = subsets listed (stream) or list entries built (lists).
#include <benchmark/benchmark.h>

#include <cmath>
#include <span>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "solver/two_list/enumerate.hpp"
#include "solver/two_list/enumerate_cuda.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;

std::vector<int128> small_weights(std::size_t n) {
  std::mt19937_64 rng(n);
  std::vector<int128> w(n);
  for (auto& x : w) x = std::uniform_int_distribution<int>(1, 64)(rng);
  return w;
}

int128 total_of(const std::vector<int128>& w) {
  int128 t = 0;
  for (const int128 x : w) t += x;
  return t;
}

using enumerator = ssum::detail::enumerate_result (*)(const ssum::detail::enumerate_request&,
                                                     const std::function<bool(const std::vector<std::size_t>&)>&);

ssum::detail::enumerate_result on_device(const ssum::detail::enumerate_request& r,
                                         const std::function<bool(const std::vector<std::size_t>&)>& f) {
  return ssum::detail::enumerate_subsets_cuda(0, r, f);
}

template <enumerator Enumerate, bool Device>
void stream(benchmark::State& state) {
  if (Device && ssum::cuda_devices().empty()) return state.SkipWithError("no CUDA device");
  const std::vector<int128> w = small_weights(std::size_t(state.range(0)));
  ssum::detail::enumerate_request r;
  r.weights = &w;
  r.lo = r.hi = total_of(w) / 2;
  r.limit = 10'000'000;
  std::uint64_t listed = 0, items = 0;
  for (auto _ : state) {
    listed += Enumerate(r, [&](const std::vector<std::size_t>& s) {
      items += s.size();
      return true;
    }).listed;
  }
  benchmark::DoNotOptimize(items);
  state.SetItemsProcessed(std::int64_t(listed));
}

template <enumerator Enumerate, bool Device>
void lists(benchmark::State& state) {
  if (Device && ssum::cuda_devices().empty()) return state.SkipWithError("no CUDA device");
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<int128> w = small_weights(n);
  ssum::detail::enumerate_request r;
  r.weights = &w;
  r.lo = r.hi = total_of(w) + 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Enumerate(r, [](const std::vector<std::size_t>&) { return true; }));
  }
  const std::int64_t entries = (std::int64_t(1) << (n / 2)) + (std::int64_t(1) << (n - n / 2));
  state.SetItemsProcessed(std::int64_t(state.iterations()) * entries);
}

// Subsets a second a C++ caller takes through the bulk listing.
template <ssum::backend Which>
void masks(benchmark::State& state) {
  if (Which == ssum::backend::cuda && ssum::cuda_devices().empty()) return state.SkipWithError("no CUDA device");
  const std::size_t n = std::size_t(state.range(0));
  std::mt19937_64 rng(n);
  ssum::problem p;
  double squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t w = std::uniform_int_distribution<std::int64_t>(1, std::int64_t(1) << 40)(rng);
    p.weights.push_back(w);
    squares += double(w) * double(w);
  }
  // The sums of all 2^n subsets are about normal, sd sqrt(sum w^2) / 2: a window of width
  // wanted * sqrt(2 pi) sd / 2^n around the middle holds about `wanted` of them.
  const double wanted = Which == ssum::backend::cuda ? 1e8 : 3e7;
  const double width = wanted * std::sqrt(2 * M_PI) * std::sqrt(squares) / 2 / std::ldexp(1.0, int(n));
  p.target = total_of(p.weights) / 2 - int128(width / 2);
  ssum::listing_options o;
  o.high = *p.target + int128(width);
  std::uint64_t listed = 0, check = 0;
  for (auto _ : state) {
    listed += ssum::list_subset_masks(Which, 0, p, o, [&](std::span<const std::uint64_t> batch) {
      for (const std::uint64_t m : batch) check ^= m;
      return true;
    }).listed;
  }
  benchmark::DoNotOptimize(check);
  state.counters["subsets"] = double(listed) / double(state.iterations());
  state.counters["subsets/s"] = benchmark::Counter(double(listed), benchmark::Counter::kIsRate);
}

BENCHMARK(stream<ssum::detail::enumerate_subsets, false>)->Name("stream")->Arg(36)->Arg(44)->Arg(48)->Unit(benchmark::kMillisecond);
BENCHMARK(lists<ssum::detail::enumerate_subsets, false>)->Name("lists")->Arg(36)->Arg(44)->Arg(48)->Unit(benchmark::kMillisecond);
BENCHMARK(stream<on_device, true>)->Name("cuda_stream")->Arg(36)->Arg(44)->Arg(48)->Arg(52)->Arg(56)->Unit(benchmark::kMillisecond);
BENCHMARK(lists<on_device, true>)->Name("cuda_lists")->Arg(36)->Arg(44)->Arg(48)->Arg(52)->Arg(56)->Unit(benchmark::kMillisecond);
BENCHMARK(masks<ssum::backend::cpu>)->Name("masks_cpu")->Arg(44)->Arg(48)->Arg(52)->Arg(56)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(masks<ssum::backend::cuda>)->Name("masks_cuda")->Arg(44)->Arg(48)->Arg(52)->Arg(56)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

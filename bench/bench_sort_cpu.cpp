// Host odd-even sorts (ssum/sort.hpp with ssum::cpu) against std::sort and std::stable_sort:
//   small/   1024 int32 keys, reversed (the seed document's case) and random; also the seed's
//            algorithm itself, the element-wise transposition sort (n rounds on reversed keys);
//   batch/   2^20 int32 keys in segments of 32, 256 and 1024: segmented_odd_even_sort against
//            a loop of std::sort / std::stable_sort over the segments (one thread);
//   whole/   2^20 random int32 and uint64 keys.
// Every timed iteration copies the unsorted input into a work buffer and sorts that; the
// "copy" case times the copy alone, so a sort costs its figure minus copy's. Items = keys.
// "all_threads" is ssum::cpu{} (every hardware thread), "1_thread" is ssum::cpu{1}.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ssum/sort.hpp"

namespace {

template <class T>
std::vector<T> random_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(rng());
  return v;
}

template <class T>
std::vector<T> reversed_keys(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(n - i);  // the seed's input
  return v;
}

/// Registers name: each iteration copies `input` to a work buffer, then sort(work.data(), n).
template <class T>
void reg(const std::string& name, std::vector<T> input, std::function<void(T*, std::size_t)> sort,
         benchmark::TimeUnit unit) {
  benchmark::RegisterBenchmark(name.c_str(), [input = std::move(input), sort](benchmark::State& state) {
    std::vector<T> work(input.size());
    for (auto _ : state) {
      std::copy(input.begin(), input.end(), work.begin());
      sort(work.data(), work.size());
      benchmark::DoNotOptimize(work.data());
      benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(input.size()));
  })->Unit(unit)->UseRealTime();
}

/// The whole-array cases, on one input.
template <class T>
void add_whole(const std::string& prefix, const std::vector<T>& in, benchmark::TimeUnit unit, bool seed_case) {
  reg<T>(prefix + "/copy", in, [](T*, std::size_t) {}, unit);
  reg<T>(prefix + "/std_sort", in, [](T* k, std::size_t n) { std::sort(k, k + n); }, unit);
  reg<T>(prefix + "/std_stable_sort", in, [](T* k, std::size_t n) { std::stable_sort(k, k + n); }, unit);
  reg<T>(prefix + "/odd_even_sort/all_threads", in,
         [](T* k, std::size_t n) { ssum::odd_even_sort(ssum::cpu{}, k, n); }, unit);
  reg<T>(prefix + "/odd_even_sort/1_thread", in,
         [](T* k, std::size_t n) { ssum::odd_even_sort(ssum::cpu{1}, k, n); }, unit);
  reg<T>(prefix + "/odd_even_merge_sort/all_threads", in,
         [](T* k, std::size_t n) { ssum::odd_even_merge_sort(ssum::cpu{}, k, n); }, unit);
  reg<T>(prefix + "/odd_even_merge_sort/1_thread", in,
         [](T* k, std::size_t n) { ssum::odd_even_merge_sort(ssum::cpu{1}, k, n); }, unit);
  if (seed_case) {  // the seed's algorithm: element-wise rounds until an odd+even round is quiet
    reg<T>(prefix + "/seed_transposition", in, [](T* k, std::size_t n) {
      ssum::less comp;
      ssum::detail::odd_even_transposition(k, static_cast<ssum::detail::no_values*>(nullptr), n, comp);
    }, unit);
  }
}

void add_batch(std::size_t n, std::size_t seg) {
  const std::vector<std::int32_t> in = random_keys<std::int32_t>(n, seg);
  std::vector<std::size_t> offsets;
  for (std::size_t o = 0; o < n; o += seg) offsets.push_back(o);
  offsets.push_back(n);
  const std::string prefix = "batch/int32/2^20/seg" + std::to_string(seg);
  const auto unit = benchmark::kMillisecond;
  using T = std::int32_t;
  reg<T>(prefix + "/copy", in, [](T*, std::size_t) {}, unit);
  reg<T>(prefix + "/std_sort_per_segment", in, [offsets](T* k, std::size_t) {
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) std::sort(k + offsets[s], k + offsets[s + 1]);
  }, unit);
  reg<T>(prefix + "/std_stable_sort_per_segment", in, [offsets](T* k, std::size_t) {
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) std::stable_sort(k + offsets[s], k + offsets[s + 1]);
  }, unit);
  reg<T>(prefix + "/segmented_odd_even_sort/all_threads", in, [offsets](T* k, std::size_t m) {
    ssum::segmented_odd_even_sort(ssum::cpu{}, k, m, offsets.data(), offsets.size() - 1);
  }, unit);
  reg<T>(prefix + "/segmented_odd_even_sort/1_thread", in, [offsets](T* k, std::size_t m) {
    ssum::segmented_odd_even_sort(ssum::cpu{1}, k, m, offsets.data(), offsets.size() - 1);
  }, unit);
}

const int registered = [] {
  add_whole<std::int32_t>("small/int32/1024/reversed", reversed_keys<std::int32_t>(1024), benchmark::kMicrosecond, true);
  add_whole<std::int32_t>("small/int32/1024/random", random_keys<std::int32_t>(1024, 1), benchmark::kMicrosecond, true);
  const std::size_t n = std::size_t(1) << 20;
  for (std::size_t seg : {32, 256, 1024}) add_batch(n, seg);
  add_whole<std::int32_t>("whole/int32/2^20/random", random_keys<std::int32_t>(n, 2), benchmark::kMillisecond, false);
  add_whole<std::uint64_t>("whole/uint64/2^20/random", random_keys<std::uint64_t>(n, 3), benchmark::kMillisecond, false);
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();

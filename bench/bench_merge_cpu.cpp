// Host merges and the equal-pairs search (ssum/merge.hpp with ssum::cpu):
//   merge/<type>/<n>     two sorted random inputs of n elements each (n = 2^19 and 2^23, so
//                        2^20 and 2^24 outputs), uint32 and uint64: ssum::merge on every
//                        hardware thread and on one, std::merge, __gnu_parallel::merge;
//   generated/<n>        uint64, merge with b = d + c: merge_generated(plus_constant) against
//                        a merge of a copy of d + c made beforehand ("materialised", the copy
//                        untimed) and made inside the timed loop ("materialise_and_merge");
//   pairs/<n>            uint64, A and B of n elements, t with about 16 thousand pairs:
//                        count_pair_sums against a sequential two-pointer count.
// Bytes processed = bytes read + bytes written (a merge reads and writes every element once;
// merge_generated reads d instead of b; the searches read both lists). Items = outputs (merges)
// or elements of A and B (searches). "all_threads" is ssum::cpu{}, "1_thread" ssum::cpu{1}.
#include <benchmark/benchmark.h>

#include <parallel/algorithm>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ssum/merge.hpp"
#include "ssum/pair_sum.hpp"

namespace {

// Items = outputs; bytes = each output written once and read once from an input.
void count_merge_outputs(benchmark::State& state, std::size_t outputs_per_call, std::size_t element_bytes) {
  const auto outputs = static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(outputs_per_call);
  state.SetItemsProcessed(outputs);
  state.SetBytesProcessed(outputs * static_cast<std::int64_t>(2 * element_bytes));
}

// Sorted random keys, made once per size and shared by the cases that use them.
template <class T>
std::shared_ptr<const std::vector<T>> sorted_keys(std::size_t n, std::uint64_t seed, std::uint64_t modulus) {
  std::mt19937_64 rng(seed);
  auto v = std::make_shared<std::vector<T>>(n);
  for (T& x : *v) x = static_cast<T>(rng() % modulus);
  std::sort(v->begin(), v->end());
  return v;
}

template <class T>
using merge_fn = std::function<void(const T*, std::size_t, const T*, std::size_t, T*)>;

template <class T>
void reg_merge(const std::string& name, std::shared_ptr<const std::vector<T>> a, std::shared_ptr<const std::vector<T>> b,
               merge_fn<T> fn) {
  benchmark::RegisterBenchmark(name.c_str(), [a, b, fn](benchmark::State& state) {
    const std::size_t n = a->size();
    std::vector<T> out(2 * n);
    for (auto _ : state) {
      fn(a->data(), n, b->data(), n, out.data());
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    count_merge_outputs(state, 2 * n, sizeof(T));
  })->Unit(benchmark::kMillisecond)->UseRealTime();
}

template <class T>
void add_merges(const std::string& type, std::size_t n) {
  const std::string p = "merge/" + type + "/" + std::to_string(n) + "x2/";
  // Keys over T's whole range: few ties.
  const auto a = sorted_keys<T>(n, 1, ~std::uint64_t(0)), b = sorted_keys<T>(n, 2, ~std::uint64_t(0));
  reg_merge<T>(p + "ssum_merge/all_threads", a, b, [](const T* a, std::size_t na, const T* b, std::size_t nb, T* out) {
    ssum::merge(ssum::cpu{}, a, na, b, nb, out);
  });
  reg_merge<T>(p + "ssum_merge/1_thread", a, b, [](const T* a, std::size_t na, const T* b, std::size_t nb, T* out) {
    ssum::merge(ssum::cpu{1}, a, na, b, nb, out);
  });
  reg_merge<T>(p + "std_merge", a, b, [](const T* a, std::size_t na, const T* b, std::size_t nb, T* out) {
    std::merge(a, a + na, b, b + nb, out);
  });
  reg_merge<T>(p + "gnu_parallel_merge", a, b, [](const T* a, std::size_t na, const T* b, std::size_t nb, T* out) {
    // libstdc++'s parallel merge does not compile with pointers to const (its multiseq
    // selection keeps T* internally); it only reads the inputs.
    T* ma = const_cast<T*>(a);
    T* mb = const_cast<T*>(b);
    __gnu_parallel::merge(ma, ma + na, mb, mb + nb, out);
  });
}

void add_generated(std::size_t n) {
  using T = std::uint64_t;
  const std::string p = "generated/" + std::to_string(n) + "x2/";
  const T c = T(1) << 40;
  const auto a_ptr = sorted_keys<T>(n, 3, T(1) << 48), d_ptr = sorted_keys<T>(n, 4, T(1) << 48);
  auto reg = [&](const std::string& name, int mode) {
    benchmark::RegisterBenchmark((p + name).c_str(), [n, c, mode, a_ptr, d_ptr](benchmark::State& state) {
      const std::vector<T>& a = *a_ptr;
      const std::vector<T>& d = *d_ptr;
      std::vector<T> out(2 * n), b(n);
      for (std::size_t j = 0; j < n; ++j) b[j] = d[j] + c;  // the untimed copy ("materialised")
      for (auto _ : state) {
        if (mode == 0) {
          ssum::merge_generated(ssum::cpu{}, a.data(), n, ssum::plus_constant<T>{d.data(), c}, n, out.data());
        } else if (mode == 1) {
          ssum::merge(ssum::cpu{}, a.data(), n, b.data(), n, out.data());
        } else {
          for (std::size_t j = 0; j < n; ++j) b[j] = d[j] + c;
          ssum::merge(ssum::cpu{}, a.data(), n, b.data(), n, out.data());
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
      }
      count_merge_outputs(state, 2 * n, sizeof(T));
    })->Unit(benchmark::kMillisecond)->UseRealTime();
  };
  reg("merge_generated_plus_constant/all_threads", 0);
  reg("merge_materialised/all_threads", 1);
  reg("materialise_and_merge/all_threads", 2);
}

// Horowitz and Sahni's walk, one thread: A upwards, B downwards, runs multiplied.
std::uint64_t two_pointer_count(const std::uint64_t* a, std::size_t na, const std::uint64_t* b, std::size_t nb,
                                std::uint64_t t) {
  std::uint64_t count = 0;
  std::size_t i = 0, j = nb;
  while (i < na && j > 0) {
    const std::uint64_t bj = b[j - 1];
    if (bj > t || a[i] < t - bj) {
      if (bj > t) --j; else ++i;
    } else if (a[i] > t - bj) {
      --j;
    } else {
      std::size_t ri = i, rj = j;
      while (ri < na && a[ri] == a[i]) ++ri;
      while (rj > 0 && b[rj - 1] == bj) --rj;
      count += std::uint64_t(ri - i) * std::uint64_t(j - rj);
      i = ri;
      j = rj;
    }
  }
  return count;
}

void add_pairs(std::size_t n) {
  using T = std::uint64_t;
  const std::string p = "pairs/" + std::to_string(n) + "x2/";
  // Values below 2^32, t = 2^32: about n^2 / 2^32 pairs.
  const auto a_ptr = sorted_keys<T>(n, 5, T(1) << 32), b_ptr = sorted_keys<T>(n, 6, T(1) << 32);
  auto reg = [&](const std::string& name, int mode) {
    benchmark::RegisterBenchmark((p + name).c_str(), [n, mode, a_ptr, b_ptr](benchmark::State& state) {
      const std::vector<T>& a = *a_ptr;
      const std::vector<T>& b = *b_ptr;
      const T t = T(1) << 32;
      std::uint64_t count = 0;
      for (auto _ : state) {
        if (mode == 0) {
          count = ssum::count_pair_sums(ssum::cpu{}, a.data(), n, b.data(), n, t);
        } else if (mode == 1) {
          count = ssum::count_pair_sums(ssum::cpu{1}, a.data(), n, b.data(), n, t);
        } else {
          count = two_pointer_count(a.data(), n, b.data(), n, t);
        }
        benchmark::DoNotOptimize(count);
      }
      state.counters["pairs"] = static_cast<double>(count);
      const auto elements = static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * n);
      state.SetItemsProcessed(elements);
      state.SetBytesProcessed(elements * static_cast<std::int64_t>(sizeof(T)));
    })->Unit(benchmark::kMillisecond)->UseRealTime();
  };
  reg("count_pair_sums/all_threads", 0);
  reg("count_pair_sums/1_thread", 1);
  reg("sequential_two_pointer", 2);
}

}  // namespace

int main(int argc, char** argv) {
  for (std::size_t n : {std::size_t(1) << 19, std::size_t(1) << 23}) {
    add_merges<std::uint32_t>("uint32", n);
    add_merges<std::uint64_t>("uint64", n);
  }
  add_generated(std::size_t(1) << 23);
  add_pairs(std::size_t(1) << 23);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

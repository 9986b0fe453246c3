// The dynamic program on a CUDA device (solver/dp/bitset_dp_cuda.hpp), kernels in
// bitset_dp_kernels.cuh. The host plans the passes (items in ascending order of weight: the
// small ones fused into groups whose shifts fit a tile's halo, each wider one a pass of its
// own) and enqueues them in chunks of a few milliseconds of work, at most two chunks ahead of
// the device. After each chunk the device's "found" flag is copied to pinned memory; the host
// reads it when the chunk is done and stops enqueueing once the bound is reached, polls
// cancellation while it waits, and reports progress per chunk. A single thread walks the
// certificate back on the device; only the chosen items cross PCIe.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "solver/dp/bitset_dp.hpp"
#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/dp/bitset_dp_kernels.cuh"
#include "solver/frame.hpp"
#include "solver/gpu/solver_memory.cuh"

namespace ssum::detail {
namespace {

namespace dp = cuda_detail::dp;

// The cost model, fitted to bench_dp_cuda on an H200 (132 multiprocessors, 2026-12-02): wide
// passes move their bytes at 3.8 TB/s (avis n = 1000, every pass wide: 140 GB in 35 ms, 4.0
// TB/s; multiples of 3 with T = 9.5e8: 186 GB in 55 ms, 3.4 TB/s) plus 1 us per launch. A
// fused pass takes about 20 us plus 2 us per item for each wave of 528 resident blocks (4 per
// multiprocessor): pthree n = 10^4 and 10^5 (groups of 169 items) 0.37 ms per pass, T = 10^7
// with weights up to 4 10^4 (groups of 4) 29 us. Within a factor 2 on the instances measured.
constexpr double wide_bytes_per_second = 3.8e12;
constexpr double wide_launch_seconds = 1e-6;
constexpr double fused_pass_seconds = 20e-6;
constexpr double fused_item_seconds = 2e-6;
constexpr double fused_resident_blocks = 528;

// A chunk closes after this many words or passes: a few milliseconds of device work, so that
// cancellation and the early exit are seen soon and the launch queue never fills.
constexpr double chunk_words = 1u << 30;
constexpr std::size_t chunk_passes = 256;

struct dp_pass {
  std::uint64_t lo = 0, hi = 0;  // words written
  std::uint32_t begin = 0, count = 0;  // its items in dp_schedule::items
  unsigned halo = 0;  // fused: sum of q + 1 over its items
  bool fused = false;
};

struct dp_schedule {
  std::uint64_t bound = 0;
  std::size_t tables = 1;
  std::vector<std::uint64_t> weights;  // r.weights in 64 bits
  std::vector<dp::dp_item> items;      // in the order they are applied, table after table
  std::vector<dp_pass> passes[2];
  std::size_t counts[2] = {0, 0};  // items per table
};

// Table t's passes over the items `order` (positions in s.weights).
void plan_table(dp_schedule& s, std::vector<std::uint32_t> order, std::size_t t) {
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return s.weights[a] < s.weights[b];
  });
  const std::size_t base = s.items.size(), m = order.size();
  for (const std::uint32_t k : order) s.items.push_back({s.weights[k] / 64, std::uint32_t(s.weights[k] % 64), k});
  s.counts[t] = m;
  std::uint64_t prefix = 0, previous_low = ~std::uint64_t{0};  // nothing differs between the two bitsets yet
  for (std::size_t i = 0; i < m;) {
    dp_pass pass;
    pass.begin = std::uint32_t(base + i);
    const std::uint64_t low = s.items[base + i].q;  // ascending: the group's lowest word
    while (i < m && s.items[base + i].q + 1 <= dp::halo_words - pass.halo) {
      pass.halo += unsigned(s.items[base + i].q + 1);
      prefix = std::min(s.bound, prefix + s.weights[order[i]]);
      ++i;
    }
    pass.count = std::uint32_t(base + i - pass.begin);
    pass.fused = pass.count > 0;
    if (!pass.fused) {
      prefix = std::min(s.bound, prefix + s.weights[order[i]]);
      pass.count = 1;
      ++i;
    }
    pass.lo = std::min(previous_low, low);
    pass.hi = prefix / 64 + 1;
    previous_low = low;
    s.passes[t].push_back(pass);
  }
}

dp_schedule schedule_of(const reduction& r) {
  dp_schedule s;
  s.bound = std::uint64_t(r.bound);
  s.weights.resize(r.weights.size());
  for (std::size_t k = 0; k < s.weights.size(); ++k) s.weights[k] = std::uint64_t(r.weights[k]);
  std::vector<std::uint32_t> order[2];
  for (std::size_t k = 0; k < s.weights.size(); ++k) {
    order[r.zero_sum && r.negative[k] ? 1 : 0].push_back(std::uint32_t(k));
  }
  s.tables = r.zero_sum ? 2 : 1;
  for (std::size_t t = 0; t < s.tables; ++t) plan_table(s, std::move(order[t]), t);
  return s;
}

double pass_words(const dp_pass& pass) { return double(pass.hi - pass.lo); }

double fused_blocks(const dp_pass& pass) { return std::ceil(pass_words(pass) / dp::tile_words); }

// Bitset bytes a pass reads and writes: wide, two words read per word written (the third
// comes from L1); fused, the tiles and their halos read once and the tiles written.
double pass_bytes(const dp_pass& pass) {
  if (!pass.fused) return 24 * pass_words(pass);
  return 8 * (2 * pass_words(pass) + fused_blocks(pass) * pass.halo);
}

double pass_seconds(const dp_pass& pass) {
  const double memory = pass_bytes(pass) / wide_bytes_per_second;
  if (!pass.fused) return memory + wide_launch_seconds;
  const double waves = std::max(1.0, fused_blocks(pass) / fused_resident_blocks);
  return std::max(memory, waves * (fused_pass_seconds + fused_item_seconds * pass.count));
}

// Pinned host words the device's flags are copied into, one per chunk in flight.
class pinned_words {
 public:
  pinned_words() { SSUM_CUDA_CHECK(cudaMallocHost(&data_, 2 * sizeof(unsigned long long))); }
  ~pinned_words() { cudaFreeHost(data_); }
  pinned_words(const pinned_words&) = delete;
  pinned_words& operator=(const pinned_words&) = delete;
  unsigned long long read(std::size_t k) const { return static_cast<volatile unsigned long long*>(data_)[k]; }
  unsigned long long* at(std::size_t k) { return static_cast<unsigned long long*>(data_) + k; }

 private:
  void* data_ = nullptr;
};

class event_pair {
 public:
  event_pair() {
    for (cudaEvent_t& e : events_) SSUM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~event_pair() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  cudaEvent_t operator[](std::size_t k) const { return events_[k]; }

 private:
  cudaEvent_t events_[2] = {};
};

// Waits for `e`, polling cancellation (every 50 microseconds).
void wait_for(cudaEvent_t e, const solve_options& options) {
  for (;;) {
    const cudaError_t status = cudaEventQuery(e);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) SSUM_CUDA_CHECK(status);
    check_cancel(options);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

struct device_tables {
  std::uint64_t* bits[2][2] = {};
  std::uint32_t* first[2] = {};
  dp::dp_item* items = nullptr;
  std::uint64_t* weights = nullptr;
  std::uint32_t* chosen = nullptr;
  unsigned long long* flags = nullptr;  // [0] found, [1] lowest common word, [2] the walks' counts
};

// Runs every pass (until the bound is reached); returns the found flag and which bitset of
// each table holds its final state.
class pass_runner {
 public:
  pass_runner(const cuda& policy, const dp_schedule& s, const device_tables& d, const solve_options& options)
      : stream_(policy.stream), s_(s), d_(d), options_(options) {
    int device = 0;
    SSUM_CUDA_CHECK(cudaGetDevice(&device));
    SSUM_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device));
    for (std::size_t t = 0; t < s.tables; ++t) {
      for (const dp_pass& pass : s.passes[t]) total_words_ += pass_words(pass);
    }
  }

  unsigned long long run() {
    const std::uint64_t top = s_.bound / 64;
    for (std::size_t t = 0; t < s_.tables && !found_; ++t) {
      dp::dp_pass_args a{};
      a.first = d_.first[t];
      a.top = top;
      a.bound_bit = unsigned(s_.bound % 64);
      a.top_mask = a.bound_bit == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << a.bound_bit) - 1;
      a.stop_at_bound = s_.tables == 1;
      a.found = d_.flags;
      for (std::size_t k = 0; k < s_.passes[t].size() && !found_; ++k) {
        const dp_pass& pass = s_.passes[t][k];
        a.in = d_.bits[t][final_[t]];
        a.out = d_.bits[t][final_[t] ^ 1];
        a.pass = pass_number_++;
        launch(pass, a);
        final_[t] ^= 1;
        open_words_ += pass_words(pass);
        if (open_words_ >= chunk_words || ++open_passes_ >= chunk_passes || k + 1 == s_.passes[t].size()) close_chunk();
      }
    }
    if (chunks_ > 0) finish(chunks_ - 1);
    return found_;
  }

  unsigned final_bitset(std::size_t t) const { return final_[t]; }

 private:
  void launch(const dp_pass& pass, const dp::dp_pass_args& a) {
    const std::uint64_t words = pass.hi - pass.lo;
    if (pass.fused) {
      const auto blocks = unsigned((words + dp::tile_words - 1) / dp::tile_words);
      dp::shift_or_fused<<<blocks, dp::block_threads, 0, stream_>>>(a, pass.lo, pass.hi, d_.items + pass.begin,
                                                                   pass.count, pass.halo);
      SSUM_CUDA_CHECK_LAUNCH("shift_or_fused");
      return;
    }
    const std::uint64_t per_block = std::uint64_t(dp::block_threads) * dp::wide_unroll;
    const auto blocks = unsigned(std::min<std::uint64_t>((words + per_block - 1) / per_block,
                                                         std::uint64_t(multiprocessors_) * 8));
    dp::shift_or_wide<<<blocks, dp::block_threads, 0, stream_>>>(a, pass.lo, pass.hi, s_.items[pass.begin]);
    SSUM_CUDA_CHECK_LAUNCH("shift_or_wide");
  }

  // The chunk's flag to pinned memory and its event; then the previous chunk waited for, so
  // that at most two are in flight.
  void close_chunk() {
    const std::size_t slot = chunks_ % 2;
    SSUM_CUDA_CHECK(cudaMemcpyAsync(flags_.at(slot), d_.flags, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                    stream_));
    SSUM_CUDA_CHECK(cudaEventRecord(events_[slot], stream_));
    chunk_words_[slot] = open_words_;
    open_words_ = 0;
    open_passes_ = 0;
    ++chunks_;
    if (chunks_ >= 2) finish(chunks_ - 2);
  }

  void finish(std::size_t chunk) {
    if (chunk + 1 <= finished_) return;
    const std::size_t slot = chunk % 2;
    wait_for(events_[slot], options_);
    check_cancel(options_);
    finished_ = chunk + 1;
    if (const unsigned long long f = flags_.read(slot)) found_ = f;
    done_words_ += chunk_words_[slot];
    if (options_.on_progress && (done_words_ - reported_ >= total_words_ / 256 || found_)) {
      reported_ = done_words_;
      const double f = found_ ? 1.0 : std::min(1.0, done_words_ / std::max(1.0, total_words_));
      options_.on_progress(progress{"dp", f, f});
    }
  }

  cudaStream_t stream_;
  const dp_schedule& s_;
  const device_tables& d_;
  const solve_options& options_;
  int multiprocessors_ = 1;
  pinned_words flags_;
  event_pair events_;
  unsigned final_[2] = {0, 0};
  unsigned long long pass_number_ = 0, found_ = 0;
  std::size_t chunks_ = 0, finished_ = 0, open_passes_ = 0;
  double open_words_ = 0, chunk_words_[2] = {0, 0}, done_words_ = 0, total_words_ = 0, reported_ = -1;
};

template <class T>
T* upload(T* device, const std::vector<T>& host, cudaStream_t stream) {
  if (!host.empty()) {
    SSUM_CUDA_CHECK(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  return device;
}

template <class T>
T read_one(const T* device, cudaStream_t stream) {
  T v{};
  SSUM_CUDA_CHECK(cudaMemcpyAsync(&v, device, sizeof v, cudaMemcpyDeviceToHost, stream));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return v;
}

// Walks table t back from s into chosen[offset, offset + limit); returns the items.
std::vector<std::size_t> walk(const device_tables& d, std::size_t t, std::uint64_t s, std::size_t offset,
                              std::size_t limit, cudaStream_t stream) {
  auto* count = reinterpret_cast<std::uint32_t*>(d.flags + 2);
  dp::walk_back<<<1, 1, 0, stream>>>(d.first[t], d.weights, s, std::uint32_t(limit), d.chosen + offset, count);
  SSUM_CUDA_CHECK_LAUNCH("walk_back");
  const std::uint32_t c = read_one(count, stream);
  std::vector<std::uint32_t> items(c);
  if (c) SSUM_CUDA_CHECK(cudaMemcpyAsync(items.data(), d.chosen + offset, c * sizeof(std::uint32_t),
                                         cudaMemcpyDeviceToHost, stream));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::vector<std::size_t>(items.begin(), items.end());
}

solution solve_on_device(const cuda& policy, cuda_detail::device_memory& memory, const problem& p,
                         const reduction& r, const solve_options& options, dp_cuda_stats* stats) {
  const auto start = clock_type::now();
  check_cancel(options);
  const cudaStream_t stream = policy.stream;
  const std::size_t n = r.weights.size();
  solution result;
  result.algorithm = "dp";
  result.backend = "cuda";
  const double bytes = dp_cuda_planned_bytes(r);
  check_plan_fits("the dynamic program on CUDA device " + std::to_string(policy.device), n, bytes,
                  room_within(memory.available_bytes(), options));
  result.planned_bytes = std::uint64_t(bytes);
  const dp_schedule s = schedule_of(r);
  memory.reserve(bytes);

  const std::uint64_t words = s.bound / 64 + 1;
  device_tables d;
  for (std::size_t t = 0; t < s.tables; ++t) {
    for (std::uint64_t*& b : d.bits[t]) {
      b = memory.alloc_array<std::uint64_t>(words);
      SSUM_CUDA_CHECK(cudaMemsetAsync(b, 0, words * 8, stream));
      SSUM_CUDA_CHECK(cudaMemsetAsync(b, 1, 1, stream));  // bit 0: the empty subset
    }
    d.first[t] = memory.alloc_array<std::uint32_t>(std::size_t(s.bound) + 1);  // written where a bit is set
  }
  d.items = upload(memory.alloc_array<dp::dp_item>(std::max<std::size_t>(1, s.items.size())), s.items, stream);
  d.weights = upload(memory.alloc_array<std::uint64_t>(std::max<std::size_t>(1, n)), s.weights, stream);
  d.chosen = memory.alloc_array<std::uint32_t>(std::max<std::size_t>(1, n));
  d.flags = memory.alloc_array<unsigned long long>(4);
  SSUM_CUDA_CHECK(cudaMemsetAsync(d.flags, 0, 4 * sizeof(unsigned long long), stream));
  SSUM_CUDA_CHECK(cudaMemsetAsync(d.flags + 1, 0xff, sizeof(unsigned long long), stream));

  pass_runner runner(policy, s, d, options);
  const unsigned long long found = runner.run();
  result.seconds.search = seconds_since(start);
  if (stats) {
    *stats = {};
    const std::size_t ran = found ? std::size_t(found) : s.passes[0].size() + s.passes[1].size();
    std::size_t k = 0;
    for (std::size_t t = 0; t < s.tables; ++t) {
      for (const dp_pass& pass : s.passes[t]) {
        if (k++ >= ran) break;
        ++stats->passes;
        stats->fused_passes += pass.fused;
        stats->items += pass.count;
        stats->bitset_bytes += pass_bytes(pass);
      }
    }
  }

  const auto recover_start = clock_type::now();
  std::vector<std::size_t> chosen;
  const std::uint64_t top = s.bound / 64;
  if (!r.zero_sum) {
    const std::uint64_t top_word = found ? 0 : read_one(d.bits[0][runner.final_bitset(0)] + top, stream);
    result.feasible = found || ((top_word >> (s.bound % 64)) & 1);
    if (result.feasible) chosen = walk(d, 0, s.bound, 0, n, stream);
  } else {
    const std::uint64_t* plus = d.bits[0][runner.final_bitset(0)];
    const std::uint64_t* minus = d.bits[1][runner.final_bitset(1)];
    const auto blocks = unsigned(std::min<std::uint64_t>((words + 255) / 256, 4096));
    dp::lowest_common_word<<<blocks, 256, 0, stream>>>(plus, minus, words, d.flags + 1);
    SSUM_CUDA_CHECK_LAUNCH("lowest_common_word");
    const unsigned long long j = read_one(d.flags + 1, stream);
    if (j != ~0ull) {
      std::uint64_t both = read_one(plus + j, stream) & read_one(minus + j, stream);
      if (j == 0) both &= ~std::uint64_t{1};
      const std::uint64_t sum = j * 64 + unsigned(std::countr_zero(both));
      chosen = walk(d, 0, sum, 0, s.counts[0], stream);
      const std::vector<std::size_t> other = walk(d, 1, sum, s.counts[0], s.counts[1], stream);
      chosen.insert(chosen.end(), other.begin(), other.end());
      result.feasible = true;
    }
  }
  result.seconds.recover = seconds_since(recover_start);
  if (result.feasible) result.subset = map_back(p, r, chosen);
  if (options.on_progress) options.on_progress(progress{"dp", 1, 1});
  result.seconds.total = seconds_since(start);
  return result;
}

}  // namespace

double dp_cuda_seconds(const reduction& r) {
  if (r.bound > uint128(dp_most_sums)) return std::ldexp(1.0, 127);
  const dp_schedule s = schedule_of(r);
  double seconds = 0;
  for (std::size_t t = 0; t < s.tables; ++t) {
    for (const dp_pass& pass : s.passes[t]) seconds += pass_seconds(pass);
  }
  return seconds;
}

// The memory: solver_memory.cuh's kept allocation, as the other CUDA solvers.
solution solve_dp(const cuda& policy, const problem& p, const reduction& r, const solve_options& options,
                  dp_cuda_stats* stats) {
  cuda_detail::device_scope on(policy.device);
  cuda_detail::device_memory memory(policy.device, policy.stream);
  try {
    return solve_on_device(policy, memory, p, r, options, stats);
  } catch (...) {
    // Passes may still be running on the tables: let them finish before another solve takes
    // the arena. Errors here are the stream's, already being reported.
    (void)cudaStreamSynchronize(policy.stream);
    throw;
  }
}

}  // namespace ssum::detail

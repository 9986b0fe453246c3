#pragma once
// Internal: the two-list algorithm built from ssum's merge primitives alone, for any backend
// whose policy the primitives take (ssum::cuda for the device solver; ssum::cpu in the host
// tests, which check this glue against brute force where no device is present):
//   generation: each half's sorted subset sums by merging L with L + w, one item per pass
//               (merge_generated with plus_constant: L + w is never stored), two buffers
//               alternating so that the last pass lands in the list;
//   search:     instead of pruning block pairs and walking them, the balanced equal-pairs
//               merge of A with t - B reversed (find_pair_sum), which merge path splits
//               evenly, no pruning needed; count_pair_sums for --count;
//   last level: never built. The last item of each half stays out of its list (A', B'):
//               a + b = t has a' + b' = t - d for exactly one d in {0, wa, wb, wa + wb}, so
//               four searches over the half-size lists replace one over A and B. They read
//               as many bytes, while the last level of generation (a third of its traffic)
//               and half of the memory are saved;
//   certificate: the two found half-sums are read back and turned into a subset by a small
//               meet-in-the-middle (two_list_instance.hpp).
// Sums are 64-bit. Memory: where the lists live and how single values are read, given by
// the caller (see two_list_memory in src/cuda/two_list.cu and in the host tests).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "core/two_list_instance.hpp"
#include "ssum/errors.hpp"
#include "ssum/merge.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Bytes two_list_by_merging plans for n items: both lists of 64-bit sums and one half-size
/// merge buffer, plus the merges' tile splits (one 8-byte split per 2816 outputs on CUDA).
inline double two_list_merging_planned_bytes(std::size_t n) {
  const std::size_t na = n / 2, nb = n - na;
  // The lists hold all but the last item of each half (see "last level" above).
  const int la = int(na > 0 ? na - 1 : 0), lb = int(nb > 0 ? nb - 1 : 0);
  const double lists = std::ldexp(1.0, la) + std::ldexp(1.0, lb);
  const double scratch = std::ldexp(1.0, std::max(la, lb)) / 2;
  return (lists + scratch) * sizeof(std::uint64_t) * 1.003 + 4096;
}

/// Why the merging two-list cannot take `p` (its sums are 64-bit, its lists at most 2^32, its
/// counts 64-bit), or nullptr when it can. One rule for the solver and for backend::automatic.
inline const char* two_list_merging_refusal(const problem& p, const flipped_totals& totals, bool count) {
  if (totals.total_abs > std::numeric_limits<std::uint64_t>::max()) {
    return "the merging two-list needs the total |weight| below 2^64; use --backend cpu";
  }
  // Lists of 2^32 sums at most (n = 66: the lists leave out one item per half).
  if (p.weights.size() > 66) return "the merging two-list takes at most 66 items";
  // A count of 2^n subsets fits 64 bits only below n = 64.
  if (count && p.weights.size() >= 64) {
    return "--count from n = 64 on may exceed 64 bits on this backend; use --backend cpu";
  }
  return nullptr;
}

namespace merging {
using clock_type = std::chrono::steady_clock;
inline double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}
inline void report(const solve_options& options, const char* stage, double fraction) {
  if (options.on_progress) options.on_progress(progress{stage, fraction});
}
inline void check_cancel(const solve_options& options) {
  if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw interrupted();
}

// Sorted sums of all subsets of w[0, count) into `list` (2^count of them), through `scratch`
// (2^(count-1)): the first levels at once by the memory's write_first_sums (on CUDA one block
// in shared memory), the rest one item per merge; level k lives in the buffer of parity
// (count - k), so that level `count` is `list`.
template <class Policy, class Memory>
void generate_sums(const Policy& policy, Memory& memory, const std::uint64_t* w, std::size_t count, std::uint64_t* list,
                   std::uint64_t* scratch, const solve_options& options, const char* stage) {
  const std::size_t first = std::min(count, memory.first_sums_items());
  std::uint64_t* cur = (count - first) % 2 == 0 ? list : scratch;
  std::uint64_t* nxt = (count - first) % 2 == 0 ? scratch : list;
  memory.write_first_sums(w, first, cur);
  std::size_t size = std::size_t{1} << first;
  for (std::size_t item = first; item < count; ++item) {
    check_cancel(options);
    merge_generated(policy, cur, size, plus_constant<std::uint64_t>{cur, w[item]}, size, nxt);
    std::swap(cur, nxt);
    size *= 2;
    report(options, stage, double(item + 1) / double(count));
  }
}
}  // namespace merging

/// Memory (the caller's): void reserve(double bytes) before any alloc (the plan's total);
/// buffer alloc(std::size_t elements) with buffer::get() -> std::uint64_t*;
/// std::size_t first_sums_items() and void write_first_sums(const std::uint64_t* w,
/// std::size_t m, std::uint64_t* out) (out[0, 2^m) = the sorted subset sums of w[0, m),
/// m <= first_sums_items(), w on the host); std::uint64_t read(const std::uint64_t*,
/// std::size_t); void sync(); double available_bytes().
template <class Policy, class Memory>
solution two_list_by_merging(const Policy& policy, Memory& memory, const problem& p, const solve_options& options,
                             const char* backend_name) {
  using namespace merging;
  using sum_t = std::uint64_t;
  const auto start = clock_type::now();
  solution result;
  result.algorithm = "two-list";
  result.backend = backend_name;
  const std::size_t n = p.weights.size();
  const int128 target = p.target.value_or(0);

  const flipped_totals totals = totals_of(p);
  if (const char* why = two_list_merging_refusal(p, totals, options.count)) throw backend_unavailable(why);
  if (totals.out_of_range()) {
    if (options.count) result.count = 0;
    result.seconds.total = seconds_since(start);
    return result;
  }
  const flipped_instance<sum_t> inst = flip<sum_t>(p, target);
  const std::size_t na_items = inst.half, nb_items = n - inst.half;
  // The lists leave out the last item of each half; `held` items are merged in.
  const std::size_t held_a = na_items > 0 ? na_items - 1 : 0, held_b = nb_items > 0 ? nb_items - 1 : 0;
  const sum_t last_a = na_items > 0 ? inst.weights[na_items - 1] : 0, last_b = nb_items > 0 ? inst.weights[n - 1] : 0;
  const std::size_t size_a = std::size_t{1} << held_a, size_b = std::size_t{1} << held_b;

  // Memory, planned before allocating: both lists and one half-size merge buffer.
  const double bytes = two_list_merging_planned_bytes(n);
  double available = memory.available_bytes();
  if (options.memory_limit) available = std::min(available, double(options.memory_limit));
  if (bytes > available) {
    throw insufficient_memory("the two lists of " + std::to_string(n) + " items need " +
                                  std::to_string(static_cast<long long>(bytes / 1048576)) + " MiB; " +
                                  std::to_string(static_cast<long long>(available / 1048576)) + " MiB are available",
                              bytes, available);
  }
  result.planned_bytes = static_cast<std::uint64_t>(bytes);
  memory.reserve(bytes);

  auto t0 = clock_type::now();
  auto list_a = memory.alloc(size_a);
  auto list_b = memory.alloc(size_b);
  {
    auto scratch = memory.alloc(std::max(size_a, size_b) / 2 + 1);
    // The weights stay on the host: each pass takes its w as an argument.
    generate_sums(policy, memory, inst.weights.data(), held_a, list_a.get(), scratch.get(), options, "generate A");
    generate_sums(policy, memory, inst.weights.data() + na_items, held_b, list_b.get(), scratch.get(), options,
                  "generate B");
    memory.sync();
  }
  result.seconds.generate = seconds_since(t0);
  check_cancel(options);

  const sum_t* a = list_a.get();
  const sum_t* b = list_b.get();
  const sum_t t = inst.target;
  // The four shifts: (what the left-out items add to a, to b). A shift past t cannot match
  // (sums are non-negative) and would wrap around in unsigned arithmetic: skipped.
  struct shift {
    sum_t da, db;
  };
  const shift shifts[4] = {{0, 0}, {last_a, 0}, {0, last_b}, {last_a, last_b}};
  const int shift_count = (na_items > 0 ? 2 : 1) * (nb_items > 0 ? 2 : 1);
  const auto shift_at = [&](int k) { return na_items > 0 ? shifts[k] : shifts[2 * k]; };  // no a-shift without A items
  const auto fits = [&](const shift& s) { return s.da <= t && s.db <= t - s.da; };

  if (options.count) {
    t0 = clock_type::now();
    std::uint64_t c = 0;
    for (int k = 0; k < shift_count; ++k) {
      const shift s = shift_at(k);
      if (fits(s)) c += count_pair_sums(policy, a, size_a, b, size_b, t - s.da - s.db);
    }
    if (inst.exclude_trivial) c -= 1;  // the empty subset: in the total exactly once
    result.count = c;
    result.seconds.count = seconds_since(t0);
    report(options, "count", 1.0);
  }

  t0 = clock_type::now();
  bool found = false;
  sum_t found_a = 0, found_b = 0;
  for (int k = 0; k < shift_count && !found; ++k) {
    const shift s = shift_at(k);
    if (!fits(s)) continue;
    const sum_t want = t - s.da - s.db;
    pair_match m = find_pair_sum(policy, a, size_a, b, size_b, want);
    if (!m.found) continue;
    found_a = memory.read(a, m.i) + s.da;
    found_b = memory.read(b, m.j) + s.db;
    if (inst.exclude_trivial && found_a == inst.trivial_a && found_b == inst.trivial_b &&
        !has_other_subset_pair(inst, found_a, found_b)) {
      // The empty subset's pair, and no other subset behind these two sums: so a[m.i] is
      // unique in A' and every other match of this shift has another A' index.
      const std::size_t skip = m.i;
      m = find_pair_sum(policy, a, skip, b, size_b, want);
      if (!m.found) {
        m = find_pair_sum(policy, a + skip + 1, size_a - skip - 1, b, size_b, want);
        if (m.found) m.i += skip + 1;
      }
      if (!m.found) continue;
      found_a = memory.read(a, m.i) + s.da;
      found_b = memory.read(b, m.j) + s.db;
    }
    found = true;
  }
  result.seconds.search = seconds_since(t0);
  report(options, "search", 1.0);

  if (found) {
    t0 = clock_type::now();
    result.subset = recover_subset(inst, found_a, found_b, true);  // the host is idle meanwhile
    result.feasible = true;
    result.seconds.recover = seconds_since(t0);
    report(options, "recover", 1.0);
  }
  result.seconds.total = seconds_since(start);
  return result;
}

}  // namespace ssum::detail

#pragma once
// Internal: the two-list algorithm built from ssum's merge primitives alone, for any backend
// whose policy the primitives take (ssum::cuda for the device solver; ssum::cpu in the host
// tests, which check this glue against brute force where no device is present):
//   generation: each half's sorted subset sums by merging L with L + w, one item per pass
//               (merge_generated with plus_constant: L + w is never stored), two buffers
//               alternating so that the last pass lands in the list; the two lists' passes
//               side by side (merge_generated_batch) but for the last two of each;
//   search:     instead of pruning block pairs and walking them, the balanced equal-pairs
//               merge of A with t - B reversed (find_pair_sum), which merge path splits
//               evenly, no pruning needed; count_pair_sums for --count;
//   last level: never built. The last item of each half stays out of its list (A', B'):
//               a + b = t has a' + b' = t - d for exactly one d in {0, wa, wb, wa + wb}, so
//               four searches over the half-size lists replace one over A and B, done as one
//               find_any_pair_sum (on CUDA one launch of each kernel). The last level
//               of generation (a third of its traffic) and half of the memory are saved;
//   certificate: the two found half-sums are read back and turned into a subset by a small
//               meet-in-the-middle (two_list_instance.hpp).
// The stages are named functions below: generate_merged_lists, count_shifted, search_shifted,
// then recover_subset (recover.hpp); two_list_by_merging runs them in order.
// Sums are std::uint64_t while the total |weight| fits 64 bits and ssum::uint128 beyond (up to
// 2^127, as the host two-list): the wide lists cost twice the memory and traffic, so the
// narrow path stays for every instance that fits it. Memory: where the lists live and how
// single values are read, given by the caller (device_memory in
// src/solver/gpu/solver_memory.cuh; host_memory in the tests).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "solver/frame.hpp"
#include "solver/two_list/recover.hpp"
#include "solver/two_list/two_list_instance.hpp"
#include "ssum/errors.hpp"
#include "ssum/merge.hpp"
#include "ssum/pair_sum.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Bytes two_list_by_merging plans for n items with sums of sum_bytes each (8, or 16 where
/// the total |weight| passes 2^64: two_list_merging_sum_bytes): both lists and one half-size
/// merge buffer, plus the merges' tile splits (one 8-byte split per 2816 outputs on CUDA, at
/// most 0.3% of 8-byte sums).
inline double two_list_merging_planned_bytes(std::size_t n, std::size_t sum_bytes = sizeof(std::uint64_t)) {
  const std::size_t na = n / 2, nb = n - na;
  // The lists hold all but the last item of each half (see "last level" above).
  const int la = int(na > 0 ? na - 1 : 0), lb = int(nb > 0 ? nb - 1 : 0);
  const double lists = std::ldexp(1.0, la) + std::ldexp(1.0, lb);
  const double scratch = std::ldexp(1.0, std::max(la, lb)) / 2;
  return (lists + scratch) * double(sum_bytes) * 1.003 + 4096;
}

/// Bytes of one sum of the merging two-list for these totals: 8 while they fit 64 bits, else 16.
inline std::size_t two_list_merging_sum_bytes(const flipped_totals& totals) {
  return needs_wide_sums(totals) ? sizeof(uint128) : sizeof(std::uint64_t);
}

/// The plan for `p` with its totals (totals_of(p)): the sums' width taken into account.
inline double two_list_merging_planned_bytes(const problem& p, const flipped_totals& totals) {
  return two_list_merging_planned_bytes(p.weights.size(), two_list_merging_sum_bytes(totals));
}

/// Why the merging two-list cannot take `p` (its sums are at most 127 bits, its lists at most
/// 2^32, its counts 64-bit), or nullptr when it can. One rule for the solver and for
/// backend::automatic.
inline const char* two_list_merging_refusal(const problem& p, const flipped_totals& totals, bool count) {
  // totals_of refuses these already (input_error); kept so that the rule stands on its own.
  if (totals.total_abs > max_weight_total) {
    return "the merging two-list needs the total |weight| below 2^127";
  }
  // Lists of 2^32 sums at most (n = 66: the lists leave out one item per half).
  if (p.weights.size() > 66) return "the merging two-list takes at most 66 items";
  // A count of 2^n subsets fits 64 bits only below n = 64.
  if (count && p.weights.size() >= 64) {
    return "--count from n = 64 on may exceed 64 bits on this backend; use --backend cpu";
  }
  return nullptr;
}

// Progress in proportion to the work (ssum::progress): one unit per sum a merge writes, level
// k of a list weighing 2^(k+1); the count and the search a fifth of a unit per sum of both
// lists, as on the host.
struct merging_meter {
  const solve_options& options;
  double total = 1, done = 0;
  void report(const char* stage, double fraction) const {
    if (!options.on_progress) return;
    progress pr{stage, fraction};
    pr.overall = total > 0 ? std::min(1.0, done / total) : 1.0;
    options.on_progress(pr);
  }
};

// One list's generation: the sorted sums of all subsets of w[0, count) into `list` (2^count of
// them) through a scratch buffer: the first levels at once by the memory's write_first_sums
// (on CUDA one block in shared memory), the rest one item per merge; level k lives in the
// buffer of parity (count - k), so that level `count` is `list`.
template <class Sum>
struct list_generation {
  const Sum* w;
  std::size_t count;
  Sum* list;
  const char* stage;
  std::size_t level = 0;  // the level held in `cur`
  Sum* cur = nullptr;     // null until started
  Sum* nxt = nullptr;
};

// Starts g: its first levels into the buffer that their parity asks for, `scratch` or g.list.
template <class Memory, class Sum>
void start_generation(Memory& memory, list_generation<Sum>& g, Sum* scratch) {
  const std::size_t first = std::min(g.count, memory.template first_sums_items<Sum>());
  g.cur = (g.count - first) % 2 == 0 ? g.list : scratch;
  g.nxt = (g.count - first) % 2 == 0 ? scratch : g.list;
  memory.write_first_sums(g.w, first, g.cur);
  g.level = first;
}

// The next level of each of gs[0, k) in one merge_generated_batch (one launch pair on CUDA).
template <class Policy, class Sum>
void generate_level(const Policy& policy, list_generation<Sum>* const* gs, std::size_t k,
                    const solve_options& options, merging_meter& meter) {
  check_cancel(options);
  generated_merge<Sum, plus_constant<Sum>> merges[2];
  for (std::size_t x = 0; x < k; ++x) {
    const list_generation<Sum>& g = *gs[x];
    const std::size_t size = std::size_t{1} << g.level;
    merges[x] = {g.cur, size, plus_constant<Sum>{g.cur, g.w[g.level]}, size, g.nxt};
  }
  merge_generated_batch(policy, merges, k);
  for (std::size_t x = 0; x < k; ++x) {
    list_generation<Sum>& g = *gs[x];
    std::swap(g.cur, g.nxt);
    ++g.level;
    meter.done += std::ldexp(2.0, int(g.level - 1));
    meter.report(g.stage, generation_weight(g.level) / generation_weight(g.count));
  }
}

// Both lists through one `scratch` of 2^(max(count) - 1) elements. Their levels up to count - 2
// side by side, a merge of each per launch (small levels are latency-bound: together they
// overlap), each list's odd levels (at most 2^(count - 3) elements) in its own half of scratch;
// then the last two levels of A, then of B, each with all of scratch.
template <class Policy, class Memory, class Sum>
void generate_merged_lists(const Policy& policy, Memory& memory, list_generation<Sum>& a, list_generation<Sum>& b,
                           Sum* scratch, std::size_t scratch_size, const solve_options& options,
                           merging_meter& meter) {
  list_generation<Sum>* both[2] = {&a, &b};
  const std::size_t first = memory.template first_sums_items<Sum>();
  // Side by side only for lists with two levels or more past the first ones: their first
  // levels then land in the list or in (at most 2^(count - 3) elements of) their half.
  std::size_t joint = 0;
  list_generation<Sum>* side[2];
  for (list_generation<Sum>* g : both) {
    if (g->count >= first + 2) side[joint++] = g;
  }
  for (std::size_t x = 0; x < joint; ++x) start_generation(memory, *side[x], scratch + x * (scratch_size / 2));
  while (true) {
    list_generation<Sum>* ready[2];
    std::size_t k = 0;
    for (std::size_t x = 0; x < joint; ++x) {
      if (side[x]->level + 2 < side[x]->count) ready[k++] = side[x];
    }
    if (k == 0) break;
    generate_level(policy, ready, k, options, meter);
  }
  // Each list alone to its end (a side-by-side one holds level count - 2 in its list now).
  for (list_generation<Sum>* g : both) {
    if (g->cur == nullptr) {
      start_generation(memory, *g, scratch);
    } else {
      g->nxt = scratch;
    }
    while (g->level < g->count) generate_level(policy, &g, 1, options, meter);
  }
}
/// The half-size lists A' and B' (each half's last item left out) and the four shifts that
/// stand for the left-out items: a + b = t has a' + b' = t - da - db for exactly one shift.
template <class Sum>
struct shifted_lists {
  // (what the left-out items add to a, to b). A shift past t cannot match (sums are
  // non-negative) and would wrap around in unsigned arithmetic: skipped.
  struct shift {
    Sum da, db;
  };
  const Sum* a;
  std::size_t size_a;
  const Sum* b;
  std::size_t size_b;
  Sum t;
  std::size_t na_items, nb_items;
  shift shifts[4];
  int shift_count;

  shift at(int k) const { return na_items > 0 ? shifts[k] : shifts[2 * k]; }  // no a-shift without A items
  bool fits(const shift& s) const { return s.da <= t && s.db <= t - s.da; }
};

/// count: how many pairs of A' x B' match over all shifts (the flipped empty subset's pair
/// included); 64-bit, as two_list_merging_refusal requires.
template <class Policy, class Sum>
std::uint64_t count_shifted(const Policy& policy, const shifted_lists<Sum>& l, const solve_options& options) {
  std::uint64_t c = 0;
  for (int k = 0; k < l.shift_count; ++k) {
    check_cancel(options);  // between the (at most four) counts
    const typename shifted_lists<Sum>::shift s = l.at(k);
    if (l.fits(s)) c += count_pair_sums(policy, l.a, l.size_a, l.b, l.size_b, l.t - s.da - s.db);
  }
  return c;
}

/// What search_shifted found: two half-sums (the left-out items added back) with a + b = t.
template <class Sum>
struct merged_hit {
  bool found = false;
  Sum a = 0, b = 0;
};

/// search: a match over all shifts that is not only the empty subset's pair (zero-sum).
template <class Policy, class Memory, class Sum>
merged_hit<Sum> search_shifted(const Policy& policy, Memory& memory, const shifted_lists<Sum>& l,
                               const flipped_instance<Sum>& inst, const solve_options& options) {
  using sum_t = Sum;
  using shift = typename shifted_lists<Sum>::shift;
  const sum_t* a = l.a;
  const sum_t* b = l.b;
  const std::size_t size_a = l.size_a, size_b = l.size_b;
  bool found = false;
  sum_t found_a = 0, found_b = 0;
  // The shift of each search: the target of every shift that fits.
  shift searched[4];
  sum_t wants[4];
  std::size_t searches = 0;
  for (int k = 0; k < l.shift_count; ++k) {
    const shift s = l.at(k);
    if (!l.fits(s)) continue;
    searched[searches] = s;
    wants[searches++] = l.t - s.da - s.db;
  }
  const auto is_trivial = [&](sum_t fa, sum_t fb) {
    return inst.exclude_trivial && fa == inst.trivial_a && fb == inst.trivial_b && !has_other_subset_pair(inst, fa, fb);
  };
  check_cancel(options);  // after the count, before the search
  // All shifts in one search (on CUDA one launch of each kernel for the four).
  const any_pair_match any = find_any_pair_sum(policy, a, size_a, b, size_b, wants, searches);
  if (any.found) {
    found_a = memory.read(a, any.i) + searched[any.target].da;
    found_b = memory.read(b, any.j) + searched[any.target].db;
    found = !is_trivial(found_a, found_b);
  }
  // The empty subset's pair, with no other subset behind these two sums (only when it is to be
  // excluded, target 0): search the shifts one by one, each without that pair's a.
  for (std::size_t k = 0; any.found && !found && k < searches; ++k) {
    const shift s = searched[k];
    const sum_t want = wants[k];
    pair_match m = find_pair_sum(policy, a, size_a, b, size_b, want);
    if (!m.found) continue;
    found_a = memory.read(a, m.i) + s.da;
    found_b = memory.read(b, m.j) + s.db;
    if (is_trivial(found_a, found_b)) {
      // a[m.i] is unique in A' (no other subset has its sum), so every other match of this
      // shift has another A' index.
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
  return {found, found_a, found_b};
}

/// Memory (the caller's), for Sum = std::uint64_t and ssum::uint128: void reserve(double
/// bytes) before any alloc (the plan's total); alloc<Sum>(std::size_t elements) returning a
/// buffer whose get() is a Sum*; std::size_t first_sums_items<Sum>() and void
/// write_first_sums(const Sum* w, std::size_t m, Sum* out) (out[0, 2^m) = the sorted subset
/// sums of w[0, m), m <= first_sums_items<Sum>(), w on the host); Sum read(const Sum*,
/// std::size_t); void sync(); double available_bytes().
/// The whole search in sums of Sum, once the refusal and the out-of-range answer are past
/// (two_list_by_merging picks Sum). `start`: when the solve began.
template <class Sum, class Policy, class Memory>
solution two_list_merging_in(const Policy& policy, Memory& memory, const problem& p, const flipped_totals& totals,
                             const solve_options& options, const char* backend_name, unsigned host_threads,
                             clock_type::time_point start) {
  using sum_t = Sum;
  const std::size_t n = p.weights.size();
  const bool two_host_threads = host_threads != 1;
  solution result;
  result.algorithm = "two-list";
  result.backend = backend_name;
  result.threads = two_host_threads ? 2 : 1;
  const flipped_instance<sum_t> inst = flip<sum_t>(p, totals.target);
  const std::size_t na_items = inst.half, nb_items = n - inst.half;
  // The lists leave out the last item of each half; `held` items are merged in.
  const std::size_t held_a = na_items > 0 ? na_items - 1 : 0, held_b = nb_items > 0 ? nb_items - 1 : 0;
  const sum_t last_a = na_items > 0 ? inst.weights[na_items - 1] : 0, last_b = nb_items > 0 ? inst.weights[n - 1] : 0;
  const std::size_t size_a = std::size_t{1} << held_a, size_b = std::size_t{1} << held_b;

  // Memory, planned before allocating: both lists and one half-size merge buffer.
  const double bytes = two_list_merging_planned_bytes(n, sizeof(sum_t));
  check_plan_fits("the two-list algorithm", n, bytes, room_within(memory.available_bytes(), options));
  result.planned_bytes = static_cast<std::uint64_t>(bytes);
  memory.reserve(bytes);

  // The first levels (written at once) weigh nothing here: they are 2^11 sums at most on CUDA.
  const double walk_weight = 0.2 * (double(size_a) + double(size_b));
  merging_meter meter{options};
  meter.total = generation_weight(held_a) + generation_weight(held_b) + walk_weight * (options.count ? 2 : 1);
  auto t0 = clock_type::now();
  auto list_a = memory.template alloc<sum_t>(size_a);
  auto list_b = memory.template alloc<sum_t>(size_b);
  {
    const std::size_t scratch_size = std::max(size_a, size_b) / 2 + 1;
    auto scratch = memory.template alloc<sum_t>(scratch_size);
    // The weights stay on the host: each pass takes its w as an argument.
    list_generation<sum_t> gen_a{inst.weights.data(), held_a, list_a.get(), "generate A"};
    list_generation<sum_t> gen_b{inst.weights.data() + na_items, held_b, list_b.get(), "generate B"};
    generate_merged_lists(policy, memory, gen_a, gen_b, scratch.get(), scratch_size, options, meter);
    meter.done = generation_weight(held_a) + generation_weight(held_b);  // the first levels too
    memory.sync();
  }
  result.seconds.generate = seconds_since(t0);
  check_cancel(options);

  const sum_t t = inst.target;
  const shifted_lists<sum_t> lists{list_a.get(), size_a, list_b.get(), size_b, t, na_items, nb_items,
                                   {{0, 0}, {last_a, 0}, {0, last_b}, {last_a, last_b}},
                                   (na_items > 0 ? 2 : 1) * (nb_items > 0 ? 2 : 1)};

  if (options.count) {
    t0 = clock_type::now();
    std::uint64_t c = count_shifted(policy, lists, options);
    if (inst.exclude_trivial) c -= 1;  // the empty subset: in the total exactly once
    result.count = c;
    result.seconds.count = seconds_since(t0);
    meter.done += walk_weight;
    meter.report("count", 1.0);
  }

  t0 = clock_type::now();
  const merged_hit<sum_t> hit = search_shifted(policy, memory, lists, inst, options);
  result.seconds.search = seconds_since(t0);
  meter.done = meter.total;
  meter.report("search", 1.0);

  if (hit.found) {
    t0 = clock_type::now();
    result.subset = recover_subset(inst, hit.a, hit.b, two_host_threads);  // the host is idle meanwhile
    result.feasible = true;
    result.seconds.recover = seconds_since(t0);
    meter.report("recover", 1.0);
  }
  result.seconds.total = seconds_since(start);
  return result;
}

/// The merging two-list on `policy` over `memory` (see two_list_merging_in): sums of 64 bits
/// while the total |weight| fits them, of 128 bits beyond.
/// totals: totals_of(p), computed once by the caller. host_threads: the host's share, the
/// certificate's two halves side by side (0 or 2 and more) or one after the other (1).
template <class Policy, class Memory>
solution two_list_by_merging(const Policy& policy, Memory& memory, const problem& p, const flipped_totals& totals,
                             const solve_options& options, const char* backend_name, unsigned host_threads = 0) {
  const auto start = clock_type::now();
  if (const char* why = two_list_merging_refusal(p, totals, options.count)) throw backend_unavailable(why);
  if (totals.out_of_range()) return out_of_range_answer("two-list", backend_name, 0, options, start);
  if (needs_wide_sums(totals)) {
    return two_list_merging_in<uint128>(policy, memory, p, totals, options, backend_name, host_threads, start);
  }
  return two_list_merging_in<std::uint64_t>(policy, memory, p, totals, options, backend_name, host_threads, start);
}

/// The same, computing the totals (tests and callers outside ssum::solve).
template <class Policy, class Memory>
solution two_list_by_merging(const Policy& policy, Memory& memory, const problem& p, const solve_options& options,
                             const char* backend_name) {
  return two_list_by_merging(policy, memory, p, totals_of(p), options, backend_name);
}

}  // namespace ssum::detail

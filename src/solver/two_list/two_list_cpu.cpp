// The parallel two-list algorithm on the host (Horowitz and Sahni 1974; parallel form of
// Li et al. as implemented on GPUs by Wan, Li, Liu, Li, CCPE 27:119-145, 2015), in the
// paper's three stages:
//   generation: the sorted subset sums of each half, built by merging L with L + w for each
//               item, every merge split by merge path among the threads;
//   pruning:    both lists cut into k blocks; a block pair survives only when the target
//               lies between its smallest and largest pair sum (a staircase, <= 2k-1 pairs);
//   search:     the surviving pairs are walked with Horowitz-Sahni's two pointers, in parallel,
//               stopping every thread once one finds a match.
// Weights are made non-negative first and a found pair of sums is turned back into a subset
// afterwards (solver/two_list/two_list_instance.hpp), so sums above the target are dropped while the
// lists are generated.
#include "solver/two_list/two_list_cpu.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "solver/two_list/two_list_instance.hpp"
#include "ssum/detail/cpu_merge.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// The whole solve's work, for progress that is proportional to it (ssum::progress): in units
// of one sum written by a merge; level k of a list's generation writes up to 2^(k+1) sums, a
// search step over both lists costs about a fifth of that (measured at n = 48: 1.8 s for 2^26
// merged sums, 0.17 s for 2^25 walk steps), a count step (one walk, no lanes) twice as much.
constexpr double walk_step_weight = 0.2, count_step_weight = 0.4;

struct work_meter {
  const solve_options& options;
  double total = 1;
  double done = 0;  // units of the stages finished
  // Reports `stage`, `units` of its `stage_units` done.
  void report(const char* stage, double units, double stage_units) const {
    if (!options.on_progress) return;
    progress pr{stage, stage_units > 0 ? std::min(1.0, units / stage_units) : 1.0};
    pr.overall = total > 0 ? std::min(1.0, (done + units) / total) : 1.0;
    options.on_progress(pr);
  }
  void finish_stage(const char* stage, double stage_units) {
    report(stage, stage_units, stage_units);
    done += stage_units;
  }
};

// What a list of `items` items weighs in generation: 2 + 4 + ... + 2^items.
double generation_weight(std::size_t items) { return std::ldexp(2.0, int(items)) - 2; }

// The instance after the flip: every weight non-negative, target adjusted.
// Large lists live in memory backed by transparent huge pages where the kernel allows it:
// with 4 KiB pages, first-touch page faults cost as much as the merges themselves.
template <class Sum>
struct huge_array {
  struct release {
    void operator()(Sum* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<Sum[], release> data;

  explicit huge_array(std::size_t count) {
    constexpr std::size_t huge_page = std::size_t{2} << 20;
    const std::size_t bytes = (std::max<std::size_t>(1, count) * sizeof(Sum) + huge_page - 1) / huge_page * huge_page;
    data.reset(static_cast<Sum*>(std::aligned_alloc(huge_page, bytes)));
    if (!data) throw std::bad_alloc();
    madvise(data.get(), bytes, MADV_HUGEPAGE);  // advice only: failure just means small pages
  }
  Sum* get() const noexcept { return data.get(); }
  void reset() noexcept { data.reset(); }
};

// Lanes per thread in the merges (ssum's host merge) and in the search walks below.
constexpr int lanes_per_thread = detail::cpu_merge_lanes_per_thread;

// What the threads of one generation share: the cancel decision, chunks of the current
// level done (for progress) and the work meter, whose `done` only the reporting thread moves.
struct generation_shared {
  std::atomic<bool> cancelled{false};
  std::atomic<std::size_t> chunks_done{0};
  work_meter& meter;
};

// Sums one chunk of a level merges: 2^21 (about 10 ms of one thread), so that a thread looks
// at the cancel flag and progress moves many times within a level of 2^29 sums.
constexpr std::size_t chunk_sums = std::size_t{1} << 21;

// Sorted sums of all subsets of w[0, count) that do not exceed `limit`, built level by
// level: out = merge(L, L + w) with both inputs cut at `limit`. Two buffers alternate so
// that the final level lands in `list`; the other one needs half the final size.
// Called by every thread of the caller's parallel region: one region for all levels, with
// barriers between levels, because waking a sleeping team for each level costs
// milliseconds on a virtual machine, more than a level's merge. Returns the same size to
// every thread, or 0 to all once `shared.cancelled` is raised.
template <class Sum>
std::size_t generate_sums(const Sum* w, std::size_t count, Sum limit, Sum* list, Sum* scratch,
                          const solve_options& options, const char* stage, generation_shared& shared) {
  std::atomic<bool>& cancelled = shared.cancelled;
  work_meter& meter = shared.meter;
  // Level `count - 1` must write into `list`: start in whichever buffer makes that so.
  Sum* cur = (count % 2 == 0) ? list : scratch;
  Sum* nxt = (count % 2 == 0) ? scratch : list;
  const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
  if (cancelled.load()) return 0;  // raised in an earlier call: every thread sees it
  if (omp_get_thread_num() == 0) cur[0] = 0;
#pragma omp barrier
  std::size_t size = 1;
  for (std::size_t item = 0; item < count; ++item) {
    const Sum wi = w[item];  // every thread derives the same level bounds on its own
    const Sum* in = cur;
    const std::size_t na = size;  // every element of L is <= limit already
    const std::size_t nb =
        wi > limit ? 0 : static_cast<std::size_t>(std::upper_bound(in, in + size, limit - wi) - in);
    const std::size_t total = na + nb;
    const auto b_at = [in, wi](std::size_t j) { return in[j] + wi; };
    // Merge path splits the level into chunks of lanes_per_thread lanes each. Chunks are
    // dealt out dynamically, several per thread, so that a thread slowed down by another
    // process on its core does not hold the whole level up; at most chunk_sums each, so that
    // every thread polls the cancel flag often. Small levels are one chunk.
    const std::size_t chunks =
        total < (std::size_t{1} << 15) ? 1 : std::max(threads * 8, (total + chunk_sums - 1) / chunk_sums);
    const double level_weight = std::ldexp(2.0, int(item)), list_weight = generation_weight(count);
    const detail::merge_keys_io<Sum, const Sum*, decltype(b_at)> io{in, b_at, nxt};
#pragma omp for schedule(dynamic, 1)
    for (std::size_t c = 0; c < chunks; ++c) {
      // A cancelled level is left unfinished: its output is never read.
      if (cancelled.load(std::memory_order_relaxed)) continue;
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
        cancelled.store(true);
        continue;
      }
      detail::merge_lane lane[lanes_per_thread];
      detail::cpu_merge_cut<lanes_per_thread>(static_cast<unsigned>(c), static_cast<unsigned>(chunks), in, na, b_at,
                                              nb, std::less<Sum>{}, lane);
      detail::cpu_merge_lanes<lanes_per_thread>(io, lane, std::less<Sum>{});
      const std::size_t done = shared.chunks_done.fetch_add(1, std::memory_order_relaxed) + 1;
      // Within a long level the team's first thread reports (never two threads at once).
      if (chunks > 1 && omp_get_thread_num() == 0) {
        meter.report(stage, generation_weight(item) + level_weight * double(done) / double(chunks), list_weight);
      }
    }
    std::swap(cur, nxt);
    size = total;
    // One thread reports and looks at the cancel flag; the barrier ending `single` makes
    // the decision visible to all.
#pragma omp single
    {
      shared.chunks_done.store(0, std::memory_order_relaxed);
      if (item + 1 < count) {
        meter.report(stage, generation_weight(item + 1), list_weight);
      } else {
        meter.finish_stage(stage, list_weight);
      }
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) cancelled.store(true);
    }
    if (cancelled.load()) return 0;
  }
  return size;
}

// One block pair of the pruning stage: list A rows [a_lo, a_hi), list B rows [b_lo, b_hi).
struct block_pair {
  std::size_t a_lo, a_hi, b_lo, b_hi;
};

// Pruning (Li et al.; Wan et al. section 2): a pair (A_i, B_j) can hold a + b = t only if
// min A_i + min B_j <= t <= max A_i + max B_j. For a fixed A block the surviving B blocks are
// contiguous and move down as i grows: the staircase.
template <class Sum>
std::vector<block_pair> prune_block_pairs(const Sum* a, std::size_t na, const Sum* b, std::size_t nb,
                                          Sum t, std::size_t k) {
  k = std::max<std::size_t>(1, std::min({k, na, nb}));
  const auto a_lo = [&](std::size_t i) { return na * i / k; };
  const auto b_lo = [&](std::size_t j) { return nb * j / k; };
  std::vector<block_pair> pairs;
  for (std::size_t i = 0; i < k; ++i) {
    const Sum a_min = a[a_lo(i)], a_max = a[a_lo(i + 1) - 1];
    // First block j whose largest element reaches t - a_max; last whose smallest is <= t - a_min.
    std::size_t first = 0, last = k;  // [first, last)
    if (t >= a_max) {
      const Sum need = t - a_max;
      std::size_t lo = 0, hi = k;
      while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (b[b_lo(mid + 1) - 1] < need) lo = mid + 1; else hi = mid;
      }
      first = lo;
    }
    if (t < a_min) break;  // later blocks start higher still
    const Sum room = t - a_min;
    {
      std::size_t lo = 0, hi = k;
      while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (b[b_lo(mid)] <= room) lo = mid + 1; else hi = mid;
      }
      last = lo;
    }
    for (std::size_t j = first; j < last; ++j) pairs.push_back({a_lo(i), a_lo(i + 1), b_lo(j), b_lo(j + 1)});
  }
  return pairs;
}

// What the search threads share: the lists, the target and the first match found.
template <class Sum>
struct search_state {
  const Sum* a;
  std::size_t na;
  const Sum* b;
  std::size_t nb;
  Sum t;
  const flipped_instance<Sum>& inst;
  std::atomic<bool> stop{false}, found{false}, cancelled{false};
  std::mutex lock{};
  Sum found_a = 0, found_b = 0;

  // The zero-sum trivial pair counts only if one of its sums has another subset behind it.
  bool trivial_only(std::size_t ia, std::size_t jb) const {
    if (!inst.exclude_trivial || a[ia] != inst.trivial_a || b[jb] != inst.trivial_b) return false;
    const bool dup_a = (ia > 0 && a[ia - 1] == a[ia]) || (ia + 1 < na && a[ia + 1] == a[ia]);
    const bool dup_b = (jb > 0 && b[jb - 1] == b[jb]) || (jb + 1 < nb && b[jb + 1] == b[jb]);
    return !dup_a && !dup_b;
  }
  void record(std::size_t ia, std::size_t jb) {
    std::lock_guard<std::mutex> guard(lock);
    if (!found.load()) {
      found_a = a[ia];
      found_b = b[jb];
      found.store(true);
      stop.store(true);
    }
  }
};

// Horowitz-Sahni's walk over one block pair: A upwards from ia, B downwards from jb - 1.
struct walk {
  std::size_t ia, a_hi, jb, b_lo;  // jb is one past the B row under the pointer
  std::size_t left() const { return std::min(a_hi - ia, jb - b_lo); }
};

// Walks K block pairs in lockstep, for the same reason the host merge interleaves lanes: one
// walk is a chain of dependent loads. A step with no match moves exactly one pointer, so
// min(left) steps need no bounds checks; a match leaves its walk in place until the round
// ends, and is then checked (and skipped when it is only the zero-sum trivial pair).
template <int K, class Sum>
void walk_lanes(search_state<Sum>& st, walk* lane, const std::atomic<bool>* cancel) {
  if constexpr (K > 0) {
    const Sum* a = st.a;
    const Sum* b = st.b;
    const Sum t = st.t;
    for (;;) {
      if (st.stop.load(std::memory_order_relaxed)) return;
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        st.cancelled.store(true);
        st.stop.store(true);
        return;
      }
      int dry;
      std::size_t steps = detail::lockstep_rounds<K>(lane, 4096, dry);  // 4096: rounds between flag looks
      if (steps == 0) {
        std::swap(lane[dry], lane[K - 1]);
        walk_lanes<K - 1>(st, lane, cancel);
        return;
      }
      bool hit = false;
      walk l[K];  // locals stay in registers (see cpu_merge_lanes)
      for (int k = 0; k < K; ++k) l[k] = lane[k];
      for (; steps && !hit; --steps) {
        for (int k = 0; k < K; ++k) {  // unrolled: K is a constant
          const Sum s = a[l[k].ia] + b[l[k].jb - 1];
          hit |= s == t;
          l[k].ia += s < t;
          l[k].jb -= t < s;
        }
      }
      for (int k = 0; k < K; ++k) lane[k] = l[k];
      if (hit) {
        for (int k = 0; k < K; ++k) {
          walk& w = lane[k];
          if (w.left() == 0 || a[w.ia] + b[w.jb - 1] != t) continue;  // ran dry, or no match here
          if (!st.trivial_only(w.ia, w.jb - 1)) {
            st.record(w.ia, w.jb - 1);
            return;
          }
          ++w.ia;  // the trivial pair's sums are unique: step past both
          --w.jb;
        }
      }
    }
  }
}

// The number of index pairs (i, j) in one block pair with a[i] + b[j] == t: Horowitz-Sahni's
// walk, but a match multiplies the run of equal a's by the run of equal b's (both clipped to
// the block pair) and steps past both. Every (i, j) lies in exactly one block pair and pruning
// only drops pairs that cannot match, so the sum over the surviving pairs is exact.
// (Not ssum::count_pair_sums: that one counts in 64 bits and needs std::numeric_limits of its
// type, which strict C++20 does not give unsigned __int128, the wide lists' sum type.)
// Stops early (a partial count) once `cancel` is raised: it looks every 2^16 steps.
template <class Sum>
uint128 count_block_pair(const Sum* a, const Sum* b, const block_pair& bp, Sum t, const std::atomic<bool>* cancel) {
  uint128 count = 0;
  std::size_t i = bp.a_lo, j = bp.b_hi;  // j: one past the B row under the pointer
  for (std::uint32_t steps = 0; i < bp.a_hi && j > bp.b_lo; ++steps) {
    if ((steps & 0xffffu) == 0xffffu && cancel && cancel->load(std::memory_order_relaxed)) return count;
    const Sum s = a[i] + b[j - 1];
    if (s < t) {
      ++i;
    } else if (t < s) {
      --j;
    } else {
      std::size_t ra = 1, rb = 1;
      while (i + ra < bp.a_hi && a[i + ra] == a[i]) ++ra;
      while (j - rb > bp.b_lo && b[j - 1 - rb] == b[j - 1]) ++rb;
      count += uint128(ra) * rb;
      i += ra;
      j -= rb;
    }
  }
  return count;
}

template <class Sum>
solution solve_flipped(const cpu& policy, const flipped_instance<Sum>& inst, const solve_options& options) {
  const auto start = clock_type::now();
  solution result;
  result.algorithm = "two-list";
  result.backend = "cpu";
  result.threads = resolved_threads(policy);
  const unsigned threads = result.threads;

  const std::size_t n = inst.weights.size();
  const std::size_t na_items = inst.half, nb_items = n - inst.half;
  const std::size_t cap_a = std::size_t{1} << na_items, cap_b = std::size_t{1} << nb_items;

  // The work ahead, for progress: both generations, the count, the search (the walks over
  // both lists, at most; a search that finds a match early ends sooner).
  const double walk_weight = walk_step_weight * (double(cap_a) + double(cap_b));
  const double count_weight = options.count ? count_step_weight * (double(cap_a) + double(cap_b)) : 0;
  work_meter meter{options};
  meter.total = generation_weight(na_items) + generation_weight(nb_items) + count_weight + walk_weight;

  // Generation. Peak memory: list A, list B and one half-size scratch buffer.
  auto t0 = clock_type::now();
  huge_array<Sum> list_a(cap_a), list_b(cap_b);
  std::size_t size_a = 0, size_b = 0;
  {
    huge_array<Sum> scratch(cap_b / 2);
    generation_shared shared{{false}, {0}, meter};
    // Lists below 2^16 sums are generated faster by one thread than a team can synchronise.
#pragma omp parallel num_threads(cap_b < (std::size_t{1} << 16) ? 1u : threads)
    {
      const std::size_t sa = generate_sums(inst.weights.data(), na_items, inst.target, list_a.get(), scratch.get(),
                                           options, "generate A", shared);
      const std::size_t sb = generate_sums(inst.weights.data() + na_items, nb_items, inst.target, list_b.get(),
                                           scratch.get(), options, "generate B", shared);
      if (omp_get_thread_num() == 0) size_a = sa, size_b = sb;
    }
    if (shared.cancelled.load()) throw interrupted();
  }
  result.seconds.generate = seconds_since(t0);

  // Pruning: enough blocks per thread that dynamic scheduling evens out the work.
  t0 = clock_type::now();
  const Sum* a = list_a.get();
  const Sum* b = list_b.get();
  const Sum t = inst.target;
  const std::vector<block_pair> pairs = prune_block_pairs(a, size_a, b, size_b, t, std::size_t{64} * threads);
  result.seconds.prune = seconds_since(t0);
  meter.finish_stage("prune", 0);

  // Counting (on request): every block pair, in parallel; per-thread partial sums because
  // OpenMP has no reduction over 128-bit integers.
  if (options.count) {
    t0 = clock_type::now();
    const unsigned team = size_a + size_b < (std::size_t{1} << 15) ? 1u : threads;
    std::vector<uint128> partial(team, 0);
    std::atomic<bool> cancelled{false};
    std::atomic<std::size_t> pairs_done{0};
    meter.report("count", 0, count_weight);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
    for (std::size_t q = 0; q < pairs.size(); ++q) {
      if (cancelled.load(std::memory_order_relaxed)) continue;
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
        cancelled.store(true);
        continue;
      }
      partial[omp_get_thread_num()] += count_block_pair(a, b, pairs[q], t, options.cancel);
      const std::size_t done = pairs_done.fetch_add(1) + 1;
      if (omp_get_thread_num() == 0) {
        meter.report("count", count_weight * double(done) / double(pairs.size()), count_weight);
      }
    }
    // A block pair cut short by the flag leaves a partial count: look at the flag itself.
    if (cancelled.load() || (options.cancel && options.cancel->load())) throw interrupted();
    uint128 total = 0;
    for (const uint128 c : partial) total += c;
    // Without a target the empty subset does not count; it always sums to 0, so it is in the
    // total exactly once (as the pair of the flipped items' sums).
    if (inst.exclude_trivial) total -= 1;
    result.count = total;
    result.seconds.count = seconds_since(t0);
    meter.finish_stage("count", count_weight);
  }

  // Search.
  t0 = clock_type::now();
  search_state<Sum> st{a, size_a, b, size_b, t, inst, {false}, {false}, {false}, {}, 0, 0};
  const std::size_t groups = (pairs.size() + lanes_per_thread - 1) / lanes_per_thread;
  std::atomic<std::size_t> groups_done{0};
  // Short lists are walked faster than a team of threads wakes up.
  const unsigned team = size_a + size_b < (std::size_t{1} << 15) ? 1u : threads;
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
  for (std::size_t g = 0; g < groups; ++g) {
    if (st.stop.load(std::memory_order_relaxed)) continue;
    walk lane[lanes_per_thread];
    for (std::size_t k = 0; k < lanes_per_thread; ++k) {
      const std::size_t q = g * lanes_per_thread + k;
      lane[k] = q < pairs.size() ? walk{pairs[q].a_lo, pairs[q].a_hi, pairs[q].b_hi, pairs[q].b_lo} : walk{0, 0, 0, 0};
    }
    walk_lanes<lanes_per_thread>(st, lane, options.cancel);
    const std::size_t done = groups_done.fetch_add(1) + 1;
    if (omp_get_thread_num() == 0) meter.report("search", walk_weight * double(done) / double(groups), walk_weight);
  }
  if (st.cancelled.load()) throw interrupted();
  result.seconds.search = seconds_since(t0);
  meter.finish_stage("search", walk_weight);
  const bool found = st.found.load();
  const Sum found_a = st.found_a, found_b = st.found_b;

  // Certificate: which subsets produced the two sums.
  if (found) {
    t0 = clock_type::now();
    list_a.reset();
    list_b.reset();
    result.subset = recover_subset(inst, found_a, found_b, threads > 1);
    result.feasible = true;
    result.seconds.recover = seconds_since(t0);
    meter.finish_stage("recover", 0);
  }
  result.seconds.total = seconds_since(start);
  return result;
}

// The memory plan, in one place: list A, list B and the merge buffer of half of B's size, in
// 64-bit sums, or 128-bit ones when the total absolute weight does not fit in 64 bits.
struct two_list_plan {
  flipped_totals totals;  // total_abs: the largest flipped sum
  bool wide = false;
  double bytes = 0;  // double: a plan for large n can exceed 2^64 bytes
};

two_list_plan plan_two_list(const problem& p) {
  two_list_plan plan;
  plan.totals = totals_of(p);  // throws when the total reaches 2^127
  plan.wide = plan.totals.total_abs > uint128(UINT64_MAX);
  const std::size_t na = p.weights.size() / 2, nb = p.weights.size() - na;
  const double elements = std::ldexp(1.0, int(na)) + 1.5 * std::ldexp(1.0, int(nb));
  plan.bytes = elements * double(plan.wide ? sizeof(uint128) : sizeof(std::uint64_t));
  return plan;
}

}  // namespace

solution solve_two_list(const cpu& policy, const problem& p, const solve_options& options) {
  const auto start = clock_type::now();
  const std::size_t n = p.weights.size();
  const int128 target = p.target.value_or(0);

  // Quick answers that need no lists: the flipped target must lie in [0, sum |w|].
  const two_list_plan plan = plan_two_list(p);
  const bool out_of_range = plan.totals.out_of_range();
  const double bytes = plan.bytes;
  if (out_of_range) {
    solution result;
    if (options.count) result.count = 0;
    result.algorithm = "two-list";
    result.backend = "cpu";
    result.threads = resolved_threads(policy);
    result.seconds.total = std::chrono::duration<double>(clock_type::now() - start).count();
    return result;
  }
  const double available = host_plan_room(options.memory_limit);
  if (n > 120 || bytes > available) {
    throw insufficient_memory::needs("the two-list algorithm for n = " + std::to_string(n), bytes, available);
  }
  solution result = plan.wide ? solve_flipped(policy, flip<uint128>(p, target), options)
                              : solve_flipped(policy, flip<std::uint64_t>(p, target), options);
  result.planned_bytes = static_cast<std::uint64_t>(bytes);
  result.seconds.total = seconds_since(start);
  return result;
}

}  // namespace ssum::detail

namespace ssum {

double two_list_planned_bytes(const problem& p) { return detail::plan_two_list(p).bytes; }

}  // namespace ssum

// The search stage of the host two-list (two_list_cpu.hpp): the surviving block pairs walked
// with Horowitz-Sahni's two pointers, in parallel, every thread stopping once one finds a
// match; and the count (--count), the same walk over every block pair.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "solver/two_list/recover.hpp"
#include "solver/two_list/two_list_cpu.hpp"
#include "ssum/detail/cpu_merge.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

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

}  // namespace

template <class Sum>
uint128 count_matches(const Sum* a, std::size_t size_a, const Sum* b, std::size_t size_b, Sum t,
                      const std::vector<block_pair>& pairs, unsigned threads, const solve_options& options,
                      work_meter& meter, double count_weight) {
  // Every block pair, in parallel; per-thread partial sums because OpenMP has no reduction
  // over 128-bit integers.
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
  return total;
}

template <class Sum>
search_hit<Sum> search(const Sum* a, std::size_t size_a, const Sum* b, std::size_t size_b,
                       const flipped_instance<Sum>& inst, const std::vector<block_pair>& pairs, unsigned threads,
                       const solve_options& options, work_meter& meter, double walk_weight) {
  const Sum t = inst.target;
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
  return {st.found.load(), st.found_a, st.found_b};
}

#define SSUM_TWO_LIST_SEARCH(Sum)                                                                                  \
  template uint128 count_matches(const Sum*, std::size_t, const Sum*, std::size_t, Sum,                            \
                                 const std::vector<block_pair>&, unsigned, const solve_options&, work_meter&,      \
                                 double);                                                                          \
  template search_hit<Sum> search(const Sum*, std::size_t, const Sum*, std::size_t, const flipped_instance<Sum>&, \
                                  const std::vector<block_pair>&, unsigned, const solve_options&, work_meter&,     \
                                  double);
SSUM_TWO_LIST_SEARCH(std::uint64_t)
SSUM_TWO_LIST_SEARCH(uint128)
#undef SSUM_TWO_LIST_SEARCH

}  // namespace ssum::detail

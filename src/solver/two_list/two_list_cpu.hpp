#pragma once
// Internal: the host two-list solver behind ssum::solve(cpu, ...) and its stages, one file
// each (Horowitz and Sahni 1974; parallel form of Li et al. as implemented on GPUs by Wan,
// Li, Liu, Li, CCPE 27:119-145, 2015):
//   generate_lists.cpp  the sorted subset sums of each half, built by merging L with L + w for
//                       each item, every merge split by merge path among the threads;
//   prune.cpp           both lists cut into k blocks; a block pair survives only when the
//                       target lies between its smallest and largest pair sum (a staircase,
//                       <= 2k-1 pairs);
//   search.cpp          the surviving pairs walked with Horowitz-Sahni's two pointers, in
//                       parallel, stopping every thread once one finds a match; and the count
//                       (--count) over the same pairs;
//   recover.hpp         a found pair of sums turned back into a subset (shared with the GPU);
//   two_list_cpu.cpp    the driver: the plan, the stages in order, their timers.
// Weights are made non-negative first (two_list_instance.hpp), so sums above the target are
// dropped while the lists are generated. Each stage is compiled for 64-bit sums and, for
// totals beyond 64 bits, 128-bit ones.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include <sys/mman.h>

#include "solver/frame.hpp"
#include "solver/two_list/two_list_instance.hpp"
#include "ssum/detail/cpu_merge.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Bytes the host two-list plans for `p` with these totals: list A, list B and the merge
/// buffer of half of B's size, in 64-bit sums, or 128-bit ones when the total absolute weight
/// does not fit in 64 bits.
double two_list_host_bytes(const problem& p, const flipped_totals& totals);

/// Solves on the host (host: the plan's threads and room, host_share_for; totals:
/// totals_of(p)); the subset it returns is not yet verified (ssum::solve does that).
solution solve_two_list(const host_share& host, const problem& p, const flipped_totals& totals,
                        const solve_options& options);

// ---- what the stages share ----

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

// Lanes per thread in the merges (ssum's host merge) and in the search walks.
constexpr int lanes_per_thread = cpu_merge_lanes_per_thread;

// One block pair of the pruning stage: list A rows [a_lo, a_hi), list B rows [b_lo, b_hi).
struct block_pair {
  std::size_t a_lo, a_hi, b_lo, b_hi;
};

// ---- the stages ----

/// generate: list A (inst's items [0, half)) into list_a, list B into list_b, each sorted and
/// cut at the target, through `scratch` (half of B's capacity), by a team of `team` threads.
/// Returns both sizes; throws ssum::interrupted on cancellation.
template <class Sum>
std::array<std::size_t, 2> generate_lists(const flipped_instance<Sum>& inst, Sum* list_a, Sum* list_b, Sum* scratch,
                                          unsigned team, const solve_options& options, work_meter& meter);

/// prune: the block pairs of a[0, na) x b[0, nb), k blocks per list, that can hold a + b = t.
template <class Sum>
std::vector<block_pair> prune(const Sum* a, std::size_t na, const Sum* b, std::size_t nb, Sum t, std::size_t k);

/// count: how many index pairs of the block pairs have a[i] + b[j] == t (the flipped empty
/// subset's pair included), by `threads` threads; throws ssum::interrupted on cancellation.
template <class Sum>
uint128 count_matches(const Sum* a, std::size_t na, const Sum* b, std::size_t nb, Sum t,
                      const std::vector<block_pair>& pairs, unsigned threads, const solve_options& options,
                      work_meter& meter, double count_weight);

/// What the search found: a pair of sums a + b == t (not only the empty subset's pair).
template <class Sum>
struct search_hit {
  bool found = false;
  Sum a = 0, b = 0;
};

/// search: the first match over the block pairs, by `threads` threads; throws
/// ssum::interrupted on cancellation.
template <class Sum>
search_hit<Sum> search(const Sum* a, std::size_t na, const Sum* b, std::size_t nb, const flipped_instance<Sum>& inst,
                       const std::vector<block_pair>& pairs, unsigned threads, const solve_options& options,
                       work_meter& meter, double walk_weight);

}  // namespace ssum::detail

// The generate stage of the host two-list (two_list_cpu.hpp): each half's sorted subset sums,
// built by merging L with L + w for each item (Wan et al., section 2.3), every merge split by
// merge path among the threads, sums above the target dropped as they appear.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "solver/two_list/two_list_cpu.hpp"
#include "ssum/detail/cpu_merge.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

// What the threads of one generation share: the cancel decision, chunks of the current
// level done (for progress) and the work meter, whose `done` only the reporting thread moves.
struct generation_shared {
  std::atomic<bool> cancelled{false};
  std::atomic<std::size_t> chunks_done{0};
  work_meter& meter;
  // Each level's decision to stop, written in its `single` and read by every thread after
  // that construct's barrier. Two slots: a thread still reading level k's while another
  // runs level k + 1 (whose chunks may raise `cancelled`) needs a value no one changes; the
  // slot is written again only at level k + 2, past a barrier every thread must reach.
  bool stop[2] = {false, false};
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
  // Raised in an earlier call: every thread sees it (no chunk of this call can raise it
  // before the barrier below, which every thread reaches after this test).
  if (cancelled.load()) return 0;
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
      shared.stop[item & 1] = cancelled.load();
    }
    // Not `cancelled` itself: a thread already in the next level may raise it, and the team
    // would part at different barriers (a hang, seen under a time limit).
    if (shared.stop[item & 1]) return 0;
  }
  return size;
}

}  // namespace

template <class Sum>
std::array<std::size_t, 2> generate_lists(const flipped_instance<Sum>& inst, Sum* list_a, Sum* list_b, Sum* scratch,
                                          unsigned team, const solve_options& options, work_meter& meter) {
  const std::size_t n = inst.weights.size();
  const std::size_t na_items = inst.half, nb_items = n - inst.half;
  std::size_t size_a = 0, size_b = 0;
  generation_shared shared{{false}, {0}, meter};
#pragma omp parallel num_threads(team)
  {
    const std::size_t sa =
        generate_sums(inst.weights.data(), na_items, inst.target, list_a, scratch, options, "generate A", shared);
    const std::size_t sb = generate_sums(inst.weights.data() + na_items, nb_items, inst.target, list_b, scratch,
                                         options, "generate B", shared);
    if (omp_get_thread_num() == 0) size_a = sa, size_b = sb;
  }
  if (shared.cancelled.load()) throw interrupted();
  return {size_a, size_b};
}

template std::array<std::size_t, 2> generate_lists(const flipped_instance<std::uint64_t>&, std::uint64_t*,
                                                   std::uint64_t*, std::uint64_t*, unsigned, const solve_options&,
                                                   work_meter&);
template std::array<std::size_t, 2> generate_lists(const flipped_instance<uint128>&, uint128*, uint128*, uint128*,
                                                   unsigned, const solve_options&, work_meter&);

}  // namespace ssum::detail

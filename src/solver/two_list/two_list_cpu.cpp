// The driver of the host two-list (two_list_cpu.hpp names the stages and their files): the
// memory plan, then generate_lists, prune, count (on request), search and recover in order,
// each timed.
#include "solver/two_list/two_list_cpu.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "solver/frame.hpp"
#include "solver/two_list/recover.hpp"
#include "solver/two_list/two_list_instance.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {
namespace {

template <class Sum>
solution two_list_on_host(unsigned threads, const flipped_instance<Sum>& inst, const solve_options& options) {
  const auto start = clock_type::now();
  solution result;
  result.algorithm = "two-list";
  result.backend = "cpu";
  result.threads = threads;

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
    // Lists below 2^16 sums are generated faster by one thread than a team can synchronise.
    const unsigned team = cap_b < (std::size_t{1} << 16) ? 1u : threads;
    const auto sizes = generate_lists(inst, list_a.get(), list_b.get(), scratch.get(), team, options, meter);
    size_a = sizes[0];
    size_b = sizes[1];
  }
  result.seconds.generate = seconds_since(t0);

  // Pruning: enough blocks per thread that dynamic scheduling evens out the work.
  t0 = clock_type::now();
  const Sum* a = list_a.get();
  const Sum* b = list_b.get();
  const Sum t = inst.target;
  const std::vector<block_pair> pairs = prune(a, size_a, b, size_b, t, std::size_t{64} * threads);
  result.seconds.prune = seconds_since(t0);
  meter.finish_stage("prune", 0);

  // Counting (on request).
  if (options.count) {
    t0 = clock_type::now();
    uint128 total = count_matches(a, size_a, b, size_b, t, pairs, threads, options, meter, count_weight);
    // Without a target the empty subset does not count; it always sums to 0, so it is in the
    // total exactly once (as the pair of the flipped items' sums).
    if (inst.exclude_trivial) total -= 1;
    result.count = total;
    result.seconds.count = seconds_since(t0);
    meter.finish_stage("count", count_weight);
  }

  // Search.
  t0 = clock_type::now();
  const search_hit<Sum> hit = search(a, size_a, b, size_b, inst, pairs, threads, options, meter, walk_weight);
  result.seconds.search = seconds_since(t0);
  meter.finish_stage("search", walk_weight);

  // Certificate: which subsets produced the two sums.
  if (hit.found) {
    t0 = clock_type::now();
    list_a.reset();
    list_b.reset();
    result.subset = recover_subset(inst, hit.a, hit.b, threads > 1);
    result.feasible = true;
    result.seconds.recover = seconds_since(t0);
    meter.finish_stage("recover", 0);
  }
  result.seconds.total = seconds_since(start);
  return result;
}

bool wide_sums(const flipped_totals& totals) { return totals.total_abs > uint128(UINT64_MAX); }

}  // namespace

double two_list_host_bytes(const problem& p, const flipped_totals& totals) {
  const std::size_t na = p.weights.size() / 2, nb = p.weights.size() - na;
  const double elements = std::ldexp(1.0, int(na)) + 1.5 * std::ldexp(1.0, int(nb));
  return elements * double(wide_sums(totals) ? sizeof(uint128) : sizeof(std::uint64_t));
}

solution solve_two_list(const host_share& host, const problem& p, const flipped_totals& totals,
                        const solve_options& options) {
  const auto start = clock_type::now();
  const std::size_t n = p.weights.size();
  // Quick answers that need no lists: the flipped target must lie in [0, sum |w|].
  if (totals.out_of_range()) return out_of_range_answer("two-list", "cpu", host.threads, options, start);
  const double bytes = two_list_host_bytes(p, totals);
  const double available = host.room;
  if (n > most_items || bytes > available) {
    throw insufficient_memory::needs(plan_name("the two-list algorithm", n), bytes, available);
  }
  solution result = wide_sums(totals) ? two_list_on_host(host.threads, flip<uint128>(p, totals.target), options)
                                      : two_list_on_host(host.threads, flip<std::uint64_t>(p, totals.target), options);
  result.planned_bytes = static_cast<std::uint64_t>(bytes);
  result.seconds.total = seconds_since(start);
  return result;
}

}  // namespace ssum::detail

namespace ssum {

double two_list_planned_bytes(const problem& p) {
  return detail::two_list_host_bytes(p, detail::totals_of(p));  // totals_of throws at 2^127
}

}  // namespace ssum

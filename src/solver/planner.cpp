// The plan's candidates (planner.hpp) and ssum::explain (ssum/explain.hpp): each algorithm's
// answer to "can you take this, in how many bytes, in how many seconds", from the models each
// algorithm keeps beside its code (dp/bitset_dp.hpp, dp/balanced_dp.hpp, dp/count_dp.hpp,
// two_list/, four_list/, completion/) and the rates below.
#include "solver/planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/completion/completion_search.hpp"
#include "solver/completion/greedy_fill.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/dp/count_dp.hpp"
#include "solver/four_list/four_list_cpu.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "solver/lattice/one_sum_lattice.hpp"
#include "solver/rows/lattice_race.hpp"
#include "solver/plan_words.hpp"
#include "solver/two_list/two_list_cpu.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"
#include "ssum/solve_rows.hpp"

namespace ssum::detail {

double host_four_list_seconds(std::size_t n, unsigned threads) {
  return host_four_list_factor * host_two_list_seconds(n, threads);
}

double cuda_two_list_seconds(std::size_t n) {
  return cuda_start_seconds + cuda_two_list_seconds_per_sum * std::ldexp(1.0, int((n + 1) / 2));
}

// The GPU four-list's whole search, measured on an H200 (docs/performance.md): 64-bit sums
// 92 s at n = 80, 128-bit ones (totals past 2^64) 13.2 s at n = 72; doubling every two items.
double cuda_four_list_seconds(std::size_t n, const flipped_totals& totals) {
  if (totals.total_abs > uint128(UINT64_MAX)) return 13.2 * std::exp2((double(n) - 72) / 2);
  return 92 * std::exp2((double(n) - 80) / 2);
}

namespace {

// The completion search's attempts: its quarter lists and the classes it expects to try, each
// a few list entries, at about 30 ns an entry on the 2-core machine (random n = 100 with 55-bit
// weights: 76 numbers left, 0.09 s; 60-bit partitions: 84 left, 0.4-1.1 s).
double completion_seconds(const completion_plan& plan) {
  if (plan.perfect) return 1e-3;
  const double quarter = std::ldexp(1.0, int(plan.items / 4));
  return 3e-8 * (4 * quarter + double(plan.classes) * 2 * quarter);
}

candidate make(const char* name, backend where, algorithm algo, double room) {
  candidate c;
  c.name = name;
  c.where = where;
  c.algo = algo;
  c.room = room;
  return c;
}

std::string on_threads(unsigned threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

void host_tables(const one_sum_question& q, std::vector<candidate>& table) {
  const reduction& r = *q.r;
  const solve_options& o = *q.options;
  candidate dp = make("dp", backend::cpu, algorithm::dynamic_programming, q.host.room);
  if (o.count) {
    if (!count_dp_available()) dp.cannot = "this build has no GMP: the counting table is not built";
    dp.bytes = count_dp_planned_bytes(r);
    dp.seconds = count_dp_seconds(r);
    dp.costed = "a counting table of " + count_text(double(r.bound) + 1) + " sums";
    table.push_back(dp);
    return;
  }
  const bool plannable = r.bound <= uint128(dp_most_sums);
  const reduction grouped = plannable ? group_equal_weights(r) : r;
  dp.bytes = plannable ? dp_planned_bytes(grouped, q.host.room) : (double(r.bound) + 1) / 8;
  dp.seconds = dp_seconds(grouped, q.host.threads);
  dp.costed = "a bitset of " + count_text(double(r.bound) + 1) + " sums on " + on_threads(q.host.threads);
  table.push_back(dp);
  if (r.zero_sum) return;
  candidate balanced = make("balanced-dp", backend::cpu, algorithm::dynamic_programming, q.host.room);
  balanced.bytes = balanced_planned_bytes(r);
  balanced.seconds = balanced_seconds(r);
  balanced.costed = "Pisinger's balanced program, its bound at most; one thread";
  table.push_back(balanced);
}

void host_lists(const one_sum_question& q, std::size_t n, const problem* reduced, std::vector<candidate>& table) {
  const solve_options& o = *q.options;
  candidate two = make("two-list", backend::cpu, algorithm::two_list, q.host.room);
  candidate four = make("four-list", backend::cpu, algorithm::four_list, q.host.room);
  if (!reduced) {
    two.cannot = four.cannot = "it takes at most " + std::to_string(most_items) + " items";
    two.costed = four.costed = two_list_sums_text(n) + " sums a list";
  } else {
    const flipped_totals t = totals_of(*reduced);
    const double counting = o.count ? count_factor : 1.0;
    const bool fold = q.fold && n >= rows_four_list_from;
    two.bytes = two_list_host_bytes(*reduced, t);
    two.seconds = host_two_list_seconds(n, q.host.threads) * counting * (fold ? fold_two_list_factor : 1.0);
    two.costed = "two lists of " + two_list_sums_text(n) + " sums on " + on_threads(q.host.threads) +
                 (fold ? "; a fold of rows, where its pruning gains little" : "");
    four.bytes = four_list_planned_bytes(*reduced, q.host.threads);
    four.seconds = host_four_list_seconds(n, q.host.threads) * counting;
    four.costed = "four quarter lists of 2^" + std::to_string((n + 3) / 4) + " sums, residue classes on " +
                  on_threads(q.host.threads);
  }
  table.push_back(std::move(two));
  table.push_back(std::move(four));
}

void host_searches(const one_sum_question& q, std::size_t n, std::vector<candidate>& table) {
  const reduction& r = *q.r;
  if (q.options->count) return;  // a search finds one subset: it cannot count
  candidate completion = make("completion", backend::cpu, algorithm::completion_search, q.host.room);
  completion.exact = false;
  if (const std::optional<completion_plan> plan = completion_plan_for(r, q.host.threads, q.host.room)) {
    completion.bytes = plan->bytes;
    completion.seconds = completion_seconds(*plan);
    completion.costed = plan->perfect ? "differencing to the end leaves 0"
                                      : "differencing leaves " + std::to_string(plan->items) + " numbers";
  } else {
    completion.cannot = "not dense: no differencing leaves numbers whose subsets are expected in a few classes";
  }
  table.push_back(std::move(completion));
  if (q.options->algo != algorithm::automatic) return;  // the fill and the split are automatic's own
  const double expected = log2_expected_solutions(r);
  candidate fill = make("greedy-fill", backend::cpu, algorithm::automatic, q.host.room);
  fill.exact = false;
  fill.bytes = greedy_fill_planned_bytes(r);
  fill.seconds = std::max(fill_least_seconds, double(n) * fill_seconds_per_item);
  char text[96];
  std::snprintf(text, sizeof text, "about 2^%.0f solutions expected", std::min(expected, 1e6));
  if (r.zero_sum) fill.cannot = "it fills towards a target";
  else if (expected < fill_least_log2_solutions) fill.cannot = std::string(text) + ", fewer than 2^20";
  else fill.costed = text;
  table.push_back(std::move(fill));
  candidate split = make("heavy-split", backend::cpu, algorithm::automatic, q.host.room);
  split.exact = false;
  split.seconds = fill.seconds;
  if (heavy_split_of(r)) split.costed = "a heavy tail: the heavy items' subset first, the light ones filled";
  else split.cannot = "no heavy tail";
  table.push_back(std::move(split));
}

void device_candidates(const one_sum_question& q, std::size_t n, const problem* reduced,
                       std::vector<candidate>& table) {
  const reduction& r = *q.r;
  const solve_options& o = *q.options;
  std::string none;
  double room = 0;
  if (!cuda_compiled()) {
    none = "this build has no CUDA backend";
  } else {
    try {
      if (!q.probe->present()) none = "no CUDA device is present";
      else room = room_within(q.probe->room(0), o);
    } catch (const cuda_error& e) {
      none = std::string("the CUDA device could not be asked: ") + e.what();
    }
  }
  candidate dp = make("dp", backend::cuda, algorithm::dynamic_programming, room);
  candidate two = make("two-list", backend::cuda, algorithm::two_list, room);
  candidate four = make("four-list", backend::cuda, algorithm::four_list, room);
  for (candidate* c : {&dp, &two, &four}) c->cannot = none;
  if (none.empty()) {
    if (o.count) dp.cannot = "the device's table decides; counting runs on the host";
    else if (r.bound > uint128(dp_most_sums)) dp.cannot = "its table takes at most 2^40 sums";
    dp.bytes = dp_cuda_planned_bytes(r);
    dp.seconds = cuda_start_seconds + dp_cuda_seconds(r);
    dp.costed = "a bitset of " + count_text(double(r.bound) + 1) + " sums with the CUDA start-up";
    if (!reduced) {
      two.cannot = four.cannot = "it takes at most " + std::to_string(most_items) + " items";
    } else {
      const flipped_totals t = totals_of(*reduced);
      if (const char* why = two_list_merging_refusal(*reduced, t, o.count)) two.cannot = why;
      if (const char* why = four_list_cuda_refusal(*reduced, t)) four.cannot = why;
      const bool fold = q.fold && n >= rows_four_list_from;
      two.bytes = two_list_merging_planned_bytes(*reduced, t);
      two.seconds = cuda_two_list_seconds(n) * (o.count ? count_factor : 1.0) * (fold ? fold_two_list_factor : 1.0);
      two.costed = "two merged lists of 2^" + std::to_string(n / 2) + " sums with the CUDA start-up";
      four.seconds = cuda_start_seconds + cuda_four_list_seconds(n, t);
      four.costed = "batches sized to the device's room, with the CUDA start-up";
    }
  }
  table.push_back(std::move(dp));
  table.push_back(std::move(two));
  table.push_back(std::move(four));
}

}  // namespace

std::vector<candidate> one_sum_candidates(const one_sum_question& q) {
  const reduction& r = *q.r;
  std::vector<candidate> table;
  candidate settled = make("reductions", backend::cpu, algorithm::automatic, q.host.room);
  settled.seconds = 0;
  const bool open = !q.totals->out_of_range() && r.outcome == reduction::verdict::open;
  const std::size_t n = open ? r.weights.size() : q.p->weights.size();
  if (q.totals->out_of_range()) settled.costed = "the target lies outside the sums a subset can reach";
  else if (!open) settled.costed = "they answer it: " + joined(r.applied);
  else settled.cannot = "they leave " + std::to_string(n) + " items open" + (r.applied.empty() ? "" : " after " + joined(r.applied));
  table.push_back(std::move(settled));
  if (!open) return table;
  const problem reduced = n <= most_items ? reduced_problem(r) : problem{};
  const problem* lists = n <= most_items ? &reduced : nullptr;
  host_tables(q, table);
  host_lists(q, n, lists, table);
  host_searches(q, n, table);
  if (q.probe) device_candidates(q, n, lists, table);
  return table;
}

plan_candidate row_of(const candidate& c) {
  plan_candidate row;
  row.algorithm = c.name;
  row.backend = c.where == backend::cuda ? "cuda" : "cpu";
  row.takes = c.takes();
  row.fits = c.fits();
  row.exact = c.exact;
  row.bytes = c.takes() ? c.bytes : 0;
  row.seconds = c.takes() && c.seconds < HUGE_VAL ? c.seconds : -1;
  row.why = c.takes() ? c.costed : c.cannot;
  if (c.takes() && !c.fits()) {
    row.why += (row.why.empty() ? "" : "; ") + ("needs " + format_bytes(c.bytes) + ", " + format_bytes(c.room) + " available");
  }
  return row;
}

namespace {

// The refusals a solve makes of the instance itself (not of its arguments): reported in the
// table, not thrown.
template <class F>
bool refused(F&& f, std::string& refusal) {
  try {
    f();
    return false;
  } catch (const insufficient_memory& e) {
    refusal = e.what();
  } catch (const out_of_reach& e) {
    refusal = e.what();
  } catch (const backend_unavailable& e) {
    refusal = e.what();
  } catch (const instance_refused& e) {
    refusal = e.what();  // past the algorithm's items or widths; any other bad argument is thrown
  }
  return true;
}

void mark(plan_table& t, const std::string& name, const std::string& where, const char* role) {
  for (plan_candidate& c : t.candidates) {
    if (c.algorithm == name && c.backend == where && c.role.empty()) {
      c.role = role;
      return;
    }
  }
}

}  // namespace

plan_table explain_one_sum(backend which, unsigned threads, const problem& p, const solve_options& options, bool fold) {
  plan_table t;
  t.question = options.count ? "count" : "decide";
  const device_probe probe = cuda_probe();
  std::string first;
  refused(
      [&] {
        choice c = choose(p, options, which, threads, 0, probe);
        if (c.split) first = "heavy-split", c = choose(p, options, which, threads, 0, probe, false, true);
        else if (c.fill_first) first = "greedy-fill";
        t.chosen = c.plan();
      },
      t.refusal);
  const flipped_totals totals = totals_of(p);
  const host_share host = host_share_for(threads, options);
  reduction r;
  if (!totals.out_of_range()) r = options.count ? count_reduction(p, totals) : reduce(p, totals);
  one_sum_question q;
  q.p = &p;
  q.totals = &totals;
  q.r = &r;
  q.options = &options;
  q.host = host;
  q.fold = fold;
  q.probe = which == backend::cpu ? nullptr : &probe;
  t.threads = host.threads;
  t.host_room = host.room;
  t.items = !totals.out_of_range() && r.outcome == reduction::verdict::open ? r.weights.size() : p.weights.size();
  for (const candidate& c : one_sum_candidates(q)) t.candidates.push_back(row_of(c));
  if (!first.empty()) mark(t, first, "cpu", "first");
  if (!t.chosen.algorithm.empty()) mark(t, t.chosen.algorithm, t.chosen.backend, "chosen");
  return t;
}

}  // namespace ssum::detail

namespace ssum {

plan_table explain(backend which, unsigned threads, const problem& p, const solve_options& options) {
  plan_table t = detail::explain_one_sum(which, threads, p, options, false);
  // The lattice stage on one sum of low density (lattice/one_sum_lattice.hpp).
  std::string refusal;
  const std::string role = detail::one_sum_lattice_role(which, threads, p, options, &refusal);
  if (role.empty()) return t;
  plan_candidate lattice;
  lattice.algorithm = "lattice";
  lattice.backend = "cpu";
  lattice.takes = lattice.fits = true;
  lattice.exact = false;
  lattice.why = "a low-density sum: fplll's reduction and a {0,1} enumeration on one thread; no model of its time";
  if (role == "alone") {
    lattice.role = "chosen";
    t.chosen = {"lattice", "cpu", "no exact algorithm can take this instance (" + refusal +
                                      "), so the lattice stage runs alone (without a time limit for at most " +
                                      std::to_string(int(detail::lattice_alone_seconds)) + " s)"};
    t.refusal.clear();
  } else {
    lattice.role = "races";
  }
  t.candidates.push_back(lattice);
  return t;
}

}  // namespace ssum

// The one decision of a solve (choose.hpp): the order of preference between the algorithms
// and backends, and the refusals. Each algorithm's own chooser lives with it (dp/dp_plan.hpp,
// completion/completion_plan.hpp); the totals, reductions and the host's share are computed once here.
#include "solver/choose.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "solver/completion/completion_plan.hpp"
#include "solver/completion/completion_search.hpp"
#include "solver/dp/count_dp.hpp"
#include "solver/dp/dp_plan.hpp"
#include "solver/four_list/four_list_cpu.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "ssum/work_share.hpp"
#include "solver/gpu/cuda_room.hpp"
#include "solver/plan_words.hpp"
#include "solver/planner.hpp"
#include "solver/two_list/two_list_cpu.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {

// auto sends an instance to the GPU when the host would need longer than a CUDA process
// takes to start: measured on an H200 machine (docs/performance.md, "Choosing the backend"),
// bringing up the CUDA context costs about 0.3 s, and the host two-list about 12 ns per sum of
// one list, divided by threads^0.7 (memory-bound: 1.7 ns with 16 threads, 6 ns with 2).
// So 16 host threads keep n <= 55, 2 threads n <= 51; the device then needs a few ms.
double host_two_list_seconds(std::size_t n, unsigned threads) {
  return std::ldexp(12e-9, int(n / 2)) * (n % 2 ? 1.41 : 1.0) / std::pow(double(threads), 0.7);
}

device_probe cuda_probe() {
  return {[] { return !cuda_devices().empty(); }, [](int device) { return cuda_solver_room(device); }};
}

namespace {

const char* name_of(algorithm a) {
  return a == algorithm::four_list             ? "four-list"
         : a == algorithm::dynamic_programming ? "dp"
         : a == algorithm::completion_search   ? "completion"
                                               : "two-list";
}

// "two lists of 2^23 and 2^24 sums" (the host's lists hold every item of their half; the
// merging two-list's all but one).
std::string lists_text(std::size_t n, bool merging) {
  std::size_t na = n / 2, nb = n - na;
  if (merging) na = na > 0 ? na - 1 : 0, nb = nb > 0 ? nb - 1 : 0;
  if (na == nb) return "two lists of 2^" + std::to_string(nb) + " sums";
  return "two lists of 2^" + std::to_string(na) + " and 2^" + std::to_string(nb) + " sums";
}

std::string range_text(const flipped_totals& totals) {
  std::string text = "[";
  if (totals.negative_abs != 0) text += '-';
  text += to_string(int128(totals.negative_abs));
  text += ", ";
  text += to_string(int128(totals.total_abs - totals.negative_abs));
  return text + "]";
}

// What the host offers a solve, measured once per choose() (host_share_for): the threads as
// asked (0: all) and resolved, and the room a plan may take (options.memory_limit included).
struct host_resources {
  unsigned asked = 0, threads = 1;
  double room = 0;
  host_share share() const { return {threads, room}; }
};

// The host threads a CUDA plan reports and gives its driver: the two-list's certificate takes
// two unless one was asked for; the four-list's lists and certificate one; the dp none.
unsigned cuda_host_threads(algorithm algo, unsigned asked) {
  return algo == algorithm::two_list ? (asked == 1 ? 1 : 2) : algo == algorithm::four_list ? 1 : 0;
}

// The host's algorithm for `p` (the totals already known) and why.
void choose_host_algorithm(const problem& p, const solve_options& options, const host_resources& host, choice& c) {
  const std::size_t n = p.weights.size();
  if (options.algo != algorithm::automatic) {
    c.algo = options.algo;
    c.reason = std::string("the ") + name_of(c.algo) + " algorithm was asked for";
    return;
  }
  // Shared by several processes (an MPI job): only the four-list's units go to all of them.
  const std::size_t solves = options.share ? options.share->solves() : 1;
  const double alone = host_two_list_seconds(n, host.threads);
  if (solves > 1 && alone > 1.0 && n <= most_items) {
    c.algo = algorithm::four_list;
    c.reason = "the four-list's units are shared by " + std::to_string(solves) +
               " processes, where the two lists would run in one (about " + seconds_text(alone) + ")";
    return;
  }
  const double bytes = two_list_host_bytes(p, c.totals);
  const double room = host.room;
  const std::string where = options.memory_limit ? " within the memory limit" : " available";
  if (bytes <= room) {
    c.algo = algorithm::two_list;
    c.reason = lists_text(n, false) + " (" + format_bytes(bytes) + ") fit the " + format_bytes(room) + where;
    return;
  }
  c.algo = algorithm::four_list;
  c.reason = lists_text(n, false) + " need " + format_bytes(bytes) + ", more than the " + format_bytes(room) + where +
             "; the four-list needs about " + format_bytes(four_list_planned_bytes(p, c.threads));
}

// The device's algorithm for `p`: the one named; under automatic the two-list while it can
// take `p` and fits the device, else the four-list (O(2^(n/4)) lists, batches sized to the
// room) when it can take `p`; else the two-list, whose refusal then says why.
void choose_cuda_algorithm(const problem& p, const solve_options& options, const device_probe& probe, choice& c) {
  const std::size_t n = p.weights.size();
  if (options.algo != algorithm::automatic) {
    c.algo = options.algo;
    c.reason += std::string("; the ") + name_of(c.algo) + " algorithm was asked for";
    return;
  }
  const std::string on = " on CUDA device " + std::to_string(c.device);
  const char* refusal = two_list_merging_refusal(p, c.totals, options.count);
  const double device_room = refusal ? 0 : probe.room(c.device);  // asked only when it decides
  const double room = room_within(device_room, options);
  if (!refusal && two_list_merging_planned_bytes(p, c.totals) <= room) {
    c.algo = algorithm::two_list;
    c.reason += "; " + lists_text(n, true) + " (" + format_bytes(two_list_merging_planned_bytes(p, c.totals)) + ") fit the " +
                format_bytes(room) + " available" + on;
    return;
  }
  if (refusal) {
    c.reason += std::string("; ") + refusal;
  } else {
    c.reason += "; " + lists_text(n, true) + " need " + format_bytes(two_list_merging_planned_bytes(p, c.totals)) +
                ", more than the " + format_bytes(room) + " available" + on;
  }
  if (four_list_cuda_refusal(p, c.totals)) {
    c.algo = algorithm::two_list;  // its refusal says why
    return;
  }
  c.algo = algorithm::four_list;
  c.reason += "; the four-list works in batches sized to the room";
}

// Automatic, without a time limit: a meet-in-the-middle plan that would run for more than a
// day on an instance that expects fewer than one solution is refused at once (for example
// a density-1 knapsack at n = 120). A search could not hope to find a subset, and the proof
// is out of reach; a time limit or a named algorithm runs it anyway.
void refuse_out_of_reach(const choice& c, std::size_t n, const reduction& r, const solve_options& options,
                         const host_resources& host, bool open) {
  if (options.algo != algorithm::automatic || options.time_limit > 0 || options.count || !open || c.settled ||
      c.out_of_range || (c.algo != algorithm::two_list && c.algo != algorithm::four_list)) {
    return;
  }
  const double seconds = c.where == backend::cuda ? cuda_four_list_seconds(n, c.totals)
                                                  : host_two_list_seconds(n, host.threads);
  const double expected = log2_expected_solutions(r);
  if (seconds <= 86400 || expected >= 0) return;
  int bits = 0;
  for (uint128 w : r.weights) {
    int b = 0;
    for (; w; w >>= 1) ++b;
    bits = std::max(bits, b);
  }
  char text[512];
  std::snprintf(text, sizeof text,
                "no proof is possible here: n = %zu with weights of up to %d bits (density %.2f) expects about "
                "2^%.0f solutions, so no search can hope to find one, and the exact algorithms would take about %s "
                "(2^%zu sums); give --time-limit SECONDS to search anyway",
                n, bits, double(n) / std::max(1, bits), expected, seconds_text(seconds).c_str(), n / 2);
  throw out_of_reach(text);
}

// Where the reduced instance expects at least 2^20 solutions, a greedy fill with an exact core
// (completion/greedy_fill.hpp) finds one in milliseconds: psix n = 10^5 in 0.01-0.02 s on the
// 2-core machine, where the table takes 30 s. Under automatic it runs ahead of a host dynamic
// program that would take longer than it (choice::fill_first), without asking the device
// (that starts the CUDA driver: 0.2-0.3 s); the plan, or the device's, only when the fill
// finds nothing (choose's fill_tried).
// The fill's own time grows with the items it walks: about 0.15 us an item on the 2-core
// machine (10^6 items: 0.08-0.13 s), 10 ms at least. The program's early stop (a share of its
// estimate, dp_plan.hpp) is what it races: weights below 100 at n = 10^6 stop in 0.03-0.1 s.

// The solutions `r` expects (log2) where the fill pays ahead of the plan `dp`; nothing otherwise.
std::optional<double> fill_pays(const reduction& r, const solve_options& options, const choice& dp) {
  if (options.algo != algorithm::automatic || options.count || r.zero_sum) return std::nullopt;
  if (r.outcome != reduction::verdict::open || dp.where != backend::cpu || dp.out_of_range) return std::nullopt;
  const double fill = std::max(fill_least_seconds, double(r.weights.size()) * fill_seconds_per_item);
  const double early = dp.estimate * (dp.balanced ? balanced_early_share : bitset_early_share);
  if (early < fill) return std::nullopt;
  const double expected = log2_expected_solutions(r);
  if (expected < fill_least_log2_solutions) return std::nullopt;
  return expected;
}

void fill_first(double expected, choice& c) {
  char text[160];
  std::snprintf(text, sizeof text,
                "; about 2^%.0f solutions expected, so a greedy fill with an exact core tries first "
                "(milliseconds), and the table runs only if it finds none",
                std::min(expected, 1e6));
  c.fill_first = true;
  c.reason += text;
}

// A heavy tail (heavy_split_of): no differencing brings the heavy items near the light ones,
// so the completion search finds nothing there (10^4 items with 1% near 2^100 / n: nothing
// in minutes). The heavy items' rounded instance, solved on its own, and the light items'
// greedy fill answer in a fraction of a second (split_fill); its reason names the split.
choice split_choice(reduction r, heavy_split split, const flipped_totals& totals, const host_share& host) {
  choice c;
  c.algo = algorithm::completion_search;
  c.where = backend::cpu;
  c.threads = host.threads;
  c.host = host;
  c.totals = totals;
  c.reason = "a heavy tail: " + std::to_string(split.heavy.size()) + " items each heavier than the " +
             std::to_string(split.light.size()) + " lighter ones together (" + to_string(int128(split.light_total)) +
             "), so the heavy items' subset is sought first, its weights rounded to the light items' slack, and " +
             "the light items fill the rest greedily (it finds, it cannot prove none); the plan runs if it finds none";
  c.split = std::move(split);
  c.reduced = std::move(r);
  return c;
}

void refuse_beyond_most_items(const problem& p, algorithm algo) {
  const std::size_t n = p.weights.size();
  if (n <= most_items) return;
  if (algo == algorithm::four_list) {
    throw instance_refused("the four-list algorithm takes at most " + std::to_string(most_items) + " items");
  }
  if (algo == algorithm::automatic) {
    // Named for what the user asked: no algorithm (not "the four-list") can take this.
    throw instance_refused("no algorithm here takes more than " + std::to_string(most_items) +
                                " items with weights like these (n = " + std::to_string(n) + ")");
  }
}

// totals: totals_of(p) when already known.
choice host_choice(const problem& p, const solve_options& options, const host_resources& host, const std::string& why,
                   const flipped_totals* totals = nullptr) {
  refuse_beyond_most_items(p, options.algo);
  choice c;
  c.where = backend::cpu;
  c.threads = host.threads;
  c.host = host.share();
  c.totals = totals ? *totals : totals_of(p);  // throws when the total reaches 2^127
  choose_host_algorithm(p, options, host, c);
  if (!why.empty()) c.reason = why + "; " + c.reason;
  // Threads left to the solver (0): a two-list that one thread finishes within a millisecond
  // gets one, since starting a team costs more than it saves (docs/solve-time.json, measured
  // on the H200 machine's 16-core host: n = 24 took 1.1 ms on 16 threads, the sequential
  // reference 0.12 ms).
  if (host.asked == 0 && c.threads > 1 && c.algo == algorithm::two_list && !options.count &&
      host_two_list_seconds(p.weights.size(), 1) < 1e-3) {
    c.threads = c.host.threads = 1;
    c.reason += "; one thread, as the lists take about " + seconds_text(host_two_list_seconds(p.weights.size(), 1)) +
                " on one";
  }
  return c;
}

// Under automatic: the device when the host would need longer than the start-up and the
// device two-list can take `p` and fits (unless the four-list is named), else the device
// four-list when it can take `p` and the two-list is not named; the host
// otherwise. The driver is asked only when the size says the device may pay.
choice automatic_choice(const problem& p, const solve_options& options, const host_resources& host,
                        const device_probe& probe) {
  const unsigned host_threads = host.threads;
  const double host_seconds = host_two_list_seconds(p.weights.size(), host_threads);
  const std::string host_time = "the host would take about " + seconds_text(host_seconds) + " on " +
                                std::to_string(host_threads) + (host_threads == 1 ? " thread" : " threads");
  const std::string start_up = "a CUDA start-up (" + seconds_text(cuda_start_seconds) + ")";
  if (host_seconds < cuda_start_seconds) return host_choice(p, options, host, host_time + ", less than " + start_up);
  if (!cuda_compiled()) return host_choice(p, options, host, "this build has no CUDA backend");
  const flipped_totals totals = totals_of(p);
  const std::string longer = host_time + ", more than " + start_up;
  choice c;
  c.where = backend::cuda;
  c.device = 0;
  c.totals = totals;
  bool two_list_fits = false;
  try {
    if (!probe.present()) return host_choice(p, options, host, "no CUDA device is present", &totals);
    two_list_fits = options.algo != algorithm::four_list && !two_list_merging_refusal(p, totals, options.count) &&
                    two_list_merging_planned_bytes(p, totals) <= room_within(probe.room(0), options);
  } catch (const cuda_error&) {
    // A device that cannot even be asked (a CUDA context needs far more address space than a
    // `ulimit -v` may leave) is no device for automatic: the host answers instead.
    return host_choice(p, options, host, "the CUDA device could not be asked", &totals);
  }
  if (two_list_fits) {
    c.algo = algorithm::two_list;
    c.threads = cuda_host_threads(c.algo, host.asked);
    c.reason = longer + "; " + lists_text(p.weights.size(), true) + " (" +
               format_bytes(two_list_merging_planned_bytes(p, totals)) + ") fit CUDA device 0";
    return c;
  }
  if (options.algo == algorithm::two_list) {
    return host_choice(p, options, host, longer + ", but the CUDA two-list cannot take it or does not fit", &totals);
  }
  if (const char* why = four_list_cuda_refusal(p, totals)) {
    return host_choice(p, options, host, longer + ", but " + std::string(why), &totals);
  }
  c.algo = algorithm::four_list;
  c.threads = cuda_host_threads(c.algo, host.asked);
  c.reason = longer + (options.algo == algorithm::four_list
                           ? "; the four-list algorithm was asked for"
                           : "; the CUDA two-list cannot take it or its lists do not fit, the CUDA four-list can");
  return c;
}

}  // namespace

solve_plan choice::plan() const {
  // What the reductions or the range settle runs no algorithm: say so, whatever was named.
  const char* name = out_of_range || settled ? "reductions"
                     : split                 ? "heavy-split"
                     : balanced              ? "balanced-dp"
                                             : name_of(algo);
  return {name, where == backend::cuda ? "cuda" : "cpu", reason};
}

choice choose(const problem& p, const solve_options& options, backend which, unsigned threads, int device,
              const device_probe& probe, bool host_tried, bool fill_tried) {
  if (options.algo != algorithm::automatic && options.algo != algorithm::two_list &&
      options.algo != algorithm::four_list && options.algo != algorithm::dynamic_programming &&
      options.algo != algorithm::completion_search) {
    if (options.algo == algorithm::lattice) {
      throw std::invalid_argument("the lattice stage takes several rows (a .dat file, ssum::solve_rows): one sum "
                                  "goes to the two-list, the four-list, the dp or the completion search");
    }
    throw std::invalid_argument("unknown algorithm");
  }
  if (which != backend::cuda && which != backend::automatic && which != backend::cpu) {
    throw std::invalid_argument("unknown backend");
  }
  if (options.algo == algorithm::completion_search && which == backend::cuda) {
    throw backend_unavailable("the completion search runs on the host (--backend cpu or auto)");
  }
  // Before any reduction: a count must be refused whatever the reductions leave to search.
  if (options.algo == algorithm::completion_search && options.count) {
    throw std::invalid_argument("the completion search finds one subset; it cannot count");
  }
  // The reductions, once, for every algorithm: the meet-in-the-middle ones run on what is
  // left (q), the dynamic program on r. A count sets the zero weights aside and multiplies them
  // back in (each doubles it; count_dp.hpp, and solve.cpp for meet-in-the-middle).
  const flipped_totals totals = totals_of(p);  // throws when the total reaches 2^127
  // The host's threads and room, once: every plan below takes them from here.
  const host_share measured = host_share_for(threads, options);
  const host_resources host{threads, measured.threads, measured.room};
  reduction r;
  if (!totals.out_of_range()) r = options.count ? count_reduction(p, totals) : reduce(p, totals);
  const bool reducible = !totals.out_of_range();
  const bool open = reducible && r.outcome == reduction::verdict::open;
  // The reduced instance only for meet-in-the-middle: a dense instance may hold millions of items.
  const std::size_t left = open ? r.weights.size() : p.weights.size();
  if (open && !fill_tried && !host_tried && which != backend::cuda && options.algo == algorithm::automatic &&
      !options.count) {
    if (std::optional<heavy_split> split = heavy_split_of(r)) {
      return split_choice(std::move(r), std::move(*split), totals, measured);
    }
  }
  std::optional<choice> dp;
  dense_plan dense;
  if (which != backend::cuda) dp = dp_choice(p, totals, left, r, options, measured, dense);
  std::optional<double> fill;  // the solutions expected, where the greedy fill goes first
  if (dp && !fill_tried && !host_tried && which != backend::cuda) fill = fill_pays(r, options, *dp);
  if (dp && which == backend::automatic && !fill) {
    dp = device_dp_if_it_pays(p, totals, r, options, probe, std::move(*dp), host_tried);
  }
  choice c;
  if (!dp && open && which != backend::cuda) {
    if (std::optional<choice> search = completion_choice(left, r, options, measured, dense)) dp = std::move(search);
  }
  const bool table_or_search = dp.has_value();  // neither runs on the reduced instance q
  problem q;
  if (!table_or_search) q = open ? reduced_problem(r) : p;
  if (dp) {
    c = std::move(*dp);
  } else switch (which) {
    case backend::cpu:
      c = host_choice(q, options, host, "the cpu backend was asked for");
      break;
    case backend::cuda: {
      if (!cuda_compiled()) throw backend_unavailable("this build of ssum has no CUDA backend");
      if (!probe.present()) throw backend_unavailable("no CUDA device is present");
      if (options.algo == algorithm::dynamic_programming) {
        c = cuda_dp_choice(p, totals, r, options, device, probe,
                           "the cuda backend and the dynamic program were asked for");
        break;
      }
      c.where = backend::cuda;
      c.device = device;
      c.totals = totals_of(q);
      c.reason = "the cuda backend was asked for";
      choose_cuda_algorithm(q, options, probe, c);
      c.threads = cuda_host_threads(c.algo, threads);
      break;
    }
    case backend::automatic:
      // What the reductions settle needs no list, and so no device either.
      c = reducible && !open ? host_choice(q, options, host, "the reductions settle it")
                             : automatic_choice(q, options, host, probe);
      break;
    default:
      throw std::invalid_argument("unknown backend");
  }
  const bool dp_plan = c.algo == algorithm::dynamic_programming;
  c.reduced_instance = open && !table_or_search && !dp_plan;
  // Settled without any list or table: the dynamic program's count settles its own cases.
  c.settled = dp_plan ? c.reduced.outcome != reduction::verdict::open : reducible && r.outcome != reduction::verdict::open;
  c.out_of_range = totals.out_of_range();
  if (c.out_of_range) {
    c.reason = "the target " + to_string(totals.target) + " lies outside " + range_text(totals) +
               ", the sums a subset can reach: infeasible without building any list";
  } else if (c.settled && !dp_plan) {
    c.reason = "the reductions answer it without any list: " + joined(r.applied);
  }
  refuse_out_of_reach(c, left, r, options, host, open);
  if (fill) fill_first(*fill, c);
  if (!options.checkpoint.empty() && !c.settled && !c.out_of_range && c.algo != algorithm::four_list) {
    c.reason += "; no checkpoint: only the four-list keeps its progress, this plan runs in one piece";
  }
  // Moved, not copied: a dense instance may hold millions of items.
  if (!dp_plan) c.reduced = std::move(r);
  if (c.reduced_instance) c.instance = std::move(q);
  return c;
}

}  // namespace ssum::detail

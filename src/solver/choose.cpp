// The one decision of a solve (choose.hpp): backend, algorithm and the reason, from the
// totals, the refusal rules, the memory and the cost model, each computed once.
#include "solver/choose.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>

#include "solver/completion/completion_search.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/dp/count_dp.hpp"
#include "solver/four_list/four_list_cpu.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "solver/gpu/cuda_room.hpp"
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

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g s", s);
  return text;
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
  if (!refusal && two_list_merging_planned_bytes(n) <= room) {
    c.algo = algorithm::two_list;
    c.reason += "; " + lists_text(n, true) + " (" + format_bytes(two_list_merging_planned_bytes(n)) + ") fit the " +
                format_bytes(room) + " available" + on;
    return;
  }
  if (refusal) {
    c.reason += std::string("; ") + refusal;
  } else {
    c.reason += "; " + lists_text(n, true) + " need " + format_bytes(two_list_merging_planned_bytes(n)) +
                ", more than the " + format_bytes(room) + " available" + on;
  }
  if (four_list_cuda_refusal(p, c.totals)) {
    c.algo = algorithm::two_list;  // its refusal says why
    return;
  }
  c.algo = algorithm::four_list;
  c.reason += "; the four-list works in batches sized to the room";
}

std::string count_text(double v) {
  char text[32];
  if (v < 1e5) std::snprintf(text, sizeof text, "%.0f", v);
  else std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

// "2^100" for about 2^(n/2) sums of one two-list list.
std::string two_list_sums_text(std::size_t n) { return "2^" + std::to_string((n + 1) / 2); }

// The dynamic program's plan when it is named, when beyond most_items no other algorithm
// can run, or when it is cheaper than a host two-list that would take more than a
// millisecond (below that either answers at once, and the two-list keeps small instances).
// Empty: the meet-in-the-middle algorithms decide as before. `r`: the reductions of `p`
// (outcome open unless they settled it); `left`: the items left for meet-in-the-middle.
// The completion search's plan for one choose(), made at most once (a differencing pass over
// every item) and shared by dp_choice and completion_choice.
struct dense_plan {
  bool made = false;
  std::optional<completion_plan> plan;
  const std::optional<completion_plan>& of(const reduction& r, unsigned threads, double room) {
    if (!made) plan = completion_plan_for(r, threads, room), made = true;
    return plan;
  }
};

std::optional<choice> dp_choice(const problem& p, const flipped_totals& totals, std::size_t left,
                                const reduction& reduced, const solve_options& options, const host_resources& host,
                                dense_plan& dense) {
  const std::size_t n = p.weights.size();
  const bool named = options.algo == algorithm::dynamic_programming;
  // A count beyond most_items has only the dynamic program; below, automatic compares its
  // counting table with the meet-in-the-middle count.
  const bool count_auto = options.count && options.algo == algorithm::automatic;
  const bool count_beyond = count_auto && left > most_items;
  if (!named && !count_auto && options.algo != algorithm::automatic) return std::nullopt;
  if (options.count && !count_dp_available()) {
    if (!named && !count_beyond) return std::nullopt;  // the meet-in-the-middle algorithms count
    throw backend_unavailable("this build of ssum has no GMP (libgmp-dev): the dynamic program cannot count");
  }
  choice c;
  c.algo = algorithm::dynamic_programming;
  c.where = backend::cpu;
  c.threads = host.threads;
  c.host = host.share();
  c.totals = totals;
  if (totals.out_of_range()) {
    if (!named && n <= most_items) return std::nullopt;
    return c;  // choose() words the reason
  }
  if (reduced.outcome != reduction::verdict::open) {
    if (!named && !count_beyond && n <= most_items) return std::nullopt;
    c.reduced = reduced;
    c.reason = "the reductions answer it without a table: " + joined(reduced.applied);
    return c;
  }
  // The bitset on the grouped items, or Pisinger's balanced program (target, decision) on the
  // items as they are (grouping would raise its largest weight), whichever the models say is
  // faster among those whose plan fits.
  const double room = host.room;
  // Grouping sorts every item: only for a table that could exist.
  std::optional<reduction> grouped_items;
  if (!options.count && reduced.bound <= uint128(dp_most_sums)) grouped_items = group_equal_weights(reduced);
  const reduction& grouped = grouped_items ? *grouped_items : reduced;
  // Beyond dp_most_sums no plan is made: the table's own bits, what it would need at least.
  double bytes = options.count                            ? count_dp_planned_bytes(grouped)
                 : grouped.bound <= uint128(dp_most_sums) ? dp_planned_bytes(grouped, room)
                                                          : (double(grouped.bound) + 1) / 8;
  double seconds = options.count ? count_dp_seconds(grouped) : dp_seconds(grouped, c.threads);
  bool fits = bytes <= room;
  std::string table = std::string(options.count ? "a counting " : "a ") + "dynamic-programming table of " +
                      count_text(double(grouped.bound) + 1) + " sums (" + format_bytes(bytes) + ")";
  if (!reduced.zero_sum && !options.count) {
    const double balanced_bytes = balanced_planned_bytes(reduced);
    const double balanced = balanced_bytes <= room ? balanced_seconds(reduced) : 0;
    if (balanced_bytes <= room && (!fits || balanced < seconds)) {
      c.balanced = true;
      table = "Pisinger's balanced dynamic program (" + format_bytes(balanced_bytes) + "; about " +
              seconds_text(balanced) + " at most, the bitset about " + seconds_text(seconds) + ")";
      bytes = balanced_bytes, seconds = balanced, fits = true;
    }
  }
  c.estimate = seconds;
  const reduction& r = c.balanced ? reduced : grouped;
  // The reduction goes into the choice only when it is returned (a copy of every item).
  const auto taken = [&] {
    if (c.balanced) c.threads = 1;  // Pisinger's program runs on one
    c.reduced = r;
    return std::optional<choice>(std::move(c));
  };
  if (!r.applied.empty()) table += " after " + joined(r.applied);
  if (named) {
    check_plan_fits("the dynamic program", n, bytes, room);
    c.reason = "the dynamic program was asked for; " + table;
    return taken();
  }
  if (left > most_items) {
    if (!fits && !options.count && dense.of(reduced, c.threads, room)) return std::nullopt;  // dense: the completion search
    if (!fits) {
      throw insufficient_memory("n = " + std::to_string(left) + " with a reduced target of " +
                                    count_text(double(r.bound)) + ": " + table + " needs more than the " +
                                    format_bytes(room) + " available, meet-in-the-middle " +
                                    two_list_sums_text(left) + " sums of " + std::to_string(most_items) +
                                    " items at most; no algorithm here can answer it",
                                bytes, room);
    }
    c.reason = table + " fits the " + format_bytes(room) + " available; the meet-in-the-middle algorithms take at most " +
               std::to_string(most_items) + " items (the two-list would need " + two_list_sums_text(left) + " sums)";
    return taken();
  }
  // The meet-in-the-middle count walks both lists once more after the search (a fifth of a
  // unit per sum, two fifths on the host): 1.4 times the two-list's model, which is a lower
  // bound where the lists do not fit and the four-list (1.4-1.8x slower, performance.md) runs.
  const double two_list = host_two_list_seconds(left, c.threads) * (options.count ? 1.4 : 1.0);
  if (!fits || two_list <= 1e-3 || seconds >= two_list) return std::nullopt;
  c.reason = table + " takes about " + seconds_text(seconds) + ", the " + (options.count ? "counting " : "") +
             "two-list about " + seconds_text(two_list);
  return taken();
}

// The device's dynamic-programming tables for `r` (bitset_dp_cuda.hpp); 2^127 beyond dp_most_sums.
double cuda_dp_bytes(const reduction& r) {
  return r.bound <= uint128(dp_most_sums) ? dp_cuda_planned_bytes(r) : std::ldexp(1.0, 127);
}

// The device's dynamic program on the reduced instance `r`, its tables within the device's
// room; `why` opens the reason. No count on the device.
choice cuda_dp_choice(const problem& p, const flipped_totals& totals, const reduction& r, const solve_options& options,
                      int device, const device_probe& probe, const std::string& why) {
  if (options.count) {
    throw backend_unavailable("the dynamic program counts on the host only (--backend cpu)");
  }
  choice c;
  c.algo = algorithm::dynamic_programming;
  c.where = backend::cuda;
  c.device = device;
  c.totals = totals;
  if (totals.out_of_range()) return c;  // choose() words the reason
  c.reduced = r;
  if (r.outcome != reduction::verdict::open) {
    c.reason = "the reductions answer it without a table: " + joined(r.applied);
    return c;
  }
  const double bytes = cuda_dp_bytes(r);
  const double room = room_within(probe.room(device), options);
  check_plan_fits("the dynamic program on CUDA device " + std::to_string(device), p.weights.size(), bytes, room);
  c.reason = why + "; a dynamic-programming table of " +
             count_text(double(r.bound) + 1) + " sums (" + format_bytes(bytes) + ") fits the " + format_bytes(room) +
             " available on CUDA device " + std::to_string(device) +
             (r.applied.empty() ? "" : " after " + joined(r.applied));
  return c;
}

// Where solutions abound the host's program stops at the first, long before its estimate
// (a whole pass): balanced psix n = 1000 in 0.09 s of an estimated 1.75 s on the H200
// machine's host, uniform weights in 0.15 of it; the bitset in 0.33-0.36 of its own. Where
// such a stop would come before the device's start-up and plan (0.35 s for psix n = 1000
// there), the host's plan runs first, without asking the device (asking starts the CUDA
// driver: 0.2 s), for as long as the device would take (0.25 s to 1 s), and the device's plan
// is made only when it answers nothing in that time (choose's host_tried).
constexpr double host_first_least_log2_solutions = 20;
constexpr double balanced_early_share = 0.2, bitset_early_share = 0.4;
constexpr double host_first_least_seconds = 0.25, host_first_most_seconds = 1.0;

// Under automatic: the host's dynamic-programming plan `host`, or the device's when the host
// would need longer than a CUDA start-up plus the device's estimate and the tables fit device
// 0; or the host's first (choice::device_after_seconds, above) unless host_tried.
choice device_dp_if_it_pays(const problem& p, const flipped_totals& totals, const reduction& r,
                            const solve_options& options, const device_probe& probe, choice host, bool host_tried) {
  if (options.count || host.out_of_range || r.outcome != reduction::verdict::open || !cuda_compiled()) return host;
  if (host.estimate <= cuda_start_seconds) return host;
  const double device = cuda_start_seconds + dp_cuda_seconds(r);
  if (device >= host.estimate) return host;  // beyond dp_most_sums the model is 2^127
  if (!host_tried) {
    const double expected = log2_expected_solutions(r);
    const double early = host.estimate * (host.balanced ? balanced_early_share : bitset_early_share);
    if (expected >= host_first_least_log2_solutions && early < device) {
      host.device_after_seconds = std::clamp(device, host_first_least_seconds, host_first_most_seconds);
      char text[200];
      std::snprintf(text, sizeof text,
                    "; about 2^%.0f solutions expected, so it may stop within %s, before the device's %s with its "
                    "start-up: the device's plan only if it answers nothing by then",
                    std::min(expected, 1e6), seconds_text(host.device_after_seconds).c_str(),
                    seconds_text(device).c_str());
      host.reason += text;
      return host;
    }
  }
  try {
    if (!probe.present() || cuda_dp_bytes(r) > room_within(probe.room(0), options)) return host;
  } catch (const cuda_error&) {
    return host;  // a device that cannot be asked is no device for automatic
  }
  return cuda_dp_choice(p, totals, r, options, 0, probe,
                        std::string(host_tried ? "the host's program answered nothing within the device's time; " : "") +
                            "the host's dynamic program would take about " + seconds_text(host.estimate) +
                            ", the device's about " + seconds_text(device) + " with its start-up");
}

// The completion search (completion/completion_search.hpp) when named, or under automatic for
// a dense instance (a target or zero-sum) that no exact algorithm here answers within about
// 10 s (the two-list's model, or beyond most_items) and for which completion_plan_for finds a
// plan (made once per choose, in `dense`). Empty: the exact algorithms decide as before.
std::optional<choice> completion_choice(std::size_t n, const reduction& r, const solve_options& options,
                                        const host_resources& host, dense_plan& dense) {
  const bool named = options.algo == algorithm::completion_search;
  if (!named && (options.algo != algorithm::automatic || options.count)) return std::nullopt;
  const unsigned resolved = host.threads;
  const std::optional<completion_plan>& plan = dense.of(r, resolved, host.room);
  if (named) {
    if (options.count) throw std::invalid_argument("the completion search finds one subset; it cannot count");
    if (!plan) {
      throw std::invalid_argument(
          "the completion search takes a dense instance: after the reductions, at least 48 items whose "
          "differencing leaves K numbers (K from 48 to 92) with solutions in a few residue classes of their "
          "four-list, within the memory");
    }
  }
  const double exact = n > most_items ? 1e300 : host_two_list_seconds(n, resolved);
  if (!named && (!plan || exact < 10)) return std::nullopt;
  choice c;
  c.algo = algorithm::completion_search;
  c.completion = plan;
  c.where = backend::cpu;
  c.threads = resolved;
  c.host = host.share();
  // choose() sets c.reduced to r; the search works on the original instance and r alone.
  char expected[32];
  std::snprintf(expected, sizeof expected, "2^%.0f", plan->log2_solutions);
  const std::string how =
      plan->perfect ? "differencing to the end leaves 0, a perfect partition at once"
                    : "differencing leaves " + std::to_string(plan->items) + " numbers with about " + expected +
                          " subsets of half their total, found by " +
                          (plan->table ? "the dynamic program" : "a few residue classes of their four-list");
  c.reason = std::string(named ? "the completion search was asked for" : "a dense instance") + ": " + how +
             " (it finds, it cannot prove none)" +
             (named ? "" : "; the exact algorithms would take more than " +
                               (n > most_items ? std::string("any time here") : seconds_text(exact)));
  return c;
}

// The GPU four-list's whole search, measured at n = 80 (64-bit sums, docs/performance.md):
// 92 s, doubling every two items.
double cuda_four_list_seconds(std::size_t n) { return 92 * std::exp2((double(n) - 80) / 2); }

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
  const double seconds = c.where == backend::cuda ? cuda_four_list_seconds(n)
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

void refuse_beyond_most_items(const problem& p, algorithm algo) {
  const std::size_t n = p.weights.size();
  if (n <= most_items) return;
  if (algo == algorithm::four_list) {
    throw std::invalid_argument("the four-list algorithm takes at most " + std::to_string(most_items) + " items");
  }
  if (algo == algorithm::automatic) {
    // Named for what the user asked: no algorithm (not "the four-list") can take this.
    throw std::invalid_argument("no algorithm here takes more than " + std::to_string(most_items) +
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
// four-list when it can take `p` (totals below 2^64) and the two-list is not named; the host
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
                    two_list_merging_planned_bytes(p.weights.size()) <= room_within(probe.room(0), options);
  } catch (const cuda_error&) {
    // A device that cannot even be asked (a CUDA context needs far more address space than a
    // `ulimit -v` may leave) is no device for automatic: the host answers instead.
    return host_choice(p, options, host, "the CUDA device could not be asked", &totals);
  }
  if (two_list_fits) {
    c.algo = algorithm::two_list;
    c.threads = cuda_host_threads(c.algo, host.asked);
    c.reason = longer + "; " + lists_text(p.weights.size(), true) + " (" +
               format_bytes(two_list_merging_planned_bytes(p.weights.size())) + ") fit CUDA device 0";
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
  const char* name = out_of_range || settled ? "reductions" : balanced ? "balanced-dp" : name_of(algo);
  return {name, where == backend::cuda ? "cuda" : "cpu", reason};
}

choice choose(const problem& p, const solve_options& options, backend which, unsigned threads, int device,
              const device_probe& probe, bool host_tried) {
  if (options.algo != algorithm::automatic && options.algo != algorithm::two_list &&
      options.algo != algorithm::four_list && options.algo != algorithm::dynamic_programming &&
      options.algo != algorithm::completion_search) {
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
  std::optional<choice> dp;
  dense_plan dense;
  if (which != backend::cuda) dp = dp_choice(p, totals, left, r, options, host, dense);
  if (dp && which == backend::automatic) {
    dp = device_dp_if_it_pays(p, totals, r, options, probe, std::move(*dp), host_tried);
  }
  choice c;
  if (!dp && open && which != backend::cuda) {
    if (std::optional<choice> search = completion_choice(left, r, options, host, dense)) dp = std::move(search);
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
  // Moved, not copied: a dense instance may hold millions of items.
  if (!dp_plan) c.reduced = std::move(r);
  if (c.reduced_instance) c.instance = std::move(q);
  return c;
}

}  // namespace ssum::detail

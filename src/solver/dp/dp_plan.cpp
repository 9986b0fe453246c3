// The dynamic program's part of the decision (dp_plan.hpp): the host's table or Pisinger's
// balanced program against the meet-in-the-middle model, and the device's table when it pays.
#include "solver/dp/dp_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "solver/completion/completion_search.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/dp/count_dp.hpp"
#include "solver/gpu/cuda_room.hpp"
#include "solver/plan_words.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {

std::optional<choice> dp_choice(const problem& p, const flipped_totals& totals, std::size_t left,
                                const reduction& reduced, const solve_options& options, const host_share& host,
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
  c.host = host;
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

namespace {

// The device's dynamic-programming tables for `r` (bitset_dp_cuda.hpp); 2^127 beyond dp_most_sums.
double cuda_dp_bytes(const reduction& r) {
  return r.bound <= uint128(dp_most_sums) ? dp_cuda_planned_bytes(r) : std::ldexp(1.0, 127);
}

}  // namespace

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
namespace {

constexpr double host_first_least_log2_solutions = 20;
constexpr double host_first_least_seconds = 0.25, host_first_most_seconds = 1.0;

}  // namespace

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

}  // namespace ssum::detail

// ssum::list_subsets (ssum/solve.hpp): every subset in a window, handed out as found, by one of
// three enumerators over the instance as given: the meet in the middle (two_list/enumerate.hpp),
// the four-list (four_list/enumerate_four.hpp) or the table of reachable sums
// (dp/enumerate_dp.hpp). A reduction that sets items aside (zero weights, forced or heavy items,
// divisor groups) would have to give back every subset it stands for, so none runs here: the
// enumerators take zeros, duplicates and signs as they come.
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/deadline_watch.hpp"
#include "solver/frame.hpp"
#include "solver/dp/enumerate_dp.hpp"
#include "solver/four_list/enumerate_four.hpp"
#include "solver/two_list/enumerate.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"
#include "ssum/solve.hpp"

namespace ssum {
namespace {

// A subset the enumerator hands out is checked before the caller sees it: ascending indices
// in range, its sum in the window, its size in the bounds, not empty for zero-sum.
void verify(const problem& p, const std::vector<std::size_t>& subset, int128 lo, int128 hi,
            const listing_options& o) {
  int128 sum = 0;
  for (std::size_t k = 0; k < subset.size(); ++k) {
    if (subset[k] >= p.weights.size() || (k > 0 && subset[k] <= subset[k - 1])) {
      throw std::logic_error("listing: a subset whose indices are not ascending and in range");
    }
    sum += p.weights[subset[k]];
  }
  if (sum < lo || sum > hi || subset.size() < o.min_items || subset.size() > o.max_items ||
      (!p.target && subset.empty())) {
    throw std::logic_error("listing: a subset outside the window or the size bounds");
  }
}

enum class listing_method { two_list, four_list, dp };

struct listing_plan {
  listing_method method = listing_method::two_list;
  std::string algorithm, reason;
  unsigned threads = 1;
  double bytes = 0;
};

// The number of values of [lo, hi] that some subset can reach (the window clipped to
// [-negatives, positives]); 0 for an empty window.
uint128 reachable_width(const problem& p, int128 lo, int128 hi) {
  const detail::flipped_totals t = detail::totals_of(p);
  lo = std::max(lo, t.least());
  hi = std::min(hi, t.most());
  return lo > hi ? 0 : uint128(hi - lo) + 1;
}

// Seconds a listing is expected to take before its subsets are handed out, from the plain
// solvers' measures on the 2-core machine: the meet in the middle builds and walks its lists
// at about 4 ns an entry on one thread, the four-list forms each of its 2^(n/2) pairs per side
// once per target at about 3 ns on one thread.
double two_list_seconds(double entries) { return entries * 4e-9; }
double four_list_seconds(std::size_t n, uint128 width, unsigned threads) {
  return double(width) * 2 * std::ldexp(3e-9, int(n / 2)) * (n % 2 ? 1.41 : 1.0) / double(threads);
}
// The table is built a 64-bit word at a time, about 1 ns a word.
double dp_seconds(double bytes) { return bytes / 8 * 1e-9; }

// One enumerator as the plan sees it: whether it can take the instance at all (and why not),
// its memory and its expected time.
struct candidate {
  listing_method method;
  algorithm algo;
  const char* name;   // as the plan reports it
  const char* lists;  // what its memory holds, for a refusal
  std::string cannot;  // why it cannot take the instance; empty when it can
  double bytes = 0, seconds = 0;
};

// The meet in the middle (its lists sized by the size bounds), the four-list (memory 2^(n/4),
// a narrow window) or the table of reachable sums (any n, a small span of sums): the one named
// by o.algo, or under automatic whichever fits and is expected sooner (ties in that order: the
// table, then the meet in the middle).
listing_plan plan_listing(const problem& p, int128 lo, int128 hi, const listing_options& o, unsigned threads,
                          double room) {
  if (o.algo == algorithm::completion_search) {
    throw std::invalid_argument("the completion search cannot list subsets: it proves nothing");
  }
  const std::size_t n = p.weights.size();
  const uint128 width = reachable_width(p, lo, hi);
  candidate table{listing_method::dp, algorithm::dynamic_programming, "dp", "a table of their reachable sums", {}, 0, 0};
  table.bytes = detail::enumerate_dp_bytes(p.weights, lo, hi, o.min_items, o.max_items);
  if (table.bytes == std::numeric_limits<double>::infinity()) {
    table.cannot = "the table of reachable sums cannot take a span of sums this wide";
  }
  table.seconds = dp_seconds(table.bytes);
  candidate halves{listing_method::two_list, algorithm::two_list, "two-list", "two half lists", {}, 0, 0};
  if (n > detail::enumerate_most_items) {
    halves.cannot = "the meet in the middle takes at most " + std::to_string(detail::enumerate_most_items) + " items";
    halves.bytes = detail::enumerate_planned_bytes(detail::enumerate_most_items);
  } else {
    halves.bytes = detail::enumerate_list_bytes(p.weights, o.max_items);
  }
  // bytes / 16 entries: the 32-byte entries of wide sums count twice, as they cost about that.
  halves.seconds = two_list_seconds(halves.bytes / 16);
  candidate quarters{listing_method::four_list, algorithm::four_list, "four-list", "four quarter lists", {}, 0, 0};
  if (n > detail::enumerate_four_most_items) {
    quarters.cannot = "the four-list takes at most " + std::to_string(detail::enumerate_four_most_items) + " items";
  } else if (width > detail::enumerate_four_widest_window) {
    quarters.cannot = "the four-list takes a window of at most " +
                      std::to_string(detail::enumerate_four_widest_window) + " values";
  }
  quarters.bytes = detail::enumerate_four_bytes(n, threads);
  quarters.seconds = four_list_seconds(n, width, threads);

  std::vector<const candidate*> asked;
  for (const candidate* c : {&table, &halves, &quarters}) {
    if (o.algo == algorithm::automatic || o.algo == c->algo) asked.push_back(c);
  }
  if (asked.size() == 1 && !asked[0]->cannot.empty()) throw std::invalid_argument(asked[0]->cannot);
  const candidate* best = nullptr;
  for (const candidate* c : asked) {
    if (c->cannot.empty() && c->bytes <= room && (!best || c->seconds < best->seconds)) best = c;
  }
  const std::string items = "listing the subsets of n = " + std::to_string(n) + " items";
  if (!best) {
    // None fits: the smallest plan of those that could take the instance, or why none can.
    const candidate* smallest = nullptr;
    std::string reasons;
    for (const candidate* c : asked) {
      if (!c->cannot.empty()) reasons += "; " + c->cannot;
      if (c->cannot.empty() && (!smallest || c->bytes < smallest->bytes)) smallest = c;
    }
    if (smallest) throw insufficient_memory::needs(items + " (" + smallest->lists + ")", smallest->bytes, room);
    throw insufficient_memory::needs(items + reasons, halves.bytes, room);
  }
  listing_plan plan;
  plan.method = best->method;
  plan.algorithm = best->name;
  plan.bytes = best->bytes;
  const std::string given = " over the instance as given (no reduction: each would have to give back the subsets it sets aside)";
  switch (best->method) {
    case listing_method::dp:
      plan.reason = "every subset in the window is listed by backtracking through the table of reachable sums" + given +
                    ", one bit per sum and item" + std::string(o.min_items > 0 || o.max_items < n ? " and size" : "") +
                    ", " + format_bytes(plan.bytes) + " on the host";
      break;
    case listing_method::two_list:
      plan.reason = "every subset in the window is listed by the meet in the middle" + given +
                    ", its two half lists with their masks taking " + format_bytes(plan.bytes) + " on the host";
      break;
    case listing_method::four_list:
      plan.threads = threads;
      plan.reason = "every subset in the window is listed by the four-list" + given + ", one target at a time (" +
                    std::to_string(std::uint64_t(width)) + (width == 1 ? " target" : " targets") +
                    "), its quarter lists and one residue class per thread taking " + format_bytes(plan.bytes) +
                    " on the host";
      break;
  }
  return plan;
}

}  // namespace

listing list_subsets(backend which, unsigned threads, const problem& p, const listing_options& options,
                     const std::function<bool(const std::vector<std::size_t>&)>& on_subset) {
  const auto start = detail::clock_type::now();
  check_weight_total(p);
  const std::optional<detail::clock_type::time_point> deadline = detail::deadline_after(options.time_limit, start);
  if (options.min_items > options.max_items) {
    throw std::invalid_argument("the smallest size asked for (" + std::to_string(options.min_items) +
                                " items) is above the largest (" + std::to_string(options.max_items) + ")");
  }
  if (!p.target && options.high) {
    throw std::invalid_argument("a zero-sum instance lists the non-empty subsets that sum to 0: it takes no window");
  }
  if (which == backend::cuda) {
    throw backend_unavailable("the listing of subsets runs on the host: --backend cuda cannot take it");
  }
  const int128 lo = p.target.value_or(0);
  const int128 hi = p.target ? options.high.value_or(*p.target) : 0;
  const detail::host_share host = detail::host_share_for(threads, solve_options{});
  const double room = host_plan_room(options.memory_limit);
  const listing_plan plan = plan_listing(p, lo, hi, options, host.threads, room);
  listing out;
  out.algorithm = plan.algorithm;
  out.backend = "cpu";
  out.threads = plan.threads;
  out.planned_bytes = std::uint64_t(std::min(plan.bytes, 1.8e19));
  out.plan = {plan.algorithm, "cpu", plan.reason};

  // The time limit raises a flag of the listing's own, as it does for a solve.
  std::atomic<bool> stop{false}, timed_out{false};
  std::optional<detail::deadline_watch> watch;
  if (deadline) watch.emplace(*deadline, options.cancel, stop, timed_out);
  detail::enumerate_request request;
  request.weights = &p.weights;
  request.lo = lo;
  request.hi = hi;
  request.non_empty = !p.target;
  request.min_items = options.min_items;
  request.max_items = options.max_items;
  request.limit = options.limit;
  request.cancel = watch ? &stop : options.cancel;
  request.max_bytes = room;
  const auto checked = [&](const std::vector<std::size_t>& subset) {
    verify(p, subset, lo, hi, options);
    return on_subset(subset);
  };
  detail::enumerate_result r;
  try {
    r = plan.method == listing_method::four_list ? detail::enumerate_subsets_four(request, plan.threads, checked)
        : plan.method == listing_method::dp      ? detail::enumerate_subsets_dp(request, checked)
                                                 : detail::enumerate_subsets(request, checked);
  } catch (const std::bad_alloc&) {
    // A heavy residue class (many equal sums) can outgrow the four-list's plan.
    throw insufficient_memory::ran_out("listing the subsets by the " + plan.algorithm, plan.bytes, room);
  }
  watch.reset();
  out.listed = r.listed;
  out.complete = r.complete;
  out.seconds = detail::seconds_since(start);
  if (r.cancelled && timed_out.load()) {
    out.timed_out = true;
  } else if (r.cancelled) {
    out.complete = false;
    throw listing_interrupted(out);  // the caller's own flag: Ctrl-C; what ran goes with it
  }
  return out;
}

}  // namespace ssum

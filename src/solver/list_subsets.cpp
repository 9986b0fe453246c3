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
  lo = std::max(lo, -int128(t.negative_abs));
  hi = std::min(hi, int128(t.total_abs - t.negative_abs));
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

// The meet in the middle (its lists sized by the size bounds), the four-list (memory 2^(n/4),
// a narrow window) or the table of reachable sums (any n, a small span of sums), whichever
// fits and is expected sooner.
listing_plan plan_listing(const problem& p, int128 lo, int128 hi, const listing_options& o, unsigned threads,
                          double room) {
  const std::size_t n = p.weights.size();
  const uint128 width = reachable_width(p, lo, hi);
  const bool two_fits_n = n <= detail::enumerate_most_items;
  const double two_bytes = two_fits_n ? detail::enumerate_list_bytes(p.weights, o.max_items)
                                      : detail::enumerate_planned_bytes(detail::enumerate_most_items);
  bool two_fits = two_fits_n && two_bytes <= room;
  const bool four_takes = n <= detail::enumerate_four_most_items && width <= detail::enumerate_four_widest_window;
  const double four_bytes = detail::enumerate_four_bytes(n, threads);
  bool four_fits = four_takes && four_bytes <= room;
  const double dp_bytes = detail::enumerate_dp_bytes(p.weights, lo, hi, o.min_items, o.max_items);
  bool dp_fits = dp_bytes <= room;
  listing_plan plan;
  const std::string given = " over the instance as given (no reduction: each would have to give back the subsets it sets aside)";
  const double inf = std::numeric_limits<double>::infinity();
  const std::string items = "n = " + std::to_string(n) + " items";
  switch (o.algo) {  // one enumerator asked for: it, or why not
    case algorithm::automatic:
      break;
    case algorithm::two_list:
      if (!two_fits_n) {
        throw std::invalid_argument("the two-list lists at most " + std::to_string(detail::enumerate_most_items) +
                                    " items (" + std::to_string(n) + " given)");
      }
      if (!two_fits) throw insufficient_memory::needs("listing the subsets of " + items + " (two half lists)", two_bytes, room);
      four_fits = dp_fits = false;
      break;
    case algorithm::four_list:
      if (!four_takes) {
        throw std::invalid_argument("the four-list lists at most " + std::to_string(detail::enumerate_four_most_items) +
                                    " items and a window of at most " +
                                    std::to_string(detail::enumerate_four_widest_window) + " values");
      }
      if (!four_fits) {
        throw insufficient_memory::needs("listing the subsets of " + items + " (four quarter lists)", four_bytes, room);
      }
      two_fits = dp_fits = false;
      break;
    case algorithm::dynamic_programming:
      if (dp_bytes == inf) {
        throw std::invalid_argument("the dp lists from a table of the reachable sums: their span is too wide for one");
      }
      if (!dp_fits) {
        throw insufficient_memory::needs("listing the subsets of " + items + " (a table of their reachable sums)",
                                         dp_bytes, room);
      }
      two_fits = four_fits = false;
      break;
    default:
      throw std::invalid_argument("the completion search cannot list subsets: it proves nothing");
  }
  // bytes / 16 entries: the 32-byte entries of wide sums count twice, as they cost about that.
  const double two_s = two_fits ? two_list_seconds(two_bytes / 16) : inf;
  const double four_s = four_fits ? four_list_seconds(n, width, threads) : inf;
  const double dp_s = dp_fits ? dp_seconds(dp_bytes) : inf;
  if (dp_fits && dp_s <= two_s && dp_s <= four_s) {
    plan.method = listing_method::dp;
    plan.algorithm = "dp";
    plan.bytes = dp_bytes;
    plan.reason = "every subset in the window is listed by backtracking through the table of reachable sums" + given +
                  ", one bit per sum and item" + std::string(o.min_items > 0 || o.max_items < n ? " and size" : "") +
                  ", " + format_bytes(dp_bytes) + " on the host";
    return plan;
  }
  if (two_fits && two_s <= four_s) {
    plan.method = listing_method::two_list;
    plan.algorithm = "two-list";
    plan.bytes = two_bytes;
    plan.reason = "every subset in the window is listed by the meet in the middle" + given +
                  ", its two half lists with their masks taking " + format_bytes(two_bytes) + " on the host";
    return plan;
  }
  if (four_fits) {
    plan.method = listing_method::four_list;
    plan.algorithm = "four-list";
    plan.threads = threads;
    plan.bytes = four_bytes;
    plan.reason = "every subset in the window is listed by the four-list" + given + ", one target at a time (" +
                  std::to_string(std::uint64_t(width)) + (width == 1 ? " target" : " targets") +
                  "), its quarter lists and one residue class per thread taking " + format_bytes(four_bytes) +
                  " on the host";
    return plan;
  }
  // None fits: the error names the smallest plan, or why the four-list cannot take it.
  if (dp_bytes < std::min(two_bytes, four_takes ? four_bytes : inf)) {
    throw insufficient_memory::needs("listing the subsets of n = " + std::to_string(n) +
                                         " items (a table of their reachable sums)",
                                     dp_bytes, room);
  }
  if (four_takes && four_bytes < two_bytes) {
    throw insufficient_memory::needs("listing the subsets of n = " + std::to_string(n) + " items (four quarter lists)",
                                     four_bytes, room);
  }
  if (two_fits_n) {
    throw insufficient_memory::needs("listing the subsets of n = " + std::to_string(n) + " items (two half lists)" +
                                         (n > detail::enumerate_four_most_items || four_takes
                                              ? std::string()
                                              : "; the four-list, which needs less, lists a window of at most " +
                                                    std::to_string(detail::enumerate_four_widest_window) + " values"),
                                     two_bytes, room);
  }
  throw insufficient_memory::needs(
      "listing the subsets of n = " + std::to_string(n) + " items: the meet in the middle takes at most " +
          std::to_string(detail::enumerate_most_items) + " items, the four-list " +
          std::to_string(detail::enumerate_four_most_items) + " items and a window of at most " +
          std::to_string(detail::enumerate_four_widest_window) + " values",
      std::max(two_bytes, four_bytes), room);
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
    throw interrupted();  // the caller's own flag: Ctrl-C
  }
  return out;
}

}  // namespace ssum

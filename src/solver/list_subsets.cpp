// ssum::list_subsets (ssum/solve.hpp): every subset in a window, handed out as found. The
// listing runs the meet-in-the-middle enumerator (two_list/enumerate.hpp) over the instance as
// given: a reduction that sets items aside (zero weights, forced or heavy items, divisor
// groups) would have to give back every subset it stands for, so none runs here.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/deadline_watch.hpp"
#include "solver/frame.hpp"
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
  const std::size_t n = p.weights.size();
  listing out;
  out.algorithm = "two-list";
  out.backend = "cpu";
  out.threads = 1;
  (void)threads;  // one thread: the subsets are handed out in one stream
  const double bytes = n > detail::enumerate_most_items ? detail::enumerate_planned_bytes(n)
                                                        : detail::enumerate_list_bytes(p.weights, options.max_items);
  const double room = host_plan_room(options.memory_limit);
  out.planned_bytes = std::uint64_t(std::min(bytes, 1.8e19));
  out.plan = {"two-list", "cpu",
              "every subset in the window is listed by the meet-in-the-middle over the instance as given "
              "(no reduction: each would have to give back the subsets it sets aside), its two half lists "
              "with their masks taking " + format_bytes(bytes) + " on the host"};
  if (bytes > room || n > detail::enumerate_most_items) {
    throw insufficient_memory::needs("listing the subsets of n = " + std::to_string(n) + " items (two half lists)",
                                     bytes, room);
  }
  const int128 lo = p.target.value_or(0);
  const int128 hi = p.target ? options.high.value_or(*p.target) : 0;

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
  const detail::enumerate_result r = detail::enumerate_subsets(request, [&](const std::vector<std::size_t>& subset) {
    verify(p, subset, lo, hi, options);
    return on_subset(subset);
  });
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

// ssum::list_subsets (ssum/solve.hpp): every subset in a window, handed out as found, by one of
// five enumerators over the instance as given: the meet in the middle on the host
// (two_list/enumerate.hpp) or on a CUDA device (two_list/enumerate_cuda.hpp), the four-list
// (four_list/enumerate_four.hpp), the table of reachable sums (dp/enumerate_dp.hpp) or, for a
// few items of many, a walk over every subset of that size
// (few_items/enumerate_few.hpp). A reduction that sets items aside (zero weights, forced or heavy items,
// divisor groups) would have to give back every subset it stands for, so none runs here: the
// enumerators take zeros, duplicates and signs as they come. Where listing the complements
// (the items each subset leaves out) is expected sooner, that question is asked instead and each
// subset mapped back: k items near n are the few that n - k items leave out.
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/deadline_watch.hpp"
#include "solver/frame.hpp"
#include "solver/dp/enumerate_dp.hpp"
#include "solver/few_items/enumerate_few.hpp"
#include "solver/subset_masks.hpp"
#include "solver/four_list/enumerate_four.hpp"
#include "solver/gpu/cuda_room.hpp"
#include "solver/two_list/enumerate.hpp"
#include "solver/two_list/enumerate_cuda.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/explain.hpp"
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

enum class listing_method { two_list, two_list_cuda, four_list, dp, few_items };

struct listing_plan {
  listing_method method = listing_method::two_list;
  std::string algorithm, backend = "cpu", reason;
  unsigned threads = 1;
  double bytes = 0, seconds = 0;
};

// What an enumerator is asked: the window, the size bounds, whether the empty subset is left out.
struct question {
  int128 lo = 0, hi = 0;
  std::size_t min_items = 0, max_items = SIZE_MAX;
  bool non_empty = false;
};

// The same listing asked of the complements: S has k items summing to s exactly when the
// items it leaves out are n - k summing to total - s, so [lo, hi] becomes [total - hi,
// total - lo] and [a, b] items [n - b, n - a]. Leaving out the empty subset (zero-sum) is
// leaving out the whole set: at most n - 1 items. nullopt when nothing can be listed (the
// window past every sum or the bounds empty), which the question as given answers as well.
std::optional<question> complement_of(const problem& p, const question& q) {
  const std::size_t n = p.weights.size();
  const std::size_t a = std::max<std::size_t>(q.min_items, q.non_empty ? 1 : 0), b = std::min(q.max_items, n);
  const detail::flipped_totals t = detail::totals_of(p);
  // Clipped to the reachable sums first, so that total - hi and total - lo stay within them
  // (a window's ends near +-2^127 would overflow otherwise).
  const int128 lo = std::max(q.lo, t.least()), hi = std::min(q.hi, t.most());
  if (a > b || lo > hi) return std::nullopt;
  const int128 total = t.least() + t.most();
  question c;
  c.lo = total - hi;
  c.hi = total - lo;
  c.min_items = n - b;
  c.max_items = n - a;
  return c;
}

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
// The device listing: the CUDA context's start, then about 1 ns a sum to form, sort and pair
// both halves (a radix sort of 64-bit keys with their masks dominates). Below its start-up
// the host is sooner, and the device is not even asked (asking starts CUDA).
constexpr double cuda_listing_start = 0.3;
double cuda_two_list_seconds(std::size_t n) {
  return cuda_listing_start + 1e-9 * (std::ldexp(1.0, int(n / 2)) + std::ldexp(1.0, int(n - n / 2)));
}
// The table is built a 64-bit word at a time, about 1 ns a word.
double dp_seconds(double bytes) { return bytes / 8 * 1e-9; }
// The walk over every subset of a few items: a step, an add and a compare, about 5 ns.
double few_items_seconds(double steps) { return steps * 5e-9; }
// Past this many subsets (about a day and a half) the walk is not a plan.
constexpr double few_items_most_steps = 2.5e13;

// Whether a CUDA device is present, asked at most once per listing (the question and its
// complement, and the refusal of --backend cuda, share the answer; asking starts CUDA).
class device_question {
 public:
  bool present() {
    if (!asked_) present_ = cuda_compiled() && !cuda_devices().empty(), asked_ = true;
    return present_;
  }

 private:
  bool asked_ = false, present_ = false;
};

// What list_subsets and explain_listing refuse before any plan: weights past 2^127, sizes
// the wrong way round, a window on a zero-sum instance, the device.
void check_listing(backend which, const problem& p, const listing_options& options, device_question& device) {
  check_weight_total(p);
  if (options.min_items > options.max_items) {
    throw std::invalid_argument("the smallest size asked for (" + std::to_string(options.min_items) +
                                " items) is above the largest (" + std::to_string(options.max_items) + ")");
  }
  if (!p.target && options.high) {
    throw std::invalid_argument("a zero-sum instance lists the non-empty subsets that sum to 0: it takes no window");
  }
  if (which == backend::cuda) {
    if (!cuda_compiled()) throw backend_unavailable("this build of ssum has no CUDA backend");
    if (!device.present()) throw backend_unavailable("no CUDA device is present");
  }
}

// One enumerator as the plan sees it: whether it can take the instance at all (and why not),
// its memory and its expected time.
struct candidate {
  listing_method method;
  algorithm algo;
  const char* name;   // as the plan reports it
  const char* lists;  // what its memory holds, for a refusal
  std::string cannot;  // why it cannot take the instance; empty when it can
  double bytes = 0, seconds = 0;
  const char* backend = "cpu";
  double room = 0;  // the memory it plans within: the host's, or the device's
};

// The meet in the middle (its lists sized by the size bounds), the four-list (memory 2^(n/4),
// a narrow window), the table of reachable sums (any n, a small span of sums) or, under
// automatic only, the walk over every subset of a few items: the one named by algo, or under
// automatic whichever fits and is expected sooner (ties in that order: the table, then the meet
// in the middle).
// shown: where ssum::explain_listing wants each candidate as a row of its table (`as` opens
// each row's note: which question it answers).
listing_plan plan_listing(backend which, device_question& device, const problem& p, const question& q, algorithm algo,
                          unsigned threads, double room, std::uint64_t memory_limit,
                          std::vector<plan_candidate>* shown = nullptr,
                          const std::string& as = "") {
  if (algo == algorithm::lattice) {
    throw std::invalid_argument("the lattice stage finds one subset of several rows: it does not list");
  }
  if (algo == algorithm::completion_search) {
    throw std::invalid_argument("the completion search cannot list subsets: it proves nothing");
  }
  const std::size_t n = p.weights.size();
  const uint128 width = reachable_width(p, q.lo, q.hi);
  candidate table{listing_method::dp, algorithm::dynamic_programming, "dp", "a table of their reachable sums", {}, 0, 0};
  table.bytes = detail::enumerate_dp_bytes(p.weights, q.lo, q.hi, q.min_items, q.max_items);
  if (table.bytes == std::numeric_limits<double>::infinity()) {
    table.cannot = "the table of reachable sums cannot take a span of sums this wide";
  }
  table.seconds = dp_seconds(table.bytes);
  candidate halves{listing_method::two_list, algorithm::two_list, "two-list", "two half lists", {}, 0, 0};
  if (n > detail::enumerate_most_items) {
    halves.cannot = "the meet in the middle takes at most " + std::to_string(detail::enumerate_most_items) + " items";
  } else {
    halves.bytes = detail::enumerate_list_bytes(p.weights, q.max_items);
  }
  // bytes / 16 entries: the 32-byte entries of wide sums count twice, as they cost about that.
  halves.seconds = two_list_seconds(halves.bytes / 16);
  // Every subset of at most max_items items in turn: no lists, any n, any width of sums; only the
  // plan's own choice (no --algorithm names it), for a few items of many that the others refuse.
  candidate few{listing_method::few_items, algorithm::automatic, "few-items", "the walk's indices", {}, 0, 0};
  const double steps = detail::enumerate_few_steps(n, q.max_items);
  if (steps > few_items_most_steps) {
    few.cannot = "visiting each subset of at most " + std::to_string(std::min(q.max_items, n)) +
                 " items takes more than 2.5 x 10^13 steps";
  }
  few.bytes = double(n) * 2 * sizeof(std::size_t);
  few.seconds = few_items_seconds(steps);
  candidate quarters{listing_method::four_list, algorithm::four_list, "four-list", "four quarter lists", {}, 0, 0};
  if (n > detail::enumerate_four_most_items) {
    quarters.cannot = "the four-list takes at most " + std::to_string(detail::enumerate_four_most_items) + " items";
  } else if (width > detail::enumerate_four_widest_window) {
    quarters.cannot = "the four-list takes a window of at most " +
                      std::to_string(detail::enumerate_four_widest_window) + " values";
  }
  quarters.bytes = detail::enumerate_four_bytes(n, threads);
  quarters.seconds = four_list_seconds(n, width, threads);
  for (candidate* c : {&table, &halves, &few, &quarters}) c->room = room;
  // The meet in the middle on the device: under automatic only where the host's best is
  // expected to take longer than the device's start-up (asking for a device starts CUDA).
  candidate gpu_halves{listing_method::two_list_cuda, algorithm::two_list, "two-list", "two half lists on the GPU",
                       {}, 0, 0, "cuda", 0};
  double host_best = std::numeric_limits<double>::infinity();
  for (const candidate* c : {&table, &halves, &quarters, &few}) {
    if (c->cannot.empty() && c->bytes <= room && (algo == algorithm::automatic || algo == c->algo))
      host_best = std::min(host_best, c->seconds);
  }
  if (!cuda_compiled()) {
    gpu_halves.cannot = "this build of ssum has no CUDA backend";
  } else if (std::string why = detail::enumerate_cuda_refusal(p.weights); !why.empty()) {
    gpu_halves.cannot = std::move(why);
  } else if (which == backend::automatic && host_best <= cuda_listing_start) {
    gpu_halves.cannot = "the host lists it sooner than a GPU starts";
  } else if (!device.present()) {
    gpu_halves.cannot = "no CUDA device is present";
  } else {
    gpu_halves.bytes = detail::enumerate_cuda_bytes(n);
    gpu_halves.seconds = cuda_two_list_seconds(n);
    try {
      // The device's free memory, and no more than --memory: the limit caps every plan.
      solve_options limit;  // room_within reads its memory limit only
      limit.memory_limit = memory_limit;
      gpu_halves.room = detail::room_within(detail::cuda_solver_room(0), limit);
    } catch (const cuda_error& e) {
      gpu_halves.cannot = std::string("the device cannot say how much memory it has: ") + e.what();
    }
  }
  // The candidates the backend allows: the host's on cpu, the device's on cuda, all under auto.
  std::vector<candidate*> all;
  if (which != backend::cuda)
    for (candidate* c : {&table, &halves, &quarters, &few}) all.push_back(c);
  if (which != backend::cpu) all.push_back(&gpu_halves);

  if (shown) {
    for (const candidate* c : all) {
      plan_candidate row;
      row.algorithm = c->name;
      row.backend = c->backend;
      row.takes = c->cannot.empty() && (algo == algorithm::automatic || (algo == c->algo && c != &few));
      row.fits = row.takes && c->bytes <= c->room;
      row.bytes = c->cannot.empty() ? c->bytes : 0;
      row.seconds = c->cannot.empty() ? c->seconds : -1;
      row.why = as + (!c->cannot.empty() ? c->cannot
                      : row.takes       ? std::string(c->lists) + (row.fits ? "" : ", more than the " + format_bytes(c->room) + " available")
                                        : "another enumerator was named");
      shown->push_back(std::move(row));
    }
  }
  std::vector<const candidate*> asked;
  for (const candidate* c : all) {
    if (algo == algorithm::automatic || (algo == c->algo && c != &few)) asked.push_back(c);
  }
  if (asked.empty()) {  // an enumerator named that the backend does not have
    throw std::invalid_argument(std::string("on the GPU only the two-list lists subsets; the ") +
                                (algo == algorithm::four_list ? "four-list" : "dp") +
                                " lists them on the host (--backend cpu or auto)");
  }
  if (asked.size() == 1 && !asked[0]->cannot.empty()) throw instance_refused(asked[0]->cannot);
  const candidate* best = nullptr;
  for (const candidate* c : asked) {
    if (c->cannot.empty() && c->bytes <= c->room && (!best || c->seconds < best->seconds)) best = c;
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
    if (smallest) throw insufficient_memory::needs(items + " (" + smallest->lists + ")", smallest->bytes, smallest->room);
    // None can take it at any size: each one's reason, and no byte count none of them planned.
    throw insufficient_memory(items + ": no enumerator can take it" + reasons,
                              std::numeric_limits<double>::infinity(), room);
  }
  listing_plan plan;
  plan.method = best->method;
  plan.algorithm = best->name;
  plan.backend = best->backend;
  plan.bytes = best->bytes;
  plan.seconds = best->seconds;
  const std::string given = " over the instance as given (no reduction: each would have to give back the subsets it sets aside)";
  switch (best->method) {
    case listing_method::few_items:
      plan.reason = "every subset in the window is listed by visiting each subset of at most " +
                    std::to_string(std::min(q.max_items, n)) + " items in turn" + given + ", " +
                    std::to_string(std::uint64_t(steps)) + " of them, no lists";
      break;
    case listing_method::dp:
      plan.reason = "every subset in the window is listed by backtracking through the table of reachable sums" + given +
                    ", one bit per sum and item" + std::string(q.min_items > 0 || q.max_items < n ? " and size" : "") +
                    ", " + format_bytes(plan.bytes) + " on the host";
      break;
    case listing_method::two_list:
      plan.reason = "every subset in the window is listed by the meet in the middle" + given +
                    ", its two half lists with their masks taking " + format_bytes(plan.bytes) + " on the host";
      break;
    case listing_method::two_list_cuda:
      plan.reason = "every subset in the window is listed by the meet in the middle on the GPU" + given +
                    ", its two half lists sorted there with their masks and the pairs handed to the host in "
                    "batches, " + format_bytes(plan.bytes) + " on the device";
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
  detail::listing_receiver to;
  to.on_subset = &on_subset;
  return detail::run_listing(which, threads, p, options, to);
}

listing detail::run_listing(backend which, unsigned threads, const problem& p, const listing_options& options,
                            const listing_receiver& to) {
  const auto start = detail::clock_type::now();
  const std::optional<detail::clock_type::time_point> deadline = detail::deadline_after(options.time_limit, start);
  device_question device;
  check_listing(which, p, options, device);
  const int128 lo = p.target.value_or(0);
  const int128 hi = p.target ? options.high.value_or(*p.target) : 0;
  const detail::host_share host = detail::host_share_for(threads, solve_options{});
  const double room = host_plan_room(options.memory_limit);
  const question given{lo, hi, options.min_items, options.max_items, !p.target};
  // The complements are listed instead where that is expected sooner (or the question as given
  // is refused): 55 items of 60 are the 5 left out, which the size-bounded lists hold in KiB.
  std::optional<listing_plan> plan;
  std::exception_ptr refused;
  try {
    plan = plan_listing(which, device, p, given, options.algo, host.threads, room, options.memory_limit);
  } catch (const std::invalid_argument&) {
    refused = std::current_exception();
  } catch (const insufficient_memory&) {
    refused = std::current_exception();
  }
  const std::optional<question> other = complement_of(p, given);
  bool complemented = false;
  if (other) {
    try {
      listing_plan alt = plan_listing(which, device, p, *other, options.algo, host.threads, room, options.memory_limit);
      if (!plan || alt.seconds < plan->seconds) plan = std::move(alt), complemented = true;
    } catch (const std::invalid_argument&) {
    } catch (const insufficient_memory&) {
    }
  }
  if (!plan) std::rethrow_exception(refused);
  const question& asked = complemented ? *other : given;
  if (complemented) {
    std::string sizes = std::to_string(asked.min_items), sums = to_string(asked.lo);
    if (asked.max_items != asked.min_items) sizes += " to " + std::to_string(asked.max_items);
    if (asked.hi != asked.lo) sums.append(" to ").append(to_string(asked.hi));
    plan->reason = "the complement was taken: the subsets of " + sizes + " items summing to " + sums +
                   " are listed, each handed out as the items it leaves out; " + plan->reason;
  }
  listing out;
  out.algorithm = plan->algorithm;
  out.backend = plan->backend;
  out.threads = plan->threads;
  out.planned_bytes = std::uint64_t(std::min(plan->bytes, 1.8e19));
  out.plan = {plan->algorithm, plan->backend, plan->reason};

  // The time limit raises a flag of the listing's own, as it does for a solve.
  std::atomic<bool> stop{false}, timed_out{false};
  std::optional<detail::deadline_watch> watch;
  if (deadline) watch.emplace(*deadline, options.cancel, stop, timed_out);
  detail::enumerate_request request;
  request.weights = &p.weights;
  request.lo = asked.lo;
  request.hi = asked.hi;
  request.non_empty = asked.non_empty;
  request.min_items = asked.min_items;
  request.max_items = asked.max_items;
  request.limit = options.limit;
  request.cancel = watch ? &stop : options.cancel;
  request.max_bytes = room;
  request.threads = host.threads;
  // The device's batches wait in two pinned host buffers of 8 bytes a pair: within the host's room.
  detail::enumerate_cuda_tuning batches;
  while (batches.largest_batch > batches.first_batch && 16.0 * double(batches.largest_batch) > room)
    batches.largest_batch /= 2;
  // Mask mode: the subsets become masks, verified and handed out in batches by the receiver.
  std::optional<detail::mask_verifier> verifier;
  std::optional<detail::mask_receiver> masks;
  if (to.on_masks) {
    verifier.emplace(p.weights, lo, hi, options.min_items, options.max_items, !p.target);
    masks.emplace(*to.on_masks, *verifier, complemented, host.threads);
  }
  std::vector<std::size_t> left_out;  // the complement of what the enumerator hands out, reused
  const auto checked = [&](const std::vector<std::size_t>& subset) {
    if (masks) return masks->add(subset);
    const std::vector<std::size_t>* s = &subset;
    if (complemented) {
      left_out.clear();
      std::size_t k = 0;
      for (std::size_t i = 0; i < p.weights.size(); ++i) {
        if (k < subset.size() && subset[k] == i) ++k;
        else left_out.push_back(i);
      }
      s = &left_out;
    }
    verify(p, *s, lo, hi, options);
    return (*to.on_subset)(*s);
  };
  // The pairs of the device's and the host's meet in the middle go to the receiver a stretch at
  // a time, never one subset at a time.
  const std::size_t half = p.weights.size() / 2;
  const auto pair_masks = [&](std::span<std::uint64_t> pairs) {
    const bool go_on = masks->pairs(pairs, half);
    return detail::pairs_handed{pairs.size(), go_on};
  };
  constexpr std::uint64_t device_stretch = std::uint64_t(1) << 18;  // a fraction of a ms of masks
  // The host's join packs its pairs as the device does: a stretch is 512 KiB, in cache.
  constexpr std::uint64_t host_stretch = std::uint64_t(1) << 16;
  detail::enumerate_result r;
  try {
    r = plan->method == listing_method::four_list   ? detail::enumerate_subsets_four(request, plan->threads, checked)
        : plan->method == listing_method::dp        ? detail::enumerate_subsets_dp(request, checked)
        : plan->method == listing_method::few_items ? detail::enumerate_subsets_few(request, checked)
        : plan->method == listing_method::two_list_cuda
            ? (masks ? detail::enumerate_pairs_cuda(0, request, device_stretch, pair_masks, batches)
                     : detail::enumerate_subsets_cuda(0, request, checked, batches))
        : masks ? detail::enumerate_pairs(request, host_stretch, pair_masks)
                : detail::enumerate_subsets(request, checked);
  } catch (const std::bad_alloc&) {
    // A heavy residue class (many equal sums) can outgrow the four-list's plan.
    throw insufficient_memory::ran_out("listing the subsets by the " + plan->algorithm, plan->bytes, room);
  }
  // What the host enumerators left buffered goes out before the listing returns or throws.
  if (masks) masks->flush();
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

plan_table explain_listing(backend which, unsigned threads, const problem& p, const listing_options& options) {
  device_question device;
  check_listing(which, p, options, device);
  const int128 lo = p.target.value_or(0);
  const int128 hi = p.target ? options.high.value_or(*p.target) : 0;
  const detail::host_share host = detail::host_share_for(threads, solve_options{});
  const double room = host_plan_room(options.memory_limit);
  plan_table t;
  t.question = "list";
  t.items = p.weights.size();
  t.threads = host.threads;
  t.host_room = room;
  const question given{lo, hi, options.min_items, options.max_items, !p.target};
  std::optional<listing_plan> plan;
  try {
    plan = plan_listing(which, device, p, given, options.algo, host.threads, room, options.memory_limit, &t.candidates);
  } catch (const std::exception& e) {
    t.refusal = e.what();
  }
  const std::size_t as_given = t.candidates.size();
  bool complemented = false;
  if (const std::optional<question> other = complement_of(p, given)) {
    try {
      listing_plan alt = plan_listing(which, device, p, *other, options.algo, host.threads, room, options.memory_limit, &t.candidates,
                                      "the complements (the items each subset leaves out): ");
      if (!plan || alt.seconds < plan->seconds) plan = std::move(alt), complemented = true;
    } catch (const std::exception&) {
    }
  }
  if (!plan) return t;
  t.refusal.clear();
  t.chosen = {plan->algorithm, plan->backend, plan->reason};
  const std::size_t from = complemented ? as_given : 0, to = complemented ? t.candidates.size() : as_given;
  for (std::size_t i = from; i < to; ++i) {
    if (t.candidates[i].algorithm == plan->algorithm && t.candidates[i].backend == plan->backend)
      t.candidates[i].role = "chosen";
  }
  return t;
}

}  // namespace ssum

// `ssum solve --all / --limit / --unique`, and decisions and counts over a window or a number
// of items (listing.hpp): the subsets printed as ssum::list_subsets hands them out.
#include "listing.hpp"
#include "listing_output.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "ssum/errors.hpp"
#include "ssum/memory.hpp"
#include "ssum/version.hpp"

namespace ssum::cli {
namespace {

using clock_type = std::chrono::steady_clock;

std::string indices(const std::vector<std::size_t>& subset) {
  std::string s;
  for (const std::size_t i : subset) s += (s.empty() ? "" : " ") + std::to_string(i);
  return s;
}

// A sum for --json: an integer, a decimal string beyond 64 bits (as accepted on input), an
// amount string for decimal instances.
nlohmann::json number(int128 v, unsigned decimals) {
  if (decimals) return format_amount(v, decimals);
  if (v >= INT64_MIN && v <= INT64_MAX) return static_cast<std::int64_t>(v);
  return to_string(v);
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", s);
  return text;
}

[[noreturn]] void bad(const std::string& what) { throw input_error(what, 0); }

}  // namespace

std::optional<std::uint64_t> parse_whole(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

listing_request listing_of(const listing_flags& f, bool count, bool target_given, bool checkpoint,
                           const std::string& algorithm) {
  using question = listing_request::question;
  listing_request r;
  if (f.unique && (f.all || f.limit)) bad("--unique asks for two subsets at most: not with --all or --limit");
  if (count && (f.all || f.limit || f.unique)) bad("--count counts; --all, --limit and --unique list: one of them");
  r.asked = f.unique ? question::unique : f.all || f.limit ? question::every : count ? question::count : question::first;
  if (f.limit) {
    const auto k = parse_whole(*f.limit);
    if (!k || *k == 0) bad("--limit: '" + printable(*f.limit) + "' is not a number of subsets from 1 to 2^64 - 1");
    r.limit = *k;
  }
  const auto items_of = [](const std::optional<std::string>& text, const char* flag) -> std::optional<std::size_t> {
    if (!text) return std::nullopt;
    const auto k = parse_whole(*text);
    if (!k || *k > SIZE_MAX) bad(std::string(flag) + ": '" + printable(*text) + "' is not a number of items");
    return std::size_t(*k);
  };
  if (f.items && (f.min_items || f.max_items)) bad("--items K is exactly K items: not with --min-items or --max-items");
  const auto exactly = items_of(f.items, "--items");
  r.options.min_items = exactly ? *exactly : items_of(f.min_items, "--min-items").value_or(0);
  r.options.max_items = exactly ? *exactly : items_of(f.max_items, "--max-items").value_or(SIZE_MAX);
  if (r.options.min_items > r.options.max_items) bad("--min-items is above --max-items: no subset has such a size");
  if (!f.target_range.empty() && (target_given || f.tolerance)) {
    bad("--target-range LO HI is the target: not with --target or --tolerance");
  }
  if (checkpoint) bad("--checkpoint keeps the four-list's progress: a listing runs in one piece");
  if (algorithm == "completion" || algorithm == "lattice") {
    bad("--algorithm " + algorithm + " cannot list subsets or take a window or a number of items: the listing runs "
        "the two-list, the four-list or the dp (or auto)");
  }
  r.options.algo = algorithm == "two-list"    ? algorithm::two_list
                   : algorithm == "four-list" ? algorithm::four_list
                   : algorithm == "dp"        ? algorithm::dynamic_programming
                                              : algorithm::automatic;
  return r;
}

problem windowed(problem p, const listing_flags& f, listing_request& r) {
  // A window may be finer than the amounts (--tolerance 0.5 around integers): the instance is
  // read at the window's scale, as it is at a finer --target's, so that the window is exact.
  for (const std::string& bound : f.target_range) p = raised_to(std::move(p), bound, "--target-range");
  if (f.tolerance) p = raised_to(std::move(p), *f.tolerance, "--tolerance");
  if (!f.target_range.empty()) {
    // Amounts at the instance's scale, as the weights.
    const int128 lo = parse_amount_at(f.target_range.at(0), p.decimals, "--target-range LO");
    const int128 hi = parse_amount_at(f.target_range.at(1), p.decimals, "--target-range HI");
    if (hi < lo) bad("--target-range: HI is below LO, so the window is empty");
    p.target = lo;
    r.options.high = hi;
    r.ranged = true;
  }
  if (f.tolerance) {
    const int128 d = parse_amount_at(*f.tolerance, p.decimals, "--tolerance");
    if (d < 0) bad("--tolerance: '" + printable(*f.tolerance) + "' is below 0");
    if (!p.target) bad("--tolerance D is a window around the target: give a target");
    const int128 t = *p.target;
    constexpr int128 top = ~(int128(1) << 127), bottom = int128(1) << 127;
    if (t < bottom + d || t > top - d) bad("--tolerance: the window passes the 128-bit range");
    p.target = t - d;
    r.options.high = t + d;
    r.centre = t;
  }
  return p;
}

int run_listing(const listing_request& request, const problem& p, const std::atomic<bool>& interrupt,
                clock_type::time_point wall_start) {
  using question = listing_request::question;
  listing_options options = request.options;
  options.cancel = &interrupt;
  options.limit = request.asked == question::first    ? 1
                  : request.asked == question::unique ? 2
                  : request.asked == question::count  ? 0
                                                      : request.limit;
  const int128 lo = p.target.value_or(0);
  const int128 hi = p.target ? options.high.value_or(*p.target) : 0;
  const auto amount = [&](int128 v) { return format_amount(v, p.decimals); };
  const std::string goal = !request.goal.empty() ? request.goal
                           : !p.target        ? "0 (a non-empty subset)"
                           : lo == hi ? amount(lo)
                                      : "between " + amount(lo) + " and " + amount(hi);
  std::string sizes;
  if (options.min_items == options.max_items) {
    sizes = " of exactly " + std::to_string(options.min_items) + " items";
  } else if (options.min_items > 0 || options.max_items < p.weights.size()) {
    sizes = " of " + std::to_string(options.min_items) + " to " +
            (options.max_items < p.weights.size() ? std::to_string(options.max_items) : std::to_string(p.weights.size())) +
            " items";
  }

  // The listing's own deadline is a flag inside list_subsets; the output, which may be waiting
  // for a stalled reader, keeps the same one.
  const auto listing_start = clock_type::now();
  listing_output out(interrupt, deadline_after(options.time_limit, listing_start));
  std::vector<std::vector<std::size_t>> kept;  // first and unique: the subsets of the answer
  listing result;
  bool stopped = false;
  std::uint64_t listed = 0;  // handed out, counted here: an interrupt ends the listing by an exception
  try {
    result = list_subsets(request.which, request.threads, p, options, [&](const std::vector<std::size_t>& subset) {
      ++listed;
      if (request.asked == question::every) {
        // False once a stop ended the output: the listing ends too.
        return out.add(request.json ? nlohmann::json{{"subset", subset}}.dump() + "\n" : indices(subset) + "\n");
      } else if (request.asked != question::count) {
        kept.push_back(subset);
      }
      return true;
    });
  } catch (const listing_interrupted& e) {
    result = e.so_far;  // what ran: its plan, algorithm and seconds
    stopped = true;
  } catch (const interrupted&) {
    stopped = true;
  }
  // Whatever is still buffered is written (or, after a stop, dropped at a line boundary)
  // before the summary, which says how many were printed.
  out.drain();
  if (out.stopped() && !out.timed_out()) stopped = true;
  if (out.stopped() && out.timed_out() && !stopped) result.timed_out = true, result.complete = false;
  listed -= std::min(listed, out.dropped_lines());
  const double wall = std::chrono::duration<double>(clock_type::now() - wall_start).count();
  const bool complete = !stopped && result.complete;
  const bool timed_out = result.timed_out;

  int code = 0;
  std::string status;
  if (stopped) {
    code = 130, status = "interrupted";
  } else if (request.asked == question::first) {
    // A decision over the window or the sizes: the statuses of any decision.
    status = !kept.empty() ? "feasible" : complete ? "infeasible" : "unknown";
    code = !kept.empty() ? 0 : complete ? 1 : 5;
  } else if (request.asked == question::unique) {
    status = kept.size() >= 2 ? "several" : !complete ? "unknown" : kept.size() == 1 ? "unique" : "none";
    code = status == "unknown" ? 5 : status == "none" ? 1 : 0;
  } else if (listed > 0 && (complete || request.asked != question::count)) {
    code = 0, status = complete ? "complete" : timed_out ? "unknown" : "limit";
    if (timed_out) code = 5;
  } else {
    code = complete ? 1 : 5, status = complete ? "complete" : "unknown";
  }

  std::string last;  // the summary, or the text answer
  if (request.json) {
    nlohmann::json summary;
    summary["version"] = ssum::version;
    if (request.asked == question::unique) summary["unique"] = status;
    if (request.asked == question::first || request.asked == question::unique) {
      summary["feasible"] = kept.empty() ? (complete ? nlohmann::json(false) : nlohmann::json(nullptr)) : nlohmann::json(true);
      if (!kept.empty()) summary["subset"] = kept.front();
      if (request.asked == question::unique) summary["subsets"] = kept;
    }
    if (request.asked == question::count && complete) summary["count"] = std::to_string(listed);
    if (request.asked == question::every) summary["listed"] = listed;
    summary["complete"] = complete;
    summary["status"] = status;
    summary["target"] = request.centre ? number(*request.centre, p.decimals)
                        : p.target && !request.ranged ? number(lo, p.decimals)
                                                      : nlohmann::json(nullptr);
    summary["window"] = {number(lo, p.decimals), number(hi, p.decimals)};
    if (!request.row_targets.empty()) {
      // Several rows: their own targets; the one sum they were folded into is no target of the user's.
      nlohmann::json targets = nlohmann::json::array();
      for (const int128 t : request.row_targets) targets.push_back(number(t, 0));
      summary["rows"] = request.row_targets.size();
      summary["targets"] = targets;
      summary["target"] = nullptr;
      summary["window"] = nullptr;
    }
    if (p.decimals) summary["decimals"] = p.decimals;
    summary["min_items"] = options.min_items;
    summary["max_items"] = options.max_items < p.weights.size() ? nlohmann::json(options.max_items) : nlohmann::json(nullptr);
    summary["n"] = p.weights.size();
    summary["algorithm"] = result.algorithm.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.algorithm);
    summary["backend"] = result.backend.empty() ? "cpu" : result.backend;
    // Known unless the interrupt came before the plan was made.
    const bool known = !result.plan.algorithm.empty();
    summary["plan"] = known ? nlohmann::json{{"algorithm", result.plan.algorithm},
                                             {"backend", result.plan.backend},
                                             {"reason", result.plan.reason}}
                            : nlohmann::json(nullptr);
    summary["seconds"] = {{"total", known ? nlohmann::json(result.seconds) : nlohmann::json(nullptr)}, {"wall", wall}};
    summary["memory"] = {{"planned_bytes", known ? nlohmann::json(result.planned_bytes) : nlohmann::json(nullptr)},
                         {"peak_rss_bytes", peak_resident_bytes()}};
    last = summary.dump() + "\n";
  } else if (request.asked == question::every) {
    const std::string how = stopped     ? "stopped by an interrupt"
                            : complete  ? "every one"
                            : timed_out ? "the time limit ran out first: there may be more"
                                        : "the first ones: --limit";
    last += ("# " + std::to_string(listed) + (listed == 1 ? " subset" : " subsets") + sizes +
            (listed == 1 ? " sums to " : " sum to ") + goal + " (" + how + "); " + (result.algorithm.empty() ? "the listing" : result.algorithm) + " on cpu in " +
            seconds_text(result.seconds) + " s\n");
  } else if (request.asked == question::count) {
    if (complete) {
      last += ("solutions: " + std::to_string(listed) + " subsets" + sizes + " sum to " + goal + "\n");
    } else {
      last += (std::string(stopped ? "interrupted" : "unknown: the time limit ran out") + " before every subset" + sizes +
              " summing to " + goal + " was counted\n");
    }
  } else {
    const std::string verdict =
        request.asked == question::unique
            ? (status == "several"  ? "several: at least two subsets" + sizes + " sum to " + goal
               : status == "unique" ? "unique: exactly one subset" + sizes + " sums to " + goal
               : status == "none"   ? "none: no subset" + sizes + " sums to " + goal
               : status == "unknown" ? "unknown: the time limit ran out before a second subset" + sizes +
                                           " summing to " + goal + " was found or ruled out"
                                     : "interrupted")
            : !kept.empty() ? "feasible: " + std::to_string(kept.front().size()) + " of " +
                                  std::to_string(p.weights.size()) + " items sum to " + goal
            : complete ? "infeasible: no subset" + sizes + " of the " + std::to_string(p.weights.size()) +
                             " items sums to " + goal
            : stopped  ? "interrupted"
                       : "unknown: the time limit ran out before a subset" + sizes + " summing to " + goal + " was found";
    last += (verdict + "\n");
    for (const auto& subset : kept) {
      int128 sum = 0;
      for (const std::size_t i : subset) sum += p.weights[i];
      last += ("subset (0-based indices): " + indices(subset) + "\n");
      if (lo != hi) last += ("its sum: " + amount(sum) + "\n");
    }
    last += (result.algorithm + " on cpu in " + seconds_text(result.seconds) + " s" +
            (kept.empty() ? std::string(complete ? "; every subset was looked at" : "") : "; each subset was re-verified") +
            "\n");
  }
  out.finish(last);
  return code;
}

}  // namespace ssum::cli

// The solver's front door: decides once (choose.hpp), runs the plan, and re-verifies every
// subset it is about to hand out, so that no caller ever sees an unchecked answer.
#include "ssum/solve.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "solver/choose.hpp"
#include "solver/completion/completion_search.hpp"
#include "solver/lattice/one_sum_lattice.hpp"
#include "solver/completion/greedy_fill.hpp"
#include "solver/deadline_watch.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/dp/count_dp.hpp"
#include "solver/four_list/checkpoint.hpp"
#include "solver/four_list/four_list_cpu.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "solver/frame.hpp"
#include "solver/two_list/two_list_cpu.hpp"
#include "solver/two_list/two_list_cuda.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum {
namespace {

// The answer the reductions settled (infeasible, or a subset of original indices), or the
// target out of range: no list or table built. A zero-sum count keeps its zero weights apart
// (count_reduction): one of them is the subset even when the other items have none.
std::optional<solution> settled(const detail::choice& c, const solve_options& options) {
  const auto start = detail::clock_type::now();
  const std::string algorithm = c.plan().algorithm;
  const char* where = c.where == backend::cuda ? "cuda" : "cpu";
  if (c.out_of_range) return detail::out_of_range_answer(algorithm.c_str(), where, c.threads, options, start);
  if (!c.settled) return std::nullopt;
  const detail::reduction& r = c.reduced;
  const bool answered = r.outcome == detail::reduction::verdict::answered;
  solution decided = detail::out_of_range_answer(algorithm.c_str(), where, c.threads, options, start);
  decided.feasible = answered || (r.zero_sum && r.zero_weights > 0);
  if (decided.feasible) decided.subset = r.answer;
  if (options.count) decided.count = detail::with_zero_weights(answered ? 1 : 0, r.zero_weights, r.zero_sum);
  return decided;
}

// A meet-in-the-middle answer on the reduced instance, in the original indices, its count with
// the zero weights that the reductions set aside.
solution mapped_back(const problem& p, const detail::choice& c, const solve_options& options, solution result) {
  if (!c.reduced_instance) return result;
  const detail::reduction& r = c.reduced;
  if (result.feasible) {
    result.subset = detail::map_back(p, r, result.subset);
  } else if (r.zero_sum && r.zero_weights > 0) {  // a count's zero weight (count_reduction)
    result.feasible = true;
    result.subset = r.answer;
  }
  if (options.count && result.count) result.count = detail::with_zero_weights(*result.count, r.zero_weights, r.zero_sum);
  return result;
}

// The greedy fill's limits: its core's lists take at most a quarter of the host's room.
detail::greedy_fill_limits fill_limits(const detail::choice& c) {
  detail::greedy_fill_limits limits;
  while (limits.most_core > 24 && detail::greedy_fill_planned_bytes(c.reduced, limits) > c.host.room / 4) {
    limits.most_core -= 2;
  }
  return limits;
}

// The bytes the plan reserves, as its driver will report them; 0 where only the driver knows
// (the CUDA four-list sizes its batches to the device's room after building its lists).
// The heavy split's room for the heavy items' own solve: what the light items' fill leaves of
// the host's room, at most half of it.
double split_heavy_room(const detail::choice& c) {
  return std::min(c.host.room / 2, c.host.room - detail::greedy_fill_planned_bytes(c.reduced));
}

double planned_bytes_of(const problem& original, const detail::choice& c, const solve_options& options) {
  if (c.out_of_range || c.settled) return 0;
  if (c.split) return detail::greedy_fill_planned_bytes(c.reduced) + split_heavy_room(c);
  const problem& p = c.reduced_instance ? c.instance : original;
  const detail::reduction& r = c.reduced;
  if (c.where == backend::cuda) {
    if (c.algo == algorithm::dynamic_programming) return detail::dp_cuda_planned_bytes(r);
    return c.algo == algorithm::two_list ? detail::two_list_merging_planned_bytes(p, c.totals) : 0;
  }
  switch (c.algo) {
    case algorithm::dynamic_programming:
      return options.count ? detail::count_dp_planned_bytes(r)
             : c.balanced  ? detail::balanced_planned_bytes(r)
                           : detail::dp_planned_bytes(r, c.host.room);
    case algorithm::completion_search:
      return c.completion ? c.completion->bytes : 0;
    case algorithm::two_list:
      return detail::two_list_host_bytes(p, c.totals);
    default:
      return detail::four_list_planned_bytes(p, c.host.threads);
  }
}

// The plan's host solver. An allocation that fails although the plan fitted (memory taken
// meanwhile, a limit that counts more than the plan): the same error as a plan that does not
// fit, with its numbers.
solution run_on_host(const problem& original, const detail::choice& c, const solve_options& options) {
  if (std::optional<solution> answer = settled(c, options)) return *answer;
  const problem& p = c.reduced_instance ? c.instance : original;
  const auto out_of_memory = [&](const char* what) {
    return insufficient_memory::ran_out(detail::plan_name(what, p.weights.size()), planned_bytes_of(original, c, options),
                                        c.host.room);
  };
  if (c.algo == algorithm::dynamic_programming && options.count) {
    try {
      return detail::solve_count_dp(c.host, original, c.reduced, options);
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the dynamic program");
    }
  }
  if (c.algo == algorithm::dynamic_programming && c.balanced) {
    try {
      return detail::solve_balanced(c.host, original, c.reduced, options);
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the balanced dynamic program");
    }
  }
  if (c.algo == algorithm::dynamic_programming) {
    try {
      return detail::solve_dp(c.host, original, c.reduced, options);
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the dynamic program");
    }
  }
  if (c.algo == algorithm::completion_search) {
    if (!c.completion) throw std::logic_error("internal error: the completion search was chosen without its plan");
    return detail::solve_completion(c.host, original, c.reduced, *c.completion, options);
  }
  if (c.algo == algorithm::two_list) {
    try {
      return mapped_back(original, c, options, detail::solve_two_list(c.host, p, c.totals, options));
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the two-list algorithm");
    }
  }
  try {
    return mapped_back(original, c, options, detail::solve_four_list(c.host, p, c.totals, options));
  } catch (const std::bad_alloc&) {
    throw out_of_memory("the four-list algorithm");
  }
}

solution run_on_device(const cuda& policy, const problem& original, const detail::choice& c,
                       const solve_options& options) {
  if (std::optional<solution> answer = settled(c, options)) return *answer;
  if (c.algo == algorithm::dynamic_programming) return detail::solve_dp(policy, original, c.reduced, options);
  const problem& p = c.reduced_instance ? c.instance : original;
  return mapped_back(original, c, options,
                     c.algo == algorithm::four_list ? detail::solve_four_list_cuda(policy, p, c.totals, options)
                                                    : detail::solve_two_list_cuda(policy, p, c.totals, options, c.threads));
}

// Every answer leaves through here: its certificate re-verified, the plan attached, and what
// ran (algorithm, backend, threads) named by the plan.
solution checked(const problem& p, solution result, const detail::choice& c) {
  if (result.feasible && !is_certificate(p, result.subset)) {
    throw std::logic_error(std::string("internal error: the ") + (c.where == backend::cuda ? "CUDA " : "") +
                           "solver's subset does not verify; no answer is given");
  }
  result.status = result.feasible ? status::feasible : status::infeasible;
  result.plan = c.plan();
  result.algorithm = result.plan.algorithm;
  result.backend = result.plan.backend;
  result.threads = c.threads;
  result.reductions = c.reduced.applied;
  return result;
}

// The greedy fill ahead of a dynamic program (choice::fill_first) or the heavy split
// (choice::split): its subset, verified and named "greedy-fill" or "heavy-split", or nothing,
// and the plan runs. The fill's core lists take at most a quarter of the host's room.
std::optional<solution> filled(const problem& p, const detail::choice& c, const solve_options& options) {
  if (!c.fill_first && !c.split) return std::nullopt;
  const auto start = detail::clock_type::now();
  std::vector<std::size_t> positions;
  std::uint64_t heavy_bytes = 0;
  if (c.split) {
    // Each heavy solve stops after 2 s: a rounded target that finds nothing by then passes
    // to the next, and after the last the plan runs.
    positions = detail::split_fill(c.reduced, *c.split, options, c.host.threads, split_heavy_room(c), 2.0,
                                   &heavy_bytes);
  } else {
    positions = detail::greedy_fill(c.reduced, options, fill_limits(c));
  }
  if (positions.empty()) return std::nullopt;
  solution found;
  found.feasible = true;
  found.subset = detail::map_back(p, c.reduced, positions);
  found.seconds.search = found.seconds.total = detail::seconds_since(start);
  found = checked(p, std::move(found), c);
  found.plan.algorithm = found.algorithm = c.split ? "heavy-split" : "greedy-fill";
  found.plan.backend = found.backend = "cpu";
  found.threads = c.split ? c.host.threads : 1;
  found.planned_bytes = std::uint64_t(
      c.split ? detail::greedy_fill_planned_bytes(c.reduced) + double(heavy_bytes)
              : detail::greedy_fill_planned_bytes(c.reduced, fill_limits(c)));
  return found;
}

// What a solve that ends without an answer (status::unknown) reports: the plan, the
// reductions, the threads and the planned bytes of what was chosen.
solution what_was_chosen(const problem& p, const detail::choice& c, const solve_options& options) {
  solution chosen;
  chosen.plan = c.plan();
  chosen.algorithm = chosen.plan.algorithm;
  chosen.backend = chosen.plan.backend;
  chosen.threads = c.threads;
  chosen.reductions = c.reduced.applied;
  chosen.planned_bytes = std::uint64_t(planned_bytes_of(p, c, options));
  return chosen;
}

// Runs solve_with(options, chosen) under options.time_limit: the process's watcher
// (deadline_watch.hpp) raises the solve's own cancel flag at the deadline (or when the
// caller's flag rises), so every algorithm and backend stops the way it stops for Ctrl-C; a
// stop at the deadline returns status::unknown.
template <class Solve>
solution within_time_limit(const solve_options& options, Solve&& solve_with) {
  const auto start = detail::clock_type::now();
  const std::optional<detail::clock_type::time_point> deadline = detail::deadline_after(options.time_limit, start);
  if (!(options.checkpoint_seconds >= 0) || !std::isfinite(options.checkpoint_seconds)) {
    throw std::invalid_argument("the checkpoint's interval must be a finite number of seconds, 0 or more");
  }
  // A path that cannot serve (a FIFO, a folder, no permission) is refused before the search.
  if (!options.checkpoint.empty()) check_checkpoint_path(options.checkpoint);
  solution chosen;  // what was chosen, for an unknown answer too
  if (!deadline) return solve_with(options, chosen);
  std::atomic<bool> stop{false}, timed_out{false};
  const detail::deadline_watch watch(*deadline, options.cancel, stop, timed_out);  // until the return
  solve_options limited = options;
  limited.cancel = &stop;
  try {
    return solve_with(limited, chosen);
  } catch (const interrupted&) {
    if (!timed_out) throw;
  }
  solution unknown = std::move(chosen);
  unknown.status = status::unknown;
  unknown.feasible = false;
  unknown.seconds = {};
  unknown.seconds.total = detail::seconds_since(start);
  return unknown;
}

// seconds.total is the whole solve: the decision and the reductions too, not only the driver.
solution whole(detail::clock_type::time_point start, solution result) {
  result.seconds.total = std::max(result.seconds.total, detail::seconds_since(start));
  return result;
}

}  // namespace

solution solve(const cpu& policy, const problem& p, const solve_options& options) {
  if (std::optional<solution> found = detail::solve_one_sum_with_lattice(backend::cpu, policy.threads, p, options)) {
    return *found;
  }
  const auto start = detail::clock_type::now();
  return whole(start, within_time_limit(options, [&](const solve_options& o, solution& chosen) {
    detail::choice c = detail::choose(p, o, backend::cpu, policy.threads, 0);
    chosen = what_was_chosen(p, c, o);
    if (std::optional<solution> found = filled(p, c, o)) return *found;
    if (c.split) {  // found nothing: the plan, made now
      c = detail::choose(p, o, backend::cpu, policy.threads, 0, detail::cuda_probe(), false, true);
      chosen = what_was_chosen(p, c, o);
    }
    return checked(p, run_on_host(p, c, o), c);
  }));
}

solution solve(const cuda& policy, const problem& p, const solve_options& options) {
  const auto start = detail::clock_type::now();
  return whole(start, within_time_limit(options, [&](const solve_options& o, solution& chosen) {
    const detail::choice c = detail::choose(p, o, backend::cuda, 0, policy.device);
    chosen = what_was_chosen(p, c, o);
    return checked(p, run_on_device(policy, p, c, o), c);
  }));
}

solution solve(backend which, unsigned threads, const problem& p, const solve_options& options) {
  if (std::optional<solution> found = detail::solve_one_sum_with_lattice(which, threads, p, options)) return *found;
  const auto start = detail::clock_type::now();
  return whole(start, within_time_limit(options, [&](const solve_options& o, solution& chosen) {
    detail::choice c = detail::choose(p, o, which, threads, 0);
    chosen = what_was_chosen(p, c, o);
    if (c.fill_first || c.split) {
      if (std::optional<solution> found = filled(p, c, o)) return *found;
      if (which == backend::automatic || c.split) {  // the device may pay now; the split's plan
        c = detail::choose(p, o, which, threads, 0, detail::cuda_probe(), false, true);
        chosen = what_was_chosen(p, c, o);
      }
    }
    if (c.device_after_seconds > 0) {
      // The host's plan first, under its own short limit inside the caller's (a cancel or the
      // caller's deadline still ends the whole solve); then the device's plan, made now.
      solve_options first = o;
      first.time_limit = c.device_after_seconds;
      const solution answer = within_time_limit(first, [&](const solve_options& f, solution&) {
        return checked(p, run_on_host(p, c, f), c);
      });
      if (answer.status != status::unknown) return answer;
      c = detail::choose(p, o, which, threads, 0, detail::cuda_probe(), true);
      chosen = what_was_chosen(p, c, o);
    }
    if (c.where == backend::cuda) return checked(p, run_on_device(cuda{}, p, c, o), c);
    return checked(p, run_on_host(p, c, o), c);
  }));
}

}  // namespace ssum

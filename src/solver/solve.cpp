// The solver's front door: decides once (choose.hpp), runs the plan, and re-verifies every
// subset it is about to hand out, so that no caller ever sees an unchecked answer.
#include "ssum/solve.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "solver/choose.hpp"
#include "solver/completion/completion_search.hpp"
#include "solver/deadline_watch.hpp"
#include "solver/dp/balanced_dp.hpp"
#include "solver/dp/bitset_dp.hpp"
#include "solver/dp/bitset_dp_cuda.hpp"
#include "solver/dp/count_dp.hpp"
#include "solver/four_list/four_list_cpu.hpp"
#include "solver/four_list/four_list_cuda.hpp"
#include "solver/frame.hpp"
#include "solver/two_list/two_list_cpu.hpp"
#include "solver/two_list/two_list_cuda.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum {
namespace {

// The answer the reductions settled (infeasible, or a subset of original indices), or the
// target out of range: no list or table built.
std::optional<solution> settled(const detail::choice& c, const solve_options& options) {
  const auto start = detail::clock_type::now();
  const std::string algorithm = c.plan().algorithm;
  const char* where = c.where == backend::cuda ? "cuda" : "cpu";
  if (c.out_of_range) return detail::out_of_range_answer(algorithm.c_str(), where, c.threads, options, start);
  if (!c.settled) return std::nullopt;
  solution decided = detail::out_of_range_answer(algorithm.c_str(), where, c.threads, options, start);
  decided.feasible = c.reduced.outcome == detail::reduction::verdict::answered;
  decided.subset = c.reduced.answer;
  if (options.count) decided.count = decided.feasible ? 1 : 0;  // no zero weights (choose()): one subset
  return decided;
}

// A meet-in-the-middle answer on the reduced instance, in the original indices.
solution mapped_back(const problem& p, const detail::choice& c, solution result) {
  if (c.reduced_instance && result.feasible) result.subset = detail::map_back(p, c.reduced, result.subset);
  return result;
}

// The plan's host solver. An allocation that fails although the plan fitted (memory taken
// meanwhile, a limit that counts more than the plan): the same error as a plan that does not
// fit, with its numbers.
solution run_on_host(const cpu& policy, const problem& original, const detail::choice& c,
                     const solve_options& options) {
  if (std::optional<solution> answer = settled(c, options)) return *answer;
  const problem& p = c.reduced_instance ? c.instance : original;
  const auto out_of_memory = [&](const char* what, double planned) {
    return insufficient_memory::ran_out(detail::plan_name(what, p.weights.size()), planned,
                                        host_plan_room(options.memory_limit));
  };
  if (c.algo == algorithm::dynamic_programming && options.count) {
    try {
      return detail::solve_count_dp(policy, original, c.reduced, options);
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the dynamic program", detail::count_dp_planned_bytes(c.reduced));
    }
  }
  if (c.algo == algorithm::dynamic_programming && c.balanced) {
    try {
      return detail::solve_balanced(policy, original, c.reduced, options);
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the balanced dynamic program", detail::balanced_planned_bytes(c.reduced));
    }
  }
  if (c.algo == algorithm::dynamic_programming) {
    try {
      return detail::solve_dp(policy, original, c.reduced, options);
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the dynamic program", detail::dp_planned_bytes(c.reduced));
    }
  }
  if (c.algo == algorithm::completion_search) return detail::solve_completion(policy, original, c.reduced, *c.completion, options);
  if (c.algo == algorithm::two_list) {
    try {
      return mapped_back(original, c, detail::solve_two_list(policy, p, c.totals, options));
    } catch (const std::bad_alloc&) {
      throw out_of_memory("the two-list algorithm", detail::two_list_host_bytes(p, c.totals));
    }
  }
  try {
    return mapped_back(original, c, detail::solve_four_list(policy, p, c.totals, options));
  } catch (const std::bad_alloc&) {
    throw out_of_memory("the four-list algorithm", detail::four_list_planned_bytes(p, resolved_threads(policy)));
  }
}

solution run_on_device(const cuda& policy, const problem& original, const detail::choice& c,
                       const solve_options& options) {
  if (std::optional<solution> answer = settled(c, options)) return *answer;
  if (c.algo == algorithm::dynamic_programming) return detail::solve_dp(policy, original, c.reduced, options);
  const problem& p = c.reduced_instance ? c.instance : original;
  return mapped_back(original, c,
                     c.algo == algorithm::four_list ? detail::solve_four_list_cuda(policy, p, c.totals, options)
                                                    : detail::solve_two_list_cuda(policy, p, c.totals, options, c.threads));
}

// Every answer leaves through here: its certificate re-verified, the plan attached.
solution checked(const problem& p, solution result, const detail::choice& c) {
  if (result.feasible && !is_certificate(p, result.subset)) {
    throw std::logic_error(std::string("internal error: the ") + (c.where == backend::cuda ? "CUDA " : "") +
                           "solver's subset does not verify; no answer is given");
  }
  result.status = result.feasible ? status::feasible : status::infeasible;
  result.plan = c.plan();
  result.reductions = c.reduced.applied;
  return result;
}

// Runs solve_with(options, plan) under options.time_limit: the process's watcher
// (deadline_watch.hpp) raises the solve's own cancel flag at the deadline (or when the
// caller's flag rises), so every algorithm and backend stops the way it stops for Ctrl-C; a
// stop at the deadline returns status::unknown.
template <class Solve>
solution within_time_limit(const solve_options& options, Solve&& solve_with) {
  const double limit = options.time_limit;
  if (!(limit >= 0) || !std::isfinite(limit)) {
    throw std::invalid_argument("the time limit must be a finite number of seconds, 0 or more");
  }
  solve_plan plan;  // what was chosen, for an unknown answer too
  if (limit == 0) return solve_with(options, plan);
  const auto start = detail::clock_type::now();
  const auto deadline = start + std::chrono::duration_cast<detail::clock_type::duration>(
                                    std::chrono::duration<double>(limit));
  std::atomic<bool> stop{false}, timed_out{false};
  const detail::deadline_watch watch(deadline, options.cancel, stop, timed_out);  // until the return
  solve_options limited = options;
  limited.cancel = &stop;
  try {
    return solve_with(limited, plan);
  } catch (const interrupted&) {
    if (!timed_out) throw;
  }
  solution unknown;
  unknown.status = status::unknown;
  unknown.plan = plan;
  unknown.algorithm = plan.algorithm;
  unknown.backend = plan.backend;
  unknown.seconds.total = detail::seconds_since(start);
  return unknown;
}

}  // namespace

solution solve(const cpu& policy, const problem& p, const solve_options& options) {
  return within_time_limit(options, [&](const solve_options& o, solve_plan& plan) {
    const detail::choice c = detail::choose(p, o, backend::cpu, policy.threads, 0);
    plan = c.plan();
    return checked(p, run_on_host(cpu{c.threads}, p, c, o), c);
  });
}

solution solve(const cuda& policy, const problem& p, const solve_options& options) {
  return within_time_limit(options, [&](const solve_options& o, solve_plan& plan) {
    const detail::choice c = detail::choose(p, o, backend::cuda, 0, policy.device);
    plan = c.plan();
    return checked(p, run_on_device(policy, p, c, o), c);
  });
}

solution solve(backend which, unsigned threads, const problem& p, const solve_options& options) {
  return within_time_limit(options, [&](const solve_options& o, solve_plan& plan) {
    const detail::choice c = detail::choose(p, o, which, threads, 0);
    plan = c.plan();
    if (c.where == backend::cuda) return checked(p, run_on_device(cuda{}, p, c, o), c);
    return checked(p, run_on_host(cpu{c.threads}, p, c, o), c);
  });
}

}  // namespace ssum

// The completion search's part of the decision (completion_plan.hpp).
#include "solver/completion/completion_plan.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "solver/completion/completion_search.hpp"
#include "solver/plan_words.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {

std::optional<choice> completion_choice(std::size_t n, const reduction& r, const solve_options& options,
                                        const host_share& host, dense_plan& dense) {
  const bool named = options.algo == algorithm::completion_search;
  if (!named && (options.algo != algorithm::automatic || options.count)) return std::nullopt;
  const unsigned resolved = host.threads;
  const std::optional<completion_plan>& plan = dense.of(r, resolved, host.room);
  if (named) {
    if (options.count) throw std::invalid_argument("the completion search finds one subset; it cannot count");
    if (!plan) {
      // A dense instance whose attempts need more than the room (many threads each take their
      // own classes) is refused for memory, naming the bytes, not as an instance it cannot take.
      if (const std::optional<completion_plan> unbounded = completion_plan_for(r, resolved, HUGE_VAL)) {
        throw insufficient_memory::needs("the completion search on " + std::to_string(resolved) +
                                             (resolved == 1 ? " thread" : " threads"),
                                         unbounded->bytes, host.room);
      }
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
  c.host = host;
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

}  // namespace ssum::detail

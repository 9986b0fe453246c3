// The lattice stage beside an exact search, or alone (lattice_race.hpp).
#include "solver/rows/lattice_race.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "solver/deadline_watch.hpp"
#include "solver/frame.hpp"
#include "solver/lattice/lattice_rows.hpp"
#include "ssum/errors.hpp"
#include "ssum/policy.hpp"

namespace ssum::detail {

// The exact search (`exact`, on the threads it is given) and the lattice stage on its share of
// the host's threads (lattice_race.hpp); the first subset stops the other. The lattice's finding nothing
// is no answer: the exact search's verdict stands, with its method ("fold", "fold and check"),
// or "lattice" with the lattice's subset.
rows_solution race_lattice(backend which, unsigned threads, const rows_problem& p, const solve_options& o,
                           clock_type::time_point start, const exact_search& exact, unsigned lattice_threads,
                           bool exact_on_gpu) {
  lattice_threads = std::max(1u, lattice_threads);
  std::atomic<bool> stop{false}, never{false}, lattice_stop{false}, lattice_found{false};
  lattice_result found;
  std::thread lattice([&] {
    try {
      lattice_options lo;
      lo.cancel = &lattice_stop;
      lo.time_limit = o.time_limit;
      lo.threads = lattice_threads;
      lo.seed = o.seed;  // the restarts' randomized bases: another seed, other bases
      found = solve_rows_lattice(p, lo);
      if (!found.subsets.empty()) {
        lattice_found.store(true);
        stop.store(true);
      }
    } catch (...) {
      // An error of the lattice stage (its memory, fplll) leaves the exact search to answer alone.
    }
  });
  struct joiner {
    std::thread& t;
    std::atomic<bool>& flag;
    ~joiner() {
      flag.store(true);
      if (t.joinable()) t.join();
    }
  } join_at_end{lattice, lattice_stop};
  solve_options stoppable = o;
  stoppable.cancel = &stop;
  // The caller's cancel reaches the exact search through `stop`, as a time limit does.
  const deadline_watch relay(clock_type::time_point::max(), o.cancel, stop, never);
  const unsigned team = host_share_for(threads, o).threads;
  const unsigned exact_threads =
      which == backend::cuda || exact_on_gpu ? threads : std::max(1u, team - std::min(team - 1, lattice_threads));
  const std::string on = lattice_threads == 1 ? "one thread" : std::to_string(lattice_threads) + " threads";
  rows_solution out;
  try {
    out = exact(stoppable, exact_threads);
  } catch (const interrupted&) {
    if (!lattice_found.load()) throw;
  }
  lattice_stop.store(true);
  lattice.join();  // `found` is read below
  out.lattice_seconds = found.reduce_seconds + found.enumerate_seconds;
  const solution& answer = out.answer;
  if (lattice_found.load() && answer.status == status::infeasible && !answer.algorithm.empty()) {
    throw std::logic_error("internal error: the exact search proved that no subset meets the rows, the lattice found one");
  }
  if (!lattice_found.load() || answer.feasible) {  // the exact search's answer, with its plan
    out.answer.plan.reason += "; the lattice stage ran beside it on " + on;
    return out;
  }
  out.method = "lattice";
  solution& s = out.answer;
  s = solution{};
  s.status = status::feasible;
  s.feasible = true;
  s.subset = found.subsets.front();
  if (!is_rows_certificate(p, s.subset)) throw std::logic_error("internal error: the lattice's subset does not meet every row");
  s.algorithm = "lattice";
  s.backend = "cpu";
  s.threads = lattice_threads;
  s.plan = {"lattice", "cpu",
            "the lattice stage (fplll's reduction, a {0,1} enumeration) on " + on + " beside the exact search, "
            "which it stopped"};
  s.seconds.search = out.lattice_seconds;
  s.seconds.total = seconds_since(start);
  return out;
}

// Under automatic, where no exact algorithm can take the rows (their memory, their items, their
// reach): the lattice stage alone, on one thread, within the time limit. It finds a subset or
// answers unknown, never infeasible; `refusal` says why the exact search did not run.
rows_solution lattice_alone(const rows_problem& p, const solve_options& o, const std::string& why,
                            clock_type::time_point start, unsigned threads) {
  std::atomic<bool> stop{false}, never{false};
  const deadline_watch relay(clock_type::time_point::max(), o.cancel, stop, never);
  lattice_options lo;
  lo.cancel = &stop;
  lo.time_limit = o.time_limit;
  lo.threads = host_share_for(threads, o).threads;  // alone: the enumeration takes the whole team
  lo.seed = o.seed;
  const lattice_result found = solve_rows_lattice(p, lo);
  if (found.subsets.empty() && found.cancelled && o.cancel && o.cancel->load()) throw interrupted();
  rows_solution out;
  out.method = "lattice";
  out.lattice_seconds = found.reduce_seconds + found.enumerate_seconds;
  solution& s = out.answer;
  s.algorithm = "lattice";
  s.backend = "cpu";
  s.threads = lo.threads;
  s.plan = {"lattice", "cpu",
            why + ": the lattice stage (fplll's reduction, a {0,1} enumeration) runs alone; it finds subsets, "
                  "it cannot prove that none exists"};
  if (!found.subsets.empty()) {
    s.status = status::feasible;
    s.feasible = true;
    s.subset = found.subsets.front();
    if (!is_rows_certificate(p, s.subset)) throw std::logic_error("internal error: the lattice's subset does not meet every row");
  } else {
    s.status = status::unknown;
  }
  s.seconds.search = out.lattice_seconds;
  s.seconds.total = seconds_since(start);
  return out;
}

rows_solution lattice_instead(const rows_problem& p, const solve_options& o, const std::exception_ptr& refused,
                              const std::string& why, clock_type::time_point start, unsigned threads) {
  solve_options limited = o;
  const bool bounded = !deadline_after(o.time_limit, start).has_value();
  if (bounded) limited.time_limit = lattice_alone_seconds;
  rows_solution out = lattice_alone(p, limited, why, start, threads);
  if (out.answer.status != status::unknown || !bounded) return out;
  const std::string tried = "; the lattice stage found nothing in " + std::to_string(int(lattice_alone_seconds)) +
                            " s (a time limit lets it search longer)";
  try {
    std::rethrow_exception(refused);
  } catch (const insufficient_memory& e) {
    throw insufficient_memory(e.what() + tried, e.bytes_needed(), e.bytes_available());
  } catch (const out_of_reach& e) {
    throw out_of_reach(e.what() + tried);
  } catch (const instance_refused& e) {
    std::string message = e.what();
    message += tried;
    throw instance_refused(message);
  }
}

}  // namespace ssum::detail

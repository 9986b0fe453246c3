// The lattice stage's restarts as a portfolio of streams, one per thread
// (restart_portfolio.hpp).
#include "solver/lattice/restart_portfolio.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "solver/deadline_watch.hpp"
#include "solver/lattice/enumerate_lattice.hpp"

namespace ssum::detail {

std::uint64_t luby(std::uint64_t i) {
  for (;;) {
    std::uint64_t k = 1;
    while ((std::uint64_t(1) << k) - 1 < i) ++k;
    if ((std::uint64_t(1) << k) - 1 == i) return std::uint64_t(1) << (k - 1);
    i -= (std::uint64_t(1) << (k - 1)) - 1;
  }
}

std::uint64_t restart_unit(std::uint64_t base, std::uint64_t nodes, double enumerate_seconds, double reduce_seconds) {
  if (enumerate_seconds < 0.01 || reduce_seconds <= 0) return base;  // no rate to go by yet
  const double equal_time = static_cast<double>(nodes) / enumerate_seconds * reduce_seconds;
  return equal_time > static_cast<double>(base) ? static_cast<std::uint64_t>(std::min(equal_time, 0x1p62)) : base;
}

std::uint64_t round_budget(std::uint64_t unit, std::uint64_t round) {
  const std::uint64_t term = round < 2 ? 1 : luby(round - 1);
  return unit > UINT64_MAX / term ? UINT64_MAX : unit * term;
}

namespace {

// What one stream did: its subsets, nodes and flags (cancelled there means "stopped", as its
// cancel flag is the portfolio's), and its thread's seconds in each phase.
struct stream_outcome {
  lattice_result found;
  bool covered = false;  // a round ended within its budget having covered its tree
  double reduce = 0, enumerate = 0;
};

}  // namespace

void run_restart_portfolio(const rows_problem& p, const lattice_options& o, unsigned streams, std::uint64_t base,
                           std::optional<clock_type::time_point> deadline, const next_basis_fn& next_basis,
                           lattice_result& result) {
  const auto start = clock_type::now();
  // Round 1's nodes and thread-seconds (`result` holds it): a rate for each stream's first unit.
  const std::uint64_t first_nodes = result.nodes;
  const double first_thread_seconds = result.enumerate_seconds * streams;
  // One stop flag for every stream: a stream that finds (or covers its tree) raises it, and
  // the process's deadline watcher raises it for o.cancel (polled every 10 ms) and at the
  // deadline. The streams see it as their cancel flag, so the enumeration and the BKZ tours
  // stop for it as they stop for Ctrl-C.
  std::atomic<bool> stop{false}, watch_timed_out{false};
  std::optional<deadline_watch> watch;
  if (o.cancel || deadline)
    watch.emplace(deadline.value_or(clock_type::time_point::max()), o.cancel, stop, watch_timed_out);

  // One Luby sequence across the streams (a shared round counter), not one per stream: the
  // budgets started, in order, are those one thread would start, so the long rounds that some
  // bases need come as early in total work as on one thread; a sequence per stream would
  // spend `streams` times as many re-reductions before its first long round.
  std::atomic<std::uint64_t> next_round{2};
  std::vector<stream_outcome> outcomes(streams);
  std::mutex error_mutex;
  std::exception_ptr error;

  auto run_stream = [&](unsigned s) {
    stream_outcome& out = outcomes[s];
    lattice_options so = o;
    so.cancel = &stop;
    so.threads = 1;  // the portfolio is the parallelism
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        const auto reduce_start = clock_type::now();
        std::vector<std::vector<std::int64_t>> basis = next_basis(s, so, deadline, out.found);
        const double reduced = seconds_since(reduce_start);
        out.reduce += reduced;
        if (!out.found.subsets.empty() || out.found.cancelled || out.found.timed_out || stop.load()) break;
        const std::uint64_t round = next_round.fetch_add(1);
        if (basis.empty()) continue;  // entries too large to enumerate: the next basis
        const auto enumerate_start = clock_type::now();
        // The stream's own rate, or round 1's per thread before it has one.
        const std::uint64_t unit = out.enumerate > 0 ? restart_unit(base, out.found.nodes, out.enumerate, reduced)
                                                     : restart_unit(base, first_nodes, first_thread_seconds, reduced);
        const bool over = enumerate_plus_minus_one(p, std::move(basis), so, deadline, out.found, round_budget(unit, round));
        out.enumerate += seconds_since(enumerate_start);
        // Within its budget: a subset (the limit), the whole tree, or a stop.
        if (!over) out.covered = out.found.exhausted;
        if (!over || !out.found.subsets.empty()) break;
      }
    } catch (...) {  // bad_alloc, say: stop the others, rethrown after the join
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
    stop.store(true);  // this stream's end (a find, a covered tree, a stop) ends them all
  };

  std::vector<std::thread> team;
  try {
    for (unsigned s = 1; s < streams; ++s) team.emplace_back(run_stream, s);
  } catch (...) {
    stop.store(true);  // no thread to be had: stop those started, then report
    for (std::thread& th : team) th.join();
    throw;
  }
  run_stream(0);
  for (std::thread& th : team) th.join();
  watch.reset();  // the watcher touches the flags no more
  if (error) std::rethrow_exception(error);

  std::set<std::vector<std::size_t>> seen(result.subsets.begin(), result.subsets.end());
  bool covered = false, timed_out = watch_timed_out.load();
  double reduce = 0, enumerate = 0;
  for (stream_outcome& out : outcomes) {
    for (std::vector<std::size_t>& subset : out.found.subsets)
      if ((o.limit == 0 || result.subsets.size() < o.limit) && seen.insert(subset).second)
        result.subsets.push_back(std::move(subset));
    result.nodes += out.found.nodes;
    covered = covered || out.covered;
    timed_out = timed_out || out.found.timed_out;
    reduce += out.reduce;
    enumerate += out.enumerate;
  }
  result.rounds = next_round.load() - 1;
  // A subset found ends the portfolio as the limit would, not as a stop; a stream's
  // "cancelled" only says the portfolio's flag stopped it, so only o.cancel itself is reported.
  const bool found = !result.subsets.empty();
  result.exhausted = covered && (o.limit == 0 || result.subsets.size() < o.limit);
  const bool stopped = !found && !result.exhausted;
  result.cancelled = stopped && o.cancel && o.cancel->load();
  result.timed_out = stopped && !result.cancelled && timed_out;
  // The streams' thread-seconds, reduction (waits for fplll's lock included) against
  // enumeration, scaled to the portfolio's wall time: reduce + enumerate stays the stage's
  // wall time, as on one thread.
  const double wall = seconds_since(start), busy = reduce + enumerate;
  const double reduce_share = busy > 0 ? reduce / busy : 1;
  result.reduce_seconds += wall * reduce_share;
  result.enumerate_seconds += wall * (1 - reduce_share);
}

}  // namespace ssum::detail

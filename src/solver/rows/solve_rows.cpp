// ssum::solve_rows (ssum/solve_rows.hpp): a multi-row instance answered through the one-row
// solvers. The mixed-radix fold (ssum::encode_rows) maps the rows to one subset sum with the
// same solutions, so every algorithm, backend, count and checkpoint of ssum::solve applies as
// it stands. Past 127 bits the rows that still fold are solved as one sum whose every
// solution is listed (ssum::list_subsets) and checked on the other rows: with the folded rows
// taking b bits of an n-column instance, about 2^(n - b) subsets pass them by chance, so the
// check costs little once b is near n.
#include "ssum/solve_rows.hpp"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <exception>
#include <functional>
#include <thread>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/choose.hpp"
#include "solver/deadline_watch.hpp"
#include "solver/frame.hpp"
#include "solver/lattice/lattice_rows.hpp"
#include "solver/planner.hpp"
#include "solver/rows/lattice_race.hpp"
#include "solver/reductions.hpp"
#include "solver/dp/count_dp.hpp"
#include "ssum/errors.hpp"
#include "ssum/explain.hpp"
#include "ssum/policy.hpp"

namespace ssum {
namespace {

// The rows to fold when not all of them fit: taken in order of the most bits each adds (the
// widest span first), each kept while the fold of those kept still fits 127 bits.
rows_problem foldable_part(const rows_problem& p) {
  std::vector<std::size_t> order(p.rows.size());
  std::vector<std::size_t> bits(p.rows.size());
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    order[i] = i;
    bits[i] = rows_encoding_bits(rows_problem{{p.rows[i]}, {p.targets[i]}});
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bits[a] > bits[b]; });
  rows_problem kept;
  for (const std::size_t i : order) {
    rows_problem tried = kept;
    tried.rows.push_back(p.rows[i]);
    tried.targets.push_back(p.targets[i]);
    if (encode_rows(tried)) kept = std::move(tried);
  }
  return kept;
}


// The lattice stage takes several rows and a decision (it finds subsets, it cannot count them).
bool lattice_takes(const rows_problem& p, const solve_options& o) {
  return detail::lattice_available() && !o.count && p.rows.size() >= 2;
}

// The plan's host candidates for a fold of several rows (the two-list costed at the fold's
// rate); empty where the range or the reductions settle it.
std::vector<detail::candidate> fold_candidates(const problem& single, const solve_options& options, unsigned threads,
                                               const detail::device_probe* probe) {
  const detail::flipped_totals totals = detail::totals_of(single);
  if (totals.out_of_range()) return {};
  const detail::reduction r = options.count ? detail::count_reduction(single, totals) : detail::reduce(single, totals);
  if (r.outcome != detail::reduction::verdict::open) return {};
  detail::one_sum_question q;
  q.p = &single;
  q.totals = &totals;
  q.r = &r;
  q.options = &options;
  q.host = detail::host_share_for(threads, options);
  q.fold = true;
  q.probe = probe;
  return detail::one_sum_candidates(q);
}

// The exact search's expected seconds on the host, from the plan's table: the fold's fastest
// exact candidate, or past 127 bits the listing's plan; 0 where the reductions settle it,
// HUGE_VAL where nothing fits.
double exact_seconds(const rows_problem& p, const solve_options& o, unsigned threads) {
  if (const std::optional<rows_encoding> folded = encode_rows(p)) {
    if (folded->infeasible_by_bounds) return 0;
    const std::vector<detail::candidate> table = fold_candidates(folded->single, o, threads, nullptr);
    if (table.empty()) return 0;
    const detail::candidate* best = detail::fastest_exact(
        table, [](const detail::candidate& c) { return c.where == backend::cpu && c.algo != algorithm::automatic; });
    return best ? best->seconds : HUGE_VAL;
  }
  const rows_problem part = foldable_part(p);
  if (part.rows.empty()) return HUGE_VAL;
  listing_options lo;
  lo.memory_limit = o.memory_limit;
  for (const plan_candidate& c : explain_listing(backend::cpu, threads, encode_rows(part)->single, lo).candidates) {
    if (c.role == "chosen") return c.seconds;
  }
  return HUGE_VAL;
}

// The lattice stage runs beside the exact search for a decision where it may pay: where the
// plan's table expects the exact search to take a second or more (it then costs that search one
// of the host's threads, and its first reduction, which cannot be stopped, is short beside it),
// and always on a host of 4 threads or more or from 80 columns (QOBLIB m >= 9). Not with a
// checkpoint or a shared search, whose files and units a stop from outside would leave behind.
constexpr double lattice_race_from_seconds = 1.0;
bool lattice_races(const rows_problem& p, const solve_options& o, unsigned threads) {
  if (!lattice_takes(p, o) || !o.checkpoint.empty() || o.share) return false;
  const unsigned team = detail::host_share_for(threads, o).threads;
  return team >= 4 || p.columns() >= 80 || exact_seconds(p, o, threads) >= lattice_race_from_seconds;
}

// The lattice's share of the host's threads beside an exact search on the host. One where the
// exact search is expected within the hour. Where its plan expects more than four times the
// time limit on the whole team, it cannot end within the limit: the lattice, whose restarts
// gain from every thread, takes all but one (QOBLIB's ms_11_100 past 127 bits: the listing
// held 15 of 16 threads for a search of days). Past an hour without such a limit, half: the
// exact search is what proves "none", and it keeps half the team for that.
constexpr double exact_long_seconds = 3600;
struct lattice_share {
  unsigned threads = 1;
  std::string why;  // empty for one thread
};
lattice_share host_lattice_threads(const rows_problem& p, const solve_options& o, unsigned threads) {
  const unsigned team = detail::host_share_for(threads, o).threads;
  if (team <= 1) return {};
  const double exact = exact_seconds(p, o, threads);
  if (o.time_limit > 0 && exact > 4 * o.time_limit)
    return {team - 1, "the exact search's plan expects it to take far past the time limit"};
  if (exact > exact_long_seconds && team >= 4)
    return {team / 2, "the exact search's plan expects it to take over an hour: it keeps half the threads"};
  return {};
}

// Past 127 bits: the rows that fold (`part`, their sum `single`) have every subset listed, each
// checked on the other rows; a decision stops at the first that meets them all. The listing
// takes the enumerator `o.algo` names (automatic: its plan's).
rows_solution fold_and_check(unsigned threads, const rows_problem& p, const rows_problem& part, const problem& single,
                             const solve_options& o, std::size_t encoding_bits, detail::clock_type::time_point start) {
  rows_solution out;
  out.method = "fold and check";
  out.rows_folded = part.rows.size();
  listing_options lo;
  lo.algo = o.algo;
  lo.cancel = o.cancel;
  lo.time_limit = o.time_limit;
  lo.memory_limit = o.memory_limit;
  std::uint64_t count = 0;
  std::optional<std::vector<std::size_t>> first;
  const listing listed = list_subsets(backend::cpu, threads, single, lo, [&](const std::vector<std::size_t>& subset) {
    ++out.checked;
    if (!is_rows_certificate(p, subset)) return true;
    if (!first) first = subset;
    ++count;
    return o.count;  // a decision stops at its first subset
  });
  solution& s = out.answer;
  s.algorithm = listed.algorithm;
  s.backend = listed.backend;
  s.threads = listed.threads;
  s.planned_bytes = listed.planned_bytes;
  s.plan = listed.plan;
  s.plan.reason = std::to_string(out.rows_folded) + " of the " + std::to_string(p.rows.size()) +
                  " rows folded into one sum (the fold of all needs " + std::to_string(encoding_bits) +
                  " bits), every subset meeting them checked on the others; " + listed.plan.reason;
  s.reductions = {"rows folded: " + std::to_string(out.rows_folded) + " of " + std::to_string(p.rows.size())};
  if (first) {
    s.status = status::feasible;
    s.feasible = true;
    s.subset = *first;
  } else {
    s.status = listed.complete ? status::infeasible : status::unknown;
  }
  if (o.count && listed.complete) s.count = big_count(uint128(count));
  if (o.count && !listed.complete && first) s.status = status::unknown;  // a count left unfinished
  if (s.status == status::unknown) {  // as ssum::solve reports a search the time limit ended
    s.feasible = false;
    s.subset.clear();
  }
  s.seconds.search = listed.seconds;
  s.seconds.total = detail::seconds_since(start);
  return out;
}
}  // namespace

// The fold's sums are far from random, so the two lists' pruning gains little on them while
// the four-list's residue classes reach a subset early: the plan's candidates cost the two-list
// so (planner.hpp, fold_two_list_factor), and the fastest exact one that fits is named here.
algorithm fold_algorithm(backend which, unsigned threads, const problem& single, const solve_options& options) {
  const std::size_t n = single.weights.size();
  if (options.algo == algorithm::lattice) {
    throw std::invalid_argument("the lattice stage runs in one process on the rows as given, not on their fold "
                                "shared among MPI ranks: name an exact algorithm or auto");
  }
  if (options.algo != algorithm::automatic) return options.algo;
  if (n < rows_four_list_from || n > detail::most_items) return algorithm::automatic;
  const detail::device_probe probe = detail::cuda_probe();
  // automatic asks the device only when it may pay: the fold's rule is the host's
  const std::vector<detail::candidate> table =
      fold_candidates(single, options, threads, which == backend::cuda ? &probe : nullptr);
  if (table.empty()) return algorithm::automatic;
  const backend on = which == backend::cuda ? backend::cuda : backend::cpu;
  const detail::candidate* best =
      detail::fastest_exact(table, [&](const detail::candidate& c) { return c.where == on && c.algo != algorithm::automatic; });
  if (!best) return algorithm::four_list;  // none fits: the four-list's plan is the smallest, its refusal says why
  return best->algo == algorithm::four_list ? algorithm::four_list : algorithm::automatic;
}

rows_solution solve_rows(backend which, unsigned threads, const rows_problem& p, const solve_options& options) {
  const auto start = detail::clock_type::now();
  rows_solution out;
  out.encoding_bits = rows_encoding_bits(p);  // throws for a bad shape
  const std::optional<rows_encoding> folded = encode_rows(p);
  if (folded && folded->infeasible_by_bounds) {
    out.method = "bounds";
    out.rows_folded = p.rows.size();
    out.answer.status = status::infeasible;
    out.answer.algorithm = "reductions";
    out.answer.backend = "cpu";
    out.answer.reductions = {"a row's target lies outside the sums its coefficients reach"};
    out.answer.plan = {"reductions", "cpu", "a row's target lies outside the sums its coefficients reach"};
    if (options.count) out.answer.count = big_count(0);
    out.answer.seconds.total = detail::seconds_since(start);
    return out;
  }
  if (options.algo == algorithm::lattice) {
    if (options.count) throw std::invalid_argument("the lattice stage finds one subset: it cannot count (the exact algorithms count)");
    if (!options.checkpoint.empty()) throw std::invalid_argument("the lattice stage keeps no checkpoint: only the four-list does");
    if (options.share) throw std::invalid_argument("the lattice stage runs in one process: it is not shared among MPI ranks");
    if (which == backend::cuda) throw backend_unavailable("the lattice stage runs on the host (--backend cpu or auto)");
    if (!detail::lattice_available()) throw backend_unavailable("this build of ssum has no fplll: the lattice stage is not built");
    rows_solution named = detail::lattice_alone(p, options, "the lattice stage was asked for", start, threads);
    named.encoding_bits = out.encoding_bits;
    return named;
  }
  const bool automatic = options.algo == algorithm::automatic;
  const bool races = automatic && lattice_races(p, options, threads);
  // Under automatic, an exact search that refuses the instance itself leaves it to the lattice.
  const auto or_lattice = [&](auto&& exact_path) -> rows_solution {
    if (!automatic || !lattice_takes(p, options)) return exact_path();
    std::string refusal;
    std::exception_ptr refused;
    try {
      return exact_path();
    } catch (const insufficient_memory& e) {
      refusal = e.what(), refused = std::current_exception();
    } catch (const out_of_reach& e) {
      refusal = e.what(), refused = std::current_exception();
    } catch (const instance_refused& e) {  // the instance, not a bad argument
      refusal = e.what(), refused = std::current_exception();
    }
    rows_solution alone =
        detail::lattice_instead(p, options, refused, "no exact algorithm can take these rows (" + refusal + ")", start, threads);
    alone.encoding_bits = rows_encoding_bits(p);
    return alone;
  };
  if (folded) {
    return or_lattice([&] {
      solve_options o = options;
      const bool four = automatic && fold_algorithm(which, threads, folded->single, o) == algorithm::four_list;
      if (four) o.algo = algorithm::four_list;
      const detail::exact_search exact = [&](const solve_options& e, unsigned exact_threads) {
        rows_solution r;
        r.method = "fold";
        r.answer = solve(which, exact_threads, folded->single, e);
        return r;
      };
      // A plan the exact search refuses is refused at once, before the lattice's first
      // reduction (an uninterruptible BKZ tour) starts.
      // The exact search on the GPU leaves the host's threads, but for its own share, to the
      // lattice's enumeration.
      unsigned lattice_threads = 1;
      bool exact_on_gpu = false;
      if (races) {
        const detail::choice c = detail::choose(folded->single, o, which, threads, 0);
        const unsigned team = detail::host_share_for(threads, o).threads;
        exact_on_gpu = c.where == backend::cuda;
        if (exact_on_gpu && team > c.threads + 1) lattice_threads = team - std::max(1u, c.threads);
        if (!exact_on_gpu) lattice_threads = host_lattice_threads(p, options, threads).threads;
      }
      rows_solution out = races ? detail::race_lattice(which, threads, p, o, start, exact, lattice_threads, exact_on_gpu)
                                : exact(o, threads);
      out.rows_folded = p.rows.size();
      out.encoding_bits = rows_encoding_bits(p);
      if (out.method == "lattice") return out;
      const std::string asked = "the four-list algorithm was asked for";
      if (const std::size_t at = out.answer.plan.reason.find(asked); four && at != std::string::npos) {
        out.answer.plan.reason.replace(at, asked.size(),
                                       "several rows folded: the four-list reaches their subsets sooner than the two lists");
      }
      if (out.answer.feasible && !is_rows_certificate(p, out.answer.subset)) {
        throw std::logic_error("internal error: a subset of the folded rows does not meet every row");
      }
      return out;
    });
  }

  // Past 127 bits: fold what fits, list its subsets, check each on the other rows.
  if (!options.checkpoint.empty()) {
    throw std::invalid_argument("a checkpoint is kept by the one-sum search: this instance's " +
                                std::to_string(p.rows.size()) + " rows need " + std::to_string(out.encoding_bits) +
                                " bits, past the 127 of one sum");
  }
  if (which == backend::cuda) {
    throw backend_unavailable("rows that need more than 127 bits are checked on the host: --backend cuda cannot take them");
  }
  if (options.algo == algorithm::completion_search) {
    throw std::invalid_argument("rows that need more than 127 bits are answered by listing the subsets of the rows "
                                "that fold (the two-list, the four-list or the dp): the completion search does not list");
  }
  const rows_problem part = foldable_part(p);
  if (part.rows.empty()) {
    throw std::invalid_argument("no row of this instance folds into 127 bits on its own");
  }
  const std::optional<rows_encoding> some = encode_rows(part);
  if (some->infeasible_by_bounds) {  // cannot happen: the whole instance passed its bounds
    throw std::logic_error("internal error: a part of the rows is out of bounds when the whole is not");
  }
  const detail::exact_search exact = [&](const solve_options& e, unsigned exact_threads) {
    return fold_and_check(exact_threads, p, part, some->single, e, rows_encoding_bits(p), start);
  };
  return or_lattice([&] {
    rows_solution checked =
        races ? detail::race_lattice(which, threads, p, options, start, exact, host_lattice_threads(p, options, threads).threads)
              : exact(options, threads);
    checked.rows_folded = part.rows.size();
    checked.encoding_bits = rows_encoding_bits(p);
    return checked;
  });
}

// The lattice stage's line in a plan where it runs alone: on the whole host team.
static std::string lattice_alone_why(unsigned threads, const solve_options& options) {
  const unsigned team = detail::host_share_for(threads, options).threads;
  return "fplll's reduction and a {0,1} enumeration" +
         (team == 1 ? std::string(" on one thread") : " on " + std::to_string(team) + " threads (restarts as a portfolio)") +
         "; no model of its time";
}

plan_table explain_rows(backend which, unsigned threads, const rows_problem& p, const solve_options& options) {
  const std::size_t bits = rows_encoding_bits(p);  // throws for a bad shape
  const std::optional<rows_encoding> folded = encode_rows(p);
  const std::string asked = options.count ? "count" : "decide";
  plan_table t;
  if (folded && folded->infeasible_by_bounds) {
    t.question = "rows: " + asked;
    plan_candidate bounds;
    bounds.algorithm = "reductions";
    bounds.backend = "cpu";
    bounds.takes = bounds.fits = true;
    bounds.seconds = 0;
    bounds.role = "chosen";
    bounds.why = "a row's target lies outside the sums its coefficients reach";
    t.candidates.push_back(bounds);
    t.chosen = {"reductions", "cpu", bounds.why};
    return t;
  }
  if (options.algo == algorithm::lattice) {
    // The lattice named: the exact candidates are shown as automatic would weigh them.
    solve_options o = options;
    o.algo = algorithm::automatic;
    o.count = false;
    plan_table named = explain_rows(which, threads, p, o);
    named.question = "rows: " + asked + ", the lattice stage named";
    for (plan_candidate& c : named.candidates) c.role = c.algorithm == "lattice" ? "chosen" : "";
    plan_candidate& lattice = named.candidates.back();
    named.refusal.clear();
    named.chosen = {"lattice", "cpu", "the lattice stage was asked for"};
    if (options.count) named.refusal = "the lattice stage finds one subset: it cannot count";
    else if (!lattice.takes) named.refusal = lattice.why;
    else lattice.why = lattice_alone_why(threads, options);
    if (!named.refusal.empty()) named.chosen = {}, lattice.role.clear();
    return named;
  }
  if (folded) {
    solve_options o = options;
    o.algo = fold_algorithm(which, threads, folded->single, options);
    t = detail::explain_one_sum(which, threads, folded->single, o, true);
    t.question = "rows: " + asked + ", all " + std::to_string(p.rows.size()) + " folded into one sum of " +
                 std::to_string(bits) + " bits";
  } else {
    const rows_problem part = foldable_part(p);
    if (part.rows.empty()) throw std::invalid_argument("no row of this instance folds into 127 bits on its own");
    listing_options lo;
    lo.algo = options.algo;
    lo.memory_limit = options.memory_limit;
    t = explain_listing(backend::cpu, threads, encode_rows(part)->single, lo);
    t.question = "rows: " + asked + ", " + std::to_string(part.rows.size()) + " of the " + std::to_string(p.rows.size()) +
                 " rows folded (all need " + std::to_string(bits) +
                 " bits), each subset meeting them listed and checked on the others";
  }
  plan_candidate lattice;
  lattice.algorithm = "lattice";
  lattice.backend = "cpu";
  lattice.exact = false;
  lattice.takes = lattice.fits = lattice_takes(p, options);
  lattice.why = !detail::lattice_available() ? "this build has no fplll"
                : options.count               ? "it finds subsets, it cannot count them"
                : p.rows.size() < 2           ? "it takes several rows"
                                              : "fplll's reduction and a {0,1} enumeration; no model of its time";
  const bool automatic = options.algo == algorithm::automatic;
  if (automatic && lattice.takes && !t.refusal.empty()) {
    lattice.role = "chosen";
    lattice.why = lattice_alone_why(threads, options);
    t.chosen = {"lattice", "cpu", "no exact algorithm can take these rows (" + t.refusal + "), so the lattice stage runs alone"};
    t.refusal.clear();
  } else if (automatic && lattice_races(p, options, threads) && t.refusal.empty()) {
    lattice.role = "races";
    const lattice_share beside = host_lattice_threads(p, options, threads);
    lattice.why = t.chosen.backend == "cuda"
                      ? "fplll's reduction and a {0,1} enumeration beside the exact search on the GPU, on the host "
                        "threads that search leaves; no model of its time"
                      : "fplll's reduction and a {0,1} enumeration beside the exact search, on " +
                            (beside.threads == 1 ? std::string("one thread") : std::to_string(beside.threads) + " threads") +
                            (beside.why.empty() ? "" : " (" + beside.why + ")") +
                            "; no model of its time";
  }
  t.candidates.push_back(lattice);
  return t;
}

}  // namespace ssum

#pragma once
// The plan's table: every algorithm ssum has, as a candidate for one instance and question,
// with whether it can take it, its planned bytes and its expected seconds (from rates measured
// on the project's machines, docs/planner.md), and which one a solve would run. Nothing is
// solved: `ssum solve --explain` prints this table.
#include <cstddef>
#include <string>
#include <vector>

#include "ssum/problem.hpp"
#include "ssum/rows.hpp"
#include "ssum/solve.hpp"

namespace ssum {

/// One algorithm on one backend, as the plan sees it.
struct plan_candidate {
  std::string algorithm;  // as solution::algorithm names it: "two-list", "dp", "lattice", ...
  std::string backend;    // "cpu" or "cuda"
  bool takes = false;     // it can answer this question on this instance (within the room: see fits)
  bool fits = false;      // its planned bytes are within the room
  bool exact = true;      // it proves and counts; false: it finds a subset or answers unknown
  double bytes = 0;       // planned bytes (0: a few KiB)
  double seconds = -1;    // expected seconds, whole search; negative: no model (it races)
  /// "chosen" (what a solve runs), "first" (runs ahead of the chosen one, which runs only when
  /// it finds nothing), "races" (runs beside the chosen one, the first subset stops both) or "".
  std::string role;
  std::string why;  // why it cannot take it, or what its figures stand for
};

struct plan_table {
  std::string question;  // "decide", "count", "list", "rows: decide", "rows: count"
  std::size_t items = 0;  // the items the algorithms work on (after the reductions where they run)
  unsigned threads = 0;   // the host threads a plan gets (resolved)
  double host_room = 0;   // the bytes a host plan may take
  std::vector<plan_candidate> candidates;
  /// What a solve would run, as solution::plan says it; empty algorithm when it would refuse,
  /// `refusal` then holding the message the solve would throw.
  solve_plan chosen;
  std::string refusal;
};

/// The table for `ssum::solve(which, threads, p, options)`. Throws what the solve throws for
/// bad arguments (std::invalid_argument, ssum::input_error); a refusal of the instance itself
/// (memory, reach) is reported in plan_table::refusal instead.
plan_table explain(backend which, unsigned threads, const problem& p, const solve_options& options = {});

/// The table for `ssum::solve_rows(which, threads, p, options)`.
plan_table explain_rows(backend which, unsigned threads, const rows_problem& p, const solve_options& options = {});

/// The table for `ssum::list_subsets(which, threads, p, options, ...)`.
plan_table explain_listing(backend which, unsigned threads, const problem& p, const listing_options& options = {});

}  // namespace ssum

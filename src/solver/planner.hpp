#pragma once
// Internal: the plan's candidates. Every algorithm that can answer one sum (decide or count)
// is costed here, in one place, from the rates measured on the project's machines
// (docs/planner.md): whether it can take the instance, its planned bytes, its expected seconds.
// choose() takes the fastest exact candidate that fits (choose.cpp keeps the plan's details:
// the reductions' answer, the fill and the split that go first, the device's start-up);
// ssum::explain prints the table. The listing's enumerators (list_subsets.cpp) and the rows'
// stages (rows/solve_rows.cpp) are candidates of the same kind.
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "solver/choose.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/explain.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

// ---- Measured rates (docs/planner.md lists each with the command that measures it) ----

/// The host four-list takes 1.3-1.75x the two-list's time (docs/performance.md, "Host solver").
constexpr double host_four_list_factor = 1.5;
/// A meet-in-the-middle count walks both lists once more after the search: 1.4x.
constexpr double count_factor = 1.4;
/// The device two-list's whole search, per sum of one list: n = 64 (2^32 sums) in 76-97 ms on
/// an H200, so 2e-11 s a sum, its CUDA start-up aside.
constexpr double cuda_two_list_seconds_per_sum = 2e-11;
/// Several rows folded into one sum: its sums are far from random, so the two lists' pruning
/// gains little on them while the four-list's residue classes reach a subset early (QOBLIB
/// ms_06_050_001 on 2 cores: the two-list 1.9 s, the four-list 0.04 s). The two-list's model
/// is this many times its plain one on a fold of rows_four_list_from columns or more.
constexpr double fold_two_list_factor = 40;
/// Where the reduced instance expects at least 2^20 solutions a greedy fill with an exact core
/// finds one in milliseconds: about 0.15 us an item on the 2-core machine, 10 ms at least.
constexpr double fill_least_log2_solutions = 20, fill_least_seconds = 0.01, fill_seconds_per_item = 1.5e-7;
/// Under automatic a dense instance goes to the completion search (which finds, not proves)
/// only where no exact candidate is expected within this many seconds.
constexpr double completion_after_seconds = 10;

double host_four_list_seconds(std::size_t n, unsigned threads);
double cuda_two_list_seconds(std::size_t n);
double cuda_four_list_seconds(std::size_t n, const flipped_totals& totals);

// ---- Candidates ----

/// One algorithm on one backend for one sum.
struct candidate {
  std::string name;  // as solution::algorithm names it
  backend where = backend::cpu;
  algorithm algo = algorithm::automatic;  // how --algorithm names it (automatic: none does)
  bool exact = true;
  std::string cannot;  // why it cannot take the instance; empty when it can
  double bytes = 0;
  double room = 0;          // the bytes its backend offers
  double seconds = HUGE_VAL;  // HUGE_VAL: no model
  std::string costed;       // what its figures stand for
  bool takes() const { return cannot.empty(); }
  bool fits() const { return takes() && bytes <= room; }
};

/// What the candidates are asked: the instance after the reductions and the question.
struct one_sum_question {
  const problem* p = nullptr;          // as given
  const flipped_totals* totals = nullptr;
  const reduction* r = nullptr;        // the reductions (count_reduction for a count)
  const solve_options* options = nullptr;
  host_share host;
  bool fold = false;                   // several rows folded into this sum
  /// The device: asked only when given (explain asks it; a solve's choose() asks lazily).
  const device_probe* probe = nullptr;
};

/// Every candidate for the question, host first, then the device's when this build has CUDA
/// and `probe` is given. Exact candidates only when the reductions leave the instance open.
std::vector<candidate> one_sum_candidates(const one_sum_question& q);

/// The fastest exact candidate that fits, among those `allowed` keeps; nullptr when none.
template <class Allowed>
const candidate* fastest_exact(const std::vector<candidate>& table, Allowed allowed) {
  const candidate* best = nullptr;
  for (const candidate& c : table) {
    if (c.exact && c.fits() && allowed(c) && (!best || c.seconds < best->seconds)) best = &c;
  }
  return best;
}

/// The public row for a candidate.
plan_candidate row_of(const candidate& c);

/// ssum::explain's table; fold: `p` is several rows folded into one sum (ssum::explain_rows).
plan_table explain_one_sum(backend which, unsigned threads, const problem& p, const solve_options& options, bool fold);

}  // namespace ssum::detail

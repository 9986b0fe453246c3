#pragma once
// Internal: the one decision of a solve. choose() computes the weights' totals and every
// refusal rule once, asks the chosen CUDA device (if any) once, and returns the plan that
// ssum::solve runs and reports (solution::plan, the CLI's --json "plan").
#include <functional>
#include <optional>
#include <string>

#include "solver/completion/completion_search.hpp"
#include "solver/completion/greedy_fill.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// How a solve asks about CUDA devices: each question at most once per solve, and only when
/// the choice depends on it. Both throw ssum::cuda_error when the driver cannot be asked.
struct device_probe {
  std::function<bool()> present;        // whether any CUDA device is present (cuda_devices())
  std::function<double(int)> room;      // bytes a plan may use on a device (cuda_solver_room())
};

/// The plan: what runs where, and why.
struct choice {
  algorithm algo = algorithm::two_list;  // two_list, four_list, dynamic_programming or completion_search, never automatic
  backend where = backend::cpu;          // cpu or cuda, never automatic
  unsigned threads = 0;                  // the host threads the plan runs on (solution::threads): a
                                         // cpu plan's team (one for the balanced program); a cuda
                                         // plan's host share (two-list 2, or 1 as asked; four-list 1; dp 0)
  host_share host;                       // a cpu plan's threads and room, measured once: its driver's
  int device = 0;                        // the cuda plan's device
  flipped_totals totals;                 // totals_of(p), for the solver
  bool out_of_range = false;             // infeasible: answered without building any list
  bool settled = false;                  // the reductions answer it (reduced.outcome, .answer)
  double estimate = 0;                   // dynamic_programming on the host: its model's seconds
  bool balanced = false;                 // dynamic_programming: Pisinger's balanced program, not
                                         // the bitset (plan().algorithm "balanced-dp")
  reduction reduced;                     // the reductions (outcome open: the dp runs on them)
  bool reduced_instance = false;         // the meet-in-the-middle plan runs on `instance`, the
  problem instance;                      // reduced problem (reduced_problem()), mapped back after
  std::string reason;                    // a sentence for people
  std::optional<completion_plan> completion;  // completion_search: the attempts' shape
  /// Under automatic, a host dynamic program on an instance that expects many solutions,
  /// where the device's would pay for a whole pass: it runs for this many seconds (the
  /// device's estimate with its start-up; it often stops early there), and when it answers
  /// nothing by then, choose(..., host_tried = true) makes the device's plan. 0: runs to its end.
  double device_after_seconds = 0;
  /// Under automatic, a dynamic program where very many solutions are expected: a greedy fill
  /// (completion/greedy_fill.hpp) tries first; the plan runs only when it finds nothing. What it
  /// answers reports the algorithm "greedy-fill".
  bool fill_first = false;
  /// Under automatic, a heavy tail (completion/greedy_fill.hpp, heavy_split_of): split_fill
  /// runs instead of any plan; when it finds nothing, choose(..., fill_tried = true) makes
  /// the plan. What it answers reports the algorithm "heavy-split".
  std::optional<heavy_split> split;

  solve_plan plan() const;
};

/// The real probe: cuda_devices() and cuda_solver_room().
device_probe cuda_probe();

/// Decides how `p` is solved. which: the backend asked for (automatic: the host unless a CUDA
/// device would pay, see ssum::solve); threads: the host threads asked for (0: all; on CUDA
/// they drive the host's share of the solve, see ssum::solve); device: the
/// CUDA device of a cuda plan; host_tried: a host plan with device_after_seconds ran out, so
/// the device's plan is made now; fill_tried: the greedy fill (choice::fill_first) or the
/// heavy split (choice::split) found nothing, so the plan is made without them. Throws what the solve would throw before starting: bad
/// arguments (std::invalid_argument, ssum::input_error), ssum::backend_unavailable.
choice choose(const problem& p, const solve_options& options, backend which, unsigned threads, int device,
              const device_probe& probe = cuda_probe(), bool host_tried = false, bool fill_tried = false);

/// About how long the host two-list takes for n items on `threads` threads, and how long a
/// CUDA process takes to start: backend::automatic compares the two.
double host_two_list_seconds(std::size_t n, unsigned threads);
constexpr double cuda_start_seconds = 0.4;

}  // namespace ssum::detail

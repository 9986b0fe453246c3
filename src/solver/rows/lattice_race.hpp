#pragma once
// Internal: the lattice stage (lattice/lattice_rows.hpp) beside an exact search, or alone
// where no exact algorithm can take the instance: several rows (rows/solve_rows.cpp) and one
// sum of low density (solve.cpp). The lattice finds subsets; its finding nothing is never an
// answer of "none".
#include <exception>
#include <functional>
#include <string>

#include "solver/frame.hpp"
#include "ssum/solve_rows.hpp"

namespace ssum::detail {

/// The exact search, on the threads it is given, with the options it is given (their cancel
/// raised when the lattice finds a subset first).
using exact_search = std::function<rows_solution(const solve_options&, unsigned)>;

/// The exact search (`exact`) and the lattice stage side by side, the first subset stopping the
/// other: the lattice on `lattice_threads` of the host's team and the exact search on the rest
/// (all but one by default), or, where the exact search runs on the GPU (`exact_on_gpu`, or
/// `which` is cuda), the exact search as asked beside the lattice's `lattice_threads`. The
/// lattice's finding nothing is no answer: the exact
/// search's verdict stands, with its method, or "lattice" with the lattice's subset (verified
/// on every row). Throws what the exact search throws (ssum::interrupted on the caller's cancel
/// unless the lattice found a subset).
rows_solution race_lattice(backend which, unsigned threads, const rows_problem& p, const solve_options& o,
                           clock_type::time_point start, const exact_search& exact, unsigned lattice_threads = 1,
                           bool exact_on_gpu = false);

/// The lattice stage alone, its enumeration on `threads` (0: all), within o.time_limit: "feasible" with a
/// verified subset, or "unknown"; ssum::interrupted on o.cancel. `why` opens the plan's reason.
rows_solution lattice_alone(const rows_problem& p, const solve_options& o, const std::string& why,
                            clock_type::time_point start, unsigned threads = 1);

/// Without a time limit the lattice alone searches this long before the refusal stands.
constexpr double lattice_alone_seconds = 60;

/// Where every exact algorithm refused the instance (`refused`, its refusal): the lattice alone
/// (lattice_alone) within o.time_limit, or without one within lattice_alone_seconds, after
/// which the refusal is thrown again, saying that the lattice found nothing.
rows_solution lattice_instead(const rows_problem& p, const solve_options& o, const std::exception_ptr& refused,
                              const std::string& why, clock_type::time_point start, unsigned threads = 1);

}  // namespace ssum::detail

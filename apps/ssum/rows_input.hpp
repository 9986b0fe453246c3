#pragma once
// `ssum solve` on a multi-row instance (market split): whether the input is one, and its
// answer printed with every row's check.
#include <optional>
#include <string>
#include <vector>

#include "ssum/rows.hpp"
#include "ssum/solve_rows.hpp"

namespace ssum::cli {

/// Whether `path` holds several rows: --format rows, or under --format auto a path ending in
/// ".dat" (QOBLIB's form) or a file whose first bytes hold several rows by ssum::holds_rows
/// (not looked at for CSV, `csv`). Standard input is read once, by ssum::read_instance, and
/// so is told apart there: false here unless --format rows.
bool is_rows_input(const std::string& path, const std::string& format, bool csv);

/// How an MPI job ran, for its answer: the fields and the "MPI:" line a one-row answer has.
struct mpi_report {
  int ranks = 1;
  bool shared = false;
  std::vector<double> rank_seconds;
  std::string note;
};

/// The answer's text (or one JSON object) for `s`, whose subset has been checked on every row
/// of p. `wall`: the process's seconds so far; `time_limit`: the limit that ran out for an
/// unknown answer; `mpi`: the job's report under mpirun.
std::string rows_answer(const rows_problem& p, const rows_solution& s, bool json, double wall, double time_limit,
                        const std::optional<mpi_report>& mpi = std::nullopt);

}  // namespace ssum::cli

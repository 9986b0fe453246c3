#pragma once
// Solving a multi-row instance (market split, ssum/rows.hpp): the rows folded into one subset
// sum where it fits 128 bits, else some rows folded and the others checked on each subset the
// folded ones admit; a lattice stage first where it is built and likely to help.
#include <cstddef>
#include <string>

#include "ssum/rows.hpp"
#include "ssum/solve.hpp"

namespace ssum {

/// From this many columns a fold of several rows takes the four-list under automatic: the
/// fold's sums are far from random, and the four-list's residue classes reach a subset sooner
/// than the two lists' pruning (one process and MPI ranks alike).
inline constexpr std::size_t rows_four_list_from = 32;

/// The algorithm a fold of several rows (`single`, encode_rows' sum) takes: the one named in
/// `options`; under automatic the four-list from rows_four_list_from columns where the plan
/// would take the two lists, else automatic (the plan's own choice: the dynamic program on
/// small rows, whatever can take more than 120 columns).
algorithm fold_algorithm(backend which, unsigned threads, const problem& single, const solve_options& options);

/// How a multi-row instance was answered.
struct rows_solution {
  /// The answer over the columns: status, subset (verified on every row), count (every
  /// subset that meets every row), the algorithm, backend, threads, plan and seconds of the
  /// stage that answered.
  solution answer;
  /// "fold": every row folded into one subset sum, solved as one; "fold and check": the rows
  /// that fit folded, every subset meeting them listed and checked on the others; "lattice":
  /// the lattice stage found the subset; "bounds": a target lies outside its row's reach.
  std::string method;
  std::size_t rows_folded = 0;    // rows in the one subset sum (all of them for "fold")
  std::size_t encoding_bits = 0;  // the bits the fold of every row would need (rows_encoding_bits)
  std::uint64_t checked = 0;      // "fold and check": subsets of the folded rows checked on the others
  double lattice_seconds = 0;     // time spent in the lattice stage (0 when it did not run)
};

/// Answers p as `ssum::solve` answers one row (the same options: count, time limit, memory,
/// cancel, checkpoint, progress): "feasible" with a subset meeting every row, "infeasible" when
/// the exact search proves there is none, "unknown" when the time limit ran out. Where every
/// row folds into 127 bits the folded instance goes to ssum::solve (any algorithm and backend,
/// a checkpoint kept as for one row). Past 127 bits the rows that fit are folded and the
/// subsets meeting them are listed on the host (ssum::list_subsets) and checked on the rest:
/// exact, and fast while the folded rows leave few such subsets (a checkpoint is then
/// refused). The lattice stage, where built, may answer "feasible" first; its finding nothing
/// is never taken as "infeasible". Throws what ssum::solve and ssum::list_subsets throw, and
/// std::invalid_argument for an instance whose rows and targets do not match in shape.
rows_solution solve_rows(backend which, unsigned threads, const rows_problem& p, const solve_options& options);

}  // namespace ssum

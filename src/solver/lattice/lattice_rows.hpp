#pragma once
// Internal: a lattice stage for multi-row subset sum (market split), A x = b with x in {0,1}^n.
//
// Method (Aardal, Hurkens and Lenstra, "Solving a system of linear Diophantine equations with
// lower and upper bounds on the variables", Math. Oper. Res. 25, 2000; and their market split
// paper, IPCO 1998): the rows
//   b_j     = (2 e_j, 0, N a_j)        j = 1..n, a_j column j of A
//   b_{n+1} = (1, ..., 1, 1, N b)
// span a lattice in which x maps to v = sum_j x_j b_j - b_{n+1} = (2x - 1, -1, N (A x - b)):
// entries +-1 in the first n + 1 coordinates and 0 in the last m. The extra coordinate (as in
// Wassermann's solvediophant) fixes the coefficient of b_{n+1} to +-1. fplll reduces the
// basis (LLL, with N large enough that the vectors with a zero tail come first), the
// zero-tail vectors span the kernel lattice (dimension n + 1 - rank [A | b]), progressive
// BKZ 2.0 (block sizes 10, 20, 30, 40, fplll's shipped pruning strategies, one tour per call)
// reduces that, a basis row that is a solution ends the search, and a Schnorr-Euchner
// enumeration (Schnorr and Euchner, Math. Programming 66, 1994), depth first within limited
// discrepancy passes (Harvey and Ginsberg, IJCAI 1995: the paths nearest the rounded centers
// first, as in solvediophant; the last pass covers the rest of the tree, each leaf once),
// lists its vectors of squared norm n + 1, pruned by the norm and by
// the Hoelder bound ||pi_i(v)||_2^2 = <pi_i(v), v> <= ||pi_i(v)||_1 ||v||_inf (Ritter's
// p-norm pruning, which Wassermann's solvediophant uses for 0/1 problems; Wassermann,
// "Attacking the market split problem with lattice point enumeration", J. Comb. Optim. 6,
// 2002), by the coordinate bound |pi_i(v)_t| = |<v, pi_i(e_t)>| <= ||pi_i(e_t)||_1, by
// |<v, b*_i>| <= ||b*_i||_1 and by the dual basis, |u_i| = |<v, d_i>| <= ||d_i||_1. Each
// candidate is checked exactly (integer arithmetic, then is_rows_certificate) before it is
// handed out; v and -v give the same x, so only one of each pair is visited.
//
// Restarts (one solution or a few wanted): each enumeration stops at a node budget (2^26
// for the first, then a unit times Luby's sequence; Luby, Sinclair and Zuckerman 1993: the
// unit 2^22 nodes, or the nodes the enumeration visits in the time of the round's
// re-reduction where that is more, as on large lattices), and
// the next one searches the reduced basis shuffled and mixed by a random unimodular matrix,
// then LLL and BKZ reduced again, as Gama, Nguyen and Regev re-randomize between pruned
// enumerations (EUROCRYPT 2010).
// Where a solution sits in the discrepancy order depends heavily on the basis (on ms_09_100
// some bases need 4 x 10^8 nodes, others a few 10^6), and a re-reduction costs about as
// much as a round's budget. A round that ends within its budget covered the whole tree.
// On several threads the first round splits its tree over all of them; after it the
// restarts run as a portfolio (restart_portfolio.hpp): each thread a stream of its own
// randomized bases (seeded from `seed` and the stream), each re-reduced and enumerated on
// that one thread, the budgets taken in turn from one Luby sequence, until one stream finds
// a subset or covers its tree, cancel or the clock: the luck is in the basis, so several
// bases at once rather than one tree split over threads, and no thread idles while another
// reduces. The streams call fplll at once, each on its own matrices: its process-wide state
// is made safe for that first (lattice_rows.cpp, prepare_fplll; it turns fplll's external
// enumerator off in the process).
//
// Not a proof: the enumeration's Gram-Schmidt data is long double, so a rounding error may
// prune a branch that holds a solution. A call that finds nothing, even with `exhausted`
// set, says nothing about whether the instance has a solution; callers must not report
// "no solution" from it. Every subset it does return is a verified certificate.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ssum/rows.hpp"

namespace ssum::detail {

struct lattice_options {
  /// Polled every 2^16 enumeration nodes and between BKZ tours. One BKZ tour (and the
  /// first LLL) cannot be interrupted; tours are kept to one per fplll call for that reason.
  const std::atomic<bool>* cancel = nullptr;
  /// Seconds for the whole call, 0 for none: checked where `cancel` is, and handed to fplll
  /// as its own BKZ time limit.
  double time_limit = 0;
  /// Largest BKZ block size of the progressive schedule; 0 chooses (40, or the kernel's
  /// dimension when smaller); 1 or 2 is LLL only.
  int block_size = 0;
  /// Solutions wanted; 0 for all that the enumeration reaches.
  std::uint64_t limit = 1;
  /// Threads of the enumeration (the reduction runs on one), and with restarts the streams
  /// of the portfolio after the first round (see the header comment); 0 for all hardware
  /// threads.
  unsigned threads = 1;
  /// With a limit (not 0): restart the enumeration on a randomized, re-reduced basis each
  /// time it has spent its node budget without a solution (see the header comment).
  bool restarts = true;
  /// Seeds the randomized bases of the restarts.
  std::uint64_t seed = 0;
  /// The restarts' base node budget, 0 for 2^22: 16 of them for the first round, then this
  /// (or more: restart_unit) times the Luby sequence.
  std::uint64_t restart_nodes = 0;
};

struct lattice_result {
  /// Verified certificates, each with ascending column indices, no two alike.
  std::vector<std::vector<std::size_t>> subsets;
  bool cancelled = false;
  bool timed_out = false;
  /// The enumeration ran to its end (not stopped by `limit`, the clock or `cancel`). NOT a
  /// proof that `subsets` holds every solution, nor that none exists when it is empty.
  bool exhausted = false;
  double reduce_seconds = 0, enumerate_seconds = 0;
  /// Enumeration nodes visited.
  std::uint64_t nodes = 0;
  /// Enumerations run: 1 + the restarts on a randomized basis.
  std::uint64_t rounds = 0;
};

/// False when ssum was built without fplll (solve_rows_lattice then throws).
bool lattice_available();

/// Searches for subsets of the columns answering p (see the header comment). Throws
/// std::invalid_argument for rows of unequal length or a target count other than the row
/// count, ssum::backend_unavailable when built without fplll.
lattice_result solve_rows_lattice(const rows_problem& p, const lattice_options& o);

}  // namespace ssum::detail

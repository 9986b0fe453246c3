#pragma once
// Internal: the lattice stage's restarts on several threads, as a portfolio (lattice_rows.hpp,
// Restarts). After round 1 each of the threads runs its own stream of rounds: a basis of its
// own (randomized and re-reduced by the caller's `next_basis`), then a one-thread enumeration
// of it with a node budget. A search whose luck is the basis gains more from several bases at
// once than from one tree split over threads, and no thread waits while another reduces.
// Needs no fplll: the caller's `next_basis` does the reduction.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "solver/frame.hpp"
#include "solver/lattice/lattice_rows.hpp"

namespace ssum::detail {

/// The Luby sequence 1 1 2 1 1 2 4 1 1 2 ... (i from 1; Luby, Sinclair and Zuckerman, Inf.
/// Process. Lett. 47, 1993): restart budgets within a log factor of the best fixed one,
/// unknown in advance.
std::uint64_t luby(std::uint64_t i);

/// A restart round's unit of nodes (its budget is the unit times Luby's term): `base`, raised
/// to the nodes the enumeration visits, at its rate so far (`nodes` in `enumerate_seconds`),
/// in the time the round's re-reduction took, so that re-reducing stays at most about half
/// of the restarts' time where reductions are slow beside the enumeration (large lattices).
std::uint64_t restart_unit(std::uint64_t base, std::uint64_t nodes, double enumerate_seconds, double reduce_seconds);

/// Round `round`'s node budget (from round 2): unit * luby(round - 1), saturating (a budget
/// that wrapped to 0 would be none).
std::uint64_t round_budget(std::uint64_t unit, std::uint64_t round);

/// Stream `stream`'s next basis: the reduced basis randomized with the stream's own random
/// numbers, reduced again, as int64 rows (empty when it cannot be enumerated). It polls
/// `o.cancel` and `deadline` (setting found.cancelled or found.timed_out when they stop it),
/// and a basis row that is a solution goes to found.subsets. Called from the stream's thread
/// only, so per-stream state needs no lock.
using next_basis_fn = std::function<std::vector<std::vector<std::int64_t>>(
    unsigned stream, const lattice_options& o, std::optional<clock_type::time_point> deadline, lattice_result& found)>;

/// Runs `streams` streams of rounds until one finds a subset, one covers its whole tree
/// within its budget, o.cancel rises or the deadline passes; round i (from round 2, shared by
/// all streams) enumerates base * luby(i - 1) nodes. Merges into `result`: subsets (none
/// twice, at most o.limit), nodes, rounds (round 1 included), the portfolio's wall time split
/// between reduce_seconds and enumerate_seconds, and cancelled (only for o.cancel), timed_out
/// and exhausted (only when a round ended within its budget, having covered its tree).
void run_restart_portfolio(const rows_problem& p, const lattice_options& o, unsigned streams, std::uint64_t base,
                           std::optional<clock_type::time_point> deadline, const next_basis_fn& next_basis,
                           lattice_result& result);

}  // namespace ssum::detail

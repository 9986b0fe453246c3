#pragma once
// Internal: the lattice stage's Schnorr-Euchner {+-1} enumeration (lattice_rows.hpp has the
// method), on o.threads workers. Needs no fplll: it takes the reduced kernel basis as int64.
//
// Threads: each limited-discrepancy pass fixes the coefficients of the top levels first
// (depth first, in the order one thread visits them) until there are about 8 subtrees per
// worker, then the workers take the subtrees from a shared index and search each depth first
// as one thread would. All workers end pass K before pass K + 1 starts, so the near-center
// paths still come first and the last pass still takes each leaf once.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "solver/frame.hpp"
#include "solver/lattice/lattice_rows.hpp"

namespace ssum::detail {

/// The subset that v (a lattice vector's first n + 1 coordinates) stands for, when its
/// entries are all +-1 and the subset answers p exactly (is_rows_certificate).
std::optional<std::vector<std::size_t>> plus_minus_one_subset(const rows_problem& p, const std::vector<std::int64_t>& v);

/// Lists the vectors of entries +-1 of the lattice spanned by `basis` (rows, all of one
/// length, at least one row) that stand for subsets answering p, each checked exactly
/// (is_rows_certificate) before it joins result.subsets, no two alike. Stops at o.limit
/// subsets in result.subsets, when o.cancel rises or at `deadline`; adds its nodes to
/// result.nodes and sets result.cancelled, timed_out or exhausted. With a node_budget (0 for
/// none) it also stops after about that many nodes (all workers together, counted in steps of
/// 2^16), and then returns true: the budget, not the limit, cancel or the clock, stopped it.
bool enumerate_plus_minus_one(const rows_problem& p, std::vector<std::vector<std::int64_t>> basis,
                              const lattice_options& o, std::optional<clock_type::time_point> deadline,
                              lattice_result& result, std::uint64_t node_budget = 0);

}  // namespace ssum::detail

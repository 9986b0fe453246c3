#pragma once
// Internal: the lattice stage on one sum of low density. Lattice reduction finds the subset of
// a low-density instance (Lagarias and Odlyzko, "Solving low-density subset sum problems",
// J. ACM 32, 1985; Coster, Joux, LaMacchia, Odlyzko, Schnorr and Stern, "Improved low-density
// subset sum algorithms", Comput. Complexity 2, 1992) where the meet in the middle needs hours:
// 80 items of 120 bits in about a second. The same embedding as several rows
// (lattice_rows.hpp), with one row.
#include <exception>
#include <optional>
#include <string>

#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// Below this density (items / the widest weight's bits) the lattice takes part.
constexpr double lattice_most_density = 0.8;

/// How the lattice stage takes part in an automatic decision of `p`: "races" beside the exact
/// search (which the plan expects to take a second or more), "alone" where every exact
/// algorithm refuses the instance (`refusal` gets the refusal), or "" (it does not: a count,
/// zero-sum, a named algorithm, a checkpoint, a shared search, density 0.8 or more, no fplll).
std::string one_sum_lattice_role(backend which, unsigned threads, const problem& p, const solve_options& options,
                                 std::string* refusal = nullptr, std::exception_ptr* refused = nullptr);

/// The solve of `p` with the lattice stage as one_sum_lattice_role says; nullopt where it
/// takes no part (the plan then runs as usual). Alone without a time limit it searches for
/// lattice_alone_seconds (rows/lattice_race.hpp), after which the refusal stands. A lattice
/// subset is verified on p.
std::optional<solution> solve_one_sum_with_lattice(backend which, unsigned threads, const problem& p,
                                                   const solve_options& options);

}  // namespace ssum::detail

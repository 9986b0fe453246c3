#pragma once
// Internal: the residues that subset sums reach modulo each small q (2..64). A sum's residue
// mod q depends only on the items' residues, so where the target's residue (zero-sum: 0 by a
// non-empty subset) is not among those reached, no subset reaches the target: a proof of
// infeasibility that tables over the target never need (weights all multiples of 3 but one,
// the target 2 mod 3 while that one is 1 mod 3).
#include <cstdint>
#include <optional>
#include <string>

#include "solver/reductions.hpp"

namespace ssum::detail {

struct residue_verdict {
  unsigned modulus = 0;     // the q whose residues exclude the target
  std::uint64_t reached = 0;  // bit j: some subset (zero-sum: non-empty) has sum = j mod q
  unsigned wanted = 0;      // the target's residue mod q (zero-sum: 0)
};

/// The first modulus q in 2..64 whose reachable residues miss the reduced target (r.bound;
/// zero-sum: 0 by a non-empty signed subset of r.weights), or nothing. Every modulus costs at
/// most one pass over the items (a 64-bit rotate and or per item) and stops as soon as every
/// residue (zero-sum: 0) is reached; the passes share one walk over the items.
std::optional<residue_verdict> unreachable_residue(const reduction& r);

/// The --json text for a verdict: the modulus, the residues reached and the target's.
std::string describe(const residue_verdict& v, bool zero_sum);

}  // namespace ssum::detail

#pragma once
// Internal: the completion search for dense instances, many items and weights too wide for
// any table (for example random n = 100 with 55-bit weights; a partition of 1000 60-bit weights).
//
// Such instances have astronomically many solutions; the search finds one without proving
// anything. It works on the partition form: the magnitudes and one number d = total - 2t
// (t the target, or total - target beyond the middle), so that a perfect partition (two sides
// of equal sum) holds the subset beside d. Karmarkar-Karp differencing replaces the two
// largest numbers by their difference (the two then go to opposite sides) until K are left
// (K in 48..92): numbers far smaller than the weights, whose perfect partitions are about
// 2^K / their spread. A subset of the K with half their total is then found exactly: in a few
// residue classes of their four-list (residue_join.hpp), or, where differencing has left them
// small, by the dynamic program. The first attempt differences plainly; later ones now and
// then pair the largest number with the third largest, reaching other K numbers.
//
// Zero-sum instances take the same path: with the negative weights' magnitudes taken by
// default, a subset of the magnitudes that sums to theirs is a zero-sum subset, unless it is
// the one that maps back to the empty subset.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "solver/reductions.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

struct differenced;  // differencing.hpp

/// An attempt's shape: K items, the modulus of its residue classes, the log2 of the solutions
/// its sub-instance expects, the classes it tries before a fresh choice, and the bytes.
struct completion_plan {
  std::size_t items = 0;
  std::uint64_t modulus = 2;
  double log2_solutions = 0;
  std::uint64_t classes = 1;
  double bytes = 0;
  bool table = false;  // the K numbers are small: the dynamic program answers them
  bool perfect = false;  // differencing to the end left 0: its sides are the answer
  bool dense = false;    // perfect by the dense pass (dense_difference); no full pass made
  double room = 0;       // the bytes it was planned within
  /// The plan's differencing pass (to the end, the 48 left on the way kept): the first
  /// attempt's when K = 48, the answer when perfect.
  std::shared_ptr<const differenced> pass;
};

/// The attempts' shape for the reduced instance `r` on `threads` threads within `room` bytes:
/// perfect where the dense pass (`dense_first`; differencing.hpp) ends at 0, which costs O(n)
/// where n is far above the weights' bits. Otherwise from one differencing pass: perfect where
/// differencing to the end leaves 0; K = 48 with the dynamic program where the 48 numbers left add
/// up to at most 2^27; otherwise the K in 48..92 that minimises the quarter lists
/// (4 * 2^(K/4) sums) plus the classes expected before the first solution (each 2 * 2^(K/4)
/// sums and 2 * 2^(K/2) / M pairs), with M the largest prime at most 2^(K/4) and at most the
/// solutions expected, but large enough for at most 2^22 pairs a side, and the numbers'
/// spread at least 64 M. Empty when no K expects a solution within 2^28 such steps: not
/// dense.
std::optional<completion_plan> completion_plan_for(const reduction& r, unsigned threads, double room,
                                                   bool dense_first = true);

/// log2 of the solutions the reduced instance `r` expects by the normal law of its subsets'
/// sums (a target z deviations from the middle: 2^n e^(-z^2/2) / (2.5 deviation)).
double log2_expected_solutions(const reduction& r);

/// Searches the reduced instance of `p` until a subset is found (mapped back to p's indices)
/// or options.cancel rises (ssum::interrupted; under a time limit, status::unknown). Never
/// answers infeasible. Deterministic: the attempts' choices come from options.seed, and a
/// subset found is the same for any thread count.
solution solve_completion(const host_share& host, const problem& p, const reduction& r, const completion_plan& plan,
                          const solve_options& options);

}  // namespace ssum::detail

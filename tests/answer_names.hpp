#pragma once
// The name an answer must carry (solution::algorithm, --json "algorithm"): "reductions" when
// the target's range or the reductions settle the instance, so that no algorithm ran, and
// otherwise the algorithm that was asked for. Decided here from the reductions alone.
#include <string>

#include "solver/dp/count_dp.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"
#include "ssum/problem.hpp"

namespace ssum_test {

inline bool settled_by_reductions(const ssum::problem& p, bool count) {
  const ssum::detail::flipped_totals totals = ssum::detail::totals_of(p);
  if (totals.out_of_range()) return true;
  const ssum::detail::reduction r =
      count ? ssum::detail::count_reduction(p, totals) : ssum::detail::reduce(p, totals);
  return r.outcome != ssum::detail::reduction::verdict::open;
}

inline std::string expected_name(const ssum::problem& p, const std::string& algorithm, bool count) {
  return settled_by_reductions(p, count) ? "reductions" : algorithm;
}

}  // namespace ssum_test

// The prune stage of the host two-list (two_list_cpu.hpp): Li et al.; Wan et al. section 2.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "solver/two_list/two_list_cpu.hpp"

namespace ssum::detail {

// Pruning (Li et al.; Wan et al. section 2): a pair (A_i, B_j) can hold a + b = t only if
// min A_i + min B_j <= t <= max A_i + max B_j. For a fixed A block the surviving B blocks are
// contiguous and move down as i grows: the staircase.
template <class Sum>
std::vector<block_pair> prune(const Sum* a, std::size_t na, const Sum* b, std::size_t nb,
                              Sum t, std::size_t k) {
  k = std::max<std::size_t>(1, std::min({k, na, nb}));
  const auto a_lo = [&](std::size_t i) { return na * i / k; };
  const auto b_lo = [&](std::size_t j) { return nb * j / k; };
  std::vector<block_pair> pairs;
  for (std::size_t i = 0; i < k; ++i) {
    const Sum a_min = a[a_lo(i)], a_max = a[a_lo(i + 1) - 1];
    // First block j whose largest element reaches t - a_max; last whose smallest is <= t - a_min.
    std::size_t first = 0, last = k;  // [first, last)
    if (t >= a_max) {
      const Sum need = t - a_max;
      std::size_t lo = 0, hi = k;
      while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (b[b_lo(mid + 1) - 1] < need) lo = mid + 1; else hi = mid;
      }
      first = lo;
    }
    if (t < a_min) break;  // later blocks start higher still
    const Sum room = t - a_min;
    {
      std::size_t lo = 0, hi = k;
      while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (b[b_lo(mid)] <= room) lo = mid + 1; else hi = mid;
      }
      last = lo;
    }
    for (std::size_t j = first; j < last; ++j) pairs.push_back({a_lo(i), a_lo(i + 1), b_lo(j), b_lo(j + 1)});
  }
  return pairs;
}

template std::vector<block_pair> prune(const std::uint64_t*, std::size_t, const std::uint64_t*, std::size_t,
                                       std::uint64_t, std::size_t);
template std::vector<block_pair> prune(const uint128*, std::size_t, const uint128*, std::size_t, uint128,
                                       std::size_t);

}  // namespace ssum::detail

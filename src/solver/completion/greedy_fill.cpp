// The greedy fill with an exact core (greedy_fill.hpp): a constructive answer where solutions abound.
#include "solver/completion/greedy_fill.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include "solver/completion/completion_search.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

// The core is sized so that its subset sums near their middle are about 2^10 per unit: a gap a
// deviation or so off the middle still expects hundreds of hits.
constexpr double wanted_density_bits = 10;
// Below this many expected solutions (log2) the instance is left to the exact algorithms:
// the normal law's count is then too small to stake a random construction on.
constexpr double least_expected_bits = 8;

// splitmix64: small, portable and deterministic for a given seed on every platform (the
// standard distributions are not).
struct random_source {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, bound) for shuffles (bound > 0): the high word of a 64x64 product.
  std::size_t below(std::size_t bound) { return std::size_t((uint128(next()) * bound) >> 64); }
};

template <class Sum>
struct entry {
  Sum sum;
  std::uint32_t mask;  // the half's items in this sum (a half has at most 30)
};

// Every subset sum of `items` in ascending order with its mask: from {0}, merge the list with
// itself shifted by each item in turn. That costs O(2^k) in all, no sort, and the list of k
// items never exceeds 2^k entries.
template <class Sum>
void sorted_sums(const std::vector<Sum>& items, std::vector<entry<Sum>>& out, std::vector<entry<Sum>>& spare,
                 const solve_options& options) {
  out.assign(1, entry<Sum>{Sum(0), 0});
  for (std::size_t k = 0; k < items.size(); ++k) {
    check_cancel(options);
    const Sum w = items[k];
    const std::uint32_t bit = std::uint32_t(1) << k;
    const std::size_t size = out.size();
    spare.resize(2 * size);
    std::size_t i = 0, j = 0, o = 0;
    while (i < size && j < size) {
      const Sum shifted = out[j].sum + w;
      if (out[i].sum <= shifted) spare[o++] = out[i++];
      else spare[o++] = entry<Sum>{shifted, out[j++].mask | bit};
    }
    for (; i < size; ++i) spare[o++] = out[i];
    for (; j < size; ++j) spare[o++] = entry<Sum>{out[j].sum + w, out[j].mask | bit};
    out.swap(spare);
  }
}

// A subset of `core` summing to `gap` (a mask over core's positions), by meet-in-the-middle:
// the halves' sorted sums, one ascending and one descending pointer. Sum holds sum(core), so
// no pair's sum overflows.
template <class Sum>
std::optional<std::uint64_t> solve_core(const std::vector<uint128>& core, uint128 gap, const solve_options& options) {
  const std::size_t half = core.size() / 2;
  std::vector<Sum> low, high;
  for (std::size_t k = 0; k < core.size(); ++k) (k < half ? low : high).push_back(Sum(core[k]));
  std::vector<entry<Sum>> a, b, spare;
  a.reserve(std::size_t(1) << low.size());
  spare.reserve(std::size_t(1) << high.size());
  sorted_sums(low, a, spare, options);
  b.reserve(std::size_t(1) << high.size());
  sorted_sums(high, b, spare, options);
  std::vector<entry<Sum>>().swap(spare);
  check_cancel(options);
  const Sum goal = Sum(gap);
  std::size_t i = 0, j = b.size();
  while (i < a.size() && j > 0) {
    const Sum s = a[i].sum + b[j - 1].sum;
    if (s == goal) return std::uint64_t(a[i].mask) | (std::uint64_t(b[j - 1].mask) << half);
    if (s < goal) ++i;
    else --j;
  }
  return std::nullopt;
}

// Strictly ascending positions in range whose weights add up to r.bound exactly. The
// positions are distinct, so the sum stays within the total, below 2^127.
bool verified(const reduction& r, const std::vector<std::size_t>& positions) {
  uint128 sum = 0;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (positions[k] >= r.weights.size() || (k > 0 && positions[k] <= positions[k - 1])) return false;
    sum += r.weights[positions[k]];
  }
  return sum == r.bound;
}

}  // namespace

std::vector<std::size_t> greedy_fill(const reduction& r, const solve_options& options,
                                     const greedy_fill_limits& limits) {
  check_cancel(options);
  // Grouped items (copies) are items of their group's weight like any other (map_back expands
  // them). A bound of 0 is answered by the empty subset, which an empty result cannot tell
  // from "none found".
  if (r.zero_sum || r.outcome != reduction::verdict::open || r.bound == 0 ||
      r.weights.empty())
    return {};
  if (log2_expected_solutions(r) < least_expected_bits) return {};

  const std::size_t n = r.weights.size();
  uint128 total = 0;
  for (const uint128 w : r.weights) total += w;  // below 2^127: checked by totals_of
  // Aim at the smaller side (heavy items removed after the complement may have left the bound
  // above half the total): then the items outside the core always hold enough to fill up to
  // the middle, and the answer is the complement of the subset found.
  const bool flip = r.bound > total - r.bound;
  const uint128 goal = flip ? total - r.bound : r.bound;

  // Masks are 32 bits a half and the lists 2^(most/2) entries: at most 60 items in a core.
  const std::size_t most = std::clamp<std::size_t>(limits.most_core, 2, 60);
  const std::size_t largest = std::min(most, n);
  const std::size_t smallest = std::min<std::size_t>(24, largest);

  // The core is drawn from the lighter half of the items: a heavy item (say above goal / 2)
  // widens the core's range and deviation without adding sums near its middle, while in the
  // fill it is simply skipped once it no longer fits.
  std::vector<std::size_t> pool(n);
  std::iota(pool.begin(), pool.end(), std::size_t(0));
  const std::size_t pool_size = std::min(n, std::max(n / 2, 2 * most));
  if (pool_size < n) {
    std::nth_element(pool.begin(), pool.begin() + std::ptrdiff_t(pool_size), pool.end(),
                     [&](std::size_t x, std::size_t y) {
                       return r.weights[x] < r.weights[y] || (r.weights[x] == r.weights[y] && x < y);
                     });
    pool.resize(pool_size);
  }

  random_source rng{limits.seed};
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::vector<char> in_core(n, 0);
  bool whole = false;  // the last core held every item: its miss was exhaustive, no retry helps
  for (int attempt = 0; attempt < limits.attempts && !whole; ++attempt) {
    check_cancel(options);
    // A random core: the first `largest` of a partial shuffle of the pool.
    for (std::size_t k = 0; k < largest; ++k) std::swap(pool[k], pool[k + rng.below(pool_size - k)]);
    // Its size: the fewest items whose subset sums near the middle are dense, by the normal
    // law (2^m sums spread over about 2.5 deviations, deviation = sqrt(sum w^2) / 2).
    double squares = 0, density = -std::numeric_limits<double>::infinity();
    std::size_t m = 0;
    while (m < largest) {
      const double w = double(r.weights[pool[m]]);
      squares += w * w;
      ++m;
      if (m < smallest) continue;
      density = double(m) - std::log2(2.5066 * std::max(1.0, std::sqrt(squares) / 2));
      if (density >= wanted_density_bits) break;
    }
    // Even the largest core expects no sum at its middle: try another draw.
    if (density < 0) continue;
    whole = m == n;
    std::vector<uint128> core(m);
    uint128 core_sum = 0;
    for (std::size_t k = 0; k < m; ++k) core[k] = r.weights[pool[k]], core_sum += core[k], in_core[pool[k]] = 1;

    // Greedy fill in random order up to goal - sum(C)/2, so that the gap lands at the core's
    // middle or just above it: an item that does not fit is larger than the slack left, which
    // therefore ends below the smallest item passed over.
    const uint128 half = core_sum / 2;
    const uint128 limit = goal > half ? goal - half : 0;
    for (std::size_t k = n; k > 1; --k) std::swap(order[k - 1], order[rng.below(k)]);
    uint128 running = 0;
    std::vector<std::size_t> chosen;
    for (std::size_t k = 0; k < n && running < limit; ++k) {
      if ((k & 0xffff) == 0xffff) check_cancel(options);
      const std::size_t item = order[k];
      if (in_core[item] || r.weights[item] > limit - running) continue;
      running += r.weights[item];
      chosen.push_back(item);
    }
    for (std::size_t k = 0; k < m; ++k) in_core[pool[k]] = 0;
    const uint128 gap = goal - running;  // running <= limit <= goal
    if (gap > core_sum) continue;        // outside the core's range
    check_cancel(options);

    // The core exactly: 64-bit sums where its total fits (half the memory and faster).
    const std::optional<std::uint64_t> mask = core_sum <= std::numeric_limits<std::uint64_t>::max()
                                                  ? solve_core<std::uint64_t>(core, gap, options)
                                                  : solve_core<uint128>(core, gap, options);
    if (!mask) continue;
    for (std::size_t k = 0; k < m; ++k) {
      if ((*mask >> k) & 1) chosen.push_back(pool[k]);
    }
    if (flip) {  // the items left out sum to r.bound
      std::vector<char> taken(n, 0);
      for (const std::size_t item : chosen) taken[item] = 1;
      chosen.clear();
      for (std::size_t item = 0; item < n; ++item) {
        if (!taken[item]) chosen.push_back(item);
      }
    }
    std::sort(chosen.begin(), chosen.end());
    if (verified(r, chosen)) return chosen;  // never a wrong subset, even on a slip here
  }
  return {};
}

double greedy_fill_planned_bytes(const reduction& r, const greedy_fill_limits& limits) {
  uint128 total = 0;
  for (const uint128 w : r.weights) total += w;
  const double entry = total <= std::numeric_limits<std::uint64_t>::max() ? 16 : 32;
  const std::size_t most = std::min(std::clamp<std::size_t>(limits.most_core, 2, 60), r.weights.size());
  // Two half lists and the merge's spare, each at most 2^ceil(m/2) entries; per item its
  // place in the pool and the order, its core flag and perhaps its place among the chosen.
  return 3 * entry * std::ldexp(1.0, int((most + 1) / 2)) + 25 * double(r.weights.size());
}

namespace {

// Light items enough that their sums near the middle are reached many ways over (the fill's
// own threshold, with room to spare), and heavy ones few.
constexpr std::size_t least_light = 1000;
constexpr double least_light_bits = 20;

reduction light_part(const reduction& r, const heavy_split& split, uint128 bound) {
  reduction light;
  light.bound = bound;
  light.weights.reserve(split.light.size());
  for (const std::size_t k : split.light) light.weights.push_back(r.weights[k]);
  return light;
}

}  // namespace

std::optional<heavy_split> heavy_split_of(const reduction& r) {
  const std::size_t n = r.weights.size();
  if (r.zero_sum || r.outcome != reduction::verdict::open || n < least_light) return std::nullopt;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return r.weights[x] < r.weights[y] || (r.weights[x] == r.weights[y] && x < y);
  });
  uint128 lighter = 0;
  std::size_t cut = n;
  for (std::size_t k = 0; k < n; ++k) {
    if (k >= least_light && r.weights[order[k]] > lighter) {
      cut = k;
      break;
    }
    lighter += r.weights[order[k]];
  }
  if (cut == n || 10 * (n - cut) > n) return std::nullopt;
  heavy_split split;
  split.light.assign(order.begin(), order.begin() + std::ptrdiff_t(cut));
  split.heavy.assign(order.begin() + std::ptrdiff_t(cut), order.end());
  split.light_total = lighter;
  if (log2_expected_solutions(light_part(r, split, lighter / 2)) < least_light_bits) return std::nullopt;
  return split;
}

std::vector<std::size_t> split_fill(const reduction& r, const heavy_split& split, const solve_options& options,
                                    unsigned threads, double room, double seconds,
                                    std::uint64_t* heavy_bytes) {
  const uint128 goal = r.bound, light = split.light_total;
  uint128 heavy_total = 0;
  for (const std::size_t k : split.heavy) heavy_total += r.weights[k];
  // The heavy subset should leave the light items about half their total. Its sum, once
  // rounded, errs by a sum of |S| rounding errors of up to half a step each (a deviation of
  // step sqrt(|S| / 12), |S| about h / 2): 1.5 deviations and a step stay within 0.45 of the
  // light total, so the residual lands within the light items' range nine times in ten (a
  // miss tries the next target). Each step less halves the heavy search's time or so.
  const uint128 centre = goal > light / 2 ? std::min(goal - light / 2, heavy_total) : 0;
  const double h = double(split.heavy.size());
  const double slack = double(light) * 0.45;
  int shift = 0;
  while (std::ldexp(1.0, shift + 1) * (1.5 * std::sqrt(h / 24) + 1) <= slack) ++shift;
  const auto rounded = [shift](uint128 v) { return shift == 0 ? v : (v + (uint128(1) << (shift - 1))) >> shift; };
  problem heavy;
  for (const std::size_t k : split.heavy) heavy.weights.push_back(int128(rounded(r.weights[k])));
  const int128 aim = int128(rounded(centre));
  // A few targets near the centre: one that misses (none found, or a residual off the light
  // items' range) may be followed by one that does not.
  const int128 offsets[] = {0, 1, -1, 2};
  for (const int128 offset : offsets) {
    check_cancel(options);
    std::vector<std::size_t> chosen;
    std::uint64_t bytes = 0;
    if (centre == 0 && offset == 0) {
      // The light items alone may reach the target: no heavy item at all.
    } else {
      heavy.target = aim + offset;
      solve_options o;
      o.cancel = options.cancel;
      o.seed = options.seed + std::uint64_t(offset + 2);
      o.time_limit = seconds;
      o.memory_limit = std::uint64_t(std::max(1.0, room));
      solution found;
      try {
        found = solve(cpu{threads}, heavy, o);
      } catch (const insufficient_memory&) {
        return {};  // the heavy part does not fit the room: the plan decides
      } catch (const out_of_reach&) {
        return {};
      }
      if (!found.feasible) continue;
      bytes = found.planned_bytes;
      for (const std::size_t i : found.subset) chosen.push_back(split.heavy[i]);
    }
    uint128 sum = 0;
    for (const std::size_t k : chosen) sum += r.weights[k];
    if (sum > goal || goal - sum > light) continue;
    const uint128 residual = goal - sum;
    if (residual > 0) {
      const reduction part = light_part(r, split, residual);
      const std::vector<std::size_t> filled = greedy_fill(part, options);
      if (filled.empty()) continue;
      for (const std::size_t k : filled) chosen.push_back(split.light[k]);
    }
    std::sort(chosen.begin(), chosen.end());
    if (!verified(r, chosen)) continue;
    if (heavy_bytes) *heavy_bytes = bytes;
    return chosen;
  }
  return {};
}

}  // namespace ssum::detail

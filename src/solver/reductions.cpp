// The reductions ahead of every algorithm (reductions.hpp).
#include "solver/reductions.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "solver/divisor_groups.hpp"
#include "solver/few_values.hpp"
#include "solver/residue_classes.hpp"

namespace ssum::detail {
namespace {

uint128 gcd_of(uint128 a, uint128 b) {
  if (b == 1 || a == 1) return 1;
  if ((a >> 64) == 0 && (b >> 64) == 0) return std::gcd(std::uint64_t(a), std::uint64_t(b));  // no 128-bit division
  while (b != 0) {
    const uint128 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

std::string text(uint128 v) { return to_string(int128(v)); }

// The residues reached modulo 2..64 (residue_classes.hpp): a proof of infeasibility, exact for
// the reduced instance as for the original (every step before it keeps the answer).
void apply_residue_classes(reduction& r) {
  if (const std::optional<residue_verdict> v = unreachable_residue(r)) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back(describe(*v, r.zero_sum));
  }
}

// Keeps the nonzero items whose magnitude / g is at most r.bound (in r.weights, r.index and,
// for zero-sum, r.negative); returns how many were heavier.
std::size_t keep_light_items(const problem& p, uint128 g, reduction& r) {
  std::size_t heavy = 0;
  r.weights.reserve(p.weights.size()), r.index.reserve(p.weights.size());
  for (std::size_t i = 0; i < p.weights.size(); ++i) {
    const uint128 mag = g == 1 ? magnitude(p.weights[i]) : magnitude(p.weights[i]) / g;
    if (mag == 0) continue;
    if (mag > r.bound) {
      ++heavy;
      continue;
    }
    r.weights.push_back(mag);
    r.index.push_back(i);
    if (r.zero_sum) r.negative.push_back(p.weights[i] < 0);
  }
  return heavy;
}

// Whether some k has the sum of the k lightest weights at most `target` and the sum of the
// k heaviest at least it: without such a k no subset can reach it (the test that settles the
// Avis and other equal-width classes, where every k-subset's sum lies in a narrow band).
// First from a histogram (counts and sums in 256 buckets by value), without sorting: for k
// near target / mean, a bound above the k lightest's sum and one below the k heaviest's.
// Dense instances settle there; the rest are sorted.
bool reachable_by_some_count(const std::vector<uint128>& w, uint128 target) {
  const std::size_t n = w.size();
  if (n >= 256) {
    uint128 most = 0, total = 0;
    for (const uint128 x : w) most = std::max(most, x), total += x;
    int shift = 0;
    while ((most >> shift) >= 256) ++shift;
    std::array<std::size_t, 256> count{};
    std::array<uint128, 256> sum{};
    for (const uint128 x : w) ++count[std::size_t(x >> shift)], sum[std::size_t(x >> shift)] += x;
    const auto k = static_cast<std::size_t>(std::clamp<long double>(
        static_cast<long double>(target) * n / static_cast<long double>(total), 1, n));
    uint128 light = 0, heavy = 0;  // above the k lightest's sum, below the k heaviest's
    std::size_t need = k;
    for (std::size_t b = 0; b < 256 && need > 0; ++b) {
      const std::size_t take = std::min(need, count[b]);
      light += take == count[b] ? sum[b] : uint128(take) * ((uint128(b + 1) << shift) - 1);
      need -= take;
    }
    need = k;
    for (std::size_t b = 256; b-- > 0 && need > 0;) {
      const std::size_t take = std::min(need, count[b]);
      heavy += take == count[b] ? sum[b] : uint128(take) * (uint128(b) << shift);
      need -= take;
    }
    if (light <= target && heavy >= target) return true;
  }
  std::vector<uint128> sorted = w;
  std::sort(sorted.begin(), sorted.end());
  uint128 light = 0, heavy = 0;
  for (std::size_t k = 0;; ++k) {
    if (light > target) return false;   // the k lightest already exceed it, and so every k
    if (heavy >= target) return true;   // lightest <= target <= heaviest for this k
    if (k == n) return false;
    light += sorted[k];
    heavy += sorted[n - 1 - k];
  }
}

// Zero-sum: a weight whose magnitude exceeds the whole of the other sign's magnitudes can
// never take part; removing it lowers its side's sum, which can make another such weight, so
// the removal repeats until none is left. Each side's magnitudes are sorted once (only when
// something goes) and shrunk from the top: O(n log n), however many rounds.
reduction reduce_zero_sum(const problem& p, reduction r, uint128 g) {
  uint128 positive = 0, negative = 0, top_positive = 0, top_negative = 0;
  for (const int128 w : p.weights) {
    const uint128 mag = g == 1 ? magnitude(w) : magnitude(w) / g;
    if (w > 0) positive += mag, top_positive = std::max(top_positive, mag);
    else negative += mag, top_negative = std::max(top_negative, mag);
  }
  if (positive == 0 || negative == 0) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back("all nonzero weights have one sign: no non-empty subset sums to 0");
    return r;
  }
  std::size_t removed = 0, rounds = 0;
  if (top_positive > negative || top_negative > positive) {
    std::vector<uint128> pos, neg;  // each side's magnitudes, heaviest first
    for (const int128 w : p.weights) {
      if (w != 0) (w > 0 ? pos : neg).push_back(g == 1 ? magnitude(w) : magnitude(w) / g);
    }
    std::sort(pos.begin(), pos.end(), std::greater<>());
    std::sort(neg.begin(), neg.end(), std::greater<>());
    std::size_t ip = 0, in = 0;
    for (;;) {  // a round removes what exceeds the other side's sum at its start
      const uint128 p0 = positive, n0 = negative;
      const std::size_t before = removed;
      while (ip < pos.size() && pos[ip] > n0) positive -= pos[ip++], ++removed;
      while (in < neg.size() && neg[in] > p0) negative -= neg[in++], ++removed;
      if (removed == before) break;
      ++rounds;
      if (positive == 0 || negative == 0) break;  // one sign left: settled
    }
  }
  const std::string what = "items heavier than the other side's sum removed until none is (" +
                           std::to_string(removed) + " in " + std::to_string(rounds) +
                           (rounds == 1 ? " round)" : " rounds)");
  if (positive == 0 || negative == 0) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back(what + ": only one sign is left, no non-empty subset sums to 0");
    return r;
  }
  // Every kept magnitude is at most both sides' sums (its own holds it), and every removed
  // one above the other side's final sum: the bound alone tells them apart.
  r.bound = std::min(positive, negative);
  keep_light_items(p, g, r);  // removes exactly `removed` items
  if (removed) r.applied.push_back(what + "; the smaller side's sum is " + text(r.bound));
  apply_residue_classes(r);
  return r;
}

// Items that share a divisor (divisor_groups.hpp): an infeasible verdict settles any solve; a
// subset only a decision, since a count needs every subset.
void apply_divisor_groups(const problem& p, reduction& r, bool counting) {
  // Where a table over every sum takes under a millisecond (2^20 word operations), the search
  // for groups (about 0.05 ms on 1000 small weights) is not worth starting.
  if (double(r.weights.size()) * double(r.bound) < 64.0 * double(1 << 20)) return;
  const std::optional<divisor_groups_verdict> v = settle_by_divisor_groups(r);
  if (!v || (!v->infeasible && (counting || v->positions.empty()))) return;
  std::string groups;
  for (const std::uint64_t g : v->divisors) groups += (groups.empty() ? "" : ", ") + std::to_string(g);
  groups = "items in " + std::to_string(v->divisors.size()) + " groups of common divisors " + groups;
  if (v->infeasible) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back(groups + ": no sum of the groups' sums reaches the target");
  } else {
    r.answer = map_back(p, r, v->positions);
    r.outcome = reduction::verdict::answered;
    r.applied.push_back(groups + ": the groups' sums reach the target");
  }
}

}  // namespace

reduction reduce(const problem& p, const flipped_totals& totals, bool counting, bool divisor_groups) {
  reduction r;
  r.zero_sum = p.zero_sum();
  std::size_t zeros = 0;
  uint128 g = 0;
  for (std::size_t i = 0; i < p.weights.size(); ++i) {
    if (p.weights[i] == 0) {
      if (r.zero_sum) {
        r.outcome = reduction::verdict::answered;
        r.answer = {i};
        r.applied.push_back("a zero weight is a non-empty subset summing to 0");
        return r;
      }
      ++zeros;
      continue;
    }
    g = gcd_of(magnitude(p.weights[i]), g);
  }
  r.zero_weights = zeros;
  if (zeros) r.applied.push_back("zero weights set aside (" + std::to_string(zeros) + ")");
  if (g == 0) {  // no nonzero weight: only the empty subset, sum 0
    if (r.zero_sum || totals.target != 0) r.outcome = reduction::verdict::infeasible;
    else r.outcome = reduction::verdict::answered;
    r.applied.push_back(r.zero_sum ? "no nonzero weight: no non-empty subset sums to 0"
                                   : "no nonzero weight: every subset sums to 0");
    return r;
  }
  if (g > 1) r.applied.push_back("divided by the gcd " + text(g));
  if (r.zero_sum) return reduce_zero_sum(p, std::move(r), g);

  // In range: target + sum |negative| lies in [0, total |w|] (no overflow below 2^127).
  const uint128 shifted = uint128(totals.target + int128(totals.negative_abs));
  if (shifted % g != 0) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back("the gcd " + text(g) + " does not divide the target: infeasible");
    return r;
  }
  const uint128 total = totals.total_abs / g;
  uint128 target = shifted / g;
  if (totals.negative_abs != 0) {
    r.applied.push_back("negative weights flipped (target raised by " + text(totals.negative_abs) + ")");
  }
  if (total - target < target) {
    r.complemented = true;
    r.applied.push_back("complement: the items left out sum to " + text(total - target) + " (instead of " +
                        text(target) + ")");
    target = total - target;
  }
  r.bound = target;
  if (const std::size_t heavy = keep_light_items(p, g, r)) {
    r.applied.push_back("items heavier than the target removed (" + std::to_string(heavy) + ")");
  }
  if (!reachable_by_some_count(r.weights, r.bound)) {
    r.outcome = reduction::verdict::infeasible;
    r.applied.push_back("no number of items reaches the target: for every k, the k lightest exceed it or the "
                        "k heaviest fall short");
    return r;
  }
  apply_residue_classes(r);
  if (r.outcome != reduction::verdict::open) return r;
  if (!counting) {
    // Few distinct weights with many copies: a subset built directly (few_values.hpp);
    // when none is built the plan runs as before.
    if (const std::vector<std::size_t> positions = few_values_subset(r); !positions.empty()) {
      r.answer = map_back(p, r, positions);
      r.outcome = reduction::verdict::answered;
      r.applied.push_back("few distinct weights with many copies: each weight's share of the target, the rest "
                          "from the least sum of its class modulo the smallest weight");
      return r;
    }
  }
  if (divisor_groups) apply_divisor_groups(p, r, counting);
  return r;
}

namespace {

// Sorts `key` and returns the positions 0..n-1 in that order, equal keys in position order: a
// least-significant-digit radix sort, 11 bits a pass, as many passes as the largest key needs;
// the keys move with their positions, so no pass reads them out of order.
std::vector<std::size_t> radix_sort(std::vector<std::uint64_t>& key) {
  const std::size_t n = key.size();
  std::vector<std::size_t> order(n), next(n);
  std::vector<std::uint64_t> next_key(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = k;
  const std::uint64_t largest = n ? *std::max_element(key.begin(), key.end()) : 0;
  constexpr int digit = 11;
  constexpr std::uint64_t mask = (1u << digit) - 1;
  for (int shift = 0; shift < int(std::bit_width(largest)); shift += digit) {
    std::vector<std::size_t> start(mask + 2, 0);
    for (std::size_t k = 0; k < n; ++k) ++start[((key[k] >> shift) & mask) + 1];
    for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t at = start[(key[k] >> shift) & mask]++;
      next[at] = order[k], next_key[at] = key[k];
    }
    order.swap(next), key.swap(next_key);
  }
  return order;
}

}  // namespace

reduction group_equal_weights(const reduction& r) {
  if (r.outcome != reduction::verdict::open || !r.copies.empty()) return r;
  // Positions in r.weights by (side, magnitude), so that equal ones lie together, and the
  // sides and magnitudes in that order.
  const std::size_t n = r.weights.size();
  std::vector<std::size_t> order(n);
  std::vector<uint128> sorted(n);
  std::vector<char> sorted_side(n);
  const auto side = [&](std::size_t k) { return r.zero_sum && r.negative[k]; };
  const bool narrow = r.bound < (uint128{1} << 62);
  if (narrow) {
    // Every weight is at most the bound: (side, weight) in one key, radix-sorted in as many
    // passes as the bound's bits need (10^6 items: 0.3 s by comparing positions).
    std::vector<std::uint64_t> key(n);
    const int side_bit = std::bit_width(std::uint64_t(r.bound));
    for (std::size_t k = 0; k < n; ++k) key[k] = (std::uint64_t(side(k)) << side_bit) | std::uint64_t(r.weights[k]);
    order = radix_sort(key);
    for (std::size_t k = 0; k < n; ++k) {
      sorted[k] = key[k] & ((std::uint64_t(1) << side_bit) - 1), sorted_side[k] = char(key[k] >> side_bit);
    }
  } else {
    for (std::size_t k = 0; k < n; ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (side(a) != side(b)) return side(b);
      return r.weights[a] < r.weights[b] || (r.weights[a] == r.weights[b] && a < b);
    });
    for (std::size_t k = 0; k < n; ++k) sorted[k] = r.weights[order[k]], sorted_side[k] = side(order[k]);
  }
  struct chunk {
    uint128 weight;
    bool negative;
    std::size_t first, copies;  // positions order[first, first + copies)
  };
  std::vector<chunk> chunks;
  chunks.reserve(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && sorted_side[j] == sorted_side[i] && sorted[j] == sorted[i]) ++j;
    const uint128 w = sorted[i];
    std::size_t left = j - i, size = 1, at = i;
    while (left > 0) {
      const std::size_t c = std::min(size, left);
      // c w <= bound; narrow, the product fits (bound < 2^62, c < 2^64) and needs no division.
      if (narrow ? uint128(c) * w <= r.bound : c <= r.bound / w) chunks.push_back({w * c, sorted_side[i] != 0, at, c});
      at += c, left -= c, size *= 2;
    }
    i = j;
  }
  // Heaviest first: the early exit comes soon after the reachable prefix passes the target,
  // and the heaviest items get there with the fewest passes (pthree n = 10^4: 0.07 s against
  // 0.15 s in the generator's order, 0.10 s lightest first).
  // By weight, heaviest first, ties in the order made (the bound less the weight, radix-sorted:
  // every chunk weighs at most the bound).
  std::vector<std::size_t> heaviest(chunks.size());
  if (r.bound < (uint128{1} << 62)) {
    std::vector<std::uint64_t> key(chunks.size());
    for (std::size_t k = 0; k < chunks.size(); ++k) key[k] = std::uint64_t(r.bound - chunks[k].weight);
    heaviest = radix_sort(key);
  } else {
    for (std::size_t k = 0; k < heaviest.size(); ++k) heaviest[k] = k;
    std::stable_sort(heaviest.begin(), heaviest.end(),
                     [&](std::size_t a, std::size_t b) { return chunks[a].weight > chunks[b].weight; });
  }
  reduction g;  // r without its items (a copy of them would be thrown away)
  g.outcome = r.outcome, g.zero_sum = r.zero_sum, g.bound = r.bound, g.complemented = r.complemented;
  g.zero_weights = r.zero_weights, g.answer = r.answer, g.applied = r.applied;
  g.weights.reserve(chunks.size()), g.copies.reserve(chunks.size()), g.index.reserve(r.index.size());
  for (const std::size_t k : heaviest) {
    const chunk& c = chunks[k];
    g.weights.push_back(c.weight);
    if (g.zero_sum) g.negative.push_back(c.negative);
    g.copies.push_back(c.copies);
    for (std::size_t k = c.first; k < c.first + c.copies; ++k) g.index.push_back(r.index[order[k]]);
  }
  if (g.weights.size() < r.weights.size()) {
    g.applied.push_back("equal weights grouped (" + std::to_string(r.weights.size()) + " items into " +
                        std::to_string(g.weights.size()) + ")");
  }
  return g;
}

problem reduced_problem(const reduction& r) {
  problem q;
  q.weights.reserve(r.weights.size());
  for (std::size_t k = 0; k < r.weights.size(); ++k) {
    const int128 w = int128(r.weights[k]);
    q.weights.push_back(r.zero_sum && r.negative[k] ? -w : w);
  }
  if (!r.zero_sum) q.target = int128(r.bound);
  return q;
}

namespace {

// The original indices that the chosen items stand for (grouped items for several).
std::vector<std::size_t> originals(const reduction& r, const std::vector<std::size_t>& chosen) {
  if (r.copies.empty()) {
    std::vector<std::size_t> out;
    for (const std::size_t k : chosen) out.push_back(r.index[k]);
    return out;
  }
  std::vector<std::size_t> start(r.copies.size() + 1, 0);
  for (std::size_t k = 0; k < r.copies.size(); ++k) start[k + 1] = start[k] + r.copies[k];
  std::vector<std::size_t> out;
  for (const std::size_t k : chosen) {
    for (std::size_t j = start[k]; j < start[k + 1]; ++j) out.push_back(r.index[j]);
  }
  return out;
}

}  // namespace

std::vector<std::size_t> map_back(const problem& p, const reduction& r, const std::vector<std::size_t>& chosen) {
  const std::vector<std::size_t> items = originals(r, chosen);
  std::vector<std::size_t> subset;
  if (r.zero_sum) {
    subset = items;
    std::sort(subset.begin(), subset.end());
    return subset;
  }
  // taken[i]: item i's magnitude is in the flipped instance's subset. The complement takes
  // every nonzero item but the chosen ones (heavy items included).
  const std::size_t n = p.weights.size();
  std::vector<char> taken(n, 0);
  if (r.complemented) {
    for (std::size_t i = 0; i < n; ++i) taken[i] = p.weights[i] != 0;
    for (const std::size_t i : items) taken[i] = false;
  } else {
    for (const std::size_t i : items) taken[i] = true;
  }
  // A flipped item taken means the negative weight left out, and the other way round.
  for (std::size_t i = 0; i < n; ++i) {
    if (p.weights[i] != 0 && taken[i] != (p.weights[i] < 0)) subset.push_back(i);
  }
  return subset;
}

}  // namespace ssum::detail

#pragma once
// Instances with exactly one solution, planted where a solver that drops a few sums, a block
// pair, a group of them or a residue class would lose it. The weights are wide (about 2^50,
// a few "heavy" ones about 2^56), so that two subsets almost never share a sum; that the
// planted subset is the only one is not assumed but counted by the sequential reference
// (reference/sequential_two_list.hpp), and a builder draws again in the rare other case.
//
// The shapes are chosen in the solver's own coordinates: after the flip (every weight made
// non-negative, a negative item's choice inverted; solver/two_list/two_list_instance.hpp), items
// [0, n/2) form list A and [n/2, n) list B, the quarters [0, n/4), [n/4, n/2), ... the
// four-list's L1..L4. "All of A" puts the solution's a at the end of list A, "none of B" its
// b at the start of B, and so on.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "reference/sequential_two_list.hpp"
#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum_test {

/// Solutions of p by the sequential reference (zero-sum: non-empty ones), sums in 64 bits:
/// the builders below keep every subset sum within +-2^62.
inline std::uint64_t reference_count(const ssum::problem& p) {
  const std::size_t half = p.weights.size() / 2;
  const auto a = ssum_reference::subset_sums<std::int64_t>(p.weights.data(), half);
  const auto b = ssum_reference::subset_sums<std::int64_t>(p.weights.data() + half, p.weights.size() - half);
  const std::uint64_t c = ssum_reference::count_pairs(a, b, static_cast<std::int64_t>(p.target.value_or(0)));
  return p.zero_sum() ? c - 1 : c;  // the empty subset sums to 0 exactly once
}

struct unique_instance {
  ssum::problem p;                  // exactly one solution (zero-sum: one non-empty one)
  std::vector<std::size_t> subset;  // that solution, ascending, original indices
  ssum::problem miss;               // the same weights made to have none (target + 1, or a
                                    // zero-sum weight moved by 1)
  std::uint64_t solutions = 0;      // of p, by the reference: 1 unless the builder gave up
  std::uint64_t miss_solutions = 0; // of miss, by the reference: 0 unless it gave up
  std::string what;
};

/// Which items the flipped instance takes, which are heavy, which are negative.
struct shape {
  std::string name;
  std::vector<bool> take, heavy, negative;
};

inline std::vector<std::size_t> indices_of(const std::vector<bool>& v) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i]) out.push_back(i);
  }
  return out;
}

inline ssum::int128 magnitude_for(std::mt19937_64& rng, bool heavy) {
  const int bits = heavy ? 56 : 50;  // n <= 40: the total stays below 2^59
  return (ssum::int128(1) << bits) + ssum::int128(rng() >> (64 - bits));
}

/// With a target: the subset that the flipped instance solves with s.take. The complement
/// (target = total - target, the other items) mirrors every extreme: all of A becomes none.
inline unique_instance planted_target(std::mt19937_64& rng, const shape& s, bool complement) {
  const std::size_t n = s.take.size();
  unique_instance u;
  u.what = s.name + (complement ? ", complement" : "") + " n=" + std::to_string(n);
  for (int attempt = 0; attempt < 8; ++attempt) {
    u.p.weights.assign(n, 0);
    std::vector<bool> chosen(n);
    ssum::int128 target = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const ssum::int128 m = magnitude_for(rng, s.heavy[i]);
      u.p.weights[i] = s.negative[i] ? -m : m;
      chosen[i] = (s.take[i] != s.negative[i]) != complement;  // the flip, undone; then mirrored
      if (chosen[i]) target += u.p.weights[i];
    }
    u.p.target = target;
    u.subset = indices_of(chosen);
    u.miss = ssum::problem{u.p.weights, target + 1};
    u.solutions = reference_count(u.p);
    u.miss_solutions = reference_count(u.miss);
    if (u.solutions == 1 && u.miss_solutions == 0) break;
  }
  return u;
}

/// Without a target: the only non-empty zero subset is s.take plus the balancing item
/// `balance` (not taken, weight -(sum of the taken ones)). The taken items are positive, the
/// others too unless s.negative says so; with none of those negative, after the flip the
/// balancing item alone is the empty subset's image and s.take the solution, both summing to
/// |w_balance| (other negatives join both). negate: every weight negated, the same zero
/// subsets, the flipped images mirrored. "No item" makes the balancing weight 0.
inline unique_instance planted_zero_sum(std::mt19937_64& rng, const shape& s, std::size_t balance, bool negate) {
  const std::size_t n = s.take.size();
  unique_instance u;
  u.what = s.name + ", zero-sum" + (negate ? ", negated" : "") + " n=" + std::to_string(n);
  for (int attempt = 0; attempt < 8; ++attempt) {
    u.p.weights.assign(n, 0);
    u.p.target = std::nullopt;
    std::vector<bool> chosen = s.take;
    chosen[balance] = true;
    ssum::int128 taken = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == balance) continue;
      const ssum::int128 m = magnitude_for(rng, s.heavy[i]);
      u.p.weights[i] = s.take[i] ? m : (s.negative[i] ? -m : m);
      if (s.take[i]) taken += m;
    }
    u.p.weights[balance] = -taken;
    if (negate) {
      for (auto& w : u.p.weights) w = -w;
    }
    u.subset = indices_of(chosen);
    u.miss = u.p;
    u.miss.weights[balance] += 1;  // the planted subset now sums to +-1
    u.solutions = reference_count(u.p);
    u.miss_solutions = reference_count(u.miss);
    if (u.solutions == 1 && u.miss_solutions == 0) break;
  }
  return u;
}

/// The shapes for n items (n >= 8): the solution at each end of each list, one item alone
/// (heavy, so that the lists stay full below the target), the last item of a half (the
/// GPU two-list leaves it out of its list), quarters, and random middles; signs positive,
/// mixed or all negative in turn.
inline std::vector<shape> unique_shapes(std::size_t n, std::mt19937_64& rng) {
  const std::size_t h = n / 2, q1 = n / 4, q3 = h + (n - h) / 2;
  std::vector<shape> out;
  const auto add = [&](std::string name, auto take, std::vector<std::size_t> heavy = {}) {
    shape s{std::move(name), std::vector<bool>(n), std::vector<bool>(n), std::vector<bool>(n)};
    for (std::size_t i = 0; i < n; ++i) s.take[i] = take(i);
    for (std::size_t i : heavy) s.heavy[i] = true;
    out.push_back(std::move(s));
  };
  add("all of A, none of B", [&](std::size_t i) { return i < h; });
  add("all of A, the first two of B", [&](std::size_t i) { return i < h + 2; });
  add("none of A, all of B", [&](std::size_t i) { return i >= h; });
  add("the first of A, all of B", [&](std::size_t i) { return i == 0 || i >= h; });
  add("every item", [](std::size_t) { return true; });
  add("no item", [](std::size_t) { return false; });
  add("the last item alone, heavy", [&](std::size_t i) { return i == n - 1; }, {n - 1});
  add("the first item alone, heavy", [](std::size_t i) { return i == 0; }, {0});
  add("the last of A alone, heavy", [&](std::size_t i) { return i == h - 1; }, {h - 1});
  add("the first of B alone, heavy", [&](std::size_t i) { return i == h; }, {h});
  add("the last of each half, heavy", [&](std::size_t i) { return i == h - 1 || i == n - 1; }, {h - 1, n - 1});
  add("the last item alone, light", [&](std::size_t i) { return i == n - 1; });
  add("quarters 1 and 3", [&](std::size_t i) { return i < q1 || (i >= h && i < q3); });
  add("quarters 2 and 4", [&](std::size_t i) { return (i >= q1 && i < h) || i >= q3; });
  for (int k = 0; k < 2; ++k) {
    const std::uint64_t bits = rng();
    add("random middle " + std::to_string(k), [&](std::size_t i) { return (bits >> (i % 64)) & 1; });
  }
  // Signs in turn: positive, mixed (a third negative), all negative.
  for (std::size_t k = 0; k < out.size(); ++k) {
    for (std::size_t i = 0; i < n; ++i) out[k].negative[i] = k % 3 == 2 || (k % 3 == 1 && rng() % 3 == 0);
    if (k % 3 != 0) out[k].name += k % 3 == 1 ? ", mixed signs" : ", all negative";
  }
  return out;
}

/// Unique by construction, for sizes the reference cannot count (the GPU tests, n = 48..66).
/// The items at `light` get superincreasing magnitudes (each above the sum of those before
/// it; their total L below 2^17), every other item a heavy one in [L + 1, L + 2^56]. Proof:
/// a subset of the magnitudes summing to s <= L holds no heavy item (each exceeds L), and
/// among the light items only one subset sums to s (superincreasing: the largest light item
/// is in it exactly when s reaches it, and so on down); the complement is then the only
/// subset summing to total - s. The target: the sum of `chosen` (light items), or with
/// `complement` of all items but them. With `mixed_signs` a third of the items are negative:
/// the flip (magnitudes, target + sum of |negative|) maps the solutions one to one, so the
/// subset that the flipped instance takes is the one proven unique. n <= 66: the total stays
/// below 2^63, so that 64-bit sums hold every subset sum of either sign.
inline unique_instance light_heavy(std::mt19937_64& rng, std::size_t n, const std::vector<std::size_t>& light,
                                   const std::vector<std::size_t>& chosen, bool complement, bool mixed_signs) {
  unique_instance u;
  u.what = "light/heavy n=" + std::to_string(n) + (complement ? " complement" : "") + (mixed_signs ? " mixed signs" : "");
  std::vector<ssum::int128> magnitude(n, 0);
  ssum::int128 light_total = 0;
  for (std::size_t i : light) {
    magnitude[i] = light_total + 1 + ssum::int128(rng() % 255);
    light_total += magnitude[i];
  }
  std::vector<bool> take(n, complement);  // in the flipped instance
  for (std::size_t i : chosen) take[i] = !complement;
  ssum::int128 target = 0;
  std::vector<bool> in_subset(n);
  u.p.weights.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (magnitude[i] == 0) magnitude[i] = light_total + 1 + ssum::int128(rng() >> 8);
    const bool negative = mixed_signs && rng() % 3 == 0;
    u.p.weights[i] = negative ? -magnitude[i] : magnitude[i];
    in_subset[i] = take[i] != negative;
    if (in_subset[i]) target += u.p.weights[i];
  }
  u.p.target = target;
  u.subset = indices_of(in_subset);
  u.solutions = 1;  // by the argument above
  return u;
}

}  // namespace ssum_test

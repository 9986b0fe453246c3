#pragma once
// The dense search's peers: what the number-partitioning field reaches for when weights are
// too wide for a table. A subset-sum instance (w, t) becomes a partition by one extra number
// d = |total - 2t'| with t' = min(t, total - t): a perfect partition (difference 0) of w and
// d puts the subset of sum t' beside d (its side sums to total - t', less d is t').
//   kk_local_search: Karmarkar-Karp's differencing (karmarkar_karp.hpp), then a local search
//     (the best single move or swap between the sides, until none improves) with random
//     perturbations, restarted until perfect or out of time;
//   ckk: Korf's complete Karmarkar-Karp (*A complete anytime algorithm for number
//     partitioning*, 1998): depth first, the two largest numbers replaced by their difference
//     first and by their sum second, a node cut when its largest number is at least the sum
//     of the others.
// Both prove nothing when they give up; both return the subset (positions in w) or nothing.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "reference/karmarkar_karp.hpp"

namespace ssum_reference {

namespace dense_detail {

using u128 = unsigned __int128;
using clock_type = std::chrono::steady_clock;

// The partition form: the numbers (w, then d when d > 0), and how a perfect side maps back.
struct partition_form {
  std::vector<std::uint64_t> numbers;
  bool dummy = false;        // numbers.back() is d
  bool complemented = false; // the subset sought is the complement of the one of sum t'
};

inline std::optional<partition_form> partition_form_of(const std::vector<std::uint64_t>& w, u128 t) {
  u128 total = 0;
  for (const std::uint64_t x : w) total += x;
  if (t > total) return std::nullopt;
  partition_form f;
  f.numbers = w;
  f.complemented = 2 * t > total;
  const u128 small = f.complemented ? total - t : t;
  const u128 d = total - 2 * small;
  if (d >> 64) return std::nullopt;  // a target so far from the middle is no partition
  if (d > 0) f.numbers.push_back(std::uint64_t(d)), f.dummy = true;
  return f;
}

// The subset of w behind a perfect partition's sides (side[i] for each number).
inline std::vector<std::size_t> subset_of(const partition_form& f, const std::vector<bool>& side, std::size_t n) {
  const bool chosen = f.dummy ? side.back() : true;  // the side holding d (either, without d)
  std::vector<std::size_t> subset;
  for (std::size_t i = 0; i < n; ++i) {
    if ((side[i] == chosen) != f.complemented) subset.push_back(i);
  }
  return subset;
}

}  // namespace dense_detail

inline std::optional<std::vector<std::size_t>> kk_local_search(const std::vector<std::uint64_t>& w,
                                                                unsigned __int128 t, double seconds,
                                                                std::uint64_t seed = 1) {
  using namespace dense_detail;
  const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                std::chrono::duration<double>(seconds));
  const std::optional<partition_form> f = partition_form_of(w, t);
  if (!f) return std::nullopt;
  const std::vector<std::uint64_t>& x = f->numbers;
  const std::size_t m = x.size();
  std::vector<bool> side = karmarkar_karp(x).side;
  std::mt19937_64 rng(seed);
  const auto difference = [&](const std::vector<bool>& s, u128& heavy_side) {
    u128 a = 0, b = 0;
    for (std::size_t i = 0; i < m; ++i) (s[i] ? a : b) += x[i];
    heavy_side = a >= b;
    return a >= b ? a - b : b - a;
  };
  std::size_t steps = 0;
  for (;;) {
    // Descend: the best move or swap, while it lowers the difference D. Moving w from the
    // heavy side leaves |D - 2w|; swapping w_i (heavy) with w_j (light) leaves
    // |D - 2(w_i - w_j)|: the best w_j is the light value nearest w_i - D/2.
    for (;;) {
      if ((++steps & 15) == 0 && clock_type::now() > deadline) return std::nullopt;
      u128 heavy = 0;
      const u128 d = difference(side, heavy);
      if (d == 0) return subset_of(*f, side, w.size());
      std::vector<std::pair<std::uint64_t, std::size_t>> light;
      for (std::size_t i = 0; i < m; ++i) {
        if (side[i] != bool(heavy)) light.push_back({x[i], i});
      }
      std::sort(light.begin(), light.end());
      u128 best = d;
      std::size_t bi = m, bj = m;
      const auto after = [&](u128 shift) {  // |D - 2 shift| for 0 <= shift
        const u128 twice = 2 * shift;
        return twice >= d ? twice - d : d - twice;
      };
      for (std::size_t i = 0; i < m; ++i) {
        if (side[i] != bool(heavy)) continue;
        if (after(x[i]) < best) best = after(x[i]), bi = i, bj = m;
        const u128 half = d / 2;
        if (x[i] <= half) continue;
        const auto want = std::uint64_t(x[i] - half);  // the light value that balances a swap
        const auto consider = [&](std::size_t at) {
          if (at >= light.size() || light[at].first >= x[i]) return;
          const u128 shift = x[i] - light[at].first;
          if (after(shift) < best) best = after(shift), bi = i, bj = light[at].second;
        };
        const auto at = std::size_t(std::lower_bound(light.begin(), light.end(), std::make_pair(want, std::size_t{0})) -
                                    light.begin());
        consider(at);
        if (at > 0) consider(at - 1);
      }
      if (bi == m) break;  // a local optimum
      side[bi] = !side[bi];
      if (bj != m) side[bj] = !side[bj];
    }
    // Perturb: a few random items change sides, and the descent starts again.
    for (int k = 0; k < 3; ++k) {
      const std::size_t i = rng() % m;
      side[i] = !side[i];
    }
  }
}

inline std::optional<std::vector<std::size_t>> ckk(const std::vector<std::uint64_t>& w, unsigned __int128 t,
                                                    double seconds) {
  using namespace dense_detail;
  const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                std::chrono::duration<double>(seconds));
  const std::optional<partition_form> f = partition_form_of(w, t);
  if (!f) return std::nullopt;
  const std::size_t m = f->numbers.size();
  if (m == 0) return std::vector<std::size_t>{};
  struct number {
    u128 value;
    std::uint32_t id;  // < m: a number of the input; m + j: what depth j made
  };
  struct made {
    std::uint32_t a, b;  // a >= b, replaced by a - b (opposite sides) or a + b (one side)
    bool same_side;
  };
  std::vector<made> ops(m);
  std::vector<bool> side(2 * m, false);
  std::uint64_t nodes = 0;
  bool out_of_time = false;
  // Depth first over one list in ascending order (the largest at the back), changed in place
  // and restored on the way back: memory O(m). True at a perfect partition, whose sides are
  // then in `side`.
  const auto below = [](const number& x, const number& y) { return x.value < y.value; };
  std::vector<number> list;
  const auto search = [&](auto&& self, u128 total, std::size_t depth) -> bool {
    if ((++nodes & 1023) == 0 && clock_type::now() > deadline) out_of_time = true;
    if (out_of_time) return false;
    const u128 largest = list.back().value, rest = total - largest;
    if (list.size() == 1 || largest >= rest) {
      if (largest != rest) return false;  // the best below this node: largest - rest > 0
      for (const number& x : list) side[x.id] = false;
      side[list.back().id] = true;
      for (std::size_t j = depth; j-- > 0;) {  // each made number's parts take its side
        const made& op = ops[j];
        const bool s = side[m + j];
        side[op.a] = s;
        side[op.b] = op.same_side ? s : !s;
      }
      return true;
    }
    const number a = list.back();
    list.pop_back();
    const number b = list.back();
    list.pop_back();
    for (const bool same : {false, true}) {
      const number merged{same ? a.value + b.value : a.value - b.value, std::uint32_t(m + depth)};
      const auto at = std::upper_bound(list.begin(), list.end(), merged, below) - list.begin();
      list.insert(list.begin() + at, merged);
      ops[depth] = {a.id, b.id, same};
      const bool found = self(self, same ? total : total - 2 * b.value, depth + 1);
      if (found) return true;
      list.erase(list.begin() + at);
    }
    list.push_back(b);
    list.push_back(a);
    return false;
  };
  u128 total = 0;
  for (std::size_t i = 0; i < m; ++i) list.push_back({f->numbers[i], std::uint32_t(i)}), total += f->numbers[i];
  std::sort(list.begin(), list.end(), below);
  if (!search(search, total, 0)) return std::nullopt;
  return subset_of(*f, std::vector<bool>(side.begin(), side.begin() + std::ptrdiff_t(m)), w.size());
}

}  // namespace ssum_reference

#pragma once
// The plain sequential Horowitz-Sahni two-list algorithm: the independent reference the
// tests check the solver against, and the peer its benchmark races. Deliberately simple:
// signed sums (no flip), one thread, one merge per item, the textbook two-pointer walk;
// its inner loops are branch-free so that the benchmark's peer is a competent one.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ssum_reference {

/// All 2^count subset sums of w[0, count), ascending: merge L with L + w for each item.
/// Sum must hold every subset sum (the caller's choice: int64 for narrow weights, for speed).
template <class Sum, class Weight>
std::vector<Sum> subset_sums(const Weight* w, std::size_t count) {
  std::vector<Sum> list{0}, next;
  for (std::size_t k = 0; k < count; ++k) {
    const Sum add = static_cast<Sum>(w[k]);
    next.resize(list.size() * 2);
    std::size_t i = 0, j = 0, o = 0;
    // Branch-free select: a fair peer, not a strawman (a branchy merge mispredicts ~half).
    while (i < list.size() && j < list.size()) {
      const Sum x = list[i], y = list[j] + add;
      const bool take_y = y < x;
      next[o++] = take_y ? y : x;
      i += !take_y;
      j += take_y;
    }
    while (i < list.size()) next[o++] = list[i++];
    while (j < list.size()) next[o++] = list[j++] + add;
    list.swap(next);
  }
  return list;
}

/// Number of index pairs (a, b) with a + b == t; equal values counted by multiplicity.
template <class Sum>
std::uint64_t count_pairs(const std::vector<Sum>& a, const std::vector<Sum>& b, Sum t) {
  std::uint64_t count = 0;
  std::size_t i = 0, j = b.size();
  while (i < a.size() && j > 0) {
    const Sum s = a[i] + b[j - 1];
    if (s < t) ++i;
    else if (t < s) --j;
    else {
      std::size_t ri = i, rj = j;
      while (ri < a.size() && a[ri] == a[i]) ++ri;
      while (rj > 0 && b[rj - 1] == b[j - 1]) --rj;
      count += std::uint64_t(ri - i) * std::uint64_t(j - rj);
      i = ri;
      j = rj;
    }
  }
  return count;
}

/// True when some a + b == t (stops at the first match).
template <class Sum>
bool has_pair(const std::vector<Sum>& a, const std::vector<Sum>& b, Sum t) {
  std::size_t i = 0, j = b.size();
  while (i < a.size() && j > 0) {
    const Sum s = a[i] + b[j - 1];
    if (s == t) return true;
    i += s < t;
    j -= t < s;
  }
  return false;
}

/// Decides the instance: with a target, any subset (the empty one too); without one, a
/// non-empty subset summing to zero (more than the one empty pair of subsets).
template <class Sum, class Weight>
bool feasible(const std::vector<Weight>& w, std::optional<Sum> target) {
  const std::size_t half = w.size() / 2;
  const std::vector<Sum> a = subset_sums<Sum>(w.data(), half);
  const std::vector<Sum> b = subset_sums<Sum>(w.data() + half, w.size() - half);
  if (target) return has_pair(a, b, *target);
  return count_pairs(a, b, Sum(0)) > 1;
}

}  // namespace ssum_reference

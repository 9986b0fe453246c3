#pragma once
// What the enumerators' tests share (test_enumerate*.cpp): brute force over all 2^n subsets as
// masks, the request for a query, the masks an enumerator hands out (each index vector checked
// ascending and in range), and random queries of every window shape and size bound.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "solver/two_list/enumerate.hpp"
#include "ssum/int128.hpp"

namespace enumerate_checks {

using ssum::int128;
using ssum::detail::enumerate_request;
using ssum::detail::enumerate_result;

struct query {
  int128 lo = 0, hi = 0;
  bool non_empty = false;
  std::size_t min_items = 0, max_items = SIZE_MAX;
};

inline int128 sum_of(const std::vector<int128>& w, std::uint64_t mask) {
  int128 s = 0;
  for (std::size_t k = 0; k < w.size(); ++k)
    if (mask >> k & 1) s += w[k];
  return s;
}

/// Every subset (as a mask over the n items) in the window and the bounds, ascending masks.
inline std::vector<std::uint64_t> brute_force(const std::vector<int128>& w, const query& q) {
  std::vector<std::uint64_t> found;
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << w.size()); ++mask) {
    const int128 sum = sum_of(w, mask);
    const auto size = std::size_t(std::popcount(mask));
    if (sum < q.lo || sum > q.hi || size < q.min_items || size > q.max_items) continue;
    if (q.non_empty && mask == 0) continue;
    found.push_back(mask);
  }
  return found;
}

inline query query_of(const enumerate_request& r) { return {r.lo, r.hi, r.non_empty, r.min_items, r.max_items}; }

inline std::vector<std::uint64_t> brute_force(const enumerate_request& r) { return brute_force(*r.weights, query_of(r)); }

inline enumerate_request request_for(const std::vector<int128>& w, const query& q) {
  enumerate_request r;
  r.weights = &w;
  r.lo = q.lo;
  r.hi = q.hi;
  r.non_empty = q.non_empty;
  r.min_items = q.min_items;
  r.max_items = q.max_items;
  return r;
}

/// The mask of an index vector; fails the test unless it is strictly ascending and below n.
inline std::uint64_t mask_of(const std::vector<std::size_t>& items, std::size_t n) {
  std::uint64_t mask = 0;
  for (std::size_t k = 0; k < items.size(); ++k) {
    EXPECT_LT(items[k], n);
    if (k) {
      EXPECT_LT(items[k - 1], items[k]);
    }
    mask |= std::uint64_t{1} << items[k];
  }
  return mask;
}

/// The masks `list(r, on_subset)` hands out, in the order listed; `listed` checked against
/// their number.
template <class Lister>
std::vector<std::uint64_t> listed_masks(const enumerate_request& r, Lister list, enumerate_result* result = nullptr) {
  std::vector<std::uint64_t> masks;
  const enumerate_result got = list(r, [&](const std::vector<std::size_t>& items) {
    masks.push_back(mask_of(items, r.weights->size()));
    return true;
  });
  EXPECT_EQ(got.listed, masks.size());
  if (result) *result = got;
  return masks;
}

/// A random query: windows of every shape around the sum of a random subset, size bounds.
inline query random_query(std::mt19937_64& rng, const std::vector<int128>& w) {
  const std::size_t n = w.size();
  const std::uint64_t some = n ? rng() & ((std::uint64_t{1} << n) - 1) : 0;
  const int128 s = sum_of(w, some);
  int128 total_abs = 0;
  for (const int128 x : w) total_abs += x < 0 ? -x : x;
  const int128 spread = total_abs / 8 + 1;
  query q;
  switch (rng() % 6) {
    case 0: q.lo = q.hi = s; break;                                  // lo == hi
    case 1: q.lo = s - spread; q.hi = s + spread; break;             // wide
    case 2: q.lo = s + 1; q.hi = s; break;                           // empty window
    case 3: q.lo = total_abs + 1; q.hi = total_abs + spread; break;  // past every sum
    case 4: q.lo = q.hi = 0; q.non_empty = true; break;              // zero-sum form
    default: q.lo = -total_abs - 1; q.hi = total_abs + 1; break;     // everything
  }
  switch (rng() % 4) {
    case 0: break;
    case 1: q.min_items = q.max_items = rng() % (n + 1); break;  // exactly K (0 and n too)
    case 2: q.min_items = rng() % (n + 2); break;
    default: {
      q.min_items = rng() % (n + 1);
      q.max_items = rng() % (n + 2);
      break;  // min > max sometimes: nothing
    }
  }
  if (rng() % 8 == 0) q.non_empty = true;
  return q;
}

}  // namespace enumerate_checks

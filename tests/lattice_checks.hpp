#pragma once
// What the lattice stage's tests share: its skip without fplll, brute force over every subset
// of a small instance, and the check that each subset it returns is a verified certificate,
// none twice.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "solver/lattice/lattice_rows.hpp"
#include "ssum/rows.hpp"

namespace ssum_test {

using subset_set = std::set<std::vector<std::size_t>>;

#define SKIP_WITHOUT_FPLLL() \
  if (!ssum::detail::lattice_available()) GTEST_SKIP() << "ssum was built without fplll: no lattice stage"

/// Every subset of p's columns that meets every row (2^n of them looked at: n <= 24 or so).
inline subset_set brute_force(const ssum::rows_problem& p) {
  const std::size_t n = p.columns();
  subset_set all;
  for (std::uint64_t mask = 0; mask < (std::uint64_t(1) << n); ++mask) {
    std::vector<std::size_t> subset;
    for (std::size_t j = 0; j < n; ++j)
      if (mask >> j & 1) subset.push_back(j);
    if (ssum::is_rows_certificate(p, subset)) all.insert(subset);
  }
  return all;
}

/// r's subsets as a set, each checked to meet every row and none found twice.
inline subset_set verified_set(const ssum::rows_problem& p, const ssum::detail::lattice_result& r) {
  for (const auto& subset : r.subsets) EXPECT_TRUE(ssum::is_rows_certificate(p, subset));
  const subset_set set(r.subsets.begin(), r.subsets.end());
  EXPECT_EQ(set.size(), r.subsets.size()) << "a subset twice";
  return set;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// m rows of n coefficients in 0..100; the targets are the rows' sums over `planted` (or
/// whatever the caller sets afterwards).
inline ssum::rows_problem random_rows(std::size_t m, std::size_t n, std::mt19937_64& rng,
                                      const std::vector<std::size_t>& planted) {
  std::uniform_int_distribution<int> coefficient(0, 100);
  ssum::rows_problem p;
  p.rows.assign(m, std::vector<ssum::int128>(n));
  p.targets.assign(m, 0);
  for (std::size_t i = 0; i < m; ++i) {
    for (auto& a : p.rows[i]) a = coefficient(rng);
    for (std::size_t j : planted) p.targets[i] += p.rows[i][j];
  }
  return p;
}

/// Each of n columns with probability one half.
inline std::vector<std::size_t> random_subset(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::size_t> subset;
  for (std::size_t j = 0; j < n; ++j)
    if (rng() & 1) subset.push_back(j);
  return subset;
}

}  // namespace ssum_test

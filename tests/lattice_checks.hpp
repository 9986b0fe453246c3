#pragma once
// What the lattice stage's tests share: its skip without fplll, brute force over every subset
// of a small instance, and the check that each subset it returns is a verified certificate,
// none twice.
#include <gtest/gtest.h>

#include <cstdint>
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

}  // namespace ssum_test

#pragma once
// Shared by the checkpoint tests of the host four-list and of the GPU four-list's batches: a
// scratch file that does not exist yet, and instances with many solutions to count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum_test {

/// TMPDIR/<prefix>_<pid>/<name>, its directory made and any old file removed.
inline std::filesystem::path scratch_file(const std::string& prefix, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / name;
  std::filesystem::remove(file);
  return file;
}

/// Options that name the four-list, counting or not.
inline ssum::solve_options four_list(bool count) {
  ssum::solve_options o;
  o.algo = ssum::algorithm::four_list;
  o.count = count;
  return o;
}

/// n weights of `bits` bits and the target half their total: many solutions to count.
inline ssum::problem many_solutions(std::size_t n, int bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ssum::problem p;
  ssum::int128 total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    p.weights.push_back(ssum::int128(1 + rng() % (std::uint64_t(1) << bits)));
    total += p.weights.back();
  }
  p.target = total / 2;
  return p;
}

/// A run resumed from a checkpoint against one whole run: the same count and verdict, a
/// certificate, the finished units not searched again (its first progress, `first`, past 0.3)
/// and the file removed with the complete answer.
inline void expect_resumed_like_whole(const ssum::problem& p, const ssum::solution& resumed,
                                      const ssum::solution& whole, double first,
                                      const std::filesystem::path& file) {
  ASSERT_TRUE(resumed.count.has_value());
  EXPECT_EQ(resumed.count->to_string(), whole.count->to_string());
  EXPECT_EQ(resumed.feasible, whole.feasible);
  if (resumed.feasible) EXPECT_TRUE(ssum::is_certificate(p, resumed.subset));
  EXPECT_GE(first, 0.3) << "the finished units were searched again";
  EXPECT_FALSE(std::filesystem::exists(file)) << "a complete answer removes its file";
}

}  // namespace ssum_test

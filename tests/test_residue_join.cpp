// The completion search's engine (solver/completion/residue_join.hpp) against brute force on
// small K: every class's answer is a solution of that class (a + b = r mod M over the first
// two quarters), the classes together find one exactly when brute force does, an excluded
// subset is never reported, and a sum whose low 64 bits match the target's but not the rest
// is no solution.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "solver/completion/residue_join.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "ssum/errors.hpp"

namespace {

using ssum::uint128;
using ssum::detail::residue_join;

uint128 sum_of(const std::vector<uint128>& w, const std::vector<std::size_t>& positions) {
  uint128 s = 0;
  for (const std::size_t i : positions) s += w[i];
  return s;
}

// Solutions of (w, t) by brute force, as bit masks over the positions.
std::vector<std::uint64_t> solutions(const std::vector<uint128>& w, uint128 t) {
  std::vector<std::uint64_t> found;
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << w.size()); ++mask) {
    uint128 s = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if ((mask >> i) & 1) s += w[i];
    }
    if (s == t) found.push_back(mask);
  }
  return found;
}

std::uint64_t mask_of(const std::vector<std::size_t>& positions) {
  std::uint64_t m = 0;
  for (const std::size_t i : positions) m |= std::uint64_t{1} << i;
  return m;
}

// The residue of the first half's sum (quarters 1 and 2) of a subset.
std::uint64_t left_residue(const std::vector<uint128>& w, std::uint64_t mask, std::uint64_t m) {
  ssum::detail::quarter q[4];
  ssum::detail::quarters_of(w.size(), q);
  uint128 s = 0;
  for (std::size_t i = 0; i < q[2].first; ++i) {
    if ((mask >> i) & 1) s += w[i];
  }
  return static_cast<std::uint64_t>(s % m);
}

void check_every_class(const std::vector<uint128>& w, uint128 t, std::uint64_t m, const std::vector<bool>& excluded,
                       unsigned threads) {
  const std::vector<std::uint64_t> all = solutions(w, t);
  std::uint64_t excluded_mask = 0;
  for (std::size_t i = 0; i < excluded.size(); ++i) excluded_mask |= std::uint64_t(excluded[i]) << i;
  std::vector<bool> class_has(m, false);
  for (const std::uint64_t s : all) {
    if (excluded.empty() || s != excluded_mask) class_has[left_residue(w, s, m)] = true;
  }
  residue_join join(w.size(), m, threads, nullptr);
  join.assign(w, t, excluded);
  residue_join::scratch scratch;
  for (std::uint64_t r = 0; r < m; ++r) {
    const auto found = join.search(r, scratch);
    ASSERT_EQ(found.has_value(), bool(class_has[r])) << "K = " << w.size() << ", class " << r;
    if (!found) continue;
    EXPECT_TRUE(sum_of(w, *found) == t);
    EXPECT_EQ(left_residue(w, mask_of(*found), m), r);
    if (!excluded.empty()) EXPECT_NE(mask_of(*found), excluded_mask);
    const auto again = join.search(r, scratch);  // the same class, the same answer
    EXPECT_EQ(again, found);
  }
}

TEST(ResidueJoin, EveryClassAgainstBruteForce) {
  std::mt19937_64 rng(5);
  for (const std::size_t k : {8, 9, 11, 12, 16, 18}) {
    for (const int bits : {3, 8, 14}) {
      std::vector<uint128> w(k);
      for (auto& x : w) x = 1 + rng() % (std::uint64_t{1} << bits);
      uint128 total = 0;
      for (const uint128 x : w) total += x;
      for (const uint128 t : {uint128{0}, total / 2, total / 3 + 1, total, total + 1}) {
        for (const std::uint64_t m : {2u, 3u, 7u, 31u}) check_every_class(w, t, m, {}, 2);
      }
    }
  }
}

// Zero-sum's exclusion: with every subset excluded in turn, the classes still find the others.
TEST(ResidueJoin, AnExcludedSubsetIsNeverReported) {
  const std::vector<uint128> w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  check_every_class(w, 10, 5, {true, false, false, false, false, false, false, false, false, true}, 1);
  // 1, 2, 4, ..., 256, a second 1, and 512: only {512} and all the others reach 512, so
  // excluding either leaves the other.
  std::vector<uint128> powers;
  for (int b = 0; b < 9; ++b) powers.push_back(uint128{1} << b);
  powers.push_back(1);
  powers.push_back(512);
  std::vector<bool> only_512(powers.size(), false);
  only_512.back() = true;
  check_every_class(powers, 512, 3, only_512, 2);
  std::vector<bool> all_but(powers.size(), true);
  all_but.back() = false;
  check_every_class(powers, 512, 7, all_but, 2);
}

// Sums past 2^64 whose low 64 bits agree with the target's: the key matches, the sum does not.
TEST(ResidueJoin, LowBitsAloneAreNoSolution) {
  const uint128 big = uint128{1} << 64;
  std::vector<uint128> w = {big + 5, 3, 2, big, 7, 11, 13, big + 17, 19, 23, 29, 31};
  check_every_class(w, 10, 3, {}, 2);            // 5 + 3 + 2 (not big + 5 + 5)
  check_every_class(w, big + 10, 5, {}, 2);      // big + 5 + 3 + 2, big + 7 + 3
  check_every_class(w, 2 * big + 22, 7, {}, 1);  // big + 5 + big + 17, ...
  // Within a class the two sides can differ by M * 2^64 alone: with M = 3 and the target
  // 3 * 2^64 + 10, the left side's 5 + 3 + 2 has the key of the empty right side, yet small
  // weights reach no such target.
  const std::vector<uint128> small = {5, 3, 2, 7, 11, 13, 1, 4, 6, 8, 9, 12};
  check_every_class(small, 3 * big + 10, 3, {}, 2);
}

// A large K with many solutions: a class holds one and reports it; cancellation is honoured.
TEST(ResidueJoin, DenseClassesAndCancellation) {
  std::mt19937_64 rng(7);
  std::vector<uint128> w(48);
  uint128 total = 0;
  for (auto& x : w) x = 1 + rng() % (std::uint64_t{1} << 30), total += x;
  residue_join join(48, 4093, 2, nullptr);
  join.assign(w, total / 2, {});
  residue_join::scratch scratch;
  int found = 0;
  for (std::uint64_t r = 0; r < 8; ++r) {
    const auto s = join.search(r, scratch);
    if (!s) continue;
    ++found;
    EXPECT_TRUE(sum_of(w, *s) == total / 2);
  }
  EXPECT_GE(found, 6);  // about 2^48 / (2.5 * 2^31) / 4093 = 13 solutions a class
  std::atomic<bool> cancel{true};
  residue_join stopped(48, 4093, 2, &cancel);
  EXPECT_THROW(stopped.assign(w, total / 2, {}), ssum::interrupted);
  EXPECT_THROW(residue_join(7, 5, 1, nullptr), std::invalid_argument);
  EXPECT_THROW(residue_join(12, 1, 1, nullptr), std::invalid_argument);
}

}  // namespace

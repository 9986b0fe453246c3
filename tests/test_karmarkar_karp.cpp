// The Karmarkar-Karp peer (tests/reference/karmarkar_karp.hpp): its sides give the difference
// it reports, it never beats the optimum (brute force), and it gives the textbook answer on
// Korf's example (8 7 6 5 4: difference 2, where 8 + 7 = 6 + 5 + 4 is perfect). The dense
// search's peers built on it (tests/reference/dense_peers.hpp): complete Karmarkar-Karp finds
// a subset for any target exactly when brute force does, and every subset either peer
// returns reaches its target.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "reference/dense_peers.hpp"
#include "reference/karmarkar_karp.hpp"

namespace {

using u128 = unsigned __int128;

u128 difference_of(const std::vector<std::uint64_t>& w, const std::vector<bool>& side) {
  u128 a = 0, b = 0;
  for (std::size_t i = 0; i < w.size(); ++i) (side[i] ? a : b) += w[i];
  return a > b ? a - b : b - a;
}

u128 optimum(const std::vector<std::uint64_t>& w) {
  u128 best = ~u128{0};
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << w.size()); ++mask) {
    std::vector<bool> side(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) side[i] = (mask >> i) & 1;
    const u128 d = difference_of(w, side);
    if (d < best) best = d;
  }
  return best;
}

TEST(KarmarkarKarp, KorfsExample) {
  const auto kk = ssum_reference::karmarkar_karp({8, 7, 6, 5, 4});
  EXPECT_EQ(std::uint64_t(kk.difference), 2u);
  EXPECT_EQ(std::uint64_t(difference_of({8, 7, 6, 5, 4}, kk.side)), 2u);
  EXPECT_EQ(std::uint64_t(optimum({8, 7, 6, 5, 4})), 0u);
}

TEST(KarmarkarKarp, SidesMatchTheDifferenceAndNeverBeatTheOptimum) {
  std::mt19937_64 rng(22);
  EXPECT_EQ(std::uint64_t(ssum_reference::karmarkar_karp({}).difference), 0u);
  for (const std::size_t n : {1, 2, 3, 5, 9, 14, 100, 1000, 10000}) {
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<std::uint64_t> w(n);
      const int bits = trial % 2 ? 60 : 12;
      for (auto& x : w) x = 1 + rng() % (std::uint64_t{1} << bits);
      const auto kk = ssum_reference::karmarkar_karp(w);
      ASSERT_EQ(kk.side.size(), n);
      EXPECT_TRUE(difference_of(w, kk.side) == kk.difference) << n;
      if (n <= 14) EXPECT_TRUE(kk.difference >= optimum(w)) << n;
      if (n == 1) EXPECT_TRUE(kk.difference == w[0]);
    }
  }
}

u128 sum_at(const std::vector<std::uint64_t>& w, const std::vector<std::size_t>& subset) {
  u128 s = 0;
  for (const std::size_t i : subset) s += w[i];
  return s;
}

bool reachable(const std::vector<std::uint64_t>& w, u128 t) {
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << w.size()); ++mask) {
    u128 s = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if ((mask >> i) & 1) s += w[i];
    }
    if (s == t) return true;
  }
  return false;
}

TEST(DensePeers, CompleteKarmarkarKarpMatchesBruteForceOnAnyTarget) {
  std::mt19937_64 rng(23);
  for (const std::size_t n : {1, 2, 3, 5, 8, 12}) {
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<std::uint64_t> w(n);
      for (auto& x : w) x = 1 + rng() % (trial % 2 ? 1000 : 20);
      u128 total = 0;
      for (const auto x : w) total += x;
      for (const u128 t : {u128{0}, total / 2, total / 3, total / 2 + 1, total - 1, total, total + 1}) {
        const auto found = ssum_reference::ckk(w, t, 10.0);
        EXPECT_EQ(found.has_value(), reachable(w, t)) << n << " " << std::uint64_t(t);
        if (found) EXPECT_TRUE(sum_at(w, *found) == t);
      }
    }
  }
}

TEST(DensePeers, LocalSearchSubsetsReachTheTarget) {
  std::mt19937_64 rng(29);
  int found_any = 0;
  for (const std::size_t n : {10, 40, 200}) {
    std::vector<std::uint64_t> w(n);
    for (auto& x : w) x = 1 + rng() % 256;
    u128 total = 0;
    for (const auto x : w) total += x;
    for (const u128 t : {total / 2, total / 3, total / 2 + 1}) {
      const auto found = ssum_reference::kk_local_search(w, t, 0.5);
      if (!found) continue;
      ++found_any;
      EXPECT_TRUE(sum_at(w, *found) == t) << n;
      const auto complete = ssum_reference::ckk(w, t, 10.0);
      ASSERT_TRUE(complete.has_value());
      EXPECT_TRUE(sum_at(w, *complete) == t);
    }
  }
  EXPECT_GE(found_any, 6);  // n = 40 and 200 with 8-bit weights: subsets abound
  EXPECT_FALSE(ssum_reference::kk_local_search({2, 4, 6}, 5, 0.05).has_value());  // odd target
  EXPECT_FALSE(ssum_reference::ckk({2, 4, 6}, 5, 1.0).has_value());
}

}  // namespace

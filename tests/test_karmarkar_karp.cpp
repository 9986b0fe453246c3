// The Karmarkar-Karp peer (tests/reference/karmarkar_karp.hpp): its sides give the difference
// it reports, it never beats the optimum (brute force), and it gives the textbook answer on
// Korf's example (8 7 6 5 4: difference 2, where 8 + 7 = 6 + 5 + 4 is perfect).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

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

}  // namespace

// The completion search's differencing (solver/completion/differencing.hpp): every pass's
// nodes map a partition of what is left back to the numbers it started from, checked by
// summing each side of the original numbers; the dense pass ends at 0 on instances far above
// their bits (d inside and far outside the weights' range), and gives up (nothing, never a
// wrong partition) where it cannot.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "solver/completion/differencing.hpp"

namespace {

using ssum::uint128;
using ssum::detail::dense_difference;
using ssum::detail::difference_down_to;
using ssum::detail::differenced;

std::vector<uint128> uniform_weights(std::size_t n, int bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint128> w(n);
  for (uint128& x : w) x = 1 + rng() % ((std::uint64_t{1} << bits) - 1);
  return w;
}

// The two sides' sums over the numbers (weights, then d unless 0) from the sides the pass
// gives for `side_of_left`.
std::pair<uint128, uint128> side_sums(const differenced& d, const std::vector<uint128>& w, uint128 dummy,
                                      const std::vector<char>& side_of_left) {
  const std::vector<char> side = ssum::detail::sides(d, side_of_left);
  EXPECT_EQ(side.size(), d.ids());
  uint128 one = 0, zero = 0;
  for (std::size_t i = 0; i < w.size(); ++i) (side[i] ? one : zero) += w[i];
  if (dummy > 0) (side[w.size()] ? one : zero) += dummy;
  return {one, zero};
}

TEST(Differencing, TheDensePassEndsAtAPerfectPartition) {
  struct instance {
    std::size_t n;
    int bits;
    std::uint64_t seed;
  };
  for (const instance& c : {instance{1024, 30, 1}, instance{2000, 40, 2}, instance{2001, 40, 3},
                            instance{10000, 48, 4}, instance{10000, 60, 5}, instance{100001, 62, 6}}) {
    SCOPED_TRACE(testing::Message() << "n = " << c.n << ", " << c.bits << " bits");
    const std::vector<uint128> w = uniform_weights(c.n, c.bits, c.seed);
    uint128 total = 0;
    for (const uint128 x : w) total += x;
    // d = total - 2t (so of total's parity): at the middle, one off it, and far wider than
    // every weight (t near total / 2.5).
    const uint128 far = total / 5 + (total / 5 + total) % 2;
    for (const uint128 dummy : {uint128(total % 2), uint128(total % 2 + 2), far}) {
      const std::optional<differenced> d = dense_difference(w, dummy);
      ASSERT_TRUE(d.has_value()) << "d = " << double(dummy);
      EXPECT_EQ(d->numbers, c.n + (dummy > 0 ? 1 : 0));
      ASSERT_EQ(d->left.size(), 1u);
      EXPECT_EQ(d->parts.size(), d->numbers - 1);  // every number but one differenced away
      const auto [one, zero] = side_sums(*d, w, dummy, {0});
      EXPECT_TRUE(one == zero) << double(one) << " against " << double(zero);
    }
  }
}

TEST(Differencing, TheDensePassGivesUpWhereItCannot) {
  EXPECT_FALSE(dense_difference(uniform_weights(1023, 20, 1), 0).has_value());  // too few to bother
  EXPECT_FALSE(dense_difference(uniform_weights(1100, 62, 2), 0).has_value());  // too wide for so few
  std::vector<uint128> wide = uniform_weights(5000, 40, 3);
  wide[17] = uint128(1) << 70;  // beyond 64 bits
  EXPECT_FALSE(dense_difference(wide, 0).has_value());
  const std::vector<uint128> w = uniform_weights(5000, 40, 4);
  uint128 total = 0;
  for (const uint128 x : w) total += x;
  EXPECT_FALSE(dense_difference(w, total + 1).has_value());  // d beyond all the weights together
}

// Karmarkar-Karp down to k: the sides of any partition of the k left map back, side by side,
// to sums that differ by exactly that partition's difference.
TEST(Differencing, KarmarkarKarpMapsEveryPartitionOfWhatIsLeftBack) {
  const std::vector<uint128> w = uniform_weights(300, 50, 7);
  for (const uint128 dummy : {uint128(0), uint128(12345)}) {
    for (const std::size_t k : {1u, 2u, 5u, 48u, 300u}) {
      std::mt19937_64 shake(9);
      for (std::mt19937_64* s : {static_cast<std::mt19937_64*>(nullptr), &shake}) {
        const differenced d = difference_down_to(w, dummy, k, s);
        ASSERT_EQ(d.left.size(), std::min<std::size_t>(k, d.numbers));
        std::mt19937_64 pick(k);
        std::vector<char> side_of_left(d.left.size());
        uint128 left_one = 0, left_zero = 0;
        for (std::size_t j = 0; j < d.left.size(); ++j) {
          side_of_left[j] = char(pick() % 2);
          (side_of_left[j] ? left_one : left_zero) += d.value[d.left[j]];
        }
        const auto [one, zero] = side_sums(d, w, dummy, side_of_left);
        // Each node's value is its parts' difference, so the sides differ as the k left do.
        EXPECT_TRUE(one - zero == left_one - left_zero) << "k = " << k;
      }
    }
  }
}

}  // namespace

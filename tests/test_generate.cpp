// Instance generators: determinism, ranges, and the promised (in)feasibility, checked by
// exhaustive search on small n.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ssum/generate.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace {

using ssum::int128;
using ssum::problem;

// Own decimal printing: keeps this test independent of int128.cpp.
std::string str(int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  std::string s;
  while (v != 0) {
    const int d = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (d < 0 ? -d : d)));
    v /= 10;
  }
  return neg ? "-" + s : s;
}

bool same(const problem& a, const problem& b) { return a.weights == b.weights && a.target == b.target; }

int128 subset_sum(const problem& p, std::uint64_t mask) {
  int128 s = 0;
  for (std::size_t i = 0; i < p.weights.size(); ++i)
    if (mask >> i & 1) s += p.weights[i];
  return s;
}

// Exhaustive search in Gray-code order (one add per subset). Returns a mask whose items
// reach the target or, for zero-sum, a non-empty mask summing to 0.
std::optional<std::uint64_t> brute_force(const problem& p) {
  const std::size_t n = p.weights.size();
  if (n > 24) throw std::logic_error("brute_force: n too large");
  const int128 target = p.target.value_or(0);
  if (!p.zero_sum() && target == 0) return 0;  // the empty subset
  std::uint64_t mask = 0;
  int128 sum = 0;
  for (std::uint64_t i = 1; i < (std::uint64_t{1} << n); ++i) {
    const int bit = std::countr_zero(i);
    mask ^= std::uint64_t{1} << bit;  // Gray code of i: never 0 for i >= 1
    sum += (mask >> bit & 1) ? p.weights[bit] : -p.weights[bit];
    if (sum == target) return mask;
  }
  return std::nullopt;
}

const std::vector<std::string> seeded_classes = {"random", "planted", "zero-sum", "partition", "evenodd",
                                                 "pthree", "psix",    "somatoth", "invoices"};

TEST(Generate, ClassList) {
  const std::vector<std::string> expected = {"random",  "planted", "zero-sum", "partition", "todd",    "avis",
                                             "evenodd", "pthree",  "psix",     "somatoth",  "invoices"};
  EXPECT_EQ(ssum::generator_classes(), expected);
}

TEST(Generate, DefaultBits) {
  EXPECT_EQ(ssum::default_generator_bits(0), 62);
  EXPECT_EQ(ssum::default_generator_bits(1), 62);
  EXPECT_EQ(ssum::default_generator_bits(2), 61);
  EXPECT_EQ(ssum::default_generator_bits(3), 60);
  EXPECT_EQ(ssum::default_generator_bits(4), 60);
  EXPECT_EQ(ssum::default_generator_bits(std::size_t{1} << 61), 1);
  EXPECT_EQ(ssum::default_generator_bits(std::size_t{1} << 62), 1);  // nothing fits: narrowest
  const ssum::uint128 limit = ssum::uint128{1} << 62;
  for (std::size_t n : {std::size_t{2}, std::size_t{5}, std::size_t{100}, std::size_t{1000},
                        std::size_t{123456789}, (std::size_t{1} << 40) + 3}) {
    const int b = ssum::default_generator_bits(n);
    ASSERT_GE(b, 1);
    ASSERT_LE(b, 62);
    EXPECT_LT(ssum::uint128{n} * ((ssum::uint128{1} << b) - 1), limit) << n;
    if (b < 62) {  // and it is the widest that does
      EXPECT_GE(ssum::uint128{n} * ((ssum::uint128{1} << (b + 1)) - 1), limit) << n;
    }
  }
}

TEST(Generate, Deterministic) {
  for (const auto& cls : ssum::generator_classes()) {
    for (std::uint64_t seed : {0ULL, 1ULL, 12345ULL, ~0ULL}) {
      EXPECT_TRUE(same(ssum::generate(cls, 40, std::nullopt, seed),
                       ssum::generate(cls, 40, std::nullopt, seed)))
          << cls << " seed " << seed;
    }
  }
}

TEST(Generate, SeedsDiffer) {
  for (const auto& cls : seeded_classes) {
    const problem base = ssum::generate(cls, 40, std::nullopt, 0);
    int differing = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed)
      differing += !same(base, ssum::generate(cls, 40, std::nullopt, seed));
    EXPECT_GE(differing, 9) << cls;  // somatoth may repeat (w1, w2) now and then
  }
  // todd and avis have no randomness at all.
  for (const char* cls : {"todd", "avis"})
    EXPECT_TRUE(same(ssum::generate(cls, 30, std::nullopt, 1), ssum::generate(cls, 30, std::nullopt, 2)));
}

// Pinned output: mt19937_64 is fully specified by the standard and the sampling is our own,
// so these numbers must be the same on every platform. Changing them breaks old seeds.
TEST(Generate, PinnedOutput) {
  const problem p = ssum::generate("random", 5, 20, 42);
  const std::vector<int128> expected = {791838, 670073, 788681, 142893, 947146};
  EXPECT_EQ(p.weights, expected);
  const problem q = ssum::generate("pthree", 5, std::nullopt, 7);
  const std::vector<int128> expected_q = {755, 950, 118, 892, 142};
  EXPECT_EQ(q.weights, expected_q);
}

TEST(Generate, EmptyAndSingle) {
  for (const auto& cls : ssum::generator_classes()) {
    EXPECT_TRUE(ssum::generate(cls, 0, std::nullopt, 3).weights.empty()) << cls;
    EXPECT_EQ(ssum::generate(cls, 1, std::nullopt, 3).weights.size(), 1u) << cls;
  }
  const problem z0 = ssum::generate("zero-sum", 0, std::nullopt, 0);
  EXPECT_TRUE(z0.zero_sum());  // infeasible: no non-empty subset exists
  const problem z1 = ssum::generate("zero-sum", 1, std::nullopt, 0);
  EXPECT_TRUE(z1.zero_sum());
  EXPECT_EQ(z1.weights, std::vector<int128>{0});
  EXPECT_TRUE(ssum::generate("todd", 0, std::nullopt, 0).target == int128{0});
  EXPECT_TRUE(ssum::generate("avis", 0, std::nullopt, 0).target == int128{0});
  EXPECT_TRUE(ssum::generate("somatoth", 0, std::nullopt, 0).target == int128{-1});
  EXPECT_TRUE(ssum::generate("planted", 1, std::nullopt, 0).target == int128{0});
}

TEST(Generate, RandomAndPlantedRanges) {
  for (int bits : {1, 2, 5, 20, 61, 62}) {
    const std::int64_t hi = (std::int64_t{1} << bits) - 1;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      const problem r = ssum::generate("random", 100, bits, seed);
      const problem p = ssum::generate("planted", 100, bits, seed);
      const problem half = ssum::generate("partition", 100, bits, seed);
      EXPECT_EQ(half.weights, r.weights);  // the same draws as random, for the same seed
      EXPECT_TRUE(half.target == *r.target - 1);  // floor(sum / 2): a perfect partition
      ASSERT_EQ(r.weights.size(), 100u);
      ASSERT_EQ(p.weights.size(), 100u);
      int128 sum = 0;
      for (auto w : r.weights) {
        EXPECT_GE(w, 1);
        EXPECT_LE(w, hi);
        sum += w;
      }
      EXPECT_TRUE(r.target == sum / 2 + 1) << str(*r.target);
      int128 psum = 0;
      for (auto w : p.weights) {
        EXPECT_GE(w, 1);
        EXPECT_LE(w, hi);
        psum += w;
      }
      ASSERT_TRUE(p.target.has_value());
      EXPECT_TRUE(*p.target >= 50 && *p.target <= psum);  // 50 items, each >= 1
    }
  }
  // A narrow width is covered completely (catches off-by-one in the sampler).
  const problem r = ssum::generate("random", 2000, 3, 9);
  EXPECT_EQ(std::set<std::int64_t>(r.weights.begin(), r.weights.end()),
            (std::set<std::int64_t>{1, 2, 3, 4, 5, 6, 7}));
}

// Beyond 62 bits: 128-bit draws within [1, 2^B) (or (-2^B, 2^B) for zero-sum), spread over
// the whole width, the same for the same seed; widths that could pass the 2^127 limit on the
// sum of |w| are refused; the instances solve exactly.
TEST(Generate, WideBitsUpTo126) {
  for (int bits : {63, 64, 65, 100, 120, 126}) {
    const std::size_t n = bits == 126 ? 2 : 24;
    const int128 hi = (int128{1} << bits) - 1;
    const problem r = ssum::generate("random", n, bits, 5);
    ASSERT_EQ(r.weights.size(), n);
    bool high_half = false;
    for (auto w : r.weights) {
      EXPECT_TRUE(w >= 1 && w <= hi) << str(w);
      high_half = high_half || w > hi / 2;
    }
    EXPECT_TRUE(high_half) << "bits=" << bits << ": no weight in the top half of the range";
    EXPECT_EQ(ssum::format_problem(r), ssum::format_problem(ssum::generate("random", n, bits, 5)));
    EXPECT_NE(ssum::format_problem(r), ssum::format_problem(ssum::generate("random", n, bits, 6)));
    const problem z = ssum::generate("zero-sum", n, bits, 7);
    for (auto w : z.weights) EXPECT_TRUE(w >= -hi && w <= hi) << str(w);
    const problem pl = ssum::generate("planted", n, bits, 8);
    for (const problem* p : {&z, &pl}) {
      const ssum::solution s = ssum::solve(ssum::cpu{1}, *p);
      EXPECT_TRUE(s.feasible) << "bits=" << bits;
      EXPECT_TRUE(ssum::is_certificate(*p, s.subset));
    }
  }
  EXPECT_THROW(ssum::generate("random", 3, 126, 1), std::invalid_argument);   // 3 (2^126 - 1) >= 2^127
  EXPECT_THROW(ssum::generate("zero-sum", 129, 120, 1), std::invalid_argument);
  EXPECT_NO_THROW(ssum::generate("zero-sum", 128, 120, 1));
  EXPECT_THROW(ssum::generate("planted", 4, 127, 1), std::invalid_argument);
}

TEST(Generate, ZeroSumRanges) {
  for (int bits : {1, 2, 5, 20, 62}) {
    const std::int64_t hi = (std::int64_t{1} << bits) - 1;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      const problem p = ssum::generate("zero-sum", 100, bits, seed);
      EXPECT_TRUE(p.zero_sum());
      ASSERT_EQ(p.weights.size(), 100u);
      for (auto w : p.weights) {
        EXPECT_GE(w, -hi);
        EXPECT_LE(w, hi);
      }
    }
  }
  const problem p = ssum::generate("zero-sum", 3000, 2, 4);
  EXPECT_EQ(std::set<std::int64_t>(p.weights.begin(), p.weights.end()),
            (std::set<std::int64_t>{-3, -2, -1, 0, 1, 2, 3}));
}

TEST(Generate, DefaultBitsKeepSumBelow2To62) {
  const int128 limit = int128{1} << 62;
  for (const char* cls : {"random", "planted", "zero-sum", "partition"}) {
    for (std::size_t n = 1; n <= 200; ++n) {
      const problem p = ssum::generate(cls, n, std::nullopt, n);
      int128 abs_sum = 0;
      for (auto w : p.weights) abs_sum += w < 0 ? -int128{w} : int128{w};
      EXPECT_LT(static_cast<double>(abs_sum), 0x1p62) << cls << " n " << n;
      EXPECT_TRUE(abs_sum < limit) << cls << " n " << n << " sum " << str(abs_sum);
    }
  }
}

TEST(Generate, SmallUniformClasses) {
  for (std::size_t n : {1u, 7u, 8u, 100u}) {
    const problem e = ssum::generate("evenodd", n, std::nullopt, n);
    for (auto w : e.weights) {
      EXPECT_EQ(w % 2, 0);
      EXPECT_GE(w, 2);
      EXPECT_LE(w, 1000);
    }
    EXPECT_TRUE(e.target == int128{2 * static_cast<std::int64_t>(n * 1000 / 8) + 1});
    const problem t = ssum::generate("pthree", n, std::nullopt, n);
    for (auto w : t.weights) {
      EXPECT_GE(w, 1);
      EXPECT_LE(w, 1000);
    }
    EXPECT_TRUE(t.target == int128{static_cast<std::int64_t>(n * 1000 / 4)});
    const problem s = ssum::generate("psix", n, std::nullopt, n);
    for (auto w : s.weights) {
      EXPECT_GE(w, 1);
      EXPECT_LE(w, 1000000);
    }
    EXPECT_TRUE(s.target == int128{static_cast<std::int64_t>(n * 1000000 / 4)});
  }
}

TEST(Generate, SomatothStructure) {
  for (std::size_t n = 1; n <= 60; ++n) {
    const problem p = ssum::generate("somatoth", n, std::nullopt, 100 + n);
    ASSERT_EQ(p.weights.size(), n);
    const std::int64_t w1 = p.weights[0];
    const std::int64_t w2 = n >= 2 ? p.weights[1] : 1;
    EXPECT_GE(w1, 1);
    EXPECT_LE(w1, static_cast<std::int64_t>(n));
    EXPECT_GE(w2, 1);
    EXPECT_LE(w2, static_cast<std::int64_t>(n));
    EXPECT_EQ(std::gcd(w1, w2), 1);
    for (std::size_t j = 1; j <= n; ++j)
      EXPECT_EQ(p.weights[j - 1], static_cast<std::int64_t>((j + 1) / 2) * (j % 2 ? w1 : w2));
    if (n >= 2) {
      EXPECT_TRUE(p.target == int128{(w1 - 1) * (w2 - 1) - 1});
    } else {
      EXPECT_TRUE(p.target == int128{-1});  // w1 = w2 = 1
    }
  }
}

TEST(Generate, AvisFormula) {
  for (std::int64_t n = 1; n <= 30; ++n) {
    const problem p = ssum::generate("avis", static_cast<std::size_t>(n), std::nullopt, 0);
    ASSERT_EQ(p.weights.size(), static_cast<std::size_t>(n));
    for (std::int64_t j = 1; j <= n; ++j) EXPECT_EQ(p.weights[j - 1], n * (n + 1) + j);
    EXPECT_TRUE(p.target == int128{n * (n + 1) * ((n - 1) / 2) + n * (n - 1) / 2});
  }
  EXPECT_TRUE(ssum::generate("avis", 5, std::nullopt, 0).target == int128{70});
}

TEST(Generate, ToddFormulaAndLimit) {
  for (std::size_t n = 1; n <= 56; ++n) {
    const problem p = ssum::generate("todd", n, std::nullopt, 0);
    ASSERT_EQ(p.weights.size(), n);
    const int k = static_cast<int>(std::bit_width(n)) - 1;
    int128 sum = 0;
    for (std::size_t j = 1; j <= n; ++j) {
      const int128 w = (int128{1} << (k + n + 1)) + (int128{1} << (k + j)) + 1;
      EXPECT_TRUE(int128{p.weights[j - 1]} == w) << "n " << n << " j " << j;
      sum += w;
    }
    EXPECT_TRUE(p.target == sum / 2) << n;
  }
  EXPECT_EQ(ssum::generate("todd", 1, std::nullopt, 0).weights, std::vector<int128>{7});
  for (std::size_t n : {std::size_t{57}, std::size_t{64}, std::size_t{1000}, ~std::size_t{0}}) {
    try {
      ssum::generate("todd", n, std::nullopt, 0);
      ADD_FAILURE() << "todd n " << n << " did not throw";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("56"), std::string::npos) << e.what();
    }
  }
}

TEST(Generate, BadArguments) {
  for (const char* cls : {"random", "planted", "zero-sum", "partition"}) {
    for (int bits : {0, -1, 127, 1000}) EXPECT_THROW(ssum::generate(cls, 10, bits, 0), std::invalid_argument);
    EXPECT_NO_THROW(ssum::generate(cls, 10, 1, 0));
    EXPECT_NO_THROW(ssum::generate(cls, 10, 62, 0));
  }
  for (const char* cls : {"todd", "avis", "evenodd", "pthree", "psix", "somatoth", "invoices"}) {
    try {
      ssum::generate(cls, 10, 10, 0);
      ADD_FAILURE() << cls << " accepted --bits";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--bits applies only"), std::string::npos) << e.what();
    }
  }
  try {
    ssum::generate("nope", 10, std::nullopt, 0);
    ADD_FAILURE() << "unknown class accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const auto& cls : ssum::generator_classes()) EXPECT_NE(what.find(cls), std::string::npos) << what;
  }
  EXPECT_THROW(ssum::generate("", 10, std::nullopt, 0), std::invalid_argument);
  EXPECT_THROW(ssum::generate("Random", 10, std::nullopt, 0), std::invalid_argument);
}

// --- invoices ---------------------------------------------------------------------------

// Every weight in cents, between 10.00 and 20,000.00; the scale is cents for invoices only.
TEST(GenerateInvoices, AmountsAndScale) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{40}, std::size_t{500}}) {
    for (std::uint64_t seed : {0ULL, 1ULL, 99ULL, ~0ULL}) {
      const problem p = ssum::generate("invoices", n, std::nullopt, seed);
      ASSERT_EQ(p.weights.size(), n);
      EXPECT_EQ(p.decimals, 2u);
      ASSERT_TRUE(p.target.has_value());
      int128 total = 0;
      for (const int128 w : p.weights) {
        EXPECT_GE(w, int128{1000}) << str(w);
        EXPECT_LE(w, int128{2000000}) << str(w);
        total += w;
      }
      EXPECT_GE(*p.target, int128{0});
      EXPECT_LE(*p.target, total);
      if (n >= 3) EXPECT_GE(*p.target, int128{3000}) << "at least three invoices of at least 10.00";
    }
  }
  for (const auto& cls : ssum::generator_classes()) {
    if (cls != "invoices") EXPECT_EQ(ssum::generate(cls, 20, std::nullopt, 4).decimals, 0u) << cls;
  }
}

// Log-uniform by octaves: every octave [10.00 x 2^k, 20.00 x 2^k) holds about 1/11 of the
// amounts (the last one, cut at 20,000.00, all of its share).
TEST(GenerateInvoices, OctavesEquallyLikely) {
  const std::size_t n = 22000;
  const problem p = ssum::generate("invoices", n, std::nullopt, 3);
  std::vector<std::size_t> per_octave(11, 0);
  for (const int128 w : p.weights) {
    int k = 0;
    while (k < 10 && w >= int128{2000} << k) ++k;
    ++per_octave[static_cast<std::size_t>(k)];
  }
  for (std::size_t k = 0; k < per_octave.size(); ++k) {
    EXPECT_GT(per_octave[k], 1700u) << "octave " << k;  // expected 2000, sd about 43
    EXPECT_LT(per_octave[k], 2300u) << "octave " << k;
  }
}

// The text form has cents on every amount, and reads back to the same instance.
TEST(GenerateInvoices, TextHasCentsAndReadsBack) {
  const problem p = ssum::generate("invoices", 40, std::nullopt, 2024);
  const std::string text = ssum::format_problem(p);
  std::size_t amounts = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find_first_of(" \n", pos);
    if (end == std::string::npos) end = text.size();
    std::string token = text.substr(pos, end - pos);
    pos = end + 1;
    if (token.empty() || token == "target:") continue;
    const std::size_t dot = token.find('.');
    ASSERT_NE(dot, std::string::npos) << token;
    EXPECT_EQ(token.size() - dot, 3u) << token;  // exactly two decimals
    EXPECT_EQ(token.find_first_not_of("0123456789."), std::string::npos) << token;
    ++amounts;
  }
  EXPECT_EQ(amounts, 41u);  // 40 weights and the target
  const problem q = ssum::parse_problem(text, ssum::read_options{});
  EXPECT_TRUE(same(p, q));
  EXPECT_EQ(q.decimals, 2u);
}

// Pinned output, checked against an independent Python model of mt19937_64 and the sampling:
// the amounts are 4195.92, 2908.85, 5601.62, 878.64, 111.22 and 15.23, and
// the payment 9515.56 is five of them (all but 4195.92).
TEST(GenerateInvoices, PinnedOutput) {
  const problem p = ssum::generate("invoices", 6, std::nullopt, 42);
  const std::vector<int128> expected = {419592, 290885, 560162, 87864, 11122, 1523};
  EXPECT_EQ(p.weights, expected);
  EXPECT_TRUE(p.target == int128{951556}) << str(*p.target);
}

// --- feasibility by exhaustive search -------------------------------------------------

TEST(GenerateBruteForce, PlantedIsFeasible) {
  for (std::size_t n = 1; n <= 20; ++n) {
    for (std::uint64_t seed = 0; seed < 50; ++seed) {
      // Narrow weights for some seeds so that many subsets collide, wide for others.
      const std::optional<int> bits = seed % 2 ? std::optional<int>{6} : std::nullopt;
      const problem p = ssum::generate("planted", n, bits, seed);
      const auto mask = brute_force(p);
      ASSERT_TRUE(mask.has_value()) << "n " << n << " seed " << seed;
      EXPECT_TRUE(subset_sum(p, *mask) == *p.target);
    }
  }
}

// The payment is the sum of 3 to 6 distinct invoices (all of them when n < 3): some subset of
// that size reaches the target, found by enumerating every subset.
TEST(GenerateBruteForce, InvoicesPaymentCoversThreeToSixInvoices) {
  for (std::size_t n = 1; n <= 16; ++n) {
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
      const problem p = ssum::generate("invoices", n, std::nullopt, seed);
      const std::size_t lo = std::min<std::size_t>(n, 3), hi = std::min<std::size_t>(n, 6);
      bool found = false;
      for (std::uint64_t mask = 1; mask < (std::uint64_t{1} << n) && !found; ++mask) {
        const auto k = static_cast<std::size_t>(std::popcount(mask));
        found = k >= lo && k <= hi && subset_sum(p, mask) == *p.target;
      }
      EXPECT_TRUE(found) << "n " << n << " seed " << seed << " target " << str(*p.target);
    }
  }
}

TEST(GenerateBruteForce, ZeroSumHasNonEmptySubset) {
  for (std::size_t n = 1; n <= 18; ++n) {
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      const std::optional<int> bits = seed % 3 == 0 ? std::optional<int>{4} : std::nullopt;
      const problem p = ssum::generate("zero-sum", n, bits, seed);
      ASSERT_TRUE(p.zero_sum());
      const auto mask = brute_force(p);
      ASSERT_TRUE(mask.has_value()) << "n " << n << " seed " << seed;
      EXPECT_NE(*mask, 0u);
      EXPECT_TRUE(subset_sum(p, *mask) == 0);
    }
  }
}

TEST(GenerateBruteForce, EvenOddAndSomatothInfeasible) {
  for (std::size_t n = 1; n <= 18; ++n) {
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      for (const char* cls : {"evenodd", "somatoth"}) {
        const problem p = ssum::generate(cls, n, std::nullopt, seed);
        EXPECT_FALSE(brute_force(p).has_value()) << cls << " n " << n << " seed " << seed;
      }
    }
  }
}

TEST(GenerateBruteForce, AvisInfeasibleFromFour) {
  for (std::size_t n = 4; n <= 18; ++n) {
    const problem p = ssum::generate("avis", n, std::nullopt, 0);
    EXPECT_FALSE(brute_force(p).has_value()) << "n " << n;
  }
}

}  // namespace

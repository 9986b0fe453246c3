// ssum::to_string(int128) and ssum::parse_int128 against independently computed decimals.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "ssum/int128.hpp"

namespace {

using ssum::int128;
using ssum::uint128;

// 2^127 - 1 and 2^127, written out once by hand (checked with Python: 2**127).
constexpr const char* int128_max_text = "170141183460469231731687303715884105727";
constexpr const char* int128_min_text = "-170141183460469231731687303715884105728";

int128 int128_max() { return int128((uint128(1) << 127) - 1); }
int128 int128_min() { return int128(uint128(1) << 127); }  // modular conversion in C++20

// Reference decimal text: cut the magnitude into base-10^18 chunks and let std::to_string
// print each chunk, so no code is shared with the function under test.
std::string reference_text(int128 value) {
  const bool negative = value < 0;
  uint128 magnitude = negative ? uint128(0) - uint128(value) : uint128(value);
  constexpr std::uint64_t chunk = 1'000'000'000'000'000'000ULL;
  const std::uint64_t low = std::uint64_t(magnitude % chunk);
  magnitude /= chunk;
  const std::uint64_t mid = std::uint64_t(magnitude % chunk);
  const std::uint64_t high = std::uint64_t(magnitude / chunk);
  auto padded = [](std::uint64_t v) {
    std::string s = std::to_string(v);
    return std::string(18 - s.size(), '0') + s;
  };
  std::string text;
  if (high != 0) {
    text = std::to_string(high) + padded(mid) + padded(low);
  } else if (mid != 0) {
    text = std::to_string(mid) + padded(low);
  } else {
    text = std::to_string(low);
  }
  return negative ? "-" + text : text;
}

// Adds one to a string of decimal digits, for texts just beyond the representable range.
std::string increment_digits(std::string digits) {
  for (std::size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return digits;
    }
    digits[i] = '0';
  }
  return "1" + digits;
}

int128 random_int128(std::mt19937_64& rng) {
  // A random bit length makes small, middle and huge magnitudes all likely.
  const int bits = int(rng() % 128);
  const uint128 raw = (uint128(rng()) << 64) | rng();
  const uint128 magnitude = bits == 0 ? 0 : raw >> (128 - bits);
  return rng() % 2 ? -int128(magnitude) : int128(magnitude);
}

TEST(Int128ToString, SmallValues) {
  EXPECT_EQ(ssum::to_string(0), "0");
  EXPECT_EQ(ssum::to_string(1), "1");
  EXPECT_EQ(ssum::to_string(-1), "-1");
  EXPECT_EQ(ssum::to_string(9), "9");
  EXPECT_EQ(ssum::to_string(10), "10");
  EXPECT_EQ(ssum::to_string(-10), "-10");
  EXPECT_EQ(ssum::to_string(1234567890), "1234567890");
}

TEST(Int128ToString, Limits) {
  EXPECT_EQ(ssum::to_string(int128_max()), int128_max_text);
  EXPECT_EQ(ssum::to_string(int128_min()), int128_min_text);
  EXPECT_EQ(ssum::to_string(int128_min() + 1), "-170141183460469231731687303715884105727");
  EXPECT_EQ(ssum::to_string(INT64_MAX), "9223372036854775807");
  EXPECT_EQ(ssum::to_string(INT64_MIN), "-9223372036854775808");
  EXPECT_EQ(ssum::to_string(int128(INT64_MAX) + 1), "9223372036854775808");
  EXPECT_EQ(ssum::to_string(int128(1) << 64), "18446744073709551616");
  EXPECT_EQ(ssum::to_string(-(int128(1) << 100)), "-1267650600228229401496703205376");
}

TEST(Int128ToString, PowersOfTenAndNeighbours) {
  int128 power = 1;
  std::string digits = "1";
  for (int exponent = 0; exponent <= 38; ++exponent) {
    EXPECT_EQ(ssum::to_string(power), digits);
    EXPECT_EQ(ssum::to_string(-power), "-" + digits);
    EXPECT_EQ(ssum::to_string(power - 1), exponent == 0 ? "0" : std::string(exponent, '9'));
    if (exponent < 38) power *= 10;
    digits += '0';
  }
}

TEST(Int128ToString, RandomValuesMatchReference) {
  std::mt19937_64 rng(20240601);
  for (int i = 0; i < 20000; ++i) {
    const int128 value = random_int128(rng);
    ASSERT_EQ(ssum::to_string(value), reference_text(value)) << "iteration " << i;
  }
}

TEST(ParseInt128, AcceptsPlainDecimal) {
  EXPECT_EQ(ssum::parse_int128("0"), int128(0));
  EXPECT_EQ(ssum::parse_int128("-0"), int128(0));
  EXPECT_EQ(ssum::parse_int128("+0"), int128(0));
  EXPECT_EQ(ssum::parse_int128("42"), int128(42));
  EXPECT_EQ(ssum::parse_int128("+42"), int128(42));
  EXPECT_EQ(ssum::parse_int128("-42"), int128(-42));
  EXPECT_EQ(ssum::parse_int128("007"), int128(7));
  EXPECT_EQ(ssum::parse_int128("18446744073709551616"), int128(1) << 64);
  EXPECT_EQ(ssum::parse_int128("-1267650600228229401496703205376"), -(int128(1) << 100));
}

TEST(ParseInt128, ExactLimits) {
  EXPECT_EQ(ssum::parse_int128(int128_max_text), int128_max());
  EXPECT_EQ(ssum::parse_int128(std::string("+") + int128_max_text), int128_max());
  EXPECT_EQ(ssum::parse_int128(int128_min_text), int128_min());
  // Leading zeros do not count towards overflow.
  EXPECT_EQ(ssum::parse_int128(std::string("-0000000000") + (int128_min_text + 1)), int128_min());
}

TEST(ParseInt128, RejectsOverflow) {
  const std::string max_text = int128_max_text;
  const std::string min_magnitude = int128_min_text + 1;
  EXPECT_EQ(ssum::parse_int128(increment_digits(max_text)), std::nullopt);  // 2^127
  EXPECT_EQ(ssum::parse_int128("+" + increment_digits(max_text)), std::nullopt);
  EXPECT_EQ(ssum::parse_int128("-" + increment_digits(min_magnitude)), std::nullopt);
  EXPECT_EQ(ssum::parse_int128(max_text + "0"), std::nullopt);
  EXPECT_EQ(ssum::parse_int128("-" + min_magnitude + "0"), std::nullopt);
  EXPECT_EQ(ssum::parse_int128(std::string(39, '9')), std::nullopt);
  EXPECT_EQ(ssum::parse_int128(std::string(100, '9')), std::nullopt);
  // 2^128 and beyond would wrap to small values in a careless parser.
  EXPECT_EQ(ssum::parse_int128("340282366920938463463374607431768211456"), std::nullopt);
  EXPECT_EQ(ssum::parse_int128("340282366920938463463374607431768211457"), std::nullopt);
}

TEST(ParseInt128, BoundaryNeighbourhood) {
  // The last few values inside the range parse; every one of the next few does not.
  std::string above = int128_max_text;
  std::string below_min = int128_min_text + 1;
  for (int k = 0; k < 25; ++k) {
    EXPECT_EQ(ssum::parse_int128(reference_text(int128_max() - k)), int128_max() - k);
    EXPECT_EQ(ssum::parse_int128(reference_text(int128_min() + k)), int128_min() + k);
    above = increment_digits(above);
    below_min = increment_digits(below_min);
    EXPECT_EQ(ssum::parse_int128(above), std::nullopt) << above;
    EXPECT_EQ(ssum::parse_int128("-" + below_min), std::nullopt) << below_min;
  }
}

TEST(ParseInt128, RejectsEverythingButSignAndDigits) {
  for (const char* text : {"", "+", "-", "+-1", "-+1", "--1", "++1", " 1", "1 ", "1\n", "\t1",
                           "1.0", "1.", ".1", "1e5", "1E5", "0x10", "0b1", "1_000", "1'000",
                           "1,000", "abc", "12a", "a12", "- 1", "١", "inf", "nan"}) {
    EXPECT_EQ(ssum::parse_int128(text), std::nullopt) << "'" << text << "'";
  }
  EXPECT_EQ(ssum::parse_int128(std::string("1\0", 2)), std::nullopt);
}

TEST(ParseInt128, RandomValuesRoundTrip) {
  std::mt19937_64 rng(77);
  for (int i = 0; i < 20000; ++i) {
    const int128 value = random_int128(rng);
    const std::string text = reference_text(value);
    ASSERT_EQ(ssum::parse_int128(text), value) << text;
    ASSERT_EQ(ssum::parse_int128(ssum::to_string(value)), value) << text;
    if (value >= 0) {
      ASSERT_EQ(ssum::parse_int128("+" + text), value) << text;
    }
  }
}

}  // namespace

// Decimal conversion for 128-bit integers, which the standard library does not cover.
#include "ssum/int128.hpp"

namespace ssum {

std::string to_string(int128 value) {
  // Work on the magnitude as unsigned so that INT128_MIN needs no special case.
  uint128 rest = magnitude(value);
  char buffer[40];  // 2^127 has 39 digits, plus the sign
  char* const end = buffer + sizeof buffer;
  char* first = end;
  do {
    *--first = char('0' + int(rest % 10));
    rest /= 10;
  } while (rest != 0);
  if (value < 0) *--first = '-';
  return std::string(first, end);
}

std::optional<int128> parse_int128(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  // The largest magnitude: 2^127 - 1 for positive values, 2^127 for negative ones.
  const uint128 limit = (uint128(1) << 127) - (negative ? 0 : 1);
  uint128 magnitude = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const unsigned digit = unsigned(c - '0');
    if (magnitude > (limit - digit) / 10) return std::nullopt;  // magnitude*10+digit > limit
    magnitude = magnitude * 10 + digit;
  }
  // C++20 defines the unsigned-to-signed conversion as modular: 2^127 becomes INT128_MIN.
  return negative ? int128(uint128(0) - magnitude) : int128(magnitude);
}

}  // namespace ssum

#pragma once
// Exact wide integers: weights of up to 127 bits, and their subset sums.
#include <optional>
#include <string>
#include <string_view>

namespace ssum {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/// |v| as unsigned: exact for every int128, -2^127 included (which would overflow as int128).
inline uint128 magnitude(int128 v) { return v < 0 ? uint128(0) - uint128(v) : uint128(v); }

/// Decimal text of a 128-bit integer.
std::string to_string(int128 value);

/// Strict decimal parse: optional sign, digits only, no spaces. Empty on any other text
/// or when the value does not fit in 128 bits.
std::optional<int128> parse_int128(std::string_view text);

}  // namespace ssum

#pragma once
// Exact wide integers: subset sums of int64 weights need more than 64 bits.
#include <optional>
#include <string>
#include <string_view>

namespace ssum {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/// Decimal text of a 128-bit integer.
std::string to_string(int128 value);

/// Strict decimal parse: optional sign, digits only, no spaces. Empty on any other text
/// or when the value does not fit in 128 bits.
std::optional<int128> parse_int128(std::string_view text);

}  // namespace ssum

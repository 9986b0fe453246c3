#pragma once
// A subset-sum instance and how it is read and written.
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ssum/int128.hpp"

namespace ssum {

/// Signed weights and a target. Without a target the instance asks for a NON-EMPTY subset
/// summing to zero (zero-sum); with one, the empty subset is a valid answer for target 0.
struct problem {
  std::vector<std::int64_t> weights;
  std::optional<int128> target;

  bool zero_sum() const noexcept { return !target.has_value(); }
};

/// Parses the text format (`#` comments, an optional `target: T` line, integers separated by
/// white space or commas) or, when the first non-blank character is `{`, the JSON format
/// `{"weights": [...], "target": T}`. Throws ssum::input_error naming the line.
problem parse_problem(std::string_view text);

/// Reads and parses a file; "-" is standard input. Throws ssum::input_error, also when the
/// file cannot be opened.
problem read_problem(const std::string& path);

/// The text format, with `comment` (may be empty, may hold several lines) as `#` lines first.
std::string format_problem(const problem& p, std::string_view comment = {});

/// True when `subset` (0-based indices) is strictly ascending, in range, sums exactly to the
/// target (0 for zero-sum) and, for zero-sum, is not empty.
bool is_certificate(const problem& p, const std::vector<std::size_t>& subset);

}  // namespace ssum

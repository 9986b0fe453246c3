#pragma once
// A subset-sum instance and how it is read and written.
#include <cstddef>
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
/// Weights are 128-bit, but their magnitudes must add up to less than 2^127 (see
/// check_weight_total); the target may be any int128.
/// Read from decimal amounts, weights and target are those amounts times 10^decimals (one
/// scale for the whole instance: the most decimals any number had); 0 for integer input.
struct problem {
  std::vector<int128> weights;
  std::optional<int128> target;
  unsigned decimals = 0;

  bool zero_sum() const noexcept { return !target.has_value(); }
};

/// The largest total magnitude sum |w_i| that ssum accepts: 2^127 - 1. Below it every subset
/// sum, and the target once the weights are made non-negative, is exact in 128 bits.
inline constexpr uint128 max_weight_total = (uint128(1) << 127) - 1;

/// The largest input read_problem and parse_problem take, 1 GiB: reading stops there rather
/// than growing without limit on an endless stream such as /dev/zero or `yes`.
inline constexpr std::size_t max_input_bytes = std::size_t(1) << 30;

/// The most weights an instance may hold, 2^24: generous for the exponential solvers (which
/// take at most 120 items) and for dynamic programming over millions of small weights.
inline constexpr std::size_t max_items = std::size_t(1) << 24;

/// Throws ssum::input_error (no line) when the weights' magnitudes add up to 2^127 or more
/// (a weight of -2^127 alone does). The parsers and every solver check this.
void check_weight_total(const problem& p);
/// The same for weights alone.
void check_weight_total(const std::vector<int128>& weights);

/// Parses the text format (`#` comments, an optional `target: T` line, `target: none` for
/// zero-sum outright, integers separated by white space or commas) or, when the first
/// non-blank character is `{`, the JSON format `{"weights": [...], "target": T}`, where weights
/// and target are numbers or decimal strings. Input with neither weights nor a target line
/// (or a 'weights' key) is refused as empty. Throws ssum::input_error naming the line, also when the weights' total magnitude
/// reaches 2^127, for a NUL byte, beyond max_items weights or max_input_bytes of text.
/// Tokens echoed in messages have every byte outside printable ASCII written as \xNN, so
/// that a message is always one line.
problem parse_problem(std::string_view text);

/// Reads and parses a file; "-" is standard input. Throws ssum::input_error, also when the
/// file cannot be opened or read, and as soon as a NUL byte or more than max_input_bytes
/// arrive (the rest is not read).
problem read_problem(const std::string& path);

/// The same with a target given elsewhere (the command line) when `target` holds one: it
/// replaces the input's, and input with neither weights nor target is then the empty
/// instance rather than an error.
problem read_problem(const std::string& path, const std::optional<int128>& target);

/// How to read an instance of decimal amounts (the overloads below). The overloads above read
/// integers only, for callers that do not look at problem::decimals.
struct read_options {
  /// A target given elsewhere (the command line), decimals allowed: it replaces the input's
  /// and is scaled with the instance; input with neither weights nor target is then empty.
  std::optional<std::string> target;
  /// CSV input: the amounts are this column, a header name or a 1-based number.
  std::optional<std::string> column;
};

/// The most decimals an amount may have.
inline constexpr unsigned max_decimals = 18;

/// parse_problem with decimal amounts ([+-]digits[.digits], up to max_decimals decimals) in
/// the text and JSON formats (JSON numbers are read from their text, and decimal strings
/// are amounts too), or CSV when options.column is set. The instance's scale is the most
/// decimals of any number; a scaled weight or target beyond 127 bits is refused. In the
/// text format commas separate weights only when no number has a decimal point. Errors
/// about an amount name its line and its column (in JSON, its weights[] index and column).
problem parse_problem(std::string_view text, const read_options& options);

/// read_problem with decimal amounts and CSV, as parse_problem(text, options). A bad
/// options.target is reported (line 0, without the path) before the input is read.
problem read_problem(const std::string& path, const read_options& options);

/// The exact decimal text of value / 10^decimals: (123456, 2) -> "1234.56", (-5, 2) ->
/// "-0.05", (0, 2) -> "0.00"; decimals 0 is the integer's text.
std::string format_amount(int128 value, unsigned decimals);

/// `text` (an amount as read_options takes it, e.g. "0.05") at a scale of `decimals`: value x
/// 10^decimals exactly. Throws ssum::input_error naming `what` and the text when it is not an
/// amount, has more decimals than `decimals`, or passes 127 bits once scaled.
int128 parse_amount_at(std::string_view text, unsigned decimals, const std::string& what);

/// `p` at the scale of `amount` (a number's text, e.g. "0.05") when that is finer than its
/// own: every weight and the target times 10^(its decimals - p.decimals), as reading the
/// amount among the input would, so that a window finer than the amounts is exact. Text that
/// is not an amount leaves `p` as it is (parse_amount_at reports it). Throws
/// ssum::input_error naming `what` when the sum of |weight| or the target passes 127 bits.
problem raised_to(problem p, std::string_view amount, const std::string& what);

/// The text format, with `comment` (may be empty, may hold several lines) as `#` lines first.
/// A decimal instance is written as decimal amounts, all with p.decimals decimals, which
/// parse_problem(text, read_options{}) reads back to the same instance (the empty zero-sum
/// instance has no number to carry its scale).
std::string format_problem(const problem& p, std::string_view comment = {});

/// True when `subset` (0-based indices) is strictly ascending, in range, sums exactly to the
/// target (0 for zero-sum) and, for zero-sum, is not empty.
bool is_certificate(const problem& p, const std::vector<std::size_t>& subset);

}  // namespace ssum

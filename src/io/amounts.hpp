#pragma once
// Decimal amounts in instances: parsing, one scale for the whole instance, and CSV records.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum::io {


/// Exactly value / 10^decimals.
struct amount {
  int128 value = 0;
  unsigned decimals = 0;
};

/// Why a token is not an amount; `none` when it is one.
enum class amount_fault { none, not_a_number, exponent, not_finite, thousands, too_many_decimals, out_of_range };

/// ' ', '\t', '\r' (all that Windows line endings need), '\v', '\f'.
constexpr bool is_blank(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// `s` without blanks at either end.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

/// Parses [+-]digits[.digits] (either side of the point may be empty, not both) into `out`.
amount_fault parse_amount(std::string_view text, amount& out);

/// The end of a message about a token with that fault: " is not a number", ...
std::string fault_text(amount_fault fault);

/// 10^k for k <= 38.
uint128 pow10(unsigned k);

/// v * 10^k when its magnitude stays below 2^127 (fits in 127 bits); empty otherwise.
std::optional<int128> scale_up(int128 v, unsigned k);

/// A problem under construction: the running sum of |w| and one scale that rises as amounts
/// with more decimals arrive (the weights and target read so far are multiplied up).
class instance_builder {
 public:
  problem p;

  instance_builder() = default;
  /// Continues a finished instance (to give it a target).
  explicit instance_builder(problem from);

  /// Appends a weight already at the instance's scale, keeping the sum of |w| below 2^127 and
  /// the count within max_items; the error names the weight that crosses (with `where`).
  void add(int128 w, std::size_t line, const std::string& where);

  /// Appends an amount at the instance's scale (raising it first when the amount has more decimals).
  void add_amount(const amount& a, std::string_view token, std::size_t line, const std::string& where);

  /// Sets the target to an amount, raising the scale as needed.
  void set_target(const amount& a, std::string_view token, std::size_t line, const std::string& where);

  /// Multiplies everything read so far by 10^(d - p.decimals) when d is more.
  void raise_scale(unsigned d, std::string_view token, std::size_t line, const std::string& where);

 private:
  /// The amount at the instance's scale (raised first when it has more decimals); `what`
  /// ("weight ", "target ") names it in the error when it passes 127 bits.
  int128 at_scale(const amount& a, const char* what, std::string_view token, std::size_t line,
                  const std::string& where);
  uint128 total_ = 0;  // sum of |w| so far
};

/// With decimal amounts a comma could be a thousands separator (1,000.00), so in the text
/// format commas separate weights only in input without a decimal point: the first comma or
/// decimal amount that makes both meet is refused.
struct comma_rule {
  std::size_t comma_line = 0, point_line = 0;

  /// A comma between weights, at a 1-based column.
  void comma(std::size_t line, std::size_t column);
  /// A number with a decimal point; `where` names its column.
  void point(std::string_view token, std::size_t line, const std::string& where);
};

/// A token for a message, cut short and with non-printable bytes escaped.
std::string in_quotes(std::string_view token);

/// One field of a CSV record: its unquoted text, the line it starts on and whether it was quoted.
struct csv_field {
  std::string text;
  std::size_t line = 0;
  bool quoted = false;
};

/// Reads the record starting at `pos` (RFC 4180: fields in double quotes may hold commas,
/// newlines and "" for a quote) into `fields`; `line` is pos's line and is advanced past the
/// record. Returns false at the end of the text. Throws input_error for an unclosed quote or
/// text after a closing quote.
bool next_csv_record(std::string_view text, std::size_t& pos, std::size_t& line, std::vector<csv_field>& fields);

/// The instance from CSV text: the amounts of one column (a header name or a 1-based number).
/// The first record is a header when `column` is a name, or when its field in that column is
/// not an amount. Empty lines are skipped. `target_given`: no amounts is the empty instance.
problem parse_csv(std::string_view text, const std::string& column, bool target_given);

}  // namespace ssum::io

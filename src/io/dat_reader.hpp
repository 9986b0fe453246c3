#pragma once
// Internal, shared by the rows readers (rows_io.cpp, read_instance.cpp): the row builder and
// entry parser both forms use, the QOBLIB .dat form read line by line as its bytes arrive, and
// the look at an input's first bytes that tells several rows from one.
#include <cstddef>
#include <string>
#include <string_view>

#include "ssum/int128.hpp"
#include "ssum/rows.hpp"

namespace ssum::io {

/// An integer entry from its text; messages read "KIND 'TOKEN' WHERE is not an integer".
int128 parse_entry(std::string_view token, const char* kind, const std::string& where, std::size_t line);

/// The instance under construction: enforces max_rows, max_items and each row's sum of |a|
/// below 2^127, which keeps every row sum (and the fold's spans) exact.
class rows_builder {
 public:
  rows_problem p;

  void start_row(std::size_t line);
  void add(int128 a, std::size_t line, const std::string& where);

 private:
  uint128 row_total_ = 0;
};

/// The .dat form fed in pieces of any size. A line is taken whole when its '\n' arrives; one
/// that grows past what its place allows (the "m n" line and comments before it: 64 KiB; a
/// row: 64 bytes a number, at least 64 KiB) is refused at once, so that the reader holds the
/// instance and one line, never the input.
class dat_reader {
 public:
  /// Throws input_error naming the line.
  void feed(std::string_view bytes);
  /// The last line (without '\n') and the checks at the end of the input.
  rows_problem finish();

 private:
  void take_line(std::string_view raw);
  std::size_t line_limit() const;
  void check_length(std::size_t bytes) const;

  rows_builder b_;
  std::size_t m_ = 0, n_ = 0, header_line_ = 0, last_line_ = 0, line_no_ = 0;
  std::string pending_;  // the line whose '\n' has not arrived
};

/// The bytes a line before the "m n" line may take, and those a row's number may.
inline constexpr std::size_t dat_header_line_limit = std::size_t(1) << 16;
inline constexpr std::size_t dat_bytes_per_number = 64;  // 40 for a sign and 39 digits, then blanks

/// What an input's first bytes say of its form under --format auto.
enum class input_form { undecided, one_row, dat, json_rows };

/// `head`: the input's first bytes (`whole`: all of them). A UTF-8 byte order mark and blanks
/// are skipped. JSON: several rows when its first 64 KiB hold a "rows" key and no "weights"
/// key. Text: the .dat form when the first line that is not blank or a comment holds two
/// counts "m n" (1 <= m <= max_rows) and the next such line holds n + 1 numbers or more
/// (more: for the reader to name the extra one); one row otherwise. Undecided only while those lines are incomplete and within their limits
/// (a row line past its limit is the .dat form, for the reader to refuse).
input_form sniff_form(std::string_view head, bool whole);

}  // namespace ssum::io

// The QOBLIB .dat form read line by line, and the look at an input's first bytes that tells
// several rows from one (see dat_reader.hpp).
#include "io/dat_reader.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "io/amounts.hpp"
#include "ssum/errors.hpp"

namespace ssum::io {
namespace {

// A line's numbers: blanks and commas separate them (the QOBLIB checker takes commas too).
std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  for (std::size_t i = 0; i < line.size();) {
    if (is_blank(line[i]) || line[i] == ',') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && !is_blank(line[j]) && line[j] != ',') ++j;
    tokens.push_back(line.substr(i, j - i));
    i = j;
  }
  return tokens;
}

// A count on the "m n" line, or empty when `token` is not decimal digits of at most 18
// significant ones.
std::optional<std::size_t> count_of(std::string_view token) {
  const bool digits = !token.empty() && token.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits) return std::nullopt;
  const std::string_view significant = token.substr(std::min(token.find_first_not_of('0'), token.size()));
  if (significant.size() > 18) return std::nullopt;
  std::size_t value = 0;
  for (const char c : significant) value = value * 10 + std::size_t(c - '0');
  return value;
}

// A count on the "m n" line: decimal digits only, so "-3" and "2.0" are refused by name.
std::size_t parse_count(std::string_view token, const char* what, std::size_t line) {
  if (const auto value = count_of(token)) return *value;
  const bool digits = !token.empty() && token.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits) {
    throw input_error(std::string("the ") + what + " " + in_quotes(token) + " is not a non-negative integer", line);
  }
  throw input_error(std::string("the ") + what + " " + in_quotes(token) + " is too large", line);
}

// The line without its comment and the blanks at either end.
std::string_view content_of(std::string_view line) {
  if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  return trim(line);
}

// The bytes a row line may take: its n + 1 numbers, and never less than a comment may.
std::size_t row_line_limit(std::size_t n) {
  return std::max(dat_header_line_limit, (n + 1) * dat_bytes_per_number);
}

}  // namespace

int128 parse_entry(std::string_view token, const char* kind, const std::string& where, std::size_t line) {
  if (const auto value = parse_int128(token)) return *value;
  std::string_view digits = token;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
  const bool all_digits = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  const bool fraction = !all_digits && !digits.empty() && digits.find_first_not_of("0123456789.") == std::string_view::npos &&
                        std::count(digits.begin(), digits.end(), '.') == 1 && digits != ".";
  std::string shown = kind;  // appended piece by piece: GCC 12 warns (-Wrestrict) on " " + a temporary
  shown += ' ';
  shown += in_quotes(token);
  shown += where;
  if (all_digits) throw input_error(shown + " is out of 128-bit range", line);
  if (fraction) throw input_error(shown + " is a decimal fraction; entries must be integers", line);
  throw input_error(shown + " is not an integer", line);
}

void rows_builder::start_row(std::size_t line) {
  if (p.rows.size() == max_rows) {
    throw input_error("more than " + std::to_string(max_rows) + " rows (ssum::max_rows)", line);
  }
  p.rows.emplace_back();
  row_total_ = 0;
}

void rows_builder::add(int128 a, std::size_t line, const std::string& where) {
  std::vector<int128>& row = p.rows.back();
  if (row.size() == max_items) {
    throw input_error("row " + std::to_string(p.rows.size()) + " has more than " + std::to_string(max_items) +
                          " coefficients (ssum::max_items)", line);
  }
  const uint128 m = magnitude(a);
  if (m > max_weight_total - row_total_) {
    throw input_error("coefficient " + in_quotes(to_string(a)) + where +
                          " takes the row's sum of |coefficient| to 2^127 or more; ssum takes totals up to 2^127 - 1",
                      line);
  }
  row_total_ += m;
  row.push_back(a);
}

// ---- the .dat form, line by line -------------------------------------------------------------

std::size_t dat_reader::line_limit() const {
  return header_line_ == 0 ? dat_header_line_limit : row_line_limit(n_);
}

void dat_reader::check_length(std::size_t bytes) const {
  if (bytes <= line_limit()) return;
  const std::string limit = std::to_string(line_limit()) + " bytes";
  if (header_line_ == 0) throw input_error("a line of more than " + limit + " before the 'm n' line", line_no_ + 1);
  throw input_error("a line of more than " + limit + ", more than a row of " + std::to_string(n_) +
                        " coefficients and its right-hand side takes ('m n' on line " + std::to_string(header_line_) +
                        ")",
                    line_no_ + 1);
}

void dat_reader::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t end = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, end);
    check_length(pending_.size() + piece.size());
    if (end == std::string_view::npos) {
      pending_.append(piece);
      return;
    }
    bytes.remove_prefix(end + 1);
    if (pending_.empty()) {
      take_line(piece);
    } else {
      pending_.append(piece);
      take_line(pending_);
      pending_.clear();
    }
  }
}

void dat_reader::take_line(std::string_view raw) {
  const std::size_t line_no = ++line_no_;
  constexpr std::string_view bom = "\xEF\xBB\xBF";  // what some Windows editors put first
  if (line_no == 1 && raw.substr(0, bom.size()) == bom) raw.remove_prefix(bom.size());
  const std::string_view line = content_of(raw);
  if (line.empty()) return;
  last_line_ = line_no;
  const std::vector<std::string_view> tokens = split_tokens(line);
  if (tokens.empty()) throw input_error("a line of commas only", line_no);

  if (header_line_ == 0) {
    header_line_ = line_no;
    if (tokens.size() < 2) {
      throw input_error("the first line must hold the counts 'm n' (rows, then columns); found " + in_quotes(line),
                        line_no);
    }
    m_ = parse_count(tokens[0], "row count", line_no);
    n_ = parse_count(tokens[1], "column count", line_no);
    if (tokens.size() > 2) throw input_error("extra number " + in_quotes(tokens[2]) + " after the counts 'm n'", line_no);
    if (m_ == 0) throw input_error("no rows (m = 0): an instance has at least one row", line_no);
    if (m_ > max_rows) {
      throw input_error("more than " + std::to_string(max_rows) + " rows (" + std::to_string(m_) + "; ssum::max_rows)",
                        line_no);
    }
    if (n_ > max_items) {
      throw input_error("more than " + std::to_string(max_items) + " columns (" + std::to_string(n_) +
                            "; ssum::max_items)", line_no);
    }
    return;
  }

  const std::size_t row = b_.p.rows.size() + 1;  // 1-based, as messages count rows
  if (row > m_) {
    throw input_error("extra content " + in_quotes(line) + " after the " + std::to_string(m_) +
                          (m_ == 1 ? " row" : " rows") + " that 'm n' announced", line_no);
  }
  const std::string expected = " (expected " + std::to_string(n_) + " coefficients, then the right-hand side)";
  if (tokens.size() == n_) {
    throw input_error("row " + std::to_string(row) + " has " + std::to_string(n_) +
                          " numbers: its right-hand side is missing" + expected, line_no);
  }
  if (tokens.size() < n_) {
    throw input_error("row " + std::to_string(row) + " has " + std::to_string(tokens.size()) + " numbers" + expected,
                      line_no);
  }
  if (tokens.size() > n_ + 1) {
    throw input_error("row " + std::to_string(row) + " has " + std::to_string(tokens.size()) +
                          " numbers: extra number " + in_quotes(tokens[n_ + 1]) + expected, line_no);
  }
  b_.start_row(line_no);
  for (std::size_t j = 0; j < n_; ++j) {
    const std::string where = " (row " + std::to_string(row) + ", column " + std::to_string(j + 1) + ")";
    b_.add(parse_entry(tokens[j], "coefficient", where, line_no), line_no, where);
  }
  b_.p.targets.push_back(parse_entry(tokens[n_], "right-hand side", " (row " + std::to_string(row) + ")", line_no));
}

rows_problem dat_reader::finish() {
  if (!pending_.empty()) {
    take_line(pending_);
    pending_.clear();
  }
  if (header_line_ == 0) throw input_error("empty input: no 'm n' line and no rows", 0);
  if (b_.p.rows.size() < m_) {
    throw input_error("the input ends after " + std::to_string(b_.p.rows.size()) + " of the " + std::to_string(m_) +
                          " rows that 'm n' announced", last_line_);
  }
  return std::move(b_.p);
}

// ---- telling the forms apart -----------------------------------------------------------------

input_form sniff_form(std::string_view head, bool whole) {
  constexpr std::string_view bom = "\xEF\xBB\xBF";  // what some Windows editors put first
  if (head.substr(0, bom.size()) == bom) head.remove_prefix(bom.size());
  const std::size_t first = head.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string_view::npos) return whole ? input_form::one_row : input_form::undecided;
  if (head[first] == '{') {
    constexpr std::size_t json_look = std::size_t(1) << 16;  // as far as a "rows" key is looked for
    if (!whole && head.size() < json_look) return input_form::undecided;
    const std::string_view look = head.substr(0, json_look);
    const bool rows = look.find("\"rows\"") != std::string_view::npos && look.find("\"weights\"") == std::string_view::npos;
    return rows ? input_form::json_rows : input_form::one_row;
  }
  // The .dat form: "m n", then a row of n + 1 numbers.
  std::optional<std::size_t> n;
  for (std::size_t start = 0;;) {
    const std::size_t end = head.find('\n', start);
    const bool complete = end != std::string_view::npos || whole;
    const std::string_view raw = head.substr(start, end == std::string_view::npos ? head.npos : end - start);
    const std::size_t limit = n ? row_line_limit(*n) : dat_header_line_limit;
    if (!complete && raw.size() <= limit) return input_form::undecided;
    if (raw.size() > limit) return n ? input_form::dat : input_form::one_row;  // the reader refuses a long row
    const std::string_view line = content_of(raw);
    if (!line.empty()) {
      const std::vector<std::string_view> tokens = split_tokens(line);
      // More than n + 1 numbers too: the reader names the extra one rather than a one-row
      // reader answering another question.
      if (n) return tokens.size() >= *n + 1 ? input_form::dat : input_form::one_row;
      if (tokens.size() != 2) return input_form::one_row;
      const auto rows = count_of(tokens[0]), columns = count_of(tokens[1]);
      if (!rows || !columns || *rows == 0 || *rows > max_rows) return input_form::one_row;
      n = *columns;
    }
    if (end == std::string_view::npos) return input_form::one_row;  // the whole input, and no row
    start = end + 1;
  }
}

}  // namespace ssum::io

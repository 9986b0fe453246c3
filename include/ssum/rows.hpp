#pragma once
// Multi-row subset sum (market split): find x in {0,1}^n with A x = b for a small integer
// matrix A; how such instances are read, written, checked and folded into one subset sum.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum {

/// m rows of n coefficients and one target per row: a subset of the columns answers the
/// instance when every row's coefficients in those columns add up to that row's target.
/// Coefficients and targets may be negative. As read, m is 1 to max_rows, n is at most
/// max_items, and each row's coefficients' magnitudes add up to less than 2^127 (so that
/// every row sum is exact in int128); targets may be any int128.
struct rows_problem {
  std::vector<std::vector<int128>> rows;
  std::vector<int128> targets;

  /// n: the length of the first row (0 without rows).
  std::size_t columns() const noexcept { return rows.empty() ? 0 : rows.front().size(); }
};

/// The most rows an instance may have.
inline constexpr std::size_t max_rows = 64;

/// Parses the QOBLIB market split `.dat` form or, when the first non-blank character is `{`
/// (or `[`, to refuse it as JSON), the JSON form {"rows": [[a11, ..., a1n], ...], "targets": [b1, ...]} (integers as numbers
/// or as decimal strings, for values beyond 64 bits).
/// The .dat form: `#` starts a comment, blank lines are skipped, commas count as blanks; the
/// first line holds "m n", then each of the m rows is one line of n coefficients followed by
/// its target (the right-hand side), and nothing follows.
/// Throws ssum::input_error naming the line: empty input, wrong or negative counts, m = 0,
/// more than max_rows rows or max_items columns, a missing right-hand side, extra numbers,
/// tokens that are not integers, a row whose magnitudes reach 2^127; also for a NUL byte or
/// more than max_input_bytes of text. Echoed tokens are escaped as parse_problem's are.
rows_problem parse_rows(std::string_view text);

/// Reads and parses a file; "-" is standard input. Errors read "PATH: line N: message"; the
/// file cannot be opened or read, a NUL byte or more than max_input_bytes are input_errors.
/// The .dat form is read as it arrives: a line longer than its place allows (before the "m n"
/// line 64 KiB; a row 64 bytes a number, at least 64 KiB) is refused at once, and memory holds
/// the instance and one line.
rows_problem read_rows(const std::string& path);

/// An input read once whose form was told from its bytes: `rows` when it holds several rows,
/// `one` otherwise.
struct any_instance {
  std::optional<rows_problem> rows;
  problem one;
};

/// Reads `path` ("-": standard input, which cannot be read twice) and tells the forms apart by
/// its first bytes, past a UTF-8 byte order mark and blanks: several rows for a JSON object
/// with a "rows" key and no "weights" key among its first 64 KiB, or for the .dat form, a line
/// "m n" (two counts, 1 <= m <= max_rows; comments and blank lines before it) followed
/// by a line of at least n + 1 numbers, read as read_rows; one row otherwise, read as
/// read_problem(path, options). With options.column the input is CSV, one row.
any_instance read_instance(const std::string& path, const read_options& options);

/// Whether a file's first bytes (`whole`: all of it) hold several rows by read_instance's rule;
/// empty while more bytes are needed to tell.
std::optional<bool> holds_rows(std::string_view head, bool whole);

/// The .dat form ("m n", then one line per row: its coefficients and its target), which
/// parse_rows reads back to the same instance.
std::string format_rows(const rows_problem& p);

/// True when `subset` (0-based column indices) is strictly ascending, in range, and every
/// row sums exactly to its target (the empty subset answers all-zero targets). False for an
/// instance whose rows and targets do not match in shape.
bool is_rows_certificate(const rows_problem& p, const std::vector<std::size_t>& subset);

/// A multi-row instance folded into one subset sum over the same columns: a subset of the
/// columns answers `single` exactly when it answers the rows, so a solver's certificate for
/// `single` is one for the rows as it stands.
struct rows_encoding {
  /// One weight per column, and a target (never zero-sum).
  problem single;
  /// Some row's target lies outside [sum of its negative coefficients, sum of its positive
  /// ones], or the folded target is beyond any subset: nothing answers. `single` then says so
  /// cheaply: n zero weights and target 1.
  bool infeasible_by_bounds = false;
};

/// Folds the rows with a mixed radix: with span_i = hi_i - lo_i + 1 (lo_i, hi_i: the sums of
/// row i's negative and positive coefficients), B_0 = 1 and B_{i+1} = B_i * span_i, column j
/// weighs sum_i a_ij B_i and the target is sum_i b_i B_i. Empty when the weights' magnitudes
/// add up to 2^127 or more (decided exactly, not from the bound rows_encoding_bits gives), or
/// when a row's own magnitudes do. Throws std::invalid_argument for no rows, rows of unequal
/// length or a target count other than the row count.
std::optional<rows_encoding> encode_rows(const rows_problem& p);

/// The bit length of prod_i span_i - 1, which bounds both the folded weights' total
/// (sum_j |w_j| <= sum_i (span_i - 1) B_i = B_m - 1: the sum telescopes, so no log2 n term)
/// and the folded target's magnitude: encode_rows succeeds whenever this is 127 or less.
/// May exceed 127 (up to 64 * 128); 0 when every coefficient is 0. Same throws as encode_rows.
std::size_t rows_encoding_bits(const rows_problem& p);

}  // namespace ssum

// Multi-row (market split) instances: parsing the QOBLIB .dat form (io/dat_reader.cpp) or a
// JSON form, the certificate check, and the fold into one subset sum (see ssum/rows.hpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/amounts.hpp"
#include "io/dat_reader.hpp"
#include "io/input_text.hpp"
#include "io/json_sax_reader.hpp"
#include "ssum/errors.hpp"
#include "ssum/rows.hpp"

namespace ssum {
namespace {

using io::in_quotes;  // cut short and escaped, so that a message stays one short line
using io::limit_text;
using io::parse_entry;
using io::rows_builder;

constexpr const char* kinds = ".dat and JSON";  // the forms a NUL byte cannot be in

[[noreturn]] void throw_nul(std::string_view text, std::size_t index, const std::string& source = {}) {
  io::throw_nul(text, index, kinds, source);
}

// The whole text through the reader that read_rows feeds as the bytes arrive.
rows_problem parse_dat(std::string_view text) {
  io::dat_reader reader;
  reader.feed(text);
  return reader.finish();
}

// ---- the JSON form -------------------------------------------------------------------------

// Builds the instance from SAX events: nlohmann checks the grammar, this the schema. SAX
// rather than a DOM because number_float() sees the number's text, so integers beyond 64
// bits are read exactly and "2.0" or "1e5" are refused by name.
class json_rows_reader final : public io::json_sax_reader {
 public:
  explicit json_rows_reader(std::string_view text) : json_sax_reader(text) {}

  rows_problem read() {
    parse();
    if (!seen_rows_) throw input_error("JSON object has no 'rows' key", 0);
    if (!seen_targets_) throw input_error("JSON object has no 'targets' key", 0);
    if (b_.p.rows.empty()) throw input_error("'rows' is empty: an instance has at least one row", rows_end_line_);
    if (b_.p.targets.size() != b_.p.rows.size()) {
      throw input_error("'targets' has " + std::to_string(b_.p.targets.size()) + " entries for " +
                            std::to_string(b_.p.rows.size()) + (b_.p.rows.size() == 1 ? " row" : " rows"),
                        targets_end_line_);
    }
    return std::move(b_.p);
  }

  bool null() override { return value("'null'"); }
  bool boolean(bool val) override { return value(val ? "'true'" : "'false'"); }
  bool number_integer(number_integer_t val) override { return number(std::to_string(val)); }
  bool number_unsigned(number_unsigned_t val) override { return number(std::to_string(val)); }
  bool number_float(number_float_t, const string_t& s) override { return number(s); }
  bool binary(binary_t&) override { return value("binary data"); }

  bool string(string_t& val) override {
    // Decimal strings carry values beyond 64 bits past parsers that read numbers as doubles.
    if (state_ == state::row || state_ == state::targets) return number(val);
    return value("the string " + in_quotes(val));
  }

  bool start_object(std::size_t) override {
    if (state_ != state::top) return value("an object");
    state_ = state::root;
    return true;
  }

  bool key(string_t& val) override {
    bool* seen = val == "rows" ? &seen_rows_ : val == "targets" ? &seen_targets_ : nullptr;
    if (!seen) throw input_error("unknown key " + in_quotes(val) + " (expected 'rows' and 'targets')", current_line());
    if (*seen) throw input_error("key " + in_quotes(val) + " given twice", current_line());
    *seen = true;
    key_ = val;
    return true;
  }

  bool end_object() override {
    state_ = state::done;
    return true;
  }

  bool start_array(std::size_t) override {
    if (state_ == state::root && key_ == "rows") {
      state_ = state::rows;
    } else if (state_ == state::rows) {
      b_.start_row(current_line());
      state_ = state::row;
    } else if (state_ == state::root && key_ == "targets") {
      state_ = state::targets;
    } else {
      return value("an array");
    }
    return true;
  }

  bool end_array() override {
    if (state_ == state::row) {
      const std::size_t i = b_.p.rows.size() - 1;
      if (i > 0 && b_.p.rows[i].size() != b_.p.rows[0].size()) {
        throw input_error("rows[" + std::to_string(i) + "] has " + std::to_string(b_.p.rows[i].size()) +
                              " coefficients; rows[0] has " + std::to_string(b_.p.rows[0].size()), current_line());
      }
      state_ = state::rows;
      return true;
    }
    (state_ == state::rows ? rows_end_line_ : targets_end_line_) = current_line();
    state_ = state::root;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    // 406: a number beyond double range; as an entry it is still a number: say what is wrong.
    if (ex.id == 406 && (state_ == state::row || state_ == state::targets)) number(last_token);
    throw_malformed(position, ex);
  }

 private:
  enum class state { top, root, rows, row, targets, done };

  bool number(const std::string& s) {
    if (state_ == state::row) {
      const std::string where = " (rows[" + std::to_string(b_.p.rows.size() - 1) + "][" +
                                std::to_string(b_.p.rows.back().size()) + "])";
      b_.add(parse_entry(s, "coefficient", where, current_line()), current_line(), where);
      return true;
    }
    if (state_ == state::targets) {
      if (b_.p.targets.size() == max_rows) {
        throw input_error("more than " + std::to_string(max_rows) + " targets (ssum::max_rows)", current_line());
      }
      const std::string where = " (targets[" + std::to_string(b_.p.targets.size()) + "])";
      b_.p.targets.push_back(parse_entry(s, "target", where, current_line()));
      return true;
    }
    return value(in_quotes(s));
  }

  // A value where none of its kind belongs.
  bool value(const std::string& what) {
    const std::size_t line = current_line();
    switch (state_) {
      case state::row:
        throw input_error("coefficient (rows[" + std::to_string(b_.p.rows.size() - 1) + "][" +
                              std::to_string(b_.p.rows.back().size()) + "]) must be an integer, not " + what, line);
      case state::rows:
        throw input_error("'rows' must be an array of arrays of integers; rows[" + std::to_string(b_.p.rows.size()) +
                              "] is " + what, line);
      case state::targets:
        throw input_error("target (targets[" + std::to_string(b_.p.targets.size()) + "]) must be an integer, not " +
                              what, line);
      case state::root:
        throw input_error("'" + key_ + "' must be an array, not " + what, line);
      case state::top:
      case state::done:
        break;
    }
    throw input_error("JSON input must be an object, not " + what, line);
  }

  rows_builder b_;
  state state_ = state::top;
  std::string key_;
  bool seen_rows_ = false, seen_targets_ = false;
  std::size_t rows_end_line_ = 0, targets_end_line_ = 0;
};

// ---- the fold into one subset sum ---------------------------------------------------------

void check_shape(const rows_problem& p, const char* caller) {
  const std::string name(caller);
  if (p.rows.empty()) throw std::invalid_argument(name + ": the instance has no rows");
  if (p.targets.size() != p.rows.size()) {
    throw std::invalid_argument(name + ": " + std::to_string(p.targets.size()) + " targets for " +
                                std::to_string(p.rows.size()) + " rows");
  }
  for (std::size_t i = 1; i < p.rows.size(); ++i) {
    if (p.rows[i].size() != p.rows[0].size()) {
      throw std::invalid_argument(name + ": row " + std::to_string(i) + " has " + std::to_string(p.rows[i].size()) +
                                  " coefficients; row 0 has " + std::to_string(p.rows[0].size()));
    }
  }
}

// A row's reach: every subset's row sum lies in [lo, hi]; span = hi - lo + 1 <= 2^127.
struct row_reach {
  int128 lo = 0, hi = 0;
  uint128 span = 1;
};

// Empty when the row's magnitudes add up to 2^127 or more (which parse_rows refuses).
std::optional<row_reach> reach_of(const std::vector<int128>& row) {
  uint128 negative = 0, positive = 0;
  for (const int128 a : row) {
    const uint128 m = magnitude(a);
    if (m > max_weight_total - (negative + positive)) return std::nullopt;
    (a < 0 ? negative : positive) += m;
  }
  return row_reach{-int128(negative), int128(positive), negative + positive + 1};
}

// x * y as 256 bits: (high, low).
void multiply_wide(uint128 x, uint128 y, uint128& high, uint128& low) {
  const std::uint64_t x0 = std::uint64_t(x), x1 = std::uint64_t(x >> 64);
  const std::uint64_t y0 = std::uint64_t(y), y1 = std::uint64_t(y >> 64);
  const uint128 p00 = uint128(x0) * y0, p01 = uint128(x0) * y1, p10 = uint128(x1) * y0, p11 = uint128(x1) * y1;
  const uint128 middle = (p00 >> 64) + std::uint64_t(p01) + std::uint64_t(p10);  // < 3 * 2^64
  low = (middle << 64) | std::uint64_t(p00);
  high = p11 + (p01 >> 64) + (p10 >> 64) + (middle >> 64);
}

// One Horner step of the fold, value * span + a, exactly; empty once its magnitude reaches
// 2^127. Needs |a| < span, which every coefficient and every in-reach target meets.
std::optional<int128> fold_step(int128 value, uint128 span, int128 a) {
  if (value == 0) return a;
  uint128 high, low;
  multiply_wide(magnitude(value), span, high, low);
  if (high != 0) return std::nullopt;  // >= 2^128, and |a| < 2^127 cannot bring it below 2^127
  const uint128 m = magnitude(a);
  uint128 result;
  if ((a < 0) == (value < 0) || a == 0) {
    if (low > max_weight_total - std::min(m, max_weight_total)) return std::nullopt;
    result = low + m;
  } else {
    result = low - m;  // low >= span > m
    if (result > max_weight_total) return std::nullopt;
  }
  return value < 0 ? -int128(result) : int128(result);
}

// sum_i v(i) B_i by Horner from the last row. Each partial value P_k meets |total| >= |P_k|
// (total = P_k B_k + R with |R| <= B_k - 1 as |v(i)| < span_i), so a partial value reaching
// 2^127 means the total does: the empty answer is exact, not a bound.
template <class Value>
std::optional<int128> fold(const std::vector<row_reach>& reach, Value v) {
  int128 total = v(reach.size() - 1);
  for (std::size_t i = reach.size() - 1; i-- > 0;) {
    const auto next = fold_step(total, reach[i].span, v(i));
    if (!next) return std::nullopt;
    total = *next;
  }
  return total;
}

// An unsigned integer in 64-bit limbs, lowest first: the product of the spans, exactly.
struct big_unsigned {
  std::vector<std::uint64_t> limbs{0};

  // Adds v * 2^(64 * at).
  void add(uint128 v, std::size_t at = 0) {
    for (std::size_t k = at; v != 0; ++k) {
      if (k == limbs.size()) limbs.push_back(0);
      const uint128 t = uint128(limbs[k]) + std::uint64_t(v);
      limbs[k] = std::uint64_t(t);
      v = (v >> 64) + (t >> 64);
    }
  }

  big_unsigned times(const big_unsigned& other) const {
    big_unsigned product;
    for (std::size_t i = 0; i < limbs.size(); ++i) {
      for (std::size_t j = 0; j < other.limbs.size(); ++j) product.add(uint128(limbs[i]) * other.limbs[j], i + j);
    }
    return product;
  }

  void decrement() {  // only on a value >= 1
    for (std::uint64_t& limb : limbs) {
      if (limb-- != 0) break;
    }
  }

  std::size_t bit_length() const {
    for (std::size_t k = limbs.size(); k-- > 0;) {
      if (limbs[k] != 0) return 64 * k + std::size_t(64 - __builtin_clzll(limbs[k]));
    }
    return 0;
  }
};

}  // namespace

std::optional<rows_encoding> encode_rows(const rows_problem& p) {
  check_shape(p, "encode_rows");
  const std::size_t m = p.rows.size(), n = p.columns();
  std::vector<row_reach> reach(m);
  bool unreachable = false;
  for (std::size_t i = 0; i < m; ++i) {
    const auto r = reach_of(p.rows[i]);
    if (!r) return std::nullopt;
    reach[i] = *r;
    unreachable |= p.targets[i] < r->lo || p.targets[i] > r->hi;
  }
  // Why equal folds mean equal rows: were some row off, the first such, i, would leave
  // sum_k (s_k - t_k) B_k = (s_i - t_i) B_i + (a multiple of B_{i+1} = span_i B_i), which is 0
  // only if span_i divides s_i - t_i: impossible, as 0 < |s_i - t_i| < span_i (both in reach).
  rows_encoding e;
  if (!unreachable) {
    e.single.weights.resize(n);
    uint128 total = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const auto w = fold(reach, [&](std::size_t i) { return p.rows[i][j]; });
      if (!w || magnitude(*w) > max_weight_total - total) return std::nullopt;
      total += magnitude(*w);
      e.single.weights[j] = *w;
    }
    // A target of 2^127 or more is beyond every subset sum, whose magnitudes stay below it.
    if (const auto t = fold(reach, [&](std::size_t i) { return p.targets[i]; })) {
      e.single.target = *t;
    } else {
      unreachable = true;
    }
  }
  if (unreachable) {  // nothing answers: say so in a form no solver spends time on
    e.single.weights.assign(n, 0);
    e.single.target = 1;
    e.infeasible_by_bounds = true;
  }
  return e;
}

std::size_t rows_encoding_bits(const rows_problem& p) {
  check_shape(p, "rows_encoding_bits");
  big_unsigned product;
  product.add(1);
  for (const auto& row : p.rows) {
    big_unsigned span;  // sum |a| + 1, exact even past parse_rows' limit on a row
    span.add(1);
    for (const int128 a : row) span.add(magnitude(a));
    product = product.times(span);
  }
  product.decrement();
  return product.bit_length();
}

rows_problem parse_rows(std::string_view text) {
  if (text.size() > max_input_bytes) throw input_error(limit_text(), 0);
  if (const void* nul = std::memchr(text.data(), 0, text.size())) {
    throw_nul(text, static_cast<std::size_t>(static_cast<const char*>(nul) - text.data()));
  }
  constexpr std::string_view bom = "\xEF\xBB\xBF";  // what some Windows editors put first
  if (text.substr(0, bom.size()) == bom) text.remove_prefix(bom.size());
  const std::size_t first = text.find_first_not_of(" \t\r\n\v\f");
  // '[' too, so that a bare JSON array is told it is not the object rather than not "m n".
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) return json_rows_reader(text).read();
  return parse_dat(text);
}

std::string format_rows(const rows_problem& p) {
  const std::size_t n = p.columns();
  std::string out = std::to_string(p.rows.size()) + " " + std::to_string(n) + "\n";
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    for (const int128 a : p.rows[i]) out += to_string(a) + " ";
    out += (i < p.targets.size() ? to_string(p.targets[i]) : std::string("0")) + "\n";
  }
  return out;
}

bool is_rows_certificate(const rows_problem& p, const std::vector<std::size_t>& subset) {
  const std::size_t n = p.columns();
  if (p.targets.size() != p.rows.size()) return false;
  for (const auto& row : p.rows) {
    if (row.size() != n) return false;
  }
  for (std::size_t k = 0; k < subset.size(); ++k) {
    if (subset[k] >= n || (k > 0 && subset[k] <= subset[k - 1])) return false;
  }
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    // Exact for any coefficients: `wraps` counts the int128 sum's passes beyond 2^127 (+1)
    // or below -2^127 (-1), as in is_certificate.
    int128 sum = 0;
    long long wraps = 0;
    for (const std::size_t j : subset) {
      const int128 a = p.rows[i][j];
      if (__builtin_add_overflow(sum, a, &sum)) wraps += a > 0 ? 1 : -1;
    }
    if (wraps != 0 || sum != p.targets[i]) return false;
  }
  return true;
}

}  // namespace ssum

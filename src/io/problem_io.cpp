// Reading and writing instances: the text format and the JSON format (see problem.hpp).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "io/amounts.hpp"
#include "io/input_text.hpp"
#include "io/json_sax_reader.hpp"
#include "ssum/errors.hpp"
#include "ssum/problem.hpp"

namespace ssum {
namespace {

using io::is_blank;  // '\r' counts as a blank, which is all that Windows line endings need
using io::trim;

using io::amount;
using io::amount_fault;
using io::in_quotes;  // cut short, so that one garbage megabyte does not become the message
using io::instance_builder;
using io::limit_text;
using io::line_of;

constexpr const char* kinds = "text and JSON";  // the forms a NUL byte cannot be in

[[noreturn]] void throw_nul(std::string_view text, std::size_t index, const std::string& source = {}) {
  io::throw_nul(text, index, kinds, source);
}

// How numbers are read: integers only (the original entry points, whose callers do not look
// at problem::decimals) or decimal amounts (the read_options ones).
struct reading {
  bool decimals = false;
  bool target_given = false;  // the caller supplies the target: the input's is checked, not kept
};


// Only to choose the message: which kind of wrong a token is.
enum class token_kind { integer, decimal_fraction, other };

token_kind classify(std::string_view token) {
  if (!token.empty() && (token.front() == '+' || token.front() == '-')) token.remove_prefix(1);
  std::size_t digits = 0, dots = 0;
  for (const char c : token) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.') {
      ++dots;
    } else {
      return token_kind::other;
    }
  }
  if (digits == 0 || dots > 1) return token_kind::other;
  return dots == 1 ? token_kind::decimal_fraction : token_kind::integer;
}

// "1 2 target: 5" or "Target: 5": say where a target belongs instead of just "not an integer".
std::string target_hint(std::string_view token) {
  std::string lower(token.substr(0, 6));
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(c | 0x20); });
  return lower == "target" ? " (a target goes on a line of its own: 'target: T')" : "";
}

// `where` names the place: " (weights[3])" in JSON, " (column 7)" for amounts in text.
amount parse_weight(std::string_view token, std::size_t line, const std::string& where, bool decimals) {
  if (decimals) {
    amount a;
    const amount_fault fault = io::parse_amount(token, a);
    if (fault == amount_fault::none) return a;
    throw input_error("weight " + in_quotes(token) + where + io::fault_text(fault) +
                          (fault == amount_fault::not_a_number ? target_hint(token) : ""),
                      line);
  }
  switch (classify(token)) {
    case token_kind::integer:
      if (const auto value = parse_int128(token)) return {*value, 0};
      throw input_error("weight " + in_quotes(token) + where + " is out of 128-bit range", line);
    case token_kind::decimal_fraction:
      throw input_error("weight " + in_quotes(token) + where +
                            " is a decimal fraction; weights must be integers", line);
    case token_kind::other:
      break;
  }
  throw input_error("weight " + in_quotes(token) + where + " is not an integer" + target_hint(token), line);
}

amount parse_target(std::string_view token, std::size_t line, const std::string& where, bool decimals) {
  if (decimals) {
    amount a;
    const amount_fault fault = io::parse_amount(token, a);
    if (fault == amount_fault::none) return a;
    throw input_error("target " + in_quotes(token) + where + io::fault_text(fault), line);
  }
  if (const auto value = parse_int128(token)) return {*value, 0};
  switch (classify(token)) {
    case token_kind::integer:
      throw input_error("target " + in_quotes(token) + " is out of 128-bit range", line);
    case token_kind::decimal_fraction:
      throw input_error("target " + in_quotes(token) +
                            " is a decimal fraction; the target must be an integer", line);
    case token_kind::other:
      break;
  }
  throw input_error("target " + in_quotes(token) + " is not an integer", line);
}

// ---- the text format --------------------------------------------------------------------

// The text after `target` and blanks and ':' when the line is a target line.
std::optional<std::string_view> target_content(std::string_view content) {
  constexpr std::string_view keyword = "target";
  if (content.substr(0, keyword.size()) != keyword) return std::nullopt;
  std::string_view rest = content.substr(keyword.size());
  while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  return rest.substr(1);
}

// `r.target_given`: the caller supplies the target, so no weights and no target is the empty
// instance; likewise in json_reader.
problem parse_text(std::string_view text, const reading& r) {
  instance_builder b;
  std::size_t target_line = 0;
  // Commas separate numbers across the whole weight list, so "1,\n2" is one list; a comma
  // must have a number before it and one after it, possibly on a later line.
  enum class last_item { none, number, comma } last = last_item::none;
  std::size_t last_comma_line = 0;
  io::comma_rule commas;
  // Amounts' messages name the column, counted in bytes from the line's start.
  std::string_view raw;
  const auto where = [&](std::string_view token) {
    return r.decimals ? " (column " + std::to_string(token.data() - raw.data() + 1) + ")" : std::string();
  };

  std::size_t line_no = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    raw = line;
    start = end + 1;
    ++line_no;

    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (line.empty()) continue;

    if (const auto content = target_content(line)) {
      if (target_line != 0) {
        throw input_error("target given twice (first on line " + std::to_string(target_line) + ")",
                          line_no);
      }
      target_line = line_no;
      const std::string_view value = trim(*content);
      if (value.empty()) throw input_error("target line without a number", line_no);
      std::size_t token_end = 0;
      while (token_end < value.size() && !is_blank(value[token_end]) && value[token_end] != ',') {
        ++token_end;
      }
      if (token_end == 0) throw input_error("target line without a number", line_no);
      const std::string_view token = value.substr(0, token_end);
      const std::string_view extra = trim(value.substr(token_end));
      if (!extra.empty()) {
        // "target: 1,000.00" says more as one token than as "1" with extra content.
        if (r.decimals && extra.front() == ',') parse_target(value, line_no, where(value), true);
        throw input_error("target line with extra content " + in_quotes(extra), line_no);
      }
      // "target: none" says zero-sum outright, so that no weights at all is still an instance.
      if (token == "none") continue;
      const amount t = parse_target(token, line_no, where(token), r.decimals);
      if (r.decimals && token.find('.') != std::string_view::npos) commas.point(token, line_no, where(token));
      if (!r.target_given) b.set_target(t, token, line_no, where(token));
      continue;
    }

    for (std::size_t i = 0; i < line.size();) {
      const char c = line[i];
      if (is_blank(c)) {
        ++i;
      } else if (c == ',') {
        if (last == last_item::comma) throw input_error("empty field between commas", line_no);
        if (last == last_item::none) throw input_error("comma before the first weight", line_no);
        if (r.decimals) commas.comma(line_no, std::size_t(line.data() + i - raw.data() + 1));
        last = last_item::comma;
        last_comma_line = line_no;
        ++i;
      } else {
        std::size_t j = i;
        while (j < line.size() && !is_blank(line[j]) && line[j] != ',') ++j;
        const std::string_view token = line.substr(i, j - i);
        const amount a = parse_weight(token, line_no, where(token), r.decimals);
        if (!r.decimals) {
          b.add(a.value, line_no, "");
        } else {
          if (token.find('.') != std::string_view::npos) commas.point(token, line_no, where(token));
          b.add_amount(a, token, line_no, where(token));
        }
        last = last_item::number;
        i = j;
      }
    }
  }
  if (last == last_item::comma) throw input_error("comma after the last weight", last_comma_line);
  if (b.p.weights.empty() && target_line == 0 && !r.target_given) {
    throw input_error("empty input: no weights and no target", 0);
  }
  return std::move(b.p);
}

// ---- the JSON format --------------------------------------------------------------------

// Builds the problem from nlohmann's SAX events. The grammar is nlohmann's; this checks only
// the schema. SAX rather than a DOM because number_float() sees the number's text: "2.0",
// "1e5" and a 30-digit integer are told apart, and a bare big target is read exactly.
class json_reader final : public io::json_sax_reader {
 public:
  json_reader(std::string_view text, const reading& r) : json_sax_reader(text), reading_(r) {}

  problem read() {
    parse();
    // An object with a 'weights' key is an instance even when the list is empty (zero-sum
    // without a target: infeasible).
    if (!seen_weights_) throw input_error("JSON object has no 'weights' key", 0);
    return std::move(b_.p);
  }

  bool null() override { return value("'null'", [&] { /* null target: zero-sum */ }); }
  bool boolean(bool val) override { return value(val ? "'true'" : "'false'", nullptr); }

  bool number_integer(number_integer_t val) override {
    return number([&] { return std::to_string(val); }, [&] { store(int128(val), false); });
  }

  bool number_unsigned(number_unsigned_t val) override {
    // nlohmann reads every non-negative integer up to 2^64 - 1 as unsigned.
    return number([&] { return std::to_string(val); }, [&] { store(int128(val), false); });
  }

  bool number_float(number_float_t, const string_t& s) override { return raw_number(s); }

  bool string(string_t& val) override {
    // Decimal strings carry weights beyond 64 bits to parsers that read numbers as doubles.
    if (state_ == state::weights || (state_ == state::root && key_ == "target")) {
      store_text(val, true);
      return true;
    }
    return value("the string " + in_quotes(val), nullptr);
  }

  bool binary(binary_t&) override { return value("binary data", nullptr); }

  bool start_object(std::size_t) override {
    if (state_ == state::top) {
      state_ = state::root;
      return true;
    }
    return value("an object", nullptr);
  }

  bool key(string_t& val) override {
    // Keys occur only in the root object: nested objects are rejected when they start.
    bool* seen = val == "weights" ? &seen_weights_ : val == "target" ? &seen_target_ : nullptr;
    if (!seen) {
      throw input_error("unknown key " + in_quotes(val) +
                            " (expected 'weights' and optionally 'target')", current_line());
    }
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
    if (state_ == state::root && key_ == "weights") {
      state_ = state::weights;
      return true;
    }
    return value("an array", nullptr);
  }

  bool end_array() override {
    state_ = state::root;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    // 406: a number beyond double range. It is still a number to us; say what is wrong with it.
    if (ex.id == 406 && (state_ == state::weights || state_ == state::root)) {
      raw_number(last_token);
    }
    throw_malformed(position, ex);
  }

 private:
  enum class state { top, root, weights, done };

  // A number with its text: integers are exact even beyond 64 bits, anything else is an error.
  bool raw_number(const std::string& s) {
    return number([&] { return s; }, [&] { store_text(s, false); });
  }

  // A weight or the target from its text (a number's or a string's).
  void store_text(const std::string& s, bool quoted) {
    const std::string where = reading_.decimals ? place(quoted) : state_ == state::weights ? index_note() : "";
    if (state_ == state::weights) {
      const amount a = parse_weight(s, current_line(), where, reading_.decimals);
      if (a.decimals == 0 && b_.p.decimals == 0) {
        b_.add(a.value, current_line(), index_note());
      } else {
        b_.add_amount(a, s, current_line(), where);
      }
    } else {
      const amount t = parse_target(s, current_line(), where, reading_.decimals);
      if (!reading_.target_given) b_.set_target(t, s, current_line(), where);
    }
  }

  // An integer nlohmann read itself; its text is made only at a scale above 0, to scale it.
  void store(int128 v, bool quoted) {
    if (b_.p.decimals != 0) return store_text(to_string(v), quoted);
    if (state_ == state::weights) {
      b_.add(v, current_line(), index_note());
    } else if (!reading_.target_given) {
      b_.p.target = v;
    }
  }

  // " (weights[3], column 12)" or " (column 12)" for the target: the value's first character.
  std::string place(bool quoted) const {
    std::size_t i = last_read_ ? std::size_t(last_read_ - text_.data()) : 0;
    const auto in_number = [](char c) { return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'; };
    if (quoted) {  // the last character read is the closing quote
      while (i > 0 && !(text_[i - 1] == '"' && (i < 2 || text_[i - 2] != '\\'))) --i;
      if (i > 0) --i;
    } else {  // the last character read is the one after the number
      if (i < text_.size() && !in_number(text_[i])) --i;
      while (i > 0 && in_number(text_[i - 1])) --i;
    }
    const std::size_t line_start = text_.rfind('\n', i == 0 ? 0 : i - 1);
    const std::size_t column = line_start == std::string_view::npos || i == 0 ? i + 1 : i - line_start;
    const std::string at = "column " + std::to_string(column);
    if (state_ != state::weights) return " (" + at + ")";
    return " (weights[" + std::to_string(b_.p.weights.size()) + "], " + at + ")";
  }

  // A number where one is wanted stores it; anywhere else it is reported like any value.
  // The token's text is made only for that message: most inputs are millions of numbers.
  template <class Token, class Store>
  bool number(Token token, Store store) {
    if (state_ == state::weights || (state_ == state::root && key_ == "target")) {
      store();
      return true;
    }
    return value(in_quotes(token()), nullptr);
  }

  // A value that is not a number (or a number out of place). Only a null target is accepted.
  template <class Accept>
  bool value(const std::string& what, Accept accept) {
    if constexpr (!std::is_same_v<Accept, std::nullptr_t>) {
      if (state_ == state::root && key_ == "target") {
        accept();
        return true;
      }
    }
    const std::size_t line = current_line();
    switch (state_) {
      case state::weights:
        throw input_error("weight " + what + index_note() + " is not an integer", line);
      case state::root:
        if (key_ == "weights") {
          throw input_error("'weights' must be an array of integers, not " + what, line);
        }
        throw input_error(
            "'target' must be an integer, a string of decimal digits, or null, not " + what,
            line);
      case state::top:
      case state::done:
        break;
    }
    throw input_error("JSON input must be an object, not " + what, line);
  }

  std::string index_note() const { return " (weights[" + std::to_string(b_.p.weights.size()) + "])"; }

  reading reading_;
  instance_builder b_;
  state state_ = state::top;
  std::string key_;
  bool seen_weights_ = false;
  bool seen_target_ = false;
};

// The limits and the NUL check first, then the BOM, then JSON or text by the first character.
// With a column, the input is CSV.
problem parse_any(std::string_view text, const reading& r, const std::optional<std::string>& column = {}) {
  if (text.data() == nullptr) text = std::string_view("", 0);  // empty input kept nowhere: memchr needs a pointer
  if (text.size() > max_input_bytes) throw input_error(limit_text(), 0);
  if (const void* nul = std::memchr(text.data(), 0, text.size())) {
    throw_nul(text, static_cast<std::size_t>(static_cast<const char*>(nul) - text.data()));
  }
  // A UTF-8 byte order mark is what some Windows editors put first; it is not content.
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.substr(0, bom.size()) == bom) text.remove_prefix(bom.size());
  const std::size_t first = text.find_first_not_of(" \t\r\n\v\f");
  if (column) return io::parse_csv(text, *column, r.target_given);
  if (first != std::string_view::npos && text[first] == '{') return json_reader(text, r).read();
  return parse_text(text, r);
}

// read_options::target as an amount, checked before any input is read.
std::optional<amount> option_target(const read_options& options) {
  if (!options.target) return std::nullopt;
  amount a;
  if (const amount_fault fault = io::parse_amount(*options.target, a); fault != amount_fault::none) {
    throw input_error("target " + in_quotes(*options.target) + io::fault_text(fault), 0);
  }
  return a;
}

// Gives the instance the options' target, at the scale of both.
void apply_target(problem& p, const std::optional<amount>& target, const read_options& options) {
  if (!target) return;
  instance_builder b(std::move(p));
  b.set_target(*target, *options.target, 0, "");
  p = std::move(b.p);
}

// The file's text, parsed; errors read "PATH: line N: message".
problem read_parsed(const std::string& path, const reading& r, const std::optional<std::string>& column) {
  const std::string source = io::source_of(path);
  io::input_buffer text;
  io::read_input(path, source, kinds, text);
  try {
    return parse_any(text.view(), r, column);
  } catch (const input_error& e) {
    io::rethrow_with_source(e, source);
  }
}

}  // namespace

problem parse_problem(std::string_view text) { return parse_any(text, reading{}); }

problem parse_problem(std::string_view text, const read_options& options) {
  const std::optional<amount> target = option_target(options);
  problem p = parse_any(text, reading{true, target.has_value()}, options.column);
  apply_target(p, target, options);
  return p;
}

problem read_problem(const std::string& path) { return read_problem(path, std::nullopt); }

problem read_problem(const std::string& path, const std::optional<int128>& target) {
  problem p = read_parsed(path, reading{false, target.has_value()}, std::nullopt);
  if (target) p.target = *target;
  return p;
}

problem read_problem(const std::string& path, const read_options& options) {
  const std::optional<amount> target = option_target(options);
  problem p = read_parsed(path, reading{true, target.has_value()}, options.column);
  try {
    apply_target(p, target, options);
  } catch (const input_error& e) {
    throw input_error(e.what(), 0, path == "-" ? "<stdin>" : printable(path));
  }
  return p;
}

std::string format_problem(const problem& p, std::string_view comment) {
  std::string out;
  // Each comment line becomes "# line"; an empty one is "#" (no trailing blank).
  while (!comment.empty()) {
    std::size_t end = comment.find('\n');
    if (end == std::string_view::npos) end = comment.size();
    std::string_view line = comment.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    comment.remove_prefix(std::min(end + 1, comment.size()));
    out += line.empty() ? "#" : "# ";
    out += line;
    out += '\n';
  }
  if (p.target) out += "target: " + format_amount(*p.target, p.decimals) + "\n";
  else if (p.weights.empty()) out += "target: none\n";  // the empty zero-sum instance, not an empty file
  constexpr std::size_t per_line = 16;
  char buffer[24];  // INT64_MIN is 20 characters
  for (std::size_t i = 0; i < p.weights.size(); ++i) {
    const int128 w = p.weights[i];
    if (p.decimals != 0) {
      out += format_amount(w, p.decimals);
    } else if (w >= INT64_MIN && w <= INT64_MAX) {  // to_chars is the fast path for the usual widths
      const auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<std::int64_t>(w));
      out.append(buffer, result.ptr);
    } else {
      out += to_string(w);
    }
    const bool line_end = (i + 1) % per_line == 0 || i + 1 == p.weights.size();
    out += line_end ? '\n' : ' ';
  }
  return out;
}

}  // namespace ssum

// Reading and writing instances: the text format and the JSON format (see problem.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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
#include <system_error>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "io/amounts.hpp"
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

// How numbers are read: integers only (the original entry points, whose callers do not look
// at problem::decimals) or decimal amounts (the read_options ones).
struct reading {
  bool decimals = false;
  bool target_given = false;  // the caller supplies the target: the input's is checked, not kept
};

std::size_t line_of(std::string_view text, std::size_t index) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + index, '\n'));
}

[[noreturn]] void throw_nul(std::string_view text, std::size_t index, const std::string& source = {}) {
  throw input_error("NUL byte in the input (text and JSON instances hold no binary data)", line_of(text, index),
                    source);
}

static_assert(max_input_bytes % (std::size_t(1) << 30) == 0, "limit_text() says GiB");

std::string limit_text() {
  return "more than " + std::to_string(max_input_bytes >> 30) + " GiB of input (ssum::max_input_bytes)";
}

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

// Hands nlohmann one character at a time and remembers the last one it read, so that schema
// errors found in SAX events can name a line (nlohmann reports positions only for syntax).
struct tracking_iterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at;
  const char** last_read;

  reference operator*() const {
    *last_read = at;
    return *at;
  }
  tracking_iterator& operator++() {
    ++at;
    return *this;
  }
  tracking_iterator operator++(int) {
    tracking_iterator old = *this;
    ++at;
    return old;
  }
  bool operator==(const tracking_iterator& other) const { return at == other.at; }
};

// Builds the problem from nlohmann's SAX events. The grammar is nlohmann's; this checks only
// the schema. SAX rather than a DOM because number_float() sees the number's text: "2.0",
// "1e5" and a 30-digit integer are told apart, and a bare big target is read exactly.
class json_reader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  json_reader(std::string_view text, const reading& r) : text_(text), reading_(r) {}

  problem read() {
    const tracking_iterator first{text_.data(), &last_read_};
    const tracking_iterator last{text_.data() + text_.size(), &last_read_};
    if (!nlohmann::json::sax_parse(first, last, this)) {
      throw input_error("malformed JSON", current_line());  // not reached: every error throws
    }
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
    // At the end of input nlohmann's column belongs to a later line than the one we name.
    const bool at_end = position > text_.size();
    throw input_error("malformed JSON: " + syntax_message(ex.what(), !at_end), line_at(position));
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

  // Line of the last character nlohmann read; a number's look-ahead character is excluded,
  // which matters when it is the '\n' after the number.
  std::size_t current_line() const {
    const std::size_t index = last_read_ ? std::size_t(last_read_ - text_.data()) : 0;
    return 1 + std::size_t(std::count(text_.data(), text_.data() + index, '\n'));
  }

  // nlohmann's positions count characters read, so position - 1 indexes the last one. Past
  // the end ("unexpected end of input") the last non-blank character is the useful line.
  std::size_t line_at(std::size_t position) const {
    std::size_t index = position ? position - 1 : 0;
    if (position > text_.size()) {
      const std::size_t last = text_.find_last_not_of(" \t\r\n\v\f");
      index = last == std::string_view::npos ? 0 : last;
    }
    return 1 + std::size_t(std::count(text_.data(), text_.data() + index, '\n'));
  }

  // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." ->
  // "syntax error ... (column 5)"; the line goes into input_error itself.
  static std::string syntax_message(std::string what, bool with_column) {
    if (const std::size_t id_end = what.find("] "); what.rfind("[json.exception.", 0) == 0 &&
                                                      id_end != std::string::npos) {
      what.erase(0, id_end + 2);
    }
    const std::size_t column = what.find("column ");
    const std::size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
    if (what.rfind("parse error at line ", 0) == 0 && column != std::string::npos &&
        colon != std::string::npos) {
      std::string message = what.substr(colon + 2);
      if (with_column) message += " (" + what.substr(column, colon - column) + ")";
      return message;
    }
    return what;
  }

  std::string_view text_;
  const char* last_read_ = nullptr;
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

// Input bytes in one malloc'd block: realloc grows a large block by remapping its pages, with
// neither the copy nor the peak of old plus new block that a std::string's growth costs.
struct input_buffer {
  char* data = nullptr;
  std::size_t size = 0, capacity = 0;

  input_buffer() = default;
  input_buffer(const input_buffer&) = delete;
  input_buffer& operator=(const input_buffer&) = delete;
  ~input_buffer() { std::free(data); }

  void reserve(std::size_t bytes) {
    void* grown = std::realloc(data, bytes);
    if (!grown) throw std::bad_alloc();
    data = static_cast<char*>(grown);
    capacity = bytes;
  }
  std::string_view view() const { return {data, size}; }
};

// All that `fd` holds, by large read() calls: one path for files, pipes and terminals (a
// stream iterator on std::cin was 9 times slower). Stops as soon as a NUL byte or more than
// max_input_bytes arrive, so that /dev/zero or `yes` cannot grow memory without limit.
// `what` names the input in a read error ("standard input", "'PATH'"); `source` prefixes
// the other errors, as the parse errors' do.
void read_all(int fd, input_buffer& in, const std::string& what, const std::string& source) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    // The whole file and one byte more, so that the read that sees its end needs no growth.
    in.reserve(std::min<std::size_t>(static_cast<std::size_t>(st.st_size), max_input_bytes) + 1);
  }
  constexpr std::size_t first_block = std::size_t(1) << 20;
  for (;;) {
    if (in.size == in.capacity) {  // grow by doubling: a pipe delivers 64 KiB at a time
      in.reserve(std::min(std::max(2 * in.size, first_block), max_input_bytes + 1));
    }
    const ::ssize_t got = ::read(fd, in.data + in.size, in.capacity - in.size);
    if (got < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      throw input_error("cannot read " + what + ": " + std::generic_category().message(err), 0);
    }
    if (got == 0) return;
    if (const void* nul = std::memchr(in.data + in.size, 0, static_cast<std::size_t>(got))) {
      in.size += static_cast<std::size_t>(got);
      throw_nul(in.view(), static_cast<std::size_t>(static_cast<const char*>(nul) - in.data), source);
    }
    in.size += static_cast<std::size_t>(got);
    if (in.size > max_input_bytes) throw input_error(limit_text(), 0, source);
  }
}

// The file's text, parsed; errors read "PATH: line N: message".
problem read_parsed(const std::string& path, const reading& r, const std::optional<std::string>& column) {
  const bool from_stdin = path == "-";
  const std::string source = from_stdin ? "<stdin>" : printable(path);
  input_buffer text;
  if (from_stdin) {
    read_all(STDIN_FILENO, text, "standard input", source);  // a closed one: EBADF, not "empty"
  } else {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      throw input_error("cannot open '" + source + "': " + std::generic_category().message(err), 0);
    }
    const struct closer { int fd; ~closer() { ::close(fd); } } close_at_end{fd};
    read_all(fd, text, "'" + source + "'", source);  // e.g. EISDIR: open succeeds on a directory
  }
  try {
    return parse_any(text.view(), r, column);
  } catch (const input_error& e) {
    // Rebuild as "PATH: line N: message": strip the "line N: " that input_error prepended.
    std::string message = e.what();
    const std::string prefix = "line " + std::to_string(e.line()) + ": ";
    if (e.line() != 0 && message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
    throw input_error(message, e.line(), source);
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

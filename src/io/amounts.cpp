// Decimal amounts: parsing, the instance's one scale, and the CSV column reader.
#include "io/amounts.hpp"

#include <algorithm>
#include <utility>

#include "ssum/errors.hpp"

namespace ssum::io {
namespace {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

std::size_t count_digits(std::string_view s, std::size_t from) {
  std::size_t i = from;
  while (i < s.size() && is_digit(s[i])) ++i;
  return i - from;
}

// Only to choose the message for a token that is not an amount.
amount_fault diagnose(std::string_view s) {
  std::string lower(s.substr(0, 9));
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(c | 0x20); });
  if (s.size() <= 8 && (lower == "nan" || lower == "inf" || lower == "infinity")) return amount_fault::not_finite;
  // digits [. digits] e|E [sign] digits
  std::size_t i = count_digits(s, 0), mantissa = i;
  if (i < s.size() && s[i] == '.') {
    mantissa += count_digits(s, i + 1);
    i += 1 + count_digits(s, i + 1);
  }
  if (mantissa > 0 && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    const std::size_t exponent = count_digits(s, j);
    if (exponent > 0 && j + exponent == s.size()) return amount_fault::exponent;
  }
  // 1,000 or 12,345.67: groups of three digits after the first comma.
  const std::size_t head = count_digits(s, 0);
  if (head >= 1 && head <= 3 && head < s.size() && s[head] == ',') {
    std::size_t k = head;
    while (k < s.size() && s[k] == ',' && count_digits(s, k + 1) == 3) k += 4;
    if (k > head && (k == s.size() || (s[k] == '.' && k + 1 + count_digits(s, k + 1) == s.size()))) {
      return amount_fault::thousands;
    }
  }
  return amount_fault::not_a_number;
}

}  // namespace

amount_fault parse_amount(std::string_view text, amount& out) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  const std::size_t whole = count_digits(s, 0);
  std::size_t fraction = 0, end = whole;
  const bool point = end < s.size() && s[end] == '.';
  if (point) {
    fraction = count_digits(s, end + 1);
    end += 1 + fraction;
  }
  if (end != s.size() || whole + fraction == 0) return diagnose(s);
  if (fraction > max_decimals) return amount_fault::too_many_decimals;
  // Integers keep the int128 range (-2^127 too); a decimal's scaled value must fit 127 bits.
  const uint128 limit = (uint128(1) << 127) - ((negative && fraction == 0) ? 0 : 1);
  uint128 value = 0;
  for (const char c : s) {
    if (c == '.') continue;
    const unsigned d = unsigned(c - '0');
    if (value > (limit - d) / 10) return amount_fault::out_of_range;
    value = value * 10 + d;
  }
  out.value = negative ? int128(uint128(0) - value) : int128(value);
  out.decimals = unsigned(fraction);
  return amount_fault::none;
}

std::string fault_text(amount_fault fault) {
  switch (fault) {
    case amount_fault::none:
      return "";
    case amount_fault::exponent:
      return " has an exponent; write the amount in full (1e3 as 1000)";
    case amount_fault::not_finite:
      return " is not a finite number";
    case amount_fault::thousands:
      return " has a thousands separator; write amounts without one (1,000.00 as 1000.00)";
    case amount_fault::too_many_decimals:
      return " has more than " + std::to_string(max_decimals) + " decimals";
    case amount_fault::out_of_range:
      return " is out of 128-bit range";
    case amount_fault::not_a_number:
      break;
  }
  return " is not a number";
}

uint128 pow10(unsigned k) {
  uint128 p = 1;
  while (k--) p *= 10;
  return p;
}

std::optional<int128> scale_up(int128 v, unsigned k) {
  if (k == 0) return v;
  const uint128 factor = pow10(k);
  if (magnitude(v) > max_weight_total / factor) return std::nullopt;
  return v * int128(factor);
}

std::string in_quotes(std::string_view token) {
  constexpr std::size_t max_shown = 40;
  std::string out(1, '\'');
  out += printable(token.substr(0, max_shown));
  out += token.size() > max_shown ? "...'" : "'";
  return out;
}

instance_builder::instance_builder(problem from) : p(std::move(from)) {
  for (const int128 w : p.weights) total_ += magnitude(w);
}

void instance_builder::add(int128 w, std::size_t line, const std::string& where) {
  const uint128 m = magnitude(w);  // -2^127 too
  if (m > max_weight_total) {
    throw input_error("weight " + in_quotes(to_string(w)) + where + " is out of range: |weight| must stay below 2^127",
                      line);
  }
  if (m > max_weight_total - total_) {
    throw input_error("weight " + in_quotes(to_string(w)) + where + " takes the sum of |weight| to 2^127 or more; " +
                          "ssum takes totals up to 2^127 - 1",
                      line);
  }
  if (p.weights.size() == max_items) {
    throw input_error("more than " + std::to_string(max_items) + " weights (ssum::max_items)", line);
  }
  total_ += m;
  p.weights.push_back(w);
}

void instance_builder::raise_scale(unsigned d, std::string_view token, std::size_t line, const std::string& where) {
  if (d <= p.decimals) return;
  const unsigned k = d - p.decimals;
  const uint128 factor = pow10(k);
  const std::string scale = "amount " + in_quotes(token) + where + " has " + std::to_string(d) +
                            " decimals: scaled by 10^" + std::to_string(d) + ", ";
  if (total_ > max_weight_total / factor) {
    throw input_error(scale + "the sum of |weight| reaches 2^127 or more; ssum takes totals up to 2^127 - 1", line);
  }
  if (p.target) {
    const auto t = scale_up(*p.target, k);
    if (!t) throw input_error(scale + "the target needs more than 127 bits", line);
    p.target = *t;
  }
  for (int128& w : p.weights) w *= int128(factor);
  total_ *= factor;
  p.decimals = d;
}

int128 instance_builder::at_scale(const amount& a, const char* what, std::string_view token, std::size_t line,
                                  const std::string& where) {
  raise_scale(a.decimals, token, line, where);
  const auto v = scale_up(a.value, p.decimals - a.decimals);
  if (!v) {
    throw input_error(what + in_quotes(token) + where + " scaled by 10^" + std::to_string(p.decimals) +
                          " needs more than 127 bits",
                      line);
  }
  return *v;
}

void instance_builder::add_amount(const amount& a, std::string_view token, std::size_t line,
                                  const std::string& where) {
  add(at_scale(a, "weight ", token, line, where), line, where);
}

void instance_builder::set_target(const amount& a, std::string_view token, std::size_t line,
                                  const std::string& where) {
  p.target = at_scale(a, "target ", token, line, where);
}

namespace {
constexpr const char* comma_advice =
    ": with decimal amounts separate weights by blanks or newlines, as a comma could be a "
    "thousands separator (1,000.00)";
}  // namespace

void comma_rule::comma(std::size_t line, std::size_t column) {
  if (point_line == 0) {
    if (comma_line == 0) comma_line = line;
    return;
  }
  throw input_error("comma (column " + std::to_string(column) + ") in input with decimal amounts (line " +
                        std::to_string(point_line) + ")" + comma_advice,
                    line);
}

void comma_rule::point(std::string_view token, std::size_t line, const std::string& where) {
  if (comma_line == 0) {
    if (point_line == 0) point_line = line;
    return;
  }
  throw input_error("decimal amount " + in_quotes(token) + where + " in input with commas between weights (line " +
                        std::to_string(comma_line) + ")" + comma_advice,
                    line);
}

bool next_csv_record(std::string_view text, std::size_t& pos, std::size_t& line, std::vector<csv_field>& fields) {
  fields.clear();
  if (pos >= text.size()) return false;
  for (;;) {
    csv_field field;
    field.line = line;
    std::size_t start = pos;
    while (start < text.size() && is_blank(text[start]) && text[start] != '\r') ++start;
    if (start < text.size() && text[start] == '"') {
      field.quoted = true;
      pos = start + 1;
      for (;;) {
        if (pos >= text.size()) throw input_error("CSV field without its closing quote", field.line);
        const char c = text[pos++];
        if (c == '"') {
          if (pos < text.size() && text[pos] == '"') {
            field.text += '"';
            ++pos;
          } else {
            break;
          }
        } else {
          if (c == '\n') ++line;
          field.text += c;
        }
      }
      while (pos < text.size() && is_blank(text[pos])) ++pos;
      if (pos < text.size() && text[pos] != ',' && text[pos] != '\n') {
        throw input_error("text after the closing quote of a CSV field (column " + std::to_string(fields.size() + 1) +
                              ")",
                          line);
      }
    } else {
      std::size_t end = pos;
      while (end < text.size() && text[end] != ',' && text[end] != '\n') ++end;
      field.text = std::string(trim(text.substr(pos, end - pos)));
      pos = end;
    }
    fields.push_back(std::move(field));
    if (pos >= text.size()) return true;
    if (text[pos++] == ',') continue;
    ++line;  // the '\n' that ends the record
    return true;
  }
}

namespace {
std::string fields_text(std::size_t count) { return std::to_string(count) + (count == 1 ? " field" : " fields"); }

std::string field_count_text(std::size_t found, std::size_t expected, std::size_t expected_line, bool header) {
  return "the record has " + fields_text(found) + ", the " + (header ? "header" : "first record") + " (line " +
         std::to_string(expected_line) + ") " + fields_text(expected) +
         ": a comma in an unquoted field splits it (1,234.56 is two fields); quote such fields or drop the separator";
}
}  // namespace

problem parse_csv(std::string_view text, const std::string& column, bool target_given) {
  const bool by_number = !column.empty() && std::all_of(column.begin(), column.end(), is_digit);
  std::size_t index = 0;  // 1-based
  if (by_number) {
    for (const char c : column) {
      index = index * 10 + std::size_t(c - '0');
      if (index > max_items) break;  // no record has that many fields worth reading
    }
    if (index == 0) throw input_error("CSV column number 0: columns count from 1", 0);
  } else if (trim(column).empty()) {
    throw input_error("empty CSV column name", 0);
  }
  instance_builder b;
  std::vector<csv_field> fields;
  std::size_t pos = 0, line = 1;
  std::string where = " (column " + (by_number ? column : in_quotes(column)) + ")";
  bool first = true;
  // Every record has as many fields as the first (the header, or the first amounts): an
  // unquoted 1,234.56 is two fields, and reading its "1" would answer another question.
  std::size_t fields_expected = 0, fields_line = 0;
  bool header = false;
  while (next_csv_record(text, pos, line, fields)) {
    if (fields.size() == 1 && !fields[0].quoted && fields[0].text.empty()) continue;  // an empty line
    if (fields_line == 0) {
      fields_expected = fields.size();
      fields_line = fields[0].line;
    } else if (fields.size() != fields_expected) {
      throw input_error(field_count_text(fields.size(), fields_expected, fields_line, header), fields[0].line);
    }
    if (std::exchange(first, false)) {
      header = true;  // unless the record turns out to hold an amount
      if (!by_number) {
        std::size_t matches = 0;
        for (std::size_t i = 0; i < fields.size(); ++i) {
          if (trim(fields[i].text) == trim(column)) index = i + 1, ++matches;
        }
        if (matches == 0) {
          std::string names;
          for (const csv_field& f : fields) names += (names.empty() ? "" : ", ") + in_quotes(f.text);
          throw input_error("no column named " + in_quotes(column) + " in the header (it has " + names + ")",
                            fields[0].line);
        }
        if (matches > 1) throw input_error("column name " + in_quotes(column) + " appears twice in the header", fields[0].line);
        where = " (column " + std::to_string(index) + " " + in_quotes(column) + ")";
        continue;
      }
      amount a;
      if (index <= fields.size() && parse_amount(trim(fields[index - 1].text), a) != amount_fault::none) {
        where = " (column " + column + " " + in_quotes(fields[index - 1].text) + ")";
        continue;  // a header
      }
      header = false;
    }
    if (fields.size() < index) {
      throw input_error("missing field" + where + ": the line has " + std::to_string(fields.size()) +
                            (fields.size() == 1 ? " field" : " fields"),
                        fields[0].line);
    }
    const csv_field& cell = fields[index - 1];
    const std::string_view token = trim(cell.text);
    if (token.empty()) throw input_error("empty amount" + where, cell.line);
    amount a;
    if (const amount_fault fault = parse_amount(token, a); fault != amount_fault::none) {
      throw input_error("amount " + in_quotes(token) + where + fault_text(fault), cell.line);
    }
    b.add_amount(a, token, cell.line, where);
  }
  if (b.p.weights.empty() && !target_given) throw input_error("empty input: no amounts in CSV column " + column, 0);
  return std::move(b.p);
}

}  // namespace ssum::io

namespace ssum {

int128 parse_amount_at(std::string_view text, unsigned decimals, const std::string& what) {
  io::amount a;
  const io::amount_fault fault = io::parse_amount(text, a);
  if (fault != io::amount_fault::none) throw input_error(what + ": " + io::in_quotes(text) + io::fault_text(fault), 0);
  if (a.decimals > decimals) {
    throw input_error(what + ": " + io::in_quotes(text) + " has " + std::to_string(a.decimals) +
                          " decimals, more than the amounts' " + std::to_string(decimals), 0);
  }
  const std::optional<int128> v = io::scale_up(a.value, decimals - a.decimals);
  if (!v) throw input_error(what + ": " + io::in_quotes(text) + " passes 127 bits at the amounts' scale", 0);
  return *v;
}

problem raised_to(problem p, std::string_view amount, const std::string& what) {
  io::amount a;
  if (io::parse_amount(amount, a) != io::amount_fault::none || a.decimals <= p.decimals) return p;
  io::instance_builder b(std::move(p));
  b.raise_scale(a.decimals, amount, 0, " (" + what + ")");
  return std::move(b.p);
}

std::string format_amount(int128 value, unsigned decimals) {
  uint128 m = magnitude(value);  // -2^127 too
  std::string digits;
  do {
    digits += char('0' + unsigned(m % 10));
    m /= 10;
  } while (m != 0);
  while (digits.size() <= decimals) digits += '0';  // at least one digit before the point
  std::string out = value < 0 ? "-" : "";
  for (std::size_t i = digits.size(); i-- > 0;) {
    out += digits[i];
    if (i == decimals && decimals != 0) out += '.';
  }
  return out;
}

}  // namespace ssum

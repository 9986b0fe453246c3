#pragma once
// Internal, shared by the JSON readers of one row (problem_io.cpp) and of several rows
// (rows_io.cpp): nlohmann checks the grammar, a subclass the schema from SAX events. SAX rather
// than a DOM because number_float() sees the number's text, so integers beyond 64 bits are
// read exactly and "2.0" or "1e5" are refused by name. This base keeps the text, the line of
// the last character nlohmann read, and the syntax errors' one-line messages.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/input_text.hpp"
#include "ssum/errors.hpp"

namespace ssum::io {

class json_sax_reader : public nlohmann::json_sax<nlohmann::json> {
 protected:
  explicit json_sax_reader(std::string_view text) : text_(text) {}

  // Runs nlohmann's parser with this object as the handler; every error throws input_error.
  void parse() {
    const tracking_iterator first{text_.data(), &last_read_};
    const tracking_iterator last{text_.data() + text_.size(), &last_read_};
    if (!nlohmann::json::sax_parse(first, last, this)) {
      throw input_error("malformed JSON", current_line());  // not reached: parse_error throws
    }
  }

  // Line of the last character nlohmann read.
  std::size_t current_line() const { return line_of(text_, last_read_ ? std::size_t(last_read_ - text_.data()) : 0); }

  // For parse_error: "malformed JSON: syntax error ... (column C)" on the line of `position`.
  [[noreturn]] void throw_malformed(std::size_t position, const nlohmann::detail::exception& ex) const {
    // At the end of input nlohmann's column belongs to a later line than the one named.
    const bool at_end = position > text_.size();
    throw input_error("malformed JSON: " + syntax_message(ex.what(), !at_end), line_at(position));
  }

  std::string_view text_;
  const char* last_read_ = nullptr;

 private:
  // nlohmann's positions count characters read, so position - 1 indexes the last one. Past
  // the end ("unexpected end of input") the last non-blank character is the useful line.
  std::size_t line_at(std::size_t position) const {
    std::size_t index = position ? position - 1 : 0;
    if (position > text_.size()) {
      const std::size_t last = text_.find_last_not_of(" \t\r\n\v\f");
      index = last == std::string_view::npos ? 0 : last;
    }
    return line_of(text_, index);
  }

  // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." ->
  // "syntax error ... (column 5)"; the line goes into input_error itself.
  static std::string syntax_message(std::string what, bool with_column) {
    if (const std::size_t id_end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && id_end != std::string::npos) {
      what.erase(0, id_end + 2);
    }
    const std::size_t column = what.find("column ");
    const std::size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
    if (what.rfind("parse error at line ", 0) == 0 && column != std::string::npos && colon != std::string::npos) {
      std::string message = what.substr(colon + 2);
      if (with_column) message += " (" + what.substr(column, colon - column) + ")";
      return message;
    }
    return what;
  }
};

}  // namespace ssum::io

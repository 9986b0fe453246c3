// Reading several rows as their bytes arrive, and telling several rows from one by an input's
// first bytes (see ssum/rows.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "io/dat_reader.hpp"
#include "io/input_text.hpp"
#include "ssum/errors.hpp"
#include "ssum/problem.hpp"
#include "ssum/rows.hpp"

namespace ssum {
namespace {

constexpr const char* rows_kinds = ".dat and JSON";    // the forms a NUL byte cannot be in
constexpr const char* any_kinds = "text, JSON and .dat";

// Takes an input's blocks: holds them until `decide` tells the form, then feeds a .dat to its
// reader as it arrives (holding one line) and keeps any other form whole for its parser.
// Parse errors read "SOURCE: line N: message"; read_blocks names the source itself.
template <class Parse>
auto parsed(const std::string& source, Parse parse) {
  try {
    return parse();
  } catch (const input_error& e) {
    io::rethrow_with_source(e, source);
  }
}

template <class Decide>
struct form_reader {
  form_reader(Decide d, std::string s) : decide(std::move(d)), source(std::move(s)) {}

  Decide decide;
  std::string source;
  io::input_form form = io::input_form::undecided;
  io::input_buffer kept;
  io::dat_reader dat;

  void operator()(std::string_view block) {
    if (form == io::input_form::dat) return parsed(source, [&] { dat.feed(block); });
    kept.append(block);
    if (form != io::input_form::undecided) return;
    form = decide(kept.view(), false);
    if (form == io::input_form::dat) {
      parsed(source, [&] { dat.feed(kept.view()); });
      kept.size = 0;
    }
  }

  void finish() {
    if (form == io::input_form::undecided) form = decide(kept.view(), true);
    if (form == io::input_form::dat && kept.size != 0) parsed(source, [&] { dat.feed(kept.view()); });
  }
};

template <class Decide>
void read_form(const std::string& path, const char* kinds, form_reader<Decide>& reader) {
  io::read_blocks(path, reader.source, kinds, reader);
  reader.finish();
}

}  // namespace

rows_problem read_rows(const std::string& path) {
  const std::string source = io::source_of(path);
  // JSON or .dat by the first character that is not a blank or a byte order mark.
  const auto decide = [](std::string_view head, bool whole) {
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (head.size() < bom.size() && !whole && bom.substr(0, head.size()) == head) return io::input_form::undecided;
    if (head.substr(0, bom.size()) == bom) head.remove_prefix(bom.size());
    const std::size_t first = head.find_first_not_of(" \t\r\n\v\f");
    if (first == std::string_view::npos) return whole ? io::input_form::dat : io::input_form::undecided;
    return head[first] == '{' || head[first] == '[' ? io::input_form::json_rows : io::input_form::dat;
  };
  form_reader r(decide, source);
  read_form(path, rows_kinds, r);
  if (r.form == io::input_form::dat) return parsed(source, [&] { return r.dat.finish(); });
  return parsed(source, [&] { return parse_rows(r.kept.view()); });
}

any_instance read_instance(const std::string& path, const read_options& options) {
  if (options.column) return {std::nullopt, read_problem(path, options)};
  const std::string source = io::source_of(path);
  any_instance out;
  form_reader r(&io::sniff_form, source);
  read_form(path, any_kinds, r);
  parsed(source, [&] {
    if (r.form == io::input_form::dat) {
      out.rows = r.dat.finish();
    } else if (r.form == io::input_form::json_rows) {
      out.rows = parse_rows(r.kept.view());
    } else {
      out.one = parse_problem(r.kept.view(), options);
    }
  });
  return out;
}

std::optional<bool> holds_rows(std::string_view head, bool whole) {
  const io::input_form form = io::sniff_form(head, whole);
  if (form == io::input_form::undecided) return std::nullopt;
  return form == io::input_form::dat || form == io::input_form::json_rows;
}

}  // namespace ssum

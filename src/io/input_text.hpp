#pragma once
// Internal, shared by the instance readers (problem_io.cpp, rows_io.cpp): a file's or standard
// input's bytes read whole, within max_input_bytes and without NUL bytes; line numbers; the
// character iterator that lets JSON schema errors name a line; errors rebuilt as
// "PATH: line N: message".
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>

#include "ssum/errors.hpp"

namespace ssum::io {

/// 1-based line of byte `index` of `text`.
std::size_t line_of(std::string_view text, std::size_t index);

/// "more than 1 GiB of input (ssum::max_input_bytes)".
std::string limit_text();

/// Throws input_error naming the line of the NUL byte at `index`; `kinds` says which forms
/// hold no binary data ("text and JSON").
[[noreturn]] void throw_nul(std::string_view text, std::size_t index, const char* kinds, const std::string& source = {});

/// Input bytes in one malloc'd block: realloc grows a large block by remapping its pages, with
/// neither the copy nor the peak of old plus new block that a std::string's growth costs.
struct input_buffer {
  char* data = nullptr;
  std::size_t size = 0, capacity = 0;

  input_buffer() = default;
  input_buffer(const input_buffer&) = delete;
  input_buffer& operator=(const input_buffer&) = delete;
  ~input_buffer();

  void reserve(std::size_t bytes);
  /// Appends `bytes`, doubling the block as needed.
  void append(std::string_view bytes);
  /// Never a null pointer, also when nothing was kept: readers pass it to memchr and memcmp.
  std::string_view view() const { return {data ? data : "", size}; }
};

/// read_input's bytes handed to `take` in blocks of at most 1 MiB as they arrive, with its
/// checks (a NUL byte, more than max_input_bytes), so that a reader may refuse the input before
/// it has all arrived and need not hold it.
template <class Take>
void read_blocks(const std::string& path, const std::string& source, const char* kinds, Take&& take);

/// All of `path` ("-": standard input) into `in`, by large read() calls. Stops as soon as a
/// NUL byte or more than max_input_bytes arrive, so that /dev/zero or `yes` cannot grow memory
/// without limit. Errors name `source` (the printable path, or "<stdin>"); `kinds` as for
/// throw_nul.
void read_input(const std::string& path, const std::string& source, const char* kinds, input_buffer& in);

/// read_blocks without the template: `take(context, block)`.
void read_blocks_erased(const std::string& path, const std::string& source, const char* kinds,
                        void (*take)(void*, std::string_view), void* context);

template <class Take>
void read_blocks(const std::string& path, const std::string& source, const char* kinds, Take&& take) {
  using taker = std::remove_reference_t<Take>;
  read_blocks_erased(path, source, kinds,
                     [](void* context, std::string_view block) { (*static_cast<taker*>(context))(block); }, &take);
}

/// The printable name errors give an input: "<stdin>" for "-".
std::string source_of(const std::string& path);

/// `e` rebuilt as "SOURCE: line N: message" (the "line N: " input_error prepended moved after
/// the source).
[[noreturn]] void rethrow_with_source(const input_error& e, const std::string& source);

/// Hands nlohmann one character at a time and remembers the last one read, so that schema
/// errors found in SAX events can name a line (nlohmann reports positions only for syntax).
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

}  // namespace ssum::io

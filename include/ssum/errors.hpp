#pragma once
// The exceptions ssum throws at its host boundary. Bad arguments and bad input are
// std::invalid_argument; resource problems are std::runtime_error.
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ssum {

/// Malformed instance text or JSON. line() is 1-based, 0 when no line applies. what() reads
/// "SOURCE: line N: message"; each prefix is present only when given (source non-empty, N > 0).
class input_error : public std::invalid_argument {
 public:
  input_error(const std::string& what, std::size_t line, const std::string& source = {})
      : std::invalid_argument(compose(what, line, source)), line_(line) {}
  std::size_t line() const noexcept { return line_; }

 private:
  static std::string compose(const std::string& what, std::size_t line,
                             const std::string& source) {
    std::string text = source.empty() ? std::string() : source + ": ";
    if (line) text += "line " + std::to_string(line) + ": ";
    return text + what;
  }

  std::size_t line_;
};

/// `text` with every byte outside printable ASCII written as \xNN, as ssum's messages echo
/// user input: a NUL, a newline or an escape sequence cannot cut, split or colour the line.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += {'\\', 'x', hex[byte >> 4], hex[byte & 15]};
    }
  }
  return out;
}

/// A byte count for people: "512 bytes", "1.50 KiB", "7.25 MiB", "20.0 GiB", ... (three
/// significant digits from KiB on), "more than 2^64 bytes" at 2^64 and beyond (plans for
/// large n are doubles that no integer holds).
inline std::string format_bytes(double bytes) {
  if (!(bytes >= 0)) bytes = 0;  // NaN and negatives: nothing
  if (bytes >= 18446744073709551616.0) return "more than 2^64 bytes";
  if (bytes < 1024) {
    const long long whole = static_cast<long long>(bytes);
    return std::to_string(whole) + (whole == 1 ? " byte" : " bytes");
  }
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  double v = bytes / 1024;
  // 1023.9 KiB would print as "1024 KiB": such a value takes the next unit.
  while (v >= 1023.5 && u < 5) v /= 1024, ++u;
  const int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
  char text[48];
  std::snprintf(text, sizeof text, "%.*f %s", decimals, v, units[u]);
  return text;
}

/// The algorithm would need more memory than is available; thrown before allocating (or,
/// when an allocation fails anyway, in its place). what() names both byte counts.
class insufficient_memory : public std::runtime_error {
 public:
  insufficient_memory(const std::string& what, double bytes_needed, double bytes_available)
      : std::runtime_error(what), needed_(bytes_needed), available_(bytes_available) {}
  /// The one wording of every such message: "WHAT needs N; M are available".
  static insufficient_memory needs(const std::string& what, double bytes_needed, double bytes_available) {
    const std::string have = format_bytes(bytes_available);
    return insufficient_memory(what + " needs " + format_bytes(bytes_needed) + "; " + have +
                                   (have == "1 byte" ? " is" : " are") + " available",
                               bytes_needed, bytes_available);
  }
  /// An allocation failed although the plan fitted (a heavy class, memory taken meanwhile):
  /// "WHAT ran out of memory beyond its plan of N; M were available".
  static insufficient_memory ran_out(const std::string& what, double bytes_planned, double bytes_available) {
    return insufficient_memory(what + " ran out of memory beyond its plan of " + format_bytes(bytes_planned) + "; " +
                                   format_bytes(bytes_available) + " were available",
                               bytes_planned, bytes_available);
  }
  double bytes_needed() const noexcept { return needed_; }
  double bytes_available() const noexcept { return available_; }

 private:
  double needed_, available_;  // double: a plan for large n can exceed 2^64 bytes
};

/// The caller's cancellation flag was raised; the solve stopped without an answer.
class interrupted : public std::runtime_error {
 public:
  interrupted() : std::runtime_error("interrupted") {}
};

/// The instance is past what an algorithm takes (its items, the width of its sums or of its
/// window), as opposed to a bad argument: another algorithm, or the lattice stage, may still
/// take it. A std::invalid_argument, read (and exiting, 2) as one.
class instance_refused : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The requested backend cannot run here (not built, no device).
class backend_unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Nothing here can answer the instance in any reasonable time: the exact algorithms would
/// take about the seconds the message names, and the instance expects fewer than one
/// solution, so no search can hope to find one. Automatic only, without a time limit: a
/// time limit (solve_options::time_limit) or a named algorithm runs the exact one anyway.
class out_of_reach : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA runtime call or kernel launch failed; code() is the cudaError_t value.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace ssum

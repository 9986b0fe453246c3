#pragma once
// The exceptions ssum throws at its host boundary. Bad arguments and bad input are
// std::invalid_argument; resource problems are std::runtime_error.
#include <cstddef>
#include <stdexcept>
#include <string>

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

/// The algorithm would need more memory than is available; thrown before allocating.
class insufficient_memory : public std::runtime_error {
 public:
  insufficient_memory(const std::string& what, double bytes_needed, double bytes_available)
      : std::runtime_error(what), needed_(bytes_needed), available_(bytes_available) {}
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

/// The requested backend cannot run here (not built, no device).
class backend_unavailable : public std::runtime_error {
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

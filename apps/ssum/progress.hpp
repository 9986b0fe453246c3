#pragma once
// Stage progress on stderr for long solves: a self-overwriting line on a terminal, plain
// lines (at most one a second) when stderr is a file or pipe.
#include <chrono>
#include <string>

#include "ssum/solve.hpp"

namespace ssum::cli {

class progress_printer {
 public:
  explicit progress_printer(bool enabled);
  ~progress_printer();
  void operator()(const progress& p);
  void finish();

 private:
  bool enabled_, tty_, dirty_ = false;
  std::string stage_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace ssum::cli

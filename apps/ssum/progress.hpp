#pragma once
// Stage progress on stderr for long solves: a self-overwriting line on a terminal, plain
// lines (at most one a second) when stderr is a file or pipe. Each line has the time so far
// and, once a stage is 1% done, an estimate of the time left in it (linear in its fraction).
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
  std::chrono::steady_clock::time_point start_, last_, stage_start_;
};

}  // namespace ssum::cli

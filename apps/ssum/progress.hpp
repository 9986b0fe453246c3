#pragma once
// Progress on stderr for long solves: one overall percentage of the solve's work (the
// solver's ssum::progress::overall, never shown going back), the time so far, the time left
// (linear in that fraction) and the stage beside it. On a terminal a self-overwriting line,
// redrawn five times a second by a ticker thread even while the solver is silent inside a
// long step; when stderr is a file or pipe, plain lines: one when a stage begins and at most
// one a second besides.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "ssum/solve.hpp"

namespace ssum::cli {

class progress_printer {
 public:
  explicit progress_printer(bool enabled);
  ~progress_printer();
  progress_printer(const progress_printer&) = delete;
  progress_printer& operator=(const progress_printer&) = delete;
  /// The solver's callback: stores the state (and prints a non-terminal's stage line).
  void operator()(const progress& p);
  /// Stops the ticker and clears the terminal's line; idempotent.
  void finish();

 private:
  using clock = std::chrono::steady_clock;
  void draw(clock::time_point now);  // with lock_ held
  void tick();

  bool enabled_, tty_;
  bool dirty_ = false, have_ = false, stopping_ = false;
  std::string stage_;
  double overall_ = 0;
  clock::time_point start_, last_line_;
  std::mutex lock_;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace ssum::cli

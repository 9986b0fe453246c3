#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace ssum::cli {

progress_printer::progress_printer(bool enabled)
    : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()), last_(start_), stage_start_(start_) {}

progress_printer::~progress_printer() { finish(); }

void progress_printer::operator()(const progress& p) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool new_stage = p.stage != stage_;
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (!new_stage && since_last < (tty_ ? 0.1 : 1.0)) return;
  if (new_stage) stage_start_ = now;
  stage_ = p.stage;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double in_stage = std::chrono::duration<double>(now - stage_start_).count();
  char eta[48] = "";
  if (p.fraction >= 0.01 && p.fraction < 1.0) {
    std::snprintf(eta, sizeof eta, ", about %.0f s left", in_stage * (1.0 - p.fraction) / p.fraction);
  }
  if (tty_) {
    std::fprintf(stderr, "\rssum: %-10s %5.1f%%  %7.1f s%s\033[K", p.stage.c_str(), 100.0 * p.fraction, elapsed, eta);
    dirty_ = true;
  } else {
    std::fprintf(stderr, "ssum: %s %.1f%% at %.1f s%s\n", p.stage.c_str(), 100.0 * p.fraction, elapsed, eta);
  }
  std::fflush(stderr);
}

void progress_printer::finish() {
  if (dirty_) std::fprintf(stderr, "\r\033[K");
  dirty_ = false;
}

}  // namespace ssum::cli

#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ssum::cli {

progress_printer::progress_printer(bool enabled)
    : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), start_(clock::now()), last_line_(start_) {
  if (enabled_) ticker_ = std::thread([this] { tick(); });
}

progress_printer::~progress_printer() { finish(); }

void progress_printer::operator()(const progress& p) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> hold(lock_);
  if (stopping_) return;
  const bool new_stage = !have_ || p.stage != stage_;
  stage_ = p.stage;
  overall_ = std::max(overall_, std::clamp(p.overall, 0.0, 1.0));  // a bar that never goes back
  have_ = true;
  // A new stage is shown at once; everything else waits for the ticker, so the solver's
  // threads never wait on the terminal for more than a stage line.
  if (new_stage) draw(clock::now());
}

void progress_printer::draw(clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double f = overall_;
  char left[48] = "";
  if (f >= 0.01 && f < 1.0) {
    const double eta = elapsed * (1.0 - f) / f;
    std::snprintf(left, sizeof left, ", about %.*f s left", eta < 10 ? 1 : 0, eta);
  }
  if (tty_) {
    constexpr int width = 20;
    char bar[width + 1];
    const int full = std::min(width, static_cast<int>(f * width));
    for (int k = 0; k < width; ++k) bar[k] = k < full ? '#' : '.';
    bar[width] = '\0';
    std::fprintf(stderr, "\rssum: [%s] %5.1f%%  %.1f s%s  (%s)\033[K", bar, 100.0 * f, elapsed, left, stage_.c_str());
    dirty_ = true;
  } else {
    std::fprintf(stderr, "ssum: %.1f%% at %.1f s%s (%s)\n", 100.0 * f, elapsed, left, stage_.c_str());
  }
  std::fflush(stderr);
  last_line_ = now;
}

void progress_printer::tick() {
  std::unique_lock<std::mutex> hold(lock_);
  while (!stopping_) {
    wake_.wait_for(hold, std::chrono::milliseconds(200));
    if (stopping_ || !have_) continue;
    const auto now = clock::now();
    if (tty_ || now - last_line_ >= std::chrono::seconds(1)) draw(now);
  }
}

void progress_printer::finish() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  if (dirty_) std::fprintf(stderr, "\r\033[K");
  dirty_ = false;
}

}  // namespace ssum::cli

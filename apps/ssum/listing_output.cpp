// The listing's standard output under a stop (listing_output.hpp).
#include "listing_output.hpp"

#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace ssum::cli {
namespace {

constexpr std::size_t piece = std::size_t(1) << 16;
constexpr auto poll_slice = std::chrono::milliseconds(20);  // how often a stalled write looks at the stop

[[noreturn]] void write_failed(int err) {
  throw std::runtime_error(std::string("cannot write the subsets to standard output: ") +
                           (err > 0 ? std::strerror(err) : "nothing was written"));
}

}  // namespace

listing_output::listing_output(const std::atomic<bool>& stop, std::optional<clock_type::time_point> deadline)
    : stop_(stop), deadline_(deadline) {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) == 0) {
    // Regular files and /dev/null take a write at once; these may wait on whoever reads.
    pollable_ = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || (S_ISCHR(st.st_mode) && ::isatty(STDOUT_FILENO));
  }
}

bool listing_output::check_stop() {
  if (stopped_at_) return true;
  const auto now = clock_type::now();
  if (stop_.load(std::memory_order_relaxed)) {
    stopped_at_ = now;
  } else if (deadline_ && now >= *deadline_) {
    stopped_at_ = now;
    timed_out_ = true;
  }
  return stopped_at_.has_value();
}

bool listing_output::add(const std::string& lines) {
  if (stopped_at_) return false;
  buffer_ += lines;
  if (buffer_.size() >= piece || clock_type::now() - last_ > std::chrono::milliseconds(50)) return flush();
  return true;
}

bool listing_output::flush() {
  const bool all = write_out(false);
  last_ = clock_type::now();
  return all && !stopped_at_;
}

void listing_output::finish(const std::string& last) {
  write_out(false);
  buffer_ = last;
  write_out(true);
}

bool listing_output::write_out(bool final_lines) {
  std::size_t done = 0;
  const auto give_up = [&] {
    dropped_ += std::uint64_t(std::count(buffer_.begin() + std::ptrdiff_t(done), buffer_.end(), '\n'));
    buffer_.clear();
    return false;
  };
  while (done < buffer_.size()) {
    // After a stop, lines go out only while the reader takes them at once (a line begun, and
    // the summary, may wait for the grace period); the rest is dropped at a line boundary.
    const bool stopping = check_stop();
    const bool may_wait = !stopping || final_lines || mid_line_;
    if (stopping && clock_type::now() >= *stopped_at_ + grace) return give_up();
    if (pollable_) {
      ::pollfd p{STDOUT_FILENO, POLLOUT, 0};
      auto wait = poll_slice;
      if (stopping) {
        wait = may_wait ? std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(*stopped_at_ + grace - clock_type::now()))
                        : std::chrono::milliseconds(0);
      } else if (deadline_) {
        wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(*deadline_ - clock_type::now()));
      }
      const int ready = ::poll(&p, 1, int(std::max<long long>(wait.count(), 0)));
      if (ready < 0 && errno != EINTR && errno != EAGAIN) write_failed(errno);
      if (ready <= 0) {
        if (!may_wait) return give_up();
        continue;
      }
    }
    std::size_t n = buffer_.size() - done;
    if (pollable_ && n > PIPE_BUF) {
      // At most PIPE_BUF bytes after POLLOUT: a pipe takes them whole without waiting, so a
      // write never blocks and never ends inside a line unless a line is longer than that.
      const std::size_t end = buffer_.rfind('\n', done + PIPE_BUF - 1);
      n = end != std::string::npos && end >= done ? end + 1 - done : PIPE_BUF;
    }
    const ::ssize_t wrote = ::write(STDOUT_FILENO, buffer_.data() + done, n);
    if (wrote > 0) {
      done += std::size_t(wrote);
      mid_line_ = buffer_[done - 1] != '\n';
      continue;
    }
    const int err = wrote < 0 ? errno : -1;
    if (err == EINTR || err == EAGAIN) continue;
    if (err == EPIPE) {  // as write_stdout: a closed pipe ends the process quietly by SIGPIPE
      std::signal(SIGPIPE, SIG_DFL);
      std::raise(SIGPIPE);
      std::_Exit(4);
    }
    write_failed(err);
  }
  buffer_.clear();
  return true;
}

}  // namespace ssum::cli

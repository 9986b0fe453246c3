// The process's one watcher of time limits (deadline_watch.hpp).
#include "solver/deadline_watch.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ssum::detail {
namespace {

class watcher {
 public:
  static watcher& instance() {
    static watcher w;
    return w;
  }

  void add(deadline_watch::entry* e) {
    const std::lock_guard<std::mutex> hold(lock_);
    // A child after fork() has the parent's state but not its thread: one of its own.
    if (!thread_.joinable() || pid_ != getpid()) {
      if (thread_.joinable() && pid_ != getpid()) thread_.detach();
      pid_ = getpid();
      quit_ = false;
      thread_ = std::thread([this] { run(); });
    }
    entries_.push_back(e);
    wake_.notify_all();
  }

  void remove(deadline_watch::entry* e) {
    const std::lock_guard<std::mutex> hold(lock_);
    entries_.erase(std::find(entries_.begin(), entries_.end(), e));
  }

  ~watcher() {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      quit_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable() && pid_ == getpid()) thread_.join();
    else if (thread_.joinable()) thread_.detach();
  }

 private:
  watcher() = default;

  void run() {
    std::unique_lock<std::mutex> hold(lock_);
    while (!quit_) {
      const auto now = clock_type::now();
      auto next = clock_type::time_point::max();
      for (deadline_watch::entry* e : entries_) {
        if (e->fired) continue;
        if (now >= e->deadline) {
          e->timed_out->store(true);
          e->stop->store(true);
          e->fired = true;
        } else if (e->caller && e->caller->load()) {
          e->stop->store(true);
          e->fired = true;
        } else {
          // The caller's flag is only polled: every 10 ms at most.
          next = std::min(next, e->caller ? std::min(e->deadline, now + std::chrono::milliseconds(10)) : e->deadline);
        }
      }
      if (next == clock_type::time_point::max()) wake_.wait(hold);
      else wake_.wait_until(hold, next);
    }
  }

  std::mutex lock_;
  std::condition_variable wake_;
  std::vector<deadline_watch::entry*> entries_;
  std::thread thread_;
  pid_t pid_ = 0;
  bool quit_ = false;
};

}  // namespace

deadline_watch::deadline_watch(clock_type::time_point deadline, const std::atomic<bool>* caller,
                               std::atomic<bool>& stop, std::atomic<bool>& timed_out)
    : entry_{deadline, caller, &stop, &timed_out} {
  watcher::instance().add(&entry_);
}

deadline_watch::~deadline_watch() { watcher::instance().remove(&entry_); }

}  // namespace ssum::detail

namespace ssum {

std::optional<std::chrono::steady_clock::time_point> deadline_after(double limit,
                                                                   std::chrono::steady_clock::time_point start) {
  using clock = std::chrono::steady_clock;
  if (!(limit >= 0) || !std::isfinite(limit)) {
    throw std::invalid_argument("the time limit must be a finite number of seconds, 0 or more");
  }
  // A quarter of the clock's range: start + limit cannot overflow, nor can later sums with it.
  const double longest = std::chrono::duration<double>(clock::duration::max()).count() / 4;
  if (limit == 0 || limit > longest) return std::nullopt;
  return start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(limit));
}

}  // namespace ssum

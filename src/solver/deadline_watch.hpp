#pragma once
// Internal: time limits for every solve from one watcher thread per process. A solve under
// --time-limit registers its deadline and its flags; the watcher raises the solve's stop flag
// at the deadline, or when the caller's own cancel flag rises (polled every 10 ms), so every
// algorithm stops the way it stops for Ctrl-C. One thread for all solves, started on first
// use: a thread started and joined per solve cost about a tenth of a millisecond, as much as
// a whole dense solve of 10^4 items.
#include <atomic>
#include <optional>

#include "solver/frame.hpp"

namespace ssum::detail {

using ssum::deadline_after;  // solve.hpp: the one saturating conversion of a time limit

class deadline_watch {
 public:
  /// Watches until destroyed: at `deadline` raises `timed_out` and then `stop`; when
  /// `caller` (may be null) rises, raises `stop` alone.
  deadline_watch(clock_type::time_point deadline, const std::atomic<bool>* caller, std::atomic<bool>& stop,
                 std::atomic<bool>& timed_out);
  /// After it returns the watcher touches none of the flags again.
  ~deadline_watch();
  deadline_watch(const deadline_watch&) = delete;
  deadline_watch& operator=(const deadline_watch&) = delete;

  struct entry {
    clock_type::time_point deadline;
    const std::atomic<bool>* caller;
    std::atomic<bool>* stop;
    std::atomic<bool>* timed_out;
    bool fired = false;
  };

 private:
  entry entry_;
};

}  // namespace ssum::detail

#pragma once
// The listing's standard output: whole lines, written so that a stop (Ctrl-C, SIGTERM, the
// time limit) is obeyed within a fraction of a second even when the reader has stalled (a
// FIFO nobody reads, a pipe into a paused pager). A blocking write() would wait for the reader.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ssum::cli {

class listing_output {
 public:
  using clock_type = std::chrono::steady_clock;

  /// `stop`: raised by a signal; `deadline`: the time limit's end (nullopt: none).
  listing_output(const std::atomic<bool>& stop, std::optional<clock_type::time_point> deadline);

  /// Appends whole lines, writing them out in 64 KiB pieces and at least every 50 ms. False
  /// once a stop has ended the output (then nothing more is written but the last lines).
  bool add(const std::string& lines);

  /// Writes what is buffered; false when a stop ended the output (the lines not yet begun are
  /// dropped).
  bool drain() { return flush(); }

  /// Writes what is buffered, then `last` (the summary). After a stop both get what is left of
  /// the grace period and are dropped at a line boundary if the reader takes nothing; a line
  /// already begun is finished within it if the reader takes it.
  void finish(const std::string& last);

  /// Whether a stop ended the output, and whether it was the deadline's.
  bool stopped() const { return stopped_at_.has_value(); }
  bool timed_out() const { return timed_out_; }
  /// Lines dropped by a stop: added but never written whole.
  std::uint64_t dropped_lines() const { return dropped_; }

  /// How long a stop may wait for the reader: the stop promise is half a second.
  static constexpr std::chrono::milliseconds grace{200};

 private:
  bool flush();
  bool check_stop();
  // Writes buffer_ from the front; false when it gave up (a stop and the reader took nothing).
  bool write_out(bool final_lines);

  const std::atomic<bool>& stop_;
  std::optional<clock_type::time_point> deadline_;
  std::optional<clock_type::time_point> stopped_at_;
  bool timed_out_ = false;
  bool pollable_ = false;      // a pipe, FIFO, socket or terminal: a write may wait for a reader
  bool mid_line_ = false;      // part of a line was written: the rest must follow
  std::uint64_t dropped_ = 0;
  std::string buffer_;
  clock_type::time_point last_ = clock_type::now();
};

}  // namespace ssum::cli

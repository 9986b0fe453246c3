#pragma once
// Internal: the units of a four-list search (ranges of consecutive residue classes) and one
// run's record of those it finished, kept in a checkpoint file (checkpoint.hpp). Shared by the
// host four-list (four_list_cpu.cpp) and the GPU one (four_list_batches.hpp), so that a
// checkpoint written by one continues on the other when their moduli agree.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "solver/four_list/checkpoint.hpp"
#include "solver/frame.hpp"
#include "ssum/int128.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

// The residue classes are searched in units of consecutive classes (at most 2^16 units, so a
// checkpoint's bitmap stays small; 16 classes a unit from M = 2^20 on), shared out among the
// threads one unit at a time.
inline constexpr std::uint64_t most_units = std::uint64_t(1) << 16;
inline std::uint64_t units_of(std::uint64_t m) { return std::min(m, most_units); }
inline std::uint64_t first_class(std::uint64_t u, std::uint64_t units, std::uint64_t m) {
  return std::uint64_t(uint128(u) * m / units);
}

// One run's record of its finished units (options.checkpoint): the units a previous run
// finished are skipped, and whichever thread finishes a unit writes the file once
// checkpoint_seconds have passed since the last write. A write that fails stops the search
// (its error is thrown after the threads join): no run goes on without the file it was asked
// to keep.
class unit_record {
 public:
  unit_record(std::string path, checkpoint_identity id, checkpoint_state state, double seconds)
      : path_(std::move(path)), id_(std::move(id)), state_(std::move(state)), seconds_(seconds),
        skip_(state_.done.begin(), state_.done.end()), last_(clock_type::now()) {}
  bool skipped(std::uint64_t u) const { return skip_[u] != 0; }
  // A subset of the searched problem found in this search: called before the unit that holds
  // it is finished, so that a file never counts a solution without holding one. The first
  // one stays.
  void found(const std::vector<std::size_t>& subset) noexcept {
    std::lock_guard<std::mutex> guard(lock_);
    if (!state_.subset) {
      try {
        state_.subset = subset;
      } catch (...) {  // no memory for a few indices: the file is written without it
      }
    }
  }
  std::optional<std::vector<std::size_t>> subset() {
    std::lock_guard<std::mutex> guard(lock_);
    return state_.subset;
  }
  std::uint64_t units_skipped() const { return std::uint64_t(std::count(skip_.begin(), skip_.end(), 1)); }
  uint128 count_before() const { return count_before_; }
  bool failed() const { return failure_ != nullptr; }
  // Called by a thread that finished units [u0, u1) with `count` solutions in all; false: the
  // write failed and the search should stop. Recorded as one step, so that a file never holds
  // some of them with the count of all.
  bool finished_range(std::uint64_t u0, std::uint64_t u1, uint128 count) noexcept {
    std::lock_guard<std::mutex> guard(lock_);
    for (std::uint64_t u = u0; u < u1; ++u) state_.done[u] = true;
    state_.count += count;
    const bool written = seconds_since(last_) < seconds_ ? failure_ == nullptr : write_locked();
    fault_point("finished");
    return written;
  }
  // At the end: written when the search stopped before its end (an interrupt, the time limit,
  // memory), removed when the answer is complete. Throws a write's failure.
  void close(bool complete) {
    std::lock_guard<std::mutex> guard(lock_);
    if (failure_) std::rethrow_exception(failure_);
    if (!complete) {
      if (!write_locked()) std::rethrow_exception(failure_);
      return;
    }
    fault_point("removing");
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }

 private:
  bool write_locked() noexcept {
    try {
      write_checkpoint(path_, id_, state_);
      last_ = clock_type::now();
      return true;
    } catch (...) {
      if (!failure_) failure_ = std::current_exception();
      return false;
    }
  }
  std::mutex lock_;
  std::string path_;
  checkpoint_identity id_;
  checkpoint_state state_;
  double seconds_;
  std::vector<char> skip_;  // the units finished before this run (read-only in the search)
  uint128 count_before_ = state_.count;
  clock_type::time_point last_;
  std::exception_ptr failure_;
};

/// The record a run keeps for options.checkpoint (nullopt without one): the saved state when
/// the file holds this instance's (same n, modulus bits, units, counting), else a fresh one;
/// throws ssum::input_error for another instance's or a damaged file.
inline std::optional<unit_record> open_unit_record(const problem& p, int modulus_bits, std::uint64_t m,
                                                   const std::optional<checkpoint>& saved,
                                                   const solve_options& options) {
  if (options.checkpoint.empty()) return std::nullopt;
  const checkpoint_identity id{"four-list", fingerprint_of(p), p.weights.size(), modulus_bits, units_of(m),
                               options.count};
  checkpoint_state state;
  if (saved) check_identity(options.checkpoint, saved->id, id);
  if (saved && resumable(saved->state)) {
    state = saved->state;
  } else {  // none, or solutions counted without a subset (version 1): from the start
    state.done.assign(id.units, false);
  }
  return std::optional<unit_record>(std::in_place, options.checkpoint, id, std::move(state),
                                    options.checkpoint_seconds);
}

}  // namespace ssum::detail

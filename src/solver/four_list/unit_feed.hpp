#pragma once
// Internal: where a four-list search (host, four_list_cpu.cpp; device, four_list_batches.hpp)
// takes its units: in order from this process, skipping those its checkpoint holds, or from a
// work_share (ssum/work_share.hpp) when the search is shared with other solves. Called from
// several threads; a share's exception is kept and thrown by rethrow() after they join.
#include <array>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "solver/four_list/four_list_plan.hpp"
#include "solver/four_list/unit_record.hpp"
#include "ssum/int128.hpp"
#include "ssum/errors.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"
#include "ssum/work_share.hpp"

namespace ssum::detail {

/// The modulus' log2 a search of `p` runs with: `bits`, this solve's choice, unless the search
/// is shared (options.share), whose first solve or checkpoint fixes it. A shared search keeps
/// its checkpoint in its work_pool: one in the options too is refused.
inline int shared_modulus_bits(const problem& p, int bits, const solve_options& options) {
  if (!options.share) return bits;
  if (!options.checkpoint.empty()) {
    throw std::invalid_argument("a shared four-list keeps its checkpoint in its work_pool, not in the solve's options");
  }
  return options.share->begin(fingerprint_of(p), p.weights.size(), bits, largest_modulus_bits(p.weights.size()));
}

/// A four-list answer's subset checked against the problem searched before it leaves the
/// driver: one kept by a checkpoint that does not sum to the target means a damaged file.
inline void check_four_list_subset(const problem& p, const solution& s, const solve_options& options) {
  if (!s.feasible || is_certificate(p, s.subset)) return;
  if (!options.checkpoint.empty()) {
    throw input_error("the checkpoint " + printable(options.checkpoint) +
                          " is damaged: its subset does not sum to the target", 0);
  }
  throw std::logic_error("four-list: a subset that does not verify");
}

class unit_feed {
 public:
  unit_feed(std::uint64_t units, unit_record* record, work_share* share)
      : units_(units), record_(record), share_(share) {}

  /// Units [first, last) to search next, 1 to `most` of them; nullopt when none is left (or
  /// the share failed).
  std::optional<std::array<std::uint64_t, 2>> next(std::uint64_t most) noexcept {
    if (share_) {
      try {
        return share_->next(units_, most);
      } catch (...) {
        keep(std::current_exception());
        return std::nullopt;
      }
    }
    std::lock_guard<std::mutex> guard(lock_);
    while (cursor_ < units_ && record_ && record_->skipped(cursor_)) ++cursor_;
    if (cursor_ >= units_) return std::nullopt;
    const std::uint64_t first = cursor_;
    while (cursor_ < units_ && cursor_ - first < most && !(record_ && record_->skipped(cursor_))) ++cursor_;
    return std::array<std::uint64_t, 2>{first, cursor_};
  }
  /// Units [first, last) searched to their end with `count` solutions; false: the search
  /// should stop (the checkpoint could not be written, the share failed).
  bool finished(std::uint64_t first, std::uint64_t last, uint128 count) noexcept {
    if (share_) {
      try {
        share_->finished(first, last, count);
        return true;
      } catch (...) {
        keep(std::current_exception());
        return false;
      }
    }
    return record_ ? record_->finished_range(first, last, count) : true;
  }
  /// A subset of the searched problem, found in a unit not yet finished: kept with the
  /// checkpoint (or the share's), so that no finished unit's solutions are counted without
  /// one. Call once, before finished() of its unit.
  void found(const std::vector<std::size_t>& subset) noexcept {
    if (share_) {
      try {
        share_->found(subset);
      } catch (...) {
        keep(std::current_exception());
      }
      return;
    }
    if (record_) record_->found(subset);
  }
  /// A subset found by an earlier run (the checkpoint's) or by another solve of the share:
  /// the answer when this run finds none itself.
  std::optional<std::vector<std::size_t>> known_subset() {
    if (share_) {
      try {
        return share_->subset();
      } catch (...) {
        keep(std::current_exception());
        return std::nullopt;
      }
    }
    return record_ ? record_->subset() : std::nullopt;
  }
  /// The fraction of the search finished, given this process's own (for progress).
  double done(double own) const { return share_ ? share_->done() : own; }
  /// The solutions of the whole search, given this process's own (the empty subset
  /// excluded): the share's answer, or own plus a checkpoint's.
  uint128 total(uint128 own, const std::atomic<bool>* cancel) {
    if (share_) return share_->finish(own, cancel);
    return record_ ? own + record_->count_before() : own;
  }
  bool shared() const { return share_ != nullptr; }
  /// Throws what a call to the share threw.
  void rethrow() {
    std::lock_guard<std::mutex> guard(lock_);
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  void keep(std::exception_ptr e) noexcept {
    std::lock_guard<std::mutex> guard(lock_);
    if (!failure_) failure_ = e;
  }
  std::mutex lock_;
  std::uint64_t units_;
  unit_record* record_;
  work_share* share_;
  std::uint64_t cursor_ = 0;
  std::exception_ptr failure_;
};

}  // namespace ssum::detail

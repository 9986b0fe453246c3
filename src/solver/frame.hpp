#pragma once
// Internal: the frame every solver shares, host and device alike: the weights' totals and the
// out-of-range answer they allow, the stage timers, the cancel check, and the one wording of
// a plan that does not fit. Host-only.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>

#include "ssum/detail/cpu_team.hpp"
#include "ssum/errors.hpp"
#include "ssum/int128.hpp"
#include "ssum/memory.hpp"
#include "ssum/policy.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// The most items any algorithm here takes: the four-list's quarters index 30-bit masks.
constexpr std::size_t most_items = 120;

using clock_type = std::chrono::steady_clock;

inline double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Throws ssum::interrupted once the caller's flag is raised.
inline void check_cancel(const solve_options& options) {
  if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw interrupted();
}

/// The weights' total magnitude (the largest flipped sum) and where the target lies;
/// out_of_range: no subset reaches the target, decided without any list.
struct flipped_totals {
  uint128 total_abs = 0;       // sum of |w|, below 2^127 (checked)
  uint128 negative_abs = 0;    // sum of |w| over the negative weights
  int128 target = 0;
  // The least and the most a subset can sum to.
  int128 least() const { return -int128(negative_abs); }
  int128 most() const { return int128(total_abs - negative_abs); }
  // Reachable sums are [-negative_abs, total_abs - negative_abs]. Compared without forming
  // target + negative_abs, which need not fit in int128 for a target near its limits.
  bool out_of_range() const {
    if (target < 0) return magnitude(target) > negative_abs;
    return uint128(target) > total_abs - negative_abs;
  }
};

/// Throws ssum::input_error when the weights' total magnitude reaches 2^127: every solve
/// starts here, so none ever forms a sum that 128 bits cannot hold.
inline flipped_totals totals_of(const std::vector<int128>& weights) {
  check_weight_total(weights);
  flipped_totals f;
  for (const int128 w : weights) {
    const uint128 mag = magnitude(w);
    f.total_abs += mag;
    if (w < 0) f.negative_abs += mag;
  }
  return f;
}
inline flipped_totals totals_of(const problem& p) {
  flipped_totals f = totals_of(p.weights);
  f.target = p.target.value_or(0);
  return f;
}

/// The answer to a target outside the reachable range: infeasible (a count of 0), no list
/// built. `start`: when the solve began, for its total time.
inline solution out_of_range_answer(const char* algorithm, const char* backend, unsigned threads,
                                    const solve_options& options, clock_type::time_point start) {
  solution result;
  result.algorithm = algorithm;
  result.backend = backend;
  result.threads = threads;
  if (options.count) result.count = 0;
  result.seconds.total = seconds_since(start);
  return result;
}

/// Room for a plan: what the backend has (`available`), no more than options.memory_limit.
inline double room_within(double available, const solve_options& options) {
  return options.memory_limit && double(options.memory_limit) < available ? double(options.memory_limit) : available;
}

/// What a plan of `algorithm` ("the two-list algorithm") for n items is called in messages.
inline std::string plan_name(const std::string& algorithm, std::size_t n) {
  return algorithm + " for n = " + std::to_string(n);
}

/// What the host gives one solve, measured once: choose() takes it for the plan, and every host
/// driver runs on the plan's share instead of asking again (tests and benchmarks make theirs
/// with host_share_for too).
struct host_share {
  unsigned threads = 1;  // the team, resolved (never 0)
  double room = 0;       // the bytes a plan may take: free memory, no more than the limit
};

/// The one place a solve resolves its threads (0: every hardware thread; no more than
/// capped_team allows, so every algorithm's team is what can run) and measures the room.
inline host_share host_share_for(unsigned threads, const solve_options& options) {
  return {capped_team(resolved_threads(cpu{threads})), host_plan_room(options.memory_limit)};
}

/// Throws ssum::insufficient_memory ("... needs N; M are available") when `bytes` exceed `room`.
inline void check_plan_fits(const std::string& algorithm, std::size_t n, double bytes, double room) {
  if (bytes > room) throw insufficient_memory::needs(plan_name(algorithm, n), bytes, room);
}

}  // namespace ssum::detail

#pragma once
// `ssum solve` when it lists subsets (--all, --limit K, --unique) or answers a question over a
// window or a number of items (--target-range, --tolerance, --items, --min-items, --max-items):
// ssum::list_subsets streams the subsets, this prints them as they come.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ssum/solve.hpp"

namespace ssum::cli {

struct listing_request {
  enum class question { first, every, unique, count };
  question asked = question::first;  // first: a decision over the window (one subset)
  std::uint64_t limit = 0;           // every: stop after this many (0: all)
  bool json = false;
  listing_options options;           // the window's top, the size bounds, time and memory
  std::optional<int128> centre;      // --tolerance: the target the window is around
  bool ranged = false;               // --target-range: a window with no target of its own
  backend which = backend::automatic;
  unsigned threads = 0;
  std::string goal;  // what the subsets sum to, in words, where the target does not say it (several rows)
  std::vector<int128> row_targets;  // several rows: their targets, for the JSON summary
};

/// Decimal digits only, 0 to 2^64 - 1 (CLI11 would wrap -1 and 2^70 silently): --seed,
/// --limit, the item counts.
std::optional<std::uint64_t> parse_whole(std::string_view text);

/// The listing's flags as given on the command line.
struct listing_flags {
  bool all = false, unique = false;
  std::optional<std::string> limit, items, min_items, max_items, tolerance;
  std::vector<std::string> target_range;  // LO HI
  /// Whether any asks for a listing or a constraint (then the listing answers).
  bool any() const {
    return all || unique || limit || items || min_items || max_items || tolerance || !target_range.empty();
  }
};

/// The request the flags make with the rest of the command line (--count, --target given,
/// --checkpoint given, --algorithm); throws ssum::input_error naming the flag for a bad value
/// or a bad combination.
listing_request listing_of(const listing_flags& flags, bool count, bool target_given, bool checkpoint,
                           const std::string& algorithm);

/// The instance with the window's bottom as its target and request.options.high its top
/// (--target-range LO HI, --tolerance D around the target); throws ssum::input_error.
problem windowed(problem p, const listing_flags& flags, listing_request& request);

/// Lists or counts as asked, printing to stdout as the subsets come (text: one subset a line,
/// a '#' summary line last; JSON: one object a subset, then a summary object). Returns the
/// exit status: 0 subsets were found (or the limit reached), 1 none exists in the window, 5 the
/// time limit ended it first, 130 `interrupt` rose (what was printed stays, the summary says
/// "complete": false). Throws what ssum::list_subsets throws before anything is printed.
int run_listing(const listing_request& request, const problem& p, const std::atomic<bool>& interrupt,
                std::chrono::steady_clock::time_point wall_start);

}  // namespace ssum::cli

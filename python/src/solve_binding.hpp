#pragma once
// What solve_binding.cpp shares with the other bindings that answer as ssum.solve does
// (rows_binding.cpp): the options' parsing, the interruptible run and the Solution object.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include "convert.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::python {

/// The options every solve takes, checked: ValueError naming the bad one.
struct solve_settings {
  ssum::backend backend = ssum::backend::automatic;
  unsigned threads = 0;
  ssum::solve_options options;
};
solve_settings parse_settings(nanobind::handle backend, nanobind::handle algorithm, nanobind::handle threads,
                              nanobind::handle memory, bool count, nanobind::handle time_limit,
                              nanobind::handle seed);

/// The arguments parse_settings reads, one at a time (ssum.solutions takes no algorithm):
/// TypeError or ValueError naming the argument, never nanobind's "incompatible function
/// arguments", so they come as handles.
ssum::backend parse_backend(nanobind::handle backend);
unsigned parse_threads(nanobind::handle threads);                       // 0 for None: all
std::optional<std::uint64_t> parse_memory(nanobind::handle memory);    // nullopt for None

/// Runs solve(cancel) off the calling thread with the GIL released. Every ~50 ms the caller
/// takes the GIL and lets Python run its signal handlers; when one raises (KeyboardInterrupt
/// for Ctrl-C) the solve is cancelled, waited for, and that exception propagates.
ssum::solution run_interruptible(const std::function<ssum::solution(const std::atomic<bool>*)>& solve);

inline const char* status_name(ssum::status s) {
  return s == ssum::status::feasible ? "feasible" : s == ssum::status::infeasible ? "infeasible" : "unknown";
}

/// ssum.Solution: the answer and the question as answered.
struct py_solution {
  ssum::solution s;
  // The question as answered, for the attributes in the caller's units: the target as asked
  // (none for zero-sum and for target_range; the centre for tolerance), the window where one
  // was asked, the scale of decimal input (-1: ints).
  std::optional<int128> target, low, high;
  int decimals = -1;
  std::optional<int128> sum;  // the subset's, when there is one
  // unique=True: "none", "unique", "several" or "unknown", and the subsets found (two at most).
  std::optional<std::string> unique;
  std::vector<std::vector<std::size_t>> subsets;

  nanobind::object amount(int128 v) const {
    if (decimals < 0) return to_python(v);
    return nanobind::module_::import_("decimal").attr("Decimal")(ssum::format_amount(v, unsigned(decimals)));
  }
  nanobind::object feasible() const {
    if (s.status == ssum::status::unknown) return nanobind::none();
    return nanobind::bool_(s.status == ssum::status::feasible);
  }
  nanobind::object count() const { return s.count ? to_python(*s.count) : nanobind::none(); }
  /// "Solution(status=..., ..., seconds=...)"; `name` and `extra` (", key=value" pairs before
  /// the algorithm) serve the subclasses.
  std::string repr(const char* name = "Solution", const std::string& extra = "") const {
    std::ostringstream out;
    out << name << "(status='" << status_name(s.status) << "', subset=[";
    constexpr std::size_t shown = 20;  // a long subset is cut: repr is for reading
    for (std::size_t i = 0; i < s.subset.size() && i < shown; ++i) out << (i ? ", " : "") << s.subset[i];
    if (s.subset.size() > shown) out << ", ... (" << s.subset.size() << " indices)";
    out << "]";
    if (unique) out << ", unique='" << *unique << "'";
    if (s.count) out << ", count=" << s.count->to_string();
    out << extra;
    out << ", algorithm='" << s.algorithm << "', backend='" << s.backend << "', seconds=" << s.seconds.total << ")";
    return out.str();
  }
};

}  // namespace ssum::python

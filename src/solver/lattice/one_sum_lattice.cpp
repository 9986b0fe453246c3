// The lattice stage on one sum of low density (one_sum_lattice.hpp).
#include "solver/lattice/one_sum_lattice.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "solver/choose.hpp"
#include "solver/frame.hpp"
#include "solver/lattice/lattice_rows.hpp"
#include "solver/planner.hpp"
#include "solver/rows/lattice_race.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

// Set while the exact search of a race runs on this thread: its own solve must not race again.
thread_local bool racing = false;

struct racing_scope {
  racing_scope() { racing = true; }
  ~racing_scope() { racing = false; }
};

int widest_bits(const problem& p) {
  int bits = 0;
  for (const int128 w : p.weights) {
    uint128 v = w < 0 ? uint128(0) - uint128(w) : uint128(w);
    int b = 0;
    for (; v; v >>= 1) ++b;
    bits = std::max(bits, b);
  }
  return bits;
}

// The exact plan's expected seconds, from the plan's rates (planner.hpp).
double expected_seconds(const choice& c, std::size_t n) {
  const std::size_t left = c.reduced_instance ? c.instance.weights.size() : n;
  if (c.where == backend::cuda) {
    return c.algo == algorithm::four_list ? cuda_start_seconds + cuda_four_list_seconds(left, c.totals)
                                          : cuda_two_list_seconds(left);
  }
  return c.algo == algorithm::four_list ? host_four_list_seconds(left, c.threads) : host_two_list_seconds(left, c.threads);
}

}  // namespace

std::string one_sum_lattice_role(backend which, unsigned threads, const problem& p, const solve_options& options,
                                 std::string* refusal, std::exception_ptr* refused) {
  const std::size_t n = p.weights.size();
  if (racing || options.algo != algorithm::automatic || options.count || !p.target || !options.checkpoint.empty() ||
      options.share || which == backend::cuda || n < 8 || !lattice_available()) {
    return "";
  }
  // Cheap tests first, as every automatic decision asks: below about 53 items the host's exact
  // search takes under a second on one thread (nothing to race, nothing refused), and from
  // 0.8 x 127 items no weight is wide enough for a density below 0.8.
  if (host_two_list_seconds(n, 1) < 1.0 || double(n) >= lattice_most_density * 127) return "";
  if (double(n) >= lattice_most_density * widest_bits(p)) return "";
  try {
    const choice c = choose(p, options, which, threads, 0);
    if (c.settled || c.out_of_range || (c.algo != algorithm::two_list && c.algo != algorithm::four_list)) return "";
    return expected_seconds(c, n) >= 1.0 ? "races" : "";
  } catch (const out_of_reach& e) {
    if (refusal) *refusal = e.what();
    if (refused) *refused = std::current_exception();
  } catch (const insufficient_memory& e) {
    if (refusal) *refusal = e.what();
    if (refused) *refused = std::current_exception();
  }
  return "alone";
}

std::optional<solution> solve_one_sum_with_lattice(backend which, unsigned threads, const problem& p,
                                                   const solve_options& options) {
  std::string refusal;
  std::exception_ptr refused;
  const std::string role = one_sum_lattice_role(which, threads, p, options, &refusal, &refused);
  if (role.empty()) return std::nullopt;
  const auto start = clock_type::now();
  const rows_problem one{{p.weights}, {*p.target}};
  char density[96];
  std::snprintf(density, sizeof density, "density %.2f, below %.1f", double(p.weights.size()) / widest_bits(p),
                lattice_most_density);
  rows_solution out;
  if (role == "alone") {
    out = lattice_instead(one, options, refused,
                          "no exact algorithm can take this instance (" + refusal + "); at " + density, start, threads);
  } else {
    const exact_search exact = [&](const solve_options& e, unsigned exact_threads) {
      const racing_scope scope;
      rows_solution r;
      r.method = "one sum";
      r.answer = solve(which, exact_threads, p, e);
      return r;
    };
    out = race_lattice(which, threads, one, options, start, exact);
    if (out.method == "lattice") out.answer.plan.reason += " (" + std::string(density) + ")";
  }
  solution& s = out.answer;
  if (s.feasible && !is_certificate(p, s.subset)) {
    throw std::logic_error("internal error: the lattice's subset does not sum to the target");
  }
  return s;
}

}  // namespace ssum::detail

// The solver's front door: picks the backend, runs it, and re-verifies every subset it is
// about to hand out, so that no caller ever sees an unchecked answer.
#include "ssum/solve.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "solver/four_list/four_list_cuda.hpp"
#include "solver/two_list/two_list_cuda.hpp"
#include "solver/two_list/two_list_merging.hpp"
#include "solver/four_list/four_list_cpu.hpp"
#include "solver/two_list/two_list_cpu.hpp"
#include "ssum/memory.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"

namespace ssum {

unsigned resolved_threads(const cpu& policy) {
  if (policy.threads) return policy.threads;
  const int omp = omp_get_max_threads();
  return omp > 0 ? static_cast<unsigned>(omp) : std::max(1u, std::thread::hardware_concurrency());
}

// The most items any host algorithm takes: the four-list's quarters index 30-bit masks.
constexpr std::size_t most_items = 120;

solution solve(const cpu& policy, const problem& p, const solve_options& options) {
  algorithm algo = options.algo;
  if (algo == algorithm::automatic) {
    // Named for what the user asked: no algorithm (not "the four-list") can take this.
    if (p.weights.size() > most_items) {
      throw std::invalid_argument("no algorithm here takes more than " + std::to_string(most_items) +
                                  " items with weights like these (n = " + std::to_string(p.weights.size()) + ")");
    }
    algo = two_list_planned_bytes(p) <= host_plan_room(options.memory_limit) ? algorithm::two_list
                                                                             : algorithm::four_list;
  }
  solution result;
  // An allocation that fails although the plan fitted (memory taken meanwhile, a limit that
  // counts more than the plan): the same error as a plan that does not fit, with its numbers.
  const auto out_of_memory = [&](const char* what, double planned) {
    const double room = host_plan_room(options.memory_limit);
    return insufficient_memory::ran_out(std::string(what) + " for n = " + std::to_string(p.weights.size()), planned,
                                        room);
  };
  switch (algo) {
    case algorithm::two_list:
      try {
        result = detail::solve_two_list(policy, p, options);
      } catch (const std::bad_alloc&) {
        throw out_of_memory("the two-list algorithm", two_list_planned_bytes(p));
      }
      break;
    case algorithm::four_list:
      try {
        result = detail::solve_four_list(policy, p, options);
      } catch (const std::bad_alloc&) {
        throw out_of_memory("the four-list algorithm", detail::four_list_planned_bytes(p, resolved_threads(policy)));
      }
      break;
    default:
      throw std::invalid_argument("unknown algorithm");
  }
  if (result.feasible && !is_certificate(p, result.subset)) {
    throw std::logic_error("internal error: the solver's subset does not verify; no answer is given");
  }
  return result;
}

namespace {

// Whether the device two-list can take `p` and its lists fit `device` (and the caller's limit).
bool cuda_two_list_fits(int device, const problem& p, const detail::flipped_totals& totals,
                        const solve_options& options) {
  if (detail::two_list_merging_refusal(p, totals, options.count)) return false;
  double room = detail::cuda_solver_room(device);
  if (options.memory_limit) room = std::min(room, double(options.memory_limit));
  return detail::two_list_merging_planned_bytes(p.weights.size()) <= room;
}

// The CUDA backend's algorithm: the one named; under automatic the two-list while it can take
// `p` and fits the device, else the four-list (O(2^(n/4)) lists, batches sized to the room)
// when it can take `p`; else the two-list, whose refusal then says why.
algorithm cuda_algorithm(int device, const problem& p, const solve_options& options) {
  if (options.algo != algorithm::automatic) return options.algo;
  const detail::flipped_totals totals = detail::totals_of(p);
  if (cuda_two_list_fits(device, p, totals, options)) return algorithm::two_list;
  return detail::four_list_cuda_refusal(p, totals) ? algorithm::two_list : algorithm::four_list;
}

}  // namespace

solution solve(const cuda& policy, const problem& p, const solve_options& options) {
  if (options.algo != algorithm::automatic && options.algo != algorithm::two_list &&
      options.algo != algorithm::four_list) {
    throw std::invalid_argument("unknown algorithm");
  }
  if (!cuda_compiled()) throw backend_unavailable("this build of ssum has no CUDA backend");
  if (cuda_devices().empty()) throw backend_unavailable("no CUDA device is present");
  solution result = cuda_algorithm(policy.device, p, options) == algorithm::four_list
                        ? detail::solve_four_list_cuda(policy, p, options)
                        : detail::solve_two_list_cuda(policy, p, options);
  if (result.feasible && !is_certificate(p, result.subset)) {
    throw std::logic_error("internal error: the CUDA solver's subset does not verify; no answer is given");
  }
  return result;
}

namespace {

// auto sends an instance to the GPU when the host would need longer than a CUDA process
// takes to start: measured on an H200 machine (docs/performance.md, "Choosing the backend"),
// bringing up the CUDA context costs about 0.3 s, and the host two-list about 12 ns per sum of
// one list, divided by threads^0.7 (memory-bound: 1.7 ns with 16 threads, 6 ns with 2).
// So 16 host threads keep n <= 55, 2 threads n <= 51; the device then needs a few ms.
constexpr double cuda_start_seconds = 0.4;
double host_two_list_seconds(std::size_t n, unsigned threads) {
  return std::ldexp(12e-9, int(n / 2)) * (n % 2 ? 1.41 : 1.0) / std::pow(double(threads), 0.7);
}

// Which algorithm auto runs on device 0, or nullopt for the host. Only when the host would
// need longer than the start-up; then
//   the device two-list when it can take `p` and fits (and the four-list is not named), as
//     before the GPU four-list existed;
//   else the device four-list when it can take `p` (totals below 2^64) and the two-list is not
//     named: the host would then run its own four-list (named, or its two lists do not fit host
//     memory) or a two-list the device cannot hold; either way the same O(2^(n/2)) work at GPU
//     speed. Asks the driver only when the size says it may pay.
std::optional<algorithm> cuda_choice(const problem& p, const solve_options& options, unsigned threads) {
  const std::size_t n = p.weights.size();
  if (host_two_list_seconds(n, threads) < cuda_start_seconds) return std::nullopt;
  if (!cuda_compiled()) return std::nullopt;
  const detail::flipped_totals totals = detail::totals_of(p);
  bool two_list_fits = false;
  try {
    const auto devices = cuda_devices();
    if (devices.empty()) return std::nullopt;
    two_list_fits = options.algo != algorithm::four_list && cuda_two_list_fits(devices.front().ordinal, p, totals, options);
  } catch (const cuda_error&) {
    // A device that cannot even be asked (a CUDA context needs far more address space than a
    // `ulimit -v` may leave) is no device for automatic: the host answers instead.
    return std::nullopt;
  }
  if (two_list_fits) return algorithm::two_list;
  if (options.algo == algorithm::two_list || detail::four_list_cuda_refusal(p, totals)) return std::nullopt;
  return algorithm::four_list;
}

}  // namespace

solution solve(backend which, unsigned threads, const problem& p, const solve_options& options) {
  switch (which) {
    case backend::automatic:
      if (const auto algo = cuda_choice(p, options, resolved_threads(cpu{threads}))) {
        solve_options on_device = options;
        on_device.algo = *algo;
        return solve(cuda{}, p, on_device);
      }
      return solve(cpu{threads}, p, options);
    case backend::cpu:
      return solve(cpu{threads}, p, options);
    case backend::cuda:
      return solve(cuda{}, p, options);
  }
  throw std::invalid_argument("unknown backend");
}

}  // namespace ssum

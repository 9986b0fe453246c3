// The solver's front door: picks the backend, runs it, and re-verifies every subset it is
// about to hand out, so that no caller ever sees an unchecked answer.
#include "ssum/solve.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <thread>

#include "core/two_list_cuda.hpp"
#include "core/two_list_merging.hpp"
#include "cpu/four_list.hpp"
#include "cpu/two_list.hpp"
#include "ssum/memory.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"

namespace ssum {

unsigned resolved_threads(const cpu& policy) {
  if (policy.threads) return policy.threads;
  const int omp = omp_get_max_threads();
  return omp > 0 ? static_cast<unsigned>(omp) : std::max(1u, std::thread::hardware_concurrency());
}

solution solve(const cpu& policy, const problem& p, const solve_options& options) {
  algorithm algo = options.algo;
  if (algo == algorithm::automatic) {
    const double available =
        options.memory_limit ? double(options.memory_limit) : 0.95 * double(available_host_memory());
    algo = two_list_planned_bytes(p) <= available ? algorithm::two_list : algorithm::four_list;
  }
  solution result;
  switch (algo) {
    case algorithm::two_list:
      result = detail::solve_two_list(policy, p, options);
      break;
    case algorithm::four_list:
      result = detail::solve_four_list(policy, p, options);
      break;
    default:
      throw std::invalid_argument("unknown algorithm");
  }
  if (result.feasible && !is_certificate(p, result.subset)) {
    throw std::logic_error("internal error: the solver's subset does not verify; no answer is given");
  }
  return result;
}

solution solve(const cuda& policy, const problem& p, const solve_options& options) {
  if (options.algo != algorithm::automatic && options.algo != algorithm::two_list) {
    throw std::invalid_argument("the CUDA backend has the two-list algorithm only");
  }
  if (!cuda_compiled()) throw backend_unavailable("this build of ssum has no CUDA backend");
  if (cuda_devices().empty()) throw backend_unavailable("no CUDA device is present");
  solution result = detail::solve_two_list_cuda(policy, p, options);
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

// Whether auto should run `p` on device 0: worth the start-up, and the device two-list can
// take it (two_list_merging_refusal, and lists that fit the device's free memory and the
// caller's limit). Asks the driver only when the size says it may pay.
bool cuda_worth_it(const problem& p, const solve_options& options, unsigned threads) {
  if (options.algo == algorithm::four_list) return false;
  const std::size_t n = p.weights.size();
  if (host_two_list_seconds(n, threads) < cuda_start_seconds) return false;
  if (!cuda_compiled()) return false;
  if (detail::two_list_merging_refusal(p, detail::totals_of(p), options.count)) return false;
  const auto devices = cuda_devices();
  if (devices.empty()) return false;
  double room = detail::cuda_solver_room(devices.front().ordinal);
  if (options.memory_limit) room = std::min(room, double(options.memory_limit));
  return detail::two_list_merging_planned_bytes(n) <= room;
}

}  // namespace

solution solve(backend which, unsigned threads, const problem& p, const solve_options& options) {
  switch (which) {
    case backend::automatic:
      if (cuda_worth_it(p, options, resolved_threads(cpu{threads}))) return solve(cuda{}, p, options);
      return solve(cpu{threads}, p, options);
    case backend::cpu:
      return solve(cpu{threads}, p, options);
    case backend::cuda:
      return solve(cuda{}, p, options);
  }
  throw std::invalid_argument("unknown backend");
}

}  // namespace ssum

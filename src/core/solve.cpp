// The solver's front door: picks the backend, runs it, and re-verifies every subset it is
// about to hand out, so that no caller ever sees an unchecked answer.
#include "ssum/solve.hpp"

#include <omp.h>

#include <cstdint>
#include <stdexcept>
#include <thread>

#include "core/two_list_cuda.hpp"
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

solution solve(backend which, unsigned threads, const problem& p, const solve_options& options) {
  switch (which) {
    case backend::automatic:
    case backend::cpu:
      return solve(cpu{threads}, p, options);
    case backend::cuda:
      if (!cuda_compiled()) throw backend_unavailable("this build of ssum has no CUDA backend");
      if (cuda_devices().empty()) throw backend_unavailable("no CUDA device is present");
      // ssum::solve(cuda{}, ...) exists; the command line takes it once it has passed its
      // tests on a device (docs/roadmap.md).
      throw backend_unavailable("the CUDA solver is not enabled in this version yet (it awaits validation on a GPU); "
                                "use --backend cpu");
  }
  throw std::invalid_argument("unknown backend");
}

}  // namespace ssum

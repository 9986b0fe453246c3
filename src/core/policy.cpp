// The host policy's thread count (ssum/policy.hpp).
#include "ssum/policy.hpp"

#include <omp.h>

#include <algorithm>
#include <thread>

namespace ssum {

unsigned resolved_threads(const cpu& policy) {
  if (policy.threads) return policy.threads;
  const int omp = omp_get_max_threads();
  return omp > 0 ? static_cast<unsigned>(omp) : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace ssum

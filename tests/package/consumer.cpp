// A program that uses only ssum's host API, built against the installed package with no CUDA
// toolkit in sight; it runs wherever libssum.so runs, GPU or not.
#include <ssum/ssum.hpp>

#include <cstdio>
#include <cstring>

int main() {
  const ssum::problem p = ssum::parse_problem("target: 7\n1 2 4 8\n");
  const ssum::solution s = ssum::solve(ssum::cpu{1}, p);
  const bool ok = s.feasible && ssum::is_certificate(p, s.subset) && s.subset.size() == 3;
  const bool versioned = std::strcmp(ssum::version, SSUM_VERSION_STRING) == 0;
  // Asking for devices is safe without a driver: an empty list, never a crash.
  const std::size_t devices = ssum::cuda_devices().size();
  std::printf("consumer: ssum %s, %zu CUDA device(s)\n", ssum::version, devices);
  std::puts(ok && versioned ? "consumer: ok" : "consumer: wrong answer");
  return ok && versioned ? 0 : 1;
}

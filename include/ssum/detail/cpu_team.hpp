#pragma once
// The host backend's one way to run a team: run(thread, team_size) on `threads` OpenMP
// threads (the team OpenMP grants may be smaller), or once on the calling thread without
// OpenMP or with one thread. Callers use barriers only when team_size > 1.
#include <algorithm>
#include <cstddef>
#include <thread>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace ssum::detail {

/// A team beyond this many threads per hardware thread only takes turns on the cores, and
/// its start-up, barriers and per-thread pieces (a two-list's 64 blocks a thread) grow with
/// it: 4096 threads took 49 s on a 39-item two-list that 2 finish in milliseconds.
constexpr unsigned threads_per_hardware_thread = 4;

/// `threads` capped at what the work can use: no more than `units` (its pieces that can run
/// apart) and than threads_per_hardware_thread times the hardware's threads. Never 0.
inline unsigned capped_team(unsigned threads, std::size_t units = std::size_t(-1)) {
#ifdef _OPENMP
  const unsigned hardware = unsigned(std::max(1, omp_get_num_procs()));
#else
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
#endif
  const std::size_t most = std::min<std::size_t>(units, std::size_t(hardware) * threads_per_hardware_thread);
  return unsigned(std::max<std::size_t>(1, std::min<std::size_t>(threads, most)));
}

template <class Run>
void cpu_team(unsigned threads, const Run& run) {
#ifdef _OPENMP
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    run(static_cast<unsigned>(omp_get_thread_num()), static_cast<unsigned>(omp_get_num_threads()));
    return;
  }
#endif
  (void)threads;
  run(0u, 1u);
}

}  // namespace ssum::detail

#pragma once
// The host backend's one way to run a team: run(thread, team_size) on `threads` OpenMP
// threads (the team OpenMP grants may be smaller), or once on the calling thread without
// OpenMP or with one thread. Callers use barriers only when team_size > 1.
#ifdef _OPENMP
#include <omp.h>
#endif

namespace ssum::detail {

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

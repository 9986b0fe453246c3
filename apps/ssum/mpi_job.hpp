#pragma once
// `mpirun -np K ssum solve ...`: one solve over K MPI ranks. Rank 0 reads and checks the
// instance and sends it to the others; every rank runs the solve, and when its plan is the
// four-list, the residue classes' units come from a work_pool on rank 0 (ssum/work_share.hpp),
// handed out in shrinking ranges as ranks ask. The first subset found stops every rank and is
// verified on rank 0; counts add up on rank 0; a rank that fails ends the job with its error,
// never with a verdict from part of the work. Other plans run on rank 0 alone.
//
// Messages go between rank 0 and each other rank only, sent and received by each process's
// main thread while its solve runs on another (MPI_THREAD_FUNNELED).
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::cli {

/// Whether the process was started by an MPI launcher (Open MPI's mpirun, or a PMI one).
bool started_by_mpi_launcher();

/// A failure's exit code and one-line message (the program's own mapping of exceptions).
using failure_of = std::function<std::pair<int, std::string>(std::exception_ptr)>;

struct job_answer {
  ssum::solution answer;            // verified against the instance on rank 0
  int ranks = 1;
  bool shared = false;              // the four-list's units went to every rank
  std::vector<double> rank_seconds; // each rank's solve, rank 0 first
  std::string note;                 // a sentence on how the job ran, for people
};

/// A rank other than 0 failed: the job's exit code and the message naming the rank.
struct rank_failure {
  int code;
  std::string message;
};

class mpi_job {
 public:
  mpi_job(int& argc, char**& argv);  // MPI_Init_thread; each rank takes its GPU by local rank
  ~mpi_job();                        // MPI_Finalize
  mpi_job(const mpi_job&) = delete;
  mpi_job& operator=(const mpi_job&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Host threads for this rank when --threads is not given: the node's cores over its ranks.
  unsigned default_threads() const;

  /// Rank 0 sends `p` (nullopt: it could not read it, and every rank ends with `code`); the
  /// others receive it, or nullopt and `code` set to exit with (quietly: rank 0 says why).
  std::optional<problem> broadcast(const std::optional<problem>& p, int& code);

  /// The solve over every rank. Rank 0: the job's answer, or throws its own failure (as
  /// ssum::solve would), or rank_failure for another rank's; the others: nullopt, their own
  /// failures sent to rank 0. `interrupt` is raised by SIGINT/SIGTERM.
  std::optional<job_answer> solve(backend which, unsigned threads, const problem& p, solve_options options,
                                  const std::atomic<bool>& interrupt, const failure_of& failure);

 private:
  std::optional<job_answer> coordinate(backend which, unsigned threads, const problem& p, solve_options options,
                                       const std::atomic<bool>& interrupt);
  void work(backend which, unsigned threads, const problem& p, solve_options options,
            const std::atomic<bool>& interrupt, const failure_of& failure);
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace ssum::cli

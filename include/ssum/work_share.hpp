#pragma once
// One four-list search shared by several processes (or several solves in one process): the
// residue classes are cut into units, one process keeps the pool of units (work_pool), and
// each solve asks its work_share which units to search. `mpirun -np K ssum solve` is built on
// these (apps/ssum/mpi_job.cpp carries the requests between the ranks); pool_share serves the
// solves of the process that holds the pool.
//
//   ssum::work_pool pool(options.count);
//   ssum::pool_share mine(pool, /*coordinator=*/true), theirs(pool, false);
//   // one solve per share, with solve_options::share set and algorithm::four_list:
//   // the coordinator's returns the verdict and count of the whole search.
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ssum/int128.hpp"

namespace ssum {

/// A solve's view of a shared search. The four-list calls it from its threads, several at once.
class work_share {
 public:
  virtual ~work_share() = default;
  /// Once, before the lists: the (reduced) instance's fingerprint and items, and this solve's
  /// choice of the modulus' log2 in [1, largest]. Returns the log2 every solve of the search
  /// uses (the first solve's choice, or a checkpoint's). Throws ssum::input_error when another
  /// solve of the search has another instance.
  virtual int begin(std::uint64_t fingerprint, std::size_t n, int proposed, int largest) = 0;
  /// Units to search next, [first, last) with last - first in [1, most], of `units` in all;
  /// nullopt when none is left for this solve.
  virtual std::optional<std::array<std::uint64_t, 2>> next(std::uint64_t units, std::uint64_t most) = 0;
  /// Units [first, last), handed out by next(), searched to their end: `count` solutions in
  /// them (the empty subset of a zero-sum instance excluded) when counting.
  virtual void finished(std::uint64_t first, std::uint64_t last, uint128 count) = 0;
  /// A subset of the instance given to begin() (its indices, ascending), found in a unit
  /// that is not yet finished: called at most once per solve, before finished() of that
  /// unit, so that the search never records solutions without one of them.
  virtual void found(const std::vector<std::size_t>& subset) = 0;
  /// A subset found in this search so far (by any solve, or kept by a checkpoint); the
  /// coordinator answers with it when its own solve found none. Others may return nullopt.
  virtual std::optional<std::vector<std::size_t>> subset() const { return std::nullopt; }
  /// The fraction of the whole search finished so far (for progress).
  virtual double done() const = 0;
  /// After this solve's last unit, unless it found a subset of a decision: the coordinator's
  /// waits until every unit of the search is finished and returns their solutions; the others
  /// return `own`. Polls `cancel` and throws ssum::interrupted when it is raised, or when the
  /// search was stopped (work_pool::stop: a subset found elsewhere, a failure).
  virtual uint128 finish(uint128 own, const std::atomic<bool>* cancel) = 0;
  /// How many solves share the search (the processes of an MPI job): with more than one,
  /// algorithm::automatic takes the four-list on the host where the two lists would take
  /// more than a second in this one.
  virtual std::size_t solves() const { return 1; }
};

/// The units of one search, handed out in shrinking ranges (guided self-scheduling: large
/// first, single units at the end, so fast and slow solves finish together) and recorded as
/// they finish, with an optional checkpoint file kept as solve_options::checkpoint describes.
/// Thread-safe.
class work_pool {
 public:
  /// counting: the search counts every solution (each unit runs to its end). checkpoint: the
  /// file (empty: none), replaced every checkpoint_seconds while units finish.
  explicit work_pool(bool counting, std::string checkpoint = {}, double checkpoint_seconds = 5);
  ~work_pool();
  work_pool(const work_pool&) = delete;
  work_pool& operator=(const work_pool&) = delete;

  /// work_share::begin for every solve of the search: the first call fixes the plan (a valid
  /// checkpoint of this instance keeps its own modulus), later ones are checked against it.
  int begin(std::uint64_t fingerprint, std::size_t n, int proposed, int largest);
  bool begun() const;
  /// The next range for one of `takers` solves asking (nullopt: every unit handed out, or
  /// stopped): about a (2 takers)-th of what is left, at most `most` units.
  std::optional<std::array<std::uint64_t, 2>> grant(std::size_t takers, std::uint64_t most);
  /// Records finished units; throws the checkpoint's write error (the search should stop).
  void finished(std::uint64_t first, std::uint64_t last, uint128 count);
  /// Keeps the first subset found (work_share::found): written with the checkpoint; a
  /// decision that holds one is answered.
  void found(const std::vector<std::size_t>& subset);
  /// The subset found so far, or a checkpoint's.
  std::optional<std::vector<std::size_t>> subset() const;
  /// Ends the search early: no more grants; complete() stays false.
  void stop();
  bool stopped() const;
  /// Every unit finished (those of a checkpoint included).
  bool complete() const;
  double done() const;
  /// Solutions in the finished units, the checkpoint's included.
  uint128 count() const;
  std::uint64_t units() const;
  /// At the end: the checkpoint written when the search stopped before its end, removed when
  /// it is complete (every unit finished, or a decision's subset found); throws a failed
  /// write.
  void close();

 private:
  struct state;
  std::unique_ptr<state> s_;
};

/// A work_share served by a work_pool of the same process. The coordinator's finish() waits
/// for the whole search.
class pool_share final : public work_share {
 public:
  pool_share(work_pool& pool, bool coordinator, std::size_t takers = 1)
      : pool_(pool), coordinator_(coordinator), takers_(takers) {}
  int begin(std::uint64_t fingerprint, std::size_t n, int proposed, int largest) override;
  std::optional<std::array<std::uint64_t, 2>> next(std::uint64_t units, std::uint64_t most) override;
  void finished(std::uint64_t first, std::uint64_t last, uint128 count) override;
  void found(const std::vector<std::size_t>& subset) override { pool_.found(subset); }
  std::optional<std::vector<std::size_t>> subset() const override {
    return coordinator_ ? pool_.subset() : std::nullopt;
  }
  double done() const override { return pool_.done(); }
  uint128 finish(uint128 own, const std::atomic<bool>* cancel) override;
  std::size_t solves() const override { return takers_; }

 private:
  work_pool& pool_;
  bool coordinator_;
  std::size_t takers_;
};

}  // namespace ssum

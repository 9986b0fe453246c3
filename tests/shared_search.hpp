#pragma once
// One four-list search shared by `k` solves in this process (threads standing in for MPI
// ranks), put together the way the MPI job of apps/ssum does it: a decision's first subset
// stops the pool, the coordinator (solve 0) answers for all units, any solve's subset counts.
#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "ssum/ssum.hpp"

namespace ssum_test {

struct shared_outcome {
  bool interrupted = false;             // the coordinator's solve ended by the stop
  std::optional<ssum::solution> coordinator;
  std::optional<std::vector<std::size_t>> subset;  // the first subset any solve returned
  std::size_t units = 0;
};

/// Runs solve(options, k) on k threads, each with its own pool_share of one pool.
inline shared_outcome run_shared(std::size_t k, const ssum::solve_options& base,
                                 const std::function<ssum::solution(const ssum::solve_options&, std::size_t)>& solve,
                                 const std::string& checkpoint = {}) {
  ssum::work_pool pool(base.count, checkpoint, 0.0);
  std::vector<ssum::pool_share> shares;
  shares.reserve(k);
  for (std::size_t r = 0; r < k; ++r) shares.emplace_back(pool, r == 0, k);
  std::vector<std::optional<ssum::solution>> answers(k);
  std::vector<std::exception_ptr> errors(k);
  std::vector<std::thread> solves;
  for (std::size_t r = 0; r < k; ++r) {
    solves.emplace_back([&, r] {
      ssum::solve_options options = base;
      options.share = &shares[r];
      try {
        answers[r] = solve(options, r);
        if (answers[r]->feasible && !base.count) pool.stop();  // the first subset ends a decision
      } catch (...) {
        errors[r] = std::current_exception();
        pool.stop();
      }
    });
  }
  for (std::thread& t : solves) t.join();
  shared_outcome out;
  out.units = pool.units();
  for (std::size_t r = 0; r < k; ++r) {
    if (!errors[r]) continue;
    try {
      std::rethrow_exception(errors[r]);
    } catch (const ssum::interrupted&) {
      if (r == 0) out.interrupted = true;
    }  // anything else is the test's failure: rethrown by gtest
  }
  pool.close();
  out.coordinator = answers[0];
  for (std::size_t r = 0; r < k; ++r) {
    if (answers[r] && answers[r]->feasible && !out.subset) out.subset = answers[r]->subset;
  }
  return out;
}

}  // namespace ssum_test

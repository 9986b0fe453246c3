// The completion search (completion_search.hpp).
#include "solver/completion/completion_search.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <omp.h>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "solver/completion/residue_join.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "solver/frame.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {
namespace {

// Positions in r.weights, lightest first.
std::vector<std::size_t> lightest_first(const reduction& r) {
  std::vector<std::size_t> order(r.weights.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return r.weights[a] < r.weights[b]; });
  return order;
}

// What the attempts aim at: the reduced target, or zero-sum the negative items' magnitudes
// (a subset of magnitudes with their sum is a zero-sum subset once those are flipped back).
uint128 search_target(const reduction& r) {
  if (!r.zero_sum) return r.bound;
  uint128 t = 0;
  for (std::size_t i = 0; i < r.weights.size(); ++i) {
    if (r.negative[i]) t += r.weights[i];
  }
  return t;
}

std::uint64_t prime_at_most(std::uint64_t x) {  // x >= 2
  while (x > 2 && !is_prime(x)) --x;
  return x;
}

}  // namespace

std::optional<completion_plan> completion_plan_for(const reduction& r, unsigned threads, double room) {
  if (r.outcome != reduction::verdict::open) return std::nullopt;
  const std::vector<std::size_t> order = lightest_first(r);
  std::optional<completion_plan> best;
  double best_cost = std::ldexp(1.0, 28);
  const double target = double(search_target(r));
  for (std::size_t k = 48; k <= 92 && k + 8 < order.size(); k += 4) {
    // The K items stand for the pool they are drawn from (the 2K lightest). Over the 2^K
    // subsets the sum has mean sum(w)/2 and deviation sqrt(sum(w^2))/2, nearly a normal law;
    // the greedy puts the residual at the mean unless the target is below it (then the
    // residual is the target itself, z deviations away).
    const std::size_t pool = std::min(order.size(), 2 * k);
    double mean_w = 0, mean_w2 = 0;
    for (std::size_t j = 0; j < pool; ++j) {
      const double w = double(r.weights[order[j]]);
      mean_w += w / double(pool), mean_w2 += w * w / double(pool);
    }
    const double mean = double(k) * mean_w / 2, deviation = std::sqrt(double(k) * mean_w2) / 2;
    const double z = target >= mean ? 0 : (mean - target) / deviation;
    const double log2_solutions =
        double(k) - std::log2(2.5066 * std::max(1.0, deviation)) - z * z / (2 * std::log(2.0));
    // M at most the lists' size (each class walks them) and at least what keeps a class to
    // 2^22 pairs a side; within that, the M of the least work, a pair (written, partitioned,
    // joined, its memory first touched) weighing about 3 steps of a walk. That is M near the
    // solutions expected when they are fewer than 2^(K/4), and 2^(K/4) when more.
    const double lists = std::ldexp(1.0, int(k / 4)), solutions = std::exp2(log2_solutions);
    const double m = std::max({std::min(lists, solutions), std::ldexp(1.0, int(k / 2) - 22), 2.0});
    const std::uint64_t modulus = prime_at_most(std::uint64_t(std::min(m, lists)));
    const double classes = std::max(1.0, double(modulus) / solutions);
    const double cost = 4 * lists + classes * (2 * lists + 6 * lists * lists / double(modulus));
    const double bytes = residue_join::planned_bytes(k, modulus, threads);
    if (cost < best_cost && bytes <= room) {
      best_cost = cost;
      best = completion_plan{k, modulus, log2_solutions, std::uint64_t(std::ceil(4 * classes)), bytes};
    }
  }
  return best;
}

solution solve_completion(const cpu& policy, const problem& p, const reduction& r, const solve_options& options) {
  const auto start = clock_type::now();
  solution result;
  result.algorithm = "completion";
  result.backend = "cpu";
  result.threads = resolved_threads(policy);
  const unsigned threads = result.threads;
  const std::optional<completion_plan> plan =
      completion_plan_for(r, threads, host_plan_room(options.memory_limit));
  if (!plan) throw std::invalid_argument("the completion search needs a dense instance");
  result.planned_bytes = std::uint64_t(plan->bytes);
  const std::size_t k = plan->items, n = r.weights.size();
  const std::vector<std::size_t> order = lightest_first(r);
  const std::size_t pool_size = std::min(n, 2 * k);
  const uint128 target = search_target(r);
  const std::uint64_t budget = std::max<std::uint64_t>(4, plan->classes);
  std::mt19937_64 rng(options.seed);
  std::vector<residue_join::scratch> scratch(threads);
  residue_join join(k, plan->modulus, threads, options.cancel);
  // Progress: the open-ended search reports the share of its time limit spent (0 without one).
  const auto report = [&] {
    if (!options.on_progress) return;
    const double spent = options.time_limit > 0 ? std::min(1.0, seconds_since(start) / options.time_limit) : 0.0;
    options.on_progress(progress{"search", spent, spent});
  };
  report();
  for (;;) {
    check_cancel(options);
    std::vector<std::size_t> pool(order.begin(), order.begin() + std::ptrdiff_t(pool_size));
    std::shuffle(pool.begin(), pool.end(), rng);
    const std::vector<std::size_t> sub(pool.begin(), pool.begin() + std::ptrdiff_t(k));
    std::vector<char> in_sub(n, 0);
    uint128 sub_total = 0;
    for (const std::size_t i : sub) in_sub[i] = 1, sub_total += r.weights[i];
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < n; ++i) {
      if (!in_sub[i]) rest.push_back(i);
    }
    std::shuffle(rest.begin(), rest.end(), rng);
    // Fix the others so that the residual is about half the K items' total.
    const uint128 half = sub_total / 2, goal = target > half ? target - half : 0;
    uint128 fixed = 0;
    std::vector<char> taken(n, 0);
    std::vector<std::size_t> left;
    for (const std::size_t i : rest) {
      if (fixed + r.weights[i] <= goal) {
        fixed += r.weights[i], taken[i] = 1;
      } else {
        left.push_back(i);
      }
    }
    std::sort(left.begin(), left.end(), [&](std::size_t a, std::size_t b) { return r.weights[a] > r.weights[b]; });
    for (const std::size_t i : left) {
      if (fixed + r.weights[i] <= goal) fixed += r.weights[i], taken[i] = 1;
    }
    const std::uint64_t first_class = rng();
    const uint128 residual = target - fixed;
    if (residual > sub_total) continue;  // this choice cannot reach the target
    // Zero-sum: the sub-instance's subset that completes the negative items exactly is the
    // empty subset of the original; it is excluded when the fixed part allows it.
    std::vector<bool> excluded;
    if (r.zero_sum) {
      bool trivial = true;
      for (const std::size_t i : rest) trivial = trivial && bool(taken[i]) == bool(r.negative[i]);
      if (trivial) {
        for (const std::size_t i : sub) excluded.push_back(r.negative[i]);
      }
    }
    std::vector<uint128> sub_weights;
    for (const std::size_t i : sub) sub_weights.push_back(r.weights[i]);
    join.assign(sub_weights, residual, excluded);
    // Rounds of one class per thread; the first class of the sequence that holds a solution
    // answers, whatever the thread count.
    for (std::uint64_t done = 0; done < budget;) {
      const auto round = static_cast<unsigned>(std::min<std::uint64_t>(threads, budget - done));
      std::vector<std::optional<std::vector<std::size_t>>> found(round);
      bool out_of_memory = false;
#pragma omp parallel for num_threads(round) schedule(static, 1)
      for (unsigned j = 0; j < round; ++j) {
        try {
          found[j] = join.search((first_class + done + j) % plan->modulus, scratch[j]);
        } catch (const std::bad_alloc&) {
#pragma omp critical(completion_out_of_memory)
          out_of_memory = true;
        }
      }
      check_cancel(options);
      if (out_of_memory) throw std::bad_alloc();
      done += round;
      report();
      for (const auto& positions : found) {
        if (!positions) continue;
        std::vector<char> in(n, 0);
        for (const std::size_t i : rest) in[i] = taken[i];
        for (const std::size_t j : *positions) in[sub[j]] = 1;
        std::vector<std::size_t> chosen;
        for (std::size_t i = 0; i < n; ++i) {
          // Zero-sum: the negative items are in by default, so the chosen ones are left out.
          if (bool(in[i]) != (r.zero_sum && r.negative[i])) chosen.push_back(i);
        }
        if (chosen.empty()) continue;  // the empty subset (excluded above; kept out here too)
        result.feasible = true;
        result.status = status::feasible;
        result.subset = map_back(p, r, chosen);
        result.seconds.search = seconds_since(start);
        result.seconds.total = result.seconds.search;
        return result;
      }
    }
  }
}

}  // namespace ssum::detail

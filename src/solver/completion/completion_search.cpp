// The completion search (completion_search.hpp).
#include "solver/completion/completion_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "solver/frame.hpp"

namespace ssum::detail {
namespace {

// Positions in r.weights, lightest first.
std::vector<std::size_t> lightest_first(const reduction& r) {
  std::vector<std::size_t> order(r.weights.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return r.weights[a] < r.weights[b]; });
  return order;
}

}  // namespace

std::optional<completion_plan> completion_plan_for(const reduction& r) {
  if (r.outcome != reduction::verdict::open || r.zero_sum) return std::nullopt;
  const std::vector<std::size_t> order = lightest_first(r);
  std::optional<completion_plan> best;
  double best_cost = std::ldexp(1.0, 28);
  const double target = double(r.bound);
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
    const double lists = std::ldexp(1.0, int(k / 4));
    const double classes = std::max(1.0, lists / std::exp2(log2_solutions));
    const double cost = lists * (4 + classes);
    if (cost < best_cost) best_cost = cost, best = completion_plan{k, log2_solutions};
  }
  return best;
}

solution solve_completion(const cpu& policy, const problem& p, const reduction& r, const solve_options& options) {
  const auto start = clock_type::now();
  const std::optional<completion_plan> plan = completion_plan_for(r);
  if (!plan) throw std::invalid_argument("the completion search needs a dense instance");
  const std::size_t k = plan->items, n = r.weights.size();
  const std::vector<std::size_t> order = lightest_first(r);
  const std::size_t pool_size = std::min(n, 2 * k);
  const uint128 target = r.bound;
  std::mt19937_64 rng(20261202);
  solution result;
  result.algorithm = "completion";
  result.backend = "cpu";
  result.threads = resolved_threads(policy);
  for (unsigned attempt = 0;; ++attempt) {
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
    std::vector<std::size_t> taken, left;
    for (const std::size_t i : rest) {
      if (fixed + r.weights[i] <= goal) {
        fixed += r.weights[i];
        taken.push_back(i);
      } else {
        left.push_back(i);
      }
    }
    std::sort(left.begin(), left.end(), [&](std::size_t a, std::size_t b) { return r.weights[a] > r.weights[b]; });
    for (const std::size_t i : left) {
      if (fixed + r.weights[i] <= goal) fixed += r.weights[i], taken.push_back(i);
    }
    const uint128 residual = target - fixed;
    if (residual > sub_total) continue;  // this choice cannot reach the target
    problem q;
    for (const std::size_t i : sub) q.weights.push_back(int128(r.weights[i]));
    q.target = int128(residual);
    solve_options o;
    o.algo = algorithm::four_list;
    o.cancel = options.cancel;
    o.memory_limit = options.memory_limit;
    o.time_limit = 0.5 * double(1u << std::min(attempt, 6u));
    const solution s = solve(cpu{result.threads}, q, o);
    if (s.status != status::feasible) continue;
    std::vector<std::size_t> chosen = taken;
    for (const std::size_t j : s.subset) chosen.push_back(sub[j]);
    result.feasible = true;
    result.subset = map_back(p, r, chosen);
    result.planned_bytes = s.planned_bytes;
    result.seconds.search = seconds_since(start);
    result.seconds.total = result.seconds.search;
    return result;
  }
}

}  // namespace ssum::detail

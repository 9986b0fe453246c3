// The completion search (completion_search.hpp).
#include "solver/completion/completion_search.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <omp.h>
#include <random>
#include <stdexcept>
#include <vector>

#include "solver/completion/differencing.hpp"
#include "solver/completion/residue_join.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "solver/frame.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {
namespace {

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

// The partition form of the search (Karmarkar and Karp, *The differencing method of set
// partitioning*, 1982): the magnitudes and, unless the target is the middle, one number
// d = total - 2t' (t' the target or, beyond the middle, total - target): the side of a perfect
// partition that holds d sums to t' once d is taken away.
struct partition_form {
  uint128 d = 0;              // 0: the target is the middle, no extra number
  bool complemented = false;  // the subset of sum t' is the one left out
  std::size_t m = 0;          // the numbers: r.weights, then d when d > 0
};

partition_form partition_form_of(const reduction& r) {
  partition_form f;
  uint128 total = 0;
  for (const uint128 w : r.weights) total += w;
  const uint128 t = search_target(r);
  f.complemented = t > total - t;
  const uint128 small = f.complemented ? total - t : t;
  f.d = total - 2 * small;
  f.m = r.weights.size() + (f.d > 0 ? 1 : 0);
  return f;
}

// The positions in r.weights of the subset behind a perfect partition of d's numbers (the
// ids left on the sides side_of_left): the side that holds d, or the other one complemented;
// zero-sum, the negative items are in by default, so the chosen ones are left out. Empty only
// for zero-sum's empty subset; with d = 0 both sides balance, so all items (the other side's
// reading) answer instead.
std::vector<std::size_t> chosen_of(const reduction& r, const partition_form& f, const differenced& d,
                                   const std::vector<char>& side_of_left) {
  const std::vector<char> side = sides(d, side_of_left);
  const char with_d = f.d > 0 ? side[f.m - 1] : 1;
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < r.weights.size(); ++i) {
    const bool in = (side[i] == with_d) != f.complemented;
    if (in != (r.zero_sum && r.negative[i])) chosen.push_back(i);
  }
  if (chosen.empty() && r.zero_sum && f.d == 0) {
    for (std::size_t i = 0; i < r.weights.size(); ++i) chosen.push_back(i);
  }
  return chosen;
}

// Whether the pass ended at 0 with a partition that answers (zero-sum: not the empty subset).
bool perfect_answers(const reduction& r, const partition_form& f, const differenced& d) {
  if (d.left.size() != 1 || (!d.value.empty() && d.value[d.left[0]] != 0)) return false;
  return !chosen_of(r, f, d, std::vector<char>(1, 0)).empty();
}

std::optional<completion_plan> regular_plan(const differenced& d, std::size_t m, unsigned threads, double room);

}  // namespace

double log2_expected_solutions(const reduction& r) {
  double total = 0, squares = 0;
  for (const uint128 w : r.weights) total += double(w), squares += double(w) * double(w);
  const double deviation = std::sqrt(squares) / 2;
  const double z = std::abs(double(search_target(r)) - total / 2) / std::max(1.0, deviation);
  return double(r.weights.size()) - std::log2(2.5066 * std::max(1.0, deviation)) - z * z / (2 * std::log(2.0));
}

std::optional<completion_plan> completion_plan_for(const reduction& r, unsigned threads, double room,
                                                   bool dense_first) {
  if (r.outcome != reduction::verdict::open) return std::nullopt;
  const partition_form f = partition_form_of(r);
  const std::size_t m = f.m;
  if (m < 48) return std::nullopt;
  // The instance itself must expect solutions (log2_expected_solutions): differencing keeps
  // every solution it leaves, but its numbers' spread says nothing of a target at the edge
  // (a few items of many) or of structure that the normal law does not see.
  if (log2_expected_solutions(r) < 8) return std::nullopt;
  // Many numbers above their bits: the dense pass, O(m), most often ends at 0.
  if (dense_first) {
    std::optional<differenced> dense = dense_difference(r.weights, f.d);
    if (dense && double(m) * 64 <= room && perfect_answers(r, f, *dense)) {
      completion_plan plan;
      plan.log2_solutions = double(m), plan.bytes = double(m) * 64, plan.perfect = plan.dense = true;
      plan.room = room;
      plan.pass = std::make_shared<differenced>(std::move(*dense));
      return plan;
    }
  }
  // One differencing pass, to the end: the sum of squares at every count K, and perhaps a
  // perfect partition outright.
  auto pass = std::make_shared<differenced>(difference_down_to(r.weights, f.d, 1, nullptr, 92));
  const differenced& d = *pass;
  std::optional<completion_plan> chosen = regular_plan(d, m, threads, room);
  // Differencing to the end left 0: its sides answer at once (n far above the weights' bits),
  // unless zero-sum they are the empty subset; then the regular plan's attempts, if any.
  if (double(m) * 64 <= room && perfect_answers(r, f, d)) {
    if (!chosen) {
      chosen = completion_plan{};
      chosen->log2_solutions = double(m), chosen->bytes = double(m) * 64;
    }
    chosen->perfect = true;
  }
  if (chosen) chosen->pass = std::move(pass), chosen->room = room;
  return chosen;
}

namespace {

std::optional<completion_plan> regular_plan(const differenced& d, std::size_t m, unsigned threads, double room) {
  // Differenced so far that 48 numbers add up to little: their subset of half the total is
  // a small table's work (the dynamic program), and about every such table holds one. Up to
  // 2^20 the table is cheaper than any four-list; up to 2^27 it serves where no four-list's
  // classes would share the pairs evenly.
  const auto table = [&]() -> std::optional<completion_plan> {
    if (d.totals[48] > std::ldexp(1.0, 27)) return std::nullopt;
    const double deviation = std::sqrt(d.square_sums[48]) / 2;
    completion_plan t;
    t.items = 48;
    t.log2_solutions = 48 - std::log2(2.5066 * std::max(1.0, deviation));
    t.table = true;
    t.bytes = d.totals[48] / 16 * 9 + double(m) * 64;  // the bitset and its checkpoints
    if (t.bytes > room) return std::nullopt;
    return t;
  };
  if (d.totals[48] <= std::ldexp(1.0, 20)) return table();
  std::optional<completion_plan> best;
  double best_cost = std::ldexp(1.0, 28);
  for (std::size_t k = 48; k <= 92 && k <= m; k += 4) {
    // Over the 2^K subsets of the K numbers the sum has mean total/2 (the target: the
    // partition form's total is even) and deviation sqrt(sum v^2) / 2, nearly a normal law.
    const double deviation = std::sqrt(d.square_sums[k]) / 2;
    const double log2_solutions = double(k) - std::log2(2.5066 * std::max(1.0, deviation));
    // M at most the lists' size (each class walks them) and at least what keeps a class to
    // 2^22 pairs a side; within that, the M of the least work, a pair (written, partitioned,
    // joined, its memory first touched) weighing about 3 steps of a walk. That is M near the
    // solutions expected when they are fewer than 2^(K/4), and 2^(K/4) when more.
    const double lists = std::ldexp(1.0, int(k / 4)), solutions = std::exp2(log2_solutions);
    const double mod = std::max({std::min(lists, solutions), std::ldexp(1.0, int(k / 2) - 22), 2.0});
    const std::uint64_t modulus = prime_at_most(std::uint64_t(std::min(mod, lists)));
    // The classes share the pairs evenly only when a quarter's sums spread over many times M.
    if (std::sqrt(d.square_sums[k]) < 64 * double(modulus)) continue;
    const double classes = std::max(1.0, double(modulus) / solutions);
    const double cost = 4 * lists + classes * (2 * lists + 6 * lists * lists / double(modulus));
    const double bytes = residue_join::planned_bytes(k, modulus, threads) + double(m) * 64;
    if (cost < best_cost && bytes <= room) {
      best_cost = cost;
      best = completion_plan{};
      best->items = k, best->modulus = modulus, best->log2_solutions = log2_solutions;
      best->classes = std::uint64_t(std::ceil(4 * classes)), best->bytes = bytes;
    }
  }
  return best ? best : table();
}

}  // namespace

solution solve_completion(const host_share& host, const problem& p, const reduction& r, const completion_plan& plan,
                          const solve_options& options) {
  const auto start = clock_type::now();
  solution result;
  result.algorithm = "completion";
  result.backend = "cpu";
  result.threads = host.threads;
  const unsigned threads = result.threads;
  result.planned_bytes = std::uint64_t(plan.bytes);
  const std::size_t k = plan.items;
  const partition_form f = partition_form_of(r);
  const std::size_t m = f.m;
  const std::uint64_t budget = std::max<std::uint64_t>(4, plan.classes);
  std::mt19937_64 rng(options.seed);
  std::vector<residue_join::scratch> scratch(threads);
  std::optional<residue_join> join;
  if (!plan.table && k >= 8) join.emplace(k, plan.modulus, threads, options.cancel);
  // Progress: the open-ended search reports the share of its time limit spent (0 without one).
  const auto report = [&] {
    if (!options.on_progress) return;
    const double spent = options.time_limit > 0 ? std::min(1.0, seconds_since(start) / options.time_limit) : 0.0;
    options.on_progress(progress{"search", spent, spent});
  };
  report();
  for (unsigned attempt = 0;; ++attempt) {
    check_cancel(options);
    // The first attempt's numbers come from the plan's pass where it holds them.
    differenced own;
    const differenced* use = &own;
    if (attempt == 0 && plan.perfect) {
      use = plan.pass.get();
    } else if (attempt == 0 && plan.pass && k == 48 && plan.pass->left_at_48.size() == 48) {
      const differenced& pass = *plan.pass;
      own.numbers = m;
      own.value.assign(pass.value.begin(), pass.value.begin() + std::ptrdiff_t(m + pass.parts_at_48));
      own.parts.assign(pass.parts.begin(), pass.parts.begin() + std::ptrdiff_t(pass.parts_at_48));
      own.left = pass.left_at_48;
    } else if (k == 0) {
      // A perfect plan without attempts of its own answers on the first one (perfect_answers).
      throw out_of_reach("the completion search's differencing found no answer, and no other attempt fits "
                         "this instance");
    } else {
      own = difference_down_to(r.weights, f.d, k, attempt == 0 ? nullptr : &rng);
    }
    const differenced& d = *use;
    const std::uint64_t first_class = rng();
    // A subset of the K numbers with half their total is a perfect partition of them; the
    // original subset behind it, or nothing (zero-sum's empty subset).
    const auto answer = [&](const std::vector<std::size_t>& positions) {
      // The chosen K numbers on side 1; each difference's parts on its side and the other.
      std::vector<char> side_of_left(d.left.size(), 0);
      for (const std::size_t j : positions) side_of_left[j] = 1;
      const std::vector<std::size_t> chosen = chosen_of(r, f, d, side_of_left);
      if (chosen.empty()) return false;
      result.feasible = true;
      result.subset = map_back(p, r, chosen);
      result.seconds.search = seconds_since(start);
      result.seconds.total = result.seconds.search;
      return true;
    };
    if (attempt == 0 && plan.perfect) {
      if (answer({})) return result;  // one number, 0: both sides are equal
      continue;
    }
    std::vector<uint128> left;
    uint128 total = 0;
    for (const std::uint32_t id : d.left) left.push_back(d.value[id]), total += d.value[id];
    if (plan.table) {
      // Small numbers: the dynamic program answers their half exactly.
      problem q;
      for (const uint128 v : left) q.weights.push_back(int128(v));
      q.target = int128(total / 2);
      solve_options o;
      o.algo = algorithm::dynamic_programming;
      o.cancel = options.cancel;
      // The table's share of the plan: never more than the room it was planned within.
      o.memory_limit = std::uint64_t(plan.room > 0 ? room_within(plan.room, options) : double(options.memory_limit));
      const solution s = solve(cpu{threads}, q, o);
      report();
      if (s.feasible && answer(s.subset)) return result;
      continue;
    }
    join->assign(left, total / 2, {});
    std::uint64_t overflowed = 0;  // classes beyond the plan's pairs, left unsearched
    // Rounds of one class per thread; the first class of the sequence that holds a solution
    // answers, whatever the thread count.
    for (std::uint64_t done = 0; done < budget;) {
      const auto round = static_cast<unsigned>(std::min<std::uint64_t>(threads, budget - done));
      std::vector<std::optional<std::vector<std::size_t>>> found(round);
      bool out_of_memory = false;
#pragma omp parallel for num_threads(round) schedule(static, 1)
      for (unsigned j = 0; j < round; ++j) {
        try {
          found[j] = join->search((first_class + done + j) % plan.modulus, scratch[j]);
        } catch (const std::bad_alloc&) {
#pragma omp critical(completion_out_of_memory)
          out_of_memory = true;
        }
      }
      check_cancel(options);
      if (out_of_memory) throw std::bad_alloc();
      done += round;
      for (unsigned j = 0; j < round; ++j) overflowed += scratch[j].overflowed ? 1 : 0;
      report();
      for (const auto& positions : found) {
        if (positions && answer(*positions)) return result;
      }
    }
    // Every class of the attempt held more pairs than planned: the numbers' residues are far
    // from even, and growing past the plan is no option.
    if (overflowed == budget) {
      throw insufficient_memory::ran_out(plan_name("the completion search", r.weights.size()), plan.bytes,
                                         plan.room);
    }
  }
}

}  // namespace ssum::detail

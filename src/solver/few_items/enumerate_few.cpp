// Every subset of at most max_items items, visited depth first: a node is a subset, its
// children add one item past its last, so each subset is met once and in lexicographic order.
#include "solver/few_items/enumerate_few.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "ssum/problem.hpp"

namespace ssum::detail {

double enumerate_few_steps(std::size_t n, std::size_t max_items) {
  double steps = 0, c = 1;  // c = C(n, k)
  for (std::size_t k = 0; k <= std::min(n, max_items); ++k) {
    steps += c;
    c = c * double(n - k) / double(k + 1);
  }
  return steps;
}

namespace {

struct walk {
  const std::vector<int128>& w;
  const enumerate_request& r;
  const std::function<bool(const std::vector<std::size_t>&)>& on_subset;
  std::size_t least, most;  // size bounds, the empty subset left out by least >= 1
  std::vector<std::size_t> chosen;
  enumerate_result out;
  std::uint64_t steps = 0;
  bool stopped = false, one_more = false;

  // Visits the subset `chosen` (summing to `sum`) and every one that extends it past `from`.
  void visit(std::size_t from, int128 sum) {
    if (++steps % 4096 == 0 && r.cancel && r.cancel->load(std::memory_order_relaxed)) {
      out.cancelled = true;
      stopped = true;
      return;
    }
    if (chosen.size() >= least && sum >= r.lo && sum <= r.hi) {
      if (r.limit && out.listed == r.limit) {
        one_more = true;  // the limit's look past it: not reported
        stopped = true;
        return;
      }
      ++out.listed;
      if (!on_subset(chosen)) {
        stopped = true;
        return;
      }
    }
    if (chosen.size() == most) return;
    for (std::size_t i = from; i < w.size() && !stopped; ++i) {
      chosen.push_back(i);
      visit(i + 1, sum + w[i]);
      chosen.pop_back();
    }
  }
};

}  // namespace

enumerate_result enumerate_subsets_few(const enumerate_request& r,
                                       const std::function<bool(const std::vector<std::size_t>&)>& on_subset) {
  if (!r.weights) throw std::invalid_argument("enumerate_subsets_few: no weights");
  check_weight_total(*r.weights);  // every partial sum then fits in 128 bits
  const std::size_t n = r.weights->size();
  walk state{*r.weights, r, on_subset, std::max<std::size_t>(r.min_items, r.non_empty ? 1 : 0),
             std::min(r.max_items, n), {}, {}, 0, false, false};
  if (r.lo <= r.hi && state.least <= state.most) {
    state.chosen.reserve(state.most);
    state.visit(0, 0);
  }
  enumerate_result out = state.out;
  out.complete = !state.stopped;  // a limit met with none past it ends the walk unstopped
  return out;
}

}  // namespace ssum::detail

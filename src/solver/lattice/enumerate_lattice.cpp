// The lattice stage's {+-1} enumeration on several threads (enumerate_lattice.hpp).
#include "solver/lattice/enumerate_lattice.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

namespace ssum::detail {

std::optional<std::vector<std::size_t>> plus_minus_one_subset(const rows_problem& p, const std::vector<std::int64_t>& v) {
  for (std::int64_t e : v)
    if (e != 1 && e != -1) return std::nullopt;
  const std::int64_t chosen = -v.back();  // x_j = 1 where v_j = -v_extra
  std::vector<std::size_t> subset;
  for (std::size_t t = 0; t + 1 < v.size(); ++t)
    if (v[t] == chosen) subset.push_back(t);
  if (!is_rows_certificate(p, subset)) return std::nullopt;
  return subset;
}

namespace {

// The search tree's data, computed once and then only read by the workers: Gram-Schmidt in
// long double and the pruning bounds.
class tree {
 public:
  explicit tree(std::vector<std::vector<std::int64_t>> basis)
      : basis_(std::move(basis)), k_(basis_.size()), d_(basis_.front().size()) {
    gram_schmidt();
  }

  std::vector<std::vector<std::int64_t>> basis_;
  std::size_t k_, d_;
  std::vector<std::vector<long double>> b_star_, mu_, mu_t_;  // mu_t_[j][i] = mu_[i][j]
  std::vector<long double> b_star_norm_, offset_bound_;
  std::vector<std::int64_t> dual_bound_;
  std::vector<std::vector<double>> b_star_double_, coordinate_bound_;

 private:
  // Modified Gram-Schmidt in long double from the exact integer basis.
  void gram_schmidt() {
    b_star_.assign(k_, std::vector<long double>(d_));
    b_star_norm_.assign(k_, 0);
    mu_.assign(k_, std::vector<long double>(k_, 0));
    for (std::size_t i = 0; i < k_; ++i) {
      std::vector<long double>& b = b_star_[i];
      for (std::size_t t = 0; t < d_; ++t) b[t] = static_cast<long double>(basis_[i][t]);
      for (std::size_t j = 0; j < i; ++j) {
        long double dot = 0;
        for (std::size_t t = 0; t < d_; ++t) dot += b[t] * b_star_[j][t];
        mu_[i][j] = dot / b_star_norm_[j];
        for (std::size_t t = 0; t < d_; ++t) b[t] -= mu_[i][j] * b_star_[j][t];
      }
      for (std::size_t t = 0; t < d_; ++t) b_star_norm_[i] += b[t] * b[t];
    }
    offset_bound_.assign(k_, 0);
    for (std::size_t i = 0; i < k_; ++i) {
      long double l1 = 0;
      for (long double x : b_star_[i]) l1 += std::fabs(x);
      offset_bound_[i] = l1 / b_star_norm_[i] * (1 + 1e-9L) + 1e-9L;
    }
    dual_bounds();
    mu_t_.assign(k_, std::vector<long double>(k_, 0));
    for (std::size_t i = 0; i < k_; ++i)
      for (std::size_t j = 0; j < i; ++j) mu_t_[j][i] = mu_[i][j];
    // coordinate_bound_[i][t] = ||P_i e_t||_1 (with rounding slack), P_i the projection onto
    // span(b*_i, ..., b*_{k-1}), built from the top level down: P_i = P_{i+1} + b*_i b*_i^T / B_i.
    b_star_double_.assign(k_, std::vector<double>(d_));
    coordinate_bound_.assign(k_, std::vector<double>(d_));
    std::vector<std::vector<long double>> projector(d_, std::vector<long double>(d_, 0));
    for (std::size_t i = k_; i-- > 0;) {
      const std::vector<long double>& b = b_star_[i];
      for (std::size_t t = 0; t < d_; ++t) {
        b_star_double_[i][t] = static_cast<double>(b[t]);
        long double row_l1 = 0;
        for (std::size_t s = 0; s < d_; ++s) {
          projector[t][s] += b[t] * b[s] / b_star_norm_[i];
          row_l1 += std::fabs(projector[t][s]);
        }
        coordinate_bound_[i][t] = static_cast<double>(row_l1) * (1 + 1e-9) + 1e-9;
      }
    }
  }

  // dual_bound_[i] = floor(||d_i||_1) (with rounding slack), d_i the rows of (B B^T)^-1 B: the
  // dual basis in the span of B, so that u_i = <v, d_i> for v = u B.
  void dual_bounds() {
    std::vector<std::vector<long double>> g(k_, std::vector<long double>(2 * k_, 0));
    for (std::size_t i = 0; i < k_; ++i) {
      for (std::size_t j = 0; j < k_; ++j) {
        long double dot = 0;
        for (std::size_t t = 0; t < d_; ++t)
          dot += static_cast<long double>(basis_[i][t]) * static_cast<long double>(basis_[j][t]);
        g[i][j] = dot;
      }
      g[i][k_ + i] = 1;
    }
    for (std::size_t c = 0; c < k_; ++c) {  // Gauss-Jordan, partial pivoting
      std::size_t pivot = c;
      for (std::size_t r = c + 1; r < k_; ++r)
        if (std::fabs(g[r][c]) > std::fabs(g[pivot][c])) pivot = r;
      std::swap(g[c], g[pivot]);
      const long double inverse = 1 / g[c][c];
      for (long double& x : g[c]) x *= inverse;
      for (std::size_t r = 0; r < k_; ++r) {
        if (r == c || g[r][c] == 0) continue;
        const long double f = g[r][c];
        for (std::size_t t = c; t < 2 * k_; ++t) g[r][t] -= f * g[c][t];
      }
    }
    dual_bound_.assign(k_, 0);
    for (std::size_t i = 0; i < k_; ++i) {
      long double l1 = 0;
      for (std::size_t t = 0; t < d_; ++t) {
        long double x = 0;
        for (std::size_t j = 0; j < k_; ++j) x += g[i][k_ + j] * static_cast<long double>(basis_[j][t]);
        l1 += std::fabs(x);
      }
      const long double bound = std::floor(l1 * (1 + 1e-9L) + 1e-6L);
      dual_bound_[i] = bound > 1e15L ? std::int64_t(1) << 50 : static_cast<std::int64_t>(bound);
    }
  }
};

// The projection one level down, pi_i(v) = pi_{i+1}(v) + y b*_i, into `here`, its L1 norm
// into `l1`; false when a coordinate is beyond its bound. Most of the walk's time: vectorized,
// with clones for AVX2 and AVX-512 chosen at load time. This file is compiled without
// floating-point contraction, so every clone forms the same coordinates; the L1 norm's
// rounding differs in its last bits (the order of its sum), far inside the slack of the
// bound it is compared with.
[[gnu::target_clones("default", "avx2", "avx512f")]]
bool project(const double* above, double y, const double* direction, const double* bound, double* here,
             std::size_t d, double& l1) {
  double sum = 0;
  int outside = 0;
#pragma omp simd reduction(+ : sum) reduction(| : outside)
  for (std::size_t c = 0; c < d; ++c) {
    const double x = above[c] + y * direction[c];
    here[c] = x;
    sum += std::fabs(x);
    outside |= std::fabs(x) > bound[c];
  }
  l1 = sum;
  return outside == 0;
}

// A subtree's root: the coefficients of the top levels k - u.size() .. k - 1 (u[0] is the
// lowest of them) and their zig-zag positions, which count towards the discrepancy.
struct prefix {
  std::vector<std::int64_t> u, turn;
};

enum class pass_end { stopped, complete, cut };

// What the workers share: the stop flag (the limit, cancel, the clock, an error), why it
// rose, and the solutions, under a mutex.
class shared_state {
 public:
  shared_state(const rows_problem& p, const lattice_options& o, std::optional<clock_type::time_point> deadline,
               lattice_result& result)
      : p_(p), o_(o), deadline_(deadline), result_(result), seen_(result.subsets.begin(), result.subsets.end()) {}

  const rows_problem& problem() const { return p_; }
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  void halt() { stop_.store(true, std::memory_order_relaxed); }
  // Polled every 2^16 nodes of each worker.
  bool poll() {
    if (stopped()) return true;
    if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) cancelled_.store(true);
    else if (deadline_ && clock_type::now() >= *deadline_) timed_out_.store(true);
    else if (node_budget_ && polled_.fetch_add(0x10000, std::memory_order_relaxed) + 0x10000 >= node_budget_)
      over_budget_.store(true);
    else return false;
    halt();
    return true;
  }
  // Nodes (all workers together, counted in steps of 2^16) after which poll() stops; 0: none.
  void set_node_budget(std::uint64_t nodes) { node_budget_ = nodes; }
  bool over_budget() const { return over_budget_.load(); }
  // A verified subset; true when the call has all the solutions it wants.
  bool add(std::vector<std::size_t> subset) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (reached()) return true;  // another worker filled the limit first
    if (seen_.insert(subset).second) result_.subsets.push_back(std::move(subset));
    if (!reached()) return false;
    halt();
    return true;
  }
  bool cancelled() const { return cancelled_.load(); }
  bool timed_out() const { return timed_out_.load(); }

 private:
  bool reached() const { return o_.limit != 0 && result_.subsets.size() >= o_.limit; }

  const rows_problem& p_;
  const lattice_options& o_;
  std::optional<clock_type::time_point> deadline_;
  lattice_result& result_;
  std::atomic<bool> stop_{false}, cancelled_{false}, timed_out_{false}, over_budget_{false};
  std::uint64_t node_budget_ = 0;
  std::atomic<std::uint64_t> polled_{0};
  std::mutex mutex_;
  std::set<std::vector<std::size_t>> seen_;
};

// One worker's depth-first search state; the searches of one walker run one after another.
class walker {
 public:
  walker(const tree& t, shared_state& s)
      : t_(t), s_(s), k_(t.k_), d_(t.d_), u_(k_), first_(k_), sign_(k_), turn_(k_), discrepancy_(k_ + 1, 0),
        center_(k_), partial_(k_ + 1, 0), above_zero_(k_),
        projection_(k_ + 1, std::vector<double>(d_, 0)), sums_(k_, std::vector<long double>(k_ + 1, 0)),
        stale_(k_) {}

  std::uint64_t nodes() const { return nodes_; }

  // One depth-first pass over the paths of discrepancy at most `budget` below `root`, taking
  // the leaves of discrepancy at least `least`. With `roots`, it stops at level `floor` (at
  // least 1, below the root) instead: each node there that passes the pruning is added to
  // `roots` as the root of a subtree, in the order the search meets them.
  pass_end search(const prefix& root, std::int64_t budget, std::int64_t least, std::size_t floor = 0,
                  std::vector<prefix>* roots = nullptr) {
    const std::size_t top = k_ - root.u.size();
    bool cut = false;
    const long double d = static_cast<long double>(d_);
    // Slack for rounding: the exact squared norm is d, and <pi_i(v), v> <= ||pi_i(v)||_1.
    const long double norm_bound = d * (1 + 1e-10L) + 1e-9L, hoelder_slack = d * 1e-10L + 1e-9L;
    std::fill(stale_.begin(), stale_.end(), k_ - 1);
    above_zero_[k_ - 1] = true;
    // Replays the root's levels: the same sums in the same order as the search that found
    // it, so the subtree sees the same long double values as one thread would.
    for (std::size_t j = k_; j-- > top;) {
      enter(j);
      u_[j] = root.u[j - top];
      turn_[j] = root.turn[j - top];
      const long double y = static_cast<long double>(u_[j]) - center_[j];
      partial_[j] = partial_[j + 1] + y * y * t_.b_star_norm_[j];
      const double yd = static_cast<double>(y);
      for (std::size_t c = 0; c < d_; ++c) projection_[j][c] = projection_[j + 1][c] + yd * t_.b_star_double_[j][c];
      discrepancy_[j] = discrepancy_[j + 1] + turn_[j];
      above_zero_[j - 1] = above_zero_[j] && u_[j] == 0;
    }
    std::size_t i = top - 1;
    enter(i);
    for (;;) {
      if ((++nodes_ & 0xFFFF) == 0 && s_.poll()) return pass_end::stopped;
      if (discrepancy_[i + 1] + turn_[i] > budget) {  // so are the siblings still to come: go up
        cut = true;
        if (++i == top) return pass_end::cut;
        advance(i);
        continue;
      }
      const long double y = static_cast<long double>(u_[i]) - center_[i];
      const long double level_norm = partial_[i + 1] + y * y * t_.b_star_norm_[i];
      // Beyond the norm, or |y| = |<v, b*_i>| / B_i beyond ||b*_i||_1 / B_i: so are the
      // siblings still to come (their |y| never decreases): go up.
      if (level_norm > norm_bound || std::fabs(y) > t_.offset_bound_[i]) {
        if (++i == top) return cut ? pass_end::cut : pass_end::complete;
        advance(i);
        continue;
      }
      // u_i = <v, d_i> with d_i the dual basis vector: |u_i| <= ||d_i||_1. Skips this
      // coefficient only (the zig-zag goes on to the other side).
      if (u_[i] > t_.dual_bound_[i] || u_[i] < -t_.dual_bound_[i]) {
        advance(i);
        continue;
      }
      double l1 = 0;
      const bool within = project(projection_[i + 1].data(), static_cast<double>(y), t_.b_star_double_[i].data(),
                                  t_.coordinate_bound_[i].data(), projection_[i].data(), d_, l1);
      // No vector of entries +-1 below this node: Hoelder's bound, or a coordinate of pi_i(v)
      // beyond |<v, pi_i(e_t)>| <= ||pi_i(e_t)||_1.
      if (!within || level_norm > l1 + hoelder_slack) {
        advance(i);
        continue;
      }
      if (roots && i == floor) {
        roots->push_back({std::vector<std::int64_t>(u_.begin() + i, u_.end()),
                          std::vector<std::int64_t>(turn_.begin() + i, turn_.end())});
        advance(i);
        continue;
      }
      if (i == 0) {
        if (discrepancy_[1] + turn_[0] >= least && found()) return pass_end::stopped;
        advance(i);
        continue;
      }
      partial_[i] = level_norm;
      discrepancy_[i] = discrepancy_[i + 1] + turn_[i];
      above_zero_[i - 1] = above_zero_[i] && u_[i] == 0;
      enter(--i);
    }
  }

 private:
  // The centers' partial sums, sums_[i][j] = -sum_{l >= j} u_l mu_{l,i}, are kept between
  // visits: row i is recomputed only from the highest level whose coefficient changed since
  // (stale_[i]), which makes a descent O(1) amortized instead of O(k).
  void enter(std::size_t i) {
    std::vector<long double>& row = sums_[i];
    for (std::size_t j = stale_[i]; j > i; --j) row[j] = row[j + 1] - static_cast<long double>(u_[j]) * t_.mu_t_[i][j];
    if (i > 0) stale_[i - 1] = std::max(stale_[i - 1], stale_[i]);
    stale_[i] = i;
    const long double c = row[i + 1];
    center_[i] = c;
    // The nearest integer: rint is inlined (llround is a libm call) but rounds in the current
    // rounding mode, which a caller may have changed; the zig-zag's pruning needs the nearest.
    long double nearest = std::rint(c);
    if (c - nearest > 0.5L) nearest += 1;
    else if (nearest - c > 0.5L) nearest -= 1;
    first_[i] = static_cast<std::int64_t>(nearest);
    sign_[i] = c >= static_cast<long double>(first_[i]) ? 1 : -1;
    turn_[i] = 0;
    u_[i] = first_[i];
  }

  // The next coefficient at level i, its distance from the center never decreasing; with
  // every coefficient above at 0 only u >= 0, so that v and -v are not both visited.
  void advance(std::size_t i) {
    const std::int64_t t = ++turn_[i];
    if (i > 0) stale_[i - 1] = std::max(stale_[i - 1], i);
    if (above_zero_[i]) u_[i] = first_[i] + t;
    else u_[i] = first_[i] + ((t & 1) ? sign_[i] * ((t + 1) / 2) : -sign_[i] * (t / 2));
  }

  // A leaf: v (approximately projection_[0]) is checked exactly, turned into x and verified.
  // True when the call has all the solutions it wants.
  bool found() {
    for (double a : projection_[0])
      if (std::fabs(std::fabs(a) - 1) > 0.25) return false;
    // Unsigned arithmetic wraps instead of overflowing; a wrapped sum is caught below.
    std::vector<std::int64_t> v(d_);
    for (std::size_t c = 0; c < d_; ++c) {
      std::uint64_t sum = 0;
      for (std::size_t j = 0; j < k_; ++j)
        sum += static_cast<std::uint64_t>(u_[j]) * static_cast<std::uint64_t>(t_.basis_[j][c]);
      v[c] = static_cast<std::int64_t>(sum);
      if (v[c] != 1 && v[c] != -1) return false;
    }
    std::optional<std::vector<std::size_t>> subset = plus_minus_one_subset(s_.problem(), v);
    return subset && s_.add(std::move(*subset));
  }

  const tree& t_;
  shared_state& s_;
  std::size_t k_, d_;
  std::uint64_t nodes_ = 0;
  std::vector<std::int64_t> u_, first_, sign_, turn_, discrepancy_;
  std::vector<long double> center_, partial_;
  std::vector<bool> above_zero_;  // all coefficients above this level are 0
  // pi_i(v) in double: it only prunes, and double halves the cost of the node's inner loop.
  std::vector<std::vector<double>> projection_;
  std::vector<std::vector<long double>> sums_;
  std::vector<std::size_t> stale_;
};

// The passes (see run()) over a tree, on `threads` walkers.
class enumeration {
 public:
  enumeration(const tree& t, shared_state& s, unsigned threads) : t_(t), s_(s), threads_(threads) {
    for (unsigned w = 0; w < threads_; ++w) walkers_.push_back(std::make_unique<walker>(t_, s_));
  }

  // True when the enumeration ran to its end.
  bool run() {
    // Limited discrepancy search: pass K visits the paths whose discrepancy (the sum over the
    // levels of the zig-zag position of the coefficient, 0 for the one nearest the center) is
    // at most K and takes the leaves of discrepancy exactly K, so that the paths near the
    // rounded centers, where the solutions of a well reduced basis tend to lie, come first;
    // the last pass takes every leaf of discrepancy above the passes before it, so the whole
    // tree is still covered, each leaf once.
    const std::int64_t passes = 8;
    for (std::int64_t budget = 0; budget < passes; ++budget) {
      const pass_end end = pass(budget, budget);
      if (end == pass_end::stopped) return false;
      if (end == pass_end::complete) return true;  // no branch was cut: that was the whole tree
    }
    return pass(std::numeric_limits<std::int64_t>::max() / 4, passes) == pass_end::complete;
  }

  std::uint64_t nodes() const {
    std::uint64_t sum = 0;
    for (const auto& w : walkers_) sum += w->nodes();
    return sum;
  }

 private:
  pass_end pass(std::int64_t budget, std::int64_t least) {
    walker& first = *walkers_.front();
    if (threads_ == 1 || t_.k_ < 2) return first.search({}, budget, least);
    // The subtrees' roots: one level deeper at a time (a few top levels, cheap next to the
    // subtrees) until there are 8 per worker, which evens out their unequal sizes.
    std::vector<prefix> roots;
    pass_end top_end = pass_end::complete;
    for (std::size_t floor = t_.k_ - 1; floor >= 1; --floor) {
      roots.clear();
      top_end = first.search({}, budget, least, floor, &roots);
      if (top_end == pass_end::stopped) return top_end;
      if (roots.size() >= 8 * std::size_t(threads_)) break;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> cut{top_end == pass_end::cut};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&](walker& w) {
      try {
        for (std::size_t r; !s_.stopped() && (r = next.fetch_add(1)) < roots.size();) {
          const pass_end end = w.search(roots[r], budget, least);
          if (end == pass_end::stopped) return;
          if (end == pass_end::cut) cut.store(true, std::memory_order_relaxed);
        }
      } catch (...) {  // bad_alloc, say: stop the others, rethrown after the join
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        s_.halt();
      }
    };
    const std::size_t helpers = std::min<std::size_t>(threads_, roots.size()) - (roots.empty() ? 0 : 1);
    std::vector<std::thread> team;
    try {
      for (std::size_t w = 1; w <= helpers; ++w) team.emplace_back(work, std::ref(*walkers_[w]));
    } catch (...) {
      s_.halt();  // no thread to be had: stop those started, then report
      for (std::thread& th : team) th.join();
      throw;
    }
    work(first);
    for (std::thread& th : team) th.join();
    if (error) std::rethrow_exception(error);
    if (s_.stopped()) return pass_end::stopped;
    return cut.load() ? pass_end::cut : pass_end::complete;
  }

  const tree& t_;
  shared_state& s_;
  unsigned threads_;
  std::vector<std::unique_ptr<walker>> walkers_;
};

}  // namespace

bool enumerate_plus_minus_one(const rows_problem& p, std::vector<std::vector<std::int64_t>> basis,
                              const lattice_options& o, std::optional<clock_type::time_point> deadline,
                              lattice_result& result, std::uint64_t node_budget) {
  if (basis.empty()) {  // the caller never asks for an empty kernel
    result.exhausted = true;
    return false;
  }
  const tree t(std::move(basis));
  shared_state s(p, o, deadline, result);
  s.set_node_budget(node_budget);
  const unsigned threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  enumeration e(t, s, threads);
  const bool exhausted = e.run();
  result.nodes += e.nodes();
  result.cancelled = result.cancelled || s.cancelled();
  result.timed_out = result.timed_out || s.timed_out();
  result.exhausted = exhausted;
  return s.over_budget();
}

}  // namespace ssum::detail

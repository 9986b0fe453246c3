// The lattice stage for multi-row subset sum: fplll reduces, the {+-1} enumeration is ours
// (see lattice_rows.hpp for the method and why "none found" is no proof).
#include "solver/lattice/lattice_rows.hpp"

#include <fplll.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "solver/deadline_watch.hpp"
#include "ssum/int128.hpp"

namespace ssum::detail {

namespace {

using integer_matrix = fplll::ZZ_mat<mpz_t>;
using integer = fplll::Z_NR<mpz_t>;

// Answers "stop now?" from the cancel flag and the deadline, and remembers which one said so.
class stop_check {
 public:
  // deadline_after saturates: a cast of 1e10 s to nanoseconds would overflow into the past.
  stop_check(const lattice_options& o, lattice_result& r)
      : cancel_(o.cancel), deadline_(deadline_after(o.time_limit, clock_type::now())), result_(r) {}
  bool operator()() {
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) result_.cancelled = true;
    else if (deadline_ && clock_type::now() >= *deadline_) result_.timed_out = true;
    return result_.cancelled || result_.timed_out;
  }
  // Seconds left before the deadline; 0 without one.
  double seconds_left() const {
    if (!deadline_) return 0;
    return std::max(1e-3, std::chrono::duration<double>(*deadline_ - clock_type::now()).count());
  }

 private:
  const std::atomic<bool>* cancel_;
  std::optional<clock_type::time_point> deadline_;
  lattice_result& result_;
};

void set_integer(integer& z, int128 v) { z.set_str(ssum::to_string(v).c_str()); }

// The rank of [A | b] over the rationals (fraction-free elimination, exact): the tail of every
// lattice vector lies in that column space, so the kernel lattice has dimension n + 1 - rank.
std::size_t rank_of_rows(const rows_problem& p) {
  const std::size_t m = p.rows.size(), n = p.columns();
  std::vector<std::vector<integer>> a(m, std::vector<integer>(n + 1));
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) set_integer(a[i][j], p.rows[i][j]);
    set_integer(a[i][n], p.targets[i]);
  }
  std::size_t rank = 0;
  integer previous_pivot, t;
  previous_pivot = 1;
  for (std::size_t col = 0; col <= n && rank < m; ++col) {
    std::size_t pivot = rank;
    while (pivot < m && a[pivot][col].is_zero()) ++pivot;
    if (pivot == m) continue;
    std::swap(a[pivot], a[rank]);
    for (std::size_t i = rank + 1; i < m; ++i) {
      for (std::size_t j = col + 1; j <= n; ++j) {  // Bareiss: the division is exact
        t.mul(a[rank][col], a[i][j]);
        t.submul(a[i][col], a[rank][j]);
        mpz_divexact(a[i][j].get_data(), t.get_data(), previous_pivot.get_data());
      }
      a[i][col] = 0;
    }
    previous_pivot = a[rank][col];
    ++rank;
  }
  return rank;
}

// The embedding basis (lattice_rows.hpp) with tail scale `scale`: n + 1 rows of n + 1 + m.
integer_matrix embedding_basis(const rows_problem& p, const integer& scale) {
  const std::size_t m = p.rows.size(), n = p.columns();
  integer_matrix basis(static_cast<int>(n + 1), static_cast<int>(n + 1 + m));
  integer v;
  for (std::size_t j = 0; j <= n; ++j) {
    basis[j][j] = j < n ? 2 : 1;
    for (std::size_t i = 0; i < m; ++i) {
      set_integer(v, j < n ? p.rows[i][j] : p.targets[i]);
      basis[j][n + 1 + i].mul(v, scale);
    }
  }
  for (std::size_t j = 0; j < n; ++j) basis[n][j] = 1;
  return basis;
}

// The reduced basis's rows with a zero tail, cut to their first n + 1 coordinates; empty
// optional when they are fewer than the kernel's dimension (the scale was too small for LLL
// to separate them), as then they may not span the kernel lattice.
std::optional<integer_matrix> kernel_basis(const integer_matrix& reduced, std::size_t width,
                                           std::size_t kernel_dimension) {
  std::vector<int> kept;
  for (int r = 0; r < reduced.get_rows(); ++r) {
    bool zero_tail = true;
    for (int c = static_cast<int>(width); c < reduced.get_cols() && zero_tail; ++c)
      zero_tail = reduced[r][c].is_zero();
    if (zero_tail) kept.push_back(r);
  }
  // More zero-tail rows than the kernel's dimension cannot be independent; fewer: see above.
  if (kept.size() != kernel_dimension) return std::nullopt;
  integer_matrix kernel(static_cast<int>(kept.size()), static_cast<int>(width));
  for (std::size_t r = 0; r < kept.size(); ++r)
    for (std::size_t c = 0; c < width; ++c) kernel[r][c] = reduced[kept[r]][c];
  return kernel;
}

bool same_matrix(const integer_matrix& a, const integer_matrix& b) {
  for (int r = 0; r < a.get_rows(); ++r)
    for (int c = 0; c < a.get_cols(); ++c)
      if (a[r][c] != b[r][c]) return false;
  return true;
}

// The subset that the lattice vector v (first n + 1 coordinates, entries +-1) stands for, when
// it is one and it answers p exactly.
std::optional<std::vector<std::size_t>> subset_of(const rows_problem& p, const std::vector<std::int64_t>& v) {
  for (std::int64_t e : v)
    if (e != 1 && e != -1) return std::nullopt;
  const std::int64_t chosen = -v.back();  // x_j = 1 where v_j = -v_extra
  std::vector<std::size_t> subset;
  for (std::size_t t = 0; t + 1 < v.size(); ++t)
    if (v[t] == chosen) subset.push_back(t);
  if (!is_rows_certificate(p, subset)) return std::nullopt;
  return subset;
}

// fplll's shipped BKZ 2.0 strategies (pruning and preprocessing per block size), loaded once;
// empty when the file is missing or unreadable (fplll then fills in plain ones, no pruning).
const std::vector<fplll::Strategy>& shipped_strategies() {
  static const std::vector<fplll::Strategy> strategies = [] {
    try {
      const std::string path = fplll::strategy_full_path(fplll::default_strategy());
      if (path.empty()) return std::vector<fplll::Strategy>{};
      return fplll::load_strategies_json(path);
    } catch (...) {
      return std::vector<fplll::Strategy>{};
    }
  }();
  return strategies;
}

// One BKZ tour of block size `block_size`, one fplll call (a tour itself runs to its end);
// true when it changed the basis.
bool bkz_tour(integer_matrix& kernel, int block_size, stop_check& should_stop) {
  std::vector<fplll::Strategy> strategies;
  if (static_cast<int>(shipped_strategies().size()) > block_size) strategies = shipped_strategies();
  const double left = should_stop.seconds_left();
  int flags = fplll::BKZ_MAX_LOOPS;
  if (left > 0) flags |= fplll::BKZ_MAX_TIME;
  fplll::BKZParam param(block_size, strategies, fplll::LLL_DEF_DELTA, flags, 1, left);
  const integer_matrix before = kernel;
  fplll::bkz_reduction(&kernel, nullptr, param);
  return !same_matrix(before, kernel);
}

// Progressive BKZ 2.0 (block sizes 10, 20, ... up to `block_size`), one tour per fplll call so
// that cancel and the clock are looked at between tours; `direct` is shown the basis after
// each tour and stops the reduction when it returns true (a basis row that is a solution).
template <class Direct>
void bkz_in_tours(integer_matrix& kernel, int block_size, stop_check& should_stop, Direct direct) {
  std::vector<int> schedule;
  for (int b = 10; b < block_size; b += 10) schedule.push_back(b);
  schedule.push_back(block_size);
  for (std::size_t step = 0; step < schedule.size(); ++step) {
    const bool last = step + 1 == schedule.size();
    const int tours = last ? 8 : 2;
    for (int tour = 0; tour < tours; ++tour) {
      if (should_stop()) return;
      const bool changed = bkz_tour(kernel, schedule[step], should_stop);
      if (direct(kernel)) return;
      if (!changed) break;
    }
  }
}

// Schnorr-Euchner enumeration of the kernel lattice's vectors in {+-1}^d (see the header).
class plus_minus_one_enumeration {
 public:
  plus_minus_one_enumeration(const rows_problem& p, std::vector<std::vector<std::int64_t>> basis,
                             const lattice_options& o, lattice_result& result, stop_check& should_stop)
      : p_(p), basis_(std::move(basis)), k_(basis_.size()), d_(basis_.front().size()), o_(o),
        result_(result), should_stop_(should_stop) {
    gram_schmidt();
  }

  void run() {
    if (k_ == 0) {  // the caller never builds one for an empty kernel
      result_.exhausted = true;
      return;
    }
    // Limited discrepancy search: pass K visits the paths whose discrepancy (the sum over the
    // levels of the zig-zag position of the coefficient, 0 for the one nearest the center) is
    // at most K and takes the leaves of discrepancy exactly K, so that the paths near the
    // rounded centers, where the solutions of a well reduced basis tend to lie, come first;
    // the last pass takes every leaf of discrepancy above the passes before it, so the whole
    // tree is still covered, each leaf once.
    const std::int64_t passes = 8;
    for (std::int64_t budget = 0; budget < passes; ++budget) {
      const pass_end end = pass(budget, budget);
      if (end == pass_end::stopped) return;
      if (end == pass_end::complete) {  // no branch was cut: that was the whole tree
        result_.exhausted = true;
        return;
      }
    }
    if (pass(std::numeric_limits<std::int64_t>::max() / 4, passes) == pass_end::complete) result_.exhausted = true;
  }

 private:
  enum class pass_end { stopped, complete, cut };

  // One depth-first pass over the paths of discrepancy at most `budget`, taking the leaves of
  // discrepancy at least `least`.
  pass_end pass(std::int64_t budget, std::int64_t least) {
    bool cut = false;
    const long double d = static_cast<long double>(d_);
    // Slack for rounding: the exact squared norm is d, and <pi_i(v), v> <= ||pi_i(v)||_1.
    const long double norm_bound = d * (1 + 1e-10L) + 1e-9L, hoelder_slack = d * 1e-10L + 1e-9L;
    std::vector<std::int64_t> u(k_), first(k_), sign(k_), turn(k_), discrepancy(k_ + 1, 0);
    std::vector<long double> center(k_), partial(k_ + 1, 0);
    std::vector<bool> above_zero(k_);  // all coefficients above this level are 0
    // pi_i(v) in double: it only prunes, and double halves the cost of the node's inner loop.
    std::vector<std::vector<double>> projection(k_ + 1, std::vector<double>(d_, 0));
    // The centers' partial sums, sums[i][j] = -sum_{l >= j} u_l mu_{l,i}, are kept between
    // visits: row i is recomputed only from the highest level whose coefficient changed since
    // (stale[i]), which makes a descent O(1) amortized instead of O(k).
    std::vector<std::vector<long double>> sums(k_, std::vector<long double>(k_ + 1, 0));
    std::vector<std::size_t> stale(k_, k_ - 1);
    auto enter = [&](std::size_t i) {
      std::vector<long double>& row = sums[i];
      for (std::size_t j = stale[i]; j > i; --j) row[j] = row[j + 1] - static_cast<long double>(u[j]) * mu_t_[i][j];
      if (i > 0) stale[i - 1] = std::max(stale[i - 1], stale[i]);
      stale[i] = i;
      const long double c = row[i + 1];
      center[i] = c;
      first[i] = std::llround(c);
      sign[i] = c >= static_cast<long double>(first[i]) ? 1 : -1;
      turn[i] = 0;
      u[i] = first[i];
    };
    // The next coefficient at level i, its distance from the center never decreasing; with
    // every coefficient above at 0 only u >= 0, so that v and -v are not both visited.
    auto advance = [&](std::size_t i) {
      const std::int64_t t = ++turn[i];
      if (i > 0) stale[i - 1] = std::max(stale[i - 1], i);
      if (above_zero[i]) u[i] = first[i] + t;
      else u[i] = first[i] + ((t & 1) ? sign[i] * ((t + 1) / 2) : -sign[i] * (t / 2));
    };
    std::size_t i = k_ - 1;
    above_zero[i] = true;
    enter(i);
    for (;;) {
      if ((++result_.nodes & 0xFFFF) == 0 && should_stop_()) return pass_end::stopped;
      if (discrepancy[i + 1] + turn[i] > budget) {  // so are the siblings still to come: go up
        cut = true;
        if (++i == k_) return pass_end::cut;
        advance(i);
        continue;
      }
      const long double y = static_cast<long double>(u[i]) - center[i];
      const long double level_norm = partial[i + 1] + y * y * b_star_norm_[i];
      // Beyond the norm, or |y| = |<v, b*_i>| / B_i beyond ||b*_i||_1 / B_i: so are the
      // siblings still to come (their |y| never decreases): go up.
      if (level_norm > norm_bound || std::fabs(y) > offset_bound_[i]) {
        if (++i == k_) return cut ? pass_end::cut : pass_end::complete;
        advance(i);
        continue;
      }
      // u_i = <v, d_i> with d_i the dual basis vector: |u_i| <= ||d_i||_1. Skips this
      // coefficient only (the zig-zag goes on to the other side).
      if (u[i] > dual_bound_[i] || u[i] < -dual_bound_[i]) {
        advance(i);
        continue;
      }
      const double yd = static_cast<double>(y);
      const double* above = projection[i + 1].data();
      const double* direction = b_star_double_[i].data();
      const double* coordinate_bound = coordinate_bound_[i].data();
      double* here = projection[i].data();
      double l1 = 0;
      bool within = true;
      for (std::size_t t = 0; t < d_; ++t) {
        here[t] = above[t] + yd * direction[t];
        l1 += std::fabs(here[t]);
        within &= std::fabs(here[t]) <= coordinate_bound[t];
      }
      // No vector of entries +-1 below this node: Hoelder's bound, or a coordinate of pi_i(v)
      // beyond |<v, pi_i(e_t)>| <= ||pi_i(e_t)||_1.
      if (!within || level_norm > l1 + hoelder_slack) {
        advance(i);
        continue;
      }
      if (i == 0) {
        if (discrepancy[1] + turn[0] >= least && found(u, projection[0])) return pass_end::stopped;
        advance(i);
        continue;
      }
      partial[i] = level_norm;
      discrepancy[i] = discrepancy[i + 1] + turn[i];
      above_zero[i - 1] = above_zero[i] && u[i] == 0;
      enter(--i);
    }
  }

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

  // A leaf: v (approximately `approx`) is checked exactly, turned into x and verified.
  // True when the call has all the solutions it wants.
  bool found(const std::vector<std::int64_t>& u, const std::vector<double>& approx) {
    for (double a : approx)
      if (std::fabs(std::fabs(a) - 1) > 0.25) return false;
    // Unsigned arithmetic wraps instead of overflowing; a wrapped sum is caught below.
    std::vector<std::int64_t> v(d_);
    for (std::size_t t = 0; t < d_; ++t) {
      std::uint64_t s = 0;
      for (std::size_t j = 0; j < k_; ++j)
        s += static_cast<std::uint64_t>(u[j]) * static_cast<std::uint64_t>(basis_[j][t]);
      v[t] = static_cast<std::int64_t>(s);
      if (v[t] != 1 && v[t] != -1) return false;
    }
    std::optional<std::vector<std::size_t>> subset = subset_of(p_, v);
    if (!subset) return false;
    result_.subsets.push_back(std::move(*subset));
    return o_.limit != 0 && result_.subsets.size() >= o_.limit;
  }

  const rows_problem& p_;
  std::vector<std::vector<std::int64_t>> basis_;
  std::size_t k_, d_;
  const lattice_options& o_;
  lattice_result& result_;
  stop_check& should_stop_;
  std::vector<std::vector<long double>> b_star_, mu_, mu_t_;  // mu_t_[j][i] = mu_[i][j]
  std::vector<long double> b_star_norm_, offset_bound_;
  std::vector<std::int64_t> dual_bound_;
  std::vector<std::vector<double>> b_star_double_, coordinate_bound_;
};

// The kernel basis as int64, or empty when an entry is beyond 2^40 (never after reduction in
// practice; the enumeration's exact check needs headroom).
std::vector<std::vector<std::int64_t>> small_basis(const integer_matrix& kernel) {
  std::vector<std::vector<std::int64_t>> basis(kernel.get_rows(), std::vector<std::int64_t>(kernel.get_cols()));
  for (int r = 0; r < kernel.get_rows(); ++r)
    for (int c = 0; c < kernel.get_cols(); ++c) {
      if (mpz_sizeinbase(kernel[r][c].get_data(), 2) > 40) return {};
      basis[r][c] = kernel[r][c].get_si();
    }
  return basis;
}

}  // namespace

bool lattice_available() { return true; }

lattice_result solve_rows_lattice(const rows_problem& p, const lattice_options& o) {
  const std::size_t m = p.rows.size(), n = p.columns();
  if (p.targets.size() != m) throw std::invalid_argument("solve_rows_lattice: one target per row is needed");
  for (const auto& row : p.rows)
    if (row.size() != n) throw std::invalid_argument("solve_rows_lattice: rows of unequal length");

  lattice_result result;
  stop_check should_stop(o, result);
  const auto start = clock_type::now();
  if (n == 0) {  // the empty subset is the only one
    if (is_rows_certificate(p, {})) result.subsets.push_back({});
    result.exhausted = true;
    return result;
  }
  if (should_stop()) return result;

  // LLL with a tail scale large enough that the zero-tail vectors come first; a scale too
  // small shows as too few of them, and is raised.
  const std::size_t kernel_dimension = n + 1 - rank_of_rows(p);
  std::optional<integer_matrix> kernel;
  integer scale;
  scale = static_cast<long>(1024 * (n + 1));
  for (int attempt = 0; attempt < 6 && !kernel; ++attempt) {
    if (should_stop()) break;
    integer_matrix basis = embedding_basis(p, scale);
    fplll::lll_reduction(basis, 0.99, fplll::LLL_DEF_ETA);
    kernel = kernel_basis(basis, n + 1, kernel_dimension);
    scale.mul_2si(scale, 16);
  }
  if (!kernel || kernel_dimension == 0) {
    result.reduce_seconds = seconds_since(start);
    // No kernel vector: no solution can exist. A failed separation proves nothing.
    result.exhausted = kernel.has_value() && !result.cancelled && !result.timed_out;
    return result;
  }
  const int dimension = static_cast<int>(kernel_dimension);
  int block_size = o.block_size > 0 ? o.block_size : 40;
  block_size = std::min(block_size, dimension);
  // With one solution wanted, a basis row that is one ends the search (with more, the
  // enumeration lists it, and listing it here too would give it twice).
  auto direct = [&](const integer_matrix& reduced) {
    if (o.limit != 1) return false;
    std::vector<std::int64_t> v(reduced.get_cols());
    for (int r = 0; r < reduced.get_rows(); ++r) {
      bool small = true;
      for (int c = 0; c < reduced.get_cols() && small; ++c) {
        small = mpz_cmpabs_ui(reduced[r][c].get_data(), 1) == 0;
        if (small) v[c] = reduced[r][c].get_si();
      }
      if (!small) continue;
      if (std::optional<std::vector<std::size_t>> subset = subset_of(p, v)) {
        result.subsets.push_back(std::move(*subset));
        return true;
      }
    }
    return false;
  };
  if (block_size >= 3) bkz_in_tours(*kernel, block_size, should_stop, direct);
  else direct(*kernel);
  result.reduce_seconds = seconds_since(start);
  if (!result.subsets.empty() || should_stop()) return result;

  const auto enumerate_start = clock_type::now();
  std::vector<std::vector<std::int64_t>> basis = small_basis(*kernel);
  if (!basis.empty()) {
    plus_minus_one_enumeration enumeration(p, std::move(basis), o, result, should_stop);
    enumeration.run();
  }
  result.enumerate_seconds = seconds_since(enumerate_start);
  return result;
}

}  // namespace ssum::detail

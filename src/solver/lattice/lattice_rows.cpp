// The lattice stage for multi-row subset sum: fplll reduces, the {+-1} enumeration is ours
// (enumerate_lattice.cpp; see lattice_rows.hpp for the method and why "none found" is no proof).
#include "solver/lattice/lattice_rows.hpp"

#include <fplll.h>

#include <algorithm>
#include <cfenv>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "solver/deadline_watch.hpp"
#include "solver/lattice/enumerate_lattice.hpp"
#include "solver/lattice/restart_portfolio.hpp"
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
  // A restart stream's: the call's deadline, the portfolio's stop flag.
  stop_check(const std::atomic<bool>* cancel, std::optional<clock_type::time_point> deadline, lattice_result& r)
      : cancel_(cancel), deadline_(deadline), result_(r) {}
  bool operator()() {
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) result_.cancelled = true;
    else if (deadline_ && clock_type::now() >= *deadline_) result_.timed_out = true;
    return result_.cancelled || result_.timed_out;
  }
  std::optional<clock_type::time_point> deadline() const { return deadline_; }
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

// fplll is called from several threads at once (the restart streams, concurrent solves), each
// on matrices of its own. Its process-wide state is made harmless once, before any call:
// - the external enumerator (Stevens's enumlib, the default) runs every enumeration on one
//   global thread pool whose wait is not safe from two callers; fplll's own recursive
//   enumeration keeps its state in the enumeration object, and in BKZ-40 here is as fast;
// - the global GMP random state is initialized lazily on its first use: done here, once. BKZ
//   draws from it only to re-randomize a block after a failed pruned enumeration, which the
//   strategies we keep rule out (shipped_strategies);
// - MPFR's default precision, which fplll's wrappers set and restore, is per thread where MPFR
//   was built thread-safe (mpfr_buildopt_tls_p; Debian's and Ubuntu's are); where it was not,
//   fplll's calls take turns under one lock (fplll_turn).
// This turns fplll's external enumerator off for the whole process. (ThreadSanitizer on an
// instrumented fplll with four threads of LLL and pruned BKZ up to block 40 finds one more
// shared write: glibc's `signgam`, which lgamma sets and fplll never reads.)
void prepare_fplll() {
  static std::once_flag once;
  std::call_once(once, [] {
    fplll::set_external_enumerator(nullptr);
    (void)fplll::RandGen::get_gmp_state();
  });
}

// Held around each call into fplll: no lock where MPFR keeps its precision per thread.
std::unique_lock<std::mutex> fplll_turn() {
  static std::mutex m;
  static const bool per_thread = mpfr_buildopt_tls_p() != 0;
  return per_thread ? std::unique_lock<std::mutex>() : std::unique_lock<std::mutex>(m);
}

// Rounding to nearest for the stage's duration on the calling thread (the threads it starts
// inherit it), the caller's mode restored after: fplll's floating-point reduction fails under
// another mode ("infinite loop in babai" toward zero), and the enumeration's zig-zag assumes it.
class nearest_rounding {
 public:
  nearest_rounding() : saved_(std::fegetround()) {
    if (saved_ != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  }
  ~nearest_rounding() {
    if (saved_ != FE_TONEAREST && saved_ >= 0) std::fesetround(saved_);
  }
  nearest_rounding(const nearest_rounding&) = delete;
  nearest_rounding& operator=(const nearest_rounding&) = delete;

 private:
  int saved_;
};

// fplll's LLL (delta 0.99), in turn where fplll_turn says so.
void lll_reduce(integer_matrix& m) {
  const std::unique_lock<std::mutex> turn = fplll_turn();
  fplll::lll_reduction(m, 0.99, fplll::LLL_DEF_ETA);
}

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

// fplll's shipped BKZ 2.0 strategies (pruning and preprocessing per block size), loaded once;
// empty when the file is missing or unreadable (fplll then fills in plain ones, no pruning).
const std::vector<fplll::Strategy>& shipped_strategies() {
  static const std::vector<fplll::Strategy> strategies = [] {
    try {
      // SSUM_FPLLL_STRATEGIES: a strategies file where fplll's compiled-in path has none (an
      // fplll copied to another machine).
      const char* given = std::getenv("SSUM_FPLLL_STRATEGIES");
      const std::string path =
          given && *given ? std::string(given) : fplll::strategy_full_path(fplll::default_strategy());
      if (path.empty()) return std::vector<fplll::Strategy>{};
      std::vector<fplll::Strategy> loaded = fplll::load_strategies_json(path);
      // BKZ repeats a block's pruned enumeration, re-randomizing the block from fplll's
      // global random state (not safe from several threads), while the chance that every
      // try missed exceeds 1 - min_success_probability (0.5, also in the preprocessing's
      // tours, where it cannot be set): where every pruning's success chance is at least
      // that, one try always ends it. So the strategies are kept up to the first block size
      // with a smaller chance (57 in fplll's file; beyond, plain BKZ); a block's
      // preprocessing uses smaller ones.
      std::size_t kept = 0;
      while (kept < loaded.size() &&
             std::all_of(loaded[kept].pruning_parameters.begin(), loaded[kept].pruning_parameters.end(),
                         [](const fplll::PruningParams& pruning) {
                           return pruning.expectation >= fplll::BKZ_DEF_MIN_SUCCESS_PROBABILITY;
                         }))
        ++kept;
      loaded.resize(kept);
      return loaded;
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
  const std::unique_lock<std::mutex> turn = fplll_turn();
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

// A random unimodular change of basis: the rows shuffled, then each row plus or minus a few
// rows after it (triangular, so invertible over the integers), as Gama, Nguyen and Regev
// re-randomize the basis between enumerations (EUROCRYPT 2010, extreme pruning).
void randomize(integer_matrix& kernel, std::mt19937_64& rng) {
  const int k = kernel.get_rows(), w = kernel.get_cols();
  std::vector<int> order(k);
  for (int r = 0; r < k; ++r) order[r] = r;
  std::shuffle(order.begin(), order.end(), rng);
  integer_matrix mixed(k, w);
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < w; ++c) mixed[r][c] = kernel[order[r]][c];
  for (int i = 0; i + 1 < k; ++i)
    for (int t = 0; t < 3; ++t) {
      const int j = i + 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(k - 1 - i));
      const bool plus = rng() & 1;
      for (int c = 0; c < w; ++c) {
        if (plus) mixed[i][c].add(mixed[i][c], mixed[j][c]);
        else mixed[i][c].sub(mixed[i][c], mixed[j][c]);
      }
    }
  kernel = mixed;
}

// With one solution wanted, a basis row that is one ends the search (with more, the
// enumeration lists it, and listing it here too would give it twice).
bool direct_hit(const rows_problem& p, const lattice_options& o, const integer_matrix& reduced,
                lattice_result& into) {
  if (o.limit != 1) return false;
  std::vector<std::int64_t> v(reduced.get_cols());
  for (int r = 0; r < reduced.get_rows(); ++r) {
    bool small = true;
    for (int c = 0; c < reduced.get_cols() && small; ++c) {
      small = mpz_cmpabs_ui(reduced[r][c].get_data(), 1) == 0;
      if (small) v[c] = reduced[r][c].get_si();
    }
    if (!small) continue;
    if (std::optional<std::vector<std::size_t>> subset = plus_minus_one_subset(p, v)) {
      into.subsets.push_back(std::move(*subset));
      return true;
    }
  }
  return false;
}

// The random numbers of restart stream s; stream 0's are those of the one-thread restarts.
std::mt19937_64 stream_rng(std::uint64_t seed, unsigned s) {
  return std::mt19937_64(seed ^ 0x9E3779B97F4A7C15ull ^ (s * 0xD1B54A32D192ED03ull));
}

// A restart's basis: `reduced` randomized with rng, then LLL and BKZ reduced again (`direct`
// shown each tour's basis); stops before the LLL when should_stop says so.
template <class Direct>
void rereduce(integer_matrix& kernel, const integer_matrix& reduced, std::mt19937_64& rng, int block_size,
              stop_check& should_stop, Direct direct) {
  kernel = reduced;
  randomize(kernel, rng);
  if (should_stop()) return;
  lll_reduce(kernel);
  bkz_in_tours(kernel, block_size, should_stop, direct);  // polls between tours
}

// Restarts on several threads (restart_portfolio.hpp): stream s re-randomizes its own copy of
// the reduced basis with its own random numbers, seeded from the seed and s (stream 0's are
// those of the one-thread restarts), so each stream's bases are the same from run to run.
void restart_portfolio(const rows_problem& p, const lattice_options& o, unsigned streams, std::uint64_t base,
                       int block_size, const integer_matrix& reduced,
                       std::optional<clock_type::time_point> deadline, lattice_result& result) {
  std::vector<std::mt19937_64> rngs;
  for (unsigned s = 0; s < streams; ++s) rngs.push_back(stream_rng(o.seed, s));
  auto next_basis = [&](unsigned s, const lattice_options& so, std::optional<clock_type::time_point> until,
                        lattice_result& found) -> std::vector<std::vector<std::int64_t>> {
    stop_check should_stop(so.cancel, until, found);
    integer_matrix kernel;
    rereduce(kernel, reduced, rngs[s], block_size, should_stop,
             [&](const integer_matrix& k) { return direct_hit(p, so, k, found); });
    if (!found.subsets.empty() || should_stop()) return {};
    return small_basis(kernel);
  };
  run_restart_portfolio(p, o, streams, base, deadline, next_basis, result);
}

}  // namespace

bool lattice_available() { return true; }

lattice_result solve_rows_lattice(const rows_problem& p, const lattice_options& o) {
  const std::size_t m = p.rows.size(), n = p.columns();
  if (p.targets.size() != m) throw std::invalid_argument("solve_rows_lattice: one target per row is needed");
  for (const auto& row : p.rows)
    if (row.size() != n) throw std::invalid_argument("solve_rows_lattice: rows of unequal length");

  prepare_fplll();
  const nearest_rounding rounding;
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
    lll_reduce(basis);
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
  auto direct = [&](const integer_matrix& reduced) { return direct_hit(p, o, reduced, result); };
  if (block_size >= 3) bkz_in_tours(*kernel, block_size, should_stop, direct);
  else direct(*kernel);
  result.reduce_seconds = seconds_since(start);
  if (!result.subsets.empty() || should_stop()) return result;

  const auto enumerate_start = clock_type::now();
  if (o.limit == 0 || !o.restarts) {
    result.rounds = 1;
    std::vector<std::vector<std::int64_t>> basis = small_basis(*kernel);
    if (!basis.empty()) enumerate_plus_minus_one(p, std::move(basis), o, should_stop.deadline(), result);
    result.enumerate_seconds = seconds_since(enumerate_start);
    return result;
  }
  // Randomized restarts (lattice_rows.hpp): a basis whose solutions lie deep in the
  // limited-discrepancy order costs far more than a fresh one whose solutions lie near the
  // centers, so each round's enumeration stops at a node budget (Luby's sequence of them) and
  // the next round searches a randomized, re-reduced basis. Not exhaustive until a round
  // ends within its budget, which the callers' "no proof" already allows.
  const integer_matrix reduced = *kernel;
  std::mt19937_64 rng = stream_rng(o.seed, 0);
  const std::uint64_t base = o.restart_nodes ? o.restart_nodes : std::uint64_t(1) << 22;
  // The first round, on the basis of the full progressive schedule, gets 16 budgets: the
  // instances that basis answers within seconds (ms_10_050) lost to early restarts.
  const std::uint64_t first_budget = 16 * base;
  double reduce_total = 0, last_reduce = 0;
  const unsigned threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  for (std::uint64_t round = 1;; ++round) {
    std::vector<std::vector<std::int64_t>> basis = small_basis(*kernel);
    result.rounds = round;
    bool over = false;
    const bool enumerated = !basis.empty();  // (basis is moved from below)
    const std::uint64_t unit =
        restart_unit(base, result.nodes, seconds_since(enumerate_start) - reduce_total, last_reduce);
    if (enumerated)
      over = enumerate_plus_minus_one(p, std::move(basis), o, should_stop.deadline(), result,
                                      round == 1 ? first_budget : round_budget(unit, round));
    if ((enumerated && !over) || !result.subsets.empty() || should_stop()) break;
    if (threads > 1) {  // round 1 had every thread on one tree; the rest is a portfolio
      result.enumerate_seconds = seconds_since(enumerate_start);
      restart_portfolio(p, o, threads, base, block_size, reduced, should_stop.deadline(), result);
      return result;
    }
    const auto reduce_start = clock_type::now();
    rereduce(*kernel, reduced, rng, block_size, should_stop, direct);
    last_reduce = seconds_since(reduce_start);
    reduce_total += last_reduce;
    if (!result.subsets.empty() || should_stop()) break;
  }
  result.enumerate_seconds = seconds_since(enumerate_start) - reduce_total;
  result.reduce_seconds += reduce_total;
  return result;
}

}  // namespace ssum::detail

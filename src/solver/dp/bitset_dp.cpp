// The host dynamic program over reachable sums (bitset_dp.hpp).
#include "solver/dp/bitset_dp.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <vector>

#include "solver/frame.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {
namespace {

// A destination block is shifted into scratch, then merged; blocks go from high words to low,
// so every block reads only words that still hold the table before this item. One thread
// works in blocks of 2^14 words (the scratch and the words it re-reads stay in cache); ranges
// above 2^19 words are split among the threads in blocks of 2^20 (a few parallel regions per
// item). Cancellation is polled per block (at most about a millisecond) and per item.
constexpr std::size_t cache_block_words = std::size_t{1} << 14;
constexpr std::size_t block_words = std::size_t{1} << 20;
constexpr std::size_t parallel_words = std::size_t{1} << 19;
constexpr std::size_t most_checkpoints = 8;                     // for tables of 3 MiB and more
constexpr std::size_t small_checkpoint_bytes = std::size_t{24} << 20;  // up to 32 within this

// Measured with bench_dp_crossover (infeasible "gaps" instances, so every item runs; one thread):
// 0.4 to 1.0 ns per item and word of the bound on the 2-core development host (AMD EPYC),
// 0.5 on the H200 machine's 16-core host (a 584 MiB table); 0.7 is taken. A team on split
// ranges is memory-bound: on tables of 500-600 MiB 16 threads ran 3.2 to 3.8 times one thread
// on the H200 host, 2 threads 0.9 to 1.2 times on the 2-core host, about 1 + 0.18 per added
// thread; on tables the host's caches hold (12 MiB, 61 MiB) 16 threads ran 1.0 to 1.3 times
// one. The line between is drawn at 128 MiB.
constexpr double seconds_per_word = 0.7e-9;
constexpr double cached_team_speedup = 1.3;
constexpr double cached_table_words = double(std::size_t{16} << 20);  // 128 MiB

double team_speedup(double words, unsigned threads) {
  if (threads <= 1) return 1.0;
  if (words <= cached_table_words) return cached_team_speedup;
  return std::min(1.0 + 0.18 * double(threads - 1), 4.0);
}

using words_t = std::vector<std::uint64_t>;

bool has_bit(const std::uint64_t* bits, std::uint64_t s) { return (bits[s / 64] >> (s % 64)) & 1; }

struct meter {
  const solve_options& options;
  double total = 1, done = 0, reported = -1;
  void add(double words) {
    done += words;
    if (!options.on_progress || done - reported < total / 256) return;
    reported = done;
    const double f = std::min(1.0, done / total);
    options.on_progress(progress{"dp", f, f});
  }
};

// Runs f(lo, hi) over [a, b), split among the threads when the range is large.
template <class F>
void over_words(std::size_t a, std::size_t b, unsigned threads, F&& f) {
  if (threads <= 1 || b - a < parallel_words) {
    f(a, b);
    return;
  }
  const std::size_t parts = threads, size = b - a;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t t = 0; t < parts; ++t) f(a + size * t / parts, a + size * (t + 1) / parts);
}

// Words [lo, hi) of bits << w into out[0, hi - lo), where `bits` holds words [base, ...) and
// words below base count as zero; word j reads words j - q and j - q - 1 (q = w / 64).
void shifted_bits(const std::uint64_t* __restrict bits, std::size_t base, std::uint64_t* __restrict out, std::size_t lo,
                  std::size_t hi, std::size_t q, unsigned r) {
  std::size_t j = lo;
  for (; j < hi && j < base + q + 1; ++j) {  // words whose sources reach below base
    const std::uint64_t at = j >= base + q ? bits[j - q - base] : 0;
    const std::uint64_t below = j >= base + q + 1 ? bits[j - q - 1 - base] : 0;
    out[j - lo] = r == 0 ? at : (at << r) | (below >> (64 - r));
  }
  const std::uint64_t* __restrict b = bits - base;
  std::uint64_t* __restrict o = out - lo;
  if (r == 0) {
    for (; j < hi; ++j) o[j] = b[j - q];
  } else {
    const unsigned l = 64 - r;
    for (; j < hi; ++j) o[j] = (b[j - q] << r) | (b[j - q - 1] >> l);
  }
}

// out[j - lo] = cur word j | word j of cur << w, for j in [lo, hi); cur holds words [base, ...).
void shift_or(const std::uint64_t* __restrict cur, std::size_t base, std::uint64_t* __restrict out, std::size_t lo,
              std::size_t hi, std::size_t q, unsigned r) {
  std::size_t j = lo;
  for (; j < hi && j < base + q + 1; ++j) {  // words whose sources reach below base
    const std::uint64_t at = j >= base + q ? cur[j - q - base] : 0;
    const std::uint64_t below = j >= base + q + 1 ? cur[j - q - 1 - base] : 0;
    out[j - lo] = cur[j - base] | (r == 0 ? at : (at << r) | (below >> (64 - r)));
  }
  const std::uint64_t* __restrict b = cur - base;
  std::uint64_t* __restrict o = out - lo;
  if (r == 0) {
    for (; j < hi; ++j) o[j] = b[j] | b[j - q];
  } else {
    const unsigned l = 64 - r;
    for (; j < hi; ++j) o[j] = b[j] | (b[j - q] << r) | (b[j - q - 1] >> l);
  }
}

void or_into(std::uint64_t* __restrict bits, const std::uint64_t* __restrict add, std::size_t count) {
  for (std::size_t j = 0; j < count; ++j) bits[j] |= add[j];
}

// The forward pass over items[0, ...) of positions in w: the table of sums up to `bound` in
// `bits` (words 0..bound/64, zero but for bit 0); with stop_at_bound, ends as soon as the
// bound is reached. Before item b_j = n * j / C (j < C) the words below its prefix sum are
// copied into checkpoints[j]. Returns the number of items run.
std::size_t reach(std::uint64_t* bits, std::uint64_t bound, const std::vector<std::uint64_t>& w,
                  const std::vector<std::uint32_t>& items, bool stop_at_bound, std::vector<words_t>& checkpoints,
                  unsigned threads, std::uint64_t* scratch, meter& m, const solve_options& options) {
  checkpoints.resize(std::min(checkpoints.size(), items.size()));  // at most one per item
  const std::size_t top = std::size_t(bound / 64), n = items.size(), C = checkpoints.size();
  const std::uint64_t top_mask = bound % 64 == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << (bound % 64)) - 1;
  std::uint64_t prefix = 0;
  std::size_t next = 0;  // the next checkpoint
  for (std::size_t i = 0; i < n; ++i) {
    check_cancel(options);
    if (stop_at_bound && has_bit(bits, bound)) return i;
    if (next < C && i == n * next / C) {
      checkpoints[next].assign(bits, bits + std::size_t(prefix / 64) + 1);
      ++next;
    }
    const std::uint64_t wk = w[items[i]];
    prefix = std::min(bound, prefix + wk);
    const std::size_t q = std::size_t(wk / 64), last = std::size_t(prefix / 64);
    const unsigned r = unsigned(wk % 64);
    const std::size_t block = threads > 1 && last + 1 - q > parallel_words ? block_words : cache_block_words;
    for (std::size_t hi = last + 1; hi > q;) {
      const std::size_t lo = hi - q > block ? hi - block : q;
      over_words(lo, hi, threads, [&](std::size_t a, std::size_t b) {
        shifted_bits(bits, 0, scratch + (a - lo), a, b, q, r);
      });
      if (hi - 1 == top) scratch[top - lo] &= top_mask;  // no sum above the bound
      over_words(lo, hi, threads, [&](std::size_t a, std::size_t b) { or_into(bits + a, scratch + (a - lo), b - a); });
      m.add(double(hi - lo));
      hi = lo;
      if (hi > q) check_cancel(options);
    }
  }
  return n;
}

// A row of the table restricted to words [base, base + words.size()); words above are zero,
// words below are not needed.
struct window_row {
  const std::uint64_t* bits;
  std::size_t base, count;
};

// Words for the recovery's rows, taken and given back last-in first-out, allocated once (the
// rows of every segment reuse the same pages) and grown by blocks of their own beyond that.
class row_pool {
 public:
  explicit row_pool(std::size_t words) : size_(words), words_(new std::uint64_t[words]) {}
  std::uint64_t* take(std::size_t n) {
    if (used_ + n <= size_) {
      used_ += n;
      taken_.push_back(n);
      return words_.get() + used_ - n;
    }
    taken_.push_back(0);  // a block of its own
    extra_.emplace_back(new std::uint64_t[n]);
    return extra_.back().get();
  }
  void give_back() {
    if (taken_.back() == 0) extra_.pop_back();
    used_ -= taken_.back();
    taken_.pop_back();
  }

 private:
  std::size_t size_, used_ = 0;
  std::unique_ptr<std::uint64_t[]> words_;
  std::vector<std::size_t> taken_;
  std::vector<std::unique_ptr<std::uint64_t[]>> extra_;
};

// The recovery of items[a, e) (linear-space, after Hirschberg 1975): s is reachable after
// item e - 1 and `start` is the row before item a. Pushes the items of a subset of
// items[a, e) that takes s down to a sum reachable before item a, and returns that sum.
// Only sums >= s - (the weight of items[a, e)) can lead to s, so the rows are computed over
// that window, one per item where they fit `budget` words, else from C = budget / 2 rows at
// even spacing (checkpoints again), the segments walked from the last.
std::uint64_t walk_back(const std::vector<std::uint64_t>& w, const std::vector<std::uint32_t>& items, std::size_t a,
                        std::size_t e, window_row start, std::uint64_t s, std::size_t budget, unsigned threads,
                        std::vector<std::size_t>& chosen, row_pool& pool, const solve_options& options) {
  if (a == e) return s;
  std::uint64_t weight = 0;
  for (std::size_t i = a; i < e && weight < s; ++i) weight += w[items[i]];
  const std::size_t lo = std::size_t((s - std::min(s, weight)) / 64), hi = std::size_t(s / 64) + 1;
  const std::size_t width = hi - lo, L = e - a;
  const bool rows_fit = double(L) * double(width) <= double(budget) || L <= 2;
  const std::size_t C = rows_fit ? L : std::clamp<std::size_t>(budget / 2 / width, 2, L);
  // Row of the table before item b_j = a + L * j / C, over [lo, hi), at rows + j * width; the
  // rows between the kept ones in ping and pong.
  const std::size_t need = (C + (rows_fit ? 0 : 2)) * width;
  std::uint64_t* const rows = pool.take(need);
  std::uint64_t* const ping = rows + C * width;
  std::uint64_t* const pong = ping + width;
  for (std::size_t j = lo; j < hi; ++j) {
    rows[j - lo] = j >= start.base && j < start.base + start.count ? start.bits[j - start.base] : 0;
  }
  const std::uint64_t* cur = rows;
  for (std::size_t i = a, j = 0; j + 1 < C; ++i) {
    check_cancel(options);
    const std::uint64_t wk = w[items[i]];
    const std::size_t q = std::size_t(wk / 64);
    const unsigned r = unsigned(wk % 64);
    const bool keeps = i + 1 == a + L * (j + 1) / C;
    std::uint64_t* out = keeps ? rows + (j + 1) * width : cur == ping ? pong : ping;
    over_words(lo, hi, threads, [&](std::size_t x, std::size_t y) { shift_or(cur, lo, out + (x - lo), x, y, q, r); });
    cur = out;
    if (keeps) ++j;
  }
  if (rows_fit) {  // row k is the one before item a + k: item a + k was taken when s is not in it
    for (std::size_t k = L; k-- > 0;) {
      if (s >= lo * 64 && has_bit(rows + k * width, s - lo * 64)) continue;
      chosen.push_back(items[a + k]);
      s -= w[items[a + k]];
    }
  } else {
    const std::size_t left = budget > need ? budget - need : budget / 2;
    for (std::size_t j = C; j-- > 0;) {
      s = walk_back(w, items, a + L * j / C, a + L * (j + 1) / C, window_row{rows + j * width, lo, width}, s, left,
                    threads, chosen, pool, options);
    }
  }
  pool.give_back();
  return s;
}

// The table for items run forward, and the recovery of a reachable sum s from its checkpoints.
std::vector<std::size_t> recover(const std::vector<std::uint64_t>& w, const std::vector<std::uint32_t>& items,
                                 std::size_t run, const std::vector<words_t>& checkpoints, std::uint64_t s,
                                 std::size_t budget, unsigned threads, const solve_options& options) {
  std::vector<std::size_t> chosen;
  const std::size_t n = items.size(), C = checkpoints.size();
  row_pool pool(budget);
  for (std::size_t j = C; j-- > 0;) {
    const std::size_t a = n * j / C, e = std::min(run, n * (j + 1) / C);
    if (a >= e) continue;
    const words_t& row = checkpoints[j];
    s = walk_back(w, items, a, e, window_row{row.data(), 0, row.size()}, s, budget, threads, chosen, pool, options);
  }
  return chosen;
}

std::size_t scratch_words(const reduction& r) {
  return std::size_t(std::min<double>(double(block_words), std::floor(double(r.bound) / 64) + 1));
}

double table_words(const reduction& r) { return std::floor(double(r.bound) / 64) + 1; }

double work_words(const reduction& r) { return double(r.weights.size()) * table_words(r); }

// Words for the recovery's rows: four tables, at least 1 MiB.
std::size_t recovery_budget(const reduction& r) { return std::size_t(std::max(131072.0, 4 * table_words(r))); }

struct plan {
  std::size_t checkpoints = 1;
  double bytes = 0;
};

plan plan_for(const reduction& r, double room) {
  const double tables = r.zero_sum ? 2 : 1, row = table_words(r) * 8;
  const double fixed = tables * row + 2.0 * double(recovery_budget(r)) * 8 + double(scratch_words(r)) * 8 +
                       double(r.weights.size()) * 16;
  plan best;
  // Recovery costs about 2/C of the forward pass: small tables take more checkpoints.
  const double cap = std::clamp(std::floor(double(small_checkpoint_bytes) / row), double(most_checkpoints), 32.0);
  const std::size_t most = std::min<std::size_t>(std::size_t(cap), std::max<std::size_t>(1, r.weights.size()));
  for (std::size_t c = 1; c <= most; ++c) {
    const double bytes = fixed + tables * double(c) * row;
    if (c == 1 || bytes <= room) best = plan{c, bytes};
  }
  return best;
}

}  // namespace

double dp_planned_bytes(const reduction& r, double room) { return plan_for(r, room).bytes; }

double dp_seconds(const reduction& r, unsigned threads) {
  const double words = work_words(r) * 1.25;
  const bool split = table_words(r) > double(parallel_words);
  return words * seconds_per_word / (split ? team_speedup(table_words(r), threads) : 1.0);
}

solution solve_dp(const host_share& host, const problem& p, const reduction& r, const solve_options& options) {
  const auto start = clock_type::now();
  const unsigned threads = host.threads;
  const plan pl = plan_for(r, host.room);  // the plan choose() announced: the same room
  solution result;
  result.algorithm = "dp";
  result.backend = "cpu";
  result.threads = threads;
  result.planned_bytes = std::uint64_t(pl.bytes);

  std::vector<std::uint64_t> w(r.weights.size());
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = std::uint64_t(r.weights[k]);
  const std::uint64_t bound = std::uint64_t(r.bound);
  const std::size_t words = std::size_t(table_words(r)), budget = recovery_budget(r);
  std::unique_ptr<std::uint64_t[]> scratch(new std::uint64_t[scratch_words(r)]);
  meter m{options};
  m.total = std::max(1.0, work_words(r));

  std::vector<std::size_t> chosen;
  if (!r.zero_sum) {
    std::vector<std::uint32_t> items(w.size());
    for (std::size_t k = 0; k < w.size(); ++k) items[k] = std::uint32_t(k);
    std::vector<words_t> checkpoints(pl.checkpoints);
    words_t bits(words, 0);
    bits[0] = 1;  // the empty subset
    const std::size_t run = reach(bits.data(), bound, w, items, true, checkpoints, threads, scratch.get(), m, options);
    result.seconds.search = seconds_since(start);
    result.feasible = has_bit(bits.data(), bound);
    const auto recover_start = clock_type::now();
    if (result.feasible) chosen = recover(w, items, run, checkpoints, bound, budget, threads, options);
    result.seconds.recover = seconds_since(recover_start);
  } else {
    // A sum s in [1, bound] reached by positive items and by negative magnitudes alike.
    std::vector<std::uint32_t> plus, minus;
    for (std::size_t k = 0; k < w.size(); ++k) (r.negative[k] ? minus : plus).push_back(std::uint32_t(k));
    std::vector<words_t> cp_plus(pl.checkpoints), cp_minus(pl.checkpoints);
    words_t tp(words, 0), tm(words, 0);
    tp[0] = tm[0] = 1;
    reach(tp.data(), bound, w, plus, false, cp_plus, threads, scratch.get(), m, options);
    reach(tm.data(), bound, w, minus, false, cp_minus, threads, scratch.get(), m, options);
    result.seconds.search = seconds_since(start);
    const auto recover_start = clock_type::now();
    for (std::size_t j = 0; j < words && !result.feasible; ++j) {
      std::uint64_t both = tp[j] & tm[j];
      if (j == 0) both &= ~std::uint64_t{1};  // s = 0 is the empty subset
      if (!both) continue;
      const std::uint64_t s = std::uint64_t(j) * 64 + unsigned(std::countr_zero(both));
      chosen = recover(w, plus, plus.size(), cp_plus, s, budget, threads, options);
      const std::vector<std::size_t> other = recover(w, minus, minus.size(), cp_minus, s, budget, threads, options);
      chosen.insert(chosen.end(), other.begin(), other.end());
      result.feasible = true;
    }
    result.seconds.recover = seconds_since(recover_start);
  }
  if (result.feasible) result.subset = map_back(p, r, chosen);
  if (options.on_progress) options.on_progress(progress{"dp", 1, 1});
  result.seconds.total = seconds_since(start);
  return result;
}

}  // namespace ssum::detail

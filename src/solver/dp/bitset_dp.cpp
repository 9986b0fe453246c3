// The host dynamic program over reachable sums (bitset_dp.hpp).
#include "solver/dp/bitset_dp.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <vector>

#include "solver/frame.hpp"

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

// Measured with `ssum solve --algorithm dp` on the 2-core development host (GCC -O3, SSE2;
// avis n = 200 to 400, infeasible, so every item runs): 1.3 to 2.2 ns per item and word of
// the bound on one thread; two threads on split ranges about 1.2 to 1.4 times faster, taken
// as threads^0.5.
constexpr double seconds_per_word = 1.5e-9;

struct table {
  std::uint64_t bound = 0;
  std::size_t words = 0;
  std::unique_ptr<std::uint64_t[]> bits;
  std::unique_ptr<std::uint32_t[]> first;  // meaningful where the bit is set (and s > 0)

  explicit table(std::uint64_t b) : bound(b), words(std::size_t(b / 64 + 1)) {
    bits.reset(new std::uint64_t[words]());
    first.reset(new std::uint32_t[std::size_t(b) + 1]);  // written only where a bit is set
    bits[0] = 1;                                          // the empty subset
  }
  bool has(std::uint64_t s) const { return (bits[s / 64] >> (s % 64)) & 1; }
};

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

// Words [lo, hi) of (bits << w) & ~bits into out[0, hi - lo); word j reads words j - q and
// j - q - 1 (q = w / 64), which are never above j.
void shifted_new_bits(const std::uint64_t* __restrict bits, std::uint64_t* __restrict out, std::size_t lo,
                      std::size_t hi, std::size_t q, unsigned r) {
  std::size_t j = lo;
  if (j == q && j < hi) {  // the lowest word has nothing below it
    out[0] = (bits[0] << r) & ~bits[j];
    ++j;
  }
  std::uint64_t* __restrict o = out - lo;
  if (r == 0) {
    for (; j < hi; ++j) o[j] = bits[j - q] & ~bits[j];
  } else {
    const unsigned l = 64 - r;
    for (; j < hi; ++j) o[j] = ((bits[j - q] << r) | (bits[j - q - 1] >> l)) & ~bits[j];
  }
}

// Merges out[0, hi - lo) into words [lo, hi), naming `item` as the first to reach each new sum.
void merge_new_bits(std::uint64_t* bits, std::uint32_t* first, const std::uint64_t* out, std::size_t lo,
                    std::size_t hi, std::uint32_t item) {
  for (std::size_t j = lo; j < hi; ++j) {
    std::uint64_t fresh = out[j - lo];
    if (!fresh) continue;
    bits[j] |= fresh;
    const std::uint64_t base = std::uint64_t(j) * 64;
    while (fresh) {
      first[base + unsigned(std::countr_zero(fresh))] = item;
      fresh &= fresh - 1;
    }
  }
}

// Reachable sums of the items `items` (positions in w) up to t.bound; with stop_at_bound, ends
// as soon as the bound itself is reached.
void reach(table& t, const std::vector<std::uint64_t>& w, const std::vector<std::uint32_t>& items, bool stop_at_bound,
           unsigned threads, std::uint64_t* scratch, meter& m, const solve_options& options) {
  const std::uint64_t bound = t.bound;
  const std::size_t top = std::size_t(bound / 64);
  const std::uint64_t top_mask = bound % 64 == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << (bound % 64)) - 1;
  std::uint64_t prefix = 0;
  for (const std::uint32_t k : items) {
    check_cancel(options);
    if (stop_at_bound && t.has(bound)) return;
    const std::uint64_t wk = w[k];
    prefix = std::min(bound, prefix + wk);
    const std::size_t q = std::size_t(wk / 64), last = std::size_t(prefix / 64);
    const unsigned r = unsigned(wk % 64);
    const std::size_t block = threads > 1 && last + 1 - q > parallel_words ? block_words : cache_block_words;
    for (std::size_t hi = last + 1; hi > q;) {
      const std::size_t lo = hi - q > block ? hi - block : q;
      over_words(lo, hi, threads, [&](std::size_t a, std::size_t b) {
        shifted_new_bits(t.bits.get(), scratch + (a - lo), a, b, q, r);
      });
      if (hi - 1 == top) scratch[top - lo] &= top_mask;  // no sum above the bound
      over_words(lo, hi, threads, [&](std::size_t a, std::size_t b) {
        merge_new_bits(t.bits.get(), t.first.get(), scratch + (a - lo), a, b, k);
      });
      m.add(double(hi - lo));
      hi = lo;
      if (hi > q) check_cancel(options);
    }
  }
}

// Positions in w of a subset of the table's items summing to s (reached).
std::vector<std::size_t> walk_back(const table& t, const std::vector<std::uint64_t>& w, std::uint64_t s) {
  std::vector<std::size_t> chosen;
  while (s != 0 && chosen.size() < w.size()) {
    const std::uint32_t k = t.first[s];
    chosen.push_back(k);
    s -= w[k];
  }
  return chosen;
}

std::size_t scratch_words(const reduction& r) {
  return std::size_t(std::min<double>(double(block_words), std::floor(double(r.bound) / 64) + 1));
}

double work_words(const reduction& r) {
  const double per_item = std::floor(double(r.bound) / 64) + 1;
  return double(r.weights.size()) * per_item;
}

}  // namespace

double dp_planned_bytes(const reduction& r) {
  const double sums = double(r.bound) + 1;
  const double one_table = (std::floor(double(r.bound) / 64) + 1) * 8 + 4 * sums;
  return (r.zero_sum ? 2 : 1) * one_table + double(scratch_words(r)) * 8 + double(r.weights.size()) * 12;
}

double dp_seconds(const reduction& r, unsigned threads) {
  const double words = work_words(r);
  const bool split = std::floor(double(r.bound) / 64) + 1 > double(parallel_words);
  return words * seconds_per_word / (split ? std::sqrt(double(std::max(threads, 1u))) : 1.0);
}

solution solve_dp(const cpu& policy, const problem& p, const reduction& r, const solve_options& options) {
  const auto start = clock_type::now();
  const unsigned threads = resolved_threads(policy);
  solution result;
  result.algorithm = "dp";
  result.backend = "cpu";
  result.threads = threads;
  result.planned_bytes = std::uint64_t(dp_planned_bytes(r));

  std::vector<std::uint64_t> w(r.weights.size());
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = std::uint64_t(r.weights[k]);
  const std::uint64_t bound = std::uint64_t(r.bound);
  std::unique_ptr<std::uint64_t[]> scratch(new std::uint64_t[scratch_words(r)]);
  meter m{options};
  m.total = std::max(1.0, work_words(r));

  std::vector<std::size_t> chosen;
  if (!r.zero_sum) {
    std::vector<std::uint32_t> items(w.size());
    for (std::size_t k = 0; k < w.size(); ++k) items[k] = std::uint32_t(k);
    table t(bound);
    reach(t, w, items, true, threads, scratch.get(), m, options);
    result.seconds.search = seconds_since(start);
    result.feasible = t.has(bound);
    const auto recover_start = clock_type::now();
    if (result.feasible) chosen = walk_back(t, w, bound);
    result.seconds.recover = seconds_since(recover_start);
  } else {
    // A sum s in [1, bound] reached by positive items and by negative magnitudes alike.
    std::vector<std::uint32_t> plus, minus;
    for (std::size_t k = 0; k < w.size(); ++k) (r.negative[k] ? minus : plus).push_back(std::uint32_t(k));
    table tp(bound), tm(bound);
    reach(tp, w, plus, false, threads, scratch.get(), m, options);
    reach(tm, w, minus, false, threads, scratch.get(), m, options);
    result.seconds.search = seconds_since(start);
    const auto recover_start = clock_type::now();
    for (std::size_t j = 0; j < tp.words && !result.feasible; ++j) {
      std::uint64_t both = tp.bits[j] & tm.bits[j];
      if (j == 0) both &= ~std::uint64_t{1};  // s = 0 is the empty subset
      if (!both) continue;
      const std::uint64_t s = std::uint64_t(j) * 64 + unsigned(std::countr_zero(both));
      chosen = walk_back(tp, w, s);
      const std::vector<std::size_t> other = walk_back(tm, w, s);
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

// The host dynamic program that counts (count_dp.hpp).
#include "solver/dp/count_dp.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "solver/dp/bitset_dp.hpp"
#include "ssum/errors.hpp"

#ifdef SSUM_HAVE_GMP
#include <gmp.h>
static_assert(GMP_LIMB_BITS == 64 && GMP_NAIL_BITS == 0 && sizeof(mp_limb_t) == sizeof(std::uint64_t),
              "the count table's rows are GMP limbs of 64 bits");
#endif

namespace ssum::detail {
namespace {

// Measured with `ssum solve --count --algorithm dp` on the 2-core development host (GCC -O3;
// pthree and psix instances): about 0.5 ns per limb addition on rows of one limb, 1 ns on
// wider rows (mpn_add_n per row).
constexpr double seconds_per_limb = 1.0e-9;

// Rows per block between cancellation polls: about 2^20 limb additions, a millisecond.
constexpr std::size_t block_limbs = std::size_t{1} << 20;

std::size_t limbs_for(std::size_t items) { return std::max<std::size_t>(1, (items + 63) / 64); }

// The reduced weights of one table (zero-sum: one side), ascending: the sums a prefix of the
// items can reach stay small for longer, so the early items touch fewer rows.
std::vector<std::uint64_t> side_weights(const reduction& r, int side) {
  std::vector<std::uint64_t> w;
  for (std::size_t k = 0; k < r.weights.size(); ++k) {
    if (side >= 0 && r.negative[k] != (side == 1)) continue;
    w.push_back(std::uint64_t(r.weights[k]));
  }
  std::sort(w.begin(), w.end());
  return w;
}

// The limb additions of one table over weights w (ascending), rows 0..bound.
double table_work(const std::vector<std::uint64_t>& w, std::uint64_t bound) {
  double work = 0, prefix = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    prefix = std::min(double(bound), prefix + double(w[k]));
    work += (prefix - double(w[k]) + 1) * double(limbs_for(k + 1));
  }
  return work;
}

std::vector<std::vector<std::uint64_t>> sides_of(const reduction& r) {
  if (!r.zero_sum) return {side_weights(r, -1)};
  return {side_weights(r, 0), side_weights(r, 1)};
}

double count_work(const reduction& r) {
  double work = 0;
  for (const auto& w : sides_of(r)) work += table_work(w, std::uint64_t(r.bound));
  if (r.zero_sum) {  // the products P(s) M(s)
    work += (double(r.bound) + 1) * double(limbs_for(r.weights.size()));
  }
  return work;
}

#ifdef SSUM_HAVE_GMP

struct count_meter {
  const solve_options& options;
  double base = 0, scale = 1, total = 1, done = 0, reported = -1;
  void add(double limbs) {
    done += limbs;
    if (!options.on_progress || done - reported < total / 256) return;
    reported = done;
    const double f = std::min(1.0, done / total);
    options.on_progress(progress{"count", f, base + scale * f});
  }
};

// count[s] for s in [0, bound] as rows of `width` limbs, packed; the buffer holds the widest
// rows (limbs_for(items)) from the start, so widening moves rows but allocates nothing.
class count_table {
 public:
  count_table(std::uint64_t bound, std::size_t items)
      : rows_(std::size_t(bound) + 1), most_(limbs_for(items)), data_(new std::uint64_t[rows_ * most_]()) {
    data_[0] = 1;  // the empty subset sums to 0
  }

  std::size_t width() const { return width_; }
  const std::uint64_t* row(std::size_t s) const { return data_.get() + s * width_; }

  // Rows of `limbs` limbs: moved from the top down (each row's new place is at or above its
  // old one and above every lower row's old place), the new high limbs zeroed.
  void widen(std::size_t limbs, count_meter& m) {
    if (limbs <= width_) return;
    std::uint64_t* d = data_.get();
    const std::size_t block = std::max<std::size_t>(1, block_limbs / limbs);
    for (std::size_t hi = rows_; hi > 0;) {
      const std::size_t lo = hi > block ? hi - block : 0;
      for (std::size_t s = hi; s-- > lo;) {
        std::memmove(d + s * limbs, d + s * width_, width_ * sizeof(std::uint64_t));
        std::fill(d + s * limbs + width_, d + (s + 1) * limbs, std::uint64_t{0});
      }
      check_cancel(m.options);
      hi = lo;
    }
    width_ = limbs;
  }

  // One item of weight w: count[s] += count[s - w] for s from top down to w, each addend
  // still the count without the item. No row carries out of its top limb (every count after
  // the item is below 2^(64 L)), so rows [lo, hi) are one GMP number added to rows
  // [lo - w, hi - w): a single mpn_add_n per block of at most w rows (then the two ranges
  // do not overlap), the blocks from the top down.
  void add_item(std::uint64_t w, std::uint64_t top, count_meter& m) {
    const std::size_t L = width_, first = std::size_t(w);
    std::uint64_t* d = data_.get();
    const std::size_t block = std::max<std::size_t>(1, std::min(first, block_limbs / L));
    std::size_t since_poll = 0;
    for (std::size_t hi = std::size_t(top) + 1; hi > first;) {
      const std::size_t lo = hi - first > block ? hi - block : first;
      if (L == 1 && hi - lo < 8) {
        for (std::size_t s = hi; s-- > lo;) d[s] += d[s - first];
      } else {
        mp_limb_t* rows = reinterpret_cast<mp_limb_t*>(d + lo * L);
        mpn_add_n(rows, rows, reinterpret_cast<const mp_limb_t*>(d + (lo - first) * L), mp_size_t((hi - lo) * L));
      }
      since_poll += (hi - lo) * L;
      if (since_poll >= block_limbs || lo == first) {
        m.add(double(since_poll));
        since_poll = 0;
        check_cancel(m.options);
      }
      hi = lo;
    }
  }

 private:
  std::size_t rows_, most_, width_ = 1;
  std::unique_ptr<std::uint64_t[]> data_;
};

// The counts of every sum in [0, bound] over the items w (ascending).
count_table count_sums(const std::vector<std::uint64_t>& w, std::uint64_t bound, count_meter& m) {
  count_table t(bound, w.size());
  std::uint64_t prefix = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    check_cancel(m.options);
    t.widen(limbs_for(k + 1), m);  // counts after k + 1 items are below 2^(k + 1)
    prefix = std::min(bound, prefix + w[k]);
    t.add_item(w[k], prefix, m);
  }
  return t;
}

// An mpz that reads a row in place (GMP's read-only view; high zero limbs are dropped).
mpz_srcptr view(mpz_t x, const std::uint64_t* row, std::size_t limbs) {
  return mpz_roinit_n(x, reinterpret_cast<const mp_limb_t*>(row), mp_size_t(limbs));
}

struct mpz_value {
  mpz_t v;
  mpz_value() { mpz_init(v); }
  ~mpz_value() { mpz_clear(v); }
  mpz_value(const mpz_value&) = delete;
  mpz_value& operator=(const mpz_value&) = delete;

  big_count count() const {
    const mp_limb_t* limbs = mpz_limbs_read(v);
    return big_count::from_limbs(std::vector<std::uint64_t>(limbs, limbs + mpz_size(v)));
  }
};

// The count of an open reduction whose certificate exists: 2^z count[T] with a target,
// 2^z sum_s P(s) M(s) - 1 zero-sum.
big_count count_open(const reduction& r, count_meter& m) {
  const std::uint64_t bound = std::uint64_t(r.bound);
  const auto sides = sides_of(r);
  mpz_value total;
  mpz_t a, b;
  if (!r.zero_sum) {
    const count_table t = count_sums(sides[0], bound, m);
    mpz_set(total.v, view(a, t.row(bound), t.width()));
  } else {
    const count_table plus = count_sums(sides[0], bound, m);
    const count_table minus = count_sums(sides[1], bound, m);
    const std::size_t block = std::max<std::size_t>(1, block_limbs / (plus.width() + minus.width()));
    for (std::size_t lo = 0; lo <= bound; lo += block) {
      const std::size_t hi = std::min<std::size_t>(std::size_t(bound) + 1, lo + block);
      for (std::size_t s = lo; s < hi; ++s) {
        mpz_addmul(total.v, view(a, plus.row(s), plus.width()), view(b, minus.row(s), minus.width()));
      }
      m.add(double(hi - lo) * double(plus.width() + minus.width()));
      check_cancel(m.options);
    }
  }
  mpz_mul_2exp(total.v, total.v, r.zero_weights);
  if (r.zero_sum) mpz_sub_ui(total.v, total.v, 1);
  return total.count();
}

#endif  // SSUM_HAVE_GMP

}  // namespace

big_count with_zero_weights(const big_count& c, std::size_t z, bool zero_sum) {
  if (z == 0) return c;
  const unsigned bits = unsigned(z % 64);
  std::vector<std::uint64_t> limbs(z / 64, 0);
  std::uint64_t carry = 0;
  for (const std::uint64_t limb : c.limbs()) {
    limbs.push_back(bits ? (limb << bits) | carry : limb);
    carry = bits ? limb >> (64 - bits) : 0;
  }
  limbs.push_back(carry);
  if (zero_sum) {  // + 2^z - 1: the shift left the low z bits 0
    for (std::size_t k = 0; k < z / 64; ++k) limbs[k] = ~std::uint64_t{0};
    limbs[z / 64] |= (std::uint64_t{1} << bits) - 1;
  }
  return big_count::from_limbs(std::move(limbs));
}

bool count_dp_available() {
#ifdef SSUM_HAVE_GMP
  return true;
#else
  return false;
#endif
}

reduction count_reduction(const problem& p, const flipped_totals& totals) {
  if (!p.zero_sum()) return reduce(p, totals, true);
  problem nonzero;
  std::vector<std::size_t> original;
  for (std::size_t i = 0; i < p.weights.size(); ++i) {
    if (p.weights[i] == 0) continue;
    nonzero.weights.push_back(p.weights[i]);
    original.push_back(i);
  }
  const std::size_t zeros = p.weights.size() - original.size();
  if (zeros == 0) return reduce(p, totals, true);
  reduction r = reduce(nonzero, totals, true);  // zero weights change no total
  for (std::size_t& k : r.index) k = original[k];
  std::size_t first_zero = 0;
  while (p.weights[first_zero] != 0) ++first_zero;
  r.answer = {first_zero};
  r.zero_weights = zeros;
  r.applied.insert(r.applied.begin(), "zero weights set aside (" + std::to_string(zeros) +
                                          "), each a non-empty subset summing to 0");
  return r;
}

double count_dp_planned_bytes(const reduction& r) {
  if (r.outcome != reduction::verdict::open) return 0;
  double limbs = 0;
  for (const auto& w : sides_of(r)) limbs += double(limbs_for(w.size()));
  const double tables = (double(r.bound) + 1) * limbs * 8 + double(r.weights.size()) * 16;
  if (r.bound > uint128(dp_most_sums)) return tables;  // no plan: what the tables need at least
  const double certificate = r.zero_sum && r.zero_weights ? 0 : dp_planned_bytes(r);
  return std::max(tables, certificate);
}

double count_dp_seconds(const reduction& r) {
  if (r.outcome != reduction::verdict::open) return 0;
  return count_work(r) * seconds_per_limb;
}

solution solve_count_dp(const host_share& host, const problem& p, const reduction& r, const solve_options& options) {
#ifndef SSUM_HAVE_GMP
  (void)host, (void)p, (void)r, (void)options;
  throw backend_unavailable("this build of ssum has no GMP (libgmp-dev): the dynamic program cannot count");
#else
  const auto start = clock_type::now();
  const unsigned threads = host.threads;
  const bool zero_certificate = r.zero_sum && r.zero_weights > 0;
  solution result;
  if (r.outcome != reduction::verdict::open) {
    result.algorithm = "dp";
    result.backend = "cpu";
    result.threads = threads;
    // Infeasible: no subset of the nonzero items, so zero-sum only the zero weights' own
    // subsets. Answered (with a target): every weight is zero and the target is 0.
    result.feasible = zero_certificate || r.outcome == reduction::verdict::answered;
    result.subset = r.answer;
    result.count = with_zero_weights(r.outcome == reduction::verdict::answered ? 1 : 0, r.zero_weights, r.zero_sum);
    result.seconds.total = seconds_since(start);
    return result;
  }
  // Progress in seconds of estimated work: the certificate's share first, then the count's.
  const double certificate_seconds = zero_certificate ? 0 : dp_seconds(r, threads);
  const double count_seconds = count_dp_seconds(r);
  const double share = certificate_seconds / std::max(1e-12, certificate_seconds + count_seconds);
  if (zero_certificate) {
    result.algorithm = "dp";
    result.backend = "cpu";
    result.threads = threads;
    result.feasible = true;
    result.subset = r.answer;
  } else {
    solve_options decide = options;
    decide.count = false;
    if (options.on_progress) {
      decide.on_progress = [&](const progress& q) { options.on_progress(progress{q.stage, q.fraction, q.overall * share}); };
    }
    result = solve_dp(host, p, r, decide);
    if (!result.feasible) {  // no subset: nothing to count
      result.count = big_count();
      result.planned_bytes = std::uint64_t(dp_planned_bytes(r, host.room));
      result.seconds.total = seconds_since(start);
      return result;
    }
  }
  result.planned_bytes = std::uint64_t(count_dp_planned_bytes(r));
  const auto count_start = clock_type::now();
  count_meter m{options, share, 1 - share, std::max(1.0, count_work(r))};
  result.count = count_open(r, m);
  if (options.on_progress) options.on_progress(progress{"count", 1, 1});
  result.seconds.count = seconds_since(count_start);
  result.seconds.total = seconds_since(start);
  return result;
#endif
}

}  // namespace ssum::detail

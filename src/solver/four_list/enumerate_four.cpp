// Streams every subset in a narrow window by the four-list (Schroeppel and Shamir 1981) in the
// modular form the solver's host four-list uses (four_list_cpu.cpp): the items, made
// non-negative, are cut into quarters; with a prime M near 2^(n/4) every solution
// a + b + c + d = t has a + b = r (mod M) for exactly one residue r. For each r the right
// pairs (c, d) with c + d = t - r (mod M) go into a hash table chained by sum, so that every
// pair of a sum is kept, not only its count; each left pair (a, b) with a + b = r (mod M)
// then walks the chain of t - (a + b), and each pair of the chain is one subset. Over all r
// every pair is formed once: time O(2^(n/2)) plus one step per subset, memory O(2^(n/4)).
#include "solver/four_list/enumerate_four.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "solver/four_list/four_list_plan.hpp"
#include "solver/frame.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

// A residue class's right side of about 2^15 pairs stays in a core's L2 cache (the measure
// behind four_list_cpu.cpp's choice of M).
constexpr int class_bits = 15;

int modulus_bits(const quarter (&q)[4]) {
  const int right = static_cast<int>(q[2].count + q[3].count);
  const int scan = static_cast<int>(std::min(q[0].count, q[2].count));
  return std::max(1, std::min(right - class_bits, scan));
}

constexpr std::uint32_t no_pair = 0xffffffffu;

// One residue class's right pairs, chained by sum: heads[slot] is the newest pair of a sum,
// pairs[k].next the one before it. Open addressing over the distinct sums, at most half full.
template <class Sum>
struct right_chains {
  struct pair {
    Sum sum;
    std::uint32_t m3, m4, next;
  };
  std::vector<pair> pairs;
  std::vector<std::uint32_t> heads;
  std::size_t mask = 0, distinct = 0;

  static std::size_t slot_of(Sum s, std::size_t mask) { return sum_slot(s, mask); }
  void clear(double expected) {
    const std::size_t size = table_slots(expected);
    if (heads.size() != size) {
      heads.assign(size, no_pair);
    } else {
      std::fill(heads.begin(), heads.end(), no_pair);
    }
    mask = size - 1;
    distinct = 0;
    pairs.clear();
  }
  void add(Sum sum, std::uint32_t m3, std::uint32_t m4) {
    if (pairs.size() >= no_pair) throw std::bad_alloc();  // past 32-bit chain links
    const auto k = static_cast<std::uint32_t>(pairs.size());
    std::size_t s = slot_of(sum, mask);
    for (; heads[s] != no_pair; s = (s + 1) & mask) {
      if (pairs[heads[s]].sum == sum) {
        pairs.push_back({sum, m3, m4, heads[s]});
        heads[s] = k;
        return;
      }
    }
    pairs.push_back({sum, m3, m4, no_pair});
    heads[s] = k;
    if (2 * ++distinct > heads.size()) grow();
  }
  std::uint32_t find(Sum sum) const {
    for (std::size_t s = slot_of(sum, mask); heads[s] != no_pair; s = (s + 1) & mask) {
      if (pairs[heads[s]].sum == sum) return heads[s];
    }
    return no_pair;
  }

 private:
  void grow() {
    std::vector<std::uint32_t> old(2 * heads.size(), no_pair);
    old.swap(heads);
    mask = heads.size() - 1;
    for (const std::uint32_t h : old) {
      if (h == no_pair) continue;
      std::size_t s = slot_of(pairs[h].sum, mask);
      while (heads[s] != no_pair) s = (s + 1) & mask;
      heads[s] = h;
    }
  }
};

// The hand-out shared by the threads: one subset at a time, the limit's one-more look, the
// caller's stop and exception.
class outlet {
 public:
  outlet(const enumerate_request& r, const quarter (&q)[4], const std::vector<bool>& flipped,
         const std::function<bool(const std::vector<std::size_t>&)>& on_subset)
      : r_(r), q_(q), flipped_(flipped), on_subset_(on_subset) {}

  // False once the listing is over (the caller stopped it, the limit's extra subset came, a
  // cancel): the threads leave.
  bool give(const std::uint32_t (&masks)[4]) {
    std::lock_guard<std::mutex> guard(lock_);
    if (stopped_.load(std::memory_order_relaxed)) return false;
    if (r_.limit != 0 && listed_ == r_.limit) {
      more_ = true;
      stopped_.store(true);
      return false;
    }
    subset_ = subset_of_masks(q_, masks, flipped_);
    ++listed_;
    try {
      if (!on_subset_(subset_)) {
        refused_ = true;
        stopped_.store(true);
      }
    } catch (...) {
      error_ = std::current_exception();
      stopped_.store(true);
    }
    return !stopped_.load(std::memory_order_relaxed);
  }
  bool halted() {
    if (stopped_.load(std::memory_order_relaxed)) return true;
    if (r_.cancel && r_.cancel->load(std::memory_order_relaxed)) {
      cancelled_.store(true);
      stopped_.store(true);
      return true;
    }
    return false;
  }
  void out_of_memory() {
    oom_.store(true);
    stopped_.store(true);
  }
  enumerate_result result() const {
    if (error_) std::rethrow_exception(error_);
    if (oom_.load()) throw std::bad_alloc();
    enumerate_result out;
    out.listed = listed_;
    out.cancelled = cancelled_.load();
    out.complete = !out.cancelled && !refused_ && !more_;
    return out;
  }

 private:
  const enumerate_request& r_;
  const quarter (&q_)[4];
  const std::vector<bool>& flipped_;
  const std::function<bool(const std::vector<std::size_t>&)>& on_subset_;
  std::mutex lock_;
  std::vector<std::size_t> subset_;
  std::uint64_t listed_ = 0;
  bool more_ = false, refused_ = false;
  std::exception_ptr error_;
  std::atomic<bool> stopped_{false}, cancelled_{false}, oom_{false};
};

// What a quadruple of masks must satisfy beyond its sum: the size bounds, and (zero-sum) not
// being the empty subset, which is the flipped items' masks.
struct quadruple_rules {
  std::uint32_t flip[4] = {0, 0, 0, 0};
  std::size_t min_items = 0, max_items = SIZE_MAX;
  bool non_empty = false;
  bool sized = false;
  bool accepts(const std::uint32_t (&m)[4]) const {
    if (!sized && !non_empty) return true;
    std::size_t size = 0;
    for (int k = 0; k < 4; ++k) size += std::size_t(std::popcount(m[k] ^ flip[k]));
    if (non_empty && size == 0) return false;
    return size >= min_items && size <= max_items;
  }
};

template <class Sum>
enumerate_result list_four(const enumerate_request& r, unsigned threads, Sum lo, std::uint64_t width,
                           const std::function<bool(const std::vector<std::size_t>&)>& on_subset) {
  const std::vector<int128>& weights = *r.weights;
  const std::size_t n = weights.size();
  quarter q[4];
  quarters_of(n, q);
  std::vector<Sum> w(n);
  std::vector<bool> flipped(n);
  quadruple_rules rules;
  rules.min_items = r.min_items;
  rules.max_items = r.max_items;
  rules.sized = r.min_items > 0 || r.max_items < n;
  rules.non_empty = r.non_empty;
  for (int k = 0; k < 4; ++k) {
    for (std::size_t j = 0; j < q[k].count; ++j) {
      const std::size_t i = q[k].first + j;
      w[i] = static_cast<Sum>(magnitude(weights[i]));
      flipped[i] = weights[i] < 0;
      if (flipped[i]) rules.flip[k] |= std::uint32_t{1} << j;
    }
  }
  outlet out(r, q, flipped, on_subset);
  const std::uint64_t m = modulus_for(modulus_bits(q));
  std::optional<quarter_list<Sum>> l1, l2, l3, l4;
  try {
    l1.emplace(w.data(), q[0], m, false, r.cancel);
    l2.emplace(w.data(), q[1], m, true, r.cancel);
    l3.emplace(w.data(), q[2], m, false, r.cancel);
    l4.emplace(w.data(), q[3], m, true, r.cancel);
  } catch (const interrupted&) {
    enumerate_result stopped;
    stopped.cancelled = true;
    return stopped;
  }
  const double expected = std::ldexp(1.0, int(q[2].count + q[3].count)) / double(m);
  for (std::uint64_t step = 0; step < width && !out.halted(); ++step) {
    const Sum t = static_cast<Sum>(lo + step);
    const std::uint64_t t_mod = static_cast<std::uint64_t>(t % m);
    std::atomic<std::uint64_t> next_class{0};
#pragma omp parallel num_threads(threads)
    {
      right_chains<Sum> table;
      std::uint32_t masks[4];
      for (std::uint64_t c = next_class++; c < m && !out.halted(); c = next_class++) {
        const std::uint64_t want = (t_mod + m - c) % m;  // c + d = t - r (mod M)
        try {
          table.clear(expected);
          for (std::uint32_t m3 = 0; m3 < l3->sum.size() && !out.halted(); ++m3) {
            const Sum s3 = l3->sum[m3];
            if (s3 > t) continue;
            const std::uint64_t need = residue_minus(want, l3->residue[m3], m);
            for (std::uint32_t k = l4->offset[need]; k < l4->offset[need + 1]; ++k) {
              const std::uint32_t m4 = l4->by_residue[k];
              if (l4->sum[m4] <= t - s3) table.add(s3 + l4->sum[m4], m3, m4);
            }
          }
        } catch (const std::bad_alloc&) {
          out.out_of_memory();
          break;
        }
        if (table.pairs.empty()) continue;
        bool open = true;  // false once the outlet is closed
        for (std::uint32_t m1 = 0; m1 < l1->sum.size() && open && !out.halted(); ++m1) {
          const Sum s1 = l1->sum[m1];
          if (s1 > t) continue;
          const std::uint64_t need = residue_minus(c, l1->residue[m1], m);
          for (std::uint32_t k = l2->offset[need]; k < l2->offset[need + 1] && open; ++k) {
            const std::uint32_t m2 = l2->by_residue[k];
            const Sum s2 = l2->sum[m2];
            if (s2 > t - s1) continue;
            for (std::uint32_t p = table.find(t - s1 - s2); p != no_pair && open; p = table.pairs[p].next) {
              masks[0] = m1, masks[1] = m2, masks[2] = table.pairs[p].m3, masks[3] = table.pairs[p].m4;
              if (rules.accepts(masks)) open = out.give(masks);
            }
          }
        }
      }
    }
  }
  return out.result();
}

}  // namespace

double enumerate_four_bytes(std::size_t n, unsigned threads) {
  quarter q[4];
  quarters_of(n, q);
  const double m = std::ldexp(1.0, modulus_bits(q));
  double lists = 2 * (m + 1) * 4;
  for (const quarter& k : q) lists += std::ldexp(1.0, int(k.count)) * (16 + 4 + 4);
  // Per thread one class: twice its expected pairs (32 bytes) and their heads (up to 16 bytes).
  const double per_thread = 2 * std::ldexp(1.0, int(q[2].count + q[3].count)) / m * (32 + 16) + 4096;
  return lists + double(std::max(threads, 1u)) * per_thread;
}

enumerate_result enumerate_subsets_four(const enumerate_request& r, unsigned threads,
                                        const std::function<bool(const std::vector<std::size_t>&)>& on_subset) {
  if (!r.weights) throw std::invalid_argument("enumerate_subsets_four: no weights");
  const std::size_t n = r.weights->size();
  if (n > enumerate_four_most_items) {
    throw instance_refused("the four-list listing takes at most " + std::to_string(enumerate_four_most_items) +
                                " items (" + std::to_string(n) + " given)");
  }
  const flipped_totals totals = totals_of(*r.weights);  // throws past 2^127
  threads = std::max(threads, 1u);
  const double bytes = enumerate_four_bytes(n, threads);
  if (r.max_bytes > 0 && bytes > r.max_bytes) {
    throw insufficient_memory::needs("listing the subsets of n = " + std::to_string(n) + " items (four quarter lists)",
                                     bytes, r.max_bytes);
  }
  // The window in flipped sums (each original sum plus the negatives' magnitudes), clipped to
  // the reachable [0, total |w|].
  const int128 lo = std::max(r.lo, totals.least()), hi = std::min(r.hi, totals.most());
  enumerate_result none;
  none.complete = true;
  if (lo > hi || r.min_items > r.max_items || r.min_items > n) return none;
  const uint128 width = uint128(hi - lo) + 1;
  if (width > enumerate_four_widest_window) {
    throw instance_refused("the four-list lists a window of at most " +
                                std::to_string(enumerate_four_widest_window) + " values, one target at a time");
  }
  const uint128 first = uint128(lo + int128(totals.negative_abs));
  if (totals.total_abs <= uint128(UINT64_MAX)) {
    return list_four<std::uint64_t>(r, threads, std::uint64_t(first), std::uint64_t(width), on_subset);
  }
  return list_four<uint128>(r, threads, first, std::uint64_t(width), on_subset);
}

}  // namespace ssum::detail

// The four-list algorithm on the host (Schroeppel and Shamir 1981, in the modular form of
// docs/algorithms.md): memory O(2^(n/4)) instead of the two lists' O(2^(n/2)).
//
// The items (made non-negative, solver/two_list/two_list_instance.hpp) are cut into quarters Q1..Q4;
// L_k[m] is the sum of the items of Q_k chosen by the bits of m, kept in mask order, so that
// an index IS the subset (certificates need no search). With a prime M near 2^(n/4), every
// solution a + b + c + d = t has a + b = r (mod M) for exactly one residue r. For each r:
//   right side: every (c, d) with c + d = t - r (mod M) and c + d <= t, in a hash table by
//               sum (L4 is bucketed by residue, so the d's that fit a c are one bucket), one
//               entry per distinct sum with its multiplicity;
//   left side:  every (a, b) with a + b = r (mod M), each looked up for t - (a + b): a count
//               adds the entry's multiplicity, so runs of equal sums (many zero or equal
//               weights) cost one lookup, not one step per quadruple.
// Each class holds about 2^(n/2) / M ~ 2^(n/4) pairs; the residues are independent and are
// shared out among the threads. Over all r every (a, b) and (c, d) pair is formed once: time
// O(2^(n/2)), like the two lists, in cache-sized pieces.
#include "solver/four_list/four_list_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/four_list/checkpoint.hpp"
#include "solver/four_list/unit_feed.hpp"
#include "solver/four_list/unit_record.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "solver/frame.hpp"
#include "solver/two_list/two_list_instance.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {
namespace {

// log2 of the modulus. A class holds about 2^(n3 + n4) / M right-side pairs: 2^15 of them
// (about 1 MiB with the hash slots) stay in a core's L2 cache, which measured fastest on the
// 2-core machine (n = 48: 177 ms at 2^15 per class, 327 ms at 2^12; n = 52: 702 vs 1119 ms).
// Every class scans L1 and L3 once, so M stays at most their size: the scans then cost no
// more than the pairs.
// A tighter memory limit takes a larger modulus (smaller classes), up to that bound.
constexpr int class_bits = 15;
int preferred_modulus_bits(std::size_t n) {
  quarter q[4];
  quarters_of(n, q);
  const int right = static_cast<int>(q[2].count + q[3].count);
  const int scan = static_cast<int>(std::min(q[0].count, q[2].count));
  return std::max(1, std::min(right - class_bits, scan));
}

double planned_bytes(std::size_t n, unsigned threads, int bits) {
  quarter q[4];
  quarters_of(n, q);
  const double m = std::ldexp(1.0, bits);
  // Four lists of (16-byte sum, residue, order), two bucket arrays, and per thread one class:
  // twice its expected right-side entries (48 bytes) and their hash slots (up to 4 x 4 bytes).
  double lists = 2 * (m + 1) * 4;
  for (const quarter& k : q) lists += std::ldexp(1.0, int(k.count)) * (16 + 4 + 4);
  const double per_thread = 2 * std::ldexp(1.0, int(q[2].count + q[3].count)) / m * (48 + 16) + 4096;
  return lists + double(threads) * per_thread;
}

// The right side of one residue class: one entry per distinct c + d, with how many (c, d)
// pairs have it and the masks of two of them; open addressing, at most half full.
template <class Sum>
struct right_table {
  struct entry {
    Sum sum;
    std::uint64_t count;     // pairs with this sum: below 2^60 (quarters of at most 30 items)
    std::uint32_t m3, m4;    // the first pair
    std::uint32_t m3b, m4b;  // a second (count >= 2): the certificate when the first pair
                             // only completes the empty subset
  };
  static constexpr std::uint32_t no_entry = 0xffffffffu;
  std::vector<entry> entries;
  std::vector<std::uint32_t> slots;  // entry indices, no_entry where free
  std::size_t mask = 0;

  static std::size_t slot_of(Sum s, std::size_t mask) { return sum_slot(s, mask); }
  // Empties the table, sized for `expected` distinct sums (a heavy class grows it).
  void clear(double expected) {
    const std::size_t size = table_slots(expected);
    if (slots.size() != size) {
      slots.assign(size, no_entry);
    } else {
      std::fill(slots.begin(), slots.end(), no_entry);
    }
    mask = size - 1;
    entries.clear();
  }
  void add(Sum sum, std::uint32_t m3, std::uint32_t m4) {
    std::size_t s = slot_of(sum, mask);
    for (; slots[s] != no_entry; s = (s + 1) & mask) {
      entry& x = entries[slots[s]];
      if (x.sum != sum) continue;
      if (x.count++ == 1) x.m3b = m3, x.m4b = m4;
      return;
    }
    slots[s] = static_cast<std::uint32_t>(entries.size());
    entries.push_back({sum, 1, m3, m4, 0, 0});
    if (2 * entries.size() > slots.size()) grow();
  }
  const entry* find(Sum sum) const {
    for (std::size_t s = slot_of(sum, mask); slots[s] != no_entry; s = (s + 1) & mask) {
      if (entries[slots[s]].sum == sum) return &entries[slots[s]];
    }
    return nullptr;
  }

 private:
  void grow() {
    slots.assign(2 * slots.size(), no_entry);
    mask = slots.size() - 1;
    for (std::uint32_t e = 0; e < entries.size(); ++e) {
      std::size_t s = slot_of(entries[e].sum, mask);
      while (slots[s] != no_entry) s = (s + 1) & mask;
      slots[s] = e;
    }
  }
};

// What the search over the residue classes found: the first certificate's masks (one per
// quarter) and, with a count, how many solutions (the empty subset excluded).
template <class Sum>
struct class_search {
  bool found = false;
  std::uint32_t answer[4] = {0, 0, 0, 0};
  uint128 count = 0;
  std::optional<std::vector<std::size_t>> known;  // a checkpoint's or another solve's subset
};

// The search stage: every residue class r, shared out among `threads` threads: its right side
// into a table, its left side looked up. trivial: the flipped items' masks (the empty
// subset, zero-sum). Throws ssum::interrupted on cancellation, std::bad_alloc when a heavy
// class outgrows the memory.
template <class Sum>
class_search<Sum> search_classes(const flipped_instance<Sum>& inst, const quarter (&q)[4], const quarter_list<Sum>& l1,
                                 const quarter_list<Sum>& l2, const quarter_list<Sum>& l3, const quarter_list<Sum>& l4,
                                 std::uint64_t m, const std::uint32_t (&trivial)[4], unsigned threads,
                                 const solve_options& options, unit_record* record) {
  const std::uint64_t units = units_of(m);
  unit_feed feed(units, record, options.share);
  const Sum t = inst.target;
  const std::uint64_t t_mod = static_cast<std::uint64_t>(t % m);
  std::atomic<bool> stop{false}, found{false}, cancelled{false}, out_of_memory{false};
  std::mutex lock;
  std::uint32_t answer[4] = {0, 0, 0, 0};
  std::vector<uint128> partial(threads, 0);
  std::atomic<std::uint64_t> classes_done{0};
  // Right-side entries a class expects: the table starts at that size.
  const double expected = std::ldexp(1.0, int(q[2].count + q[3].count)) / double(m);
  // Stop looking: a certificate was found (no count), or the caller cancelled. Polled per
  // outer sum, so that one heavy class (all sums in a few residues) is left within ms too.
  const auto halted = [&] {
    if (stop.load(std::memory_order_relaxed)) return true;
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
      cancelled.store(true);
      stop.store(true);
      return true;
    }
    return false;
  };
  const std::uint32_t right_trivial[2] = {trivial[2], trivial[3]};
  if (options.on_progress) options.on_progress(progress{"search", 0.0, 0.0});  // before any class ends
  if (record) classes_done = first_class(record->units_skipped(), units, m);  // about: for progress
  std::atomic<bool> unwritten{false};
  // A decision whose checkpoint (or share) already holds a subset has its answer.
  if (!options.count && feed.known_subset()) stop.store(true);
#pragma omp parallel num_threads(threads)
  {
    right_table<Sum> table;
    uint128 count = 0;
    // One unit at a time, from this process's units or the share's.
    while (!halted()) {
      const std::optional<std::array<std::uint64_t, 2>> taken = feed.next(1);
      if (!taken) break;
      const std::uint64_t u = (*taken)[0];
      uint128 unit_count = 0;
      bool complete = true;  // every class of the unit searched to its end
      for (std::uint64_t r = first_class(u, units, m); r < first_class(u + 1, units, m) && complete; ++r) {
        if (halted()) {
          complete = false;
          break;
        }
        // Right side: c + d = t - r (mod M).
        const std::uint64_t want = (t_mod + m - r) % m;
        // A heavy class (many distinct sums in few residues) may outgrow the plan: no exception
        // may leave the parallel region, so it is carried out by a flag.
        try {
          table.clear(expected);
          for (std::uint32_t m3 = 0; m3 < l3.sum.size(); ++m3) {
            if (halted()) {
              complete = false;
              break;
            }
            const std::uint64_t need = residue_minus(want, l3.residue[m3], m);
            const Sum c = l3.sum[m3];
            if (c > t) continue;
            for (std::uint32_t k = l4.offset[need]; k < l4.offset[need + 1]; ++k) {
              const std::uint32_t m4 = l4.by_residue[k];
              const Sum d = l4.sum[m4];
              if (d <= t - c) table.add(c + d, m3, m4);
            }
          }
        } catch (const std::bad_alloc&) {
          out_of_memory.store(true);
          stop.store(true);
          complete = false;
        }
        if (!complete) break;
        if (!table.entries.empty()) {
          // Left side: a + b = r (mod M), each looked up for t - (a + b).
          for (std::uint32_t m1 = 0; m1 < l1.sum.size(); ++m1) {
            if (halted()) {
              complete = false;
              break;
            }
            const Sum a = l1.sum[m1];
            if (a > t) continue;
            const std::uint64_t need = residue_minus(r, l1.residue[m1], m);
            for (std::uint32_t k = l2.offset[need]; k < l2.offset[need + 1]; ++k) {
              const std::uint32_t m2 = l2.by_residue[k];
              const Sum b = l2.sum[m2];
              if (b > t - a) continue;
              const auto* x = table.find(t - a - b);
              if (!x) continue;
              // The empty subset (zero-sum): with the flipped items' (a, b) the entry holds the
              // flipped items' (c, d) too (same class, same sum); that one quadruple is not a
              // solution.
              const bool trivial_left = inst.exclude_trivial && m1 == trivial[0] && m2 == trivial[1];
              const std::uint64_t solutions = x->count - (trivial_left ? 1 : 0);
              if (solutions == 0) continue;
              unit_count += solutions;
              if (!found.load(std::memory_order_relaxed)) {  // the first match is the certificate
                const bool first_trivial = trivial_left && x->m3 == right_trivial[0] && x->m4 == right_trivial[1];
                std::lock_guard<std::mutex> guard(lock);
                if (!found.load()) {
                  answer[0] = m1, answer[1] = m2;
                  answer[2] = first_trivial ? x->m3b : x->m3;
                  answer[3] = first_trivial ? x->m4b : x->m4;
                  found.store(true);
                  if (!options.count) stop.store(true);  // a count goes on through every class
                  // Kept before this unit is recorded as finished.
                  feed.found(subset_of_masks(q, answer, inst.flipped));
                }
              }
            }
          }
        }
        if (!complete) break;
        const std::uint64_t done = classes_done.fetch_add(1) + 1;
        if (omp_get_thread_num() == 0 && options.on_progress) {
          progress pr{"search", feed.done(double(done) / double(m))};
          pr.overall = pr.fraction;  // the classes are the work: the quarter lists are 2^(n/4) sums
          options.on_progress(pr);
        }
      }
      count += unit_count;
      if (complete && !feed.finished(u, u + 1, unit_count)) {
        unwritten.store(true);
        stop.store(true);
      }
    }
    partial[omp_get_thread_num()] = count;
  }
  if (record) {
    // Complete: every unit ran, or a decision's certificate was found. Otherwise the file keeps
    // what finished (or throws why it could not be written).
    const bool complete = !cancelled.load() && !out_of_memory.load() && !unwritten.load();
    record->close(complete);
  }
  feed.rethrow();
  if (cancelled.load()) throw interrupted();
  if (out_of_memory.load()) throw std::bad_alloc();  // ssum::solve names the plan's bytes
  class_search<Sum> result;
  result.found = found.load();
  for (int k = 0; k < 4; ++k) result.answer[k] = answer[k];
  for (const uint128 c : partial) result.count += c;
  // The units a previous run finished, or (shared) the whole search's: a decision that found
  // its subset here does not wait for the others.
  if (options.count || !result.found) result.count = feed.total(result.count, options.cancel);
  if (!result.found) result.known = feed.known_subset();
  feed.rethrow();
  return result;

}

template <class Sum>
solution solve_four_flipped(unsigned threads, const flipped_instance<Sum>& inst, int modulus_bits,
                            const solve_options& options, unit_record* record) {
  const auto start = clock_type::now();
  solution result;
  result.algorithm = "four-list";
  result.backend = "cpu";
  result.threads = threads;
  const std::size_t n = inst.weights.size();
  quarter q[4];
  quarters_of(n, q);
  const std::uint64_t m = modulus_for(modulus_bits);

  auto t0 = clock_type::now();
  const Sum* w = inst.weights.data();
  const std::atomic<bool>* cancel = options.cancel;
  const quarter_list<Sum> l1(w, q[0], m, false, cancel), l2(w, q[1], m, true, cancel);
  const quarter_list<Sum> l3(w, q[2], m, false, cancel), l4(w, q[3], m, true, cancel);
  result.seconds.generate = seconds_since(t0);

  // The empty original subset (zero-sum): exactly the flipped items, one quadruple of masks.
  std::uint32_t trivial[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    for (std::size_t j = 0; j < q[k].count; ++j) {
      if (inst.flipped[q[k].first + j]) trivial[k] |= std::uint32_t{1} << j;
    }
  }

  t0 = clock_type::now();
  const class_search<Sum> found = search_classes(inst, q, l1, l2, l3, l4, m, trivial, result.threads, options, record);
  result.seconds.search = seconds_since(t0);
  if (options.on_progress) {
    progress pr{"search", 1.0};
    pr.overall = 1.0;
    options.on_progress(pr);
  }

  if (options.count) result.count = found.count;
  // Recover: the masks are the subset (quarter lists in mask order).
  if (found.found) {
    result.subset = subset_of_masks(q, found.answer, inst.flipped);
    result.feasible = true;
  } else if (found.known) {
    result.subset = *found.known;
    result.feasible = true;
  }
  result.seconds.total = seconds_since(start);
  return result;
}

}  // namespace

double four_list_planned_bytes(const problem& p, unsigned threads) {
  return planned_bytes(p.weights.size(), threads, preferred_modulus_bits(p.weights.size()));
}

solution solve_four_list(const host_share& host, const problem& p, const flipped_totals& totals,
                         const solve_options& options) {
  const auto start = clock_type::now();
  const std::size_t n = p.weights.size();
  if (n > most_items) {
    throw instance_refused("the four-list algorithm takes at most " + std::to_string(most_items) + " items");
  }
  if (totals.out_of_range()) return out_of_range_answer("four-list", "cpu", host.threads, options, start);
  const double available = host.room;
  const unsigned threads = host.threads;
  int bits = preferred_modulus_bits(n);
  while (planned_bytes(n, threads, bits) > available && bits < largest_modulus_bits(n)) ++bits;
  // A checkpoint of this instance keeps its run's modulus, so that its units are the same.
  std::optional<checkpoint> saved;
  if (!options.checkpoint.empty()) saved = read_checkpoint(options.checkpoint);
  if (saved && saved->id.modulus_bits >= 1 && saved->id.modulus_bits <= largest_modulus_bits(n)) {
    bits = saved->id.modulus_bits;
  }
  bits = shared_modulus_bits(p, bits, options);
  const double bytes = planned_bytes(n, threads, bits);
  if (bytes > available) {
    throw insufficient_memory::needs(plan_name("the four-list algorithm", n), bytes, available);
  }
  std::optional<unit_record> record = open_unit_record(p, bits, modulus_for(bits), saved, options);
  unit_record* const r = record ? &*record : nullptr;
  solution result = totals.total_abs > uint128(UINT64_MAX)
                        ? solve_four_flipped(threads, flip<uint128>(p, totals.target), bits, options, r)
                        : solve_four_flipped(threads, flip<std::uint64_t>(p, totals.target), bits, options, r);
  result.planned_bytes = static_cast<std::uint64_t>(bytes);
  check_four_list_subset(p, result, options);
  return result;
}

}  // namespace ssum::detail

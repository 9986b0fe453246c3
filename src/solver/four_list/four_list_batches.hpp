#pragma once
// Internal: the four-list algorithm (Schroeppel and Shamir 1981, the modular form of
// docs/algorithms.md) in batches of residue classes, for a device that expands, partitions and
// joins large arrays: src/solver/four_list/four_list_cuda.cu runs it on a GPU;
// tests/test_four_list_batches.cpp runs it over a host emulation of the same steps
// (solver/four_list/four_list_window.hpp).
//
//   lists:  L1..L4 as on the host (solver/four_list/four_list_plan.hpp): quarter sums in mask order, so an
//           index is the subset; L2 and L4 also ordered by residue mod M, with bucket offsets.
//           Built on the host (2^(n/4) sums each), copied to the device once.
//   batch:  the classes [r0, r0 + B). X = {a + b <= t : (a + b) mod M in the batch}: for one a
//           the b's are one or two stretches of L2 by residue. Y = {t - (c + d) : c + d <= t,
//           (c + d) mod M = (t - r) mod M, r in the batch}: B consecutive classes too. A
//           solution is an x equal to a key of Y; it has its a + b in exactly one class, so over
//           all batches it is matched exactly once.
//   join:   (the device's; 128-bit keys on the GPU, four_list_cuda.cu; 64-bit ones are radix-sorted
//           and merged instead, four_list_sorted.cuh, faster there)
//           X and Y are cut into the same hash partitions (join_hash of the key; equal keys meet),
//           each small enough for a table in a GPU block's shared memory: one pass writes every
//           key into its partition, one reads it for the join. Each pair sum is written once
//           and read once; nothing is sorted.
//   units:  the classes are walked in units (unit_record.hpp, as on the host), whole units per
//           batch or batches within one unit; with options.checkpoint the finished units and
//           the count so far are kept, and a run started again skips them.
//   memory: X and Y, `cap` keys each. B follows the batches' measured fill (about 0.8 cap
//           keys); a batch that holds more is halved (its classes, or for one class its range
//           of a's or c's) until it fits.
// Sums are 64-bit where the total fits, 128-bit otherwise; counts add up in 128 bits.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/four_list/four_list_cuda.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "solver/four_list/four_list_window.hpp"
#include "solver/four_list/unit_feed.hpp"
#include "solver/four_list/unit_record.hpp"
#include "solver/frame.hpp"
#include "solver/two_list/two_list_instance.hpp"
#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// What the device receives: per side (0: L1 + L2, 1: L3 + L4) the outer list in mask order
/// with residues, the inner list's sums by residue and its bucket offsets.
template <class Sum>
struct four_list_tables {
  std::uint64_t m = 2;
  Sum t = 0;
  std::vector<Sum> outer_sum[2];
  std::vector<std::uint32_t> outer_residue[2];
  std::vector<Sum> inner_sum[2];
  std::vector<std::uint32_t> inner_offset[2];
};

/// Device memory pieces are 256-byte aligned.
inline double four_list_piece(double bytes) { return std::ceil(bytes / 256) * 256; }

/// Bytes the device allocates for `tables` and batches of `cap` keys, piece by piece in the
/// order the device takes them: per side the four lists and the key buffer, then the device's
/// own scratch (partition bases, results).
template <class Sum>
double four_list_device_bytes(const four_list_tables<Sum>& tables, std::size_t cap, std::size_t scratch) {
  double bytes = 0;
  for (int s = 0; s < 2; ++s) {
    const double outer = double(tables.outer_sum[s].size());
    bytes += four_list_piece(outer * sizeof(Sum)) + four_list_piece(outer * 4) +
             four_list_piece(double(tables.inner_sum[s].size()) * sizeof(Sum)) +
             four_list_piece(double(tables.inner_offset[s].size()) * 4) + four_list_piece(double(cap) * sizeof(Sum));
  }
  return bytes + four_list_piece(double(scratch));
}

/// What the scans take from the stream-ordered pool beside the plan, with room to spare.
inline double four_list_pool_bytes(std::size_t scratch) { return 0.01 * double(scratch) + (1 << 20); }

// Some (mask of outer, mask of inner) whose sums add up to x, other than `skip`: each outer
// sum looks in the one bucket of the inner list where its partner must be. O(2^(n/4)).
template <class Sum>
std::optional<std::array<std::uint32_t, 2>> pair_with_sum(const quarter_list<Sum>& outer, const quarter_list<Sum>& inner,
                                                          std::uint64_t m, Sum x,
                                                          const std::array<std::uint32_t, 2>* skip) {
  const std::uint64_t x_mod = static_cast<std::uint64_t>(x % m);
  for (std::uint32_t i = 0; i < outer.sum.size(); ++i) {
    const Sum a = outer.sum[i];
    if (a > x) continue;
    const std::uint64_t need = residue_minus(x_mod, outer.residue[i], m);
    for (std::uint32_t k = inner.offset[need]; k < inner.offset[need + 1]; ++k) {
      const std::uint32_t j = inner.by_residue[k];
      if (inner.sum[j] != x - a) continue;
      if (skip && (*skip)[0] == i && (*skip)[1] == j) continue;
      return std::array<std::uint32_t, 2>{i, j};
    }
  }
  return std::nullopt;
}

/// Device<Sum> (the caller's), all on one stream:
///   double available_bytes();                      room for the plan
///   static std::size_t preferred_batch();          keys per side and batch unless tuned
///   std::size_t scratch_bytes(const four_list_tables<Sum>&, std::size_t cap);
///                                                  its own pieces for batches of cap keys
///   void prepare(const four_list_tables<Sum>&, std::size_t cap, double arena_bytes);
///                                                  reserves four_list_device_bytes, allocates its
///                                                  pieces, copies the lists
///   std::array<std::uint64_t, 2> partition(const four_list_slice& x, const four_list_slice& y);
///                                                  |X| and |Y| of the slices, keys above the
///                                                  target dropped (waits for them)
///   void build();                                  X and Y of the last partition() written into
///                                                  their partitions (both sizes fit cap)
///   std::uint64_t count();                         how many (x, y) pairs have equal keys
///   std::optional<Sum> find(const Sum* skip);      some x with a key of Y equal to it, other
///                                                  than *skip when given
template <class Sum, class Device>
solution four_list_sums_in_batches(Device& device, const problem& p, const flipped_totals& totals,
                                   const solve_options& options, const four_list_tuning& tuning,
                                   const char* backend_name, std::chrono::steady_clock::time_point start) {
  const std::size_t n = p.weights.size();
  solution result;
  result.algorithm = "four-list";
  result.backend = backend_name;
  result.threads = 1;  // the host's share (lists, certificates) runs on one thread
  const auto check_cancel = [&options] { detail::check_cancel(options); };
  const flipped_instance<Sum> inst = flip<Sum>(p, totals.target);
  const Sum t = inst.target;

  // ---- the lists, on the host ----
  auto t0 = clock_type::now();
  quarter q[4];
  quarters_of(n, q);
  // A checkpoint of this instance keeps its run's modulus (the host's may be smaller), so that
  // its units are the same classes.
  std::optional<checkpoint> saved;
  if (!options.checkpoint.empty()) saved = read_checkpoint(options.checkpoint);
  int bits = largest_modulus_bits(n);
  if (saved && saved->id.modulus_bits >= 1 && saved->id.modulus_bits <= bits) bits = saved->id.modulus_bits;
  bits = shared_modulus_bits(p, bits, options);
  const std::uint64_t m = modulus_for(bits);
  std::optional<unit_record> record = open_unit_record(p, bits, m, saved, options);
  const Sum* w = inst.weights.data();
  const std::atomic<bool>* cancel = options.cancel;
  const quarter_list<Sum> l1(w, q[0], m, false, cancel), l2(w, q[1], m, true, cancel);
  const quarter_list<Sum> l3(w, q[2], m, false, cancel), l4(w, q[3], m, true, cancel);
  const quarter_list<Sum>* outer[2] = {&l1, &l3};
  const quarter_list<Sum>* inner[2] = {&l2, &l4};
  four_list_tables<Sum> tables;
  tables.m = m;
  tables.t = t;
  std::size_t largest_bucket = 1;
  double pairs = 0;  // sums per side, the larger side
  for (int s = 0; s < 2; ++s) {
    tables.outer_sum[s] = outer[s]->sum;
    tables.outer_residue[s] = outer[s]->residue;
    tables.inner_sum[s].resize(inner[s]->sum.size());
    for (std::size_t k = 0; k < inner[s]->by_residue.size(); ++k)
      tables.inner_sum[s][k] = inner[s]->sum[inner[s]->by_residue[k]];
    tables.inner_offset[s] = inner[s]->offset;
    for (std::uint64_t r = 0; r < m; ++r) {
      largest_bucket = std::max<std::size_t>(largest_bucket, inner[s]->offset[r + 1] - inner[s]->offset[r]);
    }
    pairs = std::max(pairs, double(outer[s]->sum.size()) * double(inner[s]->sum.size()));
  }
  // The empty original subset (zero-sum): exactly the flipped items, one quadruple of masks.
  std::array<std::uint32_t, 2> trivial[2] = {{0, 0}, {0, 0}};
  for (int k = 0; k < 4; ++k) {
    for (std::size_t j = 0; j < q[k].count; ++j) {
      if (inst.flipped[q[k].first + j]) trivial[k / 2][k % 2] |= std::uint32_t{1} << j;
    }
  }

  // ---- memory, planned before allocating ----
  // A batch of one class and one outer sum holds at most one bucket: with cap >= the largest
  // bucket every batch can be halved until it fits.
  constexpr std::size_t largest_cap = std::size_t{1} << 30;
  std::size_t cap = std::min(tuning.max_batch ? tuning.max_batch : Device::preferred_batch(), largest_cap);
  if (double(cap) > pairs) cap = static_cast<std::size_t>(pairs);  // one batch holds everything
  cap = std::max(cap, largest_bucket);
  const auto bytes_for = [&](std::size_t c) {
    const std::size_t scratch = device.scratch_bytes(tables, c);
    return four_list_device_bytes(tables, c, scratch) + four_list_pool_bytes(scratch);
  };
  const double available = room_within(device.available_bytes(), options);
  double bytes = bytes_for(cap);
  while (bytes > available && cap > largest_bucket) {
    cap = std::max(largest_bucket, cap - cap / 8 - 1);
    bytes = bytes_for(cap);
  }
  if (bytes > available) {
    throw insufficient_memory::needs(plan_name("the four-list algorithm (its lists and smallest batches)", n), bytes,
                                     available);
  }
  result.planned_bytes = static_cast<std::uint64_t>(bytes);
  device.prepare(tables, cap, four_list_device_bytes(tables, cap, device.scratch_bytes(tables, cap)));
  result.seconds.generate = seconds_since(t0);

  // ---- certificates, on the host ----
  double recover_seconds = 0;
  // Masks behind a match x + y == t, other than the empty subset's quadruple (zero-sum);
  // nullopt when that quadruple is the only one with these sums.
  const auto masks_of = [&](Sum x) -> std::optional<std::array<std::uint32_t, 4>> {
    const auto tr = clock_type::now();
    const Sum y = t - x;
    std::optional<std::array<std::uint32_t, 2>> left, right;
    const Sum x0 = l1.sum[trivial[0][0]] + l2.sum[trivial[0][1]];
    if (!inst.exclude_trivial || x != x0) {  // y == y0 exactly when x == x0
      left = pair_with_sum(l1, l2, m, x, nullptr);
      right = pair_with_sum(l3, l4, m, y, nullptr);
    } else if ((left = pair_with_sum(l1, l2, m, x, &trivial[0]))) {
      right = trivial[1];
    } else if ((right = pair_with_sum(l3, l4, m, y, &trivial[1]))) {
      left = trivial[0];
    } else {
      recover_seconds += seconds_since(tr);
      return std::nullopt;
    }
    if (!left || !right) throw std::logic_error("four-list: a matched sum has no subset behind it");
    recover_seconds += seconds_since(tr);
    return std::array<std::uint32_t, 4>{(*left)[0], (*left)[1], (*right)[0], (*right)[1]};
  };
  // A certificate in the batch just built, or nullopt.
  const auto certificate_in_batch = [&]() -> std::optional<std::array<std::uint32_t, 4>> {
    const std::optional<Sum> x = device.find(nullptr);
    if (!x) return std::nullopt;
    if (auto masks = masks_of(*x)) return masks;
    // Only the empty subset's quadruple has these sums, so this x occurs once in X: any
    // other match of the batch has another x.
    const std::optional<Sum> other = device.find(&*x);
    if (!other) return std::nullopt;
    auto masks = masks_of(*other);
    if (!masks) throw std::logic_error("four-list: the empty subset matched twice");
    return masks;
  };

  // ---- the batches, unit by unit ----
  t0 = clock_type::now();
  check_cancel();
  struct task {
    std::uint64_t r0, len;   // classes [r0, r0 + len) of a + b
    std::size_t a_lo, a_hi;  // L1 masks
    std::size_t c_lo, c_hi;  // L3 masks
  };
  const std::uint64_t t_mod = static_cast<std::uint64_t>(t % m);
  const double all_outer = double(l1.sum.size()) * double(l3.sum.size());
  const std::uint64_t units = units_of(m);
  unit_feed feed(units, record ? &*record : nullptr, options.share);
  // The empty subset's quadruple (zero-sum) is a match of the class of its a + b: its unit's
  // count leaves it out, so that every unit's count is its solutions on either backend.
  const std::uint64_t trivial_class =
      static_cast<std::uint64_t>((l1.sum[trivial[0][0]] + l2.sum[trivial[0][1]]) % m);
  // Classes per batch: about 0.8 cap keys on the larger side, first from the pairs formed, then
  // from the keys the batches held (those above the target are dropped).
  double keys_per_class = pairs / double(m);
  const auto batch_classes = [&] {
    return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(0.8 * double(cap) / std::max(keys_per_class, 1e-9)),
                                     1, m);
  };
  double done = record ? double(first_class(record->units_skipped(), units, m)) : 0;  // about: for progress
  double count_seconds = 0;
  uint128 count = 0;
  std::optional<std::array<std::uint32_t, 4>> answer;
  // A decision whose checkpoint (or share) already holds a subset has its answer.
  std::optional<std::vector<std::size_t>> known = options.count ? std::nullopt : feed.known_subset();
  const auto finished = [&] { return (answer || known) && !options.count; };  // a count goes on through every unit
  std::vector<task> pending;
  try {
    while (!finished()) {
      // Units [u0, u1): whole units while they fit one batch's classes, at least one.
      const std::uint64_t room = batch_classes();
      const std::uint64_t most = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(double(room) * double(units) / double(m)));
      const std::optional<std::array<std::uint64_t, 2>> taken = feed.next(most);
      if (!taken) {
        feed.rethrow();
        break;
      }
      const std::uint64_t u0 = (*taken)[0], u1 = (*taken)[1];
      const std::uint64_t c_begin = first_class(u0, units, m), c_end = first_class(u1, units, m);
      uint128 range_count = 0;
      for (std::uint64_t r0 = c_begin; r0 < c_end && !finished();) {
        const std::uint64_t len = std::min(batch_classes(), c_end - r0);
        pending.push_back({r0, len, 0, l1.sum.size(), 0, l3.sum.size()});
        r0 += len;
        while (!pending.empty() && !finished()) {
          check_cancel();
          const task k = pending.back();
          pending.pop_back();
          const four_list_slice xs{k.r0, k.len, k.a_lo, k.a_hi};
          // Y's classes: (t - r) mod M for r in [r0, r0 + len), i.e. [(t - r0 - len + 1) mod M, + len).
          const four_list_slice ys{residue_minus(residue_minus(t_mod, k.r0, m), k.len - 1, m), k.len, k.c_lo,
                                   k.c_hi};
          const std::array<std::uint64_t, 2> sizes = device.partition(xs, ys);
          if (sizes[0] > cap || sizes[1] > cap) {
            task lo = k, hi = k;
            if (k.len > 1) {
              lo.len = k.len / 2;
              hi.r0 = k.r0 + lo.len;
              hi.len = k.len - lo.len;
            } else if (sizes[0] > cap && k.a_hi - k.a_lo > 1) {
              lo.a_hi = hi.a_lo = k.a_lo + (k.a_hi - k.a_lo) / 2;
            } else if (sizes[1] > cap && k.c_hi - k.c_lo > 1) {
              lo.c_hi = hi.c_lo = k.c_lo + (k.c_hi - k.c_lo) / 2;
            } else {
              throw std::logic_error("four-list: one class of one outer sum exceeds the batch capacity");
            }
            pending.push_back(hi);
            pending.push_back(lo);  // lo first
            continue;
          }
          const bool whole = k.a_lo == 0 && k.a_hi == l1.sum.size() && k.c_lo == 0 && k.c_hi == l3.sum.size();
          if (whole) {  // the next batches' classes follow this one's fill, at most doubling
            const double per_class = double(std::max(sizes[0], sizes[1])) / double(k.len);
            keys_per_class = std::max(per_class, keys_per_class / 2);
          }
          if (sizes[0] > 0 && sizes[1] > 0) {
            device.build();
            std::uint64_t matches = 1;  // unknown: look
            if (options.count) {
              const auto tc = clock_type::now();
              matches = device.count();
              range_count += matches;
              count_seconds += seconds_since(tc);
            }
            if (!answer && matches > 0) {
              answer = certificate_in_batch();
              if (answer) {  // kept before this range is recorded as finished
                const std::uint32_t masks[4] = {(*answer)[0], (*answer)[1], (*answer)[2], (*answer)[3]};
                feed.found(subset_of_masks(q, masks, inst.flipped));
              }
            }
          }
          done += double(k.len) * (double(k.a_hi - k.a_lo) * double(k.c_hi - k.c_lo) / all_outer);
          if (options.on_progress && !feed.shared()) {
            const double f = std::min(1.0, done / double(m));
            options.on_progress(progress{"search", f, f});  // the batches are the work
          }
        }
      }
      if (options.count && inst.exclude_trivial && trivial_class >= c_begin && trivial_class < c_end) range_count -= 1;
      count += range_count;
      if (!finished() && !feed.finished(u0, u1, range_count)) {
        feed.rethrow();
        break;  // the checkpoint's error: below
      }
      if (options.on_progress && feed.shared()) {
        const double f = feed.done(0);
        options.on_progress(progress{"search", f, f});
      }
    }
  } catch (...) {
    // Stopped early (an interrupt, the time limit, the device): the file keeps what finished.
    if (record) {
      try {
        record->close(false);
      } catch (...) {  // the search's own error is the one to report
      }
    }
    throw;
  }
  // Every unit ran, or a decision's certificate was found; a failed write is thrown here.
  if (record) record->close(true);
  result.seconds.count = count_seconds;
  result.seconds.recover = recover_seconds;
  result.seconds.search = std::max(0.0, seconds_since(t0) - count_seconds - recover_seconds);

  // The units a previous run finished, or (shared) the whole search's: a decision that found
  // its subset here does not wait for the others.
  if (options.count || !answer) count = feed.total(count, options.cancel);
  if (options.count) result.count = count;
  if (!answer && !known) known = feed.known_subset();
  feed.rethrow();
  if (answer) {
    const std::uint32_t masks[4] = {(*answer)[0], (*answer)[1], (*answer)[2], (*answer)[3]};
    result.subset = subset_of_masks(q, masks, inst.flipped);
    result.feasible = true;
  } else if (known) {
    result.subset = std::move(*known);
    result.feasible = true;
  }
  check_four_list_subset(p, result, options);
  result.seconds.total = seconds_since(start);
  return result;
}

/// The four-list on `device`: 64-bit sums where the total fits, 128-bit ones otherwise
/// (Device<std::uint64_t> and Device<uint128> of the same kind). totals: totals_of(p).
template <template <class> class Device, class... Args>
solution four_list_in_batches(const problem& p, const flipped_totals& totals, const solve_options& options,
                              const four_list_tuning& tuning, const char* backend_name, Args&&... device_args) {
  const auto start = clock_type::now();
  if (const char* why = four_list_cuda_refusal(p, totals)) throw backend_unavailable(why);
  if (totals.out_of_range()) return out_of_range_answer("four-list", backend_name, 0, options, start);
  if (totals.total_abs <= uint128(UINT64_MAX)) {
    Device<std::uint64_t> device(std::forward<Args>(device_args)...);
    return four_list_sums_in_batches<std::uint64_t>(device, p, totals, options, tuning, backend_name, start);
  }
  Device<uint128> device(std::forward<Args>(device_args)...);
  return four_list_sums_in_batches<uint128>(device, p, totals, options, tuning, backend_name, start);
}

}  // namespace ssum::detail

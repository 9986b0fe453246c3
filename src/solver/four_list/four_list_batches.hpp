#pragma once
// Internal: the four-list algorithm (Schroeppel and Shamir 1981, the modular form of
// docs/algorithms.md) in batches of residue classes, for a device that expands, sorts and
// matches large arrays: src/solver/four_list/four_list_cuda.cu runs it on a GPU; tests/test_four_list_batches.cpp
// runs it over a host emulation of the same steps (solver/four_list/four_list_window.hpp).
//
//   lists:  L1..L4 as on the host (solver/four_list/four_list_plan.hpp): quarter sums in mask order, so an
//           index is the subset; L2 and L4 also ordered by residue mod M, with bucket offsets.
//           Built on the host (2^(n/4) sums each), copied to the device once.
//   batch:  the classes [r0, r0 + B). X = {a + b : (a + b) mod M in the batch}: for one a the
//           b's are one or two stretches of L2 by residue, so the device counts per a, scans
//           the counts and expands. Y = {c + d : (c + d) mod M = (t - r) mod M, r in the
//           batch}: B consecutive classes too. Every solution has its a + b in exactly one
//           class, so over all batches it is matched exactly once.
//   match:  X and Y sorted, then find_pair_sum (x + y == t), count_pair_sums for counts.
//   memory: X, Y and one spare buffer for the radix sort, `cap` sums each. B is chosen so that
//           a batch holds about 0.8 cap sums; one that holds more is halved (its classes, or
//           for one class its range of a's or c's) until it fits.
// Sums are 64-bit (totals below 2^64); counts add up in 128 bits.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/four_list/four_list_cuda.hpp"
#include "solver/frame.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "solver/four_list/four_list_window.hpp"
#include "solver/two_list/two_list_instance.hpp"
#include "ssum/errors.hpp"
#include "ssum/pair_sum.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// What the device receives: per side (0: L1 + L2, 1: L3 + L4) the outer list in mask order
/// with residues, the inner list's sums by residue and its bucket offsets.
struct four_list_tables {
  std::uint64_t m = 2, t = 0;
  std::vector<std::uint64_t> outer_sum[2];
  std::vector<std::uint32_t> outer_residue[2];
  std::vector<std::uint64_t> inner_sum[2];
  std::vector<std::uint32_t> inner_offset[2];
  int key_bits[2] = {0, 0};  // bit width of the side's largest sum: the radix sort stops there
};

/// Device memory pieces are 256-byte aligned.
inline double four_list_piece(double bytes) { return std::ceil(bytes / 256) * 256; }

/// Bytes the device allocates for `tables` and batches of `cap` sums, piece by piece in the
/// order the device takes them: a flag word, per side the four lists and the counts (one per
/// outer sum, plus the total), three sum buffers (X, Y, the sort's spare) and the sort's scratch.
inline double four_list_device_bytes(const four_list_tables& tables, std::size_t cap, std::size_t sort_temp) {
  double bytes = four_list_piece(256);
  for (int s = 0; s < 2; ++s) {
    const double outer = double(tables.outer_sum[s].size());
    bytes += four_list_piece(outer * 8) + four_list_piece(outer * 4) +
             four_list_piece(double(tables.inner_sum[s].size()) * 8) +
             four_list_piece(double(tables.inner_offset[s].size()) * 4) + four_list_piece((outer + 1) * 8);
  }
  return bytes + 3 * four_list_piece(double(cap) * 8) + four_list_piece(double(sort_temp));
}

/// What the scans and the pair searches take from the stream-ordered pool beside the plan
/// (under 0.1% of what they read), with room to spare.
inline double four_list_pool_bytes(const four_list_tables& tables, std::size_t cap) {
  const double elements = 2.0 * double(cap) + double(tables.outer_sum[0].size() + tables.outer_sum[1].size());
  return 0.002 * elements * 8 + (1 << 20);
}

/// The lowest key bit the radix sort of n keys looks at: it sorts the bits [begin, end_bit)
/// only, enough whole 8-bit digits for about 16 buckets per key (sort_bits overrides), and
/// sort_run_at sorts the short runs left equal in those bits. 2^28 sums of 62 bits
/// then take 4 digit passes instead of 8.
inline int four_list_sort_begin(int end_bit, std::size_t n, int sort_bits) {
  int bits = sort_bits;
  if (bits <= 0) bits = (static_cast<int>(std::bit_width(n)) + 4 + 7) / 8 * 8;
  return std::max(0, end_bit - bits);
}

/// A quarter's sums in 64 bits, as the GPU four-list takes them.
using quarter_sums = quarter_list<std::uint64_t>;

// Some (mask of outer, mask of inner) whose sums add up to x, other than `skip`: each outer
// sum looks in the one bucket of the inner list where its partner must be. O(2^(n/4)).
inline std::optional<std::array<std::uint32_t, 2>> pair_with_sum(const quarter_sums& outer, const quarter_sums& inner,
                                                                 std::uint64_t m,
                                                            std::uint64_t x, const std::array<std::uint32_t, 2>* skip) {
  const std::uint64_t x_mod = x % m;
  for (std::uint32_t i = 0; i < outer.sum.size(); ++i) {
    const std::uint64_t a = outer.sum[i];
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

/// Device (the caller's), all on one stream:
///   double available_bytes();                      room for the plan
///   std::size_t sort_temp_bytes(std::size_t cap);  the radix sort's scratch for cap keys
///   void prepare(const four_list_tables&, std::size_t cap, double arena_bytes);
///                                                  reserves four_list_device_bytes, allocates its
///                                                  pieces, copies the lists
///   std::array<std::uint64_t, 2> sizes(const four_list_slice& x, const four_list_slice& y);
///                                                  |X| and |Y| of the slices (waits for them)
///   void build(const four_list_slice& x, const four_list_slice& y);
///                                                  X and Y expanded and sorted (sizes() of the same
///                                                  slices came just before and fit cap)
///   pair_match find(std::size_t x_begin, std::size_t x_end);
///                                                  a match of X[x_begin, x_end) with Y; i indexes X
///   std::uint64_t count();                         how many pairs of X and Y match
///   std::uint64_t x_at(std::size_t i), y_at(std::size_t j);   single sums read back
/// totals: totals_of(p), computed once by the caller.
template <class Device>
solution four_list_in_batches(Device& device, const problem& p, const flipped_totals& totals,
                              const solve_options& options, const four_list_tuning& tuning, const char* backend_name) {
  const auto start = clock_type::now();
  const std::size_t n = p.weights.size();
  if (const char* why = four_list_cuda_refusal(p, totals)) throw backend_unavailable(why);
  if (totals.out_of_range()) return out_of_range_answer("four-list", backend_name, 0, options, start);
  solution result;
  result.algorithm = "four-list";
  result.backend = backend_name;
  result.threads = 1;  // the host's share (lists, certificates) runs on one thread
  const auto check_cancel = [&options] { detail::check_cancel(options); };
  const flipped_instance<std::uint64_t> inst = flip<std::uint64_t>(p, totals.target);
  const std::uint64_t t = inst.target;

  // ---- the lists, on the host ----
  auto t0 = clock_type::now();
  quarter q[4];
  quarters_of(n, q);
  const std::uint64_t m = modulus_for(largest_modulus_bits(n));
  const std::uint64_t* w = inst.weights.data();
  const std::atomic<bool>* cancel = options.cancel;
  const quarter_sums l1(w, q[0], m, false, cancel), l2(w, q[1], m, true, cancel);
  const quarter_sums l3(w, q[2], m, false, cancel), l4(w, q[3], m, true, cancel);
  const quarter_sums* outer[2] = {&l1, &l3};
  const quarter_sums* inner[2] = {&l2, &l4};
  four_list_tables tables;
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
    // The last mask takes every item: the side's largest sum (below 2^64: the total is).
    tables.key_bits[s] = static_cast<int>(std::bit_width(outer[s]->sum.back() + inner[s]->sum.back()));
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
  constexpr std::size_t default_cap = std::size_t{1} << 28, largest_cap = std::size_t{1} << 30;
  std::size_t cap = std::min(tuning.max_batch ? tuning.max_batch : default_cap, largest_cap);
  if (double(cap) > pairs) cap = static_cast<std::size_t>(pairs);  // one batch holds everything
  cap = std::max(cap, largest_bucket);
  const auto bytes_for = [&](std::size_t c) {
    return four_list_device_bytes(tables, c, device.sort_temp_bytes(c)) + four_list_pool_bytes(tables, c);
  };
  const double available = room_within(device.available_bytes(), options);
  double bytes = bytes_for(cap);
  if (bytes > available && cap > largest_bucket) {
    // About 24 bytes per sum of cap: start near the fit, then step down.
    const double base = bytes_for(largest_bucket);
    const double fit = base < available ? (available - base) / 25 + double(largest_bucket) : 0;
    cap = std::clamp(static_cast<std::size_t>(fit), largest_bucket, cap);
    bytes = bytes_for(cap);
    while (bytes > available && cap > largest_bucket) {
      cap = std::max(largest_bucket, cap - cap / 16 - 1);
      bytes = bytes_for(cap);
    }
  }
  if (bytes > available) {
    throw insufficient_memory::needs(plan_name("the four-list algorithm (its lists and smallest batches)", n), bytes,
                                     available);
  }
  result.planned_bytes = static_cast<std::uint64_t>(bytes);
  // Classes per batch: about 0.8 cap sums on the larger side (all of them when they fit).
  std::uint64_t classes = m;
  if (pairs > double(cap)) {
    classes = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(0.8 * double(cap) * double(m) / pairs), 1, m);
  }
  // The arena holds the pieces; the pools' scratch stays beside it, within `bytes`.
  device.prepare(tables, cap, four_list_device_bytes(tables, cap, device.sort_temp_bytes(cap)));
  result.seconds.generate = seconds_since(t0);

  // ---- certificates, on the host ----
  double recover_seconds = 0;
  // Masks behind a match x + y == t, other than the empty subset's quadruple (zero-sum);
  // nullopt when that quadruple is the only one with these sums.
  const auto masks_of = [&](std::uint64_t x, std::uint64_t y) -> std::optional<std::array<std::uint32_t, 4>> {
    const auto tr = clock_type::now();
    std::optional<std::array<std::uint32_t, 2>> left, right;
    const std::uint64_t x0 = l1.sum[trivial[0][0]] + l2.sum[trivial[0][1]];
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
  const auto certificate_in_batch = [&](std::size_t nx) -> std::optional<std::array<std::uint32_t, 4>> {
    pair_match match = device.find(0, nx);
    if (!match.found) return std::nullopt;
    if (auto masks = masks_of(device.x_at(match.i), device.y_at(match.j))) return masks;
    // Only the empty subset's quadruple has these sums, so its x occurs once in X and any
    // other match of this batch has another x: search X around it.
    const std::size_t skip = match.i;
    match = device.find(0, skip);
    if (!match.found) match = device.find(skip + 1, nx);
    if (!match.found) return std::nullopt;
    auto masks = masks_of(device.x_at(match.i), device.y_at(match.j));
    if (!masks) throw std::logic_error("four-list: the empty subset matched twice");
    return masks;
  };

  // ---- the batches ----
  t0 = clock_type::now();
  check_cancel();
  struct task {
    std::uint64_t r0, len;   // classes [r0, r0 + len) of a + b
    std::size_t a_lo, a_hi;  // L1 masks
    std::size_t c_lo, c_hi;  // L3 masks
  };
  const std::uint64_t t_mod = t % m;
  const double all_outer = double(l1.sum.size()) * double(l3.sum.size());
  double done = 0, count_seconds = 0;  // classes searched (split ones in fractions)
  uint128 count = 0;
  std::optional<std::array<std::uint32_t, 4>> answer;
  const auto finished = [&] { return answer && !options.count; };  // a count goes on through every class
  std::vector<task> pending;
  for (std::uint64_t r0 = 0; r0 < m && !finished(); r0 += classes) {
    pending.push_back({r0, std::min(classes, m - r0), 0, l1.sum.size(), 0, l3.sum.size()});
    while (!pending.empty() && !finished()) {
      check_cancel();
      const task k = pending.back();
      pending.pop_back();
      const four_list_slice xs{k.r0, k.len, k.a_lo, k.a_hi};
      // Y's classes: (t - r) mod M for r in [r0, r0 + len), i.e. [(t - r0 - len + 1) mod M, + len).
      const four_list_slice ys{residue_minus(residue_minus(t_mod, k.r0, m), k.len - 1, m), k.len, k.c_lo, k.c_hi};
      const std::array<std::uint64_t, 2> sizes = device.sizes(xs, ys);
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
      if (sizes[0] > 0 && sizes[1] > 0) {
        device.build(xs, ys);
        std::uint64_t matches = 1;  // unknown: look
        if (options.count) {
          const auto tc = clock_type::now();
          matches = device.count();
          count += matches;
          count_seconds += seconds_since(tc);
        }
        if (!answer && matches > 0) answer = certificate_in_batch(static_cast<std::size_t>(sizes[0]));
      }
      done += double(k.len) * (double(k.a_hi - k.a_lo) * double(k.c_hi - k.c_lo) / all_outer);
      if (options.on_progress) {
        const double f = std::min(1.0, done / double(m));
        options.on_progress(progress{"search", f, f});  // the batches are the work
      }
    }
  }
  result.seconds.count = count_seconds;
  result.seconds.recover = recover_seconds;
  result.seconds.search = std::max(0.0, seconds_since(t0) - count_seconds - recover_seconds);

  if (options.count) {
    if (inst.exclude_trivial) count -= 1;  // the empty subset: in the total exactly once
    result.count = count;
  }
  if (answer) {
    const std::uint32_t masks[4] = {(*answer)[0], (*answer)[1], (*answer)[2], (*answer)[3]};
    result.subset = subset_of_masks(q, masks, inst.flipped);
    result.feasible = true;
  }
  result.seconds.total = seconds_since(start);
  return result;
}

/// The same, computing the totals (tests and callers outside ssum::solve).
template <class Device>
solution four_list_in_batches(Device& device, const problem& p, const solve_options& options,
                              const four_list_tuning& tuning, const char* backend_name) {
  return four_list_in_batches(device, p, totals_of(p), options, tuning, backend_name);
}

}  // namespace ssum::detail

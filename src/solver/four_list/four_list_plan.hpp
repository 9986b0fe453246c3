#pragma once
// Internal, shared by the host four-list (src/solver/four_list/four_list_cpu.cpp) and the GPU four-list
// (solver/four_list/four_list_batches.hpp): how the items are cut into quarters, the prime modulus, and
// one quarter's sums with their residues and buckets. Host-only.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ssum/errors.hpp"

namespace ssum::detail {

inline bool is_prime(std::uint64_t m) {
  if (m < 2) return false;
  for (std::uint64_t d = 2; d * d <= m; ++d) {
    if (m % d == 0) return false;
  }
  return true;
}

// The largest prime <= 2^bits (2 for bits <= 1). A prime, so that weights sharing a power
// of two (even weights, say) still spread over all residues.
inline std::uint64_t modulus_for(int bits) {
  std::uint64_t m = std::uint64_t{1} << std::max(bits, 1);
  while (!is_prime(m)) --m;
  return m;
}

// (x - y) mod m for x, y in [0, m): a compare instead of a division in the inner loops.
inline std::uint64_t residue_minus(std::uint64_t x, std::uint64_t y, std::uint64_t m) {
  return x >= y ? x - y : x + m - y;
}

// The first slot of a pair sum in an open-addressing table of mask + 1 slots (Fibonacci
// hashing of its low 64 bits, folded with its high ones): the host four-list's right sides.
template <class Sum>
inline std::size_t sum_slot(Sum s, std::size_t mask) {
  const std::uint64_t x = static_cast<std::uint64_t>(s) ^ static_cast<std::uint64_t>(s >> 1 >> 63);
  return static_cast<std::size_t>((x * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

// A table of `expected` entries at most half full: its slot count, a power of two.
inline std::size_t table_slots(double expected) {
  std::size_t size = 16;
  while (double(size) < 2 * expected) size *= 2;
  return size;
}

struct quarter {
  std::size_t first = 0, count = 0;  // items [first, first + count)
};

// Quarters [0, n/4), [n/4, n/2), [n/2, n/2 + (n - n/2)/2), the rest.
inline void quarters_of(std::size_t n, quarter (&q)[4]) {
  const std::size_t cut[5] = {0, n / 4, n / 2, n / 2 + (n - n / 2) / 2, n};
  for (int k = 0; k < 4; ++k) q[k] = {cut[k], cut[k + 1] - cut[k]};
}

// The largest useful log2 of the modulus: every class scans L1 and L3 once, so M stays at
// most their size.
inline int largest_modulus_bits(std::size_t n) {
  quarter q[4];
  quarters_of(n, q);
  return std::max(1, static_cast<int>(std::min(q[0].count, q[2].count)));
}

// The recover stage of both four-lists: the subset (0-based, ascending, of the original items)
// behind one mask per quarter, read back through the flip (`flipped`: which items were negated).
inline std::vector<std::size_t> subset_of_masks(const quarter (&q)[4], const std::uint32_t (&masks)[4],
                                                const std::vector<bool>& flipped) {
  std::vector<std::size_t> subset;
  for (int k = 0; k < 4; ++k) {
    for (std::size_t j = 0; j < q[k].count; ++j) {
      const std::size_t i = q[k].first + j;
      const bool chosen = (masks[k] >> j) & 1u;
      if (chosen != flipped[i]) subset.push_back(i);
    }
  }
  return subset;
}

// One quarter's sums in mask order, their residues, and (for the bucketed quarters) the masks
// ordered by residue with the bucket offsets.
template <class Sum>
struct quarter_list {
  std::vector<Sum> sum;
  std::vector<std::uint32_t> residue;
  std::vector<std::uint32_t> by_residue;  // masks, ascending residue
  std::vector<std::uint32_t> offset;      // bucket of residue q: by_residue[offset[q], offset[q + 1])

  // `cancel` is polled every 2^20 sums: a quarter of n = 100 is 2^25 sums, about a second.
  quarter_list(const Sum* w, const quarter& q, std::uint64_t m, bool bucketed, const std::atomic<bool>* cancel) {
    const auto poll = [cancel](std::size_t s) {
      if ((s & ((std::size_t{1} << 20) - 1)) == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
        throw interrupted();
      }
    };
    // Grown in place, not zero-filled first: a list of 2^25 sums is 512 MiB, whose pages
    // are then first touched inside the polled loops (a zero fill would not answer a
    // cancel, and took over a second under load).
    const std::size_t size = std::size_t{1} << q.count;
    sum.clear();
    sum.reserve(size);
    sum.push_back(0);
    for (std::size_t j = 0; j < q.count; ++j) {
      const std::size_t half = std::size_t{1} << j;
      for (std::size_t s = 0; s < half; ++s) {
        poll(s);
        sum.push_back(sum[s] + w[q.first + j]);
      }
    }
    residue.clear();
    residue.reserve(size);
    for (std::size_t s = 0; s < size; ++s) {
      poll(s);
      residue.push_back(static_cast<std::uint32_t>(sum[s] % m));
    }
    if (!bucketed) return;
    offset.assign(m + 1, 0);
    for (std::size_t s = 0; s < size; ++s) {
      poll(s);
      ++offset[residue[s] + 1];
    }
    for (std::size_t q2 = 0; q2 < m; ++q2) offset[q2 + 1] += offset[q2];
    // Zero-filled 2^20 at a time between polls (128 MiB at n = 100: a cancel on the H200's
    // host came 0.3 s late through this and the count above).
    by_residue.clear();
    by_residue.reserve(size);
    for (std::size_t s = 0; s < size; s += std::size_t{1} << 20) {
      poll(s);
      by_residue.resize(std::min(size, s + (std::size_t{1} << 20)));
    }
    std::vector<std::uint32_t> next(offset.begin(), offset.end() - 1);
    for (std::size_t s = 0; s < size; ++s) {
      poll(s);
      by_residue[next[residue[s]]++] = static_cast<std::uint32_t>(s);
    }
  }
};

}  // namespace ssum::detail

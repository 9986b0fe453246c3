#pragma once
// Internal: the per-element rules of the GPU four-list's batches (solver/four_list/four_list_batches.hpp),
// written once for the CUDA kernels (src/solver/four_list/four_list_cuda.cu) and the host emulation that tests
// them where no device is present (tests/test_four_list_batches.cpp). Host C++, and device
// code through SSUM_HOST_DEVICE; no CUDA header is needed.
#include <cstddef>
#include <cstdint>

#include "ssum/detail/host_device.hpp"

namespace ssum::detail {

/// One side of the sums: outer + inner over an outer list in mask order (L1 or L3) and an
/// inner list ordered by residue mod m (L2 or L4, bucket r = [offset[r], offset[r + 1])).
/// Pointers are device pointers in the kernels, host pointers in the emulation.
struct four_list_side {
  const std::uint64_t* outer_sum;
  const std::uint32_t* outer_residue;
  std::size_t outer_size;
  const std::uint64_t* inner_sum;     // by residue
  const std::uint32_t* inner_offset;  // m + 1 entries
  std::uint64_t m;
  std::uint64_t bound;  // the target: an outer sum above it has no partner worth forming
};

/// Which pairs of a side a batch forms: those whose sum lies in the residue classes
/// [start, start + len) mod m (len <= m), over the outer elements [lo, hi).
struct four_list_slice {
  std::uint64_t start, len;
  std::size_t lo, hi;
};

/// The inner elements paired with one outer element: at most two index ranges (the classes
/// may wrap around m).
struct partner_window {
  std::uint32_t begin0, end0, begin1, end1;
  SSUM_HOST_DEVICE std::uint64_t size() const { return std::uint64_t(end0 - begin0) + (end1 - begin1); }
};

/// Outer element i's partners in slice c: inner residues [(start - r_i) mod m, + len) mod m,
/// one contiguous stretch of the residue-ordered inner list, or two when it wraps.
SSUM_HOST_DEVICE inline partner_window partners_of(const four_list_side& s, const four_list_slice& c, std::size_t i) {
  if (i < c.lo || i >= c.hi || s.outer_sum[i] > s.bound) return {0, 0, 0, 0};
  const std::uint64_t r = s.outer_residue[i];
  const std::uint64_t first = c.start >= r ? c.start - r : c.start + s.m - r;
  const std::uint64_t end = first + c.len;
  if (end <= s.m) return {s.inner_offset[first], s.inner_offset[end], 0, 0};
  return {s.inner_offset[first], s.inner_offset[s.m], s.inner_offset[0], s.inner_offset[end - s.m]};
}

/// The k-th sum of outer element i's window (k < w.size()): window order, as the expansion
/// writes it.
SSUM_HOST_DEVICE inline std::uint64_t window_sum(const four_list_side& s, std::size_t i, const partner_window& w, std::uint64_t k) {
  const std::uint64_t first = w.end0 - w.begin0;
  const std::uint64_t at = k < first ? w.begin0 + k : w.begin1 + (k - first);
  return s.outer_sum[i] + s.inner_sum[at];
}

/// Longest run that sort_run_at sorts; a longer one sends the whole array back to the sort.
constexpr std::size_t max_sorted_run = 64;

/// After a radix sort of keys[0, n) on the bits from `shift` up only (LSD, stable), the keys
/// are in order except within runs equal in those bits. If keys[i] starts such a run of 2 or
/// more, sorts it (insertion sort) and returns true; returns false when the run is longer than
/// max_sorted_run (left for a full sort). Every other i returns true at once. One call per i, in any
/// order or concurrently: each run has one owner (its first index), and the bits compared
/// (from `shift` up) are the same for every key of a run, so reading a key while its run's
/// owner moves keys around still decides the same.
SSUM_HOST_DEVICE inline bool sort_run_at(std::uint64_t* keys, std::size_t n, std::size_t i, int shift) {
  const std::uint64_t high = keys[i] >> shift;
  if (i > 0 && (keys[i - 1] >> shift) == high) return true;       // inside a run
  if (i + 1 >= n || (keys[i + 1] >> shift) != high) return true;  // a run of one
  std::size_t end = i + 2;
  while (end < n && (keys[end] >> shift) == high) {
    if (end - i >= max_sorted_run) return false;
    ++end;
  }
  for (std::size_t k = i + 1; k < end; ++k) {
    const std::uint64_t key = keys[k];
    std::size_t at = k;
    while (at > i && keys[at - 1] > key) {
      keys[at] = keys[at - 1];
      --at;
    }
    keys[at] = key;
  }
  return true;
}

}  // namespace ssum::detail

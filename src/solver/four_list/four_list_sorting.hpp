#pragma once
// Internal: the run fix-up of the GPU four-list's 64-bit batches (four_list_sorted.cuh): a radix
// sort of the top key bits only, then the short runs equal in those bits sorted by one thread
// each. Host C++, and device code through SSUM_HOST_DEVICE, so that tests check it on the host.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "ssum/detail/host_device.hpp"

namespace ssum::detail {

/// The lowest key bit the radix sort of n keys looks at: it sorts the bits [begin, end_bit)
/// only, enough whole 8-bit digits for about 16 buckets per key (sort_bits overrides), and
/// sort_run_at sorts the short runs left equal in those bits. 2^28 sums of 62 bits
/// then take 4 digit passes instead of 8.
inline int four_list_sort_begin(int end_bit, std::size_t n, int sort_bits) {
  int bits = sort_bits;
  if (bits <= 0) bits = (static_cast<int>(std::bit_width(n)) + 4 + 7) / 8 * 8;
  return std::max(0, end_bit - bits);
}

/// Longest run that sort_run_at sorts; a longer one sends the whole array back to the sort.
constexpr std::size_t max_sorted_run = 64;

/// After a radix sort of keys[0, n) on the bits from `shift` up only (LSD, stable), the keys
/// are in order except within runs equal in those bits. If keys[i] starts such a run of 2 or
/// more, sorts it (insertion sort) and returns true; returns false when the run is longer than
/// max_sorted_run (left for a full sort). Every other i returns true at once. One call per i,
/// in any order or concurrently: each run has one owner (its first index), and the bits
/// compared (from `shift` up) are the same for every key of a run, so reading a key while its
/// run's owner moves keys around still decides the same.
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

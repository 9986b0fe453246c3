#pragma once
// Internal: the per-element rules of the GPU four-list's batches (solver/four_list/four_list_batches.hpp),
// written once for the CUDA kernels (src/solver/four_list/four_list_cuda.cu) and the host emulation that tests
// them where no device is present (tests/test_four_list_batches.cpp). Host C++, and device
// code through SSUM_HOST_DEVICE; no CUDA header is needed. Sum: std::uint64_t, or ssum::uint128
// for totals from 2^64 on.
#include <cstddef>
#include <cstdint>

#include "ssum/detail/host_device.hpp"
#include "ssum/int128.hpp"

namespace ssum::detail {

/// One side of the sums: outer + inner over an outer list in mask order (L1 or L3) and an
/// inner list ordered by residue mod m (L2 or L4, bucket r = [offset[r], offset[r + 1])).
/// Pointers are device pointers in the kernels, host pointers in the emulation.
template <class Sum>
struct four_list_side {
  const Sum* outer_sum;
  const std::uint32_t* outer_residue;
  std::size_t outer_size;
  const Sum* inner_sum;               // by residue
  const std::uint32_t* inner_offset;  // m + 1 entries
  std::uint64_t m;
  Sum bound;  // the target: a sum above it has no partner
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
template <class Sum>
SSUM_HOST_DEVICE inline partner_window partners_of(const four_list_side<Sum>& s, const four_list_slice& c,
                                                   std::size_t i) {
  if (i < c.lo || i >= c.hi || s.outer_sum[i] > s.bound) return {0, 0, 0, 0};
  const std::uint64_t r = s.outer_residue[i];
  const std::uint64_t first = c.start >= r ? c.start - r : c.start + s.m - r;
  const std::uint64_t end = first + c.len;
  if (end <= s.m) return {s.inner_offset[first], s.inner_offset[end], 0, 0};
  return {s.inner_offset[first], s.inner_offset[s.m], s.inner_offset[0], s.inner_offset[end - s.m]};
}

/// The k-th sum of outer element i's window (k < w.size()), in window order.
template <class Sum>
SSUM_HOST_DEVICE inline Sum window_sum(const four_list_side<Sum>& s, std::size_t i, const partner_window& w,
                                       std::uint64_t k) {
  const std::uint64_t first = w.end0 - w.begin0;
  const std::uint64_t at = k < first ? w.begin0 + k : w.begin1 + (k - first);
  return s.outer_sum[i] + s.inner_sum[at];
}

/// The join key of a pair sum: x = a + b on side 0, t - y with y = c + d on side 1, so that a
/// solution is an x equal to a key of side 1. False for a sum above the target (no solution
/// has it; the batch drops it).
template <class Sum>
SSUM_HOST_DEVICE inline bool join_key(int side, Sum target, Sum sum, Sum& key) {
  if (sum > target) return false;
  key = side == 0 ? sum : target - sum;
  return true;
}

/// A 64-bit mix of a key (the finaliser of MurmurHash3, a bijection on 64 bits): equal keys
/// meet in one partition and one hash-table probe sequence, and structured sums (all even,
/// all multiples of a large power of two) still spread over both.
SSUM_HOST_DEVICE inline std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
SSUM_HOST_DEVICE inline std::uint64_t join_hash(std::uint64_t key) { return mix_bits(key); }
SSUM_HOST_DEVICE inline std::uint64_t join_hash(uint128 key) {
  return mix_bits(std::uint64_t(key) ^ mix_bits(std::uint64_t(key >> 64)));
}

/// The partition of a hash: its top `partition_bits` bits (0: one partition).
SSUM_HOST_DEVICE inline std::uint32_t partition_of(std::uint64_t hash, int partition_bits) {
  return partition_bits == 0 ? 0u : static_cast<std::uint32_t>(hash >> (64 - partition_bits));
}

/// The first slot of a hash in a table of 2^slot_bits slots: the bits below the partition's,
/// so that the keys of one partition still spread over the table.
SSUM_HOST_DEVICE inline std::uint32_t slot_of(std::uint64_t hash, int partition_bits, int slot_bits) {
  return static_cast<std::uint32_t>((hash << partition_bits) >> (64 - slot_bits));
}

}  // namespace ssum::detail

#pragma once
// The first levels of the CUDA two-list's generation: the sorted sums of all subsets of up to
// 11 weights, built by one block in shared memory (Wan et al. build them by the same merges
// as the rest). Each of these levels is too small to
// fill the device, so as launches of the global merge (a partition and a tile kernel each,
// and scratch) they cost launch latency, not bandwidth; here they cost one launch in all.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "ssum/int128.hpp"

namespace ssum::cuda_detail {

/// The most weights launch_first_subset_sums takes: 2^11 sums, two 16 KiB buffers.
constexpr std::size_t first_subset_sums_max_items = 11;
/// The same for 128-bit sums: 2^10 of them, so that the two buffers stay 16 KiB each (2^11
/// would need 64 KiB, past the 48 KiB of static shared memory; one more merge level instead).
constexpr std::size_t first_subset_sums_max_items_wide = 10;

/// The most weights launch_first_subset_sums takes for sums of Sum.
template <class Sum>
constexpr std::size_t first_subset_sums_items_for() {
  return sizeof(Sum) > sizeof(std::uint64_t) ? first_subset_sums_max_items_wide : first_subset_sums_max_items;
}

/// out[0, 2^m) = the sums of all subsets of w[0, m) (host weights), ascending, on `stream`;
/// m <= first_subset_sums_items_for<Sum>(), and the sum of the weights must fit Sum (the
/// solver picks Sum by the total). Throws std::invalid_argument for a larger m,
/// ssum::cuda_error when the launch fails.
void launch_first_subset_sums(const std::uint64_t* w, std::size_t m, std::uint64_t* out, cudaStream_t stream);
void launch_first_subset_sums(const uint128* w, std::size_t m, uint128* out, cudaStream_t stream);

}  // namespace ssum::cuda_detail

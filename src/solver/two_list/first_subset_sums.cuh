#pragma once
// The first levels of the CUDA two-list's generation: the sorted sums of all subsets of up to
// 11 weights, built by one block in shared memory (Wan et al. build them by the same merges
// as the rest). Each of these levels is too small to
// fill the device, so as launches of the global merge (a partition and a tile kernel each,
// and scratch) they cost launch latency, not bandwidth; here they cost one launch in all.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ssum::cuda_detail {

/// The most weights launch_first_subset_sums takes: 2^11 sums, two 16 KiB buffers.
constexpr std::size_t first_subset_sums_max_items = 11;

/// out[0, 2^m) = the sums of all subsets of w[0, m) (host weights), ascending, on `stream`;
/// m <= first_subset_sums_max_items, and the sum of the weights must fit 64 bits (the
/// solver's refusal rule). Throws std::invalid_argument for a larger m, ssum::cuda_error
/// when the launch fails.
void launch_first_subset_sums(const std::uint64_t* w, std::size_t m, std::uint64_t* out, cudaStream_t stream);

}  // namespace ssum::cuda_detail

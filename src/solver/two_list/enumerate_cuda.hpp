#pragma once
// Internal: the meet in the middle's listing (enumerate.hpp) on a CUDA device
// (src/solver/two_list/enumerate_cuda.cu; src/solver/gpu/cuda_unavailable.cpp in builds
// without CUDA). Host-only declarations.
//
// The device builds both halves' subset sums sorted with their masks, finds for every sum a of
// the first half the run of the second half's sums b with lo <= a + b <= hi (its start and
// length), scans the lengths, and hands out the pairs in order in batches: a in ascending
// (sum, mask) order, then b the same, which is the order enumerate_subsets lists them in but
// under a size bound below the larger half (it then walks its lists by size). The host turns each pair into its indices, applies the size bounds and the limit exactly as
// enumerate_subsets does, and calls on_subset while the device forms the next batch.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "solver/two_list/enumerate.hpp"
#include "ssum/int128.hpp"

namespace ssum::detail {

/// Why the device listing cannot take these weights (too many items, sums past 2^63), or
/// empty when it can.
std::string enumerate_cuda_refusal(const std::vector<int128>& weights);

/// Device bytes the listing plans for n items: both halves' sums and masks, the per-sum
/// starts and running counts, and the sort's second buffers.
double enumerate_cuda_bytes(std::size_t n);

struct enumerate_cuda_tuning {
  std::uint64_t first_batch = std::uint64_t(1) << 12;  // pairs in the first batch (a quick first subset)
  std::uint64_t largest_batch = std::uint64_t(1) << 24;  // batches double up to this many pairs
};

/// enumerate_subsets on `device`, with its contract (order, limit, complete, cancel), for
/// weights enumerate_cuda_refusal takes. r.max_bytes is not used: the device's free memory
/// bounds the plan instead. Throws std::invalid_argument for weights it refuses,
/// ssum::insufficient_memory when the device cannot hold the lists, ssum::cuda_error.
enumerate_result enumerate_subsets_cuda(int device, const enumerate_request& r,
                                        const std::function<bool(const std::vector<std::size_t>&)>& on_subset,
                                        const enumerate_cuda_tuning& tuning = {});

/// enumerate_subsets_cuda with the pairs handed to `sink` in stretches of up to `stretch`
/// pairs of a batch (cancel is polled between stretches), not turned into indices: the bulk
/// listing (ssum::list_subset_masks) converts and verifies them itself. The same subsets,
/// order, limit, complete, cancel and errors; `listed` counts what the sink handed out.
enumerate_result enumerate_pairs_cuda(int device, const enumerate_request& r, std::uint64_t stretch,
                                      const pair_sink& sink, const enumerate_cuda_tuning& tuning = {});

}  // namespace ssum::detail

#pragma once
// The pair-sum walk's launch shape (pair_sum_tuning) and its one launcher: clip B for each
// target, partition A against each C, then the tiles: pair_sum_tiles_bulk (sm_90,
// bulk-copied stages) where it runs, pair_sum_tiles in the same tiles where it does not
// (before sm_90, a or b not 16-byte aligned); for a find, the partner of the match. Merge
// path: Odeh et al. 2012; Green, McColl, Bader, "GPU Merge Path", ICS 2012.
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/common/kept_state.cuh"
#include "cuda/merge/bulk_stage.cuh"
#include "cuda/merge/merge_partition.cuh"
#include "cuda/pair_sum/pair_sum_tiles.cuh"
#include "cuda/pair_sum/pair_sum_tiles_bulk.cuh"
#include "cuda/pair_sum/pair_sum_walk.cuh"

namespace ssum::cuda_detail {

/// The walk's tile: its own shape, since the walk has no output to stage and is bound by
/// instructions and shared-memory reads (pair_sum_tiles), so a larger tile that spreads each
/// thread's split over more steps pays. 8-byte keys: 256 x 23 (H200, find over 2 x 2^27
/// uint64, whole walk, classic tiles: 256 x 23 754 us, 128 x 24 799, 256 x 16 873, 128 x 32
/// 875, 256 x 11 922, 512 x 11 943); 4-byte keys 256 x 15 (not measured otherwise). Two
/// stages per block (two 47 KiB stages of 8-byte keys, 94 KiB). min_blocks: the registers
/// are capped so that the blocks resident per SM stay what the shared memory allows (the
/// several-target walk, left alone, took more registers and ran 1.6x slower); the classic
/// fallback runs with the same cap. 16-byte keys (the two-list's sums past 2^64; not
/// measured yet): 256 x 11, so that two blocks of two 45 KiB stages fit an SM (256 x 23 would
/// take 188 KiB for one block) and the classic tile stays within 48 KiB of shared memory.
template <class T>
struct pair_sum_tuning {
  static constexpr int threads = 256;
  static constexpr int items = sizeof(T) >= 16 ? 11 : sizeof(T) >= 8 ? 23 : 15;
  static constexpr int stages = 2;
  static constexpr int min_blocks = sizeof(T) >= 8 ? 2 : 3;
  static constexpr std::size_t tile = std::size_t(threads) * items;
};

/// The tile launch: pair_sum_tiles_bulk where it runs, else pair_sum_tiles.
template <int Threads, int Items, int Stages, int MinBlocks, bool Find, class T>
void launch_pair_sum_tiles(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                           const pair_sum_targets<T>& targets, const std::size_t* clips, std::size_t tiles,
                           const std::size_t* splits, pair_sum_state* state, unsigned max_blocks) {
  constexpr std::size_t bulk_smem = bulk_smem_bytes<T, Threads, Items, Stages>();
  auto* bulk_kernel = pair_sum_tiles_bulk<Threads, Items, Stages, MinBlocks, Find, T>;
  const std::size_t tiles_total = tiles * std::size_t(targets.count);
  if (aligned16(d_a) && aligned16(d_b)) {
    const persistent_shape shape = persistent_shape_of(bulk_kernel, Threads + 32, bulk_smem);
    if (shape.runs) {
      bulk_kernel<<<shape.grid_for(tiles_total, max_blocks), Threads + 32, bulk_smem, stream>>>(
          d_a, na, d_b, nb, targets, clips, tiles, unsigned(tiles_total), splits, state);
      SSUM_CUDA_CHECK_LAUNCH("pair_sum_tiles_bulk");
      return;
    }
  }
  const std::size_t smem = std::size_t(Threads) * Items * sizeof(T);
  if (smem > 48 * 1024) {
    SSUM_CUDA_CHECK(cudaFuncSetAttribute(pair_sum_tiles<Threads, Items, MinBlocks, Find, T>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  }
  const unsigned grid = static_cast<unsigned>(tiles * std::size_t(targets.count));
  pair_sum_tiles<Threads, Items, MinBlocks, Find><<<grid, Threads, smem, stream>>>(d_a, na, d_b, targets, clips, tiles,
                                                                                   splits, state);
  SSUM_CUDA_CHECK_LAUNCH("pair_sum_tiles");
}

/// The whole pair-sum walk in tiles of Threads x Items (pair_sum.cu: pair_sum_tuning's), for
/// ts[0, count) at once (count in [1, pair_sum_max_targets]): clip b, partition A against
/// each C, the tiles (Find or count), and for Find the partner of the match. Returns the state
/// once the stream has finished. max_blocks (tests): fewer persistent blocks than fit, so that
/// each goes round its stages many times.
template <int Threads, int Items, int Stages, int MinBlocks, bool Find, class T>
pair_sum_state launch_pair_sums(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                const T* ts, int count, unsigned max_blocks = 0) {
  if (na > SIZE_MAX - nb) throw std::invalid_argument("ssum::cuda pair sums: na + nb overflows");
  const pair_sum_targets<T> targets = pair_sum_targets_for(ts, count);
  constexpr std::size_t tile = std::size_t(Threads) * Items;
  // C's length (after clipping) is known only on the device: size the grid for all of b.
  const std::size_t tiles = merge_tiles_for(na + nb, tile);
  const std::size_t grid = tiles * std::size_t(count);
  if (grid > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument("ssum::cuda pair sums: too many elements for one launch");
  }

  // Memory plan, 16-byte aligned pieces: the state, the clips, count x (tiles + 1) splits.
  const auto aligned = [](std::size_t bytes) { return (bytes + 15) / 16 * 16; };
  const std::size_t state_bytes = aligned(sizeof(pair_sum_state));
  const std::size_t clip_bytes = aligned(2 * sizeof(std::size_t) * std::size_t(count));
  device_buffer scratch(state_bytes + clip_bytes + merge_scratch_bytes(tiles) * std::size_t(count), stream);
  pair_sum_state* state = scratch.as<pair_sum_state>();
  std::size_t* clips = scratch.as<std::size_t>(state_bytes);
  std::size_t* splits = scratch.as<std::size_t>(state_bytes + clip_bytes);
  SSUM_CUDA_CHECK(cudaMemsetAsync(state, 0, sizeof(pair_sum_state), stream));

  pair_sum_clip<<<1, 32 * count, 0, stream>>>(d_b, nb, targets, clips);
  SSUM_CUDA_CHECK_LAUNCH("pair_sum_clip");
  const int group = partition_group(tiles);
  const unsigned per_target = partition_blocks(tiles, group);
  pair_sum_partition<<<per_target * unsigned(count), partition_threads, 0, stream>>>(
      d_a, na, d_b, targets, clips, tile, tiles, group, per_target, splits);
  SSUM_CUDA_CHECK_LAUNCH("pair_sum_partition");
  launch_pair_sum_tiles<Threads, Items, Stages, MinBlocks, Find>(stream, d_a, na, d_b, nb, targets, clips, tiles,
                                                                splits, state, max_blocks);
  if constexpr (Find) {
    pair_sum_locate<<<1, 32, 0, stream>>>(d_a, d_b, nb, targets, state);
    SSUM_CUDA_CHECK_LAUNCH("pair_sum_locate");
  }

  pair_sum_state host{};
  SSUM_CUDA_CHECK(cudaMemcpyAsync(&host, state, sizeof host, cudaMemcpyDeviceToHost, stream));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace ssum::cuda_detail

#pragma once
// Several independent key-only merges in one launch (merge_generated_batch: the solver's two
// lists, a level each): their tiles side by side in one grid, each block finding its merge in
// a table of at most merge_batch_max jobs. Small merges are all latency (a partition's
// dependent searches, a grid that does not fill the device); side by side they overlap.
// Used by the classic batch kernels (merge_tiles.cuh) and by merge_tiles_bulk, whose tile
// queue runs over the same table. Merge path: Odeh et al. 2012; Green, McColl, Bader, ICS 2012.
#include <climits>
#include <cstddef>
#include <stdexcept>

#include "cuda/merge/merge_partition.cuh"
#include "ssum/merge.hpp"

namespace ssum::cuda_detail {

/// Merges per launch (more are launched in groups).
constexpr int merge_batch_max = 4;

/// One merge of a batch and where its blocks lie in the batch's two grids.
template <class T, class BAt>
struct merge_batch_job {
  const T* a;
  std::size_t na;
  BAt b;
  std::size_t nb;
  T* out;
  std::size_t* splits;  // tiles + 1
  std::size_t tiles;
  unsigned first_tile;   // its first block in merge_tiles_batch's grid
  unsigned first_block;  // its first block in merge_partition_batch's grid
  int group;             // partition_group(tiles)
};

template <class T, class BAt>
struct merge_batch {
  merge_batch_job<T, BAt> job[merge_batch_max];
  int count;
};

/// The job that block x belongs to (the last one whose first block, by `first`, is <= x),
/// copied by selects: indexing the parameter with a variable would copy it to the stack.
template <class T, class BAt, class First>
__device__ __forceinline__ merge_batch_job<T, BAt> merge_batch_job_of(const merge_batch<T, BAt>& batch, unsigned x,
                                                                     First first) {
  merge_batch_job<T, BAt> j = batch.job[0];
#pragma unroll
  for (int k = 1; k < merge_batch_max; ++k) {
    if (k < batch.count && x >= first(batch.job[k])) j = batch.job[k];
  }
  return j;
}

/// The jobs of merges[0, count) (the empty ones left out) in tiles of `tile` outputs, into
/// batch; returns the batch's tiles. Sets no partition (first_block, splits).
template <class T, class BAt>
std::size_t merge_batch_of(const generated_merge<T, BAt>* merges, int count, std::size_t tile,
                           merge_batch<T, BAt>& batch) {
  std::size_t tiles_total = 0;
  batch.count = 0;
  for (int k = 0; k < count; ++k) {
    const generated_merge<T, BAt>& m = merges[k];
    if (m.na > SIZE_MAX - m.nb) throw std::invalid_argument("ssum::cuda merge: na + nb overflows");
    if (m.na + m.nb == 0) continue;
    merge_batch_job<T, BAt>& j = batch.job[batch.count++];
    j.a = m.a;
    j.na = m.na;
    j.b = m.b_at;
    j.nb = m.nb;
    j.out = m.out;
    j.tiles = merge_tiles_for(m.na + m.nb, tile);
    j.group = partition_group(j.tiles);
    j.first_tile = static_cast<unsigned>(tiles_total);
    tiles_total += j.tiles;
    if (tiles_total > static_cast<std::size_t>(INT_MAX) - 1) {
      throw std::invalid_argument("ssum::cuda merge: too many elements for one launch");
    }
  }
  return tiles_total;
}

}  // namespace ssum::cuda_detail

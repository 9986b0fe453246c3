#pragma once
// The classic merge tiles (every architecture): one block per output tile of Threads x Items
// elements. Merge path on the GPU (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel
// Merging Made Simple", 2012; Green, McColl, Bader, "GPU Merge Path", ICS 2012):
//
//   merge_partition    (merge_partition.cuh) where each tile starts in a.
//   merge_tiles        the tile's a-range and b-range (b computed on the fly when generated)
//                      are loaded into shared memory side by side, coalesced; each thread
//                      finds its own diagonal (Items outputs) there with tile_split and merges
//                      Items elements sequentially (ties take a: stable); the results are
//                      staged in shared memory and written out coalesced.
//   merge_tiles_batch  the same over several merges in one grid (merge_batch.cuh), after
//                      merge_partition_batch.
//
// merge_by_key moves values with their keys through the same tile.
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/merge/merge_batch.cuh"
#include "cuda/merge/merge_partition.cuh"

namespace ssum::cuda_detail {

/// The Value type of key-only merges; never dereferenced.
struct merge_no_values {};

// ---- one tile -------------------------------------------------------------------------

/// s[0, count) = a[a0, a0 + na_t) followed by b[b0, ...): striped, so a warp reads 32
/// neighbours of one input (two where it crosses from a to b). All loads are issued before
/// the first store to shared memory, so Items of them are in flight per thread.
template <int Threads, int Items, class T, class BAt>
__device__ void load_tile(const T* a, BAt b, const tile_range& r, T* s) {
  using reader = b_reader<BAt>;
  T v[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.na_t) {
      v[k] = a[r.a0 + x];
    } else if (x < r.count) {
      v[k] = reader::raw(b, r.b0 + std::size_t(x - r.na_t));
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.na_t) {
      s[x] = v[k];
    } else if (x < r.count) {
      s[x] = reader::finish(b, v[k]);
    }
  }
}

/// The same for values (a's, then b's).
template <int Threads, int Items, class V>
__device__ void load_values(const V* av, const V* bv, const tile_range& r, V* s) {
  V v[Items];
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.na_t) {
      v[k] = av[r.a0 + x];
    } else if (x < r.count) {
      v[k] = bv[r.b0 + std::size_t(x - r.na_t)];
    }
  }
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.count) s[x] = v[k];
  }
}

/// Shared memory of one merge tile: keys, and values when there are any.
template <int Tile, class T, class V>
struct merge_smem {
  static constexpr bool has_values = !std::is_same_v<V, merge_no_values>;
  alignas(16) T keys[Tile];
  std::conditional_t<has_values, V, char> values[has_values ? Tile : 1];
};

/// Output tile `tile_id` of the stable merge of a and b, by the whole block (merge_tiles,
/// merge_tiles_batch). V = merge_no_values: keys only.
template <int Threads, int Items, class T, class V, class BAt, class Compare>
__device__ __forceinline__ void merge_tile(std::size_t tile_id, const T* a, const V* av, std::size_t na, BAt b,
                                           const V* bv, std::size_t nb, const std::size_t* splits, T* out, V* out_v,
                                           Compare comp) {
  constexpr int tile = Threads * Items;
  using smem_t = merge_smem<tile, T, V>;
  constexpr bool has_values = smem_t::has_values;
  static_assert(sizeof(smem_t) <= 48 * 1024, "merge tile too large for static shared memory");
  __shared__ smem_t sm;

  const tile_range r = tile_at<tile>(tile_id, na, na + nb, splits);
  load_tile<Threads, Items>(a, b, r, sm.keys);
  if constexpr (has_values) load_values<Threads, Items>(av, bv, r, sm.values);
  __syncthreads();

  // This thread's outputs [diag, diag + n_out) of the tile, merged from shared memory.
  const T* sk = sm.keys;
  const int na_t = r.na_t, nb_t = r.count - r.na_t, last = r.count - 1;
  const int diag = min(int(threadIdx.x) * Items, r.count);
  const int n_out = min(Items, r.count - diag);
  int i = tile_split(sk, na_t, sk + na_t, nb_t, diag, comp);
  int j = diag - i;
  T key[Items];
  int src[Items];  // where key k sits in shared memory (a's at [0, na_t), b's after): for values
  if (n_out > 0) {
    // Branch-free: one select and one shared load per output. Heads past their input hold
    // stale keys that are never chosen (the i >= na_t / j < nb_t tests decide first); steps
    // past n_out produce keys that are never stored, and every index read stays in [0, count).
    T ka = sk[min(i, last)], kb = sk[min(na_t + j, last)];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool take_b = j < nb_t && (i >= na_t || comp(kb, ka));  // ties take a: stable
      key[k] = take_b ? kb : ka;
      src[k] = take_b ? na_t + j : i;
      i += !take_b;
      j += take_b;
      const T next = sk[take_b ? min(na_t + j, last) : min(i, last)];
      ka = take_b ? ka : next;
      kb = take_b ? next : kb;
    }
  }
  using VS = std::conditional_t<has_values, V, char>;
  VS val[has_values ? Items : 1];
  if constexpr (has_values) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (k < n_out) val[k] = sm.values[src[k]];
    }
  }
  __syncthreads();  // every thread is done reading the inputs in shared memory

  // Stage in output order, then write the tile out coalesced.
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (k < n_out) {
      sm.keys[diag + k] = key[k];
      if constexpr (has_values) sm.values[diag + k] = val[k];
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const int x = k * Threads + int(threadIdx.x);
    if (x < r.count) {
      out[r.d0 + x] = sm.keys[x];
      if constexpr (has_values) out_v[r.d0 + x] = sm.values[x];
    }
  }
}

/// Output tile blockIdx.x of the stable merge of a and b. V = merge_no_values: keys only.
template <int Threads, int Items, int MinBlocks, class T, class V, class BAt, class Compare>
__global__ void __launch_bounds__(Threads, MinBlocks)
    merge_tiles(const T* a, const V* av, std::size_t na, BAt b, const V* bv, std::size_t nb,
                const std::size_t* splits, T* out, V* out_v, Compare comp) {
  merge_tile<Threads, Items>(blockIdx.x, a, av, na, b, bv, nb, splits, out, out_v, comp);
}

// ---- launch -----------------------------------------------------------------------------

/// The whole merge in tiles of Threads x Items (merge_launch.cuh picks merge_tuning's).
/// Ordered on `stream`; the caller has checked the arguments.
template <int Threads, int Items, int MinBlocks = 1, class T, class V, class BAt, class Compare>
void launch_merge(cudaStream_t stream, const T* a, const V* av, std::size_t na, BAt b, const V* bv, std::size_t nb,
                  T* out, V* out_v, Compare comp) {
  if (na > SIZE_MAX - nb) throw std::invalid_argument("ssum::cuda merge: na + nb overflows");
  if (na + nb == 0) return;
  constexpr std::size_t tile = std::size_t(Threads) * Items;
  const std::size_t tiles = merge_tiles_for(na + nb, tile);
  device_buffer scratch(merge_scratch_bytes(tiles), stream);
  std::size_t* const splits = scratch.as<std::size_t>();
  launch_merge_partition(stream, a, na, b, nb, tile, tiles, splits, comp);
  merge_tiles<Threads, Items, MinBlocks><<<static_cast<unsigned>(tiles), Threads, 0, stream>>>(
      a, av, na, b, bv, nb, splits, out, out_v, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_tiles");
}

// ---- several merges in one launch -------------------------------------------------------

template <class T, class BAt, class Compare>
__global__ void __launch_bounds__(partition_threads)
    merge_partition_batch(merge_batch<T, BAt> batch, std::size_t tile, Compare comp) {
  const merge_batch_job<T, BAt> j =
      merge_batch_job_of(batch, blockIdx.x, [](const merge_batch_job<T, BAt>& x) { return x.first_block; });
  const std::size_t warp = (std::size_t(blockIdx.x - j.first_block) * blockDim.x + threadIdx.x) / 32;
  warp_partition(warp, j.a, j.na, j.b, j.nb, tile, j.tiles, j.group, j.splits, comp);
}

template <int Threads, int Items, int MinBlocks, class T, class BAt, class Compare>
__global__ void __launch_bounds__(Threads, MinBlocks) merge_tiles_batch(merge_batch<T, BAt> batch, Compare comp) {
  const merge_batch_job<T, BAt> j =
      merge_batch_job_of(batch, blockIdx.x, [](const merge_batch_job<T, BAt>& x) { return x.first_tile; });
  const merge_no_values* none = nullptr;
  merge_tile<Threads, Items>(blockIdx.x - j.first_tile, j.a, none, j.na, j.b, none, j.nb, j.splits, j.out,
                                    static_cast<merge_no_values*>(nullptr), comp);
}

/// merges[0, count), count <= merge_batch_max, key-only, in two launches on `stream`: the
/// batch's partition, then its tiles (empty merges take no block). The caller has checked
/// the arguments.
template <int Threads, int Items, int MinBlocks = 1, class T, class BAt, class Compare>
void launch_merge_batch(cudaStream_t stream, const generated_merge<T, BAt>* merges, int count, Compare comp) {
  constexpr std::size_t tile = std::size_t(Threads) * Items;
  merge_batch<T, BAt> batch{};
  const std::size_t tiles_total = merge_batch_of(merges, count, tile, batch);
  if (batch.count == 0) return;
  std::size_t blocks_total = 0, splits_total = 0;
  for (int k = 0; k < batch.count; ++k) {
    merge_batch_job<T, BAt>& j = batch.job[k];
    j.first_block = static_cast<unsigned>(blocks_total);
    blocks_total += partition_blocks(j.tiles, j.group);
    splits_total += j.tiles + 1;
  }
  device_buffer scratch(splits_total * sizeof(std::size_t), stream);
  std::size_t offset = 0;
  for (int k = 0; k < batch.count; ++k) {
    batch.job[k].splits = scratch.as<std::size_t>() + offset;
    offset += batch.job[k].tiles + 1;
  }
  merge_partition_batch<<<static_cast<unsigned>(blocks_total), partition_threads, 0, stream>>>(batch, tile, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_partition_batch");
  merge_tiles_batch<Threads, Items, MinBlocks><<<static_cast<unsigned>(tiles_total), Threads, 0, stream>>>(batch, comp);
  SSUM_CUDA_CHECK_LAUNCH("merge_tiles_batch");
}

}  // namespace ssum::cuda_detail

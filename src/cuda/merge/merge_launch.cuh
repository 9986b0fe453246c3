#pragma once
// The merges' launch shapes (merge_tuning) and the launchers that pick the kernel: key-only
// merges of 4-byte keys take the sm_90 bulk-copied tiles (merge_tiles_bulk.cuh) and fall
// back, before sm_90 or for pointers not 16-byte aligned, to the classic batch kernels in the
// same tiles (merge_tiles.cuh); 8-byte keys and merge_by_key take the classic tiles. Merge
// path: Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple",
// 2012; Green, McColl, Bader, "GPU Merge Path", ICS 2012.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/merge/merge_batch.cuh"
#include "cuda/merge/merge_tiles.cuh"
#include "cuda/merge/merge_tiles_bulk.cuh"
#include "ssum/merge.hpp"

namespace ssum::cuda_detail {

/// The launch shapes of the merges of T.
///
/// classic: merge_tiles (merge_by_key, and key-only merges of 8-byte keys). Items is odd so
/// that staging results at stride Items in shared memory is free of bank conflicts (4-byte
/// words; for 8-byte words each half-warp's 16 stores land on distinct bank pairs). A tile of
/// 256 x 15 (4-byte) or 256 x 11 (8-byte) puts 15 / 11 independent loads per thread in
/// flight, which covers HBM latency at the 5-8 blocks per SM that the shared memory allows,
/// and keeps keys + values of merge_by_key (at most 256 x 11 x 16 B = 45 KiB) under the 48 KiB
/// of static shared memory. 8-byte keys: 256 x 19 measured 1360 against 1244 us for 256 x 11
/// at 2^28 outputs on the H200 (docs/roadmap.md, "Tried, did not pay"). Plain loads and stores: 16-byte ones
/// measured slower in the same run (uint32 at 2^28 737 against 714 us, uint64 1292 against
/// 1240), the loader's extra index work costing more than the fewer instructions save.
///
/// bulk: merge_tiles_bulk, used for key-only merges of 4-byte keys; 8-byte keys keep the
/// classic tiles, where the bulk kernel measured slower (1316 against 1225 us at 2^28 uint64
/// on the H200, before the tile queue). Two stages of 512 x 19 per block, two blocks per SM.
template <class T>
struct merge_tuning {
  struct classic {
    static constexpr int threads = 256;
    static constexpr int items = sizeof(T) >= 8 ? 11 : 15;
    static constexpr std::size_t tile = std::size_t(threads) * items;
  };
  struct bulk {
    static constexpr bool used = sizeof(T) == 4;
    static constexpr int threads = 512;
    static constexpr int items = 19;
    static constexpr int stages = 2;
    static constexpr int min_blocks = 2;
    static constexpr std::size_t tile = std::size_t(threads) * items;
  };
};

/// merges[0, count), count <= merge_batch_max, key-only, with bulk-copied tiles of Threads x
/// Items in one launch; where that cannot run, merge_partition_batch and merge_tiles_batch in
/// the same tiles. max_blocks (tests): fewer blocks than fit, so that each goes round its
/// stages many times.
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
void launch_merge_batch_bulk(cudaStream_t stream, const generated_merge<T, BAt>* merges, int count, Compare comp,
                             unsigned max_blocks = 0) {
  merge_batch<T, BAt> batch{};
  const std::size_t tiles_total = merge_batch_of(merges, count, std::size_t(Threads) * Items, batch);
  if (!launch_merge_tiles_bulk<Threads, Items, Stages, MinBlocks>(stream, batch, tiles_total, comp, max_blocks)) {
    launch_merge_batch<Threads, Items>(stream, merges, count, comp);
  }
}

/// A whole key-only merge with bulk-copied tiles (launch_merge_batch_bulk of one).
template <int Threads, int Items, int Stages, int MinBlocks, class T, class BAt, class Compare>
void launch_merge_bulk(cudaStream_t stream, const T* a, std::size_t na, BAt b, std::size_t nb, T* out, Compare comp,
                       unsigned max_blocks = 0) {
  const generated_merge<T, BAt> merge{a, na, b, nb, out};
  launch_merge_batch_bulk<Threads, Items, Stages, MinBlocks>(stream, &merge, 1, comp, max_blocks);
}

/// One key-only merge of a[0, na) with b(0), ..., b(nb - 1) in merge_tuning's shape on
/// `stream`: bulk tiles where merge_tuning<T>::bulk::used says so, else merge_partition and
/// merge_tiles. The caller has checked the arguments.
template <class T, class BAt, class Compare>
void launch_keys_merge(cudaStream_t stream, const T* a, std::size_t na, BAt b, std::size_t nb, T* out, Compare comp) {
  if constexpr (merge_tuning<T>::bulk::used) {
    using shape = typename merge_tuning<T>::bulk;
    launch_merge_bulk<shape::threads, shape::items, shape::stages, shape::min_blocks>(stream, a, na, b, nb, out, comp);
  } else {
    using shape = typename merge_tuning<T>::classic;
    const merge_no_values* none = nullptr;
    launch_merge<shape::threads, shape::items>(stream, a, none, na, b, none, nb, out,
                                               static_cast<merge_no_values*>(nullptr), comp);
  }
}

/// merges[0, count), count <= merge_batch_max, key-only, in merge_tuning's shape on `stream`,
/// by the same rule. The caller has checked the arguments.
template <class T, class BAt, class Compare>
void launch_keys_merge_batch(cudaStream_t stream, const generated_merge<T, BAt>* merges, int count, Compare comp) {
  if constexpr (merge_tuning<T>::bulk::used) {
    using shape = typename merge_tuning<T>::bulk;
    launch_merge_batch_bulk<shape::threads, shape::items, shape::stages, shape::min_blocks>(stream, merges, count,
                                                                                            comp);
  } else {
    using shape = typename merge_tuning<T>::classic;
    launch_merge_batch<shape::threads, shape::items>(stream, merges, count, comp);
  }
}

/// merge_by_key in merge_tuning's classic shape. The caller has checked the arguments.
template <class K, class V, class Compare>
void launch_merge_by_key(cudaStream_t stream, const K* a_keys, const V* a_values, std::size_t na, const K* b_keys,
                         const V* b_values, std::size_t nb, K* out_keys, V* out_values, Compare comp) {
  using shape = typename merge_tuning<K>::classic;
  launch_merge<shape::threads, shape::items>(stream, a_keys, a_values, na, load_at<K>{b_keys}, b_values, nb, out_keys,
                                             out_values, comp);
}

}  // namespace ssum::cuda_detail

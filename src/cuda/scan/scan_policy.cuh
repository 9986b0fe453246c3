#pragma once
// The CUDA scan's tuning, in one place: the launch shape of each of its kernels and the size
// from which the bulk-copy kernel takes over. scan.cu's cuda_scan reads it; the kernels take
// the numbers as template arguments. Measured on the H200 (docs/performance.md; the shapes
// that lost: docs/roadmap.md, "Tried, did not pay").
#include <cstddef>

namespace ssum::cuda_detail {

template <class In, class Out>
struct scan_policy {
  // scan_tiles (misaligned pointers, the widening sums, the float path's tiles) and
  // reduce_tiles. 16 KiB of input per tile keeps enough bytes in flight per SM to cover HBM
  // latency at 8 resident blocks; for 4-byte values, asking for 8 resident blocks per SM (32
  // registers a thread) beat 128 and 512 threads, 24 items and fewer blocks. The tiles move
  // in tile_access::streamed and the look-back backs off: together 5-6% faster than plain
  // tiles and busy polling at 2^20 and 2^28 int32.
  struct transposing {
    static constexpr int threads = 256;
    static constexpr int items = sizeof(Out) >= 8 ? 8 : 16;
    static constexpr int min_blocks = sizeof(Out) >= 8 ? 1 : 8;  // __launch_bounds__' blocks per SM
    static constexpr std::size_t tile = std::size_t{threads} * items;
  };

  // scan_tiles_vectorized (In == Out of 4 or 8 bytes, both pointers 16-byte aligned): 128
  // threads x 8 16-byte vectors (32 int32 at 6 blocks per SM, 16 int64 at 4; 16 KiB tiles)
  // beat 256 x 4, 256 x 6, 512 x 4 and 64 x 8; persistent blocks that prefetched their next
  // tile were 2x slower.
  struct vectorized {
    static constexpr int threads = 128;
    static constexpr int vectors = 8;
    static constexpr int min_blocks = sizeof(Out) >= 8 ? 4 : 6;
    static constexpr std::size_t tile = std::size_t{threads} * vectors * (16 / sizeof(Out));
  };

  // scan_tiles_specialized (the same inputs from min_bytes on, sm_90): below min_bytes the
  // ring's start-up costs more than it saves. 8 consumer warps x 4 rows: 16 KiB tiles;
  // 8-byte values did better with three blocks of four stages per SM (2^28 int64: 1235
  // against 1301 us), 4-byte ones with two of six (616 against 651 us).
  struct specialized {
    static constexpr int consumers = 8;
    static constexpr int rows = 4;
    static constexpr int stages = sizeof(Out) >= 8 ? 4 : 6;
    static constexpr int min_blocks = sizeof(Out) >= 8 ? 3 : 2;
    static constexpr std::size_t min_bytes = std::size_t{64} << 20;
  };

  // scan_tile_sums: the float path's one block over the tile sums.
  static constexpr int sums_threads = 1024;
};

}  // namespace ssum::cuda_detail

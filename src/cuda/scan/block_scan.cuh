#pragma once
// The block-wide scan of one value per thread, for use inside any kernel: Kogge-Stone scans
// inside each warp with register shuffles, then one warp scans the warp totals (two barriers
// in all, no shared-memory traffic beyond the warp totals). Thread i gets its inclusive and
// exclusive prefixes and the block total; values combine strictly as op(left, right), so
// non-commutative operators work. The storage may be written again only after a
// __syncthreads() that follows the call.
#include <cuda_runtime.h>

namespace ssum::cuda_detail {

constexpr int warp_size = 32;

template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op) {
  const int lane = threadIdx.x % warp_size;
#pragma unroll
  for (int d = 1; d < warp_size; d *= 2) {
    const T y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x = op(y, x);
  }
  return x;
}

template <int Threads, class T>
struct block_scan_warp {
  static_assert(Threads % warp_size == 0 && Threads <= warp_size * warp_size, "one warp scans the warp totals");
  static constexpr int warps = Threads / warp_size;
  struct storage {
    T warp_total[warps];
  };

  // inclusive = x_0 op ... op x_i; exclusive = x_0 op ... op x_(i-1) (undefined in thread 0);
  // total = the whole block's (in every thread).
  template <class Op>
  __device__ static void scan(T x, Op op, T& inclusive, T& exclusive, T& total, storage& s) {
    const int lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;
    const T inc = warp_inclusive_scan(x, op);
    const T prev = __shfl_up_sync(0xffffffffu, inc, 1);
    if (lane == warp_size - 1) s.warp_total[warp] = inc;
    __syncthreads();
    if (warp == 0) {
      // Lanes past the last warp repeat its total: an inclusive scan never lets a higher
      // lane's value reach a lower lane, so they cannot disturb the real ones.
      T w = s.warp_total[lane < warps ? lane : warps - 1];
      __syncwarp();  // every lane has read before any lane writes (lanes do not run in lockstep)
      w = warp_inclusive_scan(w, op);
      if (lane < warps) s.warp_total[lane] = w;
    }
    __syncthreads();
    if (warp == 0) {
      inclusive = inc;
      exclusive = prev;
    } else {
      const T before = s.warp_total[warp - 1];
      inclusive = op(before, inc);
      exclusive = lane == 0 ? before : op(before, prev);
    }
    total = s.warp_total[warps - 1];
  }
};

}  // namespace ssum::cuda_detail

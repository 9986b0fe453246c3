// Device scans. Integers: one pass over the data, tiles chained by decoupled look-back
// (Merrill and Garland 2016): each element is read once and written once. Floating point:
// reduce-then-scan (tile sums, a fixed-shape scan of them, then the tiles), because the
// look-back combines predecessors in an order that depends on timing, and float addition
// is not associative: this way a float scan gives the same bits on every run. cuda_scan
// below is the one place that picks a kernel; scan_policy.cuh holds every launch shape.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/scan/scan_kernels.cuh"
#include "cuda/scan/scan_policy.cuh"
#include "ssum/scan.hpp"

namespace ssum::detail {

// The kernel, chosen once per call:
//   floating point                       reduce_tiles, scan_tile_sums, scan_tiles (no look-back);
//   In == Out of 4 or 8 bytes, both pointers 16-byte aligned (cudaMalloc's always are):
//     from specialized::min_bytes on sm_90  scan_tiles_specialized (bulk copies, mbarriers);
//     otherwise, or without sm_90 code      scan_tiles_vectorized;
//   anything else (misaligned, widening)  scan_tiles with look-back.
// Integer results are exact on every path.
template <class In, class Out, class Op>
void cuda_scan(const cuda& policy, const In* d_in, Out* d_out, std::size_t n, Op op, const Out* init, bool exclusive) {
  using namespace cuda_detail;
  if (n == 0) return;
  if (!d_in || !d_out) throw std::invalid_argument("ssum::cuda scan: null device pointer");
  device_scope on(policy.device);
  const cudaStream_t stream = policy.stream;
  using tuning = scan_policy<In, Out>;
  using transposing = typename tuning::transposing;
  const std::size_t tiles = (n + transposing::tile - 1) / transposing::tile;
  if (tiles > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("ssum::cuda scan: too many elements for one launch");
  }
  scan_params<Out> params{};
  params.has_init = init != nullptr;
  params.init = init ? *init : Out{};
  params.exclusive = exclusive;

  if constexpr (std::is_floating_point_v<Out>) {
    device_buffer scratch(2 * tiles * sizeof(Out), stream);
    Out* sums = scratch.as<Out>();
    Out* prefixes = sums + tiles;
    params.tile_prefix = prefixes;
    reduce_tiles<transposing::threads, transposing::items>
        <<<static_cast<unsigned>(tiles), transposing::threads, 0, stream>>>(d_in, n, op, sums);
    SSUM_CUDA_CHECK_LAUNCH("reduce_tiles");
    scan_tile_sums<tuning::sums_threads><<<1, tuning::sums_threads, 0, stream>>>(sums, prefixes, tiles, op,
                                                                                  params.init, params.has_init);
    SSUM_CUDA_CHECK_LAUNCH("scan_tile_sums");
    scan_tiles<transposing::threads, transposing::items, transposing::min_blocks, false>
        <<<static_cast<unsigned>(tiles), transposing::threads, 0, stream>>>(d_in, d_out, n, op, params);
    SSUM_CUDA_CHECK_LAUNCH("scan_tiles");
  } else {
    constexpr bool vectorizable = std::is_same_v<In, Out> && (sizeof(Out) == 4 || sizeof(Out) == 8);
    if constexpr (vectorizable) {
      if (reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(d_out) % 16 == 0) {
        using vectorized = typename tuning::vectorized;
        using specialized = typename tuning::specialized;
        // launch_specialized_scan launches nothing and says false where the device runs no
        // sm_90 code.
        if (n * sizeof(Out) >= specialized::min_bytes &&
            launch_specialized_scan<specialized::consumers, specialized::rows, specialized::stages,
                                    specialized::min_blocks>(stream, d_in, d_out, n, op, params)) {
          return;
        }
        launch_vectorized_scan<vectorized::threads, vectorized::vectors, vectorized::min_blocks>(stream, d_in, d_out,
                                                                                                  n, op, params);
        return;
      }
    }
    launch_look_back_scan<transposing::threads, transposing::items, transposing::min_blocks>(stream, d_in, d_out, n,
                                                                                             op, params);
  }
}

// The combinations scan.hpp promises (cuda_scan_supported).
#define SSUM_SCAN_SAME(T, OP) \
  template void cuda_scan<T, T, OP>(const cuda&, const T*, T*, std::size_t, OP, const T*, bool);
#define SSUM_SCAN_ARITH(T) SSUM_SCAN_SAME(T, plus) SSUM_SCAN_SAME(T, minimum) SSUM_SCAN_SAME(T, maximum)
#define SSUM_SCAN_INT(T) SSUM_SCAN_ARITH(T) SSUM_SCAN_SAME(T, bit_or)
SSUM_FOR_EACH_CUDA_INTEGER_KEY(SSUM_SCAN_INT)
SSUM_SCAN_ARITH(float)
SSUM_SCAN_ARITH(double)
template void cuda_scan<std::uint8_t, std::uint64_t, plus>(const cuda&, const std::uint8_t*, std::uint64_t*,
                                                           std::size_t, plus, const std::uint64_t*, bool);
template void cuda_scan<std::int8_t, std::int64_t, plus>(const cuda&, const std::int8_t*, std::int64_t*, std::size_t,
                                                         plus, const std::int64_t*, bool);
#undef SSUM_SCAN_INT
#undef SSUM_SCAN_ARITH
#undef SSUM_SCAN_SAME

}  // namespace ssum::detail

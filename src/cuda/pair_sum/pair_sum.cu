// The CUDA pair searches' host entry points (pair_sum.hpp): argument checks, the launches of
// pair_sum_launch.cuh on the policy's device and stream (scratch from the stream-ordered
// pool), the grouping of several targets, and the instantiations pair_sum.hpp promises. The
// walk follows merge path (Odeh et al. 2012; Green, McColl, Bader, "GPU Merge Path", ICS 2012).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/common/check.cuh"
#include "cuda/merge/merge_partition.cuh"
#include "cuda/pair_sum/pair_sum_launch.cuh"
#include "cuda/pair_sum/pair_sum_walk.cuh"
#include "ssum/pair_sum.hpp"

namespace ssum::detail {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("ssum::cuda ") + what + ": null device pointer");
}

/// The walk in pair_sum_tuning's tiles for ts[0, count) on `stream`.
template <bool Find, class T>
cuda_detail::pair_sum_state pair_sum_launch(cudaStream_t stream, const T* d_a, std::size_t na, const T* d_b,
                                            std::size_t nb, const T* ts, int count) {
  using tuning = cuda_detail::pair_sum_tuning<T>;
  return cuda_detail::launch_pair_sums<tuning::threads, tuning::items, tuning::stages, tuning::min_blocks, Find>(
      stream, d_a, na, d_b, nb, ts, count);
}

/// One target on the policy's device and stream.
template <bool Find, class T>
cuda_detail::pair_sum_state pair_sum_run(const cuda& policy, const T* d_a, std::size_t na, const T* d_b,
                                         std::size_t nb, T t) {
  cuda_detail::device_scope on(policy.device);
  return pair_sum_launch<Find>(policy.stream, d_a, na, d_b, nb, &t, 1);
}

}  // namespace

template <class T>
pair_match cuda_find_pair_sum(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb, T t) {
  require((na == 0 || d_a) && (nb == 0 || d_b), "find_pair_sum");
  if (na == 0 || nb == 0) return {false, 0, 0};
  const cuda_detail::pair_sum_state s = pair_sum_run<true>(policy, d_a, na, d_b, nb, t);
  if (!s.found) return {false, 0, 0};
  return {true, static_cast<std::size_t>(s.i), static_cast<std::size_t>(s.j)};
}

template <class T>
any_pair_match cuda_find_any_pair_sum(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                      const T* ts, std::size_t k) {
  require((na == 0 || d_a) && (nb == 0 || d_b), "find_any_pair_sum");
  if (k > 0 && !ts) throw std::invalid_argument("ssum::cuda find_any_pair_sum: null targets");
  if (na == 0 || nb == 0) return {false, 0, 0, 0};
  using namespace cuda_detail;
  using tuning = pair_sum_tuning<T>;
  device_scope on(policy.device);
  // Small searches (fewer tiles than fill the device about once) are latency-bound: up to
  // pair_sum_max_targets per launch of each kernel, in order, the first group with a match
  // answers (four over 2 x 2^23 uint64 on the H200: 246 us against 379 one by one; 47
  // against 141 at 2^19 each). Large ones search the first target alone (a match there, the
  // usual case of an instance with solutions, pays no other target's partition), then the
  // others in one launch: their persistent blocks stop as soon as a match of an earlier
  // target is known, and one partition and one tile launch replace three.
  const std::size_t tiles = merge_tiles_for(na + nb, tuning::tile);
  const bool large = tiles >= few_tiles;
  for (std::size_t first = 0; first < k;) {
    // Large: the first target alone, then the others in groups.
    const std::size_t per_launch = large && first == 0 ? 1 : pair_sum_max_targets;
    const int count = static_cast<int>(k - first < per_launch ? k - first : per_launch);
    const pair_sum_state s = pair_sum_launch<true>(policy.stream, d_a, na, d_b, nb, ts + first, count);
    if (s.found) {
      return {true, first + static_cast<std::size_t>(s.target), static_cast<std::size_t>(s.i),
              static_cast<std::size_t>(s.j)};
    }
    first += std::size_t(count);
  }
  return {false, 0, 0, 0};
}

template <class T>
std::uint64_t cuda_count_pair_sums(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                   T t) {
  require((na == 0 || d_a) && (nb == 0 || d_b), "count_pair_sums");
  if (na == 0 || nb == 0) return 0;
  return pair_sum_run<false>(policy, d_a, na, d_b, nb, t).count;
}

// The combinations pair_sum.hpp promises.
#define SSUM_PAIR_SUMS(T)                                                                                           \
  template pair_match cuda_find_pair_sum<T>(const cuda&, const T*, std::size_t, const T*, std::size_t, T);         \
  template std::uint64_t cuda_count_pair_sums<T>(const cuda&, const T*, std::size_t, const T*, std::size_t, T);   \
  template any_pair_match cuda_find_any_pair_sum<T>(const cuda&, const T*, std::size_t, const T*, std::size_t,     \
                                                    const T*, std::size_t);
SSUM_FOR_EACH_CUDA_INTEGER_KEY(SSUM_PAIR_SUMS)
SSUM_PAIR_SUMS(uint128)  // the two-list's sums past 2^64
#undef SSUM_PAIR_SUMS

}  // namespace ssum::detail

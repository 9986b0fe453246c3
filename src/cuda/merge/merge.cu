// Device merges and the equal-pairs search: argument checks, the launch shapes
// (merge_tuning, merge_bulk_tuning, pair_sum_bulk_tuning), scratch from the stream-ordered
// pool, the launches of merge_kernels.cuh and merge_bulk_kernels.cuh (which falls back to the
// former before sm_90 and for pointers not 16-byte aligned), and the instantiations
// merge.hpp promises.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/merge/merge_bulk_kernels.cuh"
#include "cuda/merge/merge_kernels.cuh"
#include "ssum/merge.hpp"

namespace ssum::detail {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("ssum::cuda ") + what + ": null device pointer");
}

/// A key-only merge on `stream`: bulk-copied tiles where merge_bulk_tuning uses them, else
/// merge_keys_tuning's tiles.
template <class T, class BAt, class Compare>
void launch_keys_merge(cudaStream_t stream, const T* a, std::size_t na, BAt b, std::size_t nb, T* out, Compare comp) {
  using namespace cuda_detail;
  if constexpr (merge_bulk_tuning<T>::used) {
    using tuning = merge_bulk_tuning<T>;
    launch_merge_bulk<tuning::threads, tuning::items, tuning::stages, tuning::min_blocks>(stream, a, na, b, nb, out,
                                                                                         comp);
  } else {
    using tuning = merge_keys_tuning<T>;
    const merge_no_values* none = nullptr;
    launch_merge<tuning::threads, tuning::items, 1, tuning::vector_io>(stream, a, none, na, b, none, nb, out,
                                                                       static_cast<merge_no_values*>(nullptr), comp);
  }
}

}  // namespace

template <class T, class Compare>
void cuda_merge(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb, T* d_out,
                Compare comp) {
  using namespace cuda_detail;
  require((na == 0 || d_a) && (nb == 0 || d_b) && (na + nb == 0 || d_out), "merge");
  if (na == 0 && nb == 0) return;
  device_scope on(policy.device);
  launch_keys_merge(policy.stream, d_a, na, load_at<T>{d_b}, nb, d_out, comp);
}

template <class K, class V, class Compare>
void cuda_merge_by_key(const cuda& policy, const K* d_a_keys, const V* d_a_values, std::size_t na, const K* d_b_keys,
                       const V* d_b_values, std::size_t nb, K* d_out_keys, V* d_out_values, Compare comp) {
  using namespace cuda_detail;
  require((na == 0 || (d_a_keys && d_a_values)) && (nb == 0 || (d_b_keys && d_b_values)) &&
              (na + nb == 0 || (d_out_keys && d_out_values)),
          "merge_by_key");
  if (na == 0 && nb == 0) return;
  device_scope on(policy.device);
  using tuning = merge_tuning<K>;
  launch_merge<tuning::threads, tuning::items, 1, tuning::vector_io>(policy.stream, d_a_keys, d_a_values, na, load_at<K>{d_b_keys},
                                               d_b_values, nb, d_out_keys, d_out_values, comp);
}

template <class T, class BAt, class Compare>
void cuda_merge_generated(const cuda& policy, const T* d_a, std::size_t na, BAt b_at, std::size_t nb, T* d_out,
                          Compare comp) {
  using namespace cuda_detail;
  require((na == 0 || d_a) && (nb == 0 || b_at.data) && (na + nb == 0 || d_out), "merge_generated");
  if constexpr (std::is_same_v<BAt, minus_reversed<T>>) {
    // b_at(j) reads data[n - 1 - j]: j < nb must stay inside the array.
    if (nb > b_at.n) throw std::invalid_argument("ssum::cuda merge_generated: minus_reversed has fewer than nb elements");
  }
  if (na == 0 && nb == 0) return;
  device_scope on(policy.device);
  launch_keys_merge(policy.stream, d_a, na, b_at, nb, d_out, comp);
}

template <class T, class BAt, class Compare>
void cuda_merge_generated_batch(const cuda& policy, const generated_merge<T, BAt>* merges, std::size_t count,
                                Compare comp) {
  using namespace cuda_detail;
  if (count > 0 && !merges) throw std::invalid_argument("ssum::cuda merge_generated_batch: null merges");
  for (std::size_t k = 0; k < count; ++k) {
    const generated_merge<T, BAt>& m = merges[k];
    require((m.na == 0 || m.a) && (m.nb == 0 || m.b_at.data) && (m.na + m.nb == 0 || m.out), "merge_generated_batch");
  }
  device_scope on(policy.device);
  for (std::size_t first = 0; first < count; first += merge_batch_max) {
    const std::size_t group = count - first < std::size_t(merge_batch_max) ? count - first : merge_batch_max;
    if constexpr (merge_bulk_tuning<T>::used) {
      using tuning = merge_bulk_tuning<T>;
      launch_merge_batch_bulk<tuning::threads, tuning::items, tuning::stages, tuning::min_blocks>(
          policy.stream, merges + first, static_cast<int>(group), comp);
    } else {
      using tuning = merge_keys_tuning<T>;
      launch_merge_batch<tuning::threads, tuning::items>(policy.stream, merges + first, static_cast<int>(group), comp);
    }
  }
}

template <class T, class Compare>
std::size_t cuda_merge_path_partition(const cuda& policy, const T* d_a, std::size_t na, const T* d_b, std::size_t nb,
                                      std::size_t piece, std::size_t* d_splits, Compare comp) {
  using namespace cuda_detail;
  if (na > SIZE_MAX - nb) throw std::invalid_argument("ssum::merge_path_partition: na + nb overflows");
  merge_path_pieces(na + nb, piece);  // refuses piece 0
  const std::size_t pieces = na + nb == 0 ? 0 : merge_tiles_for(na + nb, piece);  // refuses too many
  require((na == 0 || d_a) && (nb == 0 || d_b) && d_splits, "merge_path_partition");
  device_scope on(policy.device);
  launch_merge_partition(policy.stream, d_a, na, load_at<T>{d_b}, nb, piece, pieces, d_splits, comp);
  return pieces;
}

namespace {

/// The pair-sum walk with pair_sum_bulk_tuning's tiles on the policy's device and stream.
template <bool Find, class T>
cuda_detail::pair_sum_state pair_sum_run(const cuda& policy, const T* d_a, std::size_t na, const T* d_b,
                                         std::size_t nb, T t) {
  using tuning = cuda_detail::pair_sum_bulk_tuning<T>;
  cuda_detail::device_scope on(policy.device);
  return cuda_detail::launch_pair_sums_bulk<tuning::threads, tuning::items, tuning::stages, tuning::min_blocks, Find>(
      policy.stream, d_a, na, d_b, nb, &t, 1);
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
  using tuning = pair_sum_bulk_tuning<T>;
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
    const pair_sum_state s =
        launch_pair_sums_bulk<tuning::threads, tuning::items, tuning::stages, tuning::min_blocks, true>(
            policy.stream, d_a, na, d_b, nb, ts + first, count);
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

// The combinations merge.hpp promises.
#define SSUM_MERGE_KEYS(T, C)                                                                                       \
  template void cuda_merge<T, C>(const cuda&, const T*, std::size_t, const T*, std::size_t, T*, C);                 \
  template void cuda_merge_generated<T, plus_constant<T>, C>(const cuda&, const T*, std::size_t, plus_constant<T>,  \
                                                             std::size_t, T*, C);                                   \
  template void cuda_merge_generated<T, minus_reversed<T>, C>(const cuda&, const T*, std::size_t, minus_reversed<T>, \
                                                              std::size_t, T*, C);                                  \
  template void cuda_merge_generated_batch<T, plus_constant<T>, C>(const cuda&,                                  \
                                                                   const generated_merge<T, plus_constant<T>>*,     \
                                                                   std::size_t, C);                                 \
  template std::size_t cuda_merge_path_partition<T, C>(const cuda&, const T*, std::size_t, const T*, std::size_t,   \
                                                        std::size_t, std::size_t*, C);                             \
  template void cuda_merge_by_key<T, std::uint32_t, C>(const cuda&, const T*, const std::uint32_t*, std::size_t,    \
                                                       const T*, const std::uint32_t*, std::size_t, T*,             \
                                                       std::uint32_t*, C);                                          \
  template void cuda_merge_by_key<T, std::uint64_t, C>(const cuda&, const T*, const std::uint64_t*, std::size_t,    \
                                                       const T*, const std::uint64_t*, std::size_t, T*,             \
                                                       std::uint64_t*, C);
#define SSUM_MERGE_TYPE(T) SSUM_MERGE_KEYS(T, less) SSUM_MERGE_KEYS(T, greater)
SSUM_FOR_EACH_CUDA_KEY(SSUM_MERGE_TYPE)
#define SSUM_PAIR_SUMS(T)                                                                                           \
  template pair_match cuda_find_pair_sum<T>(const cuda&, const T*, std::size_t, const T*, std::size_t, T);         \
  template std::uint64_t cuda_count_pair_sums<T>(const cuda&, const T*, std::size_t, const T*, std::size_t, T);   \
  template any_pair_match cuda_find_any_pair_sum<T>(const cuda&, const T*, std::size_t, const T*, std::size_t,     \
                                                    const T*, std::size_t);
SSUM_FOR_EACH_CUDA_INTEGER_KEY(SSUM_PAIR_SUMS)
#undef SSUM_PAIR_SUMS
#undef SSUM_MERGE_TYPE
#undef SSUM_MERGE_KEYS

}  // namespace ssum::detail

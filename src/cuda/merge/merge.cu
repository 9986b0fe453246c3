// The CUDA merges' host entry points (merge.hpp): argument checks, the launches of
// merge_launch.cuh on the policy's device and stream (scratch from the stream-ordered pool),
// and the instantiations merge.hpp promises. Merge path: Odeh et al. 2012; Green, McColl,
// Bader, "GPU Merge Path", ICS 2012.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "cuda/merge/merge_launch.cuh"
#include "cuda/merge/merge_partition.cuh"
#include "ssum/merge.hpp"

namespace ssum::detail {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("ssum::cuda ") + what + ": null device pointer");
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
  launch_merge_by_key(policy.stream, d_a_keys, d_a_values, na, d_b_keys, d_b_values, nb, d_out_keys, d_out_values,
                      comp);
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
    launch_keys_merge_batch(policy.stream, merges + first, static_cast<int>(group), comp);
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
#undef SSUM_MERGE_TYPE
#undef SSUM_MERGE_KEYS

// The two-list's 128-bit sums: key-only merges, ascending (merge.hpp).
template void cuda_merge<uint128, less>(const cuda&, const uint128*, std::size_t, const uint128*, std::size_t,
                                        uint128*, less);
template void cuda_merge_generated<uint128, plus_constant<uint128>, less>(const cuda&, const uint128*, std::size_t,
                                                                          plus_constant<uint128>, std::size_t,
                                                                          uint128*, less);
template void cuda_merge_generated<uint128, minus_reversed<uint128>, less>(const cuda&, const uint128*, std::size_t,
                                                                           minus_reversed<uint128>, std::size_t,
                                                                           uint128*, less);
template void cuda_merge_generated_batch<uint128, plus_constant<uint128>, less>(
    const cuda&, const generated_merge<uint128, plus_constant<uint128>>*, std::size_t, less);
template std::size_t cuda_merge_path_partition<uint128, less>(const cuda&, const uint128*, std::size_t,
                                                              const uint128*, std::size_t, std::size_t,
                                                              std::size_t*, less);

}  // namespace ssum::detail

// One block builds the first levels of the two-list's generation in shared memory
// (first_subset_sums.cuh). Level k + 1 = merge(L, L + w) of level k, placed by ranking
// rather than by merge path: every element of L knows its output place from one binary
// search in the other input (ties put L's element first, as the stable merge of the later
// levels), so a level is one parallel step and one barrier. Sums of 64 bits, or of 128 where
// the total passes 2^64 (one level fewer: first_subset_sums.cuh).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/common/check.cuh"
#include "solver/two_list/first_subset_sums.cuh"

namespace ssum::cuda_detail {

namespace {

constexpr int first_sums_threads = 1024;

/// Up to Items weights of Sum, by value (a kernel parameter).
template <class Sum, std::size_t Items>
struct first_weights {
  Sum w[Items];
  int count;
};

/// The number of s[0, n) below v (strictly, or at most v when OrEqual), s ascending.
template <bool OrEqual, class Sum>
__device__ int rank_in(const Sum* s, int n, Sum v) {
  int lo = 0;
  while (n > 0) {
    const int half = n / 2;
    const bool right = OrEqual ? s[lo + half] <= v : s[lo + half] < v;
    lo = right ? lo + half + 1 : lo;
    n = right ? n - half - 1 : half;
  }
  return lo;
}

template <class Sum, std::size_t Items>
__global__ void __launch_bounds__(first_sums_threads) first_subset_sums(first_weights<Sum, Items> fw, Sum* out) {
  constexpr int capacity = 1 << Items;
  static_assert(capacity / 2 <= first_sums_threads, "one input element per thread and level");
  static_assert(2 * capacity * sizeof(Sum) <= 48 * 1024, "two levels in static shared memory");
  __shared__ Sum buf[2][capacity];
  const int x = threadIdx.x;
  if (x == 0) buf[0][0] = 0;  // the empty subset
  __syncthreads();
  int size = 1, cur = 0;
  for (int m = 0; m < fw.count; ++m) {
    const Sum w = fw.w[m];
    const Sum* in = buf[cur];
    Sum* next = buf[cur ^ 1];
    if (x < size) {
      const Sum a = in[x], b = a + w;  // no overflow: the weights' sum fits Sum
      // a's place: x, plus the in[j] + w < a (in[j] < a - w, none when a <= w); b's: x, plus
      // the in[i] <= b.
      next[x + (a > w ? rank_in<false>(in, size, Sum(a - w)) : 0)] = a;
      next[x + rank_in<true>(in, size, b)] = b;
    }
    __syncthreads();
    cur ^= 1;
    size *= 2;
  }
  for (int k = x; k < size; k += first_sums_threads) out[k] = buf[cur][k];
}

template <class Sum>
void launch_first_sums(const Sum* w, std::size_t m, Sum* out, cudaStream_t stream) {
  constexpr std::size_t items = first_subset_sums_items_for<Sum>();
  if (m > items) {
    throw std::invalid_argument("ssum::cuda first subset sums: more than " + std::to_string(items) + " weights");
  }
  first_weights<Sum, items> fw{};
  for (std::size_t k = 0; k < m; ++k) fw.w[k] = w[k];
  fw.count = static_cast<int>(m);
  first_subset_sums<Sum, items><<<1, first_sums_threads, 0, stream>>>(fw, out);
  SSUM_CUDA_CHECK_LAUNCH("first_subset_sums");
}

}  // namespace

void launch_first_subset_sums(const std::uint64_t* w, std::size_t m, std::uint64_t* out, cudaStream_t stream) {
  launch_first_sums(w, m, out, stream);
}

void launch_first_subset_sums(const uint128* w, std::size_t m, uint128* out, cudaStream_t stream) {
  launch_first_sums(w, m, out, stream);
}

}  // namespace ssum::cuda_detail

// One block builds the first levels of the two-list's generation in shared memory
// (first_subset_sums.cuh). Level k + 1 = merge(L, L + w) of level k, placed by ranking
// rather than by merge path: every element of L knows its output place from one binary
// search in the other input (ties put L's element first, as the stable merge of the later
// levels), so a level is one parallel step and one barrier.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "cuda/common/check.cuh"
#include "solver/two_list/first_subset_sums.cuh"

namespace ssum::cuda_detail {

namespace {

constexpr int first_sums_threads = 1024;
constexpr int first_sums_capacity = 1 << first_subset_sums_max_items;
static_assert(first_sums_capacity / 2 <= first_sums_threads, "one input element per thread and level");

struct first_weights {
  std::uint64_t w[first_subset_sums_max_items];
  int count;
};

/// The number of s[0, n) below v (strictly, or at most v when OrEqual), s ascending.
template <bool OrEqual>
__device__ int rank_in(const std::uint64_t* s, int n, std::uint64_t v) {
  int lo = 0;
  while (n > 0) {
    const int half = n / 2;
    const bool right = OrEqual ? s[lo + half] <= v : s[lo + half] < v;
    lo = right ? lo + half + 1 : lo;
    n = right ? n - half - 1 : half;
  }
  return lo;
}

__global__ void __launch_bounds__(first_sums_threads) first_subset_sums(first_weights fw, std::uint64_t* out) {
  __shared__ std::uint64_t buf[2][first_sums_capacity];
  const int x = threadIdx.x;
  if (x == 0) buf[0][0] = 0;  // the empty subset
  __syncthreads();
  int size = 1, cur = 0;
  for (int m = 0; m < fw.count; ++m) {
    const std::uint64_t w = fw.w[m];
    const std::uint64_t* in = buf[cur];
    std::uint64_t* next = buf[cur ^ 1];
    if (x < size) {
      const std::uint64_t a = in[x], b = a + w;  // no overflow: the weights' sum fits
      // a's place: x, plus the in[j] + w < a (in[j] < a - w, none when a <= w); b's: x, plus
      // the in[i] <= b.
      next[x + (a > w ? rank_in<false>(in, size, a - w) : 0)] = a;
      next[x + rank_in<true>(in, size, b)] = b;
    }
    __syncthreads();
    cur ^= 1;
    size *= 2;
  }
  for (int k = x; k < size; k += first_sums_threads) out[k] = buf[cur][k];
}

}  // namespace

void launch_first_subset_sums(const std::uint64_t* w, std::size_t m, std::uint64_t* out, cudaStream_t stream) {
  if (m > first_subset_sums_max_items) throw std::invalid_argument("ssum::cuda first subset sums: more than 11 weights");
  first_weights fw{};
  for (std::size_t k = 0; k < m; ++k) fw.w[k] = w[k];
  fw.count = static_cast<int>(m);
  first_subset_sums<<<1, first_sums_threads, 0, stream>>>(fw, out);
  SSUM_CUDA_CHECK_LAUNCH("first_subset_sums");
}

}  // namespace ssum::cuda_detail

// The meet in the middle's listing on a CUDA device (enumerate_cuda.hpp; Horowitz and Sahni
// 1974, the list generation and the search for pairs in the GPU form of Wan, Li, Liu, Li,
// CCPE 27:119-145, 2015). Each half's 2^c sums are formed one thread per mask and sorted with
// CUB's radix sort (stable: equal sums keep ascending masks, the host enumerator's order), on
// keys offset by the half's least sum so that only the bits the sums span are sorted. Every
// sum a of the first half gets the run of second-half sums that complete it into the window,
// found by binary searches confined to the block's own stretch of the second list (the runs
// move down as a grows); a scan of the run lengths numbers the pairs, and each batch of pair
// numbers is turned back into (mask of a, mask of b) one thread per pair, again searching only
// the block's stretch. Batches are copied to pinned host memory while the next is formed.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <string>

#include "cuda/common/check.cuh"
#include "cuda/common/device_buffer.cuh"
#include "solver/two_list/enumerate_cuda.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/scan.hpp"

namespace ssum::detail {
namespace {

constexpr unsigned block_threads = 256;
constexpr std::size_t most_half_items = 30;  // 2^30 sums a half: the runs' starts are 32-bit
constexpr std::uint64_t poll_every = 4096;

struct half_weights {
  std::int64_t w[32];
  unsigned count;
  std::int64_t least;  // the sum of the half's negative weights: keys are sum - least
};

// keys[m] = (sum of the weights of mask m) - least, masks[m] = m.
__global__ void form_half_sums(half_weights h, std::uint64_t size, std::uint64_t* keys, std::uint32_t* masks) {
  for (std::uint64_t m = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; m < size;
       m += std::uint64_t(gridDim.x) * blockDim.x) {
    std::int64_t s = 0;
    for (unsigned k = 0; k < h.count; ++k)
      if (m >> k & 1) s += h.w[k];
    keys[m] = std::uint64_t(s - h.least);
    masks[m] = std::uint32_t(m);
  }
}

// The first index in [from, to) of sorted keys with keys[j] >= t (to when none); t < 0 is 0.
__device__ std::uint64_t first_at_least(const std::uint64_t* keys, std::uint64_t from, std::uint64_t to,
                                        std::int64_t t) {
  if (t <= 0) return from;
  const std::uint64_t u = std::uint64_t(t);
  while (from < to) {
    const std::uint64_t mid = from + (to - from) / 2;
    if (keys[mid] < u) from = mid + 1;
    else to = mid;
  }
  return from;
}

// What the second list's run of a pairs with: b - least_b in [a_low - a, a_high - a] with
// a = key_a + least_a, both bounds as int64 (the window was clipped to the reachable sums).
struct window_keys {
  std::int64_t low, high;  // lo - least_a - least_b, hi - least_a - least_b
};

__device__ void run_of(const std::uint64_t* b_keys, std::uint64_t from, std::uint64_t to, std::uint64_t a_key,
                       window_keys w, std::uint64_t& start, std::uint64_t& end) {
  const std::int64_t a = std::int64_t(a_key);
  start = first_at_least(b_keys, from, to, w.low - a);
  // The first key above high - a is the first at least high - a + 1 (none above 2^63 - 1).
  const std::int64_t top = w.high - a;
  end = top < 0 ? from : top == INT64_MAX ? to : first_at_least(b_keys, from, to, top + 1);
  if (end < start) end = start;
}

// For each a (one thread each): the start of its run in B and its length. Threads 0 and 1
// first find the runs of the block's first and last a over the whole of B; every run of the
// block lies between them.
__global__ void find_runs(const std::uint64_t* a_keys, std::uint64_t na, const std::uint64_t* b_keys,
                          std::uint64_t nb, window_keys w, std::uint32_t* starts, std::uint64_t* lengths) {
  __shared__ std::uint64_t edge[4];  // first a's start and end, last a's start and end
  const std::uint64_t first = blockIdx.x * std::uint64_t(block_threads);
  const std::uint64_t last = std::min(first + block_threads, na) - 1;
  if (threadIdx.x < 2) {
    const std::uint64_t i = threadIdx.x == 0 ? first : last;
    run_of(b_keys, 0, nb, a_keys[i], w, edge[2 * threadIdx.x], edge[2 * threadIdx.x + 1]);
  }
  __syncthreads();
  const std::uint64_t i = first + threadIdx.x;
  if (i > last) return;
  // Larger a, smaller b: the last a's run starts lowest, the first a's ends highest.
  std::uint64_t start, end;
  run_of(b_keys, edge[2], edge[1], a_keys[i], w, start, end);
  starts[i] = std::uint32_t(start);
  lengths[i] = end - start;
}

// The first index in [from, to) with ends[i] > p (ends ascending).
__device__ std::uint64_t first_ending_after(const std::uint64_t* ends, std::uint64_t from, std::uint64_t to,
                                            std::uint64_t p) {
  while (from < to) {
    const std::uint64_t mid = from + (to - from) / 2;
    if (ends[mid] <= p) from = mid + 1;
    else to = mid;
  }
  return from;
}

// Pairs [p0, p0 + count) of the numbering the running ends (inclusive scan of the run
// lengths) define, as mask_a | mask_b << 32.
__global__ void form_pairs(const std::uint64_t* ends, std::uint64_t na, const std::uint32_t* starts,
                           const std::uint32_t* a_masks, const std::uint32_t* b_masks, std::uint64_t p0,
                           std::uint64_t count, std::uint64_t* out) {
  __shared__ std::uint64_t edge[2];
  const std::uint64_t first = blockIdx.x * std::uint64_t(block_threads);
  const std::uint64_t last = std::min(first + block_threads, count) - 1;
  if (threadIdx.x < 2) edge[threadIdx.x] = first_ending_after(ends, 0, na, p0 + (threadIdx.x == 0 ? first : last));
  __syncthreads();
  const std::uint64_t k = first + threadIdx.x;
  if (k > last) return;
  const std::uint64_t p = p0 + k;
  const std::uint64_t i = first_ending_after(ends, edge[0], edge[1] + 1, p);
  const std::uint64_t begin = i ? ends[i - 1] : 0;
  const std::uint64_t j = starts[i] + (p - begin);
  out[k] = std::uint64_t(a_masks[i]) | std::uint64_t(b_masks[j]) << 32;
}

unsigned grid_for(std::uint64_t threads) {
  return unsigned(std::min<std::uint64_t>((threads + block_threads - 1) / block_threads, 1u << 30));
}

// One half, sorted: keys and masks (in the buffers `sorted` names after the sort).
struct sorted_half {
  std::uint64_t* keys = nullptr;
  std::uint32_t* masks = nullptr;
  std::uint64_t size = 0;
};

// Forms and sorts the half of `count` items starting at `first`. `own` holds 12 bytes a sum;
// `spare` the same, for the sort's second buffers: the result ends in one or the other.
sorted_half form_sorted_half(const std::vector<int128>& weights, std::size_t first, std::size_t count, void* own,
                             void* spare, cudaStream_t stream, std::int64_t& least) {
  half_weights h{};
  h.count = unsigned(count);
  std::uint64_t range = 0;
  for (std::size_t k = 0; k < count; ++k) {
    h.w[k] = std::int64_t(weights[first + k]);
    if (h.w[k] < 0) h.least += h.w[k];
    range += h.w[k] < 0 ? std::uint64_t(-h.w[k]) : std::uint64_t(h.w[k]);
  }
  least = h.least;
  const std::uint64_t size = std::uint64_t(1) << count;
  auto* keys = static_cast<std::uint64_t*>(own);
  auto* masks = reinterpret_cast<std::uint32_t*>(keys + size);
  auto* keys2 = static_cast<std::uint64_t*>(spare);
  auto* masks2 = reinterpret_cast<std::uint32_t*>(keys2 + size);
  form_half_sums<<<grid_for(size), block_threads, 0, stream>>>(h, size, keys, masks);
  SSUM_CUDA_CHECK_LAUNCH("form_half_sums");
  cub::DoubleBuffer<std::uint64_t> k(keys, keys2);
  cub::DoubleBuffer<std::uint32_t> v(masks, masks2);
  const int bits = std::max(1, int(std::bit_width(range)));  // keys lie in [0, range]
  std::size_t temp_bytes = 0;
  // CUB takes 32-bit counts fastest; a half holds at most 2^30 sums.
  SSUM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, int(size), 0, bits, stream));
  cuda_detail::device_buffer temp(std::max<std::size_t>(temp_bytes, 1), stream);
  SSUM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.as<void>(), temp_bytes, k, v, int(size), 0, bits, stream));
  return {k.Current(), v.Current(), size};
}

bool raised(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// Pinned host memory for one batch.
class pinned_batch {
 public:
  explicit pinned_batch(std::uint64_t pairs) { SSUM_CUDA_CHECK(cudaMallocHost(&data_, pairs * sizeof(std::uint64_t))); }
  ~pinned_batch() { cudaFreeHost(data_); }
  pinned_batch(const pinned_batch&) = delete;
  pinned_batch& operator=(const pinned_batch&) = delete;
  std::uint64_t* data() const { return data_; }

 private:
  std::uint64_t* data_ = nullptr;
};

class event {
 public:
  event() { SSUM_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~event() { cudaEventDestroy(e_); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// A stream of the listing's own, waited for before it goes (the pinned batches it copies into
// must outlive every copy).
class own_stream {
 public:
  own_stream() { SSUM_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~own_stream() {
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  own_stream(const own_stream&) = delete;
  own_stream& operator=(const own_stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace

std::string enumerate_cuda_refusal(const std::vector<int128>& weights) {
  if (weights.size() > 2 * most_half_items)
    return "the GPU listing takes at most " + std::to_string(2 * most_half_items) + " items";
  uint128 total = 0;
  for (const int128 w : weights) {
    total += magnitude(w);
    if (total >= (uint128(1) << 63)) return "the GPU listing takes weights whose absolute values add up to below 2^63";
  }
  return {};
}

double enumerate_cuda_bytes(std::size_t n) {
  const std::size_t h = n / 2;
  const double a = std::ldexp(1.0, int(h)), b = std::ldexp(1.0, int(n - h));
  // Sums and masks of both halves (12 bytes a sum), and a third region as large as the larger
  // half: the sort's second buffers, then the first half's starts (4 bytes) and ends (8).
  return 12 * (a + b) + 12 * std::max(a, b) + (std::uint64_t(2) << 24) * sizeof(std::uint64_t);
}

enumerate_result enumerate_pairs_cuda(int device, const enumerate_request& r, std::uint64_t stretch,
                                      const pair_sink& sink, const enumerate_cuda_tuning& tuning) {
  if (!r.weights) throw std::invalid_argument("enumerate_subsets_cuda: no weights");
  stretch = std::max<std::uint64_t>(stretch, 1);
  const std::vector<int128>& weights = *r.weights;
  const std::size_t n = weights.size();
  if (const std::string why = enumerate_cuda_refusal(weights); !why.empty()) throw instance_refused(why);
  enumerate_result result;
  int128 least = 0, most = 0;
  for (const int128 w : weights) (w < 0 ? least : most) += w;
  const int128 lo = std::max(r.lo, least), hi = std::min(r.hi, most);
  if (lo > hi || r.min_items > r.max_items || r.min_items > n) {
    result.complete = true;
    return result;
  }
  if (raised(r.cancel)) {
    result.cancelled = true;
    return result;
  }
  cuda_detail::device_scope on(device);
  const double bytes = enumerate_cuda_bytes(n);
  std::size_t free_bytes = 0, total_bytes = 0;
  SSUM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > 0.95 * double(free_bytes) && cuda_memory_kept() > 0) {
    release_cuda_memory();  // the solvers' kept allocation: the listing needs the room now
    SSUM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  }
  if (bytes > 0.95 * double(free_bytes))
    throw insufficient_memory::needs("listing the subsets of n = " + std::to_string(n) + " items on the GPU", bytes,
                                     0.95 * double(free_bytes));

  const std::size_t h = n / 2;
  const std::uint64_t na = std::uint64_t(1) << h, nb = std::uint64_t(1) << (n - h);
  own_stream stream;
  // Three regions of 12 bytes a sum: A's, B's (the larger half, nb >= na) and a third as large
  // as B's. B is sorted first, its second buffers in the third region; A then sorts with the
  // one of those two that B does not occupy; what is left free (that one, or A's own region
  // when A's sort ended there) holds A's run starts and ends, 12 bytes a sum of A.
  cuda_detail::device_buffer a_region(12 * na, stream.get()), b_region(12 * nb, stream.get()),
      third(12 * nb, stream.get());
  std::int64_t least_a = 0, least_b = 0;
  const sorted_half b = form_sorted_half(weights, h, n - h, b_region.as<void>(), third.as<void>(), stream.get(), least_b);
  void* const spare = b.keys == b_region.as<std::uint64_t>() ? third.as<void>() : b_region.as<void>();
  const sorted_half a = form_sorted_half(weights, 0, h, a_region.as<void>(), spare, stream.get(), least_a);
  void* const free_region = a.keys == a_region.as<std::uint64_t>() ? spare : a_region.as<void>();
  auto* ends = static_cast<std::uint64_t*>(free_region);
  auto* starts = reinterpret_cast<std::uint32_t*>(ends + na);
  window_keys w{};
  // lo and hi lie within [least, most]: every difference below fits int64 (|w| sum below 2^63).
  w.low = std::int64_t(lo - least_a - least_b);
  w.high = std::int64_t(hi - least_a - least_b);
  find_runs<<<grid_for(na), block_threads, 0, stream.get()>>>(a.keys, na, b.keys, nb, w, starts, ends);
  SSUM_CUDA_CHECK_LAUNCH("find_runs");
  inclusive_scan(cuda{stream.get(), device}, ends, ends, std::size_t(na), plus{});
  std::uint64_t pairs = 0;
  SSUM_CUDA_CHECK(cudaMemcpyAsync(&pairs, ends + na - 1, sizeof pairs, cudaMemcpyDeviceToHost, stream.get()));
  SSUM_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  if (raised(r.cancel)) {
    result.cancelled = true;
    return result;
  }

  // Batches: two device and two pinned host buffers, the next formed while this one is listed.
  const std::uint64_t largest = std::max<std::uint64_t>(1, std::min(tuning.largest_batch, pairs));
  cuda_detail::device_buffer device_batches(2 * largest * sizeof(std::uint64_t), stream.get());
  pinned_batch host_batch[2] = {pinned_batch(largest), pinned_batch(largest)};
  event copied[2];
  // Leaving early (a limit, a cancel, an error) waits for the copies in flight before the
  // pinned buffers go.
  struct drain_on_exit {
    cudaStream_t s;
    ~drain_on_exit() { cudaStreamSynchronize(s); }
  } drain{stream.get()};
  std::uint64_t issued_to = 0, size = std::max<std::uint64_t>(1, std::min(tuning.first_batch, largest));
  std::uint64_t batch_size[2] = {0, 0};
  const auto issue = [&](int slot) {
    const std::uint64_t count = std::min(size, pairs - issued_to);
    std::uint64_t* out = device_batches.as<std::uint64_t>() + slot * largest;
    form_pairs<<<grid_for(count), block_threads, 0, stream.get()>>>(ends, na, starts, a.masks, b.masks, issued_to,
                                                                    count, out);
    SSUM_CUDA_CHECK_LAUNCH("form_pairs");
    SSUM_CUDA_CHECK(cudaMemcpyAsync(host_batch[slot].data(), out, count * sizeof(std::uint64_t),
                                    cudaMemcpyDeviceToHost, stream.get()));
    SSUM_CUDA_CHECK(cudaEventRecord(copied[slot].get(), stream.get()));
    batch_size[slot] = count;
    issued_to += count;
    size = std::min(2 * size, largest);
  };

  // Each batch is gone through a stretch at a time: cancel polled, the pairs outside the size
  // bounds (or the empty one) dropped in place, the rest cut at the limit and handed on.
  const std::size_t max_items = std::min(r.max_items, n);
  bool looking_past_limit = false;
  int slot = 0;
  if (pairs > 0) issue(0);
  while (batch_size[slot] > 0) {
    if (issued_to < pairs) issue(1 - slot);  // formed and copied while this batch is listed
    SSUM_CUDA_CHECK(cudaEventSynchronize(copied[slot].get()));
    std::uint64_t* batch = host_batch[slot].data();
    for (std::uint64_t from = 0; from < batch_size[slot]; from += stretch) {
      if (raised(r.cancel)) {
        result.cancelled = true;
        return result;
      }
      std::uint64_t* const piece = batch + from;
      const std::uint64_t length = std::min(stretch, batch_size[slot] - from);
      std::uint64_t kept = 0;
      for (std::uint64_t k = 0; k < length; ++k) {
        const std::uint64_t pair = piece[k];
        const std::size_t items = std::size_t(std::popcount(pair));  // mask_a's and mask_b's together
        if (items < r.min_items || items > max_items || (r.non_empty && pair == 0)) continue;
        piece[kept++] = pair;
      }
      if (kept == 0) continue;
      if (looking_past_limit) return result;  // another exists: complete stays false
      std::uint64_t take = kept;
      if (r.limit) take = std::min(take, r.limit - result.listed);
      const pairs_handed answer = sink(std::span<std::uint64_t>(piece, take));
      result.listed += answer.handed;
      if (!answer.go_on || answer.handed < take) return result;
      if (take < kept) return result;  // the limit is reached and another exists
      if (r.limit && result.listed == r.limit) looking_past_limit = true;
    }
    batch_size[slot] = 0;
    slot = 1 - slot;
  }
  result.complete = true;
  return result;
}

enumerate_result enumerate_subsets_cuda(int device, const enumerate_request& r,
                                        const std::function<bool(const std::vector<std::size_t>&)>& on_subset,
                                        const enumerate_cuda_tuning& tuning) {
  const std::size_t h = r.weights ? r.weights->size() / 2 : 0;
  std::vector<std::size_t> items;
  items.reserve(64);
  std::uint32_t prefix_mask = 0;  // the a whose items open `items`
  const auto each = [&](std::span<std::uint64_t> pairs) {
    pairs_handed answer;
    for (const std::uint64_t pair : pairs) {
      const std::uint32_t mask_a = std::uint32_t(pair), mask_b = std::uint32_t(pair >> 32);
      const std::size_t a_items = std::size_t(std::popcount(mask_a));
      if (mask_a != prefix_mask || items.size() < a_items) {  // a's items, once per run of its pairs
        items.clear();
        for (std::uint32_t m = mask_a; m; m &= m - 1) items.push_back(std::size_t(std::countr_zero(m)));
        prefix_mask = mask_a;
      }
      items.resize(a_items);
      for (std::uint32_t m = mask_b; m; m &= m - 1) items.push_back(h + std::size_t(std::countr_zero(m)));
      ++answer.handed;
      if (!on_subset(items)) return answer.go_on = false, answer;
    }
    return answer;
  };
  // Stretches of poll_every pairs: cancel answered as often as before the pairs were batched.
  return enumerate_pairs_cuda(device, r, poll_every, each, tuning);
}

}  // namespace ssum::detail

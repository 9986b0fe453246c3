// Streams every subset in a window by meet in the middle (Horowitz and Sahni 1974): items
// [0, h) form half A and [h, n) half B; each half's 2^(n/2) subset sums are built sorted,
// each with its mask, and for every a in A (ascending) the b in B with lo <= a + b <= hi are a
// contiguous range of B that moves down as a grows, so two pointers find every range in
// O(|A| + |B|) steps plus one step per pair listed.
//
// Under a size bound m below the larger half's item count, a half's subset of more than m
// items can never be part of an answer, so each half keeps only its subsets of at most m
// items, in one sorted block per size: sum_{k <= m} C(h, k) entries instead of 2^h, which takes
// `--items 5` at n = 60 from 32 GiB to a few MB. The join then walks A in ascending order by
// merging its size blocks and keeps two pointers per block of B, visiting only the blocks whose
// size completes a's size into [min_items, max_items].
#include "solver/two_list/enumerate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <exception>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "ssum/detail/cpu_team.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

// 64-bit sums while every subset sum fits (16-byte entries), 128-bit beyond (32 bytes).
template <class Sum>
struct entry {
  Sum sum;
  std::uint32_t mask;  // bit i: item i of the half
};

constexpr std::uint64_t poll_every = 4096;

bool raised(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// dst[0, i] (sorted) merged with src[0, j] + w (their masks | bit) into dst[0, i + j + 1], from
// the back: the write position stays above both read positions, so src may be dst itself and
// no unread entry is overwritten. What is left of dst's own entries is already in place.
// Returns false when cancelled.
template <class Sum>
bool merge_shifted_from_back(entry<Sum>* dst, std::ptrdiff_t i, const entry<Sum>* src, std::ptrdiff_t j, Sum w,
                             std::uint32_t bit, std::uint64_t& steps, const std::atomic<bool>* cancel) {
  std::ptrdiff_t out = i + j + 1;
  while (j >= 0) {  // the shifted copy drains last only if dst's entries ran out first
    if (i >= 0 && dst[i].sum > src[j].sum + w) {
      dst[out--] = dst[i--];
    } else {
      dst[out--] = entry<Sum>{static_cast<Sum>(src[j].sum + w), src[j].mask | bit};
      --j;
    }
    if (++steps % poll_every == 0 && raised(cancel)) return false;
  }
  return true;
}

// The subset sums of `w` (at most 32 items) in ascending order, with masks. For each item the
// list L becomes merge(L, L + w), merged from the back in place: the write position i + j + 1
// of the merge stays above both read positions i and j, so no unread sum is overwritten and the
// list needs no second buffer. Signed w is fine: L + w is L shifted, still sorted. Returns
// false when cancelled.
template <class Sum>
bool build_half(const std::vector<int128>& weights, std::size_t first, std::size_t count,
                std::vector<entry<Sum>>& list, const std::atomic<bool>* cancel) {
  list.assign(std::size_t(1) << count, entry<Sum>{0, 0});
  std::size_t size = 1;
  std::uint64_t steps = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const Sum w = static_cast<Sum>(weights[first + k]);
    const std::uint32_t bit = std::uint32_t(1) << k;
    const std::ptrdiff_t last = std::ptrdiff_t(size) - 1;
    if (!merge_shifted_from_back(list.data(), last, list.data(), last, w, bit, steps, cancel)) return false;
    size *= 2;
  }
  return true;
}

// C(n, k), exact for the n <= 32 of a half.
std::size_t binomial(std::size_t n, std::size_t k) {
  if (k > n) return 0;
  std::uint64_t c = 1;
  for (std::size_t j = 0; j < k; ++j) c = c * (n - j) / (j + 1);  // c * (n - j) stays below 2^63
  return std::size_t(c);
}

// The subsets of a half of `count` items with at most `top` items: block k (k <= top) holds the
// k-item subsets' sums, ascending, at [offset[k], offset[k + 1]) of `list`.
template <class Sum>
struct sized_half {
  std::vector<entry<Sum>> list;
  std::vector<std::size_t> offset;
  std::size_t top = 0;
  std::size_t begin(std::size_t k) const { return offset[k]; }
  std::size_t end(std::size_t k) const { return offset[k + 1]; }
};

// Builds the blocks item by item: adding w, block k becomes merge(block k, block k-1 + w),
// for k from the top down so block k-1 is still the old one. Each block is laid out at its
// final size C(count, k) and merged from the back in place (as build_half does), reading the
// shifted sums from the block below, which is separate storage: no second buffer, and never
// an entry of more than `top` items. Returns false when cancelled.
template <class Sum>
bool build_sized_half(const std::vector<int128>& weights, std::size_t first, std::size_t count, std::size_t top,
                      sized_half<Sum>& half, const std::atomic<bool>* cancel) {
  top = std::min(top, count);
  half.top = top;
  half.offset.assign(top + 2, 0);
  for (std::size_t k = 0; k <= top; ++k) half.offset[k + 1] = half.offset[k] + binomial(count, k);
  half.list.assign(half.offset[top + 1], entry<Sum>{0, 0});
  std::vector<std::size_t> filled(top + 1, 0);
  filled[0] = 1;  // the empty subset
  std::uint64_t steps = 0;
  for (std::size_t item = 0; item < count; ++item) {
    const Sum w = static_cast<Sum>(weights[first + item]);
    const std::uint32_t bit = std::uint32_t(1) << item;
    for (std::size_t k = std::min(top, item + 1); k >= 1; --k) {
      entry<Sum>* dst = half.list.data() + half.offset[k];
      const entry<Sum>* src = half.list.data() + half.offset[k - 1];
      if (!merge_shifted_from_back(dst, std::ptrdiff_t(filled[k]) - 1, src, std::ptrdiff_t(filled[k - 1]) - 1, w, bit,
                                   steps, cancel)) {
        return false;
      }
      filled[k] += filled[k - 1];  // C(item + 1, k) = C(item, k) + C(item, k - 1)
    }
  }
  return true;
}

// Appends the items of `mask` (offset by `base`) to `out`, ascending.
inline void append_items(std::uint32_t mask, std::size_t base, std::vector<std::size_t>& out) {
  while (mask) {
    out.push_back(base + std::size_t(std::countr_zero(mask)));
    mask &= mask - 1;
  }
}

// Runs build_a and build_b (each true unless cancelled) on a team of two where `threads`
// allows (cpu_team: one thread, or what OpenMP grants, builds them in turn, b only after a
// was built): the halves are independent, and at n >= 52 building them is most of a listing.
// An exception in either (bad_alloc) is thrown here once both have ended.
template <class BuildA, class BuildB>
bool build_halves(unsigned threads, BuildA&& build_a, BuildB&& build_b) {
  bool built[2] = {false, false};
  std::exception_ptr error[2];
  cpu_team(std::min(threads, 2u), [&](unsigned thread, unsigned team) {
    for (unsigned half = thread; half < 2; half += team) {
      if (team == 1 && half == 1 && !built[0]) return;  // a failed or was cancelled
      try {
        built[half] = half == 0 ? build_a() : build_b();
      } catch (...) {
        error[half] = std::current_exception();
      }
    }
  });
  for (const std::exception_ptr& e : error)
    if (e) std::rethrow_exception(e);
  return built[0] && built[1];
}

// The joins hand each pair to emit(a's mask, b's mask, a's item count), which answers whether
// the listing goes on: enumerate_subsets turns it into indices, enumerate_pairs packs it.
template <class Sum, class Emit>
enumerate_result join(const enumerate_request& r, std::size_t h, Emit&& emit) {
  const std::vector<int128>& weights = *r.weights;
  const std::size_t n = weights.size();
  enumerate_result result;
  std::vector<entry<Sum>> a_list, b_list;
  // Polled here too: small lists never reach poll_every steps.
  if (raised(r.cancel) ||
      !build_halves(r.threads, [&] { return build_half(weights, 0, h, a_list, r.cancel); },
                    [&] { return build_half(weights, h, n - h, b_list, r.cancel); }) ||
      raised(r.cancel)) {
    result.cancelled = true;
    return result;
  }
  const std::size_t max_items = std::min(r.max_items, n);
  bool looking_past_limit = false;  // the limit is reached: one more subset decides `complete`
  std::uint64_t steps = 0;
  // start: first b with a + b >= lo; end: first b with a + b > hi. Both only move down as a
  // grows. a + b is a subset sum of all n items, so it fits Sum; lo and hi are compared wide.
  std::size_t start = b_list.size(), end = b_list.size();
  for (const entry<Sum>& a : a_list) {
    while (start > 0 && int128(a.sum + b_list[start - 1].sum) >= r.lo) --start, ++steps;
    while (end > 0 && int128(a.sum + b_list[end - 1].sum) > r.hi) --end, ++steps;
    if (++steps >= poll_every) {
      steps = 0;
      if (raised(r.cancel)) {
        result.cancelled = true;
        return result;
      }
    }
    if (start >= end) continue;
    const std::size_t a_items = std::size_t(std::popcount(a.mask));
    if (a_items > max_items) continue;
    // The sizes b may have: min_items - a_items .. max_items - a_items.
    const std::size_t b_least = r.min_items > a_items ? r.min_items - a_items : 0;
    const std::size_t b_most = max_items - a_items;
    // Every b fits the bounds (the usual case: no sizes asked): no count of b's items.
    const bool any_b = b_least == 0 && b_most >= n - h;
    for (std::size_t k = start; k < end; ++k) {
      const entry<Sum>& b = b_list[k];
      const std::size_t b_items = any_b ? 0 : std::size_t(std::popcount(b.mask));
      if (++steps >= poll_every) {
        steps = 0;
        if (raised(r.cancel)) {
          result.cancelled = true;
          return result;
        }
      }
      if (b_items < b_least || b_items > b_most) continue;
      if (r.non_empty && a.mask == 0 && b.mask == 0) continue;
      if (looking_past_limit) return result;  // another exists: complete stays false
      ++result.listed;
      if (!emit(a.mask, b.mask, a_items)) return result;
      if (r.limit && result.listed == r.limit) looking_past_limit = true;
    }
  }
  result.complete = true;
  return result;
}

// The join under a size bound top = min(max_items, n) below the larger half: as join, with
// each half holding only its subsets of at most `top` items (build_sized_half). A is walked in
// ascending order of sum by merging its blocks (so the order of listing is join's); each block
// of B keeps its own two pointers, which only move down as a grows, whichever blocks a visits.
template <class Sum, class Emit>
enumerate_result join_sized(const enumerate_request& r, std::size_t h, std::size_t top, Emit&& emit) {
  const std::vector<int128>& weights = *r.weights;
  const std::size_t n = weights.size();
  enumerate_result result;
  sized_half<Sum> a_half, b_half;
  if (raised(r.cancel) ||
      !build_halves(r.threads, [&] { return build_sized_half(weights, 0, h, top, a_half, r.cancel); },
                    [&] { return build_sized_half(weights, h, n - h, top, b_half, r.cancel); }) ||
      raised(r.cancel)) {
    result.cancelled = true;
    return result;
  }
  const std::vector<entry<Sum>>& a_list = a_half.list;
  const std::vector<entry<Sum>>& b_list = b_half.list;
  // next[ka]: the next a of block ka; a block whose size no b can complete to min_items is
  // left out of the walk from the start.
  std::vector<std::size_t> next(a_half.top + 1);
  for (std::size_t ka = 0; ka <= a_half.top; ++ka)
    next[ka] = ka + b_half.top < r.min_items ? a_half.end(ka) : a_half.begin(ka);
  std::vector<std::size_t> start(b_half.top + 1), end(b_half.top + 1);
  for (std::size_t kb = 0; kb <= b_half.top; ++kb) start[kb] = end[kb] = b_half.end(kb);
  bool looking_past_limit = false;
  std::uint64_t steps = 0;
  for (;;) {
    std::size_t ka = SIZE_MAX;  // the block holding the smallest next a
    for (std::size_t k = 0; k <= a_half.top; ++k)
      if (next[k] < a_half.end(k) && (ka == SIZE_MAX || a_list[next[k]].sum < a_list[next[ka]].sum)) ka = k;
    if (ka == SIZE_MAX) break;
    const entry<Sum>& a = a_list[next[ka]++];
    steps += a_half.top + 1;
    if (steps >= poll_every) {
      steps = 0;
      if (raised(r.cancel)) {
        result.cancelled = true;
        return result;
      }
    }
    // The sizes b may have: min_items - ka .. top - ka, within B's blocks.
    const std::size_t b_least = r.min_items > ka ? r.min_items - ka : 0;
    const std::size_t b_most = std::min(top - ka, b_half.top);
    for (std::size_t kb = b_least; kb <= b_most; ++kb) {
      std::size_t& s = start[kb];
      std::size_t& e = end[kb];
      const std::size_t first = b_half.begin(kb);
      while (s > first && int128(a.sum + b_list[s - 1].sum) >= r.lo) --s, ++steps;
      while (e > first && int128(a.sum + b_list[e - 1].sum) > r.hi) --e, ++steps;
      if (r.non_empty && ka == 0 && kb == 0) continue;  // only the empty subset is there
      for (std::size_t k = s; k < e; ++k) {
        if (++steps >= poll_every) {
          steps = 0;
          if (raised(r.cancel)) {
            result.cancelled = true;
            return result;
          }
        }
        if (looking_past_limit) return result;  // another exists: complete stays false
        ++result.listed;
        if (!emit(a.mask, b_list[k].mask, ka)) return result;
        if (r.limit && result.listed == r.limit) looking_past_limit = true;
      }
    }
  }
  result.complete = true;
  return result;
}

// Sum of |w|, or throws when it reaches 2^127 (every subset sum then fits int128).
uint128 total_magnitude(const std::vector<int128>& weights) {
  const uint128 bound = uint128(1) << 127;
  uint128 total = 0;
  for (const int128 w : weights) {
    const uint128 m = magnitude(w);
    if (m >= bound || total >= bound - m)
      throw instance_refused("the weights' absolute values add up to 2^127 or more; the enumerator takes totals "
                                  "up to 2^127 - 1");
    total += m;
  }
  return total;
}

// The entries a half of `count` items keeps under the size bound: sum_{k <= top} C(count, k),
// which is 2^count once top >= count.
double half_entries(std::size_t count, std::size_t top) {
  if (top >= count) return std::ldexp(1.0, int(count));
  double entries = 0;
  for (std::size_t k = 0; k <= top; ++k) entries += double(binomial(count, k));
  return entries;
}

double list_bytes(std::size_t n, std::size_t max_items, double entry_bytes) {
  const std::size_t h = n / 2;
  return entry_bytes * (half_entries(h, max_items) + half_entries(n - h, max_items));
}

}  // namespace

double enumerate_planned_bytes(std::size_t n) { return list_bytes(n, SIZE_MAX, double(sizeof(entry<int128>))); }

double enumerate_list_bytes(const std::vector<int128>& weights, std::size_t max_items) {
  const bool narrow = total_magnitude(weights) < (uint128(1) << 63);
  return list_bytes(weights.size(), max_items, double(narrow ? sizeof(entry<std::int64_t>) : sizeof(entry<int128>)));
}

namespace {

// The checks both listings share, then `run(h, top, narrow)` with the split, the size bound and
// whether 64-bit sums hold every subset sum; an empty request is answered complete, unrun.
template <class Run>
enumerate_result checked_join(const enumerate_request& r, Run&& run) {
  if (!r.weights) throw std::invalid_argument("enumerate_subsets: no weights");
  const std::vector<int128>& weights = *r.weights;
  const std::size_t n = weights.size();
  if (n > enumerate_most_items)
    throw instance_refused("listing subsets takes at most " + std::to_string(enumerate_most_items) +
                                " items; this instance has " + std::to_string(n));
  const uint128 total = total_magnitude(weights);
  // Nothing to list: an empty window, or size bounds no subset meets. Complete, no list built.
  if (r.lo > r.hi || r.min_items > r.max_items || r.min_items > n) return {0, true, false};
  const double bytes = enumerate_list_bytes(weights, r.max_items);
  if (r.max_bytes > 0 && bytes > r.max_bytes)
    throw insufficient_memory::needs("listing subsets for n = " + std::to_string(n), bytes, r.max_bytes);
  return run(n / 2, std::min(r.max_items, n), total < (uint128(1) << 63));
}

// The join that fits the request: sized lists when the bound drops subsets of the larger half
// (n - h >= h), else whole ones; 64-bit sums where they hold every subset sum.
template <class Emit>
enumerate_result any_join(const enumerate_request& r, std::size_t h, std::size_t top, bool narrow, Emit&& emit) {
  if (top < r.weights->size() - h)
    return narrow ? join_sized<std::int64_t>(r, h, top, emit) : join_sized<int128>(r, h, top, emit);
  return narrow ? join<std::int64_t>(r, h, emit) : join<int128>(r, h, emit);
}

}  // namespace

enumerate_result enumerate_subsets(const enumerate_request& r,
                                   const std::function<bool(const std::vector<std::size_t>&)>& on_subset) {
  return checked_join(r, [&](std::size_t h, std::size_t top, bool narrow) {
    std::vector<std::size_t> items;
    items.reserve(r.weights->size());
    bool have_prefix = false;
    std::uint32_t prefix = 0;  // the a whose items items[0, a_items) hold
    const auto emit = [&](std::uint32_t a_mask, std::uint32_t b_mask, std::size_t a_items) {
      if (!have_prefix || a_mask != prefix) {  // A's items, once per a that has partners
        items.clear();
        append_items(a_mask, 0, items);
        prefix = a_mask;
        have_prefix = true;
      }
      items.resize(a_items);
      append_items(b_mask, h, items);
      return on_subset(items);
    };
    return any_join(r, h, top, narrow, emit);
  });
}

enumerate_result enumerate_pairs(const enumerate_request& r, std::uint64_t stretch, const pair_sink& sink) {
  return checked_join(r, [&](std::size_t h, std::size_t top, bool narrow) {
    const std::size_t most = std::size_t(std::max<std::uint64_t>(1, stretch));
    std::vector<std::uint64_t> pairs;
    pairs.reserve(most);
    std::uint64_t handed = 0;
    bool go_on = true;
    const auto hand = [&] {
      if (pairs.empty()) return;
      const pairs_handed out = sink(std::span<std::uint64_t>(pairs));
      handed += out.handed;
      go_on = out.go_on;
      pairs.clear();
    };
    const auto emit = [&](std::uint32_t a_mask, std::uint32_t b_mask, std::size_t) {
      pairs.push_back(std::uint64_t(a_mask) | std::uint64_t(b_mask) << 32);
      if (pairs.size() == most) hand();
      return go_on;
    };
    enumerate_result result = any_join(r, h, top, narrow, emit);
    // What is buffered goes out however the join ended (the limit, a cancel, the end): those
    // subsets are found, and a stop loses none of them.
    if (go_on) hand();
    result.listed = handed;
    if (!go_on) result.complete = false;
    return result;
  });
}

}  // namespace ssum::detail

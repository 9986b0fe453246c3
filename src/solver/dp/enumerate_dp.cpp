// Streams every subset in a window by dynamic programming over subset sums (Bellman 1957)
// and backtracking through the table.
//
// Forward: row i of the table is the bitset of sums reachable by a subset of items 0..i-1,
// row 0 = {0}, row i+1 = row i | (row i shifted by w_i), built 64 bits a word (a negative
// weight shifts toward lower sums). Under size bounds each row holds one bitset per size k:
// row i+1 size k = row i size k | (row i size k-1 shifted by w_i).
//
// Only sums in [max(neg, lo - pos), min(pos, hi - neg)] are kept (neg, pos: the sums of the
// negative and positive weights): a prefix of a subset whose sum lands in [lo, hi] is that sum
// minus the sum of some later items, so it lies there too. A bit of the clipped table is set
// exactly when some prefix subset reaches it without leaving the range, which is all the walk
// below needs.
//
// Backward: from every set bit of the last row in the window (and size in the bounds), walk
// items n-1 down to 0; at item i with remaining sum s (and size k), "leave out" is open when
// row i has s (k), "take" when row i has s - w_i (k - 1). A set bit has at least one open
// branch, so every branch leads to a subset: no dead ends, O(n) steps per subset listed. The
// walk is depth first with an explicit stack of the branch points still to take.
#include "solver/dp/enumerate_dp.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "solver/frame.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

constexpr std::uint64_t poll_every = 4096;        // walk steps (or words scanned) between polls
constexpr std::size_t words_per_poll = 1u << 15;  // words shifted between polls: tens of microseconds

bool raised(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// Where the table lies: bit b of a row is the sum base + b, 0 <= b < span.
struct table_shape {
  bool nothing = false;    // nothing can be listed: no table at all
  int128 base = 0;
  uint128 span = 0;        // bits a row
  int128 first_sum = 0;    // the window, clipped to the span
  int128 last_sum = 0;
  bool sized = false;      // one bitset per size
  std::size_t sizes = 1;   // bitsets a row: sizes 0..sizes-1 when sized
  std::size_t rows = 0;    // n + 1
};

table_shape shape_for(const std::vector<int128>& weights, int128 lo, int128 hi, std::size_t min_items,
                      std::size_t max_items) {
  table_shape shape;
  // Throws when sum |w| reaches 2^127: every subset sum then fits int128, and so do the bounds below.
  const flipped_totals totals = totals_of(weights);
  const int128 neg = totals.least(), pos = totals.most();
  const std::size_t n = weights.size();
  if (lo > hi || lo > pos || hi < neg || min_items > max_items || min_items > n) {
    shape.nothing = true;
    return shape;
  }
  // lo - pos and hi - neg are formed only where they clip, where they cannot overflow.
  const int128 low = lo > neg + pos ? lo - pos : neg;
  const int128 high = hi < pos + neg ? hi - neg : pos;
  shape.base = low;  // low <= 0 <= high: lo <= pos and hi >= neg
  shape.span = uint128(high - low) + 1;
  shape.first_sum = std::max(lo, low);
  shape.last_sum = std::min(hi, high);
  shape.sized = min_items > 0 || max_items < n;
  shape.sizes = shape.sized ? std::min(max_items, n) + 1 : 1;
  shape.rows = n + 1;
  return shape;
}

double shape_bytes(const table_shape& shape) {
  if (shape.nothing) return 0;
  if (shape.span > enumerate_dp_widest_span) return std::numeric_limits<double>::infinity();
  const double words = double((std::uint64_t(shape.span) + 63) / 64);
  return 8.0 * words * double(shape.sizes) * double(shape.rows);
}

// dst |= src shifted by `shift` bits (toward higher bits when positive), over words [from, to)
// of dst; bits shifted past either end are dropped. |shift| >= the row's bits shifts nothing in.
void or_shifted(std::uint64_t* dst, const std::uint64_t* src, std::size_t words, std::int64_t shift,
                std::size_t from, std::size_t to) {
  const std::uint64_t distance = shift < 0 ? std::uint64_t(-shift) : std::uint64_t(shift);
  const std::uint64_t whole = distance / 64;
  const unsigned part = unsigned(distance % 64);
  if (whole >= words) return;
  const std::size_t q = std::size_t(whole);
  if (shift >= 0) {
    for (std::size_t j = std::max(from, q); j < to; ++j) {
      std::uint64_t v = src[j - q] << part;
      if (part && j > q) v |= src[j - q - 1] >> (64 - part);
      dst[j] |= v;
    }
  } else {
    const std::size_t end = std::min(to, words - q);
    for (std::size_t j = from; j < end; ++j) {
      std::uint64_t v = src[j + q] >> part;
      if (part && j + q + 1 < words) v |= src[j + q + 1] << (64 - part);
      dst[j] |= v;
    }
  }
}

std::string listing_what(std::size_t n) { return "listing subsets by a table over sums for n = " + std::to_string(n); }

using subset_callback = std::function<bool(const std::vector<std::size_t>&)>;

class table_lister {
 public:
  table_lister(const enumerate_request& r, const table_shape& shape, const subset_callback& on_subset)
      : request_(r), shape_(shape), on_subset_(on_subset), n_(r.weights->size()),
        words_((std::size_t(shape.span) + 63) / 64) {
    // A shift past the row's words moves every bit out: clamping keeps it in 64 bits.
    const int128 far = int128(words_) * 64;
    shifts_.reserve(n_);
    for (const int128 w : *r.weights) shifts_.push_back(std::int64_t(std::clamp(w, -far, far)));
  }

  void allocate(double bytes) {
    try {
      if (bytes > 0x1p62) throw std::bad_alloc();
      // Left unset: build writes every bitset it reads, so no pass over the whole table comes
      // before the first poll of cancel.
      table_.reset(new std::uint64_t[shape_.rows * shape_.sizes * words_]);
    } catch (const std::bad_alloc&) {
      throw insufficient_memory::ran_out(listing_what(n_), bytes, request_.max_bytes);
    }
  }

  // Fills rows 1..n from row 0 = {0}. False when cancelled.
  bool build() {
    // Row 0 is cleared in pieces too: on a span of 10^10 sums that alone takes a second.
    for (std::size_t from = 0; from < words_; from += words_per_poll) {
      std::memset(row(0, 0) + from, 0, (std::min(words_, from + words_per_poll) - from) * sizeof(std::uint64_t));
      if (raised(request_.cancel)) return false;
    }
    row(0, 0)[bit_of(0) / 64] |= std::uint64_t(1) << (bit_of(0) % 64);
    for (std::size_t i = 0; i < n_; ++i) {
      // Sizes above i + 1 are never written in row i + 1: has() reads them as empty.
      const std::size_t top = shape_.sized ? std::min(i + 1, shape_.sizes - 1) : 0;
      for (std::size_t k = 0; k <= top; ++k) {
        std::uint64_t* dst = row(i + 1, k);
        const bool keep = !shape_.sized || k <= i;  // row i holds size k
        const bool add = !shape_.sized || k >= 1;   // row i holds size k - 1 to shift
        for (std::size_t from = 0; from < words_; from += words_per_poll) {
          const std::size_t to = std::min(words_, from + words_per_poll);
          if (keep) {
            std::memcpy(dst + from, row(i, k) + from, (to - from) * sizeof(std::uint64_t));
          } else {
            std::memset(dst + from, 0, (to - from) * sizeof(std::uint64_t));
          }
          if (add) or_shifted(dst, row(i, shape_.sized ? k - 1 : 0), words_, shifts_[i], from, to);
          if (raised(request_.cancel)) return false;
        }
        // A shift up can land past the span, in the last word's spare bits: cleared, so every
        // set bit is a sum in the span (such sums could not reach the window anyway).
        if (const unsigned used = unsigned(shape_.span % 64)) dst[words_ - 1] &= (std::uint64_t(1) << used) - 1;
      }
    }
    return true;
  }

  // Every subset from the set bits of the last row in the window, by size then sum.
  enumerate_result list() {
    const std::uint64_t first = bit_of(shape_.first_sum), last = bit_of(shape_.last_sum);
    const std::size_t least = shape_.sized ? request_.min_items : 0;
    for (std::size_t k = least; k < shape_.sizes; ++k) {
      const std::uint64_t* top = row(n_, k);
      for (std::uint64_t word = first / 64; word <= last / 64; ++word) {
        if (!step()) return result_;
        std::uint64_t bits = top[word];
        if (word == first / 64) bits &= ~std::uint64_t(0) << (first % 64);
        if (word == last / 64 && last % 64 != 63) bits &= (std::uint64_t(1) << (last % 64 + 1)) - 1;
        for (; bits; bits &= bits - 1) {
          if (!walk(std::int64_t(word * 64 + std::uint64_t(std::countr_zero(bits))), k)) return result_;
        }
      }
    }
    result_.complete = true;
    return result_;
  }

  enumerate_result cancelled() {
    result_.cancelled = true;
    return result_;
  }

 private:
  struct branch_point {
    std::size_t remaining;  // items 0..remaining-1 undecided; the branch takes item remaining - 1
    std::int64_t bit;       // the sum those items still have to make, as a bit
    std::size_t size;       // and their count, when sized
    std::size_t chosen;     // items taken above this point
  };

  std::uint64_t* row(std::size_t i, std::size_t k) { return table_.get() + (i * shape_.sizes + k) * words_; }
  std::uint64_t bit_of(int128 sum) const { return std::uint64_t(uint128(sum - shape_.base)); }
  bool has(std::size_t i, std::size_t k, std::int64_t bit) {
    if (k > i) return false;  // more items than there are: never written, empty
    if (bit < 0 || std::uint64_t(bit) >= std::uint64_t(shape_.span)) return false;
    return row(i, k)[std::uint64_t(bit) / 64] >> (std::uint64_t(bit) % 64) & 1;
  }

  // Counts a step; false (and cancelled) when the poll finds the flag raised.
  bool step() {
    if (++steps_ < poll_every) return true;
    steps_ = 0;
    if (!raised(request_.cancel)) return true;
    result_.cancelled = true;
    return false;
  }

  // Lists every subset of size k whose sum is the bit of the last row; false to stop.
  bool walk(std::int64_t bit, std::size_t size) {
    branches_.clear();
    chosen_.clear();
    std::size_t remaining = n_;
    for (;;) {
      while (remaining > 0) {
        if (!step()) return false;
        const std::size_t item = remaining - 1;
        const bool leave_out = has(item, size, bit);
        const bool take = (!shape_.sized || size > 0) &&
                          has(item, shape_.sized ? size - 1 : 0, bit - shifts_[item]);
        if (leave_out && take) branches_.push_back({remaining, bit, size, chosen_.size()});
        remaining = item;
        if (!leave_out) {
          chosen_.push_back(item);
          bit -= shifts_[item];
          if (shape_.sized) --size;
        }
      }
      if (!emit()) return false;
      if (branches_.empty()) return true;
      const branch_point b = branches_.back();
      branches_.pop_back();
      remaining = b.remaining - 1;
      chosen_.resize(b.chosen);
      chosen_.push_back(remaining);
      bit = b.bit - shifts_[remaining];
      size = shape_.sized ? b.size - 1 : 0;
    }
  }

  // Hands out the subset the walk reached; false to stop.
  bool emit() {
    if (!step()) return false;  // a subset can take no walk step (a branch at item 0)
    if (request_.non_empty && chosen_.empty()) return true;
    if (looking_past_limit_) return false;  // another exists: complete stays false
    items_.assign(chosen_.rbegin(), chosen_.rend());  // taken from the last item down
    ++result_.listed;
    if (!on_subset_(items_)) return false;
    if (request_.limit && result_.listed == request_.limit) looking_past_limit_ = true;
    return true;
  }

  const enumerate_request& request_;
  const table_shape& shape_;
  const subset_callback& on_subset_;
  const std::size_t n_;
  const std::size_t words_;
  std::vector<std::int64_t> shifts_;  // the weights, clamped to +-span
  std::unique_ptr<std::uint64_t[]> table_;  // row i, size k at (i * sizes + k) * words
  std::vector<branch_point> branches_;
  std::vector<std::size_t> chosen_;   // items taken, descending
  std::vector<std::size_t> items_;    // what on_subset sees, ascending
  std::uint64_t steps_ = 0;
  bool looking_past_limit_ = false;   // the limit is reached: one more subset decides `complete`
  enumerate_result result_;
};

}  // namespace

double enumerate_dp_bytes(const std::vector<int128>& weights, int128 lo, int128 hi, std::size_t min_items,
                          std::size_t max_items) {
  return shape_bytes(shape_for(weights, lo, hi, min_items, max_items));
}

enumerate_result enumerate_subsets_dp(const enumerate_request& r, const subset_callback& on_subset) {
  if (!r.weights) throw std::invalid_argument("enumerate_subsets_dp: no weights");
  const table_shape shape = shape_for(*r.weights, r.lo, r.hi, r.min_items, r.max_items);
  if (shape.nothing) return {0, true, false};  // nothing to list: complete, no table built
  const double bytes = shape_bytes(shape);
  if (r.max_bytes > 0 && bytes > r.max_bytes)
    throw insufficient_memory::needs(listing_what(r.weights->size()), bytes, r.max_bytes);
  if (shape.span > enumerate_dp_widest_span)
    throw std::invalid_argument("the subset sums that can reach the window span more than 2^40 values; the table "
                                "takes at most 2^40");
  table_lister lister(r, shape, on_subset);  // the span fits: its shifts and words are 64-bit
  if (raised(r.cancel)) return lister.cancelled();
  lister.allocate(bytes);
  if (!lister.build() || raised(r.cancel)) return lister.cancelled();
  return lister.list();
}

}  // namespace ssum::detail

// ssum::list_subset_masks (ssum/solve.hpp) and its receiver (subset_masks.hpp): the listing
// list_subsets plans and runs, its subsets handed out as 64-bit item masks in batches, so that
// a caller takes them at memory speed instead of one std::function call and one index vector
// each.
#include "solver/subset_masks.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ssum/errors.hpp"

namespace ssum::detail {

mask_verifier::mask_verifier(const std::vector<int128>& weights, int128 lo, int128 hi, std::size_t min_items,
                             std::size_t max_items, bool non_empty)
    : lo_(lo), hi_(hi), min_items_(min_items), max_items_(max_items), non_empty_(non_empty) {
  const std::size_t n = weights.size();
  if (n > mask_most_items) throw std::logic_error("mask_verifier: more than 64 items");
  all_ = n == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1;
  bytes_ = unsigned((n + 7) / 8);
  table_.assign(256 * std::size_t(bytes_), 0);
  for (unsigned b = 0; b < bytes_; ++b) {
    for (unsigned v = 1; v < 256; ++v) {
      // v's sum is v without its lowest bit, plus that bit's item (0 past n: never set in a valid mask).
      const unsigned low = unsigned(std::countr_zero(v)), item = 8 * b + low;
      table_[256 * b + v] = table_[256 * b + (v & (v - 1))] + (item < n ? weights[item] : 0);
    }
  }
  // |w| adding up below 2^63: every partial sum, and every subset's, fits an int64.
  const uint128 wide = uint128(1) << 63;
  uint128 total = 0;
  for (std::size_t i = 0; i < n && total < wide; ++i) {
    const uint128 w = uint128(weights[i]);
    total += weights[i] < 0 ? uint128(0) - w : w;  // |w|, INT128_MIN too; stops past 2^63
  }
  narrow_ = total < wide;
  if (narrow_) narrow_table_.assign(table_.begin(), table_.end());
  sized_ = min_items > 0 || max_items < n;
}

mask_receiver::mask_receiver(const std::function<bool(std::span<const std::uint64_t>)>& on_masks,
                             const mask_verifier& verifier, bool complemented, unsigned threads, std::size_t buffered)
    : on_masks_(on_masks), verifier_(verifier), flip_(complemented ? verifier.all() : 0),
      threads_(std::max(1u, threads)), buffered_(std::max<std::size_t>(1, buffered)) {
  buffer_.reserve(buffered_);
}

bool mask_receiver::add(const std::vector<std::size_t>& subset) {
  std::uint64_t mask = 0;
  for (std::size_t k = 0; k < subset.size(); ++k) {
    if (subset[k] >= 64 || (k > 0 && subset[k] <= subset[k - 1]))
      throw std::logic_error("listing: a subset whose indices are not ascending and in range");
    mask |= std::uint64_t(1) << subset[k];
  }
  mask ^= flip_;
  if (!verifier_.ok(mask)) throw std::logic_error("listing: a subset outside the window or the size bounds");
  buffer_.push_back(mask);
  return buffer_.size() < buffered_ || flush();
}

bool mask_receiver::flush() {
  if (buffer_.empty()) return true;
  const bool go_on = on_masks_(std::span<const std::uint64_t>(buffer_));
  buffer_.clear();
  return go_on;
}

bool mask_receiver::pairs(std::span<std::uint64_t> batch, std::size_t h) {
  // Below this many a team costs more than it saves (a mask takes a few ns).
  constexpr std::size_t parallel_from = std::size_t(1) << 15;
  const std::int64_t size = std::int64_t(batch.size());
  std::uint64_t* const m = batch.data();
  const std::uint64_t flip = flip_;
  const mask_verifier& v = verifier_;
  bool bad = false;
  if (threads_ > 1 && batch.size() >= parallel_from) {
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(|| : bad)
    for (std::int64_t k = 0; k < size; ++k) {
      m[k] = ((m[k] & 0xffffffffu) | (m[k] >> 32) << h) ^ flip;
      bad = bad || !v.ok(m[k]);
    }
  } else {
    for (std::int64_t k = 0; k < size; ++k) {
      m[k] = ((m[k] & 0xffffffffu) | (m[k] >> 32) << h) ^ flip;
      bad = bad || !v.ok(m[k]);
    }
  }
  if (bad) throw std::logic_error("listing: a subset outside the window or the size bounds");
  return on_masks_(std::span<const std::uint64_t>(batch.data(), batch.size()));
}

}  // namespace ssum::detail

namespace ssum {

listing list_subset_masks(backend which, unsigned threads, const problem& p, const listing_options& options,
                          const std::function<bool(std::span<const std::uint64_t>)>& on_masks) {
  if (p.weights.size() > detail::mask_most_items) {
    throw instance_refused("the bulk listing hands out 64-bit masks: it takes at most 64 items, not " +
                           std::to_string(p.weights.size()) + " (list_subsets takes any n)");
  }
  detail::listing_receiver to;
  to.on_masks = &on_masks;
  return detail::run_listing(which, threads, p, options, to);
}

}  // namespace ssum

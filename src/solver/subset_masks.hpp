#pragma once
// Internal: the bulk listing's side of ssum::list_subset_masks (ssum/solve.hpp). list_subsets.cpp
// plans and runs every listing (run_listing); in mask mode its subsets go through a
// mask_receiver, which turns them into item masks, maps complements back, verifies each by
// per-byte tables of partial sums and hands them to the caller in batches.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "ssum/int128.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {

/// The most items a mask holds.
constexpr std::size_t mask_most_items = 64;

/// Where run_listing hands its subsets: one of the two is set.
struct listing_receiver {
  const std::function<bool(const std::vector<std::size_t>&)>* on_subset = nullptr;
  const std::function<bool(std::span<const std::uint64_t>)>* on_masks = nullptr;
};

/// list_subsets and list_subset_masks: the checks, the plan (the question or its complement),
/// the enumerator, the time limit and cancel, for either receiver.
listing run_listing(backend which, unsigned threads, const problem& p, const listing_options& options,
                    const listing_receiver& to);

/// Whether a mask is a subset the listing may hand out: no bit past n, its size in the bounds,
/// not empty for zero-sum, its sum in [lo, hi]. The sum is read from one table of 256 partial
/// sums per byte of the mask (8 tables for 64 items, 32 KiB), a handful of adds a mask.
class mask_verifier {
 public:
  mask_verifier(const std::vector<int128>& weights, int128 lo, int128 hi, std::size_t min_items,
                std::size_t max_items, bool non_empty);
  bool ok(std::uint64_t mask) const {
    if (mask & ~all_) return false;
    if (sized_) {  // the count of items only where a bound asks for it
      const std::size_t k = std::size_t(__builtin_popcountll(mask));
      if (k < min_items_ || k > max_items_) return false;
    }
    if (non_empty_ && mask == 0) return false;
    if (narrow_) {  // every subset sum fits 64 bits: 64-bit adds
      std::int64_t sum = 0;
      for (unsigned b = 0; b < bytes_; ++b) sum += narrow_table_[256 * b + (mask >> (8 * b) & 255)];
      return sum >= lo_ && sum <= hi_;
    }
    int128 sum = 0;
    for (unsigned b = 0; b < bytes_; ++b) sum += table_[256 * b + (mask >> (8 * b) & 255)];
    return sum >= lo_ && sum <= hi_;
  }
  std::uint64_t all() const { return all_; }

 private:
  std::vector<int128> table_;  // table_[256 b + v]: the weights of the items that byte b's value v holds
  std::vector<std::int64_t> narrow_table_;  // the same, where every subset sum fits 64 bits
  bool narrow_ = false, sized_ = false;
  unsigned bytes_ = 0;
  std::uint64_t all_ = 0;  // the n items' bits
  int128 lo_, hi_;
  std::size_t min_items_, max_items_;
  bool non_empty_;
};

/// The mask mode's receiver. Host enumerators hand it index vectors (add), buffered and flushed
/// to on_masks `buffered` at a time; the device hands it its pairs (pairs), converted in place,
/// verified on `threads` threads when there are many and handed on as one batch.
class mask_receiver {
 public:
  /// complemented: the enumerator lists the complements; each mask is flipped back over n items.
  mask_receiver(const std::function<bool(std::span<const std::uint64_t>)>& on_masks, const mask_verifier& verifier,
                bool complemented, unsigned threads, std::size_t buffered = 4096);
  /// One subset from a host enumerator (ascending indices); false when on_masks asked to stop.
  bool add(const std::vector<std::size_t>& subset);
  /// Hands what is buffered to on_masks; false when it asked to stop. Nothing to hand: true.
  bool flush();
  /// Pairs of the device listing (mask_a | mask_b << 32, the halves split at h), rewritten in
  /// place as item masks and handed on; false when on_masks asked to stop.
  bool pairs(std::span<std::uint64_t> batch, std::size_t h);

 private:
  const std::function<bool(std::span<const std::uint64_t>)>& on_masks_;
  const mask_verifier& verifier_;
  std::uint64_t flip_;
  unsigned threads_;
  std::size_t buffered_;
  std::vector<std::uint64_t> buffer_;
};

}  // namespace ssum::detail

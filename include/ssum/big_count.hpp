#pragma once
// An exact count of subsets: up to 2^n for n items, so beyond any fixed width once n passes
// 128 (the dynamic program counts thousands of items). Host-only; no GMP header here: the
// library does its arithmetic with GMP inside (src/core/big_count.cpp).
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "ssum/int128.hpp"

namespace ssum {

/// A non-negative integer of any size, as little-endian 64-bit limbs without high zero limbs
/// (zero has none). Implicit from unsigned 128-bit values, so `count = 0` and comparisons
/// with integers read naturally.
class big_count {
 public:
  big_count() = default;
  big_count(uint128 value) {  // NOLINT(google-explicit-constructor): a count is a number
    for (; value != 0; value >>= 64) limbs_.push_back(std::uint64_t(value));
  }
  /// From little-endian limbs (high zero limbs allowed).
  static big_count from_limbs(std::vector<std::uint64_t> limbs) {
    big_count c;
    c.limbs_ = std::move(limbs);
    while (!c.limbs_.empty() && c.limbs_.back() == 0) c.limbs_.pop_back();
    return c;
  }

  const std::vector<std::uint64_t>& limbs() const { return limbs_; }
  /// The number of binary digits (0 for zero).
  std::size_t bits() const;
  bool fits_uint64() const { return limbs_.size() <= 1; }
  bool fits_uint128() const { return limbs_.size() <= 2; }
  /// The value; throws std::overflow_error when it does not fit.
  uint128 to_uint128() const;
  std::uint64_t to_uint64() const;
  explicit operator uint128() const { return to_uint128(); }
  explicit operator std::uint64_t() const { return to_uint64(); }

  /// Decimal digits, exact at any size.
  std::string to_string() const;

  friend bool operator==(const big_count& a, const big_count& b) { return a.limbs_ == b.limbs_; }
  friend std::strong_ordering operator<=>(const big_count& a, const big_count& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() <=> b.limbs_.size();
    for (std::size_t k = a.limbs_.size(); k-- > 0;) {
      if (a.limbs_[k] != b.limbs_[k]) return a.limbs_[k] <=> b.limbs_[k];
    }
    return std::strong_ordering::equal;
  }

 private:
  std::vector<std::uint64_t> limbs_;
};

inline std::string to_string(const big_count& c) { return c.to_string(); }

/// Writes the decimal digits (test frameworks print counts with it).
std::ostream& operator<<(std::ostream& out, const big_count& c);

}  // namespace ssum

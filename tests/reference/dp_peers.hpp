#pragma once
// The dynamic programs a programmer writes first, as independent references for the tests and
// as the peers the dynamic-programming benchmark races: Bellman's table of reachable sums, one
// byte per sum, and the same table as a one-thread bitset (shift-or over 64-bit words). Both
// take non-negative weights and a target as given (no reductions), decide only, and stop as
// soon as the target is reached.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ssum_reference {

/// Bellman (1957): reach[s] |= reach[s - w] for s from the target down to w, item by item.
inline bool bellman_reaches(const std::vector<std::uint64_t>& weights, std::uint64_t target) {
  std::vector<unsigned char> reach(target + 1, 0);
  reach[0] = 1;
  for (const std::uint64_t w : weights) {
    if (reach[target]) break;
    if (w > target) continue;
    if (w == 0) continue;
    for (std::uint64_t s = target; s >= w; --s) reach[s] |= reach[s - w];
  }
  return reach[target] != 0;
}

/// The bitset: words from high to low, so that each reads words of the previous row; only the
/// words below the running sum of the weights change.
inline bool bitset_reaches(const std::vector<std::uint64_t>& weights, std::uint64_t target) {
  const std::size_t words = target / 64 + 1;
  std::vector<std::uint64_t> bits(words, 0);
  bits[0] = 1;
  const std::uint64_t top_mask = target % 64 == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << (target % 64)) - 1;
  std::uint64_t prefix = 0;
  for (const std::uint64_t w : weights) {
    if (bits[target / 64] >> (target % 64) & 1) break;
    if (w > target || w == 0) continue;
    prefix = prefix + w < target ? prefix + w : target;
    const std::size_t q = w / 64, r = w % 64;
    for (std::size_t j = prefix / 64; j >= q + 1; --j) {
      bits[j] |= r == 0 ? bits[j - q] : (bits[j - q] << r) | (bits[j - q - 1] >> (64 - r));
    }
    bits[q] |= bits[0] << r;
    bits[words - 1] &= top_mask;
  }
  return bits[target / 64] >> (target % 64) & 1;
}

}  // namespace ssum_reference

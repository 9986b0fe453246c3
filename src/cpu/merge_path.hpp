#pragma once
// Merge path (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made
// Simple", 2012): the modern form of the conflict-free split of Akl and Santoro that
// Wan et al. use. Output diagonal d of merge(a, b) splits into a[0, i) and b[0, d - i);
// each thread merges its own diagonal range, so no two threads touch the same memory.
#include <algorithm>
#include <cstddef>

namespace ssum::detail {

/// i such that the first d outputs of the stable merge of a[0, na) and b[0, nb) are
/// a[0, i) and b[0, d - i); ties take a first. b_at(j) yields b[j] (b may be computed).
template <class A, class BAt>
std::size_t merge_path_split(const A* a, std::size_t na, BAt b_at, std::size_t nb, std::size_t d) {
  std::size_t lo = d > nb ? d - nb : 0;
  std::size_t hi = std::min(d, na);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (!(b_at(d - 1 - mid) < a[mid])) {
      lo = mid + 1;  // a[mid] precedes b[d-1-mid]: it is among the first d outputs
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace ssum::detail

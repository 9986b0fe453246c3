#pragma once
// Merge path (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made
// Simple", 2012), the modern form of Akl and Santoro's conflict-free split: output diagonal
// d of the stable merge of a and b is made of a[0, i) and b[0, d - i) for one i, found by a
// binary search along the diagonal. Threads that each merge the outputs between two
// diagonals touch disjoint memory and need no further coordination.
//
// Host C++, and usable from CUDA device code (SSUM_HOST_DEVICE) when a, b_at and comp are.
// No CUDA header is needed.
#include <cstddef>

#include "ssum/detail/host_device.hpp"

namespace ssum {

/// The split of output diagonal `diagonal` of the STABLE merge (ties: a's elements first)
/// of a[0, na) and b[0, nb), both ascending under comp: returns i such that the first
/// `diagonal` outputs are exactly a[0, i) and b[0, diagonal - i).
///
/// a: a pointer or random-access iterator (a[k]); b_at: a callable, b_at(j) is b[j] for
/// std::size_t j (b may be computed on the fly). comp: strict weak order, comp(x, y) = x < y.
/// diagonal > na + nb is treated as na + nb. Looks at O(log min(na, nb, diagonal)) elements,
/// each of a and b at most once per step; never reads outside a[0, na) or b[0, nb).
template <class AIt, class BAt, class Compare>
SSUM_HOST_DEVICE std::size_t merge_path_split(AIt a, std::size_t na, BAt b_at, std::size_t nb, std::size_t diagonal,
                                              Compare comp) {
  if (diagonal > na + nb) diagonal = na + nb;
  std::size_t lo = diagonal > nb ? diagonal - nb : 0;  // i >= d - nb: b has only nb elements
  std::size_t hi = diagonal < na ? diagonal : na;      // i <= min(d, na)
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    // a[mid] is among the first d outputs iff it precedes b[d-1-mid], i.e. unless
    // b[d-1-mid] < a[mid] (a tie goes to a).
    if (comp(b_at(diagonal - 1 - mid), a[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

namespace detail {

/// Given c(j) == v and c ascending on [0, n): the first e > j with v < c(e), or n, i.e. the
/// end of the run of v that holds j. Galloping (probes at j + 1, j + 3, j + 7, ..., then a
/// binary search inside the last step), so O(log run length) reads even for runs much longer
/// than a merge tile. The pair searches' counts use it on both backends.
template <class CAt, class T>
SSUM_HOST_DEVICE std::size_t equal_run_end(const CAt& c, std::size_t j, std::size_t n, const T& v) {
  std::size_t lo = j + 1, hi = n, step = 1;  // c[j, lo) == v
  while (lo < n) {
    const std::size_t probe = n - lo <= step ? n : lo + step;
    if (v < c(probe - 1)) {
      hi = probe;
      break;
    }
    lo = probe;
    step *= 2;
  }
  while (lo < hi) {  // the end lies in [lo, hi)
    const std::size_t mid = lo + (hi - lo) / 2;
    if (v < c(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace detail

}  // namespace ssum

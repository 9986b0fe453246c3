#pragma once
// Host odd-even sorts: the ssum::cpu backend of sort.hpp. Header-only, since users pass their own
// key types and comparators. Host C++ only.
//
// cpu_odd_even_sort (stable)
//   n <= cpu_odd_even_small: the classic odd-even transposition sort. Rounds alternate between
//   the pairs (1,2),(3,4),... and (0,1),(2,3),...; a pair is exchanged only when
//   comp(right, left), so equal keys never pass each other; it stops after an odd+even round
//   that exchanged nothing (then every neighbour pair is in order).
//   larger n: the block form of Baudet and Stevenson (1978). The keys are cut into B blocks of
//   ceil(n / B) elements (the last one may be shorter), each block is sorted on its own
//   (std::stable_sort), then the same odd-even rounds run one level up: in even rounds the
//   block pairs (0,1),(2,3),..., in odd rounds (1,2),(3,4),..., each pair MERGE-SPLIT: the two
//   sorted blocks are merged stably (ties from the left block first), the lower part goes back
//   to the left block, the upper to the right. A pair is unchanged iff
//   !comp(first of right, last of left). B rounds always suffice (the 0-1 principle, as for the
//   element sort); the loop stops after an odd and an even round in which no pair changed.
//   A merge-split moves only what crosses: it finds (binary search) how many elements k of
//   the right block belong to the lower part and merges just those k with the left block from
//   the back, and the left block's top k with the right block from the front.
//   Parallelism: one OpenMP region; blocks (local sorts) and then the pairs of each round are
//   dealt out to the threads, one barrier per round (and one after the local sorts); the
//   "something changed" flags live in three slots used round-robin, so that a slot is reset
//   only when nobody can still read it.
//   A stable sort of a strict weak order has exactly one result, so the output does not depend
//   on the thread count (nor on B).
//
// cpu_odd_even_merge_sort (NOT stable)
//   Batcher's odd-even merge sort network on N = the next power of two >= n positions, where the
//   positions >= n hold +infinity: every comparator (lo, hi) has lo < hi and puts the larger
//   key at hi, so an +infinity never moves and all comparators touching one are skipped. The
//   phases (p, k) run in sequence and the comparators of a phase (disjoint) in parallel. The
//   phases with 2p <= cpu_odd_even_merge_block only connect positions inside one aligned
//   block of that size; they are run block by block (cache-resident, blocks in parallel).
//   The network is oblivious, so the output (values included, for equal keys) is a fixed
//   function of the input: the same bits for every thread count.
//
// cpu_segmented_odd_even_sort (stable)
//   Sorts keys[offsets[s], offsets[s+1]) for each s < segments with cpu_odd_even_sort on one
//   thread (the transposition sort for short segments, two blocks otherwise); segments are dealt
//   to the threads dynamically. Offsets are validated before anything is touched.
//
// Requirements: Compare a strict weak order on Key, callable from several threads at once, and
// it must not throw (it runs inside an OpenMP region). Key and Value default-constructible,
// move-assignable and swappable (scratch buffers are allocated before the parallel region).
// With Value = no_values there are no values and the values pointer (nullptr) is never used.
// n == 0 touches nothing (keys may then be nullptr). Without OpenMP (no -fopenmp) everything
// runs on the calling thread, with the same results.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "ssum/detail/cpu_team.hpp"
#ifdef _OPENMP
#include <omp.h>
#endif

namespace ssum::detail {

/// The Value type of key-only sorts; never dereferenced.
struct no_values {};

/// Up to this many keys the transposition sort runs element by element.
inline constexpr std::size_t cpu_odd_even_small = 64;
/// From this many keys on, the block sort uses more than one thread (and more than 2 blocks).
inline constexpr std::size_t cpu_odd_even_parallel_min = 4096;
/// The block sort's blocks hold at least this many keys (when threads would ask for more blocks).
inline constexpr std::size_t cpu_odd_even_min_block = 256;
/// The merge sort network's first phases run on aligned blocks of this many positions (2^10).
inline constexpr std::size_t cpu_odd_even_merge_block = std::size_t(1) << 10;

template <class Value>
inline constexpr bool has_values_v = !std::is_same_v<std::remove_cv_t<Value>, no_values>;

/// Scratch space of one thread of the block sort, sized before the parallel region.
template <class Key, class Value>
struct odd_even_workspace {
  std::vector<Key> k1, k2;                 // merge-split: the k keys that cross, each way
  std::vector<Value> v1, v2;               // ... and their values
  std::vector<std::pair<Key, Value>> kv;   // local sort of a block with values
  void reserve(std::size_t block) {
    if (k1.size() >= block) return;
    k1.resize(block);
    k2.resize(block);
    if constexpr (has_values_v<Value>) {
      v1.resize(block);
      v2.resize(block);
      kv.resize(block);
    }
  }
};

/// Exchanges elements i and j, keys and values together.
template <class Key, class Value>
inline void odd_even_swap(Key* keys, Value* values, std::size_t i, std::size_t j) {
  using std::swap;
  swap(keys[i], keys[j]);
  if constexpr (has_values_v<Value>) swap(values[i], values[j]);
}

/// The classic transposition sort with the early exit. Stable.
template <class Key, class Value, class Compare>
void odd_even_transposition(Key* keys, Value* values, std::size_t n, Compare& comp) {
  if (n < 2) return;
  for (bool exchanged = true; exchanged;) {
    exchanged = false;
    for (std::size_t i = 1; i + 1 < n; i += 2) {  // odd round: (1,2), (3,4), ...
      if (comp(keys[i + 1], keys[i])) {
        odd_even_swap(keys, values, i, i + 1);
        exchanged = true;
      }
    }
    for (std::size_t i = 0; i + 1 < n; i += 2) {  // even round: (0,1), (2,3), ...
      if (comp(keys[i + 1], keys[i])) {
        odd_even_swap(keys, values, i, i + 1);
        exchanged = true;
      }
    }
  }
}

/// Stable sort of one block, keys and values together.
template <class Key, class Value, class Compare>
void odd_even_local_sort(Key* keys, Value* values, std::size_t m, Compare& comp,
                         odd_even_workspace<Key, Value>& ws) {
  if (m <= cpu_odd_even_small) {
    odd_even_transposition(keys, values, m, comp);
  } else if constexpr (!has_values_v<Value>) {
    std::stable_sort(keys, keys + m, [&comp](const Key& a, const Key& b) { return comp(a, b); });
  } else {
    auto* kv = ws.kv.data();
    for (std::size_t i = 0; i < m; ++i) {
      kv[i].first = std::move(keys[i]);
      kv[i].second = std::move(values[i]);
    }
    std::stable_sort(kv, kv + m, [&comp](const std::pair<Key, Value>& a, const std::pair<Key, Value>& b) {
      return comp(a.first, b.first);
    });
    for (std::size_t i = 0; i < m; ++i) {
      keys[i] = std::move(kv[i].first);
      values[i] = std::move(kv[i].second);
    }
  }
}

/// Merge-split of the sorted blocks L = [l, l + nl) and R = [l + nl, l + nl + nr): afterwards L
/// holds the nl first and R the nr last elements of their stable merge. Returns whether
/// anything moved (iff comp(first of R, last of L)).
template <class Key, class Value, class Compare>
bool odd_even_merge_split(Key* keys, Value* values, std::size_t l, std::size_t nl, std::size_t nr, Compare& comp,
                          odd_even_workspace<Key, Value>& ws) {
  constexpr bool V = has_values_v<Value>;
  Key* L = keys + l;
  Key* R = L + nl;
  if (nl == 0 || nr == 0 || !comp(R[0], L[nl - 1])) return false;
  // k = how many of R's elements belong to the lower part: the largest k <= min(nl, nr) with
  // R[k-1] strictly before L[nl-k] (monotone in k; k >= 1 here).
  std::size_t lo = 1, hi = std::min(nl, nr);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (comp(R[mid - 1], L[nl - mid])) lo = mid;
    else hi = mid - 1;
  }
  const std::size_t k = lo, i = nl - k;  // lower part = L[0, i) + R[0, k); upper = L[i, nl) + R[k, nr)
  Value* LV = nullptr;
  Value* RV = nullptr;
  if constexpr (V) {
    LV = values + l;
    RV = LV + nl;
  }
  Key* rk = ws.k1.data();  // R[0, k)
  Key* lk = ws.k2.data();  // L[i, nl)
  for (std::size_t j = 0; j < k; ++j) {
    rk[j] = std::move(R[j]);
    lk[j] = std::move(L[i + j]);
  }
  if constexpr (V) {
    for (std::size_t j = 0; j < k; ++j) {
      ws.v1[j] = std::move(RV[j]);
      ws.v2[j] = std::move(LV[i + j]);
    }
  }
  // Lower part, from the back: L[0, i) (in place) with rk. On ties L's element comes first, so
  // the back takes rk's. Stops when rk is used up: the rest of L is already in place.
  {
    std::size_t a = i, b = k, w = nl;  // counts still to place
    while (b > 0) {
      --w;
      if (a > 0 && comp(rk[b - 1], L[a - 1])) {
        --a;
        L[w] = std::move(L[a]);
        if constexpr (V) LV[w] = std::move(LV[a]);
      } else {
        --b;
        L[w] = std::move(rk[b]);
        if constexpr (V) LV[w] = std::move(ws.v1[b]);
      }
    }
  }
  // Upper part, from the front: lk with R[k, nr) (in place). On ties lk's element (from L)
  // comes first. Stops when lk is used up.
  {
    std::size_t a = 0, b = k, w = 0;
    while (a < k) {
      if (b < nr && comp(R[b], lk[a])) {
        R[w] = std::move(R[b]);
        if constexpr (V) RV[w] = std::move(RV[b]);
        ++b;
      } else {
        R[w] = std::move(lk[a]);
        if constexpr (V) RV[w] = std::move(ws.v2[a]);
        ++a;
      }
      ++w;
    }
  }
  return true;
}

/// The block sort on `threads` threads (1: the calling thread) with B blocks of `block` keys
/// (the last one shorter); ws holds at least `threads` workspaces of `block` keys.
template <class Key, class Value, class Compare>
void odd_even_block_sort([[maybe_unused]] unsigned threads, Key* keys, Value* values, std::size_t n, std::size_t block,
                         Compare& comp, odd_even_workspace<Key, Value>* ws) {
  const std::size_t B = (n + block - 1) / block;
  auto size_of = [&](std::size_t b) { return b + 1 < B ? block : n - b * block; };
  int changed[3] = {0, 0, 0};  // round r writes slot r % 3 (see the header comment)
  auto run = [&](unsigned t, unsigned p) {
    for (std::size_t b = t; b < B; b += p) odd_even_local_sort(keys + b * block, values ? values + b * block : values,
                                                               size_of(b), comp, ws[t]);
#ifdef _OPENMP
    if (p > 1) {  // never outside our own team: an orphaned barrier would bind to the caller's
#pragma omp barrier
    }
#endif
    const std::size_t max_rounds = B + 2;  // B rounds sort; two more quiet ones are the proof
    unsigned quiet = 0;
    for (std::size_t r = 0; r < max_rounds && quiet < 2; ++r) {
      // Slot (r + 1) % 3 was last read after round r - 2's barrier, which every thread passed
      // before round r - 1's; it is next written after this round's barrier.
      if (t == 0) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
        changed[(r + 1) % 3] = 0;
      }
      // Block pairs (first, first + 1), first = r % 2, r % 2 + 2, ...
      const std::size_t first = r % 2, pairs = B > first ? (B - first) / 2 : 0;
      bool any = false;
      for (std::size_t q = t; q < pairs; q += p) {
        const std::size_t lb = first + 2 * q;
        any |= odd_even_merge_split(keys, values, lb * block, size_of(lb), size_of(lb + 1), comp, ws[t]);
      }
      if (any) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
        changed[r % 3] = 1;
      }
#ifdef _OPENMP
      if (p > 1) {
#pragma omp barrier
      }
#endif
      int c;
#ifdef _OPENMP
#pragma omp atomic read
#endif
      c = changed[r % 3];
      quiet = c ? 0 : quiet + 1;
    }
  };
  cpu_team(threads, run);
}

/// Stable odd-even sort of keys[0, n) (values moving with their keys).
template <class Key, class Value, class Compare>
void cpu_odd_even_sort(unsigned threads, Key* keys, Value* values, std::size_t n, Compare comp) {
  if (n < 2) return;
  if (n <= cpu_odd_even_small) {
    odd_even_transposition(keys, values, n, comp);
    return;
  }
  if (n < cpu_odd_even_parallel_min || threads < 1) threads = 1;
  // B = 2 * threads blocks (at least 2, and none smaller than cpu_odd_even_min_block unless
  // there are only 2), then as many equal blocks as that block size needs.
  std::size_t B = std::max<std::size_t>(2, std::min<std::size_t>(2 * std::size_t(threads), n / cpu_odd_even_min_block));
  const std::size_t block = (n + B - 1) / B;
  B = (n + block - 1) / block;
  threads = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, B / 2)));
  std::vector<odd_even_workspace<Key, Value>> ws(threads);
  for (auto& w : ws) w.reserve(block);
  odd_even_block_sort(threads, keys, values, n, block, comp, ws.data());
}

/// Compare-exchange of positions lo < hi: afterwards !comp(keys[hi], keys[lo]).
template <class Key, class Value, class Compare>
inline void odd_even_cx(Key* keys, Value* values, std::size_t lo, std::size_t hi, Compare& comp) {
  constexpr bool select = std::is_trivially_copyable_v<Key> && sizeof(Key) <= 16 &&
                          (!has_values_v<Value> || (std::is_trivially_copyable_v<Value> && sizeof(Value) <= 16));
  if constexpr (select) {  // branch-free: random keys make the exchange a coin toss
    const Key a = keys[lo], b = keys[hi];
    const bool s = comp(b, a);
    keys[lo] = s ? b : a;
    keys[hi] = s ? a : b;
    if constexpr (has_values_v<Value>) {
      const Value va = values[lo], vb = values[hi];
      values[lo] = s ? vb : va;
      values[hi] = s ? va : vb;
    }
  } else {
    if (comp(keys[hi], keys[lo])) odd_even_swap(keys, values, lo, hi);
  }
}

/// Compare-exchange of two keys without values: afterwards !comp(b, a).
template <class Key, class Compare>
inline void odd_even_cx2(Key& a, Key& b, Compare& comp) {
  if constexpr (std::is_trivially_copyable_v<Key> && sizeof(Key) <= 16) {
    const Key x = a, y = b;
    const bool s = comp(y, x);
    a = s ? y : x;
    b = s ? x : y;
  } else {
    using std::swap;
    if (comp(b, a)) swap(a, b);
  }
}

/// Comparators [c0, c1) of phase (p, k) of Batcher's network, restricted to positions < n.
/// Comparator c is (lo, lo + k) with lo = j + i, i = c % k, j = k % p + (c / k) * 2k; a group
/// j of k comparators is skipped when it straddles a boundary of the 2p-blocks (which happens
/// exactly when j + k is a multiple of 2p). p and k are powers of two.
template <class Key, class Value, class Compare>
void odd_even_merge_phase(Key* keys, Value* values, std::size_t n, std::size_t p, std::size_t k, std::size_t c0,
                          std::size_t c1, Compare& comp) {
  if (c0 >= c1) return;
  const std::size_t mask = 2 * p - 1;
  std::size_t j = k % p + (c0 / k) * 2 * k, i = c0 % k, left = c1 - c0;  // one division per call
  while (left > 0) {
    const std::size_t count = std::min(k - i, left);
    if (((j + k) & mask) != 0) {
      if (j + k >= n) return;
      const std::size_t i_end = std::min(i + count, n - j - k);  // hi = j + i + k < n
      if constexpr (has_values_v<Value>) {
        for (std::size_t x = i; x < i_end; ++x) odd_even_cx(keys, values, j + x, j + x + k, comp);
      } else {  // two plain streams: vectorizes for arithmetic keys
        Key* lo = keys + j;
        Key* hi = lo + k;
        for (std::size_t x = i; x < i_end; ++x) odd_even_cx2(lo[x], hi[x], comp);
      }
    }
    left -= count;
    i = 0;
    j += 2 * k;
  }
}

/// Number of comparator slots of phase (p, k) that may touch positions < n (whole groups).
inline std::size_t odd_even_merge_slots(std::size_t n, std::size_t p, std::size_t k) {
  const std::size_t off = k % p;
  if (n <= off + k) return 0;
  const std::size_t groups = (n - off - k + 2 * k - 1) / (2 * k);  // groups g with off + 2kg + k < n
  return groups * k;
}

/// The network's phases with 2p <= size on the aligned block [base, base + size) (size a power
/// of two), positions >= n skipped.
template <class Key, class Value, class Compare>
void odd_even_merge_block(Key* keys, Value* values, std::size_t n, std::size_t base, std::size_t size,
                          Compare& comp) {
  const std::size_t m = std::min(size, n - base);  // real positions in this block
  Key* bk = keys + base;
  Value* bv = values ? values + base : values;
  for (std::size_t p = 1; p < size; p *= 2)
    for (std::size_t k = p; k >= 1; k /= 2) odd_even_merge_phase(bk, bv, m, p, k, 0, odd_even_merge_slots(m, p, k), comp);
}

/// Batcher's odd-even merge sort of keys[0, n) (values moving with their keys). Not stable.
template <class Key, class Value, class Compare>
void cpu_odd_even_merge_sort([[maybe_unused]] unsigned threads, Key* keys, Value* values, std::size_t n, Compare comp) {
  if (n < 2) return;
  std::size_t N = 1;
  while (N < n) N *= 2;
  constexpr std::size_t P = cpu_odd_even_merge_block;
  if (N <= P) {
    odd_even_merge_block(keys, values, n, 0, N, comp);
    return;
  }
  const std::size_t nblocks = (n + P - 1) / P;
  auto run = [&](unsigned t, unsigned team) {
    for (std::size_t b = t; b < nblocks; b += team) odd_even_merge_block(keys, values, n, b * P, P, comp);
    for (std::size_t p = P; p < N; p *= 2) {
      for (std::size_t k = p; k >= 1; k /= 2) {
#ifdef _OPENMP
        if (team > 1) {
#pragma omp barrier
        }
#endif
        const std::size_t slots = odd_even_merge_slots(n, p, k);
        const std::size_t c0 = slots * t / team, c1 = slots * (t + 1) / team;
        odd_even_merge_phase(keys, values, n, p, k, c0, c1, comp);
      }
    }
  };
  cpu_team(threads, run);
}

/// Stable sort of every segment keys[offsets[s], offsets[s+1]), s < segments; the rest untouched.
/// Throws std::invalid_argument (touching nothing) unless offsets is non-decreasing with
/// offsets[segments] <= n; with segments == 0, offsets may be nullptr.
template <class Key, class Value, class Compare>
void cpu_segmented_odd_even_sort(unsigned threads, Key* keys, Value* values, std::size_t n,
                                 const std::size_t* offsets, std::size_t segments, Compare comp) {
  if (offsets == nullptr) {
    if (segments == 0) return;
    throw std::invalid_argument("segmented_odd_even_sort: offsets is null");
  }
  std::size_t longest = 0;
  for (std::size_t s = 0; s < segments; ++s) {
    if (offsets[s + 1] < offsets[s])
      throw std::invalid_argument("segmented_odd_even_sort: offsets decrease at segment " + std::to_string(s));
    longest = std::max(longest, offsets[s + 1] - offsets[s]);
  }
  if (offsets[segments] > n)
    throw std::invalid_argument("segmented_odd_even_sort: offsets[segments] = " + std::to_string(offsets[segments]) +
                                " > n = " + std::to_string(n));
  if (longest < 2) return;
  if (threads < 1) threads = 1;
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, segments));
  // One segment: cpu_odd_even_sort with threads 1 uses 2 blocks of ceil(m / 2) keys at most.
  std::vector<odd_even_workspace<Key, Value>> ws(threads);
  if (longest > cpu_odd_even_small)
    for (auto& w : ws) w.reserve((longest + 1) / 2);
  auto one = [&](std::size_t s, unsigned t) {
    const std::size_t lo = offsets[s], m = offsets[s + 1] - lo;
    if (m < 2) return;
    Key* k = keys + lo;
    Value* v = values ? values + lo : values;
    if (m <= cpu_odd_even_small) {
      odd_even_transposition(k, v, m, comp);
    } else {
      odd_even_block_sort(1, k, v, m, (m + 1) / 2, comp, &ws[t]);
    }
  };
#ifdef _OPENMP
  if (threads > 1) {
    const std::size_t chunk = std::max<std::size_t>(1, segments / (64 * std::size_t(threads)));
    const long long count = static_cast<long long>(segments);
#pragma omp parallel for num_threads(threads) schedule(dynamic, chunk)
    for (long long s = 0; s < count; ++s) one(static_cast<std::size_t>(s), static_cast<unsigned>(omp_get_thread_num()));
    return;
  }
#endif
  for (std::size_t s = 0; s < segments; ++s) one(s, 0);
}

}  // namespace ssum::detail

#pragma once
// Host merges and the equal-pairs search: the ssum::cpu backend of merge.hpp. Header-only,
// since users pass their own comparators and generators. Host C++ only.
//
// Scheme (the one src/solver/two_list/two_list_cpu.cpp uses for list generation): the output is cut by merge
// path (merge_path.hpp) into `team size x K` equal diagonal ranges, "lanes" (K =
// cpu_merge_lanes_per_thread). Thread t owns lanes [t*K, t*K + K) and merges them in
// lockstep: one merge is a chain of dependent steps (load, compare, advance, load again) that
// leaves a core waiting on latency, and K independent chains interleaved keep it busy. A step
// is branch-free (the comparison selects, it does not jump) and consumes exactly one element
// of one input, so min(remaining) steps need no bounds checks; a lane that runs dry has its
// tail copied and leaves the lockstep. Lanes never share output: no synchronisation at all.
//
// The equal-pairs search (a + b = t iff a = t - b) is the same walk over the merge of A with
// C = (t - B reversed), which is ascending when B is: equal neighbours are matches. Each lane
// counts only the matches whose A-index lies in its own A-range, against the FULL run of equal
// elements in C (which, with ties taken from A first, never starts before the lane's C-range
// but may run past its end), so runs spanning lanes or threads are counted exactly once.
//
// Requirements: comparators, generators and value assignments callable from several threads
// at once and must not throw (they run inside an OpenMP region). Without OpenMP (no
// -fopenmp) everything runs on the calling thread with the same lanes and the same results.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "ssum/detail/cpu_team.hpp"
#include "ssum/int128.hpp"
#include "ssum/merge_path.hpp"

namespace ssum::detail {

/// Lanes merged in lockstep by one thread.
inline constexpr int cpu_merge_lanes_per_thread = 4;
/// Fewest output elements per thread: a smaller merge runs on fewer threads (below 2x this,
/// on the calling thread alone), since waking a team costs more than merging this much.
inline constexpr std::size_t cpu_merge_grain = std::size_t(1) << 15;

/// Team size for `total` outputs: at most `threads`, at least `grain` outputs per thread.
inline unsigned cpu_merge_team(unsigned threads, std::size_t total, std::size_t grain) {
  if (grain == 0) grain = 1;
  if (threads <= 1 || total / grain < 2) return 1;
  return static_cast<unsigned>(std::min<std::size_t>(threads, total / grain));
}

/// floor(total * k / parts) without overflowing 64 bits (k <= parts).
inline std::size_t cpu_merge_diagonal(std::size_t total, std::size_t k, std::size_t parts) {
  return total / parts * k + total % parts * k / parts;
}

/// One independent stretch of a merge: a[i, i_end) with b[j, j_end), written from out[i + j].
struct merge_lane {
  std::size_t i, i_end, j, j_end;
  std::size_t left() const { return std::min(i_end - i, j_end - j); }
};

/// Cuts diagonals [d(t*K), d(t*K + K)) of the merge of a[0, na) and c[0, nc) into K lanes,
/// d(k) = cpu_merge_diagonal(na + nc, k, p*K): thread t's share of a team of p.
template <int K, class AIt, class CAt, class Compare>
void cpu_merge_cut(unsigned t, unsigned p, AIt a, std::size_t na, const CAt& c, std::size_t nc, const Compare& comp,
                   merge_lane* lane) {
  const std::size_t total = na + nc, parts = std::size_t(p) * K;
  std::size_t d = cpu_merge_diagonal(total, std::size_t(t) * K, parts);
  std::size_t i = merge_path_split(a, na, c, nc, d, comp);
  for (int k = 0; k < K; ++k) {
    const std::size_t d_end = cpu_merge_diagonal(total, std::size_t(t) * K + k + 1, parts);
    const std::size_t i_end = merge_path_split(a, na, c, nc, d_end, comp);
    lane[k] = {i, i_end, d - i, d_end - i_end};
    d = d_end;
    i = i_end;
  }
}

/// The lockstep rounds all K lanes can take without a bounds check (at most `cap`): the
/// fewest any lane has left. `dry` is that lane (a lane with 0 left must leave the lockstep).
template <int K, class Lane>
std::size_t lockstep_rounds(const Lane* lane, std::size_t cap, int& dry) {
  dry = 0;
  for (int k = 0; k < K; ++k) {
    if (lane[k].left() < cap) cap = lane[k].left(), dry = k;
  }
  return cap;
}

// ---- merges ----------------------------------------------------------------------------

/// What a merge reads and writes: keys only. b(j) yields b's j-th key.
template <class T, class AIt, class BAt>
struct merge_keys_io {
  AIt a;
  BAt b;
  T* out;
  T key_a(std::size_t i) const { return a[i]; }
  T key_b(std::size_t j) const { return static_cast<T>(b(j)); }
  void put(std::size_t i, std::size_t j, bool take_b, const T& ka, const T& kb) const { out[i + j] = take_b ? kb : ka; }
  void put_a(std::size_t i, std::size_t j, const T& ka) const { out[i + j] = ka; }
  void put_b(std::size_t i, std::size_t j, const T& kb) const { out[i + j] = kb; }
};

/// Keys and the values that travel with them.
template <class K, class V>
struct merge_pairs_io {
  const K* a;
  const V* av;
  const K* b;
  const V* bv;
  K* out;
  V* out_v;
  K key_a(std::size_t i) const { return a[i]; }
  K key_b(std::size_t j) const { return b[j]; }
  void put(std::size_t i, std::size_t j, bool take_b, const K& ka, const K& kb) const {
    out[i + j] = take_b ? kb : ka;
    out_v[i + j] = take_b ? bv[j] : av[i];  // both in bounds inside the lockstep
  }
  void put_a(std::size_t i, std::size_t j, const K& ka) const {
    out[i + j] = ka;
    out_v[i + j] = av[i];
  }
  void put_b(std::size_t i, std::size_t j, const K& kb) const {
    out[i + j] = kb;
    out_v[i + j] = bv[j];
  }
};

/// Merges K lanes in lockstep (see the top of the file); ties take a first: stable.
template <int K, class IO, class Compare>
void cpu_merge_lanes(const IO& io_in, merge_lane* lane, const Compare& comp_in) {
  if constexpr (K > 0) {
    // Local copies: stores through io.out could otherwise be taken to alias the pointers and
    // indices and pin them in memory; locals whose address never escapes stay in registers.
    const IO io = io_in;
    const Compare comp = comp_in;
    for (;;) {
      int dry;
      std::size_t steps = lockstep_rounds<K>(lane, SIZE_MAX, dry);
      if (steps == 0) {
        merge_lane& d = lane[dry];
        for (; d.i < d.i_end; ++d.i) io.put_a(d.i, d.j, io.key_a(d.i));
        for (; d.j < d.j_end; ++d.j) io.put_b(d.i, d.j, io.key_b(d.j));
        std::swap(lane[dry], lane[K - 1]);
        cpu_merge_lanes<K - 1>(io, lane, comp);
        return;
      }
      merge_lane l[K];
      for (int k = 0; k < K; ++k) l[k] = lane[k];
      for (; steps; --steps) {
        for (int k = 0; k < K; ++k) {  // unrolled: K is a constant
          const auto ka = io.key_a(l[k].i);
          const auto kb = io.key_b(l[k].j);
          const bool take_b = comp(kb, ka);  // ties take a: the merge is stable
          io.put(l[k].i, l[k].j, take_b, ka, kb);
          l[k].i += !take_b;
          l[k].j += take_b;
        }
      }
      for (int k = 0; k < K; ++k) lane[k] = l[k];
    }
  }
}

/// Merges a[0, na) and b_at(0..nb) through io (see merge_keys_io) on up to `threads` threads.
template <class IO, class AIt, class BAt, class Compare>
void cpu_merge_run(unsigned threads, std::size_t grain, const IO& io, AIt a, std::size_t na, const BAt& b_at,
                   std::size_t nb, const Compare& comp) {
  const std::size_t total = na + nb;
  if (total == 0) return;
  constexpr int K = cpu_merge_lanes_per_thread;
  cpu_team(cpu_merge_team(threads, total, grain), [&](unsigned t, unsigned p) {
    merge_lane lane[K];
    cpu_merge_cut<K>(t, p, a, na, b_at, nb, comp, lane);
    cpu_merge_lanes<K>(io, lane, comp);
  });
}

template <class T, class BAt, class Compare>
void cpu_merge_generated(unsigned threads, std::size_t grain, const T* a, std::size_t na, const BAt& b_at,
                         std::size_t nb, T* out, const Compare& comp) {
  const auto b = [&b_at](std::size_t j) { return static_cast<T>(b_at(j)); };
  cpu_merge_run(threads, grain, merge_keys_io<T, const T*, decltype(b)>{a, b, out}, a, na, b, nb, comp);
}

template <class T, class Compare>
void cpu_merge(unsigned threads, std::size_t grain, const T* a, std::size_t na, const T* b, std::size_t nb, T* out,
               const Compare& comp) {
  const auto b_at = [b](std::size_t j) { return b[j]; };
  cpu_merge_run(threads, grain, merge_keys_io<T, const T*, decltype(b_at)>{a, b_at, out}, a, na, b_at, nb, comp);
}

template <class K, class V, class Compare>
void cpu_merge_by_key(unsigned threads, std::size_t grain, const K* a, const V* av, std::size_t na, const K* b,
                      const V* bv, std::size_t nb, K* out, V* out_v, const Compare& comp) {
  const auto b_at = [b](std::size_t j) { return b[j]; };
  cpu_merge_run(threads, grain, merge_pairs_io<K, V>{a, av, b, bv, out, out_v}, a, na, b_at, nb, comp);
}

// ---- equal pairs: a + b = t ------------------------------------------------------------

// std::is_integral and std::is_unsigned leave out the 128-bit integers in strict C++ modes.
template <class T>
inline constexpr bool pair_sum_unsigned = std::is_unsigned_v<T> || std::is_same_v<T, uint128>;
template <class T>
inline constexpr bool pair_sum_type =
    (std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, int128> || std::is_same_v<T, uint128>;

/// C = t - (b[lo, hi) reversed): c(j) = t - b[hi - 1 - j], ascending when b is.
template <class T>
struct pair_sum_view {
  const T* b;
  std::size_t hi;
  T t;
  T operator()(std::size_t j) const { return static_cast<T>(t - b[hi - 1 - j]); }
};

/// The elements b[lo, hi) of ascending b for which t - b is representable in T. The others
/// cannot be part of an exact a + b = t (a would lie outside T), so dropping them both avoids
/// overflow and keeps C ascending.
template <class T>
std::pair<std::size_t, std::size_t> cpu_pair_sum_clip(const T* b, std::size_t nb, T t) {
  using lim = std::numeric_limits<T>;
  if constexpr (pair_sum_unsigned<T>) {
    return {0, static_cast<std::size_t>(std::upper_bound(b, b + nb, t) - b)};  // need b <= t
  } else if (t >= 0) {
    const T low = static_cast<T>(t - lim::max());  // need t - b <= max: b >= t - max
    return {static_cast<std::size_t>(std::lower_bound(b, b + nb, low) - b), nb};
  } else {
    const T high = static_cast<T>(t - lim::min());  // need t - b >= min: b <= t - min
    return {0, static_cast<std::size_t>(std::upper_bound(b, b + nb, high) - b)};
  }
}

/// A counting lane: a[i0, i1) against c[j, j1) in merge order. rs is where the run of `last`
/// (the last a taken) starts, clipped to i0; cnt the matches found so far.
template <class T>
struct count_lane {
  std::size_t i0, i, i1, j, j1, rs;
  T last;
  std::uint64_t cnt;
  std::size_t left() const { return std::min(i1 - i, j1 - j); }
};

/// The matches of a dry lane not yet counted: the a's equal to a[i1 - 1] in the lane against
/// the c's equal to it from j on (all c's from j on are >= a[i1 - 1]: see the file's top).
template <class T, class CAt>
std::uint64_t cpu_count_finish(const T* a, const CAt& c, std::size_t nc, const count_lane<T>& l) {
  if (l.i1 == l.i0) return l.cnt;
  const T v = a[l.i1 - 1];
  // With c dry, a[i, i1) was never taken: find where v's run starts (rs if it is last's run).
  const std::size_t rs = l.i < l.i1 ? static_cast<std::size_t>(std::lower_bound(a + l.rs, a + l.i1, v) - a) : l.rs;
  const std::size_t runs_c = l.j < nc && !(v < c(l.j)) ? detail::equal_run_end(c, l.j, nc, v) - l.j : 0;
  return l.cnt + std::uint64_t(l.i1 - rs) * std::uint64_t(runs_c);
}

template <int K, class T, class CAt>
std::uint64_t cpu_count_lanes(const T* a, const CAt& c_in, std::size_t nc, count_lane<T>* lane) {
  std::uint64_t total = 0;
  if constexpr (K > 0) {
    const CAt c = c_in;
    for (;;) {
      int dry;
      std::size_t steps = lockstep_rounds<K>(lane, SIZE_MAX, dry);
      if (steps == 0) {
        total += cpu_count_finish(a, c, nc, lane[dry]);
        std::swap(lane[dry], lane[K - 1]);
        return total + cpu_count_lanes<K - 1>(a, c, nc, lane);
      }
      count_lane<T> l[K];
      for (int k = 0; k < K; ++k) l[k] = lane[k];
      for (; steps; --steps) {
        for (int k = 0; k < K; ++k) {
          // Merge order, ties to a: when c is taken, every a of the lane equal to it has been
          // taken, and they are [rs, i) exactly when c == last.
          const T x = a[l[k].i], y = c(l[k].j);
          const bool take_c = y < x;
          l[k].cnt += (take_c & (y == l[k].last)) ? l[k].i - l[k].rs : 0;
          const std::size_t rs_a = x == l[k].last ? l[k].rs : l[k].i;
          l[k].rs = take_c ? l[k].rs : rs_a;
          l[k].last = take_c ? l[k].last : x;
          l[k].i += !take_c;
          l[k].j += take_c;
        }
      }
      for (int k = 0; k < K; ++k) lane[k] = l[k];
    }
  }
  return total;
}

/// Horowitz-Sahni's walk over K lanes in lockstep, looking for a[i] == c(j); stops when
/// `stop` is raised (checked every few thousand steps). Returns true with (fi, fj) on a match.
template <int K, class T, class CAt>
bool cpu_find_lanes(const T* a, const CAt& c_in, std::size_t nc, merge_lane* lane, const std::atomic<bool>& stop,
                    std::size_t& fi, std::size_t& fj) {
  if constexpr (K > 0) {
    const CAt c = c_in;
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return false;
      int dry;
      std::size_t steps = lockstep_rounds<K>(lane, 4096, dry);  // 4096: rounds between looks at the flag
      if (steps == 0) {
        // The lane's c ran dry first: its remaining a's can only match c's past j_end, and
        // only with the value a[i_end - 1], which c(j_end) has if any of them does.
        const merge_lane& d = lane[dry];
        if (d.i < d.i_end && d.j_end < nc && a[d.i_end - 1] == c(d.j_end)) {
          fi = d.i_end - 1;
          fj = d.j_end;
          return true;
        }
        std::swap(lane[dry], lane[K - 1]);
        return cpu_find_lanes<K - 1>(a, c, nc, lane, stop, fi, fj);
      }
      bool hit = false;
      merge_lane l[K];
      for (int k = 0; k < K; ++k) l[k] = lane[k];
      for (; steps && !hit; --steps) {
        for (int k = 0; k < K; ++k) {  // a match stays put: neither pointer moves
          const T x = a[l[k].i], y = c(l[k].j);
          hit |= x == y;
          l[k].i += x < y;
          l[k].j += y < x;
        }
      }
      for (int k = 0; k < K; ++k) lane[k] = l[k];
      if (hit) {
        for (int k = 0; k < K; ++k) {
          if (lane[k].left() > 0 && a[lane[k].i] == c(lane[k].j)) {
            fi = lane[k].i;
            fj = lane[k].j;
            return true;
          }
        }
      }
    }
  }
  return false;
}

/// Number of index pairs (i, j) with a[i] + b[j] == t exactly (see merge.hpp).
template <class T>
std::uint64_t cpu_count_pair_sums(unsigned threads, std::size_t grain, const T* a, std::size_t na, const T* b,
                                  std::size_t nb, T t) {
  static_assert(pair_sum_type<T>, "count_pair_sums needs an integer type");
  const auto [lo, hi] = cpu_pair_sum_clip(b, nb, t);
  const std::size_t nc = hi - lo;
  if (na == 0 || nc == 0) return 0;
  const pair_sum_view<T> c{b, hi, t};
  const auto comp = [](const T& x, const T& y) { return x < y; };
  constexpr int K = cpu_merge_lanes_per_thread;
  const unsigned team = cpu_merge_team(threads, na + nc, grain);
  std::vector<std::uint64_t> sums(team, 0);
  cpu_team(team, [&](unsigned th, unsigned p) {
    merge_lane cut[K];
    cpu_merge_cut<K>(th, p, a, na, c, nc, comp, cut);
    count_lane<T> lane[K];
    for (int k = 0; k < K; ++k) lane[k] = {cut[k].i, cut[k].i, cut[k].i_end, cut[k].j, cut[k].j_end, cut[k].i, T(), 0};
    sums[th] = cpu_count_lanes<K>(a, c, nc, lane);
  });
  std::uint64_t total = 0;
  for (std::uint64_t s : sums) total += s;
  return total;
}

struct pair_match_result {
  bool found;
  std::size_t i, j;
};

/// Some (i, j) with a[i] + b[j] == t exactly, if any (see merge.hpp).
template <class T>
pair_match_result cpu_find_pair_sum(unsigned threads, std::size_t grain, const T* a, std::size_t na, const T* b,
                                    std::size_t nb, T t) {
  static_assert(pair_sum_type<T>, "find_pair_sum needs an integer type");
  const auto [lo, hi] = cpu_pair_sum_clip(b, nb, t);
  const std::size_t nc = hi - lo;
  if (na == 0 || nc == 0) return {false, 0, 0};
  const pair_sum_view<T> c{b, hi, t};
  const auto comp = [](const T& x, const T& y) { return x < y; };
  constexpr int K = cpu_merge_lanes_per_thread;
  const unsigned team = cpu_merge_team(threads, na + nc, grain);
  std::vector<pair_match_result> found(team, pair_match_result{false, 0, 0});
  std::atomic<bool> stop{false};
  cpu_team(team, [&](unsigned th, unsigned p) {
    merge_lane lane[K];
    cpu_merge_cut<K>(th, p, a, na, c, nc, comp, lane);
    std::size_t fi = 0, fj = 0;
    if (cpu_find_lanes<K>(a, c, nc, lane, stop, fi, fj)) {
      found[th] = {true, fi, hi - 1 - fj};  // c(fj) = t - b[hi - 1 - fj]
      stop.store(true, std::memory_order_relaxed);
    }
  });
  for (const pair_match_result& f : found)
    if (f.found) return f;
  return {false, 0, 0};
}

}  // namespace ssum::detail

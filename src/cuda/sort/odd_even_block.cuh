#pragma once
// Odd-even transposition sort of one tile inside one thread block, for use in any kernel.
//
// The textbook GPU form runs one compare-exchange per thread and asks the host after every
// round whether anything moved (513 launches and 1026 copies for 1024 keys). Here each thread
// holds Items keys in registers and sorts them with the same transposition rounds; then
// neighbouring threads merge-split their sorted runs in odd-even rounds (Baudet and
// Stevenson 1978: the transposition sort one level up), and the convergence test — stop
// after an odd and an even round that exchanged nothing — is one __syncthreads_or per round.
// Stable: an exchange happens only when the right key is strictly smaller.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "ssum/sort.hpp"

namespace ssum::cuda_detail {

// A key that orders after every key under comp (ties keep padding behind real keys, since
// the sort is stable and padding starts at the end).
template <class Key, class Compare>
__device__ Key last_key() {
  if constexpr (std::is_same_v<Compare, ssum::less>) {
    if constexpr (std::is_floating_point_v<Key>) return std::numeric_limits<Key>::quiet_NaN();
    else return std::numeric_limits<Key>::max();
  } else {
    if constexpr (std::is_floating_point_v<Key>) return -std::numeric_limits<Key>::infinity();
    else return std::numeric_limits<Key>::lowest();
  }
}

template <class Value>
inline constexpr bool has_values = ssum::detail::has_values_v<Value>;

template <int Threads, int Items, class Key, class Value, class Compare>
struct block_odd_even_sort {
  static constexpr int tile = Threads * Items;
  struct storage {
    Key keys[tile];
    Value values[has_values<Value> ? tile : 1];
  };

  // Sorts s.keys[0, count) (and s.values alongside) in place; count <= tile. Every thread of
  // the block must call it.
  __device__ static void sort(storage& s, int count, Compare comp) {
    const int t = threadIdx.x;
    const int runs = (count + Items - 1) / Items;  // threads that hold real keys
    Key k[Items];
    Value v[has_values<Value> ? Items : 1];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int at = t * Items + i;
      k[i] = at < count ? s.keys[at] : last_key<Key, Compare>();
      if constexpr (has_values<Value>) v[i] = at < count ? s.values[at] : Value{};
    }
    // Transposition rounds inside the thread's registers.
#pragma unroll
    for (int round = 0; round < Items; ++round) {
#pragma unroll
      for (int i = round % 2; i + 1 < Items; i += 2) {
        if (comp(k[i + 1], k[i])) {
          swap(k[i], k[i + 1]);
          if constexpr (has_values<Value>) swap(v[i], v[i + 1]);
        }
      }
    }
    // Merge-split rounds between neighbouring threads, until an odd and an even round in a
    // row change nothing (at most `runs` rounds are needed).
    int quiet = 0;
    for (int round = 0; quiet < 2 && round <= runs; ++round) {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        s.keys[t * Items + i] = k[i];
        if constexpr (has_values<Value>) s.values[t * Items + i] = v[i];
      }
      __syncthreads();
      const bool left = (t % 2) == (round % 2);  // left member of its pair this round
      const int partner = left ? t + 1 : t - 1;
      bool changed = false;
      if (t < runs && partner >= 0 && partner < runs) {
        const int lo = (left ? t : partner) * Items, hi = lo + Items;  // the pair's two runs
        changed = comp(s.keys[hi], s.keys[hi - 1]);
        if (changed) {
          if (left) {  // the pair's lower half: merge from the front, ties from the left run
            int i = lo, j = hi;
#pragma unroll
            for (int o = 0; o < Items; ++o) {
              const bool take_right = j < hi + Items && (i >= hi || comp(s.keys[j], s.keys[i]));
              const int from = take_right ? j++ : i++;
              k[o] = s.keys[from];
              if constexpr (has_values<Value>) v[o] = s.values[from];
            }
          } else {  // the upper half: merge from the back, ties from the right run
            int i = hi - 1, j = hi + Items - 1;
#pragma unroll
            for (int o = Items - 1; o >= 0; --o) {
              const bool take_left = i >= lo && (j < hi || comp(s.keys[j], s.keys[i]));
              const int from = take_left ? i-- : j--;
              k[o] = s.keys[from];
              if constexpr (has_values<Value>) v[o] = s.values[from];
            }
          }
        }
      }
      quiet = __syncthreads_or(changed) ? 0 : quiet + 1;  // also ends this round's reads
    }
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      s.keys[t * Items + i] = k[i];
      if constexpr (has_values<Value>) s.values[t * Items + i] = v[i];
    }
    __syncthreads();
  }

 private:
  template <class T>
  __device__ static void swap(T& a, T& b) {
    const T x = a;
    a = b;
    b = x;
  }
};

}  // namespace ssum::cuda_detail

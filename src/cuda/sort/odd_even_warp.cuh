#pragma once
// Odd-even transposition sort of short arrays inside a warp, keys in registers.
//
// A group of Lanes consecutive lanes sorts up to Lanes x Items keys; lane g of the group holds
// positions [g * Items, (g + 1) * Items). Each lane first sorts its Items keys with Batcher's
// odd-even merge network (static indexes, so the keys never leave registers), then the lanes
// run the transposition sort one level up (Baudet and Stevenson 1978): in round r, lanes
// 2i + (r % 2) and 2i + 1 + (r % 2) merge-split their runs, the left keeping the lower half.
// A merge-split here is the first step of a bitonic merge (min/max against the partner's run
// reversed, exchanged by shuffles) followed by the bitonic half-cleaners: no shared memory,
// no barrier. The textbook convergence test survives as one __any_sync per
// round: stop after an odd and an even round in which no pair overlapped. Lanes rounds
// suffice in the worst case (Baudet-Stevenson).
//
// Stability: the network is not stable by itself, so when equal keys can be told apart
// (values carried along, or floating-point keys: -0.0 vs +0.0, NaN payloads) each key is
// paired with its input position and ties are broken by position, which makes the order
// unique and equal to the stable one. Integer keys without values skip the positions.
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "cuda/sort/odd_even_block.cuh"

namespace ssum::cuda_detail {

// Whether equal keys are distinguishable in the output (then positions break ties).
template <class Key, class Value>
inline constexpr bool ties_visible = has_values<Value> || std::is_floating_point_v<Key>;

template <int Items, int Lanes, class Key, class Value, class Compare>
struct warp_odd_even_sort {
  static_assert(Items >= 1 && (Items & (Items - 1)) == 0, "Items: a power of two");
  static_assert(Lanes >= 2 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0, "Lanes: a power of two up to 32");
  static constexpr int capacity = Items * Lanes;
  static constexpr bool stable = ties_visible<Key, Value>;
  using value_t = std::conditional_t<has_values<Value>, Value, unsigned char>;

  // The keys of one lane; v and pos are dead (and optimised away) when unused.
  struct run {
    Key k[Items];
    value_t v[Items];
    unsigned pos[Items];
  };

  __device__ static int group_lane() { return (threadIdx.x % 32) % Lanes; }

  // Loads this lane's part of keys[0, count) (count <= capacity), padding with keys that
  // order after every real one.
  __device__ static void load(run& x, const Key* keys, const Value* values, int count) {
    const int g = group_lane();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int at = g * Items + i;
      x.k[i] = at < count ? keys[at] : last_key<Key, Compare>();
      if constexpr (has_values<Value>) x.v[i] = at < count ? values[at] : Value{};
      x.pos[i] = static_cast<unsigned>(at);
    }
  }
  __device__ static void store(const run& x, Key* keys, Value* values, int count) {
    const int g = group_lane();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int at = g * Items + i;
      if (at < count) {
        keys[at] = x.k[i];
        if constexpr (has_values<Value>) values[at] = x.v[i];
      }
    }
  }

  // Sorts every group's keys. All 32 lanes of the warp must call it (shuffles use the full
  // mask); a group with nothing to sort simply holds padding.
  __device__ static void sort(run& x, Compare comp) {
    sort_lane(x, comp);
    const int g = group_lane();
    int quiet = 0;
    for (int round = 0; round <= Lanes && quiet < 2; ++round) {
      const bool left = (g % 2) == (round % 2);
      const int partner = left ? g + 1 : g - 1;
      const bool paired = partner >= 0 && partner < Lanes;
      const int src = static_cast<int>(threadIdx.x % 32) + (paired ? partner - g : 0);
      run y;
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        y.k[i] = __shfl_sync(0xffffffffu, x.k[i], src);
        if constexpr (has_values<Value>) y.v[i] = __shfl_sync(0xffffffffu, x.v[i], src);
        if constexpr (stable) y.pos[i] = __shfl_sync(0xffffffffu, x.pos[i], src);
      }
      // The two runs overlap iff the right run's first key precedes the left run's last.
      bool changed = false;
      if (paired) changed = left ? before(y, 0, x, Items - 1, comp) : before(x, 0, y, Items - 1, comp);
      if (changed) {
        // Element i against the partner's element Items-1-i: the lower (left) or upper
        // (right) half of both runs, as a bitonic sequence.
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const int j = Items - 1 - i;
          copy_if(left ? before(y, j, x, i, comp) : before(x, i, y, j, comp), x, i, y, j);
        }
        bitonic_clean(x, comp);
      }
      quiet = __any_sync(0xffffffffu, changed) ? 0 : quiet + 1;
    }
  }

 private:
  __device__ static bool before(const run& a, int i, const run& b, int j, Compare comp) {
    if constexpr (stable) {
      return comp(a.k[i], b.k[j]) || (!comp(b.k[j], a.k[i]) && a.pos[i] < b.pos[j]);
    } else {
      return comp(a.k[i], b.k[j]);
    }
  }
  // Selects, not branches: a divergent branch per comparator (and lanes disagree on most)
  // costs far more than the two selects it saves.
  template <class T>
  __device__ static T pick(bool take, T if_taken, T otherwise) {
    return take ? if_taken : otherwise;
  }
  __device__ static void copy_if(bool take, run& to, int i, const run& from, int j) {
    to.k[i] = pick(take, from.k[j], to.k[i]);
    if constexpr (has_values<Value>) to.v[i] = pick(take, from.v[j], to.v[i]);
    if constexpr (stable) to.pos[i] = pick(take, from.pos[j], to.pos[i]);
  }
  __device__ static void exchange(run& x, int i, int j, Compare comp) {  // i < j
    const bool swap = before(x, j, x, i, comp);
    const Key ki = x.k[i], kj = x.k[j];
    x.k[i] = pick(swap, kj, ki);
    x.k[j] = pick(swap, ki, kj);
    if constexpr (has_values<Value>) {
      const value_t vi = x.v[i], vj = x.v[j];
      x.v[i] = pick(swap, vj, vi);
      x.v[j] = pick(swap, vi, vj);
    }
    if constexpr (stable) {
      const unsigned pi = x.pos[i], pj = x.pos[j];
      x.pos[i] = pick(swap, pj, pi);
      x.pos[j] = pick(swap, pi, pj);
    }
  }
  // Batcher's odd-even merge sort network (Batcher 1968; Knuth 5.3.4) on the lane's keys.
  __device__ static void sort_lane(run& x, Compare comp) {
#pragma unroll
    for (int p = 1; p < Items; p *= 2) {
#pragma unroll
      for (int k = p; k >= 1; k /= 2) {
        // Comparators (a, a + k) for a = k % p + 2k m + i, i < k, within one block of 2p.
        // One flat loop, so that every index is a compile-time constant and the keys stay
        // in registers.
#pragma unroll
        for (int a = 0; a < Items; ++a) {
          const int r = k % p;
          if (a >= r && (a - r) % (2 * k) < k && a + k < Items && a / (2 * p) == (a + k) / (2 * p)) {
            exchange(x, a, a + k, comp);
          }
        }
      }
    }
  }
  // A bitonic sequence becomes sorted through half-cleaners of halving spans.
  __device__ static void bitonic_clean(run& x, Compare comp) {
#pragma unroll
    for (int d = Items / 2; d >= 1; d /= 2) {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if ((i & d) == 0) exchange(x, i, i + d, comp);
      }
    }
  }
};

}  // namespace ssum::cuda_detail

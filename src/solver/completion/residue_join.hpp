#pragma once
// Internal: the completion search's exact engine. One residue class at a time of a K-item
// instance's four-list (Schroeppel and Shamir 1981, in the modular form that Howgrave-Graham
// and Joux, *New generic algorithms for hard knapsacks*, 2010, use for dense instances):
// a solution a + b + c + d = t has a + b = r (mod M) for exactly one r, so class r holds
// about 1/M of the solutions and 2^(K/2)/M pairs on each side. A dense instance expects
// solutions in about every class, so one or a few classes answer it.
//
// Unlike the exhaustive four-list (four_list_cpu.cpp), which keeps each class in a core's
// cache by a modulus near 2^(K/4) and hashes into it at random, a class here is large
// (2^21 pairs at K = 84) and is made sequential: each quarter's sums are kept in residue
// order, so the pairs of a class are a walk over Q1 upwards and Q2 downwards; the two sides'
// pairs are radix-partitioned by a hash of their sums and joined one cache-sized partition at
// a time.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ssum/int128.hpp"

namespace ssum::detail {

class residue_join {
 public:
  /// A pair of one side of a class: the low 64 bits of its sum (left: a + b; right:
  /// t - (c + d)) and its two positions in the quarters' residue order.
  struct pair_entry {
    std::uint64_t key;
    std::uint32_t first, second;
  };
  /// One thread's buffers for search(), reused from class to class.
  struct scratch {
    std::vector<pair_entry> left, right;
    std::vector<std::uint32_t> left_at, right_at, slots;
    bool overflowed = false;  // the last class held more pairs than the plan: not searched
  };

  /// For K items (8 <= K <= 92) and a modulus in [2, 2^31); quarters built by `threads`
  /// threads; `cancel` is polled throughout.
  residue_join(std::size_t k, std::uint64_t modulus, unsigned threads, const std::atomic<bool>* cancel);

  /// The instance: `weights`, K magnitudes whose total is below 2^127, and the target.
  /// `excluded` (empty, or one flag per weight): a subset that is not a solution (zero-sum:
  /// the one that maps back to the empty subset). Throws ssum::interrupted when `cancel` rises.
  void assign(const std::vector<uint128>& weights, uint128 target, const std::vector<bool>& excluded);

  /// The first solution in class r (a + b = r mod M), as ascending positions in `weights`;
  /// empty when the class holds none or `cancel` rose (the caller checks it). The same
  /// class always gives the same solution. A class whose pairs (a side, or one partition)
  /// exceed what planned_bytes counts is left unsearched and sets s.overflowed: the
  /// numbers' residues are uneven there (many small numbers), and the plan is a promise.
  std::optional<std::vector<std::size_t>> search(std::uint64_t r, scratch& s) const;

  /// Bytes for K items and modulus M: the quarters and their building space, and per thread
  /// a class's partitioned pairs (2^(K/2)/M a side) and their hash slots.
  static double planned_bytes(std::size_t k, std::uint64_t modulus, unsigned threads);

 private:
  struct quarter_sums {
    std::size_t first = 0, count = 0;  // items [first, first + count)
    std::vector<uint128> sum;          // ascending residue
    std::vector<std::uint32_t> mask;   // the subset of each sum
    std::vector<std::uint32_t> offset; // residue q: [offset[q], offset[q + 1])
    std::vector<uint128> mask_order;   // building space: the sums in mask order,
    std::vector<std::uint32_t> residue;// and their residues
  };
  void build(quarter_sums& q, const std::vector<uint128>& weights);
  // The pairs of quarters x, y whose residues add to `want` and whose sums are at most t
  // (right: keyed t - sum), radix-partitioned by a hash of the key into `out`, partition p
  // at [at[p], at[p + 1]): one walk counts, a second places. False when cancelled.
  bool pairs(const quarter_sums& x, const quarter_sums& y, std::uint64_t want, bool right, int bits,
             std::vector<pair_entry>& out, std::vector<std::uint32_t>& at) const;
  template <class Visit>
  bool walk(const quarter_sums& x, const quarter_sums& y, std::uint64_t want, Visit&& visit) const;

  std::size_t k_ = 0;
  uint128 t_ = 0;
  std::uint64_t m_ = 2;
  unsigned threads_ = 1;
  int partition_bits_ = 0;
  std::size_t most_pairs_ = 0;  // a side's pairs in one class, as planned_bytes counts them
  quarter_sums q_[4];
  std::uint32_t excluded_[4] = {0, 0, 0, 0};
  bool has_excluded_ = false;
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace ssum::detail

// The completion search's engine: one residue class of a K-item four-list (residue_join.hpp).
#include "solver/completion/residue_join.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "solver/four_list/four_list_plan.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {
namespace {

constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ull;  // Fibonacci hashing
// Pairs per partition of the join: its right side's table (8 KiB of slots) and both sides'
// entries (64 KiB) stay within a core's L2 cache.
constexpr std::size_t partition_pairs = 2048;
// A partition beyond this many times its share (equal keys pile up where the numbers are
// uneven) overflows: its hash slots stay within what planned_bytes counts.
constexpr std::size_t partition_overflow = 16;
// A side's pairs in one class as planned: 1.25 times their share, and at least this many (a
// small class's count varies by more than a quarter).
constexpr double least_class_pairs = 65536;

std::size_t partition_of(std::uint64_t key, int bits) {
  return bits == 0 ? 0 : std::size_t((key * golden) >> (64 - bits));
}

}  // namespace

residue_join::residue_join(std::size_t k, std::uint64_t modulus, unsigned threads, const std::atomic<bool>* cancel)
    : k_(k), m_(modulus), threads_(std::max(1u, threads)), cancel_(cancel) {
  if (k < 8 || k > 92) throw std::invalid_argument("residue_join takes 8 to 92 items");
  if (modulus < 2 || modulus >= (std::uint64_t{1} << 31)) throw std::invalid_argument("residue_join: modulus");
  quarter cut[4];
  quarters_of(k, cut);
  for (int j = 0; j < 4; ++j) q_[j].first = cut[j].first, q_[j].count = cut[j].count;
  const double pairs = std::ldexp(1.0, int(std::max(cut[0].count + cut[1].count, cut[2].count + cut[3].count))) /
                       double(modulus);
  while (std::ldexp(double(partition_pairs), partition_bits_) < pairs) ++partition_bits_;
  most_pairs_ = std::size_t(std::max(pairs * 1.25, least_class_pairs));
}

void residue_join::assign(const std::vector<uint128>& weights, uint128 target, const std::vector<bool>& excluded) {
  if (weights.size() != k_) throw std::invalid_argument("residue_join: the weights are not K");
  t_ = target;
  has_excluded_ = !excluded.empty();
  for (int j = 0; j < 4; ++j) {
    excluded_[j] = 0;
    for (std::size_t b = 0; has_excluded_ && b < q_[j].count; ++b) {
      if (excluded[q_[j].first + b]) excluded_[j] |= std::uint32_t{1} << b;
    }
  }
  bool cancelled = false;
#pragma omp parallel for num_threads(std::min(threads_, 4u)) schedule(static, 1)
  for (int j = 0; j < 4; ++j) {
    try {
      build(q_[j], weights);
    } catch (const interrupted&) {
#pragma omp critical(residue_join_build)
      cancelled = true;
    }
  }
  if (cancelled) throw interrupted();
}

// The sums in mask order with their residues, computed by additions alone (a 128-bit
// division per sum would cost more than the rest), then counting-sorted by residue.
void residue_join::build(quarter_sums& q, const std::vector<uint128>& weights) {
  const std::size_t size = std::size_t{1} << q.count;
  q.mask_order.resize(size);
  q.residue.resize(size);
  q.mask_order[0] = 0, q.residue[0] = 0;
  for (std::size_t j = 0; j < q.count; ++j) {
    const uint128 w = weights[q.first + j];
    const auto wr = static_cast<std::uint32_t>(w % m_);
    const std::size_t half = std::size_t{1} << j;
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw interrupted();
    for (std::size_t s = 0; s < half; ++s) {
      q.mask_order[half + s] = q.mask_order[s] + w;
      const std::uint64_t x = std::uint64_t(q.residue[s]) + wr;
      q.residue[half + s] = static_cast<std::uint32_t>(x >= m_ ? x - m_ : x);
    }
  }
  q.offset.assign(m_ + 1, 0);
  for (std::size_t s = 0; s < size; ++s) ++q.offset[q.residue[s] + 1];
  for (std::uint64_t r = 0; r < m_; ++r) q.offset[r + 1] += q.offset[r];
  q.sum.resize(size);
  q.mask.resize(size);
  // The offsets serve as the placing cursors, and are then shifted back by one bucket.
  for (std::size_t s = 0; s < size; ++s) {
    const std::uint32_t at = q.offset[q.residue[s]]++;
    q.sum[at] = q.mask_order[s];
    q.mask[at] = static_cast<std::uint32_t>(s);
  }
  for (std::uint64_t r = m_; r > 0; --r) q.offset[r] = q.offset[r - 1];
  q.offset[0] = 0;
}

template <class Visit>
bool residue_join::walk(const quarter_sums& x, const quarter_sums& y, std::uint64_t want, Visit&& visit) const {
  // Residue u of x meets residue want - u of y: u upwards, its partner downwards (wrapping once).
  std::uint64_t v = want;
  for (std::uint64_t u = 0; u < m_; ++u) {
    if ((u & 4095) == 0 && cancel_ && cancel_->load(std::memory_order_relaxed)) return false;
    const std::uint32_t xb = x.offset[u], xe = x.offset[u + 1], yb = y.offset[v], ye = y.offset[v + 1];
    for (std::uint32_t i = xb; i < xe; ++i) {
      const uint128 a = x.sum[i];
      if (a > t_) continue;
      for (std::uint32_t j = yb; j < ye; ++j) {
        const uint128 s = a + y.sum[j];
        if (s <= t_) visit(s, i, j);
      }
    }
    v = v == 0 ? m_ - 1 : v - 1;
  }
  return true;
}

bool residue_join::pairs(const quarter_sums& x, const quarter_sums& y, std::uint64_t want, bool right, int bits,
                         std::vector<pair_entry>& out, std::vector<std::uint32_t>& at) const {
  const std::size_t parts = std::size_t{1} << bits;
  at.assign(parts + 1, 0);
  const auto key_of = [&](uint128 s) { return static_cast<std::uint64_t>(right ? t_ - s : s); };
  if (!walk(x, y, want, [&](uint128 s, std::uint32_t, std::uint32_t) { ++at[partition_of(key_of(s), bits) + 1]; })) {
    return false;
  }
  for (std::size_t p = 0; p < parts; ++p) {
    if (at[p + 1] > partition_overflow * partition_pairs) return false;
    at[p + 1] += at[p];
  }
  if (at[parts] > most_pairs_) return false;  // beyond the plan: never grown
  out.resize(at[parts]);
  // The cursors run ahead by one partition; shifted back afterwards.
  if (!walk(x, y, want, [&](uint128 s, std::uint32_t i, std::uint32_t j) {
        const std::uint64_t key = key_of(s);
        out[at[partition_of(key, bits)]++] = {key, i, j};
      })) {
    return false;
  }
  for (std::size_t p = parts; p > 0; --p) at[p] = at[p - 1];
  at[0] = 0;
  return true;
}

std::optional<std::vector<std::size_t>> residue_join::search(std::uint64_t r, scratch& s) const {
  r %= m_;
  const std::uint64_t right_want = (static_cast<std::uint64_t>(t_ % m_) + m_ - r) % m_;
  const int bits = partition_bits_;
  s.overflowed = false;
  if (!pairs(q_[0], q_[1], r, false, bits, s.left, s.left_at) ||
      !pairs(q_[2], q_[3], right_want, true, bits, s.right, s.right_at)) {
    s.overflowed = !(cancel_ && cancel_->load(std::memory_order_relaxed));
    return std::nullopt;
  }
  const std::size_t parts = std::size_t{1} << bits;
  for (std::size_t p = 0; p < parts; ++p) {
    if ((p & 63) == 0 && cancel_ && cancel_->load(std::memory_order_relaxed)) return std::nullopt;
    const std::uint32_t rb = s.right_at[p], re = s.right_at[p + 1], lb = s.left_at[p], le = s.left_at[p + 1];
    if (rb == re || lb == le) continue;
    std::size_t size = 16;
    while (size < 2 * std::size_t(re - rb)) size *= 2;
    const std::size_t mask = size - 1;
    s.slots.assign(size, 0);  // entry index + 1; 0 is free
    const auto slot_of = [mask](std::uint64_t key) { return std::size_t((key * golden) >> 24) & mask; };
    for (std::uint32_t e = rb; e < re; ++e) {
      std::size_t at = slot_of(s.right[e].key);
      while (s.slots[at] != 0) at = (at + 1) & mask;
      s.slots[at] = e - rb + 1;
    }
    for (std::uint32_t e = lb; e < le; ++e) {
      const pair_entry& left = s.left[e];
      for (std::size_t at = slot_of(left.key); s.slots[at] != 0; at = (at + 1) & mask) {
        const pair_entry& right = s.right[rb + s.slots[at] - 1];
        if (right.key != left.key) continue;
        // The low 64 bits agree: the whole sums must too.
        const uint128 total = q_[0].sum[left.first] + q_[1].sum[left.second] + q_[2].sum[right.first] +
                              q_[3].sum[right.second];
        if (total != t_) continue;
        const std::uint32_t masks[4] = {q_[0].mask[left.first], q_[1].mask[left.second], q_[2].mask[right.first],
                                        q_[3].mask[right.second]};
        if (has_excluded_ && masks[0] == excluded_[0] && masks[1] == excluded_[1] && masks[2] == excluded_[2] &&
            masks[3] == excluded_[3]) {
          continue;
        }
        std::vector<std::size_t> positions;
        for (int k = 0; k < 4; ++k) {
          for (std::size_t b = 0; b < q_[k].count; ++b) {
            if ((masks[k] >> b) & 1u) positions.push_back(q_[k].first + b);
          }
        }
        return positions;
      }
    }
  }
  return std::nullopt;
}

double residue_join::planned_bytes(std::size_t k, std::uint64_t modulus, unsigned threads) {
  quarter cut[4];
  quarters_of(k, cut);
  double quarters = 0;  // sums and masks by residue, offsets; as much again to build them
  for (const quarter& q : cut) quarters += double(std::uint64_t{1} << q.count) * (16 + 4) + double(modulus + 1) * 4;
  const std::size_t side = std::max(cut[0].count + cut[1].count, cut[2].count + cut[3].count);
  const double pairs = std::max(double(std::uint64_t{1} << side) / double(modulus) * 1.25, least_class_pairs);
  // A class's pairs a side (search() refuses more), their partitions' cursors, and the hash
  // slots of the largest partition it takes.
  const double slots = 4.0 * partition_overflow * partition_pairs * 4;
  const double per_thread = 2 * pairs * sizeof(pair_entry) + 3 * pairs / partition_pairs * 4 + slots + 65536;
  return 2 * quarters + double(threads) * per_thread;
}

}  // namespace ssum::detail

// Standard instance classes (docs/instances.md).
//
// Determinism: std::mt19937_64's output sequence is fixed by the standard, but the
// std:: distributions are not, so all sampling (uniform integers, shuffles) is done here.
// The order in which each class draws from the engine is part of the output format: changing
// it changes every instance for a given seed.
#include "ssum/generate.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

namespace ssum {
namespace {

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// Uniform in [0, range), range >= 1. Lemire's multiply-and-reject: exact (no modulo bias)
// and defined only in terms of the engine's 64-bit outputs.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t range) {
  uint128 m = uint128{rng()} * range;
  auto low = static_cast<std::uint64_t>(m);
  if (low < range) {
    const std::uint64_t threshold = (0 - range) % range;  // 2^64 mod range
    while (low < threshold) {
      m = uint128{rng()} * range;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

// Uniform in [lo, hi]; the span hi - lo + 1 must be below 2^64.
std::int64_t uniform_in(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + uniform_below(rng, span));
}

// Uniform in [lo, hi] for any span up to 2^127: uniform_in (the same draws, so every
// instance of up to 62 bits is unchanged) while the span fits 64 bits; beyond, 128-bit words
// masked to the span's width and rejected until inside (at most 2 tries expected).
int128 uniform_in_wide(std::mt19937_64& rng, int128 lo, int128 hi) {
  const uint128 span = uint128(hi) - uint128(lo) + 1;
  if (span <= uint128(int64_max) && lo >= -int128(int64_max) - 1 && hi <= int128(int64_max)) {
    return uniform_in(rng, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
  }
  uint128 mask = span - 1;
  for (int shift = 1; shift < 128; shift *= 2) mask |= mask >> shift;
  uint128 x = 0;
  do {
    const uint128 high = rng();
    x = ((high << 64) | rng()) & mask;
  } while (x >= span);
  return int128(uint128(lo) + x);
}

// Fisher-Yates from the back, using uniform_below.
template <class T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(uniform_below(rng, i));
    std::swap(v[i - 1], v[j]);
  }
}

int128 sum_of(const std::vector<int128>& w) {
  int128 s = 0;
  for (const auto x : w) s += x;
  return s;
}

int floor_log2(std::size_t n) {  // n >= 1
  int k = 0;
  while (n >>= 1) ++k;
  return k;
}

int128 floor_div(int128 a, int128 b) {  // b > 0
  int128 q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

// Unsigned weights uniform in [1, 2^bits).
std::vector<int128> positive_weights(std::size_t n, int bits, std::mt19937_64& rng) {
  std::vector<int128> w(n);
  const int128 hi = (int128{1} << bits) - 1;
  for (auto& x : w) x = uniform_in_wide(rng, 1, hi);
  return w;
}

problem make_random(std::size_t n, int bits, std::mt19937_64& rng) {
  problem p;
  p.weights = positive_weights(n, bits, rng);
  p.target = sum_of(p.weights) / 2 + 1;  // the sum is >= 0, so / is floor
  return p;
}

// Number partitioning: a subset with floor(total / 2) splits the weights into two halves
// whose sums differ by total mod 2, the least possible (a perfect partition).
problem make_partition(std::size_t n, int bits, std::mt19937_64& rng) {
  problem p;
  p.weights = positive_weights(n, bits, rng);
  p.target = sum_of(p.weights) / 2;
  return p;
}

problem make_planted(std::size_t n, int bits, std::mt19937_64& rng) {
  problem p;
  p.weights = positive_weights(n, bits, rng);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  shuffle(order, rng);
  int128 t = 0;
  for (std::size_t i = 0; i < n / 2; ++i) t += p.weights[order[i]];
  p.target = t;  // n = 1 plants the empty subset: target 0
  return p;
}

// n = 0 gives the empty zero-sum problem, which is infeasible (the answer must be a
// non-empty subset); n = 1 gives the single weight 0.
problem make_zero_sum(std::size_t n, int bits, std::mt19937_64& rng) {
  problem p;  // no target: zero-sum
  if (n == 0) return p;
  if (n == 1) {
    p.weights = {0};
    return p;
  }
  const int128 limit = int128{1} << bits;  // every |w| < limit
  const std::size_t s = std::max<std::size_t>(2, n / 2);
  p.weights.reserve(n);
  // The planted set S. Each magnitude is uniform in [0, 2^B), but its sign is chosen against
  // the running sum so that the sum, and hence the closing element, stays inside
  // (-2^B, 2^B): the signs within S are conditioned, not i.i.d.
  int128 running = 0;
  for (std::size_t i = 0; i + 1 < s; ++i) {
    const int128 m = uniform_in_wide(rng, 0, limit - 1);
    const int128 v = running >= 0 ? -m : m;
    p.weights.push_back(v);
    running += v;
  }
  p.weights.push_back(-running);
  for (std::size_t i = s; i < n; ++i) p.weights.push_back(uniform_in_wide(rng, -(limit - 1), limit - 1));
  shuffle(p.weights, rng);
  return p;
}

// Todd's weight for item j (1-based) in int128; k + n + 1 must stay below 127.
int128 todd_weight(std::size_t n, int k, std::size_t j) {
  return (int128{1} << (k + n + 1)) + (int128{1} << (k + j)) + 1;
}

bool todd_fits(std::size_t n) {
  if (n == 0) return true;
  if (n > 64) return false;  // far past the limit, and the shifts below would leave int128
  const int k = floor_log2(n);
  return todd_weight(n, k, n) <= int64_max;  // j = n is the largest weight
}

std::size_t todd_max_n() {
  std::size_t n = 0;
  while (todd_fits(n + 1)) ++n;
  return n;  // 56
}

problem make_todd(std::size_t n) {
  if (!todd_fits(n)) {
    throw std::invalid_argument("todd: n = " + std::to_string(n) +
                                " gives weights beyond int64; the largest n is " +
                                std::to_string(todd_max_n()));
  }
  problem p;
  const int k = n == 0 ? 0 : floor_log2(n);
  p.weights.reserve(n);
  for (std::size_t j = 1; j <= n; ++j) p.weights.push_back(todd_weight(n, k, j));
  p.target = sum_of(p.weights) / 2;
  return p;
}

problem make_avis(std::size_t n) {
  // Largest weight n(n+1) + n; checked in uint128 since n(n+2) can exceed int128 for huge n.
  const uint128 un = n;
  if (un * (un + 2) > static_cast<uint128>(int64_max)) {
    throw std::invalid_argument("avis: n = " + std::to_string(n) + " gives weights beyond int64");
  }
  const int128 nn = static_cast<int128>(n);
  problem p;
  p.weights.reserve(n);
  for (std::size_t j = 1; j <= n; ++j) p.weights.push_back(nn * (nn + 1) + static_cast<int128>(j));
  // n = 0: floor((0 - 1) / 2) = -1, multiplied by 0; the target is 0.
  p.target = nn * (nn + 1) * floor_div(nn - 1, 2) + nn * (nn - 1) / 2;
  return p;
}

problem make_evenodd(std::size_t n, std::mt19937_64& rng) {
  problem p;
  p.weights.resize(n);
  for (auto& x : p.weights) x = 2 * uniform_in(rng, 1, 500);
  p.target = 2 * (static_cast<int128>(n) * 1000 / 8) + 1;  // odd against even weights
  return p;
}

problem make_uniform(std::size_t n, std::int64_t hi, std::mt19937_64& rng) {  // pthree, psix
  problem p;
  p.weights.resize(n);
  for (auto& x : p.weights) x = uniform_in(rng, 1, hi);
  p.target = static_cast<int128>(n) * hi / 4;
  return p;
}

problem make_somatoth(std::size_t n, std::mt19937_64& rng) {
  // Largest possible weight ceil(n/2) * n; checked for every seed alike.
  const uint128 half = (uint128{n} + 1) / 2;
  if (half * n > static_cast<uint128>(int64_max)) {
    throw std::invalid_argument("somatoth: n = " + std::to_string(n) + " gives weights beyond int64");
  }
  problem p;
  if (n == 0) {
    p.target = -1;
    return p;
  }
  const auto top = static_cast<std::int64_t>(n);
  std::int64_t w1 = 0, w2 = 0;
  do {
    w1 = uniform_in(rng, 1, top);
    w2 = uniform_in(rng, 1, top);
  } while (std::gcd(w1, w2) != 1);
  p.weights.reserve(n);
  for (std::size_t j = 1; j <= n; ++j) {
    const auto mult = static_cast<std::int64_t>((j + 1) / 2);
    p.weights.push_back(mult * (j % 2 == 1 ? w1 : w2));
  }
  // The Frobenius number of w1, w2: no non-negative combination reaches it.
  p.target = static_cast<int128>(w1 - 1) * (w2 - 1) - 1;
  return p;
}

// Open invoices with cents, and one bank payment that settles a few of them. Amounts are in
// cents (decimals = 2), log-uniform by octaves between 10.00 and 20,000.00: an octave k
// uniform in [0, 10], then a cent amount uniform in [1000 2^k, min(2000 2^k - 1, 2,000,000)].
// Integers only, so that a seed gives the same amounts everywhere (no std::log or std::exp).
// The target is the sum of m distinct invoices, m uniform in [3, 6] (all n when n < m),
// chosen by a partial Fisher-Yates shuffle of the indices.
problem make_invoices(std::size_t n, std::mt19937_64& rng) {
  constexpr std::int64_t lowest = 1000;     // 10.00
  constexpr std::int64_t highest = 2000000;  // 20,000.00
  constexpr std::uint64_t octaves = 11;      // the last, from 10,240.00, is cut at 20,000.00
  problem p;
  p.decimals = 2;
  p.weights.resize(n);
  for (auto& x : p.weights) {
    const std::int64_t lo = lowest << uniform_below(rng, octaves);
    x = uniform_in(rng, lo, std::min(2 * lo - 1, highest));
  }
  const auto m = std::min<std::size_t>(n, static_cast<std::size_t>(uniform_in(rng, 3, 6)));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  int128 t = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const auto j = i + static_cast<std::size_t>(uniform_below(rng, n - i));
    std::swap(order[i], order[j]);
    t += p.weights[order[i]];
  }
  p.target = t;
  return p;
}

}  // namespace

const std::vector<std::string>& generator_classes() {
  static const std::vector<std::string> names = {"random",  "planted", "zero-sum", "partition", "todd",    "avis",
                                                 "evenodd", "pthree",  "psix",     "somatoth",  "invoices"};
  return names;
}

int default_generator_bits(std::size_t n) {
  const uint128 limit = uint128{1} << 62;
  for (int b = 62; b >= 1; --b) {
    if (uint128{n} * ((uint128{1} << b) - 1) < limit) return b;
  }
  return 1;  // n >= 2^62: no width keeps the sum below 2^62; the narrowest is the best left
}

problem generate(std::string_view cls, std::size_t n, std::optional<int> bits, std::uint64_t seed) {
  const auto& names = generator_classes();
  bool known = false;
  for (const auto& name : names) known = known || name == cls;
  if (!known) {
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown instance class '" + std::string(cls) + "' (expected one of: " +
                                list + ")");
  }

  const bool takes_bits = cls == "random" || cls == "planted" || cls == "zero-sum" || cls == "partition";
  if (bits && !takes_bits) {
    throw std::invalid_argument("--bits applies only to random, planted, zero-sum and partition");
  }
  const int b = bits.value_or(default_generator_bits(n));
  if (b < 1 || b > 126) {
    throw std::invalid_argument("--bits must be within [1, 126], got " + std::to_string(b));
  }
  // Every |w| is below 2^b, so the total stays below n * 2^b: it must stay within the
  // 2^127 - 1 that ssum accepts (check_weight_total).
  if (b > 62 && uint128(n) > max_weight_total / ((uint128{1} << b) - 1)) {
    throw std::invalid_argument("--bits " + std::to_string(b) + " with n = " + std::to_string(n) +
                                " could take the sum of |weight| to 2^127 or more");
  }

  std::mt19937_64 rng(seed);
  if (cls == "random") return make_random(n, b, rng);
  if (cls == "planted") return make_planted(n, b, rng);
  if (cls == "zero-sum") return make_zero_sum(n, b, rng);
  if (cls == "partition") return make_partition(n, b, rng);
  if (cls == "todd") return make_todd(n);
  if (cls == "avis") return make_avis(n);
  if (cls == "evenodd") return make_evenodd(n, rng);
  if (cls == "pthree") return make_uniform(n, 1000, rng);
  if (cls == "psix") return make_uniform(n, 1000000, rng);
  if (cls == "invoices") return make_invoices(n, rng);
  return make_somatoth(n, rng);
}

}  // namespace ssum

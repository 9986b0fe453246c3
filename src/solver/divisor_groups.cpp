// Divisor groups (divisor_groups.hpp): items that share a divisor g reach only g times the
// subset sums of their divided weights, and those sums need a bitset up to t / g, not t.
#include "solver/divisor_groups.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <random>

namespace ssum::detail {
namespace {

using u64 = std::uint64_t;

constexpr u64 most_sums = u64(1) << 26;        // a group's bound: a witness keeps 4 bytes a sum
constexpr std::size_t sample_size = 64;        // the items whose pair gcds propose divisors
constexpr std::size_t most_paired = 48;        // candidates tried two at a time
constexpr std::size_t most_evaluated = 12;     // proposed covers checked against every item

bool fits64(uint128 v) { return (v >> 64) == 0; }

uint128 gcd128(uint128 a, uint128 b) {
  while (b != 0) {
    if (fits64(a) && fits64(b)) return std::gcd(u64(a), u64(b));  // no 128-bit division
    const uint128 rest = a % b;
    a = b;
    b = rest;
  }
  return a;
}

uint128 mod128(uint128 a, uint128 m) { return fits64(a) && fits64(m) ? u64(a) % u64(m) : a % m; }

// The inverse of a modulo m (gcd 1), by extended Euclid; |coefficients| stay below m < 2^64.
u64 inverse_mod(u64 a, u64 m) {
  if (m == 1) return 0;
  int128 x0 = 0, x1 = 1;
  u64 r0 = m, r1 = a % m;
  while (r1 != 0) {
    const u64 q = r0 / r1;
    const u64 r2 = r0 - q * r1;
    const int128 x2 = x0 - int128(q) * x1;
    r0 = r1, r1 = r2, x0 = x1, x1 = x2;
  }
  return u64(x0 < 0 ? x0 + int128(m) : x0);
}

// One group: its members' positions sorted by divided weight, the useful ones only.
struct group {
  u64 divisor = 0;                     // gcd of the members' weights
  std::vector<std::size_t> members;    // positions in r.weights
  std::vector<u64> value;              // weight / divisor, ascending, each <= bound
  u64 bound = 0;                       // min(t / divisor, divided total): no larger sum helps
  std::size_t prefix = 0;              // value[0, prefix) reach every sum in [0, reach]:
  u64 reach = 0;                       //   each is at most 1 + the sum of those before it
  std::vector<u64> bits;               // reachable divided sums in [0, bound]
  bool has(uint128 v) const { return v <= bound && (bits[std::size_t(v >> 6)] >> (v & 63) & 1); }
};

// Items to the first divisor in `divisors` that divides them, the rest to a last group.
// Empty when the rest's gcd is 1 (not a cover) or a divisor exceeds 64 bits.
std::optional<std::vector<group>> split(const reduction& r, const std::vector<uint128>& divisors) {
  const std::size_t k = divisors.size();
  std::vector<std::vector<std::size_t>> members(k + 1);
  std::vector<uint128> gcds(k + 1, 0);
  for (std::size_t i = 0; i < r.weights.size(); ++i) {
    const uint128 w = r.weights[i];
    std::size_t j = 0;
    while (j < k && mod128(w, divisors[j]) != 0) ++j;
    gcds[j] = gcd128(w, gcds[j]);
    if (j == k && gcds[j] == 1) return std::nullopt;  // fails fast on unstructured items
    members[j].push_back(i);
  }
  std::vector<group> groups;
  for (std::size_t j = 0; j <= k; ++j) {
    if (members[j].empty()) continue;
    if (!fits64(gcds[j])) return std::nullopt;
    group g;
    g.divisor = u64(gcds[j]);
    g.members = std::move(members[j]);
    groups.push_back(std::move(g));
  }
  return groups;
}

// Bound, useful members sorted, the complete prefix. False when the bound is too large.
bool prepare(const reduction& r, group& g) {
  uint128 total = 0;
  for (const std::size_t i : g.members) total += r.weights[i] / g.divisor;
  const uint128 bound = std::min(r.bound / g.divisor, total);
  if (bound > most_sums) return false;
  g.bound = u64(bound);
  std::vector<std::pair<u64, std::size_t>> kept;
  for (const std::size_t i : g.members) {
    const uint128 v = r.weights[i] / g.divisor;
    if (v <= bound) kept.emplace_back(u64(v), i);  // a heavier one can never take part
  }
  std::sort(kept.begin(), kept.end());
  g.members.clear();
  for (const auto& [v, i] : kept) g.value.push_back(v), g.members.push_back(i);
  // Sorted values each at most 1 + the sum before them reach every sum up to their total
  // with no bitset at all (and a greedy from the top finds any of them).
  while (g.prefix < g.value.size() && g.value[g.prefix] <= g.reach + 1) g.reach += g.value[g.prefix++];
  return true;
}

// Word operations of the shift-ors after the prefix, each up to the highest sum yet reached.
double bitset_work(const group& g) {
  double work = double(g.bound / 64 + 1) + double(g.prefix);
  u64 top = std::min(g.reach, g.bound);
  for (std::size_t j = g.prefix; j < g.value.size() && g.reach < g.bound; ++j) {  // else: full
    top = std::min(g.bound, top + g.value[j]);
    work += double(top / 64 - g.value[j] / 64 + 1);
  }
  return work;
}

// bits |= bits << a over words [a / 64, top / 64], from the top down so every source word
// is read before it is written. Calls `fresh(word, new bits)` for bits it sets.
template <class Fresh>
void shift_or(std::vector<u64>& bits, u64 a, u64 top, Fresh&& fresh) {
  const u64 q = a >> 6, s = a & 63;
  for (u64 w = top >> 6; w + 1 > q; --w) {
    u64 v = bits[w - q] << s;
    if (s != 0 && w > q) v |= bits[w - q - 1] >> (64 - s);
    if (v & ~bits[w]) fresh(w, v & ~bits[w]);
    bits[w] |= v;
    if (w == 0) break;
  }
}

// Sets bits[0 .. min(reach, top)] and returns that end.
u64 fill_prefix(std::vector<u64>& bits, u64 reach, u64 top) {
  const u64 end = std::min(reach, top);
  for (u64 w = 0; w < end / 64; ++w) bits[w] = ~u64(0);
  bits[end / 64] |= (end % 64 == 63) ? ~u64(0) : (u64(1) << (end % 64 + 1)) - 1;
  return end;
}

void build_bits(group& g) {
  g.bits.assign(g.bound / 64 + 1, 0);
  u64 top = fill_prefix(g.bits, g.reach, g.bound);
  for (std::size_t j = g.prefix; j < g.value.size() && g.reach < g.bound; ++j) {  // else: full
    top = std::min(g.bound, top + g.value[j]);
    shift_or(g.bits, g.value[j], top, [](u64, u64) {});
  }
}

// Members summing (divided) to v, a reachable sum. Beyond the prefix, a bitset run up to v
// records for each sum the member that first reached it; that member's predecessor sum was
// reached earlier, so the walk back takes distinct members, then the prefix greedily.
void witness(const group& g, u64 v, std::vector<std::size_t>& out) {
  if (v > g.reach) {
    std::vector<u64> bits(v / 64 + 1, 0);
    std::vector<std::uint32_t> first(v + 1, 0);  // members < 2^24 (max_items)
    u64 top = fill_prefix(bits, g.reach, v);
    for (std::size_t j = g.prefix; j < g.value.size() && g.value[j] <= v; ++j) {
      top = std::min(v, top + g.value[j]);
      shift_or(bits, g.value[j], top, [&](u64 w, u64 fresh) {
        for (; fresh != 0; fresh &= fresh - 1) {
          const u64 s = w * 64 + u64(std::countr_zero(fresh));
          if (s <= v) first[s] = std::uint32_t(j);
        }
      });
      if (bits[v / 64] >> (v % 64) & 1) break;
    }
    while (v > g.reach) {
      const std::size_t j = first[v];
      out.push_back(g.members[j]);
      v -= g.value[j];
    }
  }
  for (std::size_t j = g.prefix; j-- > 0;) {  // invariant: v <= sum of value[0, j]
    if (g.value[j] <= v) out.push_back(g.members[j]), v -= g.value[j];
  }
}

// Solves D_x a + D_y b = t' with a in S_x, b in S_y: b is fixed modulo m = D_x / d
// (d = gcd), so only b = b0, b0 + m, ... up to min(bound_y, t' / D_y) are tried.
struct pair_join {
  const group* x = nullptr;
  const group* y = nullptr;
  u64 d = 1, m = 1, inv = 0;
  pair_join(const group& gx, const group& gy) : x(&gx), y(&gy) {
    d = std::gcd(gx.divisor, gy.divisor);
    m = gx.divisor / d;
    inv = inverse_mod((gy.divisor / d) % m, m);
  }
  double candidates() const { return double(y->bound) / double(m) + 1; }
  std::optional<std::pair<u64, u64>> find(uint128 t) const {
    if (mod128(t, d) != 0) return std::nullopt;  // d divides every reachable sum
    const u64 b0 = u64((uint128(u64(mod128(t / d, m))) * inv) % m);
    const uint128 limit = std::min<uint128>(y->bound, t / y->divisor);
    for (uint128 b = b0; b <= limit; b += m) {
      if (!y->has(b)) continue;
      const uint128 a = (t - b * y->divisor) / x->divisor;  // exact by the congruence
      if (x->has(a)) return std::pair{u64(a), u64(b)};
    }
    return std::nullopt;
  }
};

// The groups' order for the join: [outer (3 groups only),] x, y; and the join's cost.
struct join_plan {
  std::vector<std::size_t> order;
  double work = 0;
};

join_plan plan_join(const std::vector<group>& gs) {
  join_plan best;
  if (gs.size() == 1) return {{0}, 1};
  best.work = -1;
  const std::size_t k = gs.size();
  for (std::size_t o = 0; o < (k == 3 ? 3 : 1); ++o) {
    for (std::size_t x = 0; x < k; ++x) {
      for (std::size_t y = 0; y < k; ++y) {
        if (x == y || (k == 3 && (x == o || y == o))) continue;
        const double inner = pair_join(gs[x], gs[y]).candidates() + 4;
        const double work = k == 3 ? double(gs[o].bound + 1) * inner : inner;
        if (best.work < 0 || work < best.work) {
          best.work = work;
          best.order = k == 3 ? std::vector<std::size_t>{o, x, y} : std::vector<std::size_t>{x, y};
        }
      }
    }
  }
  return best;
}

// The divided sum each group contributes to t, in group order, or empty when none exists.
std::optional<std::vector<u64>> join(const std::vector<group>& gs, const join_plan& plan, uint128 t) {
  std::vector<u64> take(gs.size(), 0);
  if (gs.size() == 1) {
    const group& g = gs[0];
    if (mod128(t, g.divisor) != 0 || !g.has(t / g.divisor)) return std::nullopt;
    take[0] = u64(t / g.divisor);
    return take;
  }
  const std::size_t x = plan.order[plan.order.size() - 2], y = plan.order.back();
  const pair_join pair(gs[x], gs[y]);
  const auto settle = [&](uint128 rest) {
    const auto ab = pair.find(rest);
    if (ab) take[x] = ab->first, take[y] = ab->second;
    return ab.has_value();
  };
  if (gs.size() == 2) return settle(t) ? std::optional(take) : std::nullopt;
  const group& outer = gs[plan.order[0]];
  const u64 limit = u64(std::min<uint128>(outer.bound, t / outer.divisor));
  for (u64 w = 0; w <= limit / 64; ++w) {  // every reachable c of the outer group
    for (u64 bits = outer.bits[w]; bits != 0; bits &= bits - 1) {
      const u64 c = w * 64 + u64(std::countr_zero(bits));
      if (c > limit) break;
      take[plan.order[0]] = c;
      if (settle(t - uint128(c) * outer.divisor)) return take;
    }
  }
  return std::nullopt;
}

// Deterministic sample of up to sample_size positions (a fixed-seed partial shuffle, so
// that periodic layouts such as alternating classes still mix).
std::vector<uint128> sample_weights(const reduction& r) {
  const std::size_t n = r.weights.size();
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t(0));
  std::mt19937_64 rng(0x5eedd1715015f5ULL);
  const std::size_t m = std::min(n, sample_size);
  for (std::size_t i = 0; i < m; ++i) {
    std::swap(idx[i], idx[i + std::size_t(rng() % (n - i))]);
  }
  std::vector<uint128> out;
  for (std::size_t i = 0; i < m; ++i) out.push_back(r.weights[idx[i]]);
  return out;
}

struct candidate {
  uint128 g;
  u64 mask;  // sampled items g divides
};

struct proposal {
  std::vector<uint128> divisors;
  double proxy;  // sum of 1 / divisor over the sample's groups: smaller bitsets first
};

}  // namespace

namespace {

uint128 sample_gcd(const std::vector<uint128>& s, u64 mask) {
  uint128 g = 0;
  for (; mask != 0 && g != 1; mask &= mask - 1) g = gcd128(s[std::size_t(std::countr_zero(mask))], g);
  return g;
}

// Candidates from divisors: one per set of sampled items divided (the smallest divisor),
// widest first.
std::vector<candidate> by_mask(const std::vector<uint128>& s, std::vector<uint128> divisors) {
  std::sort(divisors.begin(), divisors.end());
  divisors.erase(std::unique(divisors.begin(), divisors.end()), divisors.end());
  std::vector<candidate> all;
  for (const uint128 g : divisors) {
    u64 mask = 0;
    for (std::size_t i = 0; i < s.size(); ++i) mask |= u64(mod128(s[i], g) == 0) << i;
    all.push_back({g, mask});
  }
  std::stable_sort(all.begin(), all.end(), [](const candidate& a, const candidate& b) { return a.mask < b.mask; });
  std::vector<candidate> out;
  for (const candidate& c : all) {
    if (out.empty() || out.back().mask != c.mask) out.push_back(c);
  }
  std::stable_sort(out.begin(), out.end(), [](const candidate& a, const candidate& b) {
    return std::popcount(a.mask) > std::popcount(b.mask);
  });
  return out;
}

// Whether a candidate's group could have a bitset of at most most_sums: its bound is
// min(t / g, divided total), and its sampled members' divided sum is a lower bound of that
// total. Dropping the others early keeps instances with small shared factors (multiples of 3,
// even weights) from costing a pairwise search: 3 ms at n = 64 before this test.
bool could_fit(const std::vector<uint128>& s, const candidate& c, uint128 t) {
  if (t / c.g <= most_sums) return true;
  uint128 sampled = 0;
  for (u64 mask = c.mask; mask != 0; mask &= mask - 1) sampled += s[std::size_t(std::countr_zero(mask))] / c.g;
  return sampled <= most_sums;
}

// Divisors proposed by gcds > 1 of sampled pairs, then of the widest candidates' pairs: a
// group whose sampled pairs all share an extra factor (6g, 10g, 15g) still yields g. A gcd
// of two candidates is smaller than each, so one that cannot fit yields none that can.
std::vector<candidate> find_candidates(const std::vector<uint128>& s, uint128 t) {
  const auto fitting = [&](std::vector<candidate> all) {
    std::erase_if(all, [&](const candidate& c) { return !could_fit(s, c, t); });
    return all;
  };
  std::vector<uint128> divisors;
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (std::size_t j = i + 1; j < s.size(); ++j) {
      if (const uint128 g = gcd128(s[i], s[j]); g > 1) divisors.push_back(g);
    }
  }
  const std::vector<candidate> first = fitting(by_mask(s, divisors));
  divisors.clear();
  for (const candidate& c : first) divisors.push_back(c.g);
  const std::size_t top = std::min<std::size_t>(first.size(), 32);
  for (std::size_t i = 0; i < top; ++i) {
    for (std::size_t j = i + 1; j < top; ++j) {
      if (const uint128 g = gcd128(first[i].g, first[j].g); g > 1) divisors.push_back(g);
    }
  }
  return fitting(by_mask(s, std::move(divisors)));
}

// Covers of the sample by one or two candidates and the rest (whose gcd must exceed 1),
// smallest bitsets first by the sample's group gcds.
std::vector<proposal> propose(const std::vector<uint128>& s, const std::vector<candidate>& cands) {
  const u64 full = s.size() == 64 ? ~u64(0) : (u64(1) << s.size()) - 1;
  const auto inv = [&](u64 mask) { return mask == 0 ? 0.0 : 1.0 / double(sample_gcd(s, mask)); };
  std::vector<proposal> out;
  if (sample_gcd(s, full) != 1) out.push_back({{}, inv(full)});  // one group (hand-made inputs)
  for (const candidate& c : cands) {
    const u64 rest = full & ~c.mask;
    if (sample_gcd(s, rest) != 1) out.push_back({{c.g}, inv(c.mask) + inv(rest)});
  }
  const std::size_t top = std::min(cands.size(), most_paired);
  for (std::size_t i = 0; i < top; ++i) {
    for (std::size_t j = 0; j < top; ++j) {
      const u64 second = cands[j].mask & ~cands[i].mask;  // items go to the first that divides
      if (i == j || second == 0) continue;
      const u64 rest = full & ~(cands[i].mask | second);
      if (sample_gcd(s, rest) != 1) {
        out.push_back({{cands[i].g, cands[j].g}, inv(cands[i].mask) + inv(second) + inv(rest)});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const proposal& a, const proposal& b) { return a.proxy < b.proxy; });
  return out;
}

}  // namespace

std::optional<divisor_groups_verdict> settle_by_divisor_groups(const reduction& r, double most_work) {
  if (r.zero_sum || r.outcome != reduction::verdict::open || r.weights.empty()) return std::nullopt;
  const uint128 t = r.bound;
  const std::vector<uint128> s = sample_weights(r);
  const std::vector<proposal> proposals = propose(s, find_candidates(s, t));
  for (std::size_t k = 0; k < std::min(proposals.size(), most_evaluated); ++k) {
    auto split_groups = split(r, proposals[k].divisors);
    if (!split_groups) continue;
    std::vector<group>& gs = *split_groups;
    bool fits = true;
    uint128 bounds = 0;
    for (group& g : gs) fits = fits && prepare(r, g), bounds += g.bound;
    // Worth it only when the bitsets are much smaller than one over [0, t].
    if (!fits || bounds * 8 > t) continue;
    const join_plan plan = plan_join(gs);
    double work = plan.work;  // the join, then each bitset twice (decision, witness) and its sums
    for (const group& g : gs) work += 2 * bitset_work(g) + double(g.bound);
    if (work > most_work) continue;

    for (group& g : gs) build_bits(g);
    divisor_groups_verdict verdict;
    for (const group& g : gs) verdict.divisors.push_back(g.divisor);
    const auto take = join(gs, plan, t);
    if (!take) {
      verdict.infeasible = true;
      return verdict;
    }
    for (std::size_t i = 0; i < gs.size(); ++i) witness(gs[i], (*take)[i], verdict.positions);
    std::sort(verdict.positions.begin(), verdict.positions.end());
    return verdict;
  }
  return std::nullopt;
}

}  // namespace ssum::detail

// The residues subset sums reach modulo small numbers (residue_classes.hpp).
#include "solver/residue_classes.hpp"

#include <bit>
#include <utility>

namespace ssum::detail {
namespace {

using u64 = std::uint64_t;

constexpr unsigned first_modulus = 2, last_modulus = 64;

// w mod Q with Q known when compiled, so every % is a multiplication (no 128-bit division).
template <unsigned Q>
unsigned residue(uint128 w) {
  const u64 hi = u64(w >> 64), lo = u64(w);
  if (hi == 0) return unsigned(lo % Q);
  constexpr u64 high_unit = u64((uint128{1} << 64) % Q);  // 2^64 mod Q
  return unsigned(((hi % Q) * high_unit + lo % Q) % Q);
}

template <unsigned Q>
constexpr u64 all_residues = Q == 64 ? ~u64(0) : (u64(1) << Q) - 1;

// The set shifted by s (mod Q) and joined to itself: the sums with one more item of residue s.
template <unsigned Q>
u64 add_residue(u64 set, unsigned s) {
  if (s == 0) return set;
  return set | (((set << s) | (set >> (Q - s))) & all_residues<Q>);
}

struct walk {
  bool zero_sum = false;
  u64 open = 0;                      // bit Q - 1: modulus Q still undecided
  u64 reached[last_modulus + 1] = {};

  // One item of magnitude w (negative: its residue negated) for modulus Q. With a target the
  // modulus is settled once every residue is reached; zero-sum once a non-empty subset reaches 0.
  template <unsigned Q>
  void add(uint128 w, bool negative) {
    if (!(open >> (Q - 1) & 1)) return;
    unsigned s = residue<Q>(w);
    if (negative && s != 0) s = Q - s;
    u64& set = reached[Q];
    set = zero_sum ? add_residue<Q>(set, s) | (u64(1) << s) : add_residue<Q>(set, s);
    if (zero_sum ? (set & 1) != 0 : set == all_residues<Q>) open &= ~(u64(1) << (Q - 1));
  }

  template <unsigned... Qs>
  void item(uint128 w, bool negative, std::integer_sequence<unsigned, Qs...>) {
    (add<Qs + first_modulus>(w, negative), ...);
  }

  template <unsigned... Qs>
  unsigned target_residue(unsigned q, uint128 t, std::integer_sequence<unsigned, Qs...>) const {
    unsigned out = 0;
    ((q == Qs + first_modulus ? (out = residue<Qs + first_modulus>(t), 0) : 0), ...);
    return out;
  }
};

using moduli = std::make_integer_sequence<unsigned, last_modulus - first_modulus + 1>;

}  // namespace

std::optional<residue_verdict> unreachable_residue(const reduction& r) {
  if (r.outcome != reduction::verdict::open || r.weights.empty()) return std::nullopt;
  walk a;
  a.zero_sum = r.zero_sum;
  for (unsigned q = first_modulus; q <= last_modulus; ++q) {
    a.open |= u64(1) << (q - 1);
    if (!a.zero_sum) a.reached[q] = 1;  // the empty subset: sum 0
  }
  // Grouped items (r.copies) stand for their copies together; every chunk is one choice, so
  // the walk is the same as over any other items.
  for (std::size_t k = 0; k < r.weights.size() && a.open != 0; ++k) {
    a.item(r.weights[k], a.zero_sum && r.negative[k], moduli{});
  }
  for (unsigned q = first_modulus; q <= last_modulus; ++q) {
    if (!(a.open >> (q - 1) & 1)) continue;
    const unsigned wanted = a.zero_sum ? 0 : a.target_residue(q, r.bound, moduli{});
    if (!(a.reached[q] >> wanted & 1)) return residue_verdict{q, a.reached[q], wanted};
  }
  return std::nullopt;
}

std::string describe(const residue_verdict& v, bool zero_sum) {
  const int count = std::popcount(v.reached);
  std::string reached;
  if (count <= 8) {
    for (unsigned j = 0; j < v.modulus; ++j) {
      if (v.reached >> j & 1) reached += (reached.empty() ? "" : ", ") + std::to_string(j);
    }
    reached = "only the residues {" + reached + "}";
  } else {
    reached = "only " + std::to_string(count) + " of the " + std::to_string(v.modulus) + " residues";
  }
  const std::string subsets = zero_sum ? "non-empty subset sums" : "subset sums";
  return subsets + " modulo " + std::to_string(v.modulus) + " reach " + reached +
         (zero_sum ? ", not 0" : ", not the target's " + std::to_string(v.wanted)) + ": infeasible";
}

}  // namespace ssum::detail

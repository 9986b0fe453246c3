// Exact counts of any size (ssum/big_count.hpp): decimal text through GMP where the build has
// it, by repeated division otherwise (such a build counts only within 128 bits, but a count
// built from limbs still prints).
#include "ssum/big_count.hpp"

#include <bit>
#include <cstring>
#include <ostream>
#include <stdexcept>

#ifdef SSUM_HAVE_GMP
#include <gmp.h>
static_assert(GMP_LIMB_BITS == 64 && GMP_NAIL_BITS == 0, "ssum's counts are 64-bit limbs");
static_assert(sizeof(mp_limb_t) == sizeof(std::uint64_t));
#endif

namespace ssum {

std::size_t big_count::bits() const {
  if (limbs_.empty()) return 0;
  return 64 * limbs_.size() - std::size_t(std::countl_zero(limbs_.back()));
}

uint128 big_count::to_uint128() const {
  if (!fits_uint128()) throw std::overflow_error("the count " + to_string() + " does not fit in 128 bits");
  uint128 v = 0;
  for (std::size_t k = limbs_.size(); k-- > 0;) v = (v << 64) | limbs_[k];
  return v;
}

std::uint64_t big_count::to_uint64() const {
  if (!fits_uint64()) throw std::overflow_error("the count " + to_string() + " does not fit in 64 bits");
  return limbs_.empty() ? 0 : limbs_[0];
}

std::string big_count::to_string() const {
  if (limbs_.empty()) return "0";
#ifdef SSUM_HAVE_GMP
  mpz_t x;  // read-only over the limbs: no copy
  mpz_roinit_n(x, reinterpret_cast<const mp_limb_t*>(limbs_.data()), mp_size_t(limbs_.size()));
  std::string text(mpz_sizeinbase(x, 10) + 2, '\0');
  mpz_get_str(text.data(), 10, x);
  text.resize(std::strlen(text.c_str()));  // mpz_sizeinbase may say one digit too many
  return text;
#else
  // Divides by 10^19, the largest power of ten below 2^64, from the top limb down: each
  // remainder is 19 digits, the last (most significant) without leading zeros.
  constexpr std::uint64_t chunk = 10000000000000000000ull;
  std::vector<std::uint64_t> rest = limbs_;
  std::string reversed;
  while (!rest.empty()) {
    uint128 remainder = 0;
    for (std::size_t k = rest.size(); k-- > 0;) {
      const uint128 part = (remainder << 64) | rest[k];
      rest[k] = std::uint64_t(part / chunk);
      remainder = part % chunk;
    }
    while (!rest.empty() && rest.back() == 0) rest.pop_back();
    for (int d = 0; d < 19 && (remainder != 0 || !rest.empty()); ++d, remainder /= 10) {
      reversed.push_back(char('0' + int(remainder % 10)));
    }
  }
  return std::string(reversed.rbegin(), reversed.rend());
#endif
}

std::ostream& operator<<(std::ostream& out, const big_count& c) { return out << c.to_string(); }

}  // namespace ssum

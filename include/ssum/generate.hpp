#pragma once
// Standard instance classes (docs/instances.md), deterministic for a given seed on every
// platform: the generator uses its own uniform sampling on top of std::mt19937_64.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ssum/problem.hpp"

namespace ssum {

/// Names accepted by generate(): random, planted, zero-sum, partition, todd, avis, evenodd,
/// pthree, psix, somatoth, invoices. Every class gives integer weights (decimals 0) but
/// invoices, whose amounts are cents: decimals 2, so that format_problem writes 1234.56.
const std::vector<std::string>& generator_classes();

/// The bit width used by `random`, `planted`, `zero-sum` and `partition` when none is given: the largest
/// that keeps the total absolute sum below 2^62.
int default_generator_bits(std::size_t n);

/// Throws std::invalid_argument for an unknown class, bits outside [1, 126] (or so wide that
/// n weights could reach the 2^127 limit on the sum of |w|), or an n for
/// which the class's weights do not fit in int64.
problem generate(std::string_view cls, std::size_t n, std::optional<int> bits, std::uint64_t seed);

}  // namespace ssum

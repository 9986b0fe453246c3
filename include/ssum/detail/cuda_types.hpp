#pragma once
// The element types the CUDA primitives are compiled for, written once: the traits below guard
// the public entry points, and the macros drive the explicit instantiations in src/cuda.
#include <cstdint>
#include <type_traits>

#include "ssum/int128.hpp"

namespace ssum::detail {

template <class T>
inline constexpr bool cuda_integer_key = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
                                         std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;
template <class T>
inline constexpr bool cuda_key = cuda_integer_key<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;
/// The 128-bit sums of the two-list past 2^64: only the merges (ascending) and the pair sums
/// that it runs on are compiled for them.
template <class T>
inline constexpr bool cuda_wide_key = std::is_same_v<T, uint128>;

}  // namespace ssum::detail

// X(T) for each type of cuda_integer_key, then of cuda_key.
#define SSUM_FOR_EACH_CUDA_INTEGER_KEY(X) X(std::int32_t) X(std::uint32_t) X(std::int64_t) X(std::uint64_t)
#define SSUM_FOR_EACH_CUDA_KEY(X) SSUM_FOR_EACH_CUDA_INTEGER_KEY(X) X(float) X(double)

#pragma once
// The function objects every ssum primitive takes, on every backend: the scans' operators, the
// sorts' and merges' comparators, the compaction's predicates and the merges' generators.
// constexpr or SSUM_HOST_DEVICE, so that the same object runs in host and device code.
#include <cstddef>
#include <type_traits>

#include "ssum/detail/host_device.hpp"

namespace ssum {

/// The operators every backend knows.
struct plus {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return a + b; }
};
struct minimum {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct maximum {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct bit_or {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const { return a | b; }
};

/// Strict weak orders; on floating point, NaNs follow every number (as std::sort's callers
/// usually want), so that sorting data with NaNs stays well defined.
struct less {
  template <class T>
  constexpr bool operator()(const T& a, const T& b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return a < b || (b != b && a == a);  // a number precedes a NaN
    } else {
      return a < b;
    }
  }
};

struct greater {
  template <class T>
  constexpr bool operator()(const T& a, const T& b) const { return less{}(b, a); }
};

/// Predicates the CUDA compaction knows (CUDA code can use any device predicate through
/// src/cuda/select/select.cuh).
struct nonzero {
  template <class T>
  constexpr bool operator()(const T& x) const { return x != T(0); }
};
template <class T>
struct in_range {  // lo <= x < hi
  T lo, hi;
  constexpr bool operator()(const T& x) const { return !(x < lo) && x < hi; }
};

// ---- generators for merge_generated ------------------------------------------------------

/// b_at(j) = data[j] + c: ascending when data is (and nothing wraps).
template <class T>
struct plus_constant {
  const T* data;
  T c;
  SSUM_HOST_DEVICE T operator()(std::size_t j) const { return static_cast<T>(data[j] + c); }
};

/// b_at(j) = t - data[n - 1 - j] for j < n: ascending when data is (and nothing wraps).
template <class T>
struct minus_reversed {
  const T* data;
  std::size_t n;
  T t;
  SSUM_HOST_DEVICE T operator()(std::size_t j) const { return static_cast<T>(t - data[n - 1 - j]); }
};

}  // namespace ssum

#pragma once
// The Memory that solver/two_list/two_list_merging.hpp asks of its caller, over host vectors and the host
// primitives: the CUDA solver's merge-built two-list (buffer parity, the zero-sum pair, counts,
// certificates) runs on machines without a device and is checked against brute force there,
// with 64-bit sums and with 128-bit ones (totals past 2^64).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ssum_test {

struct host_memory {
  template <class Sum>
  struct buffer {
    std::vector<Sum> data;
    Sum* get() { return data.data(); }
  };
  void reserve(double) {}
  // Filled with a pattern, so that a sum read before it is written shows.
  template <class Sum>
  buffer<Sum> alloc(std::size_t elements) {
    return buffer<Sum>{std::vector<Sum>(elements, Sum(0xdeadbeefull))};
  }
  // Three items at once (the CUDA memory takes 10 or 11): the glue around the first levels is
  // exercised for lists shorter and longer than them.
  template <class Sum>
  std::size_t first_sums_items() {
    return 3;
  }
  template <class Sum>
  void write_first_sums(const Sum* w, std::size_t m, Sum* out) {
    std::vector<Sum> sums;
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << m); ++mask) {
      Sum s = 0;
      for (std::size_t k = 0; k < m; ++k) s += mask >> k & 1 ? w[k] : 0;
      sums.push_back(s);
    }
    std::sort(sums.begin(), sums.end());
    std::copy(sums.begin(), sums.end(), out);
  }
  template <class Sum>
  Sum read(const Sum* p, std::size_t k) {
    return p[k];
  }
  void sync() {}
  double available_bytes() { return 1e12; }
};

}  // namespace ssum_test

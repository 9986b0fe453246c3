#pragma once
// The Memory that solver/two_list/two_list_merging.hpp asks of its caller, over host vectors and the host
// primitives: the CUDA solver's merge-built two-list (buffer parity, the zero-sum pair, counts,
// certificates) runs on machines without a device and is checked against brute force there.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "small_instances.hpp"

namespace ssum_test {

struct host_memory {
  struct buffer {
    std::vector<std::uint64_t> data;
    std::uint64_t* get() { return data.data(); }
  };
  void reserve(double) {}
  buffer alloc(std::size_t elements) { return buffer{std::vector<std::uint64_t>(elements, 0xdeadbeefull)}; }
  // Three items at once (the CUDA memory takes 11): the glue around the first levels is
  // exercised for lists shorter and longer than them.
  std::size_t first_sums_items() { return 3; }
  void write_first_sums(const std::uint64_t* w, std::size_t m, std::uint64_t* out) {
    const std::vector<std::uint64_t> sums = ssum_test::sorted_subset_sums(w, m);
    std::copy(sums.begin(), sums.end(), out);
  }
  std::uint64_t read(const std::uint64_t* p, std::size_t k) { return p[k]; }
  void sync() {}
  double available_bytes() { return 1e12; }
};

}  // namespace ssum_test

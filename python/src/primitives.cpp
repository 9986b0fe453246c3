// ssum's host primitives on 1-D numpy arrays: scans, a sort and a merge, each returning a new
// array of the input's dtype. CUDA device arrays go to the overloads of device_arrays.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include "bindings.hpp"
#include "ssum/merge.hpp"
#include "ssum/scan.hpp"
#include "ssum/sort.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace ssum::python {
namespace {

template <class T>
using input_array = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using output_array = nb::ndarray<nb::numpy, T, nb::ndim<1>>;

// A new numpy array of n elements, which owns its buffer.
template <class T>
output_array<T> new_array(std::size_t n) {
  auto buffer = std::make_unique<T[]>(n);
  nb::capsule owner(buffer.get(), [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return output_array<T>(buffer.release(), {n}, owner);
}

ssum::cpu policy(std::optional<unsigned> threads) { return ssum::cpu{threads.value_or(0)}; }

template <class T>
void check_sorted(const input_array<T>& a, const char* name) {
  const T* data = a.data();
  for (std::size_t i = 1; i < a.shape(0); ++i) {
    if (ssum::less{}(data[i], data[i - 1])) {
      throw nb::value_error((std::string(name) + " is not sorted ascending (at index " + std::to_string(i) + ")").c_str());
    }
  }
}

template <class T>
void bind_for(nb::module_& m) {
  m.def(
      "inclusive_scan",
      [](input_array<T> a, std::optional<unsigned> threads) {
        output_array<T> out = new_array<T>(a.shape(0));
        nb::gil_scoped_release unlocked;
        ssum::inclusive_scan(policy(threads), a.data(), out.data(), a.shape(0));
        return out;
      },
      "a"_a, nb::kw_only(), "threads"_a = nb::none());
  m.def(
      "exclusive_scan",
      [](input_array<T> a, std::optional<unsigned> threads) {
        output_array<T> out = new_array<T>(a.shape(0));
        nb::gil_scoped_release unlocked;
        ssum::exclusive_scan(policy(threads), a.data(), out.data(), a.shape(0), T(0));
        return out;
      },
      "a"_a, nb::kw_only(), "threads"_a = nb::none());
  m.def(
      "sort",
      [](input_array<T> a, std::optional<unsigned> threads) {
        const std::size_t n = a.shape(0);
        output_array<T> out = new_array<T>(n);
        nb::gil_scoped_release unlocked;
        std::copy(a.data(), a.data() + n, out.data());
        // Batcher's network, O(n log^2 n): the transposition sort is quadratic on unsorted keys.
        ssum::odd_even_merge_sort(policy(threads), out.data(), n);
        return out;
      },
      "a"_a, nb::kw_only(), "threads"_a = nb::none());
  m.def(
      "merge",
      [](input_array<T> a, input_array<T> b, std::optional<unsigned> threads) {
        check_sorted(a, "a");
        check_sorted(b, "b");
        output_array<T> out = new_array<T>(a.shape(0) + b.shape(0));
        nb::gil_scoped_release unlocked;
        ssum::merge(policy(threads), a.data(), a.shape(0), b.data(), b.shape(0), out.data());
        return out;
      },
      "a"_a, "b"_a, nb::kw_only(), "threads"_a = nb::none());
}

}  // namespace

void bind_primitives(nb::module_& m) {
  // Device arrays first: those overloads take only arrays that report a device other than the
  // host, and bound first they spare a device array six failed imports as numpy arrays.
  bind_device_primitives(m);
  // The wide types first: nanobind tries overloads in order, and with conversion allowed the
  // first that accepts (a list, a narrower dtype) wins.
  bind_for<std::int64_t>(m);
  bind_for<double>(m);
  bind_for<std::uint64_t>(m);
  bind_for<std::int32_t>(m);
  bind_for<std::uint32_t>(m);
  bind_for<float>(m);
}

}  // namespace ssum::python

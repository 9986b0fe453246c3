// ssum's host primitives on 1-D numpy arrays: scans, a sort and a merge, each returning a new
// array of the input's dtype. CUDA device arrays go to the overloads of device_arrays.cpp.
//
// One overload per function takes any object and checks it here, rather than one overload per
// dtype: nanobind, free to convert, would hand a float16 or int8 array to the first overload
// that takes it (int64, truncating), and a 2-D array would be answered with every signature.
// Here the input keeps its dtype, or is refused with a TypeError naming it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "ssum/merge.hpp"
#include "ssum/scan.hpp"
#include "ssum/sort.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace ssum::python {
namespace {

constexpr const char* supported = "int32, int64, uint32, uint64, float32, float64";

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

enum class element { int32, int64, uint32, uint64, float32, float64 };

/// One argument of a primitive: a 1-D host array of a supported dtype, possibly strided.
struct host_input {
  nb::ndarray<nb::ro, nb::device::cpu> array;
  element type{};
  std::string dtype;  // for messages
  std::size_t size = 0;
};

std::optional<element> element_of(char kind, std::size_t bytes) {
  if (kind == 'i' && bytes == 4) return element::int32;
  if (kind == 'i' && bytes == 8) return element::int64;
  if (kind == 'u' && bytes == 4) return element::uint32;
  if (kind == 'u' && bytes == 8) return element::uint64;
  if (kind == 'f' && bytes == 4) return element::float32;
  if (kind == 'f' && bytes == 8) return element::float64;
  return std::nullopt;
}

// The same for arrays that are not numpy's (PyTorch CPU tensors, memoryviews), from DLPack.
std::optional<element> element_of(nb::dlpack::dtype t, std::string& name) {
  using code = nb::dlpack::dtype_code;
  const auto c = static_cast<code>(t.code);
  const char kind = c == code::Int ? 'i' : c == code::UInt ? 'u' : c == code::Float ? 'f' : c == code::Bool ? 'b' : '?';
  if (kind == 'b') {
    name = "bool";
  } else if (kind == '?') {
    name = "DLPack type code " + std::to_string(t.code) + " of " + std::to_string(t.bits) + " bits";
  } else {
    name = std::string(kind == 'i' ? "int" : kind == 'u' ? "uint" : "float") + std::to_string(t.bits);
  }
  if (t.lanes != 1) return std::nullopt;
  return element_of(kind, t.bits / 8u);
}

[[noreturn]] void unsupported(const char* function, const std::string& dtype) {
  throw nb::type_error((std::string("ssum.") + function + ": " + dtype + " arrays are not supported; supported: " +
                        supported + " (in the machine's byte order)")
                           .c_str());
}

std::string shape_text(const nb::ndarray<nb::ro, nb::device::cpu>& a) {
  std::string text = "(";
  for (std::size_t d = 0; d < a.ndim(); ++d) text += (d ? ", " : "") + std::to_string(a.shape(d));
  return text + (a.ndim() == 1 ? ",)" : ")");
}

host_input take(nb::handle object, const char* function) {
  host_input in;
  const std::optional<numpy_dtype> numpy = numpy_dtype_of(object);
  std::optional<element> type;
  if (numpy) {
    // Checked before nanobind reads the array: DLPack has no byte order, strings or dates.
    type = numpy->native ? element_of(numpy->kind, numpy->itemsize) : std::nullopt;
    if (!type) unsupported(function, describe(*numpy));
    in.dtype = numpy->name;
  }
  if (!nb::try_cast(object, in.array, /*convert=*/false)) {
    if (PyErr_Occurred()) throw nb::python_error();
    throw nb::type_error((std::string("ssum.") + function + " expects a 1-D numpy array, not " +
                          nb::type_name(object.type()).c_str())
                             .c_str());
  }
  if (!numpy) {
    type = element_of(in.array.dtype(), in.dtype);
    if (!type) unsupported(function, in.dtype);
  }
  if (in.array.ndim() != 1) {
    throw nb::value_error(
        (std::string("ssum.") + function + " expects a 1-D array, got shape " + shape_text(in.array)).c_str());
  }
  in.type = *type;
  in.size = in.array.shape(0);
  return in;
}

/// Calls f(std::type_identity<T>{}) for the input's element type.
template <class F>
nb::object with_element(element type, F&& f) {
  switch (type) {
    case element::int32: return f(std::type_identity<std::int32_t>{});
    case element::int64: return f(std::type_identity<std::int64_t>{});
    case element::uint32: return f(std::type_identity<std::uint32_t>{});
    case element::uint64: return f(std::type_identity<std::uint64_t>{});
    case element::float32: return f(std::type_identity<float>{});
    case element::float64: return f(std::type_identity<double>{});
  }
  throw nb::type_error("unreachable element type");
}

/// The input's elements in one contiguous run: the array itself, or a copy of a strided view
/// (the primitives take pointers to consecutive elements).
template <class T>
class contiguous {
 public:
  explicit contiguous(const host_input& in) : data_(static_cast<const T*>(in.array.data())) {
    const std::int64_t stride = in.size > 1 ? in.array.stride(0) : 1;
    if (stride != 1) {
      copy_.resize(in.size);
      for (std::size_t i = 0; i < in.size; ++i) copy_[i] = data_[std::int64_t(i) * stride];
      data_ = copy_.data();
    }
  }
  const T* data() const { return data_; }

 private:
  std::vector<T> copy_;
  const T* data_;
};

template <class T>
void check_sorted(const T* data, std::size_t n, const char* name) {
  for (std::size_t i = 1; i < n; ++i) {
    if (ssum::less{}(data[i], data[i - 1])) {
      throw nb::value_error((std::string(name) + " is not sorted ascending (at index " + std::to_string(i) + ")").c_str());
    }
  }
}

enum class unary { inclusive_scan, exclusive_scan, sort };

nb::object run(unary op, nb::handle object, std::optional<unsigned> threads, const char* function) {
  const host_input in = take(object, function);
  return with_element(in.type, [&](auto type) -> nb::object {
    using T = typename decltype(type)::type;
    output_array<T> out = new_array<T>(in.size);
    {
      nb::gil_scoped_release unlocked;
      const contiguous<T> a(in);
      const std::size_t n = in.size;
      if (op == unary::inclusive_scan) ssum::inclusive_scan(policy(threads), a.data(), out.data(), n);
      if (op == unary::exclusive_scan) ssum::exclusive_scan(policy(threads), a.data(), out.data(), n, T(0));
      if (op == unary::sort) {
        std::copy(a.data(), a.data() + n, out.data());
        // Batcher's network, O(n log^2 n): the transposition sort is quadratic on unsorted keys.
        ssum::odd_even_merge_sort(policy(threads), out.data(), n);
      }
    }
    return out.cast();
  });
}

nb::object run_merge(nb::handle a_object, nb::handle b_object, std::optional<unsigned> threads) {
  const host_input a = take(a_object, "merge");
  const host_input b = take(b_object, "merge");
  // No promotion: numpy's would turn int64 with uint64 into float64, which is not exact.
  if (a.type != b.type) {
    throw nb::type_error(("ssum.merge: a and b must have one dtype, not " + a.dtype + " and " + b.dtype +
                          " (convert one first, e.g. b.astype(a.dtype), where that is exact)")
                             .c_str());
  }
  return with_element(a.type, [&](auto type) -> nb::object {
    using T = typename decltype(type)::type;
    const contiguous<T> da(a), db(b);
    check_sorted(da.data(), a.size, "a");
    check_sorted(db.data(), b.size, "b");
    output_array<T> out = new_array<T>(a.size + b.size);
    {
      nb::gil_scoped_release unlocked;
      ssum::merge(policy(threads), da.data(), a.size, db.data(), b.size, out.data());
    }
    return out.cast();
  });
}

}  // namespace

void bind_primitives(nb::module_& m) {
  // Device arrays first: those overloads take only arrays that report a device other than the
  // host; every other argument reaches the host overloads below, which take any object.
  bind_device_primitives(m);
  const struct {
    const char* name;
    unary op;
    const char* doc;
  } unaries[] = {
      {"inclusive_scan", unary::inclusive_scan, "Running sums of a 1-D array, in its dtype: a new array."},
      {"exclusive_scan", unary::exclusive_scan, "Running sums before each element, in the array's dtype: a new array."},
      {"sort", unary::sort, "A sorted copy of a 1-D array (ascending, NaNs last)."},
  };
  for (const auto& u : unaries) {
    m.def(
        u.name,
        [op = u.op, name = u.name](nb::handle a, std::optional<unsigned> threads) { return run(op, a, threads, name); },
        "a"_a, nb::kw_only(), "threads"_a = nb::none(), u.doc);
  }
  m.def(
      "merge", [](nb::handle a, nb::handle b, std::optional<unsigned> threads) { return run_merge(a, b, threads); },
      "a"_a, "b"_a, nb::kw_only(), "threads"_a = nb::none(),
      "The stable merge of two ascending 1-D arrays of one dtype: a new array.");
}

}  // namespace ssum::python

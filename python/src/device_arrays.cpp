// ssum's primitives on CUDA device arrays, taken through DLPack (CuPy arrays, PyTorch tensors,
// anything with __dlpack__ and __dlpack_device__). These overloads come before the numpy ones
// and accept only arrays that report a device other than the host, so numpy input never
// reaches them. The result is a new device array on the input's device: a CuPy array for CuPy
// input, a PyTorch tensor for PyTorch input, else nanobind's DLPack-capable ndarray. Its memory
// comes from the stream-ordered pool and goes back when the array is collected.
//
// Stream: every step runs on the legacy default stream of the input's device (what CuPy and
// PyTorch use unless told otherwise); nanobind asks for the input with no stream, which
// DLPack defines as that same stream. Nothing waits for the results except merge's
// sortedness check, so work queued on other non-blocking streams must be synchronised by the
// caller. Without CUDA in the build these overloads raise ssum.BackendUnavailable.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include "bindings.hpp"
#include "ssum/errors.hpp"
#if SSUM_PYTHON_CUDA
#include "device_primitives.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace ssum::python {

/// An argument that exports itself through DLPack from a device other than the host.
struct device_operand {
  nb::object object;
  int device_type = 0;
};

namespace {

constexpr int dl_cpu = 1, dl_cuda = 2, dl_cuda_managed = 13;  // DLPack's DLDeviceType values

/// What __dlpack_device__() reports, when it reports a device other than the host; never raises.
std::optional<device_operand> as_device(nb::handle src) noexcept {
  PyObject* result = PyObject_CallMethod(src.ptr(), "__dlpack_device__", nullptr);
  if (!result) {
    PyErr_Clear();
    return std::nullopt;
  }
  long type = -1;
  if (PyTuple_Check(result) && PyTuple_GET_SIZE(result) == 2) type = PyLong_AsLong(PyTuple_GET_ITEM(result, 0));
  Py_DECREF(result);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  if (type == -1 || type == dl_cpu) return std::nullopt;
  return device_operand{nb::borrow(src), static_cast<int>(type)};
}

}  // namespace
}  // namespace ssum::python

namespace nanobind::detail {
template <>
struct type_caster<ssum::python::device_operand> {
  NB_TYPE_CASTER(ssum::python::device_operand, const_name("object"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    std::optional<ssum::python::device_operand> operand = ssum::python::as_device(src);
    if (!operand) return false;
    value = std::move(*operand);
    return true;
  }
};
}  // namespace nanobind::detail

namespace ssum::python {
namespace {

std::string device_name(int type) {
  switch (type) {
    case 3: return "CUDA host (pinned)";
    case 4: return "OpenCL";
    case 7: return "Vulkan";
    case 8: return "Metal";
    case 10: return "ROCm";
    case 11: return "ROCm host";
    case 14: return "oneAPI";
    default: return "DLPack type " + std::to_string(type);
  }
}

std::string dtype_name(nb::dlpack::dtype t) {
  using code = nb::dlpack::dtype_code;
  std::string name;
  switch (static_cast<code>(t.code)) {
    case code::Int: name = "int"; break;
    case code::UInt: name = "uint"; break;
    case code::Float: name = "float"; break;
    case code::Bfloat: name = "bfloat"; break;
    case code::Complex: name = "complex"; break;
    case code::Bool: return "bool";
    default: return "of DLPack type code " + std::to_string(t.code) + " (" + std::to_string(t.bits) + " bits)";
  }
  name += std::to_string(t.bits);
  if (t.lanes != 1) name += "x" + std::to_string(t.lanes);
  return name;
}

/// One argument read through DLPack and checked: a 1-D contiguous array on a CUDA device.
struct device_input {
  nb::ndarray<nb::ro> array;
  std::size_t size = 0;
  int device = 0;
};

void require_cuda(int device_type, const char* arg) {
  if (device_type != dl_cuda && device_type != dl_cuda_managed) {
    throw nb::type_error((std::string(arg) + " is on an unsupported device (" + device_name(device_type) +
                          "); the primitives take numpy arrays and CUDA device arrays")
                             .c_str());
  }
}

device_input take(const device_operand& x, const char* arg) {
  require_cuda(x.device_type, arg);  // before the import: other devices are not asked for data
  device_input in;
  try {
    in.array = nb::cast<nb::ndarray<nb::ro>>(x.object, false);
  } catch (const nb::cast_error&) {
    if (PyErr_Occurred()) throw nb::python_error();
    // The producer's own reason first, where it has one (PyTorch: a tensor that requires grad).
    if (nb::hasattr(x.object, "__dlpack__")) nb::object ignored = x.object.attr("__dlpack__")();
    throw nb::type_error((std::string(arg) + " could not be read through DLPack").c_str());
  }
  const nb::ndarray<nb::ro>& a = in.array;
  require_cuda(a.device_type(), arg);  // what the capsule says, should it differ
  if (a.ndim() != 1) {
    throw nb::value_error((std::string(arg) + " must be 1-D, not " + std::to_string(a.ndim()) + "-D").c_str());
  }
  if (a.shape(0) > 1 && a.stride(0) != 1) {
    throw nb::value_error((std::string(arg) + " is not contiguous (a stride of " + std::to_string(a.stride(0)) +
                           " elements): pass a contiguous copy")
                              .c_str());
  }
  in.size = a.shape(0);
  in.device = a.device_id();
  return in;
}

/// Calls f(std::type_identity<T>{}) for the element type of a CUDA primitive; TypeError otherwise.
template <class F>
nb::object with_element_type(nb::dlpack::dtype t, const char* arg, F&& f) {
  using code = nb::dlpack::dtype_code;
  if (t.lanes == 1 && t.code == static_cast<std::uint8_t>(code::Int)) {
    if (t.bits == 32) return f(std::type_identity<std::int32_t>{});
    if (t.bits == 64) return f(std::type_identity<std::int64_t>{});
  } else if (t.lanes == 1 && t.code == static_cast<std::uint8_t>(code::UInt)) {
    if (t.bits == 32) return f(std::type_identity<std::uint32_t>{});
    if (t.bits == 64) return f(std::type_identity<std::uint64_t>{});
  } else if (t.lanes == 1 && t.code == static_cast<std::uint8_t>(code::Float)) {
    if (t.bits == 32) return f(std::type_identity<float>{});
    if (t.bits == 64) return f(std::type_identity<double>{});
  }
  throw nb::type_error((std::string(arg) + " has dtype " + dtype_name(t) +
                        ", which the CUDA primitives do not take (int32, int64, uint32, uint64, float32, float64)")
                           .c_str());
}

enum class unary { inclusive_scan, exclusive_scan, sort };

#if SSUM_PYTHON_CUDA
enum class framework { cupy, pytorch, neutral };

/// The input's framework, from its type's module, as nanobind tells them apart.
framework framework_of(nb::handle object) {
  nb::object module = nb::getattr(object.type(), "__module__", nb::none());
  if (!nb::isinstance<nb::str>(module)) return framework::neutral;
  // Read as a str: nb::cast<std::string> needs nanobind/stl/string.h, without which it
  // looks for a bound class std::string and fails with a bare std::bad_cast.
  const std::string name = nb::borrow<nb::str>(module).c_str();
  if (name.rfind("cupy", 0) == 0) return framework::cupy;
  if (name.rfind("torch", 0) == 0) return framework::pytorch;
  return framework::neutral;
}

struct allocation {
  void* data;
  int device;
};

/// Device memory for a result, freed unless handed over to the array that returns it.
class device_memory {
 public:
  device_memory(std::size_t bytes, int ordinal) : a_{device::allocate(bytes, ordinal), ordinal} {}
  ~device_memory() {
    if (a_.data) device::release(a_.data, a_.device);
  }
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(a_.data);
  }
  /// A capsule that frees the memory when the last array viewing it goes.
  nb::capsule hand_over() {
    auto owned = std::make_unique<allocation>(a_);
    nb::capsule owner(owned.get(), [](void* p) noexcept {
      const auto* a = static_cast<allocation*>(p);
      device::release(a->data, a->device);
      delete a;
    });
    owned.release();
    a_.data = nullptr;
    return owner;
  }

 private:
  allocation a_;
};

/// nanobind's cast_error (a std::bad_cast) hides the Python error behind a failed export:
/// that error, or a TypeError naming the step.
template <class Array>
nb::object exported(Array&& array) {
  try {
    return array.cast();
  } catch (const nb::cast_error&) {
    if (PyErr_Occurred()) throw nb::python_error();
    throw nb::type_error("the result could not be handed to the input's framework through DLPack");
  }
}

/// The result array, in the input's framework.
template <class T>
nb::object wrap(device_memory& memory, std::size_t n, int ordinal, framework fw) {
  T* data = memory.as<T>();
  nb::capsule owner = memory.hand_over();
  const std::size_t shape[1] = {n};
  constexpr int cuda = nb::device::cuda::value;
  switch (fw) {
    case framework::cupy:
      return exported(
          nb::ndarray<nb::cupy, T, nb::ndim<1>>(data, 1, shape, owner, nullptr, nb::dtype<T>(), cuda, ordinal));
    case framework::pytorch:
      return exported(
          nb::ndarray<nb::pytorch, T, nb::ndim<1>>(data, 1, shape, owner, nullptr, nb::dtype<T>(), cuda, ordinal));
    default:  // an object with __dlpack__ and __dlpack_device__; a bare capsule, which the
              // default framework gives, is refused by cupy.from_dlpack and has no device
      return exported(
          nb::ndarray<nb::array_api, T, nb::ndim<1>>(data, 1, shape, owner, nullptr, nb::dtype<T>(), cuda, ordinal));
  }
}

nb::object run(unary op, const device_operand& x) {
  const device_input in = take(x, "a");
  return with_element_type(in.array.dtype(), "a", [&](auto type) {
    using T = typename decltype(type)::type;
    const T* data = static_cast<const T*>(in.array.data());
    const framework fw = framework_of(x.object);  // before the device work: a GPU-less test reaches it
    std::optional<device_memory> out;
    {
      nb::gil_scoped_release unlocked;
      out.emplace(in.size * sizeof(T), in.device);
      T* result = out->as<T>();
      if (op == unary::inclusive_scan) device::inclusive_scan(data, result, in.size, in.device);
      if (op == unary::exclusive_scan) device::exclusive_scan(data, result, in.size, in.device);
      if (op == unary::sort) device::sort(data, result, in.size, in.device);
    }
    return wrap<T>(*out, in.size, in.device, fw);
  });
}

template <class T>
void check_sorted(const T* data, std::size_t n, int device, const char* name) {
  std::size_t first = 0;
  {
    nb::gil_scoped_release unlocked;
    first = device::first_unsorted(data, n, device);
  }
  if (first < n) {
    throw nb::value_error((std::string(name) + " is not sorted ascending (at index " + std::to_string(first) + ")").c_str());
  }
}
#else
[[noreturn]] void unavailable() {
  throw ssum::backend_unavailable(
      "a CUDA device array was passed, but this ssum was built without CUDA (numpy arrays run on the host)");
}

nb::object run(unary, const device_operand& x) {
  const device_input in = take(x, "a");
  return with_element_type(in.array.dtype(), "a", [](auto) -> nb::object { unavailable(); });
}
#endif  // SSUM_PYTHON_CUDA

device_operand device_or_refuse(nb::handle x, const char* arg, const char* other) {
  std::optional<device_operand> d = as_device(x);
  if (!d) {
    throw nb::type_error((std::string(other) + " is a device array and " + arg +
                          " is not: merge two arrays on one CUDA device")
                             .c_str());
  }
  return std::move(*d);
}

nb::object run_merge(nb::handle a_object, nb::handle b_object) {
  const device_input a = take(device_or_refuse(a_object, "a", "b"), "a");
  const device_input b = take(device_or_refuse(b_object, "b", "a"), "b");
  if (a.array.dtype() != b.array.dtype()) {
    throw nb::type_error(("a and b must have one dtype, not " + dtype_name(a.array.dtype()) + " and " +
                          dtype_name(b.array.dtype()))
                             .c_str());
  }
  if (a.device != b.device) {
    throw nb::value_error(("a is on CUDA device " + std::to_string(a.device) + " and b on device " +
                           std::to_string(b.device) + ": merge two arrays on one device")
                              .c_str());
  }
  return with_element_type(a.array.dtype(), "a", [&]([[maybe_unused]] auto type) -> nb::object {
#if SSUM_PYTHON_CUDA
    using T = typename decltype(type)::type;
    const T* da = static_cast<const T*>(a.array.data());
    const T* db = static_cast<const T*>(b.array.data());
    const framework fw = framework_of(a_object);
    check_sorted(da, a.size, a.device, "a");
    check_sorted(db, b.size, b.device, "b");
    std::optional<device_memory> out;
    {
      nb::gil_scoped_release unlocked;
      out.emplace((a.size + b.size) * sizeof(T), a.device);
      device::merge(da, a.size, db, b.size, out->as<T>(), a.device);
    }
    return wrap<T>(*out, a.size + b.size, a.device, fw);
#else
    unavailable();
#endif
  });
}

}  // namespace

void bind_device_primitives(nb::module_& m) {
  // threads= is taken so that one call works for both kinds of array; the device ignores it.
  const std::pair<const char*, unary> unaries[] = {
      {"inclusive_scan", unary::inclusive_scan}, {"exclusive_scan", unary::exclusive_scan}, {"sort", unary::sort}};
  for (const auto& [name, op] : unaries) {
    m.def(
        name, [op = op](const device_operand& a, std::optional<unsigned>) { return run(op, a); }, "a"_a,
        nb::kw_only(), "threads"_a = nb::none(),
        "A 1-D contiguous CUDA array (CuPy, PyTorch, DLPack) of int32, int64, uint32, uint64, float32 or float64: "
        "a new array on its device, computed on its legacy default stream.");
  }
  // Either argument on a device selects this path, so that mixing a numpy and a device array is
  // refused with a message rather than nanobind's list of signatures.
  m.def(
      "merge", [](const device_operand& a, nb::handle b, std::optional<unsigned>) { return run_merge(a.object, b); },
      "a"_a, "b"_a, nb::kw_only(), "threads"_a = nb::none(),
      "Two 1-D contiguous CUDA arrays of one dtype on one device: their stable merge, a new array there.");
  m.def(
      "merge", [](nb::handle a, const device_operand& b, std::optional<unsigned>) { return run_merge(a, b.object); },
      "a"_a, "b"_a, nb::kw_only(), "threads"_a = nb::none());
}

}  // namespace ssum::python

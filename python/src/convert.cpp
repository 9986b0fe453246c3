#include "convert.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include <nanobind/ndarray.h>

#include "io/amounts.hpp"

namespace nb = nanobind;

namespace ssum::python {
namespace {

constexpr int128 int128_min = int128(uint128(1) << 127);

[[noreturn]] void too_wide(const char* what) {
  throw nb::value_error((std::string(what) + " needs 128 bits or more; ssum takes integers of up to 127 bits "
                                             "(absolute value below 2^127)")
                            .c_str());
}

// The value of an exact Python int object: 64 bits directly, otherwise its low 64 bits and
// the rest (an arithmetic shift, so negative values come out in two's complement).
int128 long_to_int128(PyObject* value, const char* what) {
  int overflow = 0;
  const long long small = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (!overflow) {
    if (small == -1 && PyErr_Occurred()) throw nb::python_error();
    return small;
  }
  const unsigned long long low = PyLong_AsUnsignedLongLongMask(value);
  if (low == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw nb::python_error();
  nb::object shift = nb::steal(PyLong_FromLong(64));
  nb::object high_object = nb::steal(PyNumber_Rshift(value, shift.ptr()));
  if (!high_object.is_valid()) throw nb::python_error();
  const long long high = PyLong_AsLongLongAndOverflow(high_object.ptr(), &overflow);
  if (overflow) too_wide(what);
  if (high == -1 && PyErr_Occurred()) throw nb::python_error();
  const int128 result = int128((uint128(static_cast<unsigned long long>(high)) << 64) | low);
  if (result == int128_min) too_wide(what);
  return result;
}

// Element i of a strided array of T, widened.
template <class T>
void read_array(const nb::ndarray<nb::ro, nb::device::cpu>& array, std::vector<int128>& out) {
  const auto* data = static_cast<const T*>(array.data());
  const std::int64_t stride = array.stride(0);
  const std::size_t n = array.shape(0);
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = int128(data[std::int64_t(i) * stride]);
}

std::vector<int128> array_weights(const nb::ndarray<nb::ro, nb::device::cpu>& array) {
  if (array.ndim() != 1) {
    throw nb::value_error(("weights must be a 1-D array; this one has " + std::to_string(array.ndim()) +
                           " dimensions")
                              .c_str());
  }
  const nb::dlpack::dtype type = array.dtype();
  std::vector<int128> weights;
  const auto code = static_cast<nb::dlpack::dtype_code>(type.code);
  if (type.lanes == 1 && code == nb::dlpack::dtype_code::Int) {
    switch (type.bits) {
      case 8: read_array<std::int8_t>(array, weights); return weights;
      case 16: read_array<std::int16_t>(array, weights); return weights;
      case 32: read_array<std::int32_t>(array, weights); return weights;
      case 64: read_array<std::int64_t>(array, weights); return weights;
    }
  } else if (type.lanes == 1 && code == nb::dlpack::dtype_code::UInt) {
    switch (type.bits) {
      case 8: read_array<std::uint8_t>(array, weights); return weights;
      case 16: read_array<std::uint16_t>(array, weights); return weights;
      case 32: read_array<std::uint32_t>(array, weights); return weights;
      case 64: read_array<std::uint64_t>(array, weights); return weights;
    }
  }
  throw nb::type_error("weights must be an array of integers (int8 to int64, uint8 to uint64)");
}

constexpr const char* integer_dtypes = "int8 to int64, uint8 to uint64, or object arrays of Python ints";

// numpy's bool scalar has no __index__ (numpy 2 removed it), yet it stands where a Python bool
// would, which is an int. Told apart by its type's name, so that numpy need not be imported.
bool is_numpy_bool(nb::handle value) {
  const char* name = Py_TYPE(value.ptr())->tp_name;
  return std::strcmp(name, "numpy.bool") == 0 || std::strcmp(name, "numpy.bool_") == 0;
}

// Attribute `name` of `object`, or an invalid object (the error cleared) where there is none.
nb::object attribute(nb::handle object, const char* name) {
  nb::object result = nb::steal(PyObject_GetAttrString(object.ptr(), name));
  if (!result.is_valid()) PyErr_Clear();
  return result;
}

}  // namespace

std::optional<numpy_dtype> numpy_dtype_of(nb::handle array) {
  nb::object dtype = attribute(array, "dtype");
  if (!dtype.is_valid()) return std::nullopt;
  nb::object kind = attribute(dtype, "kind"), itemsize = attribute(dtype, "itemsize"),
             byteorder = attribute(dtype, "byteorder");
  // PyTorch's and others' dtypes have none of these: such arrays are read through DLPack.
  if (!kind.is_valid() || !itemsize.is_valid() || !byteorder.is_valid() || !PyUnicode_Check(kind.ptr()) ||
      !PyUnicode_Check(byteorder.ptr()) || !PyLong_Check(itemsize.ptr())) {
    return std::nullopt;
  }
  numpy_dtype result;
  const char* k = PyUnicode_AsUTF8(kind.ptr());
  const char* order = PyUnicode_AsUTF8(byteorder.ptr());
  const long size = PyLong_AsLong(itemsize.ptr());
  nb::object text = nb::steal(PyObject_Str(dtype.ptr()));
  if (!k || !order || size < 0 || !text.is_valid()) {
    PyErr_Clear();
    return std::nullopt;
  }
  const char* name = PyUnicode_AsUTF8(text.ptr());
  if (!name) {
    PyErr_Clear();
    return std::nullopt;
  }
  result.kind = k[0];
  result.itemsize = static_cast<std::size_t>(size);
  // numpy writes the machine's order as '=' and "not applicable" (one byte, objects) as '|'.
  result.native = order[0] == '=' || order[0] == '|';
  result.name = name;
  return result;
}

std::string describe(const numpy_dtype& dtype) {
  if (dtype.native) return dtype.name;
  return dtype.name + (!dtype.name.empty() && dtype.name.front() == '>' ? " (big-endian)" : " (little-endian)");
}

bool to_bool(nb::handle value, const char* what) {
  if (value.ptr() == Py_True) return true;
  if (value.ptr() == Py_False) return false;
  if (is_numpy_bool(value)) {
    const int truth = PyObject_IsTrue(value.ptr());
    if (truth < 0) throw nb::python_error();
    return truth != 0;
  }
  throw nb::type_error(
      (std::string(what) + " must be True or False, not " + nb::type_name(value.type()).c_str()).c_str());
}

int128 to_int128(nb::handle value, const char* what) {
  if (PyLong_Check(value.ptr())) return long_to_int128(value.ptr(), what);
  if (is_numpy_bool(value)) return to_bool(value, what) ? 1 : 0;
  // numpy integer scalars and other objects with __index__; floats and strings, which have
  // none, are refused. An __index__ that raises is the caller's error to see as raised.
  if (PyFloat_Check(value.ptr())) {
    throw nb::type_error((std::string(what) + " must be an integer, a decimal.Decimal or a decimal string, not " +
                          nb::type_name(value.type()).c_str() + ": a float is not exact")
                             .c_str());
  }
  if (!PyIndex_Check(value.ptr())) {
    throw nb::type_error((std::string(what) + " must be an integer, not " +
                          nb::type_name(value.type()).c_str())
                             .c_str());
  }
  nb::object index = nb::steal(PyNumber_Index(value.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  return long_to_int128(index.ptr(), what);
}

int128 to_integer(nb::handle value, const char* what) {
  if (PyFloat_Check(value.ptr()) || (!PyIndex_Check(value.ptr()) && !is_numpy_bool(value))) {
    throw nb::type_error(
        (std::string(what) + " must be an integer, not " + nb::type_name(value.type()).c_str()).c_str());
  }
  return to_int128(value, what);
}

std::optional<double> to_seconds(nb::handle value, const char* what) {
  if (value.is_none()) return std::nullopt;
  const PyNumberMethods* number = Py_TYPE(value.ptr())->tp_as_number;
  const bool numeric = PyFloat_Check(value.ptr()) || PyIndex_Check(value.ptr()) || (number && number->nb_float);
  if (!numeric || PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr())) {
    throw nb::type_error((std::string(what) + " must be a number of seconds, or None, not " +
                          nb::type_name(value.type()).c_str())
                             .c_str());
  }
  const double seconds = PyFloat_AsDouble(value.ptr());
  if (seconds == -1.0 && PyErr_Occurred()) throw nb::python_error();
  if (!(seconds > 0)) throw nb::value_error((std::string(what) + " must be a number of seconds above 0, or None").c_str());
  return std::isinf(seconds) ? 0.0 : seconds;
}

std::string to_choice(nb::handle value, const char* what, const char* choices) {
  if (!PyUnicode_Check(value.ptr())) {
    throw nb::type_error((std::string(what) + " must be " + choices + ", not " + nb::type_name(value.type()).c_str())
                             .c_str());
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (!text) throw nb::python_error();
  return std::string(text, static_cast<std::size_t>(size));
}

nb::tuple to_amount(nb::handle text, const char* what) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_Check(text.ptr()) ? PyUnicode_AsUTF8AndSize(text.ptr(), &size) : nullptr;
  if (!data) {
    PyErr_Clear();
    throw nb::type_error((std::string(what) + " must be a decimal string").c_str());
  }
  const std::string_view token(data, static_cast<std::size_t>(size));
  io::amount a;
  const io::amount_fault fault = io::parse_amount(token, a);
  if (fault == io::amount_fault::not_a_number) {
    throw nb::value_error((std::string(what) + ": " + io::in_quotes(token) +
                           " is not a decimal amount ([+-]digits[.digits], such as '-1234.56' or '.5')")
                              .c_str());
  }
  if (fault != io::amount_fault::none) {
    throw nb::value_error((std::string(what) + ": " + io::in_quotes(token) + io::fault_text(fault)).c_str());
  }
  return nb::make_tuple(to_python(a.value), nb::int_(a.decimals));
}

std::vector<int128> to_weights(nb::handle weights) {
  bool object_array = false;
  if (!PyList_Check(weights.ptr()) && !PyTuple_Check(weights.ptr()) && nb::ndarray_check(weights)) {
    // The dtype first: DLPack cannot carry object, string, date or foreign-byte-order arrays,
    // and its refusal would say nothing about why.
    if (const std::optional<numpy_dtype> dtype = numpy_dtype_of(weights)) {
      object_array = dtype->kind == 'O';
      if (!object_array && (!dtype->native || (dtype->kind != 'i' && dtype->kind != 'u'))) {
        throw nb::type_error(("weights must be an array of integers (" + std::string(integer_dtypes) +
                              "), not of dtype " + describe(*dtype))
                                 .c_str());
      }
    }
    if (!object_array) {
      nb::ndarray<nb::ro, nb::device::cpu> array;
      if (!nb::try_cast(weights, array, /*convert=*/false)) {
        if (PyErr_Occurred()) throw nb::python_error();
        throw nb::type_error(
            "weights: this array cannot be read on the host (DLPack device arrays are not supported)");
      }
      return array_weights(array);
    }
    // An object array (Python ints of any width) is read as the list it holds, once its shape
    // is known to be 1-D: a 2-D one would be read as a list of rows.
    nb::object ndim = attribute(weights, "ndim");
    if (!ndim.is_valid() || !PyLong_Check(ndim.ptr()) || PyLong_AsLong(ndim.ptr()) != 1) {
      PyErr_Clear();
      throw nb::value_error("weights must be a 1-D array; this object array is not");
    }
  }
  // Lists and tuples directly, any other iterable (range, generator) through a list. Only an
  // object that cannot be iterated at all gets this message: an error raised while iterating
  // (a generator's own) propagates as raised.
  if (!PySequence_Check(weights.ptr()) && Py_TYPE(weights.ptr())->tp_iter == nullptr) {
    throw nb::type_error(("weights must be a sequence of integers or an integer array, not " +
                          std::string(nb::type_name(weights.type()).c_str()))
                             .c_str());
  }
  // PySequence_List, not PySequence_Fast: the latter replaces an iterator's TypeError by its own.
  nb::object items = PyList_Check(weights.ptr()) || PyTuple_Check(weights.ptr())
                         ? nb::borrow(weights)
                         : nb::steal(PySequence_List(weights.ptr()));
  if (!items.is_valid()) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
  PyObject** item = PySequence_Fast_ITEMS(items.ptr());
  std::vector<int128> result(static_cast<std::size_t>(n));
  std::string name;
  for (Py_ssize_t i = 0; i < n; ++i) {
    // The common case, an int of 64 bits, without building the name for messages.
    if (PyLong_CheckExact(item[i])) {
      int overflow = 0;
      const long long small = PyLong_AsLongLongAndOverflow(item[i], &overflow);
      if (!overflow) {
        result[i] = small;
        continue;
      }
    }
    name = "weights[" + std::to_string(i) + "]";
    result[i] = to_int128(item[i], name.c_str());
  }
  return result;
}

nb::object to_python(int128 value) {
  if (value >= INT64_MIN && value <= INT64_MAX) return nb::steal(PyLong_FromLongLong(static_cast<long long>(value)));
  const auto low = static_cast<unsigned long long>(uint128(value));
  const auto high = static_cast<long long>(value >> 64);  // arithmetic: the sign comes along
  nb::object high_object = nb::steal(PyLong_FromLongLong(high));
  nb::object shift = nb::steal(PyLong_FromLong(64));
  nb::object shifted = nb::steal(PyNumber_Lshift(high_object.ptr(), shift.ptr()));
  if (!shifted.is_valid()) throw nb::python_error();
  nb::object low_object = nb::steal(PyLong_FromUnsignedLongLong(low));
  nb::object sum = nb::steal(PyNumber_Add(shifted.ptr(), low_object.ptr()));
  if (!sum.is_valid()) throw nb::python_error();
  return sum;
}

nb::object to_python(const big_count& count) {
  const std::vector<std::uint64_t>& limbs = count.limbs();
  if (limbs.empty()) return nb::steal(PyLong_FromLong(0));
  if (limbs.size() == 1) return nb::steal(PyLong_FromUnsignedLongLong(limbs[0]));
  std::string hex;
  hex.reserve(limbs.size() * 16);
  constexpr char digits[] = "0123456789abcdef";
  for (std::size_t k = limbs.size(); k-- > 0;) {
    for (int shift = 60; shift >= 0; shift -= 4) hex += digits[(limbs[k] >> shift) & 15];
  }
  nb::object result = nb::steal(PyLong_FromString(hex.c_str(), nullptr, 16));
  if (!result.is_valid()) throw nb::python_error();
  return result;
}

}  // namespace ssum::python

#pragma once
// Conversions between Python objects and ssum's wide integers: weights and targets of any
// width up to 127 bits, counts of any size.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include "ssum/big_count.hpp"
#include "ssum/int128.hpp"

namespace ssum::python {

/// The value of a Python int (or of anything with __index__, such as a numpy integer scalar, or
/// of a numpy bool, taken as 0 or 1 like a Python bool). Throws nb::type_error naming `what` for
/// objects without __index__, nb::value_error naming `what` when the value needs 128 bits or
/// more (|v| >= 2^127: ssum refuses such a weight anyway); an exception that __index__ itself
/// raises propagates unchanged.
int128 to_int128(nanobind::handle value, const char* what);

/// Weights from a list, tuple or other iterable of Python ints, from a numpy object array of
/// them, or from a 1-D numpy (or other buffer-protocol) array of any integer dtype, read in C++
/// without a Python loop. Errors name the offending index, or the array's dtype; an exception
/// that the iterable raises while it is read propagates unchanged.
std::vector<int128> to_weights(nanobind::handle weights);

/// An integer argument (anything with __index__): nb::type_error naming `what` for a float,
/// a string or None, nb::value_error for 128 bits or more.
int128 to_integer(nanobind::handle value, const char* what);

/// A number of seconds (an int or anything with __float__), or nullopt for None; inf is 0, "no
/// limit". nb::type_error naming `what` for a string or other non-number, nb::value_error for
/// 0 or less or NaN.
std::optional<double> to_seconds(nanobind::handle value, const char* what);

/// A string argument, one of `choices` ("'auto', 'cpu' or 'cuda'"); nb::type_error naming
/// `what` for a non-string. The caller checks the value against the choices.
std::string to_choice(nanobind::handle value, const char* what, const char* choices);

/// A decimal string read by the program's own amount parser (ssum solve's rule: [+-]digits
/// [.digits], either side of the point may be empty, not both; at most 18 decimals), as
/// (mantissa, decimals) with value = mantissa / 10^decimals. nb::value_error naming `what`.
nanobind::tuple to_amount(nanobind::handle text, const char* what);

/// A Python bool or a numpy bool; nb::type_error naming `what` for anything else.
bool to_bool(nanobind::handle value, const char* what);

/// What a numpy array's dtype says, read through its Python attributes. nanobind reads arrays
/// through DLPack, which has no byte order, strings or dates: such arrays would only be reported
/// as unreadable, where the dtype is what the caller needs to hear about.
struct numpy_dtype {
  char kind = 0;           // dtype.kind: 'i', 'u', 'f', 'b', 'O', 'U', 'M', ...
  std::size_t itemsize = 0;
  bool native = true;      // in the machine's byte order
  std::string name;        // str(dtype): "float16", ">i8", "<U3", "datetime64[s]"
};

/// The dtype of a numpy array (or scalar), or nullopt for objects without a numpy-like dtype
/// (lists, PyTorch tensors, memoryviews). Never raises.
std::optional<numpy_dtype> numpy_dtype_of(nanobind::handle array);

/// The dtype for messages: "float16", or ">i8 (big-endian)" for a foreign byte order.
std::string describe(const numpy_dtype& dtype);

/// A Python int holding `value` exactly.
nanobind::object to_python(int128 value);

/// A Python int holding the count exactly, at any size (through hexadecimal digits, which the
/// interpreter's limit on decimal conversions does not apply to).
nanobind::object to_python(const big_count& count);

}  // namespace ssum::python

#pragma once
// Conversions between Python objects and ssum's wide integers: weights and targets of any
// width up to 127 bits, counts of any size.
#include <cstddef>
#include <optional>
#include <vector>

#include <nanobind/nanobind.h>

#include "ssum/big_count.hpp"
#include "ssum/int128.hpp"

namespace ssum::python {

/// The value of a Python int (or of anything with __index__, such as a numpy integer scalar).
/// Throws nb::type_error for other objects, nb::value_error naming `what` when the value needs
/// 128 bits or more (|v| >= 2^127: ssum refuses such a weight anyway).
int128 to_int128(nanobind::handle value, const char* what);

/// Weights from a list, tuple or other iterable of Python ints, or from a 1-D numpy (or other
/// buffer-protocol) array of any integer dtype, read in C++ without a Python loop. Errors name
/// the offending index.
std::vector<int128> to_weights(nanobind::handle weights);

/// A Python int holding `value` exactly.
nanobind::object to_python(int128 value);

/// A Python int holding the count exactly, at any size (through hexadecimal digits, which the
/// interpreter's limit on decimal conversions does not apply to).
nanobind::object to_python(const big_count& count);

}  // namespace ssum::python

// ssum.solve_rows and ssum.read_rows: multi-row (market split) instances, answered by
// ssum::solve_rows as a ssum.RowsSolution, the Solution of ssum.solve with the rows' fields.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "solve_binding.hpp"
#include "ssum/problem.hpp"
#include "ssum/rows.hpp"
#include "ssum/solve_rows.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace ssum::python {
namespace {

// ---- arguments ------------------------------------------------------------------------
/// to_weights for one argument of another name: its messages name "weights", which here is
/// `name` ("rows[2]", "targets"). Rows take no decimal amounts, so the float message's mention
/// of them goes too. Exceptions raised by Python code (a generator, __index__) pass unchanged.
std::vector<int128> read_integers(nb::handle values, const std::string& name) {
  try {
    return to_weights(values);
  } catch (const nb::builtin_exception& e) {
    std::string message = e.what();
    const std::string weights = "weights";
    if (message.compare(0, weights.size(), weights) == 0) message.replace(0, weights.size(), name);
    const std::string amounts = ", a decimal.Decimal or a decimal string";
    if (const std::size_t at = message.find(amounts); at != std::string::npos) message.erase(at, amounts.size());
    throw nb::builtin_exception(e.type(), message.c_str());
  }
}

/// The number of dimensions of an array-like (numpy, PyTorch, ...), or -1 for other objects.
long dimensions(nb::handle value) {
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr()) || !nb::ndarray_check(value)) return -1;
  nb::object ndim = nb::steal(PyObject_GetAttrString(value.ptr(), "ndim"));
  if (!ndim.is_valid() || !PyLong_Check(ndim.ptr())) {
    PyErr_Clear();
    return -1;
  }
  return PyLong_AsLong(ndim.ptr());
}

/// The rows, each read as ssum.solve reads its weights: a 2-D array is read row by row (its
/// rows are 1-D views), any other iterable as a sequence of rows.
std::vector<std::vector<int128>> read_matrix(nb::handle rows) {
  const long ndim = dimensions(rows);
  if (ndim >= 0 && ndim != 2) {
    throw nb::value_error(("rows must be a 2-D array (one row per constraint); this one has " +
                           std::to_string(ndim) + (ndim == 1 ? " dimension" : " dimensions"))
                              .c_str());
  }
  if (ndim == 2) {  // the dtype named for the whole array, not for its first row
    if (const std::optional<numpy_dtype> dtype = numpy_dtype_of(rows);
        dtype && dtype->kind != 'O' && (!dtype->native || (dtype->kind != 'i' && dtype->kind != 'u'))) {
      throw nb::type_error(("rows must be an array of integers (int8 to int64, uint8 to uint64, or object arrays of "
                            "Python ints), not of dtype " + describe(*dtype))
                               .c_str());
    }
  }
  if (ndim < 0 && ((!PySequence_Check(rows.ptr()) && Py_TYPE(rows.ptr())->tp_iter == nullptr) ||
                   PyUnicode_Check(rows.ptr()) || PyBytes_Check(rows.ptr()))) {
    throw nb::type_error(("rows must be a 2-D integer array or a sequence of rows of integers, not " +
                          std::string(nb::type_name(rows.type()).c_str()))
                             .c_str());
  }
  // An array is indexed in place; a list or tuple taken as it is; another iterable read once.
  nb::object items = ndim == 2 || PyList_Check(rows.ptr()) || PyTuple_Check(rows.ptr())
                         ? nb::borrow(rows)
                         : nb::steal(PySequence_List(rows.ptr()));
  if (!items.is_valid()) throw nb::python_error();
  const Py_ssize_t m = PySequence_Size(items.ptr());
  if (m < 0) throw nb::python_error();
  if (m == 0) throw nb::value_error("rows is empty: an instance has at least one row");
  if (std::size_t(m) > ssum::max_rows) {
    throw nb::value_error(("rows has " + std::to_string(m) + " rows; ssum takes at most " +
                           std::to_string(ssum::max_rows))
                              .c_str());
  }
  std::vector<std::vector<int128>> out;
  out.reserve(std::size_t(m));
  for (Py_ssize_t i = 0; i < m; ++i) {
    nb::object row = nb::steal(PySequence_GetItem(items.ptr(), i));
    if (!row.is_valid()) throw nb::python_error();
    const std::string name = "rows[" + std::to_string(i) + "]";
    // A flat list of ints is one row where a list of rows was meant: say so, not "not a sequence".
    if ((!PySequence_Check(row.ptr()) && Py_TYPE(row.ptr())->tp_iter == nullptr) || PyUnicode_Check(row.ptr()) ||
        PyBytes_Check(row.ptr())) {
      throw nb::type_error((name + " (" + nb::type_name(row.type()).c_str() +
                            ") is not a row: rows is a sequence of rows (a list of lists, or a 2-D array); "
                            "ssum.solve takes a single row")
                               .c_str());
    }
    out.push_back(read_integers(row, name));
    if (out.back().size() != out.front().size()) {
      throw nb::value_error((name + " has " + std::to_string(out.back().size()) + " coefficients where rows[0] has " +
                             std::to_string(out.front().size()) + ": every row has one coefficient per column")
                                .c_str());
    }
    // Each row's sum of |coefficient| below 2^127 keeps every row sum exact, as read_rows requires.
    uint128 total = 0;
    for (const int128 a : out.back()) {
      const uint128 size = magnitude(a);
      if (size > ssum::max_weight_total - total) {
        throw nb::value_error((name + ": its coefficients' absolute values add up to 2^127 or more; ssum takes "
                                      "totals up to 2^127 - 1")
                                  .c_str());
      }
      total += size;
    }
  }
  // Rows of no columns are an instance as the program reads them from a file (`m 0`): only the
  // empty subset, which meets the rows when every target is 0.
  if (out.front().size() > ssum::max_items) {
    throw nb::value_error(("rows have " + std::to_string(out.front().size()) + " columns; ssum takes at most " +
                           std::to_string(ssum::max_items))
                              .c_str());
  }
  return out;
}

rows_problem read_instance(nb::handle rows, nb::handle targets) {
  rows_problem p;
  p.rows = read_matrix(rows);
  p.targets = read_integers(targets, "targets");
  if (p.targets.size() != p.rows.size()) {
    throw nb::value_error(("targets has " + std::to_string(p.targets.size()) + (p.targets.size() == 1 ? " value" : " values") +
                           " for " + std::to_string(p.rows.size()) + (p.rows.size() == 1 ? " row" : " rows") +
                           ": one target per row")
                              .c_str());
  }
  return p;
}

nb::list int_list(const std::vector<int128>& values) {
  nb::list out;
  for (const int128 v : values) out.append(to_python(v));
  return out;
}

// ---- the answer -----------------------------------------------------------------------
/// ssum.RowsSolution: a Solution whose target and sum are None (there is one per row: targets,
/// sums), with how the rows were answered.
struct py_rows_solution : py_solution {
  std::string method;
  std::size_t rows_folded = 0, encoding_bits = 0;
  std::uint64_t checked = 0;
  double lattice_seconds = 0;
  std::vector<int128> targets;
  std::optional<std::vector<int128>> sums;  // each row's sum over the subset, when there is one
};

py_rows_solution answer(ssum::rows_solution r, const rows_problem& p) {
  py_rows_solution out;
  out.s = std::move(r.answer);
  out.method = std::move(r.method);
  out.rows_folded = r.rows_folded;
  out.encoding_bits = r.encoding_bits;
  out.checked = r.checked;
  out.lattice_seconds = r.lattice_seconds;
  out.targets = p.targets;
  if (out.s.status == ssum::status::feasible) {
    std::vector<int128> sums;
    for (const std::vector<int128>& row : p.rows) {
      int128 total = 0;
      for (const std::size_t j : out.s.subset) total += row[j];
      sums.push_back(total);
    }
    out.sums = std::move(sums);
  }
  return out;
}

}  // namespace

rows_problem rows_instance(nb::handle rows, nb::handle targets) { return read_instance(rows, targets); }

void bind_rows(nb::module_& m) {
  nb::class_<py_rows_solution, py_solution>(m, "RowsSolution",
                                            "The answer of ssum.solve_rows: a Solution with the rows' fields.")
      .def_prop_ro("method", [](const py_rows_solution& p) { return p.method; })
      .def_prop_ro("rows_folded", [](const py_rows_solution& p) { return p.rows_folded; })
      .def_prop_ro("encoding_bits", [](const py_rows_solution& p) { return p.encoding_bits; })
      .def_prop_ro("checked", [](const py_rows_solution& p) { return p.checked; })
      .def_prop_ro("lattice_seconds", [](const py_rows_solution& p) { return p.lattice_seconds; })
      .def_prop_ro("targets", [](const py_rows_solution& p) { return int_list(p.targets); })
      .def_prop_ro("sums", [](const py_rows_solution& p) { return p.sums ? nb::object(int_list(*p.sums)) : nb::none(); })
      .def("__repr__", [](const py_rows_solution& p) {
        return p.repr("RowsSolution", ", method='" + p.method + "', rows_folded=" + std::to_string(p.rows_folded));
      });

  m.def(
      "solve_rows",
      [](nb::handle rows, nb::handle targets, nb::handle backend, nb::handle algorithm, nb::handle threads,
         nb::handle memory, nb::handle count, nb::handle time_limit, nb::handle seed) {
        solve_settings settings =
            parse_settings(backend, algorithm, threads, memory, to_bool(count, "count"), time_limit, seed);
        const rows_problem p = read_instance(rows, targets);
        ssum::rows_solution result;
        // Off the calling thread with the GIL released; Ctrl-C cancels (KeyboardInterrupt).
        run_interruptible([&](const std::atomic<bool>* cancel) {
          settings.options.cancel = cancel;
          result = ssum::solve_rows(settings.backend, settings.threads, p, settings.options);
          return ssum::solution{};
        });
        return answer(std::move(result), p);
      },
      // Every argument as a handle, None included: the conversions name the argument they refuse.
      "rows"_a.none(), "targets"_a.none(), nb::kw_only(), "backend"_a.none() = "auto", "algorithm"_a.none() = "auto",
      "threads"_a.none() = nb::none(), "memory"_a.none() = nb::none(), "count"_a.none() = false,
      "time_limit"_a.none() = nb::none(), "seed"_a.none() = 1);

  // ssum.read_rows (python/ssum/__init__.py) opens the file first, for Python's own OSErrors.
  m.def(
      "_read_rows",
      [](const std::string& path) {
        rows_problem p;
        {
          nb::gil_scoped_release unlocked;  // a large file is read without holding up other threads
          p = ssum::read_rows(path);
        }
        nb::list rows;
        for (const std::vector<int128>& row : p.rows) rows.append(int_list(row));
        return nb::make_tuple(rows, int_list(p.targets));
      },
      "path"_a);
}

}  // namespace ssum::python

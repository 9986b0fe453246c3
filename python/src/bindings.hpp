#pragma once
// The parts of the module, each defined in its own file.
#include <nanobind/nanobind.h>

#include "ssum/rows.hpp"

namespace ssum::python {

void bind_solve(nanobind::module_& m);       // solve_binding.cpp: solve, Solution, the exceptions
void bind_listing(nanobind::module_& m);     // list_binding.cpp: solutions, the Solutions iterator
void bind_rows(nanobind::module_& m);        // rows_binding.cpp: solve_rows, read_rows, RowsSolution (after bind_solve)
void bind_explain(nanobind::module_& m);      // explain_binding.cpp: explain, explain_rows (the plan's table)
void bind_primitives(nanobind::module_& m);  // primitives.cpp: scans, sort, merge on numpy arrays
void bind_device_primitives(nanobind::module_& m);  // device_arrays.cpp: the same on CUDA arrays

/// rows_binding.cpp: a multi-row instance from Python's lists, checked (ValueError naming the
/// argument).
ssum::rows_problem rows_instance(nanobind::handle rows, nanobind::handle targets);

}  // namespace ssum::python

// The extension module ssum._ssum; the package ssum (python/ssum/__init__.py) re-exports it.
#include <cstdint>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "ssum/generate.hpp"
#include "ssum/version.hpp"

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_ssum, m) {
  m.doc() = "Exact subset sum on CPUs and GPUs (the compiled part of the ssum package)";
  m.attr("__version__") = ssum::version;

  ssum::python::bind_solve(m);
  ssum::python::bind_listing(m);
  ssum::python::bind_rows(m);  // RowsSolution derives from bind_solve's Solution
  ssum::python::bind_explain(m);
  ssum::python::bind_primitives(m);

  // The program's amount parser, for ssum.solve's decimal strings (python/ssum/__init__.py).
  m.def(
      "_amount", [](nb::handle text, const std::string& what) { return ssum::python::to_amount(text, what.c_str()); },
      "text"_a, "what"_a);
  m.def(
      "generate",
      [](const std::string& cls, std::size_t n, std::optional<int> bits, std::uint64_t seed) {
        const ssum::problem p = ssum::generate(cls, n, bits, seed);
        // Classes of amounts with cents (invoices) come back as Decimals in their units.
        const nb::object decimal = p.decimals ? nb::module_::import_("decimal").attr("Decimal") : nb::none();
        const auto value = [&](ssum::int128 v) -> nb::object {
          if (!p.decimals) return ssum::python::to_python(v);
          return decimal(ssum::format_amount(v, p.decimals));
        };
        nb::list weights;
        for (const ssum::int128 w : p.weights) weights.append(value(w));
        nb::object target = p.target ? value(*p.target) : nb::none();
        return nb::make_tuple(weights, target);
      },
      "cls"_a, "n"_a, "bits"_a = nb::none(), "seed"_a = 1);  // ssum gen's default
  m.def("generator_classes", [] {
    nb::list names;
    for (const std::string& name : ssum::generator_classes()) names.append(name);
    return names;
  });
}

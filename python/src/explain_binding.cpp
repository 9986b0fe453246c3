// ssum.explain and ssum.explain_rows: the plan's table (ssum/explain.hpp) as a dict, without
// solving: each candidate algorithm, whether it can take the instance, its bytes, its expected
// seconds, and the plan a solve would run.
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "solve_binding.hpp"
#include "ssum/explain.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace ssum::python {
namespace {

nb::dict as_dict(const plan_table& t) {
  nb::list candidates;
  for (const plan_candidate& c : t.candidates) {
    nb::dict row;
    row["algorithm"] = c.algorithm;
    row["backend"] = c.backend;
    row["takes"] = c.takes;
    row["fits"] = c.fits;
    row["exact"] = c.exact;
    row["bytes"] = c.bytes;
    row["seconds"] = c.seconds < 0 ? nb::object(nb::none()) : nb::object(nb::float_(c.seconds));
    row["role"] = c.role;
    row["why"] = c.why;
    candidates.append(row);
  }
  nb::dict out;
  out["question"] = t.question;
  out["items"] = t.items;
  out["threads"] = t.threads;
  out["host_room"] = t.host_room;
  out["candidates"] = candidates;
  if (t.chosen.algorithm.empty()) {
    out["plan"] = nb::none();
    out["refusal"] = t.refusal;
  } else {
    nb::dict plan;
    plan["algorithm"] = t.chosen.algorithm;
    plan["backend"] = t.chosen.backend;
    plan["reason"] = t.chosen.reason;
    out["plan"] = plan;
    out["refusal"] = nb::none();
  }
  return out;
}

// The options explain takes (those of solve but the time limit and the seed), checked.
solve_settings explain_settings(nb::handle backend, nb::handle algorithm, nb::handle threads, nb::handle memory,
                                nb::handle count) {
  return parse_settings(backend, algorithm, threads, memory, to_bool(count, "count"), nb::none(), nb::int_(1));
}

}  // namespace

void bind_explain(nb::module_& m) {
  // ssum.explain (python/ssum/__init__.py) scales decimal amounts and calls this.
  m.def(
      "_explain",
      [](nb::handle weights, nb::handle target, nb::handle backend, nb::handle algorithm, nb::handle threads,
         nb::handle memory, nb::handle count) {
        const solve_settings s = explain_settings(backend, algorithm, threads, memory, count);
        ssum::problem p;
        p.weights = to_weights(weights);
        if (!target.is_none()) p.target = to_int128(target, "target");
        plan_table t;
        {
          nb::gil_scoped_release unlocked;  // the reductions and the completion's plan walk every item
          t = ssum::explain(s.backend, s.threads, p, s.options);
        }
        return as_dict(t);
      },
      "weights"_a.none(), "target"_a.none() = nb::none(), nb::kw_only(), "backend"_a.none() = "auto",
      "algorithm"_a.none() = "auto", "threads"_a.none() = nb::none(), "memory"_a.none() = nb::none(),
      "count"_a.none() = false);
  m.def(
      "explain_rows",
      [](nb::handle rows, nb::handle targets, nb::handle backend, nb::handle algorithm, nb::handle threads,
         nb::handle memory, nb::handle count) {
        const solve_settings s = explain_settings(backend, algorithm, threads, memory, count);
        const ssum::rows_problem p = rows_instance(rows, targets);
        plan_table t;
        {
          nb::gil_scoped_release unlocked;
          t = ssum::explain_rows(s.backend, s.threads, p, s.options);
        }
        return as_dict(t);
      },
      "rows"_a.none(), "targets"_a.none(), nb::kw_only(), "backend"_a.none() = "auto", "algorithm"_a.none() = "auto",
      "threads"_a.none() = nb::none(), "memory"_a.none() = nb::none(), "count"_a.none() = false,
      "The plan's table for ssum.solve_rows(rows, targets, ...), without solving: a dict with 'question', "
      "'candidates' (each algorithm: 'takes', 'fits', 'exact', 'bytes', 'seconds', 'role', 'why') and 'plan' "
      "(None with 'refusal' where the solve would refuse the instance).");
}

}  // namespace ssum::python

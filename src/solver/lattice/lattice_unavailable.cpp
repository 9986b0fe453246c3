// Built instead of lattice_rows.cpp when fplll is not found or switched off.
#include "solver/lattice/lattice_rows.hpp"
#include "ssum/errors.hpp"

namespace ssum::detail {

bool lattice_available() { return false; }

lattice_result solve_rows_lattice(const rows_problem&, const lattice_options&) {
  throw backend_unavailable("this build of ssum was built without fplll: it has no lattice stage (install libfplll-dev)");
}

}  // namespace ssum::detail

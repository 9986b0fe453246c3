#pragma once
// `ssum solve --explain`: the plan's table (ssum::explain) printed instead of solving.
#include "ssum/explain.hpp"

namespace ssum::cli {

/// Prints the table (text: one line a candidate, the chosen plan last; --json: one object) and
/// returns the exit status: 0 when a plan would run, 3 when the solve would refuse the instance.
int print_explain(const plan_table& table, bool json);

}  // namespace ssum::cli

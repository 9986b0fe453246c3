#pragma once
// Internal: the completion search's part of the decision; choose.cpp keeps the order of
// preference between the algorithms.
#include <cstddef>
#include <optional>

#include "solver/choose.hpp"
#include "solver/completion/completion_search.hpp"
#include "solver/reductions.hpp"

namespace ssum::detail {

/// The completion search's plan for one choose(), made at most once (a differencing pass over
/// every item) and shared by dp_choice and completion_choice.
struct dense_plan {
  bool made = false;
  std::optional<completion_plan> plan;
  const std::optional<completion_plan>& of(const reduction& r, unsigned threads, double room) {
    if (!made) plan = completion_plan_for(r, threads, room), made = true;
    return plan;
  }
};

/// The completion search when named, or under automatic for a dense instance (a target or
/// zero-sum) that no exact algorithm here answers within about 10 s (the two-list's model, or
/// beyond most_items) and for which completion_plan_for finds a plan (made once per choose, in
/// `dense`). Empty: the exact algorithms decide. n: the items left after the reductions `r`.
std::optional<choice> completion_choice(std::size_t n, const reduction& r, const solve_options& options,
                                        const host_share& host, dense_plan& dense);

}  // namespace ssum::detail

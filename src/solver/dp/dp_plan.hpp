#pragma once
// Internal: the dynamic program's part of the decision, host and device; choose.cpp keeps the
// order of preference between the algorithms.
#include <cstddef>
#include <optional>
#include <string>

#include "solver/choose.hpp"
#include "solver/completion/completion_plan.hpp"
#include "solver/frame.hpp"
#include "solver/reductions.hpp"

namespace ssum::detail {

/// Where solutions abound, the host's programs stop at the first, long before their estimate
/// (a whole pass): the balanced program within about 0.05-0.2 of it, the bitset 0.33-0.4
/// (measured on psix and uniform weights, dp_plan.cpp).
constexpr double balanced_early_share = 0.2, bitset_early_share = 0.4;

/// The host's dynamic-programming plan (the bitset or Pisinger's balanced program) when it is
/// named, when beyond most_items no other algorithm can run, or when it is cheaper than a host
/// two-list that would take more than a millisecond (below that either answers at once, and
/// the two-list keeps small instances). Empty: the meet-in-the-middle algorithms decide.
/// `reduced`: the reductions of `p` (outcome open unless they settled it); `left`: the items
/// left for meet-in-the-middle; `dense`: the completion search's plan, shared.
std::optional<choice> dp_choice(const problem& p, const flipped_totals& totals, std::size_t left,
                                const reduction& reduced, const solve_options& options, const host_share& host,
                                dense_plan& dense);

/// The device's dynamic program on the reduced instance `r`, its tables within the device's
/// room; `why` opens the reason. Throws ssum::backend_unavailable for a count (host only).
choice cuda_dp_choice(const problem& p, const flipped_totals& totals, const reduction& r, const solve_options& options,
                      int device, const device_probe& probe, const std::string& why);

/// Under automatic: the host's dynamic-programming plan `host`, or the device's when the host
/// would need longer than a CUDA start-up plus the device's estimate and the tables fit device
/// 0; or the host's first (choice::device_after_seconds) unless host_tried.
choice device_dp_if_it_pays(const problem& p, const flipped_totals& totals, const reduction& r,
                            const solve_options& options, const device_probe& probe, choice host, bool host_tried);

}  // namespace ssum::detail

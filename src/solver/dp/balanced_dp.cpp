// Pisinger's balanced dynamic program (balanced_dp.hpp; Pisinger 1999, J. Algorithms 33,
// algorithm balsub), with a certificate traced back through a log of changed states.
#include "solver/dp/balanced_dp.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/frame.hpp"
#include "ssum/memory.hpp"

namespace ssum::detail {
namespace {

// Measured on the 2-core development host (GCC 12 -O3, bench_dp_crossover, CPU time of the
// one thread; the shared host's wall clock ran about twice that): an item's pass over its
// r + w_t states (copy, maximum, comparison) 1.7 to 2.2 ns per state on infeasible instances
// near total / 2 (every item runs; n = 100 to 10^4, r = 10^4 to 10^6); a removal (one random
// access into the states) about 1 ns while the states stay within the 1 MiB L2 cache
// (pthree, r = 1000) and 2 ns beyond it within the 32 MiB L3 (psix, r = 10^6).
constexpr double seconds_per_state = 2.0e-9;
constexpr double seconds_per_cached_removal = 1.0e-9;
constexpr double seconds_per_uncached_removal = 2.2e-9;
constexpr double cached_state_bytes = 1024.0 * 1024;

// Copies of the states the first pass keeps once its log has run out (at most), so that a
// segment of the trace back is rebuilt from the nearest one rather than from the start.
constexpr std::uint32_t checkpoints = 16;

// Cancellation is polled every 2^20 removals (a few milliseconds at most) and every block of
// 2^22 states of a pass (under 10 ms).
constexpr std::uint64_t removals_per_poll = std::uint64_t{1} << 20;
constexpr std::uint64_t pass_block = std::uint64_t{1} << 22;

// One changed state of an item: its position and its value before the item.
struct log_entry {
  std::uint32_t state;
  std::uint32_t before;
};

std::uint64_t largest_weight(const reduction& r) {
  uint128 largest = 0;
  for (const uint128 w : r.weights) largest = std::max(largest, w);
  return largest > uint128(std::uint64_t(balanced_most_weight)) ? ~std::uint64_t{0} : std::uint64_t(largest);
}

double log_entries_wanted(std::uint64_t largest) { return 4.0 * (2.0 * double(largest) + 1) + 65536; }
double log_entries_needed(std::uint64_t largest) { return 2.0 * double(largest) + 1; }

// Everything but the log: the two state arrays and the checkpoints (at most one per item),
// and per item its weight, change count, position and a share of the certificate.
double fixed_bytes(const reduction& r, std::uint64_t largest) {
  const double copies = 2 + std::min<double>(checkpoints, double(r.weights.size()));
  return copies * (2.0 * double(largest) + 1) * 4 + double(r.weights.size()) * 24;
}

// The states s[i] of the sums base + i, i in [1, 2r] (r the largest weight, base = c - r):
// [1, r] are at most the target c (i = r is c itself), (r, 2r] above it. 0 says the sum is not
// reached; items are numbered 1..n in `w` (w[0] unused), the break item is b.
struct balanced_states {
  const std::vector<std::uint32_t>& w;
  std::uint64_t r;
  std::uint32_t b;
  std::uint64_t break_state;  // the sum of items 1..b-1
  std::vector<std::uint32_t> s, prev;
  std::uint64_t since_poll = 0;  // removals and states visited since cancellation was polled

  balanced_states(const std::vector<std::uint32_t>& weights, std::uint64_t largest, std::uint32_t break_item,
                  std::uint64_t break_sum_state)
      : w(weights), r(largest), b(break_item), break_state(break_sum_state), s(2 * largest + 1), prev(2 * largest + 1) {
    restart();
  }

  // s_{b-1}: only the break solution (items 1..b-1) is reached.
  void restart() {
    std::fill(s.begin(), s.end(), 0u);
    s[break_state] = b;
  }

  bool reached() const { return s[r] != 0; }

  // s_t from s_{t-1}. Item t is added to every state at most c (from s_{t-1}, so once); then,
  // from the highest state down, each state above c removes the items j < s[i] it had not
  // removed before (j >= its old value): its filling keeps all of them. Each changed state is
  // logged with its value before when `log` is not null; returns how many changed (at most
  // r + w_t: no state above r + w_t can change).
  std::uint32_t run_item(std::uint32_t t, log_entry* log, const solve_options& options) {
    const std::uint64_t wt = w[t], top = r + wt;
    for_blocks(1, top + 1, options, [&](std::uint64_t a, std::uint64_t e) {
      std::copy(s.begin() + std::ptrdiff_t(a), s.begin() + std::ptrdiff_t(e), prev.begin() + std::ptrdiff_t(a));
    });
    for_blocks(1, r + 1, options, [&](std::uint64_t a, std::uint64_t e) {
      std::uint32_t* __restrict to = s.data() + wt;  // to[i] is state i + w_t
      const std::uint32_t* __restrict from = prev.data();
      for (std::uint64_t i = a; i < e; ++i) to[i] = std::max(to[i], from[i]);
    });
    std::uint32_t* const states = s.data();
    const std::uint32_t* const weights = w.data();
    for (std::uint64_t i = top; i > r; --i) {
      const std::uint32_t lo = std::max<std::uint32_t>(prev[i], 1), hi = states[i];
      for (std::uint32_t j = lo; j < hi; ++j) {
        std::uint32_t& below = states[i - weights[j]];
        below = std::max(below, j);
      }
      since_poll += 1 + (hi > lo ? hi - lo : 0);
      if (since_poll >= removals_per_poll) {
        since_poll = 0;
        check_cancel(options);
      }
    }
    std::uint32_t changed = 0;
    for_blocks(1, top + 1, options, [&](std::uint64_t a, std::uint64_t e) {
      for (std::uint64_t i = a; i < e; ++i) {
        if (s[i] == prev[i]) continue;
        if (log) log[changed] = log_entry{std::uint32_t(i), prev[i]};
        ++changed;
      }
    });
    return changed;
  }

  // f(a, e) over [begin, end) in blocks, polling cancellation before each.
  template <class F>
  static void for_blocks(std::uint64_t begin, std::uint64_t end, const solve_options& options, F&& f) {
    for (std::uint64_t a = begin; a < end; a += pass_block) {
      check_cancel(options);
      f(a, std::min(end, a + pass_block));
    }
  }
};

// Where the trace back stands: a state and its value, with the items added (after the break
// item) and removed (before it) on the way.
struct trail {
  std::uint64_t state;
  std::uint32_t value;
  std::vector<std::uint32_t> added, removed;
};

[[noreturn]] void broken_trace() {
  throw std::logic_error("internal error: the balanced dynamic program's trace back is broken");
}

// Moves the trail from item t to item t - 1, given s_t (cur) and s_{t-1} (prev). The value v
// of a state either stood before item t, or came from state i - w_t adding item t, or (when
// neither) from state i + w_v removing item v: removals write the item's number itself, and
// that state kept every item below its value, v included. Values only grow along the trace,
// so the removed items are distinct; added items are distinct as t only falls.
void trace_item(std::uint32_t t, const balanced_states& st, const std::vector<std::uint32_t>& cur,
                const std::vector<std::uint32_t>& prev, trail& tr) {
  const std::uint64_t wt = st.w[t];
  for (;;) {
    const std::uint64_t i = tr.state;
    const std::uint32_t v = tr.value;
    if (prev[i] == v) return;
    if (i > wt && i - wt <= st.r && prev[i - wt] == v) {
      tr.added.push_back(t);
      tr.state = i - wt;
      return;
    }
    if (v == 0 || v >= st.b) broken_trace();
    const std::uint64_t above = i + st.w[v];
    if (above > 2 * st.r || cur[above] <= v) broken_trace();
    tr.removed.push_back(v);
    tr.state = above;
    tr.value = cur[above];
  }
}

struct progress_meter {
  const solve_options& options;
  double total = 1, reported = -1;
  void at(double done) {
    if (!options.on_progress || done - reported < total / 256) return;
    reported = done;
    const double f = std::min(1.0, done / total);
    options.on_progress(progress{"dp", f, f});
  }
};

// The whole run: the first pass decides and logs while its log fits; the trace back then
// walks the logged items from the last down to the break item, in segments rebuilt by
// running the items again when the first pass's log ran out, each from the nearest of
// `checkpoints` copies of the states that the first pass took at even spacing.
class balanced_run {
 public:
  balanced_run(balanced_states& st, std::uint32_t n, std::size_t log_capacity, const solve_options& options)
      : st_(st), n_(n), log_(new log_entry[log_capacity]), log_capacity_(log_capacity), counts_(std::size_t(n) + 1, 0), options_(options),
        spacing_(std::max<std::uint32_t>(1, (n - st.b + 1 + checkpoints - 1) / checkpoints)) {}

  // The last item run: the one that reached the target, or n. Logs while the log surely fits.
  std::uint32_t decide(bool& reached) {
    progress_meter meter{options_, double(n_ - st_.b + 1)};
    std::size_t used = 0;
    bool logging = true;
    std::uint32_t t = st_.b - 1;
    reached = st_.reached();
    while (!reached && t < n_) {
      ++t;
      logging = logging && used + st_.r + st_.w[t] <= log_capacity_;
      counts_[t] = st_.run_item(t, logging ? log_.get() + used : nullptr, options_);
      if (logging) used += counts_[t];
      reached = st_.reached();
      if (!logging && !reached && t < n_ && (t - st_.b + 1) % spacing_ == 0 && saved_.size() < checkpoints) save(t);
      meter.at(double(t - st_.b + 1));
    }
    logged_all_ = logging;
    return t;
  }

  // Items 1..b-1 kept, the removed ones taken out, the added ones put in: a subset (item
  // numbers, ascending) summing to the target, traced back from the last item run.
  std::vector<std::uint32_t> trace_back(std::uint32_t last) {
    trail tr{st_.r, st_.s[st_.r], {}, {}};
    if (logged_all_) {
      trace_segment(st_.b, last, tr);
    } else {
      for (std::uint32_t hi = last; hi >= st_.b;) {
        std::uint32_t lo = hi;
        std::size_t entries = counts_[hi];
        while (lo > st_.b && entries + counts_[lo - 1] <= log_capacity_) entries += counts_[--lo];
        rerun(lo, hi);
        trace_segment(lo, hi, tr);
        hi = lo - 1;
      }
    }
    if (tr.state != st_.break_state || tr.value != st_.b) broken_trace();
    std::vector<bool> out(st_.b, false);
    for (const std::uint32_t j : tr.removed) out[j] = true;
    std::vector<std::uint32_t> items;
    for (std::uint32_t j = 1; j < st_.b; ++j) {
      if (!out[j]) items.push_back(j);
    }
    items.insert(items.end(), tr.added.rbegin(), tr.added.rend());
    return items;
  }

 private:
  // Runs items up to hi again from the last checkpoint before lo (or from the start), logging
  // items lo..hi (whose changes fit, counted by the first pass). The trace never goes back
  // up, so the checkpoints from lo on are dropped and their room spent on new ones evenly
  // between the start and lo: the distance to run again shrinks with every segment.
  void rerun(std::uint32_t lo, std::uint32_t hi) {
    while (!saved_.empty() && saved_.back().after >= lo) {
      spare_.push_back(std::move(saved_.back().states));
      saved_.pop_back();
    }
    std::uint32_t from = st_.b;
    if (saved_.empty()) {
      st_.restart();
    } else {
      std::copy(saved_.back().states.begin(), saved_.back().states.end(), st_.s.begin());
      from = saved_.back().after + 1;
    }
    const std::uint32_t room = checkpoints - std::uint32_t(saved_.size());
    const std::uint32_t gap = std::max<std::uint32_t>(1, (lo - from) / (room + 1));
    std::size_t used = 0;
    for (std::uint32_t t = from; t <= hi; ++t) {
      const std::uint32_t changed = st_.run_item(t, t >= lo ? log_.get() + used : nullptr, options_);
      if (changed != counts_[t]) broken_trace();
      if (t >= lo) used += changed;
      if (t + 1 < lo && saved_.size() < checkpoints && (t - from + 1) % gap == 0) save(t);
    }
  }

  void save(std::uint32_t t) {
    std::vector<std::uint32_t> states;
    if (!spare_.empty()) {
      states = std::move(spare_.back());
      spare_.pop_back();
    }
    states.assign(st_.s.begin(), st_.s.end());
    saved_.push_back({t, std::move(states)});
  }

  // With s_hi in the states and items lo..hi logged: undoes the items one by one, tracing
  // each between s_t (cur) and s_{t-1} (prev).
  void trace_segment(std::uint32_t lo, std::uint32_t hi, trail& tr) {
    std::vector<std::uint32_t>& cur = st_.s;
    std::vector<std::uint32_t>& prev = st_.prev;
    std::copy(cur.begin(), cur.end(), prev.begin());
    std::size_t end = 0;
    for (std::uint32_t t = lo; t <= hi; ++t) end += counts_[t];
    for (std::uint32_t t = hi + 1; t-- > lo;) {
      check_cancel(options_);
      const std::size_t begin = end - counts_[t];
      for (std::size_t e = begin; e < end; ++e) prev[log_[e].state] = log_[e].before;
      trace_item(t, st_, cur, prev, tr);
      for (std::size_t e = begin; e < end; ++e) cur[log_[e].state] = log_[e].before;
      end = begin;
    }
  }

  balanced_states& st_;
  std::uint32_t n_;
  std::unique_ptr<log_entry[]> log_;  // left uninitialised: pages never written cost nothing
  std::size_t log_capacity_;
  std::vector<std::uint32_t> counts_;  // counts_[t]: states item t changed
  const solve_options& options_;
  bool logged_all_ = false;
  struct checkpoint {
    std::uint32_t after;  // the states after this item
    std::vector<std::uint32_t> states;
  };
  std::uint32_t spacing_;
  std::vector<checkpoint> saved_;                   // ascending by item
  std::vector<std::vector<std::uint32_t>> spare_;  // dropped checkpoints' storage
};

}  // namespace

double balanced_planned_bytes(const reduction& r) {
  const std::uint64_t largest = largest_weight(r);
  if (double(largest) > balanced_most_weight || double(r.weights.size()) >= balanced_most_weight) {
    return std::ldexp(1.0, 127);
  }
  return fixed_bytes(r, largest) + log_entries_wanted(largest) * sizeof(log_entry);
}

double balanced_seconds(const reduction& r) {
  const std::uint64_t largest = largest_weight(r);
  // The break item, and the passes over r + w_t states of every item from it on.
  uint128 prefix = 0;
  std::size_t b = 0;
  while (b < r.weights.size() && prefix + r.weights[b] <= r.bound) prefix += r.weights[b++];
  double passes = 0;
  for (std::size_t k = b; k < r.weights.size(); ++k) passes += double(largest) + double(r.weights[k]);
  // Removals: each state's value only grows, to at most b; measured totals stay near a
  // tenth of that bound (2r b / 10) on uniform weights.
  const double removals = 2.0 * double(largest) * double(b) / 10;
  const double per_removal =
      8.0 * double(largest) <= cached_state_bytes ? seconds_per_cached_removal : seconds_per_uncached_removal;
  return passes * seconds_per_state + removals * per_removal;
}

solution solve_balanced(const host_share& host, const problem& p, const reduction& r, const solve_options& options) {
  const auto start = clock_type::now();
  solution result;
  result.algorithm = "balanced-dp";
  result.backend = "cpu";
  result.threads = 1;
  if (r.zero_sum) throw std::invalid_argument("the balanced dynamic program takes a target, not zero-sum");

  // Items 1..n (positions in r.weights), none above the target.
  const uint128 c = r.bound;
  std::vector<std::size_t> position;
  for (std::size_t k = 0; k < r.weights.size(); ++k) {
    if (r.weights[k] <= c) position.push_back(k);
  }
  const std::size_t n = position.size();
  const std::uint64_t largest = largest_weight(r);
  const double bytes = balanced_planned_bytes(r);
  const double room = host.room;
  const double needed = bytes >= std::ldexp(1.0, 127)
                            ? bytes
                            : fixed_bytes(r, largest) + log_entries_needed(largest) * sizeof(log_entry);
  check_plan_fits("the balanced dynamic program", r.weights.size(), needed, room);
  const double log_entries = std::min(log_entries_wanted(largest), (room - fixed_bytes(r, largest)) / sizeof(log_entry));
  result.planned_bytes = std::uint64_t(fixed_bytes(r, largest) + log_entries * sizeof(log_entry));

  std::vector<std::uint32_t> w(n + 1, 0);
  uint128 prefix = 0;
  std::size_t b = 1;  // the break item: the first whose prefix sum exceeds c
  for (std::size_t t = 1; t <= n; ++t) w[t] = std::uint32_t(r.weights[position[t - 1]]);
  while (b <= n && prefix + w[b] <= c) prefix += w[b++];

  std::vector<std::size_t> chosen;
  if (b > n || c == 0) {  // every item fits: only all of them can reach c (or none, for c = 0)
    result.feasible = prefix == c;
    if (result.feasible && c != 0) chosen = position;
    result.seconds.search = seconds_since(start);
  } else {
    const std::uint64_t r_kept = *std::max_element(w.begin() + 1, w.end());  // r of the paper
    balanced_states st(w, r_kept, std::uint32_t(b), std::uint64_t(prefix - (c - r_kept)));
    balanced_run run(st, std::uint32_t(n), std::size_t(log_entries), options);
    bool reached = false;
    const std::uint32_t last = run.decide(reached);
    result.seconds.search = seconds_since(start);
    result.feasible = reached;
    const auto recover_start = clock_type::now();
    if (reached) {
      for (const std::uint32_t t : run.trace_back(last)) chosen.push_back(position[t - 1]);
    }
    result.seconds.recover = seconds_since(recover_start);
  }
  if (result.feasible) result.subset = map_back(p, r, chosen);
  if (options.on_progress) options.on_progress(progress{"dp", 1, 1});
  result.seconds.total = seconds_since(start);
  return result;
}

}  // namespace ssum::detail

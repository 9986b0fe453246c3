// The GPU four-list's batches (solver/four_list/four_list_batches.hpp) run here over a host emulation of
// the device's steps: the same per-element rules (solver/four_list/four_list_window.hpp), a stable sort on
// the top key bits followed by the run fix-up (as CUB's radix sort on those bits and the
// sort_runs kernel), and the host pair searches. So the glue (batches, splits, the zero-sum
// quadruple, counts, certificates, memory planning, cancel) is checked against brute force
// and the host four-list on machines without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "solver/four_list/four_list_batches.hpp"
#include "small_instances.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum::int128;
using ssum::detail::four_list_tuning;
using ssum::detail::four_list_side;
using ssum::detail::four_list_slice;
using ssum::detail::partner_window;
using ssum::detail::partners_of;
using ssum::detail::sort_run_at;
using ssum::detail::window_sum;
using ssum_test::brute_force_count;
using ssum_test::describe;

class host_device {
 public:
  explicit host_device(four_list_tuning tuning = {}, double room = 1e12) : tuning_(tuning), room_(room) {}

  double available_bytes() const { return room_; }
  std::size_t sort_temp_bytes(std::size_t cap) const { return cap / 16 + 4096; }  // CUB-like: grows with cap
  void prepare(const ssum::detail::four_list_tables& tables, std::size_t cap, double arena_bytes) {
    EXPECT_LE(arena_bytes, room_);
    EXPECT_EQ(arena_bytes, ssum::detail::four_list_device_bytes(tables, cap, sort_temp_bytes(cap)));
    tables_ = tables;
    cap_ = cap;
  }
  std::array<std::uint64_t, 2> sizes(const four_list_slice& x, const four_list_slice& y) {
    ++sizes_calls;
    const four_list_slice slices[2] = {x, y};
    std::array<std::uint64_t, 2> total{0, 0};
    for (int s = 0; s < 2; ++s) {
      const four_list_side sd = side(s);
      EXPECT_LE(slices[s].len, tables_.m);
      EXPECT_LT(slices[s].start, tables_.m);
      if (slices[s].hi - slices[s].lo < sd.outer_size) ++outer_splits[s];
      offsets_[s].assign(sd.outer_size + 1, 0);
      for (std::size_t i = 0; i < sd.outer_size; ++i) {
        offsets_[s][i + 1] = offsets_[s][i] + partners_of(sd, slices[s], i).size();
      }
      total[s] = offsets_[s].back();
    }
    return total;
  }
  void build(const four_list_slice& x, const four_list_slice& y) {
    ++builds;
    const four_list_slice slices[2] = {x, y};
    for (int s = 0; s < 2; ++s) {
      const four_list_side sd = side(s);
      std::vector<std::uint64_t>& out = keys_[s];
      out.assign(offsets_[s].back(), 0);
      EXPECT_LE(out.size(), cap_);
      for (std::size_t i = 0; i < sd.outer_size; ++i) {
        const partner_window w = partners_of(sd, slices[s], i);
        EXPECT_EQ(w.size(), offsets_[s][i + 1] - offsets_[s][i]);
        for (std::uint64_t k = 0; k < w.size(); ++k) out[offsets_[s][i] + k] = window_sum(sd, i, w, k);
      }
      sort(out, tables_.key_bits[s], s);
    }
  }
  ssum::pair_match find(std::size_t b, std::size_t e) {
    EXPECT_LE(b, e);
    EXPECT_LE(e, keys_[0].size());
    if (b > 0 || e < keys_[0].size()) ++part_finds;
    ssum::pair_match m =
        ssum::find_pair_sum(ssum::cpu{1}, keys_[0].data() + b, e - b, keys_[1].data(), keys_[1].size(), tables_.t);
    if (m.found) m.i += b;
    return m;
  }
  std::uint64_t count() {
    return ssum::count_pair_sums(ssum::cpu{1}, keys_[0].data(), keys_[0].size(), keys_[1].data(), keys_[1].size(),
                                 tables_.t);
  }
  std::uint64_t x_at(std::size_t i) const { return keys_[0].at(i); }
  std::uint64_t y_at(std::size_t j) const { return keys_[1].at(j); }

  std::size_t cap() const { return cap_; }
  std::size_t sizes_calls = 0, builds = 0, partial_sorts = 0, long_runs = 0, unsorted = 0, part_finds = 0;
  std::size_t outer_splits[2] = {0, 0};  // batches over part of L1 (X), part of L3 (Y)

 private:
  four_list_side side(int s) const {
    return {tables_.outer_sum[s].data(), tables_.outer_residue[s].data(), tables_.outer_sum[s].size(),
            tables_.inner_sum[s].data(), tables_.inner_offset[s].data(), tables_.m, tables_.t};
  }
  // As the device: radix sort (LSD, stable) of bits [begin, key_bits), then the runs.
  void sort(std::vector<std::uint64_t>& keys, int key_bits, int s) {
    const int begin = full_sort_[s] ? 0 : ssum::detail::four_list_sort_begin(key_bits, keys.size(), tuning_.sort_bits);
    if (keys.size() <= 1 || key_bits <= begin) return;
    for (std::uint64_t k : keys) ASSERT_EQ(key_bits == 64 ? 0 : k >> key_bits, 0u) << "a sum beyond the key bits";
    std::stable_sort(keys.begin(), keys.end(),
                     [begin](std::uint64_t a, std::uint64_t b) { return (a >> begin) < (b >> begin); });
    if (begin > 0) {
      ++partial_sorts;
      bool fine = true;
      for (std::size_t i = 0; i < keys.size(); ++i) fine &= sort_run_at(keys.data(), keys.size(), i, begin);
      if (!fine) {
        ++long_runs;
        std::sort(keys.begin(), keys.end());
        full_sort_[s] = true;  // as the device: all bits from now on
      }
    }
    if (!std::is_sorted(keys.begin(), keys.end())) ++unsorted;
  }

  four_list_tuning tuning_;
  double room_;
  ssum::detail::four_list_tables tables_;
  std::size_t cap_ = 0;
  bool full_sort_[2] = {false, false};
  std::vector<std::uint64_t> offsets_[2], keys_[2];
};

ssum::solution run(host_device& device, const ssum::problem& p, const ssum::solve_options& options,
                   const four_list_tuning& tuning = {}) {
  return ssum::detail::four_list_in_batches(device, p, options, tuning, "host");
}

void expect_solution(const ssum::problem& p, const ssum::solution& s, bool expected, const std::string& what) {
  ASSERT_EQ(s.feasible, expected) << what;
  EXPECT_EQ(s.algorithm, "four-list");
  if (s.feasible) {
    EXPECT_TRUE(ssum::is_certificate(p, s.subset)) << what;
  } else {
    EXPECT_TRUE(s.subset.empty()) << what;
  }
}

// Three tunings: the default (one batch at these sizes), the smallest batches (one bucket:
// many batches, splits down to single outer sums), and an 8-bit radix sort (the run fix-up
// everywhere, long runs sent back to a full sort).
four_list_tuning tuning_for(int trial) {
  four_list_tuning t;
  if (trial % 3 == 1) t.max_batch = 1;
  if (trial % 3 == 2) t.sort_bits = 8;
  return t;
}

TEST(FourListBatches, MatchesBruteForce) {
  std::mt19937_64 rng(8080);
  int feasible_seen = 0;
  std::size_t splits = 0, partial = 0, outer_splits[2] = {0, 0};
  for (int trial = 0; trial < 1800; ++trial) {
    const ssum::problem p =
        ssum_test::random_instance(rng, trial % 5 == 0 ? 20 : 16, ssum_test::range_for(trial), trial % 2 == 1);
    const four_list_tuning tuning = tuning_for(trial);
    ssum::solve_options options;
    options.count = trial % 7 != 3;
    host_device device(tuning);
    const ssum::solution s = run(device, p, options, tuning);
    const std::uint64_t expected = brute_force_count(p);
    feasible_seen += expected > 0;
    expect_solution(p, s, expected > 0, describe(p));
    if (options.count) {
      ASSERT_TRUE(s.count.has_value()) << describe(p);
      ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    }
    ASSERT_EQ(device.unsorted, 0u) << describe(p);
    splits += device.sizes_calls - device.builds;
    partial += device.partial_sorts;
    outer_splits[0] += device.outer_splits[0];
    outer_splits[1] += device.outer_splits[1];
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(feasible_seen, 600);
  EXPECT_GT(splits, 1000u) << "the small batches should split";
  EXPECT_GT(partial, 300u) << "the 8-bit sorts should leave runs to fix";
  EXPECT_GT(outer_splits[0], 100u) << "single classes should split their a's";
  EXPECT_GT(outer_splits[1], 100u) << "single classes should split their c's";
}

// The empty subset's quadruple is the only match, or shares its sums with another subset, or
// sits beside other matches in its batch.
TEST(FourListBatches, ZeroSumTrivialQuadruple) {
  for (int tune = 0; tune < 3; ++tune) {
    for (const auto& [w, feasible] : ssum_test::zero_sum_shapes()) {
      const ssum::problem p = ssum_test::make_problem(w, std::nullopt);
      ASSERT_EQ(brute_force_count(p) > 0, feasible) << "bad expectation: " << describe(p);
      ssum::solve_options counting;
      counting.count = tune == 2;
      host_device device(tuning_for(tune));
      const ssum::solution s = run(device, p, counting, tuning_for(tune));
      expect_solution(p, s, feasible, describe(p));
      if (counting.count) ASSERT_TRUE(s.count.has_value()) << describe(p);
      if (counting.count) EXPECT_EQ(static_cast<std::uint64_t>(*s.count), brute_force_count(p)) << describe(p);
    }
  }
}

// Zero-sum instances where the empty subset's x is alone in its batch and the other solutions
// share that batch: the search must skip it and look on both sides.
TEST(FourListBatches, ZeroSumManySeeds) {
  std::mt19937_64 rng(99);
  std::size_t part_finds = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ssum::problem p;
    const std::size_t n = static_cast<std::size_t>(ssum_test::uniform(rng, 4, 18));
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(ssum_test::uniform(rng, -40, 40));
    const four_list_tuning tuning = tuning_for(trial);
    host_device device(tuning);
    const ssum::solution s = run(device, p, {}, tuning);
    expect_solution(p, s, brute_force_count(p) > 0, describe(p));
    part_finds += device.part_finds;
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(part_finds, 20u) << "the empty subset's x should have been searched around";
}

// Beyond brute force: against the host four-list, n = 21..40 (not all multiples of 4), the
// benchmark classes, with counts; forced small batches must not change anything.
TEST(FourListBatches, AgreesWithTheHostFourList) {
  ssum::solve_options host, counting;
  host.algo = ssum::algorithm::four_list;
  host.count = counting.count = true;
  for (std::size_t n : {21, 26, 29, 32, 35, 38, 40}) {
    for (const char* cls : {"random", "planted", "zero-sum"}) {
      const ssum::problem p = ssum::generate(cls, n, n % 3 == 0 ? 14 : 40, 500 + n);
      const ssum::solution expected = ssum::solve(ssum::cpu{2}, p, host);
      for (const std::size_t batch : {std::size_t{0}, std::size_t{1} << 12}) {
        four_list_tuning tuning;
        tuning.max_batch = batch;
        host_device device(tuning);
        const ssum::solution s = run(device, p, counting, tuning);
        const std::string what = std::string(cls) + " n=" + std::to_string(n) + " batch=" + std::to_string(batch);
        expect_solution(p, s, expected.feasible, what);
        ASSERT_TRUE(s.count && expected.count) << what;
        EXPECT_EQ(static_cast<std::uint64_t>(*s.count), static_cast<std::uint64_t>(*expected.count)) << what;
        EXPECT_EQ(device.unsorted, 0u) << what;
        if (batch && n >= 29) EXPECT_GT(device.builds, 4u) << what;  // 2^15 sums and more per side
      }
    }
  }
}

// Wide random weights: the automatic sort leaves the low bits to the run fix-up (sums of 40+
// bits in batches of 2^12), which must leave everything sorted.
TEST(FourListBatches, PartialSortsOfWideSums) {
  for (std::size_t n : {28, 33, 36}) {
    const ssum::problem p = ssum::generate("random", n, std::nullopt, 7 * n);
    four_list_tuning tuning;
    tuning.max_batch = 1 << 12;
    host_device device(tuning);
    ssum::solve_options counting;
    counting.count = true;
    const ssum::solution s = run(device, p, counting, tuning);
    ssum::solve_options host = counting;
    host.algo = ssum::algorithm::four_list;
    const ssum::solution expected = ssum::solve(ssum::cpu{2}, p, host);
    expect_solution(p, s, expected.feasible, "n=" + std::to_string(n));
    ASSERT_TRUE(s.count && expected.count);
    EXPECT_EQ(static_cast<std::uint64_t>(*s.count), static_cast<std::uint64_t>(*expected.count));
    EXPECT_GT(device.partial_sorts, 0u);
    EXPECT_EQ(device.unsorted, 0u);
    EXPECT_EQ(device.long_runs, 0u) << "random wide sums should leave only short runs";
  }
}

TEST(FourListBatches, PlansWithinTheRoomOrRefuses) {
  const ssum::problem p = ssum::generate("planted", 36, 30, 3);
  ssum::solve_options options;
  {
    host_device device;
    const ssum::solution s = run(device, p, options);
    EXPECT_EQ(device.cap(), std::size_t{1} << 18) << "one batch holds every pair of n = 36";
    EXPECT_TRUE(s.feasible);
  }
  {
    host_device device({}, 3e6);  // room for about 2^16 sums per buffer
    ssum::solve_options counting;
    counting.count = true;  // through every batch
    const ssum::solution s = run(device, p, counting);
    EXPECT_LT(device.cap(), std::size_t{1} << 17);
    EXPECT_LE(double(s.planned_bytes), 3e6);
    EXPECT_GT(device.builds, 1u);
    EXPECT_TRUE(s.feasible);
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
  {
    host_device device;
    options.memory_limit = 3000000;  // the caller's limit instead of the device's room
    const ssum::solution s = run(device, p, options);
    EXPECT_LE(double(s.planned_bytes), 3e6);
    EXPECT_TRUE(s.feasible);
  }
  {
    host_device device({}, 1e5);  // not even the lists and one bucket
    EXPECT_THROW(run(device, p, {}), ssum::insufficient_memory);
  }
}

TEST(FourListBatches, RefusesWideTotalsAndHonoursCancel) {
  host_device device;
  const ssum::problem wide{{INT64_MAX, INT64_MAX, INT64_MAX}, int128(INT64_MAX) * 3};
  EXPECT_THROW(run(device, wide, {}), ssum::backend_unavailable);
  const ssum::problem p = ssum::generate("random", 30, std::nullopt, 1);
  std::atomic<bool> stop{true};
  ssum::solve_options options;
  options.cancel = &stop;
  EXPECT_THROW(run(device, p, options), ssum::interrupted);
  const ssum::problem out_of_range{{1, 2, 4}, 100};
  const ssum::solution s = run(device, out_of_range, {});
  EXPECT_FALSE(s.feasible);
}

// Runs of equal high bits longer than the fix-up takes: the whole array is sorted again.
TEST(FourListBatches, LongRunsFallBackToAFullSort) {
  std::mt19937_64 rng(5);
  four_list_tuning tuning;
  tuning.sort_bits = 2;  // sums of about 11 bits: runs of hundreds equal in the top 2
  std::size_t long_runs = 0;
  for (int trial = 0; trial < 20; ++trial) {
    ssum::problem p;
    for (int i = 0; i < 20; ++i) p.weights.push_back(ssum_test::uniform(rng, 1, 100));
    p.target = ssum_test::uniform(rng, 0, 1000);
    host_device device(tuning);
    ssum::solve_options counting;
    counting.count = true;
    const ssum::solution s = run(device, p, counting, tuning);
    expect_solution(p, s, brute_force_count(p) > 0, describe(p));
    ASSERT_TRUE(s.count.has_value()) << describe(p);
    EXPECT_EQ(static_cast<std::uint64_t>(*s.count), brute_force_count(p)) << describe(p);
    EXPECT_EQ(device.unsorted, 0u);
    long_runs += device.long_runs;
  }
  EXPECT_GT(long_runs, 10u);
}

// Progress runs through every class once: it ends at 1 and never goes back.
TEST(FourListBatches, ReportsProgressUpToOne) {
  const ssum::problem p = ssum::generate("random", 32, 30, 5);
  four_list_tuning tuning;
  tuning.max_batch = 1 << 10;
  host_device device(tuning);
  ssum::solve_options options;
  options.count = true;
  std::vector<double> seen, overall;
  options.on_progress = [&](const ssum::progress& pr) {
    EXPECT_EQ(pr.stage, "search");
    seen.push_back(pr.fraction);
    overall.push_back(pr.overall);  // the batches are all the work: the same fraction
  };
  run(device, p, options, tuning);
  ASSERT_GT(seen.size(), 10u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_NEAR(seen.back(), 1.0, 1e-9);
  EXPECT_EQ(overall, seen);
}

}  // namespace

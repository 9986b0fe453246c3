// The GPU four-list's batches (solver/four_list/four_list_batches.hpp) run here over a host emulation of
// the device's steps: the same per-element rules (solver/four_list/four_list_window.hpp: windows,
// join keys, hash partitions), and a join per partition by a std::multiset. So the glue (batches,
// splits, units and checkpoints, the zero-sum quadruple, counts, certificates, 64- and 128-bit
// sums, memory planning, cancel) is checked against brute force and the host four-list on
// machines without a device.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "solver/four_list/four_list_batches.hpp"
#include "solver/four_list/four_list_sorting.hpp"
#include "checkpoint_helpers.hpp"
#include "shared_search.hpp"
#include "small_instances.hpp"
#include "ssum/ssum.hpp"

namespace {

namespace fs = std::filesystem;
using ssum::int128;
using ssum::uint128;
using ssum::detail::four_list_side;
using ssum::detail::four_list_slice;
using ssum::detail::four_list_tuning;
using ssum::detail::partner_window;
using ssum_test::brute_force_count;
using ssum_test::describe;

// What the emulated devices of one run saw.
struct host_stats {
  std::size_t partitions = 0, builds = 0, skip_finds = 0, cap = 0, wide_runs = 0;
  std::size_t outer_splits[2] = {0, 0};  // batches over part of L1 (X), part of L3 (Y)
  std::size_t largest_partition = 0;     // keys of X in one partition, the largest seen
};

struct host_setup {
  host_stats* stats;
  four_list_tuning tuning;
  double room = 1e12;
};

template <class Sum>
class host_device {
 public:
  explicit host_device(const host_setup& setup) : stats_(*setup.stats), tuning_(setup.tuning), room_(setup.room) {
    if (sizeof(Sum) == 16) ++stats_.wide_runs;
  }

  double available_bytes() const { return room_; }
  static constexpr std::size_t preferred_batch() { return std::size_t{1} << 25; }
  std::size_t scratch_bytes(const ssum::detail::four_list_tables<Sum>&, std::size_t cap) const {
    return partitions_for(cap) * 8 + 4096;
  }
  void prepare(const ssum::detail::four_list_tables<Sum>& tables, std::size_t cap, double arena_bytes) {
    EXPECT_LE(arena_bytes, room_);
    EXPECT_EQ(arena_bytes, ssum::detail::four_list_device_bytes(tables, cap, scratch_bytes(tables, cap)));
    tables_ = tables;
    cap_ = stats_.cap = cap;
    bits_ = std::countr_zero(partitions_for(cap));
  }
  std::array<std::uint64_t, 2> partition(const four_list_slice& x, const four_list_slice& y) {
    ++stats_.partitions;
    const four_list_slice slices[2] = {x, y};
    std::array<std::uint64_t, 2> total{0, 0};
    for (int s = 0; s < 2; ++s) {
      const four_list_side<Sum> sd = side(s);
      EXPECT_LE(slices[s].len, tables_.m);
      EXPECT_LT(slices[s].start, tables_.m);
      if (slices[s].hi - slices[s].lo < sd.outer_size) ++stats_.outer_splits[s];
      parts_[s].assign(std::size_t{1} << bits_, {});
      for (std::size_t i = 0; i < sd.outer_size; ++i) {
        const partner_window w = ssum::detail::partners_of(sd, slices[s], i);
        for (std::uint64_t k = 0; k < w.size(); ++k) {
          Sum key;
          if (!ssum::detail::join_key(s, tables_.t, ssum::detail::window_sum(sd, i, w, k), key)) continue;
          parts_[s][ssum::detail::partition_of(ssum::detail::join_hash(key), bits_)].push_back(key);
          ++total[s];
        }
      }
    }
    built_ = false;
    return total;
  }
  void build() {
    ++stats_.builds;
    std::size_t sizes[2] = {0, 0};
    for (int s = 0; s < 2; ++s) {
      for (const auto& part : parts_[s]) sizes[s] += part.size();
      EXPECT_LE(sizes[s], cap_) << "a batch beyond its capacity was built";
    }
    for (const auto& part : parts_[0]) stats_.largest_partition = std::max(stats_.largest_partition, part.size());
    built_ = true;
  }
  std::uint64_t count() {
    EXPECT_TRUE(built_);
    std::uint64_t matches = 0;
    for (std::size_t p = 0; p < parts_[0].size(); ++p) {
      std::map<Sum, std::uint64_t> xs;
      for (const Sum x : parts_[0][p]) ++xs[x];
      for (const Sum y : parts_[1][p]) {
        const auto it = xs.find(y);
        if (it != xs.end()) matches += it->second;
      }
    }
    return matches;
  }
  std::optional<Sum> find(const Sum* skip) {
    EXPECT_TRUE(built_);
    if (skip) ++stats_.skip_finds;
    for (std::size_t p = 0; p < parts_[0].size(); ++p) {
      for (const Sum y : parts_[1][p]) {
        if (skip && y == *skip) continue;
        if (std::find(parts_[0][p].begin(), parts_[0][p].end(), y) != parts_[0][p].end()) return y;
      }
    }
    return std::nullopt;
  }

 private:
  std::size_t partitions_for(std::size_t cap) const {
    const std::size_t keys = tuning_.partition_keys ? tuning_.partition_keys : 64;
    return std::min(std::bit_ceil(std::max<std::size_t>(1, (cap + keys - 1) / keys)), std::size_t{1} << 14);
  }
  four_list_side<Sum> side(int s) const {
    return {tables_.outer_sum[s].data(), tables_.outer_residue[s].data(), tables_.outer_sum[s].size(),
            tables_.inner_sum[s].data(), tables_.inner_offset[s].data(), tables_.m, tables_.t};
  }

  host_stats& stats_;
  four_list_tuning tuning_;
  double room_;
  ssum::detail::four_list_tables<Sum> tables_;
  std::size_t cap_ = 0;
  int bits_ = 0;
  bool built_ = false;
  std::vector<std::vector<Sum>> parts_[2];
};

ssum::solution run(const ssum::problem& p, const ssum::solve_options& options, const four_list_tuning& tuning = {},
                   host_stats* stats = nullptr, double room = 1e12) {
  host_stats ignored;
  const host_setup setup{stats ? stats : &ignored, tuning, room};
  return ssum::detail::four_list_in_batches<host_device>(p, ssum::detail::totals_of(p), options, tuning, "host",
                                                         setup);
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
// many batches, splits down to single outer sums), and partitions of a few keys each (many
// partitions, most of them empty).
four_list_tuning tuning_for(int trial) {
  four_list_tuning t;
  if (trial % 3 == 1) t.max_batch = 1;
  if (trial % 3 == 2) t.partition_keys = 2;
  return t;
}

TEST(FourListBatches, MatchesBruteForce) {
  std::mt19937_64 rng(8080);
  int feasible_seen = 0;
  std::size_t splits = 0, outer_splits[2] = {0, 0};
  for (int trial = 0; trial < 1800; ++trial) {
    const ssum::problem p =
        ssum_test::random_instance(rng, trial % 5 == 0 ? 20 : 16, ssum_test::range_for(trial), trial % 2 == 1);
    const four_list_tuning tuning = tuning_for(trial);
    ssum::solve_options options;
    options.count = trial % 7 != 3;
    host_stats stats;
    const ssum::solution s = run(p, options, tuning, &stats);
    const std::uint64_t expected = brute_force_count(p);
    feasible_seen += expected > 0;
    expect_solution(p, s, expected > 0, describe(p));
    if (options.count) {
      ASSERT_TRUE(s.count.has_value()) << describe(p);
      ASSERT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    }
    splits += stats.partitions - stats.builds;
    outer_splits[0] += stats.outer_splits[0];
    outer_splits[1] += stats.outer_splits[1];
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(feasible_seen, 600);
  EXPECT_GT(splits, 1000u) << "the small batches should split";
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
      const ssum::solution s = run(p, counting, tuning_for(tune));
      expect_solution(p, s, feasible, describe(p));
      if (counting.count) ASSERT_TRUE(s.count.has_value()) << describe(p);
      if (counting.count) EXPECT_EQ(static_cast<std::uint64_t>(*s.count), brute_force_count(p)) << describe(p);
    }
  }
}

// Zero-sum instances where the empty subset's x is alone in its batch and the other solutions
// share that batch: the search must skip it and look again.
TEST(FourListBatches, ZeroSumManySeeds) {
  std::mt19937_64 rng(99);
  std::size_t skip_finds = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ssum::problem p;
    const std::size_t n = static_cast<std::size_t>(ssum_test::uniform(rng, 4, 18));
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(ssum_test::uniform(rng, -40, 40));
    host_stats stats;
    const ssum::solution s = run(p, {}, tuning_for(trial), &stats);
    expect_solution(p, s, brute_force_count(p) > 0, describe(p));
    skip_finds += stats.skip_finds;
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(skip_finds, 20u) << "the empty subset's x should have been skipped";
}

// Shared by several solves (ssum/work_share.hpp, as MPI ranks share it): verdicts and counts
// against brute force with every unit's count exact (the zero-sum quadruple left out of its
// own unit), and the host four-list and the batches sharing one search.
TEST(FourListBatches, SharedSearchesAgree) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 300; ++trial) {
    const ssum::problem p = ssum_test::random_instance(rng, 16, ssum_test::range_for(trial), trial % 2 == 1);
    ssum::solve_options options;
    options.count = trial % 3 != 0;
    const auto out = ssum_test::run_shared(1 + trial % 3, options, [&](const ssum::solve_options& o, std::size_t) {
      return run(p, o, tuning_for(trial));
    });
    const std::uint64_t expected = brute_force_count(p);
    ASSERT_EQ(out.subset.has_value(), expected > 0) << describe(p);
    if (out.subset) EXPECT_TRUE(ssum::is_certificate(p, *out.subset)) << describe(p);
    if (options.count) {
      ASSERT_TRUE(out.coordinator && out.coordinator->count) << describe(p);
      EXPECT_EQ(static_cast<std::uint64_t>(*out.coordinator->count), expected) << describe(p);
    }
  }
  // 36 items, no reduction applies: the host's solve and two batches' solves, one pool.
  const ssum::problem p = ssum_test::many_solutions(36, 30, 17);
  ssum::solve_options counting;
  counting.count = true;
  counting.algo = ssum::algorithm::four_list;
  const ssum::solution alone = ssum::solve(ssum::cpu{1}, p, counting);
  const auto out = ssum_test::run_shared(3, counting, [&](const ssum::solve_options& o, std::size_t r) {
    return r == 1 ? ssum::solve(ssum::cpu{1}, p, o) : run(p, o, tuning_for(r));
  });
  ASSERT_TRUE(out.coordinator && out.coordinator->count);
  EXPECT_EQ(out.coordinator->count->to_string(), alone.count->to_string());
  EXPECT_GT(out.units, 100u);
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
        host_stats stats;
        const ssum::solution s = run(p, counting, tuning, &stats);
        const std::string what = std::string(cls) + " n=" + std::to_string(n) + " batch=" + std::to_string(batch);
        expect_solution(p, s, expected.feasible, what);
        ASSERT_TRUE(s.count && expected.count) << what;
        EXPECT_EQ(static_cast<std::uint64_t>(*s.count), static_cast<std::uint64_t>(*expected.count)) << what;
        if (batch && n >= 29) EXPECT_GT(stats.builds, 4u) << what;  // 2^15 sums and more per side
      }
    }
  }
}

// Random weights of `bits` bits (signed when asked), n of them.
ssum::problem wide_instance(std::mt19937_64& rng, std::size_t n, int bits, bool signed_weights) {
  ssum::problem p;
  for (std::size_t i = 0; i < n; ++i) {
    uint128 w = (uint128(rng()) << 64 | rng()) >> (128 - bits);
    w |= uint128(1) << (bits - 1);
    int128 v = int128(w);
    if (signed_weights && rng() % 2) v = -v;
    p.weights.push_back(v);
  }
  return p;
}

// Totals past 2^64 take 128-bit sums, up to the 2^127 limit: counts against brute force on
// planted, signed, zero-sum and no-instances.
TEST(FourListBatches, SumsPast64BitsAgreeWithBruteForce) {
  std::mt19937_64 rng(127);
  int wide = 0, feasible = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int bits = trial % 3 == 0 ? 70 : trial % 3 == 1 ? 100 : 122;
    ssum::problem p = wide_instance(rng, 14 + trial % 7, bits, trial % 2 == 1);
    if (trial % 4 == 0) {
      p.target.reset();  // zero-sum
    } else if (trial % 4 == 1) {
      int128 t = 0;  // planted
      for (std::size_t i = 0; i < p.weights.size(); i += 2) t += p.weights[i];
      p.target = t;
    } else if (trial % 4 == 2) {
      p.target = int128(1) << (bits - 2);  // almost surely none
    } else {
      int128 t = 1;  // odd target, even weights: none
      for (auto& w : p.weights) w &= ~int128(1);
      p.target = t;
    }
    ssum::solve_options counting;
    counting.count = trial % 5 != 4;
    host_stats stats;
    const ssum::solution s = run(p, counting, tuning_for(trial), &stats);
    const std::uint64_t expected = brute_force_count(p);
    feasible += expected > 0;
    expect_solution(p, s, expected > 0, describe(p));
    if (counting.count) {
      ASSERT_TRUE(s.count.has_value()) << describe(p);
      EXPECT_EQ(static_cast<std::uint64_t>(*s.count), expected) << describe(p);
    }
    wide += stats.wide_runs;
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_EQ(wide, 60) << "every total here passes 2^64";
  EXPECT_GE(feasible, 15);  // the planted ones at least
}

// At the edge: a total of 2^64 - 1 keeps 64-bit sums, 2^64 takes 128-bit ones; a total just
// below 2^127 still works.
TEST(FourListBatches, PicksTheSumWidthByTheTotal) {
  const int128 half = int128(1) << 63;
  const struct {
    std::vector<int128> w;
    int128 t;
    int wide;
  } cases[] = {{{half, half - 1}, half - 1, 0},
               {{half, half}, half, 1},
               {{(int128(1) << 125), (int128(1) << 125) + 1, (int128(1) << 125) + 3, 5}, (int128(1) << 125) + 6, 1}};
  for (const auto& c : cases) {
    const ssum::problem p{c.w, c.t};
    host_stats stats;
    ssum::solve_options counting;
    counting.count = true;
    const ssum::solution s = run(p, counting, {}, &stats);
    EXPECT_EQ(int(stats.wide_runs), c.wide) << describe(p);
    expect_solution(p, s, brute_force_count(p) > 0, describe(p));
    ASSERT_TRUE(s.count.has_value());
    EXPECT_EQ(static_cast<std::uint64_t>(*s.count), brute_force_count(p)) << describe(p);
  }
}

// Many equal sums (small weights): whole runs of equal keys meet in one partition, and counts
// add their multiplicities.
TEST(FourListBatches, EqualSumsInOnePartition) {
  std::mt19937_64 rng(5);
  std::size_t largest = 0;
  for (int trial = 0; trial < 20; ++trial) {
    ssum::problem p;
    for (int i = 0; i < 20; ++i) p.weights.push_back(ssum_test::uniform(rng, 1, 12));
    p.target = ssum_test::uniform(rng, 0, 150);
    four_list_tuning tuning;
    tuning.partition_keys = 4;
    host_stats stats;
    ssum::solve_options counting;
    counting.count = true;
    const ssum::solution s = run(p, counting, tuning, &stats);
    expect_solution(p, s, brute_force_count(p) > 0, describe(p));
    ASSERT_TRUE(s.count.has_value()) << describe(p);
    EXPECT_EQ(static_cast<std::uint64_t>(*s.count), brute_force_count(p)) << describe(p);
    largest = std::max(largest, stats.largest_partition);
  }
  EXPECT_GT(largest, 40u) << "equal sums should have crowded a partition (4 keys on average)";
}

TEST(FourListBatches, PlansWithinTheRoomOrRefuses) {
  const ssum::problem p = ssum::generate("planted", 36, 30, 3);
  ssum::solve_options options;
  {
    host_stats stats;
    const ssum::solution s = run(p, options, {}, &stats);
    EXPECT_EQ(stats.cap, std::size_t{1} << 18) << "one batch holds every pair of n = 36";
    EXPECT_TRUE(s.feasible);
  }
  {
    host_stats stats;
    ssum::solve_options counting;
    counting.count = true;  // through every batch
    const ssum::solution s = run(p, counting, {}, &stats, 2.5e6);  // room for about 2^17 keys per side
    EXPECT_LT(stats.cap, std::size_t{1} << 18);
    EXPECT_LE(double(s.planned_bytes), 2.5e6);
    EXPECT_GT(stats.builds, 1u);
    EXPECT_TRUE(s.feasible);
    EXPECT_TRUE(ssum::is_certificate(p, s.subset));
  }
  {
    options.memory_limit = 2500000;  // the caller's limit instead of the device's room
    const ssum::solution s = run(p, options);
    EXPECT_LE(double(s.planned_bytes), 2.5e6);
    EXPECT_TRUE(s.feasible);
  }
  EXPECT_THROW(run(p, {}, {}, nullptr, 1e5), ssum::insufficient_memory);  // not even the lists
}

TEST(FourListBatches, HonoursCancelAndTheRange) {
  const ssum::problem p = ssum::generate("random", 30, std::nullopt, 1);
  std::atomic<bool> stop{true};
  ssum::solve_options options;
  options.cancel = &stop;
  EXPECT_THROW(run(p, options), ssum::interrupted);
  const ssum::problem out_of_range{{1, 2, 4}, 100};
  EXPECT_FALSE(run(out_of_range, {}).feasible);
}

// Progress runs through every class once: it ends at 1 and never goes back.
TEST(FourListBatches, ReportsProgressUpToOne) {
  const ssum::problem p = ssum::generate("random", 32, 30, 5);
  four_list_tuning tuning;
  tuning.max_batch = 1 << 10;
  ssum::solve_options options;
  options.count = true;
  std::vector<double> seen, overall;
  options.on_progress = [&](const ssum::progress& pr) {
    EXPECT_EQ(pr.stage, "search");
    seen.push_back(pr.fraction);
    overall.push_back(pr.overall);  // the batches are all the work: the same fraction
  };
  run(p, options, tuning);
  ASSERT_GT(seen.size(), 10u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_NEAR(seen.back(), 1.0, 1e-9);
  EXPECT_EQ(overall, seen);
}

// The 64-bit GPU batches' run fix-up: after a stable sort on the top bits only, sort_run_at on
// every index leaves the keys sorted, or reports a run too long for it (then a full sort).
TEST(FourListBatches, RunFixUpAfterAPartialSort) {
  std::mt19937_64 rng(64);
  std::size_t partial = 0, long_runs = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng() % 3000;
    const int bits = 8 + int(rng() % 40);
    std::vector<std::uint64_t> keys(n);
    for (auto& k : keys) k = rng() >> (64 - bits);
    const int sort_bits = trial % 3 == 1 ? 8 : trial % 3 == 2 ? 2 : 0;  // 2: runs of hundreds
    const int begin = ssum::detail::four_list_sort_begin(bits, n, sort_bits);
    if (sort_bits == 0) EXPECT_TRUE((bits - begin) % 8 == 0 || begin == 0) << "whole digits";
    std::stable_sort(keys.begin(), keys.end(),
                     [begin](std::uint64_t a, std::uint64_t b) { return (a >> begin) < (b >> begin); });
    bool fine = true;
    for (std::size_t i = 0; i < n; ++i) fine &= ssum::detail::sort_run_at(keys.data(), n, i, begin);
    partial += begin > 0;
    if (!fine) {
      ++long_runs;
      continue;
    }
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end())) << "n=" << n << " bits=" << bits << " begin=" << begin;
  }
  EXPECT_GT(partial, 100u);
  EXPECT_GT(long_runs, 5u) << "2-bit sorts leave runs longer than the fix-up takes";
}

fs::path scratch(const std::string& name) { return ssum_test::scratch_file("ssum_batches", name); }

// A count stopped part way keeps its finished units; run again it gives the same count and
// starts past them. The same file continues on the host four-list, and the host's on the
// batches, when the moduli agree (the batches take the file's).
TEST(FourListBatches, CheckpointsContinueOnEitherBackend) {
  const ssum::problem p = ssum_test::many_solutions(36, 14, 11);
  ssum::solve_options host_count;
  host_count.algo = ssum::algorithm::four_list;
  host_count.count = true;
  const ssum::solution whole = ssum::solve(ssum::cpu{2}, p, host_count);
  ASSERT_TRUE(whole.count.has_value());
  const fs::path file = scratch("units.ckpt");
  four_list_tuning small;
  small.max_batch = 1 << 12;  // many batches
  const struct {
    bool stop_on_host, resume_on_host;
  } legs[] = {{false, false}, {true, false}, {false, true}};
  for (const auto [stop_on_host, resume_on_host] : legs) {
    SCOPED_TRACE(std::string(stop_on_host ? "stopped on the host" : "stopped on the batches") +
                 (resume_on_host ? ", resumed on the host" : ", resumed on the batches"));
    ssum::solve_options o;
    o.count = true;
    o.checkpoint = file.string();
    o.checkpoint_seconds = 0;
    std::atomic<bool> cancel{false};
    o.cancel = &cancel;
    o.on_progress = [&](const ssum::progress& pr) {
      if (pr.fraction >= 0.4) cancel = true;
    };
    if (stop_on_host) {
      ssum::solve_options on_host = o;
      on_host.algo = ssum::algorithm::four_list;
      // One thread: the host reports from its first thread only, and on a fast machine a
      // second thread finished every class before the first one's report stopped the search.
      EXPECT_THROW(ssum::solve(ssum::cpu{1}, p, on_host), ssum::interrupted);
    } else {
      EXPECT_THROW(run(p, o, small), ssum::interrupted);
    }
    const auto saved = ssum::detail::read_checkpoint(file.string());
    ASSERT_TRUE(saved.has_value()) << "a stopped search keeps its file";
    const auto finished = std::count(saved->state.done.begin(), saved->state.done.end(), true);
    EXPECT_GT(finished, 0);
    EXPECT_LT(std::size_t(finished), saved->state.done.size());
    o.cancel = nullptr;
    double first = -1;
    o.on_progress = [&](const ssum::progress& pr) {
      if (first < 0 && pr.stage == "search" && pr.fraction > 0) first = pr.fraction;
    };
    host_stats stats;
    ssum::solution resumed;
    if (resume_on_host) {
      o.algo = ssum::algorithm::four_list;
      resumed = ssum::solve(ssum::cpu{2}, p, o);
    } else {
      resumed = run(p, o, small, &stats);
    }
    ssum_test::expect_resumed_like_whole(p, resumed, whole, first, file);
  }
  // Another instance's file is refused (exit 2 in the CLI) and kept.
  {
    ssum::solve_options o;
    o.count = true;
    o.checkpoint = file.string();
    std::atomic<bool> cancel{false};
    o.cancel = &cancel;
    o.on_progress = [&](const ssum::progress& pr) {
      if (pr.fraction >= 0.2) cancel = true;
    };
    EXPECT_THROW(run(p, o, small), ssum::interrupted);
    ASSERT_TRUE(fs::exists(file));
    o.cancel = nullptr;
    o.on_progress = nullptr;
    const ssum::problem other = ssum_test::many_solutions(36, 14, 12);
    EXPECT_THROW(run(other, o, small), ssum::input_error);
    EXPECT_TRUE(fs::exists(file));
    fs::remove(file);
  }
}

// The batches keep the first subset with the units that hold it: a count resumed from a file
// whose finished units hold every solution, or a decision from the file of a run killed before
// it removed it, answers with the file's subset; a file that counts solutions without one
// (version 1) is searched again.
TEST(FourListBatches, AFileThatCountsSolutionsAnswersWithItsSubset) {
  const ssum::problem p = ssum_test::many_solutions(36, 14, 13);
  ssum::solve_options counting;
  counting.count = true;
  const ssum::solution whole = run(p, counting);
  ASSERT_TRUE(whole.feasible && whole.count.has_value());
  const fs::path file = scratch("subset.ckpt");
  four_list_tuning small;
  small.max_batch = 1 << 12;
  ssum::solve_options o = counting;
  o.checkpoint = file.string();
  o.checkpoint_seconds = 0;
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  o.on_progress = [&](const ssum::progress& pr) {
    if (pr.fraction >= 0.3) cancel = true;
  };
  EXPECT_THROW(run(p, o, small), ssum::interrupted);
  const auto saved = ssum::detail::read_checkpoint(file.string());
  ASSERT_TRUE(saved.has_value());
  ASSERT_GT(saved->state.count, 0u);
  ASSERT_TRUE(saved->state.subset.has_value()) << "the file counts solutions without one of them";
  EXPECT_TRUE(ssum::is_certificate(p, *saved->state.subset));
  ssum::uint128 all = 0;
  for (const char c : whole.count->to_string()) all = all * 10 + ssum::uint128(c - '0');
  o.cancel = nullptr;
  o.on_progress = nullptr;
  for (const bool counted : {true, false}) {
    for (const bool with_subset : {true, false}) {
      SCOPED_TRACE(std::string(counted ? "count" : "decision") + (with_subset ? ", with its subset" : ", none kept"));
      ssum::detail::checkpoint_identity id = saved->id;
      id.counting = counted;
      ssum::detail::checkpoint_state state;
      state.done.assign(id.units, true);
      state.count = counted ? all : 1;
      if (with_subset) state.subset = saved->state.subset;
      ssum::detail::write_checkpoint(file.string(), id, state);
      ssum::solve_options again = o;
      again.count = counted;
      const ssum::solution resumed = run(p, again, small);
      expect_solution(p, resumed, true, "resumed");
      if (counted) EXPECT_EQ(resumed.count->to_string(), whole.count->to_string());
      EXPECT_FALSE(fs::exists(file));
    }
  }
}

}  // namespace

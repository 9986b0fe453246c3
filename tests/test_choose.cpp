// The one decision of a solve (src/solver/choose.hpp): which backend and algorithm, why, and
// how often the devices are asked. A counting probe stands in for the CUDA driver, so that
// the device rules are checked on machines without one (in builds with the CUDA backend).
#include <gtest/gtest.h>

#include <random>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "small_instances.hpp"
#include "solver/choose.hpp"
#include "ssum/detail/cpu_team.hpp"
#include "ssum/memory.hpp"
#include "ssum/ssum.hpp"

namespace {

using ssum::int128;
using ssum::detail::choice;
using ssum::detail::choose;
using ssum::detail::device_probe;

// A device of `room` bytes (or none), counting the questions.
struct fake_device {
  bool present = true;
  double room = 16.0 * (1ull << 30);
  int asked_present = 0, asked_room = 0;
  device_probe probe() {
    return {[this] {
              ++asked_present;
              return present;
            },
            [this](int) {
              ++asked_room;
              return room;
            }};
  }
};

ssum::problem random_problem(std::size_t n, std::uint64_t seed = 1) { return ssum::generate("random", n, {}, seed); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Choose, SmallInstancesStayOnTheHostWithoutAskingTheDevice) {
  fake_device dev;
  const choice c = choose(random_problem(20), {}, ssum::backend::automatic, 2, 0, dev.probe());
  EXPECT_EQ(c.where, ssum::backend::cpu);
  EXPECT_EQ(c.algo, ssum::algorithm::two_list);
  EXPECT_EQ(c.threads, 2u);
  EXPECT_FALSE(c.out_of_range);
  EXPECT_TRUE(contains(c.reason, "on 2 threads, less than a CUDA start-up (0.4 s)")) << c.reason;
  EXPECT_TRUE(contains(c.reason, "two lists of 2^10 sums")) << c.reason;
  EXPECT_EQ(dev.asked_present, 0);
  EXPECT_EQ(dev.asked_room, 0);
  const ssum::solve_plan plan = c.plan();
  EXPECT_EQ(plan.algorithm, "two-list");
  EXPECT_EQ(plan.backend, "cpu");
  EXPECT_EQ(plan.reason, c.reason);
}

// Without a CUDA backend (or without a device) automatic always plans the host, and says why.
TEST(Choose, WithoutADeviceAutomaticPlansTheHost) {
  fake_device none;
  none.present = false;
  const choice c = choose(random_problem(52), {}, ssum::backend::automatic, 1, 0, none.probe());
  EXPECT_EQ(c.where, ssum::backend::cpu);
  EXPECT_TRUE(contains(c.reason, "this build has no CUDA backend") || contains(c.reason, "no CUDA device is present"))
      << c.reason;
  EXPECT_LE(none.asked_present, 1);
  EXPECT_EQ(none.asked_room, 0);
  if (!ssum::cuda_compiled()) {
    EXPECT_EQ(none.asked_present, 0);
    EXPECT_THROW(choose(random_problem(10), {}, ssum::backend::cuda, 0, 0, none.probe()), ssum::backend_unavailable);
  } else {
    EXPECT_THROW(choose(random_problem(10), {}, ssum::backend::cuda, 0, 0, none.probe()), ssum::backend_unavailable);
  }
}

// Under automatic the host threads enter the cost model, and the reason says with how many.
TEST(Choose, ThreadsDriveTheAutomaticChoice) {
  fake_device dev;
  const ssum::problem p = random_problem(52);
  // A team is capped at what the hardware runs (capped_team): the reason names what runs.
  const unsigned team = ssum::detail::capped_team(64);
  const choice many = choose(p, {}, ssum::backend::automatic, 64, 0, dev.probe());
  EXPECT_EQ(many.threads, team);
  EXPECT_TRUE(contains(many.reason, "on " + std::to_string(team) + " threads")) << many.reason;
  if (team == 64) {
    EXPECT_EQ(many.where, ssum::backend::cpu);
    EXPECT_TRUE(contains(many.reason, "on 64 threads, less than a CUDA start-up")) << many.reason;
  }
  const choice one = choose(p, {}, ssum::backend::automatic, 1, 0, dev.probe());
  if (ssum::cuda_compiled()) {
    EXPECT_EQ(one.where, ssum::backend::cuda);
    EXPECT_TRUE(contains(one.reason, "on 1 thread, more than a CUDA start-up")) << one.reason;
  } else {
    EXPECT_EQ(one.where, ssum::backend::cpu);
    EXPECT_TRUE(contains(one.reason, "this build has no CUDA backend")) << one.reason;
  }
  EXPECT_LE(dev.asked_present, 1);
  EXPECT_LE(dev.asked_room, 1);
}

TEST(Choose, AMemoryLimitTakesTheFourList) {
  ssum::solve_options options;
  options.memory_limit = 2u << 20;  // the two lists of n = 40 need 20 MiB
  const choice c = choose(random_problem(40), options, ssum::backend::cpu, 4, 0);
  EXPECT_EQ(c.where, ssum::backend::cpu);
  EXPECT_EQ(c.algo, ssum::algorithm::four_list);
  EXPECT_TRUE(contains(c.reason, "two lists of 2^20 sums need 20.0 MiB, more than the 2.00 MiB within the memory limit"))
      << c.reason;
  EXPECT_TRUE(contains(c.reason, "the four-list needs about")) << c.reason;
  options.memory_limit = 0;
  EXPECT_EQ(choose(random_problem(40), options, ssum::backend::cpu, 4, 0).algo, ssum::algorithm::two_list);
}

TEST(Choose, NamedAlgorithmsAreTakenAsNamed) {
  ssum::solve_options options;
  options.algo = ssum::algorithm::four_list;
  const choice c = choose(random_problem(30), options, ssum::backend::cpu, 1, 0);
  EXPECT_EQ(c.algo, ssum::algorithm::four_list);
  EXPECT_TRUE(contains(c.reason, "the four-list algorithm was asked for")) << c.reason;
  options.algo = static_cast<ssum::algorithm>(42);
  EXPECT_THROW(choose(random_problem(30), options, ssum::backend::cpu, 1, 0), std::invalid_argument);
}

// Beyond 120 items the dynamic program plans what it can hold; only the four-list, named,
// keeps its refusal, and an instance beyond the dynamic program too is refused for memory.
TEST(Choose, MoreThan120ItemsGoToTheDynamicProgram) {
  const ssum::problem p{std::vector<int128>(121, 1), int128(3)};
  const choice c = choose(p, {}, ssum::backend::cpu, 1, 0);
  EXPECT_EQ(c.algo, ssum::algorithm::dynamic_programming);
  EXPECT_TRUE(contains(c.reason, "the meet-in-the-middle algorithms take at most 120 items")) << c.reason;
  fake_device dev;
  EXPECT_EQ(choose(p, {}, ssum::backend::automatic, 1, 0, dev.probe()).algo, ssum::algorithm::dynamic_programming);
  ssum::solve_options four;
  four.algo = ssum::algorithm::four_list;
  try {
    choose(p, four, ssum::backend::cpu, 1, 0);
    ADD_FAILURE() << "121 items were planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "the four-list algorithm takes at most 120 items");
  }
  // Distinct odd weights (the gcd is 1), the target the lightest two (the count test passes).
  ssum::problem wide{{}, (int128(1) << 61) + 4};
  for (int i = 0; i < 121; ++i) wide.weights.push_back((int128(1) << 60) + 2 * i + 1);
  try {
    choose(wide, {}, ssum::backend::cpu, 1, 0);
    ADD_FAILURE() << "a table beyond 2^40 sums was planned";
  } catch (const ssum::insufficient_memory& e) {
    EXPECT_TRUE(std::string(e.what()).ends_with("no algorithm here can answer it")) << e.what();
  }
}

// A target no subset reaches is answered infeasible without any list, and the plan says so.
TEST(Choose, TargetsOutOfRangeAreAnsweredWithoutLists) {
  const ssum::problem above{{1, 2, 4}, int128(100)};
  const choice c = choose(above, {}, ssum::backend::cpu, 1, 0);
  EXPECT_TRUE(c.out_of_range);
  EXPECT_EQ(c.reason, "the target 100 lies outside [0, 7], the sums a subset can reach: infeasible without building any list");
  const ssum::problem below{{-3, 2}, int128(-5)};
  EXPECT_TRUE(contains(choose(below, {}, ssum::backend::cpu, 1, 0).reason, "the target -5 lies outside [-3, 2]"));
  EXPECT_FALSE(choose(ssum::problem{{-3, 2}, int128(-3)}, {}, ssum::backend::cpu, 1, 0).out_of_range);

  ssum::solve_options counting;
  counting.count = true;
  const ssum::solution s = ssum::solve(ssum::cpu{1}, above, counting);
  EXPECT_FALSE(s.feasible);
  ASSERT_TRUE(s.count.has_value());
  EXPECT_EQ(*s.count, 0u);
  EXPECT_EQ(s.planned_bytes, 0u);  // no list was planned
  EXPECT_EQ(s.seconds.generate, 0.0);
  EXPECT_EQ(s.plan.reason, c.reason);
  EXPECT_EQ(s.plan.backend, "cpu");
}

// --count keeps the host's two-list (128-bit counts); on a device, counts from n = 64 on would
// pass 64 bits: the device two-list refuses them and the four-list takes them, the device's
// room unasked.
TEST(Choose, CountsFollowTheCountRules) {
  ssum::solve_options counting;
  counting.count = true;
  const choice host = choose(random_problem(30), counting, ssum::backend::cpu, 1, 0);
  EXPECT_EQ(host.algo, ssum::algorithm::two_list);
  if (!ssum::cuda_compiled()) GTEST_SKIP() << "the device rules need a build with the CUDA backend";
  fake_device dev;
  const choice c = choose(random_problem(64), counting, ssum::backend::cuda, 0, 0, dev.probe());
  EXPECT_EQ(c.where, ssum::backend::cuda);
  EXPECT_EQ(c.algo, ssum::algorithm::four_list);
  EXPECT_TRUE(contains(c.reason, "--count from n = 64 on may exceed 64 bits")) << c.reason;
  EXPECT_EQ(dev.asked_present, 1);
  EXPECT_EQ(dev.asked_room, 0);
}

// A device of 16 GiB: the two lists of n = 62 (2^30 sums each) do not fit, the four-list takes
// the instance; n = 56 fits. Each question at most once.
TEST(Choose, TheDevicesRoomDecidesBetweenItsAlgorithms) {
  if (!ssum::cuda_compiled()) GTEST_SKIP() << "the device rules need a build with the CUDA backend";
  fake_device dev;
  const choice big = choose(random_problem(62), {}, ssum::backend::cuda, 0, 0, dev.probe());
  EXPECT_EQ(big.algo, ssum::algorithm::four_list);
  EXPECT_TRUE(contains(big.reason, "two lists of 2^30 sums need")) << big.reason;
  EXPECT_TRUE(contains(big.reason, "available on CUDA device 0")) << big.reason;
  EXPECT_EQ(dev.asked_present, 1);
  EXPECT_EQ(dev.asked_room, 1);
  const choice fits = choose(random_problem(56), {}, ssum::backend::cuda, 0, 0, dev.probe());
  EXPECT_EQ(fits.algo, ssum::algorithm::two_list);
  fake_device automatic;
  const choice on_device = choose(random_problem(62), {}, ssum::backend::automatic, 2, 0, automatic.probe());
  EXPECT_EQ(on_device.where, ssum::backend::cuda);
  EXPECT_EQ(on_device.algo, ssum::algorithm::four_list);
  EXPECT_EQ(automatic.asked_present, 1);
  EXPECT_EQ(automatic.asked_room, 1);
}

// Density-1 weights (n bits each: totals past 2^64) go to the device under automatic too: the
// two-list with 128-bit sums while its doubled plan fits, the four-list beyond that or beyond
// n = 66. No reduction sees through these (the tests' wide no-instance: M a_j + 1).
ssum::problem density_one(std::size_t n) { return ssum_test::wide_no_instance(n, int(n), n); }

TEST(Choose, DensityOneGoesToTheDevice) {
  if (!ssum::cuda_compiled()) GTEST_SKIP() << "the device rules need a build with the CUDA backend";
  fake_device roomy;
  roomy.room = 130e9;
  const choice two = choose(density_one(62), {}, ssum::backend::automatic, 2, 0, roomy.probe());
  EXPECT_EQ(two.where, ssum::backend::cuda) << two.reason;
  EXPECT_EQ(two.algo, ssum::algorithm::two_list) << two.reason;
  const choice four = choose(density_one(72), {}, ssum::backend::automatic, 2, 0, roomy.probe());
  EXPECT_EQ(four.where, ssum::backend::cuda) << four.reason;
  EXPECT_EQ(four.algo, ssum::algorithm::four_list) << four.reason;
  // 16 GiB: the 128-bit lists of n = 62 (24 GiB planned) do not fit, the four-list does.
  fake_device small;
  const choice tight = choose(density_one(62), {}, ssum::backend::automatic, 2, 0, small.probe());
  EXPECT_EQ(tight.where, ssum::backend::cuda) << tight.reason;
  EXPECT_EQ(tight.algo, ssum::algorithm::four_list) << tight.reason;
}

// Every solve reports the plan it ran.
TEST(Choose, SolutionsCarryThePlanTheyRan) {
  const ssum::problem p{{3, 5, 9, 14}, int128(17)};
  for (const auto which : {ssum::backend::cpu, ssum::backend::automatic}) {
    const ssum::solution s = ssum::solve(which, 2, p);
    EXPECT_TRUE(s.feasible);
    EXPECT_EQ(s.plan.algorithm, s.algorithm);
    EXPECT_EQ(s.plan.backend, s.backend);
    EXPECT_FALSE(s.plan.reason.empty());
  }
}

}  // namespace

// Left to choose, a two-list that one thread finishes within a millisecond runs on one (a
// team's start costs more); asked-for threads are kept, and larger lists get them all.
TEST(Choose, SmallTwoListsRunOnOneThreadUnlessThreadsAreAsked) {
  const ssum::problem small = ssum::generate("random", 24, std::nullopt, 1);
  const choice c = choose(small, {}, ssum::backend::cpu, 0, 0);
  EXPECT_EQ(c.algo, ssum::algorithm::two_list);
  EXPECT_EQ(c.threads, 1u);
  EXPECT_TRUE(contains(c.reason, "one thread")) << c.reason;
  EXPECT_EQ(choose(small, {}, ssum::backend::cpu, 2, 0).threads, 2u);
  const ssum::problem large = ssum::generate("random", 40, std::nullopt, 1);
  EXPECT_EQ(choose(large, {}, ssum::backend::cpu, 0, 0).threads, ssum::resolved_threads(ssum::cpu{}));
}

// Under automatic the dynamic program goes to the device when the host's would take longer
// than a CUDA start-up plus the device's model, and its tables fit there; else, or when
// counting, or without a device, it stays on the host.
TEST(Choose, TheDynamicProgramGoesToTheDeviceWhenItPays) {
  ssum::problem p;  // zero-sum (the balanced program takes targets only): two tables of 2.5e8 sums
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i) p.weights.push_back(int128(1 + rng() % 1000000) * (i % 2 ? 1 : -1));
  const choice host = choose(p, {}, ssum::backend::cpu, 2, 0);
  ASSERT_EQ(host.algo, ssum::algorithm::dynamic_programming);
  ASSERT_GT(host.estimate, ssum::detail::cuda_start_seconds) << host.reason;
  if (!ssum::cuda_compiled()) GTEST_SKIP() << "the device rules need a build with the CUDA backend";
  fake_device dev;
  const choice c = choose(p, {}, ssum::backend::automatic, 2, 0, dev.probe());
  EXPECT_EQ(c.algo, ssum::algorithm::dynamic_programming);
  EXPECT_EQ(c.where, ssum::backend::cuda);
  EXPECT_TRUE(contains(c.reason, "the host's dynamic program would take about")) << c.reason;
  dev.room = 1 << 20;  // the tables do not fit the device
  EXPECT_EQ(choose(p, {}, ssum::backend::automatic, 2, 0, dev.probe()).where, ssum::backend::cpu);
  dev.room = 16.0 * (1ull << 30);
  dev.present = false;
  EXPECT_EQ(choose(p, {}, ssum::backend::automatic, 2, 0, dev.probe()).where, ssum::backend::cpu);
  // A small table answers on the host before a device could start.
  const ssum::problem small = ssum::generate("pthree", 1000, std::nullopt, 1);
  dev.present = true;
  EXPECT_EQ(choose(small, {}, ssum::backend::automatic, 2, 0, dev.probe()).where, ssum::backend::cpu);
}

// Where solutions abound and the host's program would stop before the device's start-up and
// plan (psix n = 1000: about 2^976 expected), the host's plan runs first without asking the
// device; the device's plan is made after it (host_tried). Where the host's early stop would
// still take longer (psix n = 10^4, or a no-instance that the normal law cannot tell from one
// with many solutions: multiples of 3 but one), the device's plan at once; a device named
// runs alone.
TEST(Choose, TheHostTriesFirstWhereSolutionsAbound) {
  if (!ssum::cuda_compiled()) GTEST_SKIP() << "the device rules need a build with the CUDA backend";
  const ssum::problem psix = ssum::generate("psix", 1000, std::nullopt, 2);
  for (const unsigned threads : {2u, 16u}) {  // the 2-core machine's team and the H200 host's
    SCOPED_TRACE(threads);
    fake_device dev;
    // Very many solutions: the greedy fill first, on the host, the device not asked.
    for (const std::size_t n : {1000u, 10000u}) {
      const choice fill = choose(ssum::generate("psix", n, std::nullopt, 2), {}, ssum::backend::automatic, threads, 0,
                                 dev.probe());
      EXPECT_TRUE(fill.fill_first) << fill.reason;
      EXPECT_EQ(fill.where, ssum::backend::cpu) << fill.reason;
      EXPECT_TRUE(contains(fill.reason, "a greedy fill with an exact core tries first")) << fill.reason;
    }
    EXPECT_EQ(dev.asked_present + dev.asked_room, 0);
    // When the fill finds nothing: the host's program first where it may stop early.
    const choice c = choose(psix, {}, ssum::backend::automatic, threads, 0, dev.probe(), false, true);
    EXPECT_FALSE(c.fill_first);
    EXPECT_EQ(c.where, ssum::backend::cpu) << c.reason;
    EXPECT_EQ(c.algo, ssum::algorithm::dynamic_programming);
    EXPECT_GE(c.device_after_seconds, 0.25) << c.reason;
    EXPECT_LE(c.device_after_seconds, 1.0);
    EXPECT_TRUE(contains(c.reason, "the device's plan only if it answers nothing by then")) << c.reason;
    EXPECT_EQ(dev.asked_present + dev.asked_room, 0);
    const choice after = choose(psix, {}, ssum::backend::automatic, threads, 0, dev.probe(), true);
    EXPECT_EQ(after.where, ssum::backend::cuda) << after.reason;
    EXPECT_EQ(after.device_after_seconds, 0);
    EXPECT_TRUE(contains(after.reason, "the host's program answered nothing")) << after.reason;
    for (const ssum::problem& p :
         {ssum::generate("psix", 10000, std::nullopt, 2), ssum_test::long_no_instance(1000, 22, 1)}) {
      const choice d = choose(p, {}, ssum::backend::automatic, threads, 0, dev.probe(), false, true);
      EXPECT_EQ(d.where, ssum::backend::cuda) << d.reason;
      EXPECT_EQ(d.device_after_seconds, 0) << d.reason;
    }
    // --backend cpu with the no-instance: the bitset on 16 threads (tables beyond the caches
    // scale there), the balanced program on 2.
    const choice host = choose(ssum_test::long_no_instance(1000, 22, 1), {}, ssum::backend::cpu, threads, 0);
    // (A machine with fewer than 4 hardware threads caps a team of 16: capped_team.)
    if (ssum::detail::capped_team(threads) == threads) EXPECT_EQ(host.balanced, threads == 2) << host.reason;
  }
  fake_device dev;
  ssum::solve_options dp;
  dp.algo = ssum::algorithm::dynamic_programming;
  const choice named = choose(psix, dp, ssum::backend::cuda, 0, 0, dev.probe());
  EXPECT_EQ(named.where, ssum::backend::cuda);
  EXPECT_EQ(named.device_after_seconds, 0);
}

// The host's room is the smallest figure the report names, never more than the kernel's
// MemAvailable read here independently (with 1 GiB of slack: other processes run meanwhile).
TEST(HostMemory, TheRoomIsWithinWhatTheKernelSaysAndTheReportNamesIt) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0, available = 0;
  while (meminfo >> key >> kib) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") available = kib * 1024;
  }
  if (available == 0) GTEST_SKIP() << "no MemAvailable in /proc/meminfo";
  const std::uint64_t room = ssum::available_host_memory();
  EXPECT_GT(room, 0u);
  EXPECT_LE(room, available + (1ull << 30));
  const std::string report = ssum::host_memory_report();
  EXPECT_EQ(report.rfind("MemAvailable ", 0), 0u) << report;
  EXPECT_NE(report.find(" GiB"), std::string::npos) << report;
}

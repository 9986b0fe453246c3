// The host four-list's checkpoints (solve_options::checkpoint): a search stopped part way and
// run again with the same file gives the same verdict and count as one run without it, and
// skips what the first run finished; a file of another instance or a damaged one is refused
// and left as it was.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "checkpoint_helpers.hpp"
#include "small_instances.hpp"
#include "solver/four_list/checkpoint.hpp"
#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

namespace {

namespace fs = std::filesystem;
using ssum::int128;

fs::path scratch(const std::string& name) { return ssum_test::scratch_file("ssum_checkpoint", name); }

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

using ssum_test::many_solutions;
using ssum_test::four_list;

// Stops the search once `share` of its classes are done: the file keeps the finished units.
ssum::solution stopped_at(const ssum::problem& p, ssum::solve_options o, double share) {
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  o.on_progress = [&](const ssum::progress& pr) {
    if (pr.stage == "search" && pr.fraction >= share) cancel = true;
  };
  return ssum::solve(ssum::cpu{2}, p, o);
}

// Options that keep `file` at every finished unit, after a search of p stopped at `share` of
// its classes has left the file behind.
ssum::solve_options stopped_with_file(const ssum::problem& p, const fs::path& file, bool count, double share) {
  ssum::solve_options o = four_list(count);
  o.checkpoint = file.string();
  o.checkpoint_seconds = 0;
  EXPECT_THROW(stopped_at(p, o, share), ssum::interrupted);
  return o;
}

TEST(FourListCheckpoint, AStoppedCountContinuesToTheSameCount) {
  for (const bool zero_sum : {false, true}) {
    SCOPED_TRACE(zero_sum ? "zero-sum" : "target");
    ssum::problem p = many_solutions(40, 14, zero_sum ? 5 : 4);
    if (zero_sum) {
      for (std::size_t i = 0; i < p.weights.size(); i += 2) p.weights[i] = -p.weights[i];
      p.target.reset();
    }
    const ssum::solution whole = ssum::solve(ssum::cpu{2}, p, four_list(true));
    ASSERT_TRUE(whole.count.has_value());
    const fs::path file = scratch("count.ckpt");
    ssum::solve_options o = four_list(true);
    o.checkpoint = file.string();
    o.checkpoint_seconds = 0;  // written at every finished unit
    EXPECT_THROW(stopped_at(p, o, 0.4), ssum::interrupted);
    ASSERT_TRUE(fs::exists(file)) << "a stopped search keeps its file";
    const auto saved = ssum::detail::read_checkpoint(file.string());
    ASSERT_TRUE(saved.has_value());
    const auto finished = std::count(saved->state.done.begin(), saved->state.done.end(), true);
    EXPECT_GT(finished, 0);
    EXPECT_LT(std::size_t(finished), saved->state.done.size());
    // Run again: the first progress of the search already counts the finished units.
    double first = -1;
    o.on_progress = [&](const ssum::progress& pr) {
      if (pr.stage == "search" && first < 0 && pr.fraction > 0) first = pr.fraction;
    };
    const ssum::solution resumed = ssum::solve(ssum::cpu{1}, p, o);
    ssum_test::expect_resumed_like_whole(p, resumed, whole, first, file);
  }
}

TEST(FourListCheckpoint, AStoppedDecisionContinuesToTheSameVerdict) {
  // No solution (multiples of 3 but one, a target 2 mod 3): the whole search runs.
  const ssum::problem none = ssum_test::long_no_instance(40, 30, 7);
  const fs::path file = scratch("decision.ckpt");
  ssum::solve_options o = four_list(false);
  o.checkpoint = file.string();
  o.checkpoint_seconds = 0;
  EXPECT_THROW(stopped_at(none, o, 0.5), ssum::interrupted);
  ASSERT_TRUE(fs::exists(file));
  const ssum::solution resumed = ssum::solve(ssum::cpu{2}, none, o);
  EXPECT_EQ(resumed.status, ssum::status::infeasible);
  EXPECT_FALSE(fs::exists(file));
  // A feasible instance answers with a verified subset and removes its file.
  const ssum::problem some = many_solutions(36, 20, 9);
  const ssum::solution found = ssum::solve(ssum::cpu{2}, some, o);
  ASSERT_TRUE(found.feasible);
  EXPECT_TRUE(ssum::is_certificate(some, found.subset));
  EXPECT_FALSE(fs::exists(file));
}

TEST(FourListCheckpoint, AnotherInstancesOrADamagedFileIsRefusedAndKept) {
  const ssum::problem p = many_solutions(40, 14, 11);
  const fs::path file = scratch("refused.ckpt");
  ssum::solve_options o = stopped_with_file(p, file, true, 0.3);
  const std::string kept = contents(file);
  ASSERT_FALSE(kept.empty());
  // Another instance (one weight changed), and the same instance without the count.
  ssum::problem other = p;
  other.weights[3] += 1;
  EXPECT_THROW(ssum::solve(ssum::cpu{2}, other, o), ssum::input_error);
  ssum::solve_options decide = o;
  decide.count = false;
  EXPECT_THROW(ssum::solve(ssum::cpu{2}, p, decide), ssum::input_error);
  EXPECT_EQ(contents(file), kept);
  // One byte changed anywhere in the counts or the bitmap.
  std::string damaged = kept;
  damaged[damaged.find("done ") + 5] ^= 1;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
  try {
    ssum::solve(ssum::cpu{2}, p, o);
    FAIL() << "a damaged checkpoint was taken";
  } catch (const ssum::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
  }
  EXPECT_EQ(contents(file), damaged);
  fs::remove(file);
}

ssum::uint128 parse_count(const std::string& text) {
  ssum::uint128 v = 0;
  for (const char c : text) v = v * 10 + ssum::uint128(c - '0');
  return v;
}

// A saved state with every unit finished, holding `count` solutions and `subset`.
ssum::detail::checkpoint_state all_done(const ssum::detail::checkpoint& c, ssum::uint128 count,
                                        std::optional<std::vector<std::size_t>> subset) {
  ssum::detail::checkpoint_state state;
  state.done.assign(c.id.units, true);
  state.count = count;
  state.subset = std::move(subset);
  return state;
}

// A count resumed from a file whose finished units hold every solution answers with the
// file's subset and the whole count; a file that counts solutions without a subset (version
// 1) is searched again from the start, never answered "none".
TEST(FourListCheckpoint, ACountWhoseFinishedUnitsHoldEverySolutionIsFeasible) {
  const ssum::problem p = many_solutions(40, 14, 4);
  const ssum::solution whole = ssum::solve(ssum::cpu{2}, p, four_list(true));
  ASSERT_TRUE(whole.feasible);
  const fs::path file = scratch("all-found.ckpt");
  ssum::solve_options o = stopped_with_file(p, file, true, 0.3);
  const auto saved = ssum::detail::read_checkpoint(file.string());
  ASSERT_TRUE(saved.has_value());
  ASSERT_GT(saved->state.count, 0u) << "the instance has solutions in most units";
  ASSERT_TRUE(saved->state.subset.has_value()) << "a file that counts solutions holds one of them";
  for (const bool with_subset : {true, false}) {
    SCOPED_TRACE(with_subset ? "the file holds a subset" : "no subset (version 1)");
    ssum::detail::write_checkpoint(file.string(), saved->id,
                                   all_done(*saved, parse_count(whole.count->to_string()),
                                            with_subset ? saved->state.subset : std::nullopt));
    const ssum::solution resumed = ssum::solve(ssum::cpu{2}, p, o);
    ASSERT_EQ(resumed.status, ssum::status::feasible);
    EXPECT_TRUE(ssum::is_certificate(p, resumed.subset));
    EXPECT_EQ(resumed.count->to_string(), whole.count->to_string());
    EXPECT_FALSE(fs::exists(file));
  }
}

// A decision killed after it recorded the unit that holds its subset, before it removed its
// file: the file holds the subset, and the same command answers with it at once.
TEST(FourListCheckpoint, ADecisionWhoseFileHoldsItsSubsetAnswersWithIt) {
  const ssum::problem p = many_solutions(40, 14, 8);
  const fs::path file = scratch("decided.ckpt");
  stopped_with_file(p, file, true, 0.3);
  const auto counted = ssum::detail::read_checkpoint(file.string());
  ASSERT_TRUE(counted && counted->state.subset);
  ssum::solve_options o = four_list(false);
  o.checkpoint = file.string();
  ssum::detail::checkpoint decided = *counted;
  decided.id.counting = false;
  for (const bool with_subset : {true, false}) {
    SCOPED_TRACE(with_subset ? "the file holds a subset" : "no subset (version 1)");
    ssum::detail::write_checkpoint(file.string(), decided.id,
                                   all_done(decided, 1, with_subset ? counted->state.subset : std::nullopt));
    const ssum::solution resumed = ssum::solve(ssum::cpu{2}, p, o);
    ASSERT_EQ(resumed.status, ssum::status::feasible);
    EXPECT_TRUE(ssum::is_certificate(p, resumed.subset));
    EXPECT_FALSE(fs::exists(file));
  }
  // A subset that does not sum to the target is damage, never an answer.
  ssum::detail::checkpoint_state wrong = all_done(decided, 1, std::vector<std::size_t>{0});
  ssum::detail::write_checkpoint(file.string(), decided.id, wrong);
  try {
    (void)ssum::solve(ssum::cpu{2}, p, o);
    ADD_FAILURE() << "a wrong subset in the file was answered";
  } catch (const ssum::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
  }
  fs::remove(file);
}

// Every file a stopped search leaves that counts solutions holds a subset of them, at every
// point it may be stopped.
TEST(FourListCheckpoint, EveryFileThatCountsSolutionsHoldsOne) {
  const ssum::problem p = many_solutions(36, 16, 21);
  const fs::path file = scratch("every.ckpt");
  for (const bool count : {true, false}) {
    for (const double share : {0.0, 0.05, 0.2, 0.5, 0.9}) {
      SCOPED_TRACE(std::string(count ? "count" : "decision") + " stopped at " + std::to_string(share));
      ssum::solve_options o = four_list(count);
      o.checkpoint = file.string();
      o.checkpoint_seconds = 0;
      try {
        (void)stopped_at(p, o, share);
      } catch (const ssum::interrupted&) {
      }
      const auto saved = ssum::detail::read_checkpoint(file.string());
      if (!saved) continue;  // the answer came first: the file was removed
      EXPECT_TRUE(saved->state.count == 0 || saved->state.subset.has_value());
      const ssum::solution resumed = ssum::solve(ssum::cpu{2}, p, o);
      EXPECT_EQ(resumed.status, ssum::status::feasible);
      EXPECT_TRUE(ssum::is_certificate(p, resumed.subset));
      fs::remove(file);
    }
  }
}

// Other plans say in their reason that they keep no checkpoint.
TEST(FourListCheckpoint, OtherPlansSayTheyRunInOnePiece) {
  const ssum::problem p = many_solutions(30, 20, 3);
  ssum::solve_options o;
  o.checkpoint = scratch("unused.ckpt").string();
  const ssum::solution s = ssum::solve(ssum::cpu{2}, p, o);
  EXPECT_EQ(s.algorithm, "two-list");
  EXPECT_NE(s.plan.reason.find("no checkpoint"), std::string::npos) << s.plan.reason;
  EXPECT_FALSE(fs::exists(o.checkpoint));
}

}  // namespace

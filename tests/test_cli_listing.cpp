// `ssum solve --all / --limit / --unique`, windows and numbers of items, as a user runs them:
// the subsets printed against brute force over every subset (the same set, no duplicate, none
// missing), the three answers of --unique, the summary line and object, exit statuses, and
// hostile combinations refused with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using namespace ssum_test;
using subset_set = std::set<std::vector<std::size_t>>;

struct instance {
  std::vector<long long> weights;
  std::optional<long long> target;
};

std::string text_of(const instance& in) {
  std::string s = in.target ? "target: " + std::to_string(*in.target) + "\n" : "target: none\n";
  for (const long long w : in.weights) s += std::to_string(w) + " ";
  return s + "\n";
}

// Every subset with lo <= sum <= hi and a size in [a, b] (zero-sum: non-empty, sum 0).
subset_set brute_force(const instance& in, long long lo, long long hi, std::size_t a, std::size_t b) {
  subset_set all;
  const std::size_t n = in.weights.size();
  for (std::uint64_t mask = 0; mask < (std::uint64_t(1) << n); ++mask) {
    long long sum = 0;
    std::vector<std::size_t> s;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask >> i & 1) sum += in.weights[i], s.push_back(i);
    }
    if (!in.target && s.empty()) continue;
    if (sum >= lo && sum <= hi && s.size() >= a && s.size() <= b) all.insert(s);
  }
  return all;
}

// The subsets of a --json listing (JSON Lines) and its summary (the last line).
std::pair<std::vector<std::vector<std::size_t>>, nlohmann::json> parse_lines(const std::string& out) {
  std::vector<std::vector<std::size_t>> subsets;
  nlohmann::json summary;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("listed")) summary = j;
    else subsets.push_back(j.at("subset").get<std::vector<std::size_t>>());
  }
  return {subsets, summary};
}

instance random_instance(std::mt19937_64& rng, bool zero_sum) {
  instance in;
  const std::size_t n = rng() % 15;
  const long long range = rng() % 3 == 0 ? 3 : rng() % 2 ? 20 : 1000;
  for (std::size_t i = 0; i < n; ++i) in.weights.push_back(static_cast<long long>(rng() % (2 * range + 1)) - (rng() % 3 ? 0 : range));
  if (!zero_sum) {
    long long t = 0;
    for (const long long w : in.weights) t += rng() % 2 ? w : 0;
    in.target = t + (rng() % 4 == 0 ? static_cast<long long>(rng() % 7) - 3 : 0);
  }
  return in;
}

TEST(CliListing, AllMatchesBruteForceWithWindowsAndSizes) {
  std::mt19937_64 rng(47);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const bool zero_sum = trial % 5 == 0;
    const instance in = random_instance(rng, zero_sum);
    const std::size_t n = in.weights.size();
    // Each enumerator in turn: the plan's choice, then each one named.
    const char* algorithms[4] = {"auto", "two-list", "four-list", "dp"};
    std::string flags = std::string("--all --json --algorithm ") + algorithms[trial % 4];
    long long lo = in.target.value_or(0), hi = lo;
    std::size_t a = 0, b = n;
    if (!zero_sum && trial % 3 == 1) {
      const long long d = static_cast<long long>(rng() % 5);
      flags += " --tolerance " + std::to_string(d);
      lo -= d, hi += d;
    }
    if (trial % 3 == 2) {
      a = b = rng() % (n + 1);
      flags += " --items " + std::to_string(a);
    } else if (trial % 3 == 0 && trial % 2) {
      a = rng() % (n + 1), b = a + rng() % (n + 1 - a);
      flags += " --min-items " + std::to_string(a) + " --max-items " + std::to_string(b);
    }
    SCOPED_TRACE(text_of(in) + flags);
    const auto r = run("solve " + flags + " -", text_of(in));
    const subset_set want = brute_force(in, lo, hi, a, b);
    ASSERT_EQ(r.code, want.empty() ? 1 : 0) << r.err;
    const auto [got, summary] = parse_lines(r.out);
    const subset_set got_set(got.begin(), got.end());
    EXPECT_EQ(got_set.size(), got.size()) << "a subset was listed twice";
    EXPECT_EQ(got_set, want);
    EXPECT_EQ(summary.at("listed"), want.size());
    EXPECT_TRUE(summary.at("complete").get<bool>());
    ++checked;
  }
  EXPECT_EQ(checked, 60);
}

TEST(CliListing, TargetRangeAndLimitAndText) {
  const instance in{{3, 5, 7, 2, 8, 1, 4}, 0};
  const subset_set want = brute_force(in, 9, 12, 0, 7);
  const auto all = run("solve --json --all --target-range 9 12 -", text_of(in));
  ASSERT_EQ(all.code, 0) << all.err;
  const auto [got, summary] = parse_lines(all.out);
  EXPECT_EQ(subset_set(got.begin(), got.end()), want);
  // --limit: exactly that many, each in the window, distinct; complete false.
  const auto some = run("solve --json --limit 3 --target-range 9 12 -", text_of(in));
  ASSERT_EQ(some.code, 0) << some.err;
  const auto [first, part] = parse_lines(some.out);
  EXPECT_EQ(first.size(), 3u);
  for (const auto& s : first) EXPECT_TRUE(want.count(s)) << "not in the window";
  EXPECT_FALSE(part.at("complete").get<bool>());
  EXPECT_EQ(part.at("status"), "limit");
  // Text: one subset a line, a '#' summary last.
  const auto text = run("solve --all --target-range 9 12 -", text_of(in));
  ASSERT_EQ(text.code, 0);
  EXPECT_EQ(count_lines(text.out), want.size() + 1);
  EXPECT_NE(text.out.rfind("\n# " + std::to_string(want.size()) + " subsets"), std::string::npos) << text.out;
  // An empty window and one past the total: nothing, exit 1, complete.
  for (const std::string window : {"100 200", "-50 -1"}) {
    const auto none = run("solve --json --all --target-range " + window + " -", text_of(in));
    EXPECT_EQ(none.code, 1) << none.err;
    EXPECT_EQ(parse_lines(none.out).second.at("listed"), 0);
  }
}

TEST(CliListing, UniqueSaysNoneUniqueOrSeveral) {
  const struct {
    instance in;
    const char* want;
    int code;
  } cases[] = {{{{2, 4, 6}, 5}, "none", 1}, {{{1, 2, 4, 8}, 11}, "unique", 0}, {{{1, 2, 3, 4}, 5}, "several", 0},
               {{{5, -5, 3}, std::nullopt}, "unique", 0}, {{{0, 0, 7}, 7}, "several", 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(text_of(c.in));
    const auto r = run("solve --json --unique -", text_of(c.in));
    ASSERT_EQ(r.code, c.code) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("unique"), c.want);
    const subset_set all = brute_force(c.in, c.in.target.value_or(0), c.in.target.value_or(0), 0, 99);
    for (const auto& s : j.at("subsets")) EXPECT_TRUE(all.count(s.get<std::vector<std::size_t>>()));
    EXPECT_EQ(j.at("subsets").size(), std::min<std::size_t>(all.size(), 2));
  }
  const auto text = run("solve --unique -", text_of({{1, 2, 3, 4}, 5}));
  EXPECT_EQ(text.out.rfind("several: at least two subsets", 0), 0u) << text.out;
}

TEST(CliListing, CountAndDecisionOverAWindowOrSize) {
  const instance in{{3, 5, 7, 2, 8, 1, 4, 6, 9}, 15};
  const auto count = run("solve --json --count --items 3 -", text_of(in));
  ASSERT_EQ(count.code, 0) << count.err;
  EXPECT_EQ(nlohmann::json::parse(count.out).at("count"), std::to_string(brute_force(in, 15, 15, 3, 3).size()));
  const auto first = run("solve --json --items 2 -", text_of(in));
  ASSERT_EQ(first.code, 0) << first.err;
  const auto subset = nlohmann::json::parse(first.out).at("subset").get<std::vector<std::size_t>>();
  EXPECT_TRUE(brute_force(in, 15, 15, 2, 2).count(subset));
  const auto none = run("solve --json --items 1 -", text_of(in));
  EXPECT_EQ(none.code, 1) << none.out;
  EXPECT_FALSE(nlohmann::json::parse(none.out).at("feasible").get<bool>());
}

TEST(CliListing, HostileCombinationsAreRefusedWithOneLine) {
  const std::string in = text_of({{1, 2, 3}, 3});
  for (const std::string flags :
       {"--unique --all", "--unique --limit 2", "--count --all", "--limit 0", "--limit -1", "--limit x",
        "--items 2 --min-items 1", "--min-items 3 --max-items 2", "--items -1", "--target-range 5 4",
        "--target-range 1 x", "--target-range 1 2 --target 3", "--tolerance -1", "--all --checkpoint ck",
        "--all --algorithm completion", "--all --backend cuda --algorithm dp"}) {
    const auto r = run("solve " + flags + " -", in);
    EXPECT_GE(r.code, 2) << flags << ": " << r.out;
    EXPECT_LE(r.code, 3) << flags;
    EXPECT_EQ(count_lines(r.err), 1u) << flags << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << flags << ": " << r.out;
  }
  // A zero-sum instance takes no window around a target.
  const auto zero = run("solve --all --tolerance 1 -", text_of({{1, -1, 2}, std::nullopt}));
  EXPECT_EQ(zero.code, 2) << zero.err;
}

TEST(CliListing, ItemsNearNAreTheComplementsOfFew) {
  std::mt19937_64 rng(53);
  for (int trial = 0; trial < 8; ++trial) {
    instance in;
    const std::size_t n = 10 + std::size_t(trial);
    long long total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      in.weights.push_back(static_cast<long long>(rng() % 2000) - (trial % 2 ? 700 : 0));
      total += in.weights.back();
    }
    in.target = total - in.weights[rng() % n] - in.weights[rng() % n];
    const std::size_t a = trial % 4 < 2 ? n - 2 : n - 3, b = trial % 4 < 2 ? n - 2 : n;
    // The meet in the middle named: at these n the four-list's one target may be sooner.
    const bool named = trial % 2 == 0;
    const std::string flags = (trial % 4 < 2 ? "--items " + std::to_string(a)
                                             : "--min-items " + std::to_string(a) + " --tolerance 30") +
                              (named ? " --algorithm two-list" : "");
    const long long lo = *in.target - (trial % 4 < 2 ? 0 : 30), hi = *in.target + (trial % 4 < 2 ? 0 : 30);
    SCOPED_TRACE(text_of(in) + flags);
    const auto r = run("solve --all --json " + flags + " -", text_of(in));
    const subset_set want = brute_force(in, lo, hi, a, b);
    ASSERT_EQ(r.code, want.empty() ? 1 : 0) << r.err;
    const auto [got, summary] = parse_lines(r.out);
    EXPECT_EQ(subset_set(got.begin(), got.end()), want);
    EXPECT_EQ(got.size(), want.size());
    if (named) EXPECT_NE(summary.dump().find("complement was taken"), std::string::npos) << summary.dump();
  }
}

TEST(CliListing, RefusalPastEveryEnumeratorNamesNoSize) {
  const auto gen = run("gen random -n 121 --seed 1");
  ASSERT_EQ(gen.code, 0) << gen.err;
  const auto r = run("solve --all -", gen.out);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.find("needs"), std::string::npos) << r.err;  // no plan was made: no size
  EXPECT_NE(r.err.find("at most 60 items"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most 120 items"), std::string::npos) << r.err;
  // A few items of them (or all but a few) are walked through instead.
  for (const char* items : {"3", "118"}) {
    const auto few = run(std::string("solve --json --items ") + items + " -", gen.out);
    EXPECT_EQ(few.code, 1) << few.err;  // no 3 of these weights sum to the target
    EXPECT_EQ(nlohmann::json::parse(few.out).at("algorithm"), "few-items") << few.out;
  }
}

}  // namespace

// A window finer than the amounts is read at its own scale: around integer amounts,
// --tolerance 0.5 and --target-range 4.5 5.5 hold the sums of exactly 5, a window between two
// integers holds none (exit 1), and --tolerance 1.5 the sums 4 to 6.
TEST(CliListing, WindowsFinerThanTheAmounts) {
  const instance targeted{{1, 2, 3, 4, 5, 2}, 5}, untargeted{targeted.weights, std::nullopt};
  struct window {
    std::string flags;
    long long lo, hi;  // lo > hi: no sum in the window
  };
  for (const window& w : {window{"--tolerance 0.5", 5, 5}, window{"--target-range 4.5 5.5", 5, 5},
                          window{"--target-range 4.2 4.8", 1, 0}, window{"--tolerance 1.5", 4, 6},
                          window{"--tolerance 0.05", 5, 5}}) {
    SCOPED_TRACE(w.flags);
    const bool ranged = w.flags.find("--target-range") != std::string::npos;
    const auto r = run("solve --all --json " + w.flags + " -", text_of(ranged ? untargeted : targeted));
    const subset_set want =
        w.lo <= w.hi ? brute_force(targeted, w.lo, w.hi, 0, targeted.weights.size()) : subset_set{};
    ASSERT_EQ(r.code, want.empty() ? 1 : 0) << r.err;
    const auto [got, summary] = parse_lines(r.out);
    EXPECT_EQ(subset_set(got.begin(), got.end()), want);
    EXPECT_TRUE(summary.at("complete").get<bool>());
  }
}

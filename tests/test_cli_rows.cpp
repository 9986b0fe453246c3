// `ssum solve` on several rows (market split) as a user runs it: a QOBLIB .dat file, JSON rows,
// standard input with --format rows; decisions, counts and listings checked row by row here;
// rows past 127 bits; the flags that do not apply and malformed files refused with one line.
#include <gtest/gtest.h>

#include <random>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "ssum/int128.hpp"

namespace {

using namespace ssum_test;

struct rows_instance {
  std::vector<std::vector<long long>> rows;
  std::vector<long long> targets;
};

std::string dat_of(const rows_instance& in) {
  std::string s = std::to_string(in.rows.size()) + " " + std::to_string(in.rows[0].size()) + "\n";
  for (std::size_t i = 0; i < in.rows.size(); ++i) {
    for (const long long a : in.rows[i]) s += std::to_string(a) + " ";
    s += std::to_string(in.targets[i]) + "\n";
  }
  return s;
}

bool meets_every_row(const rows_instance& in, const std::vector<std::size_t>& subset) {
  for (std::size_t i = 0; i < in.rows.size(); ++i) {
    long long sum = 0;
    for (const std::size_t j : subset) sum += in.rows[i].at(j);
    if (sum != in.targets[i]) return false;
  }
  return true;
}

// Every subset meeting every row, by brute force.
std::size_t solutions(const rows_instance& in) {
  const std::size_t n = in.rows[0].size();
  std::size_t count = 0;
  for (std::uint32_t mask = 0; mask < (std::uint32_t{1} << n); ++mask) {
    std::vector<std::size_t> subset;
    for (std::size_t j = 0; j < n; ++j)
      if (mask >> j & 1) subset.push_back(j);
    count += meets_every_row(in, subset);
  }
  return count;
}

// Three rows over twelve columns with duplicates: several solutions.
const rows_instance small = {{{3, 5, 5, 7, 2, 9, 4, 4, 6, 1, 8, 3},
                              {1, 2, 2, 0, 5, 1, 3, 3, 2, 4, 0, 1},
                              {7, 1, 1, 2, 2, 3, 5, 5, 1, 0, 2, 6}},
                             {13, 10, 13}};  // columns {0, 1, 6, 9}, and 2 for 1, 7 for 6

TEST(CliRows, DatFileJsonRowsAndStandardInput) {
  const std::size_t want = solutions(small);
  ASSERT_GE(want, 2u);
  const auto dat = write_file("rows_small.dat", dat_of(small));
  auto r = run("solve --json " + dat.string());
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("rows"), 3);
  EXPECT_EQ(j.at("method"), "fold");
  EXPECT_TRUE(meets_every_row(small, j.at("subset").get<std::vector<std::size_t>>()));

  nlohmann::json rows_json = {{"rows", small.rows}, {"targets", small.targets}};
  const auto json_file = write_file("rows_small.json", rows_json.dump());
  r = run("solve --count --json " + json_file.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("count"), std::to_string(want));

  r = run("solve --format rows --all -", dat_of(small));
  ASSERT_EQ(r.code, 0) << r.err;
  std::size_t listed = 0;
  std::size_t at = 0;
  for (std::size_t end; (end = r.out.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = r.out.substr(at, end - at);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::size_t> subset;
    std::size_t pos = 0;
    while (pos < line.size()) {
      std::size_t used = 0;
      subset.push_back(std::stoul(line.substr(pos), &used));
      pos += used;
    }
    EXPECT_TRUE(meets_every_row(small, subset)) << line;
    ++listed;
  }
  EXPECT_EQ(listed, want);
  EXPECT_NE(r.out.find("the targets of all 3 rows"), std::string::npos) << r.out;

  // The JSON summary shows the rows' own targets, not the one sum they were folded into.
  r = run("solve --all --json " + dat.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1));
  EXPECT_EQ(summary.at("listed"), want);
  EXPECT_EQ(summary.at("rows"), 3);
  EXPECT_EQ(summary.at("targets"), nlohmann::json(small.targets)) << summary.dump();
  EXPECT_TRUE(summary.at("target").is_null()) << summary.dump();

  r = run("solve --unique " + dat.string());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("several", 0), 0u) << r.out;
}

TEST(CliRows, NoSolutionAndTargetsOutOfReach) {
  rows_instance none = small;
  none.targets[0] += 1000;  // past the row's total: the bounds settle it
  auto r = run("solve --format rows -", dat_of(none));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.out.rfind("infeasible", 0), 0u) << r.out;
  none = small;
  none.targets[2] += 1;  // within reach, but (brute force says) met by fewer subsets or none
  const std::size_t want = solutions(none);
  r = run("solve --count --json --format rows -", dat_of(none));
  EXPECT_EQ(r.code, want ? 0 : 1) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("count"), std::to_string(want));
}

TEST(CliRows, RowsPastOneSumAreFoldedInPart) {
  // Six rows of coefficients near 2^26 over 14 columns: 6 x 30 bits, past one sum's 127.
  rows_instance wide;
  std::uint64_t x = 88172645463325252ull;
  const auto next = [&x] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
  for (int i = 0; i < 6; ++i) {
    wide.rows.emplace_back();
    long long t = 0;
    for (int j = 0; j < 14; ++j) {
      wide.rows.back().push_back(static_cast<long long>((1 << 25) + next() % (1 << 25)));
      if (j % 3 == 0) t += wide.rows.back().back();
    }
    wide.targets.push_back(t);
  }
  auto r = run("solve --json --count --format rows -", dat_of(wide));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("method"), "fold and check");
  EXPECT_GT(j.at("encoding_bits").get<int>(), 127);
  EXPECT_EQ(j.at("count"), std::to_string(solutions(wide)));
  EXPECT_TRUE(meets_every_row(wide, j.at("subset").get<std::vector<std::size_t>>()));
  // A listing needs the whole fold.
  r = run("solve --all --format rows -", dat_of(wide));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
}

TEST(CliRows, FlagsThatDoNotApplyAndMalformedFilesAreRefusedWithOneLine) {
  const auto dat = write_file("rows_flags.dat", dat_of(small));
  for (const std::string flags : {"--target 5", "--tolerance 1", "--target-range 1 2", "--column 1"}) {
    const auto r = run("solve " + flags + " " + dat.string());
    EXPECT_EQ(r.code, 2) << flags;
    EXPECT_EQ(count_lines(r.err), 1u) << flags << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << flags;
  }
  for (const std::string text : {"2 3\n1 2 3 4\n", "2 3\n1 2 3 4\n1 2 3\n", "x 3\n", "1 2\n1 2.5 3\n", ""}) {
    const auto r = run("solve --format rows -", text);
    EXPECT_EQ(r.code, 2) << text;
    EXPECT_EQ(count_lines(r.err), 1u) << text << ": " << r.err;
  }
  const auto r = run("solve --format matrix " + dat.string());
  EXPECT_EQ(r.code, 2);
}

// Rows of small coefficients under auto: any width (130 columns, past the four-list's 120)
// and counts of many columns go to the dynamic program, answered at once; the count is
// checked against a table over both rows' sums (128-bit counts, here up to 2^100).
TEST(CliRows, WideAndSmallRowsAreAnsweredUnderAuto) {
  std::mt19937_64 rng(130);
  for (const std::size_t n : {std::size_t(130), std::size_t(100)}) {
    rows_instance in;
    in.rows.assign(2, std::vector<long long>(n));
    for (auto& row : in.rows) {
      for (long long& a : row) a = static_cast<long long>(rng() % 4);
    }
    for (const auto& row : in.rows) {
      long long t = 0;
      for (std::size_t j = 0; j < n; j += 2) t += row[j];  // every other column: a solution
      in.targets.push_back(t);
    }
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto dat = write_file("rows_wide_" + std::to_string(n) + ".dat", dat_of(in));
    // The dynamic program counts through GMP: without it, the decision alone.
    const auto r = run(std::string("solve --json ") + (SSUM_TESTS_HAVE_GMP ? "--count " : "") + dat.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("algorithm"), "dp") << r.out;
    EXPECT_TRUE(meets_every_row(in, j.at("subset").get<std::vector<std::size_t>>()));
    if (!SSUM_TESTS_HAVE_GMP) continue;
    // Subsets by their two sums, column by column.
    const long long top = 3 * static_cast<long long>(n);
    std::vector<unsigned __int128> ways(std::size_t((top + 1) * (top + 1)), 0);
    ways[0] = 1;
    for (std::size_t c = 0; c < n; ++c) {
      const long long a = in.rows[0][c], b = in.rows[1][c];
      for (long long x = top; x >= a; --x) {
        for (long long y = top; y >= b; --y) ways[std::size_t(x * (top + 1) + y)] += ways[std::size_t((x - a) * (top + 1) + y - b)];
      }
    }
    const unsigned __int128 want = ways[std::size_t(in.targets[0] * (top + 1) + in.targets[1])];
    EXPECT_EQ(j.at("count").get<std::string>(), ssum::to_string(ssum::int128(want)));
  }
}

}  // namespace

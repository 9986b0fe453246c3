// `ssum solve` on inputs a hostile user tries: counts with zero weights, counts that a table
// answers at once, limits beyond the clock, empty instances, and the fields of answers that no
// algorithm gave. Counts are checked against references in the test (brute force, Pascal's
// triangle, a Bellman count in 128 bits), every subset against the input.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace {

using namespace ssum_test;
using ssum::int128;
using ssum::uint128;

std::string text_of(const std::vector<std::int64_t>& w, const std::optional<std::int64_t>& target) {
  std::string s = target ? "target: " + std::to_string(*target) + "\n" : std::string();
  for (const std::int64_t x : w) s += std::to_string(x) + "\n";
  return s;
}

// The subsets of w summing to t (zero-sum when t is empty: non-empty subsets summing to 0).
uint128 brute_count(const std::vector<std::int64_t>& w, const std::optional<std::int64_t>& t) {
  uint128 count = 0;
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << w.size()); ++mask) {
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (mask >> i & 1) sum += w[i];
    }
    if (sum == t.value_or(0) && (t || mask != 0)) ++count;
  }
  return count;
}

// A count in 128 bits of the subsets of non-negative weights summing to t (Bellman's recurrence).
uint128 bellman_count(const std::vector<std::int64_t>& w, std::int64_t t) {
  std::vector<uint128> c(std::size_t(t) + 1, 0);
  c[0] = 1;
  for (const std::int64_t x : w) {
    for (std::int64_t s = t; s >= x; --s) c[std::size_t(s)] += c[std::size_t(s - x)];
  }
  return c[std::size_t(t)];
}

uint128 binomial(unsigned n, unsigned k) {
  std::vector<uint128> row(n + 1, 0);
  row[0] = 1;
  for (unsigned i = 1; i <= n; ++i) {
    for (unsigned j = i; j > 0; --j) row[j] += row[j - 1];
  }
  return row[k];
}

std::string decimal(uint128 v) { return ssum::to_string(int128(v)); }

nlohmann::json solved(const std::string& args, const std::string& input, int expected_code) {
  const run_result r = run("solve --json " + args, input);
  EXPECT_EQ(r.code, expected_code) << args << ": " << r.err;
  if (r.code != 0 && r.code != 1 && r.code != 5) return nullptr;
  return nlohmann::json::parse(r.out);
}

void expect_certificate(const nlohmann::json& out, const std::vector<std::int64_t>& w, std::optional<std::int64_t> t) {
  ASSERT_TRUE(out.at("feasible").get<bool>());
  int128 sum = 0;
  const auto subset = out.at("subset").get<std::vector<std::size_t>>();
  for (const std::size_t i : subset) sum += w.at(i);
  EXPECT_EQ(sum, int128(t.value_or(0)));
  if (!t) EXPECT_FALSE(subset.empty());
}

// The completion search cannot count, whatever the reductions leave: the same refusal with
// zero weights (the plan is never made for them), with a target and zero-sum, and when the
// reductions settle the instance.
TEST(CliHostileInputs, TheCompletionSearchRefusesToCountWithZeroWeights) {
  std::vector<std::int64_t> zero_and_threes{0};
  zero_and_threes.insert(zero_and_threes.end(), 60, 3);
  std::vector<std::vector<std::int64_t>> shapes{zero_and_threes};
  std::mt19937_64 rng(37);
  for (int k = 0; k < 6; ++k) {
    std::vector<std::int64_t> w(50);
    for (std::int64_t& x : w) x = std::int64_t(rng() % 17) - 8;
    w[std::size_t(rng() % 50)] = 0;
    shapes.push_back(w);
  }
  for (const auto& w : shapes) {
    for (const std::optional<std::int64_t> t : {std::optional<std::int64_t>(), std::optional<std::int64_t>(6)}) {
      const run_result r = run("solve --algorithm completion --count", text_of(w, t));
      EXPECT_EQ(r.code, 2) << r.err;
      EXPECT_EQ(r.err, "ssum: the completion search finds one subset; it cannot count\n");
    }
  }
}

// A time limit beyond what the clock can count to is no limit: the solve answers.
TEST(CliHostileInputs, ATimeLimitBeyondTheClockIsNoLimit) {
  const std::string instance = run("gen random -n 40 --seed 5").out;
  for (const char* limit : {"1e11", "9.3e9", "1e300"}) {
    const nlohmann::json out = solved(std::string("--backend cpu --time-limit ") + limit, instance, 1);
    ASSERT_FALSE(out.is_null()) << limit;
    EXPECT_EQ(out.at("status"), "infeasible") << limit;
  }
}

// --count under auto takes the counting table where it is cheap, not a meet-in-the-middle over
// 2^50 sums: 100 ones (C(100, 50)), the same behind 1,400 items that the heavy-item reduction
// removes, pthree, and small random weights at n = 60..120. Each answered within a limit far
// below what a meet-in-the-middle would need.
TEST(CliHostileInputs, AutomaticCountsTakeTheTableWhereItIsCheap) {
#if !SSUM_TESTS_HAVE_GMP
  GTEST_SKIP() << "this build has no GMP: the dynamic program does not count";
#endif
  const std::vector<std::int64_t> ones(100, 1);
  nlohmann::json out = solved("--count --memory 2G --time-limit 60", text_of(ones, 50), 0);
  ASSERT_FALSE(out.is_null());
  EXPECT_EQ(out.at("count"), decimal(binomial(100, 50)));
  EXPECT_EQ(out.at("algorithm"), "dp");
  expect_certificate(out, ones, 50);

  std::vector<std::int64_t> behind_heavy = ones;
  behind_heavy.insert(behind_heavy.end(), 1400, 1000);
  out = solved("--count --time-limit 60", text_of(behind_heavy, 50), 0);
  ASSERT_FALSE(out.is_null());
  EXPECT_EQ(out.at("count"), decimal(binomial(100, 50)));

  const ssum::problem pthree = ssum::parse_problem(run("gen pthree -n 100 --seed 2").out);
  std::vector<std::int64_t> w;
  for (const int128 x : pthree.weights) w.push_back(std::int64_t(x));
  out = solved("--count --time-limit 60", text_of(w, std::int64_t(*pthree.target)), 0);
  ASSERT_FALSE(out.is_null());
  EXPECT_EQ(out.at("count"), decimal(bellman_count(w, std::int64_t(*pthree.target))));

  std::mt19937_64 rng(39);
  for (const std::size_t n : {60, 77, 96, 120}) {
    std::vector<std::int64_t> small(n);
    std::int64_t total = 0;
    for (std::int64_t& x : small) x = 1 + std::int64_t(rng() % 12), total += x;
    const std::int64_t t = total / 3;
    out = solved("--count --time-limit 60", text_of(small, t), 0);
    ASSERT_FALSE(out.is_null()) << n;
    EXPECT_EQ(out.at("count"), decimal(bellman_count(small, t))) << n;
    expect_certificate(out, small, t);
  }
}

// The meet-in-the-middle count sets zero weights aside and multiplies them back in (2^z, and
// zero-sum (c + 1) 2^z - 1): 20 weights of 40 bits and 40 zeros need lists of 2^10 sums, not
// 2^30. Checked against brute force over the nonzero weights.
TEST(CliHostileInputs, MeetInTheMiddleCountsSetZeroWeightsAside) {
  std::mt19937_64 rng(41);
  for (const char* algorithm : {"two-list", "four-list"}) {
    for (const bool zero_sum : {false, true}) {
      std::vector<std::int64_t> nonzero(20);
      for (std::int64_t& x : nonzero) {
        x = std::int64_t(1 + rng() % ((std::uint64_t{1} << 40) - 1));
        if (zero_sum && rng() % 2) x = -x;
      }
      if (zero_sum) nonzero[19] = -(nonzero[0] + nonzero[1]);  // at least one solution
      std::optional<std::int64_t> t;
      if (!zero_sum) t = nonzero[2] + nonzero[5] + nonzero[11];
      std::vector<std::int64_t> w = nonzero;
      w.insert(w.end(), 40, 0);
      std::shuffle(w.begin(), w.end(), rng);
      const uint128 c = brute_count(nonzero, t);
      const uint128 expected = zero_sum ? ((c + 1) << 40) - 1 : c << 40;
      const nlohmann::json out =
          solved(std::string("--count --memory 4G --algorithm ") + algorithm, text_of(w, t), 0);
      ASSERT_FALSE(out.is_null()) << algorithm;
      EXPECT_EQ(out.at("count"), decimal(expected)) << algorithm << (zero_sum ? " zero-sum" : "");
      EXPECT_EQ(out.at("algorithm"), algorithm);
      expect_certificate(out, w, t);
    }
  }
  // Zero-sum, the nonzero weights with no solution of their own: a zero weight is the subset,
  // and the count is the zero weights' own 2^z - 1.
  const std::vector<std::int64_t> w{5, 0, 9, -3, 0, 0};
  const nlohmann::json out = solved("--count --algorithm two-list", text_of(w, std::nullopt), 0);
  ASSERT_FALSE(out.is_null());
  EXPECT_EQ(out.at("count"), "7");
  expect_certificate(out, w, std::nullopt);
}

// An explicit zero-sum instance of no weights is infeasible (exit 1): what `gen zero-sum -n 0`
// prints, `target: none`, and JSON's empty weight list. Input with nothing in it stays bad input.
TEST(CliHostileInputs, TheEmptyZeroSumInstanceIsInfeasible) {
  const run_result gen = run("gen zero-sum -n 0");
  ASSERT_EQ(gen.code, 0);
  for (const std::string& input : {gen.out, std::string("target: none\n"), std::string("{\"weights\": [], \"target\": null}"),
                                   std::string("{\"weights\": []}")}) {
    const nlohmann::json out = solved("", input, 1);
    ASSERT_FALSE(out.is_null()) << input;
    EXPECT_EQ(out.at("status"), "infeasible") << input;
    EXPECT_EQ(out.at("zero_sum"), true) << input;
  }
  // With a target of 0 the empty subset answers.
  const nlohmann::json out = solved("", "{\"weights\": [], \"target\": 0}", 0);
  EXPECT_EQ(out.at("subset").size(), 0u);
  for (const std::string& input : {std::string(), std::string("# nothing\n"), std::string("{\"target\": 3}")}) {
    EXPECT_EQ(run("solve", input).code, 2) << input;
  }
  // `target: none` with weights is zero-sum, and the instance it prints reads back the same.
  const nlohmann::json some = solved("", "target: none\n4 -7 3\n", 0);
  EXPECT_EQ(some.at("zero_sum"), true);
  EXPECT_EQ(some.at("subset"), nlohmann::json::array({0, 1, 2}));
}

// Fields name what happened: an unknown answer lists the reductions that ran, the threads and
// the planned bytes; instances the reductions settle say "reductions", not an algorithm that
// never ran; no reason ends in an empty list; a table beyond every plan says its size.
TEST(CliHostileInputs, FieldsSayWhatHappened) {
  // n = 54 with a complement to take: 2^27-sum lists, far more than 0.2 s on any machine here.
  const std::string big = run("gen random -n 54 --seed 3").out;
  const nlohmann::json unknown = solved("--backend cpu --threads 2 --time-limit 0.2", big, 5);
  ASSERT_FALSE(unknown.is_null());
  EXPECT_EQ(unknown.at("status"), "unknown");
  EXPECT_FALSE(unknown.at("reductions").empty());
  EXPECT_EQ(unknown.at("threads"), 2);
  EXPECT_GT(unknown.at("memory").at("planned_bytes").get<double>(), 0);
  EXPECT_EQ(unknown.at("algorithm"), unknown.at("plan").at("algorithm"));

  for (const char* cls : {"avis", "evenodd"}) {
    const nlohmann::json out = solved("", run(std::string("gen ") + cls + " -n 100").out, 1);
    ASSERT_FALSE(out.is_null()) << cls;
    EXPECT_EQ(out.at("algorithm"), "reductions") << cls;
    EXPECT_EQ(out.at("plan").at("algorithm"), "reductions") << cls;
    EXPECT_FALSE(out.at("reductions").empty()) << cls;
  }
  for (const std::string& input : {std::string("target: 0\n0 0\n"), std::string("target: 5\n0\n"),
                                   std::string("target: none\n")}) {
    const run_result r = run("solve --json", input);
    const auto out = nlohmann::json::parse(r.out);
    const std::string reason = out.at("plan").at("reason");
    EXPECT_NE(reason.substr(reason.size() - 2), ": ") << reason;
    EXPECT_EQ(out.at("algorithm"), "reductions") << input;
  }
  // T = 2^58 for the named dynamic program: its table's own size (2^55 bytes = 32 PiB).
  const run_result r = run("solve --algorithm dp", "target: 288230376151711744\n288230376151711743 288230376151711745 1\n");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.err.find("2^64"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("32.0 PiB"), std::string::npos) << r.err;
}

// Exit 2 with one line on stderr that names `line`.
::testing::AssertionResult refused_at(const run_result& r, std::size_t line, const std::string& says) {
  if (r.code != 2) return ::testing::AssertionFailure() << "exit " << r.code << ": " << r.out << r.err;
  if (r.err.find('\n') != r.err.size() - 1) return ::testing::AssertionFailure() << "not one line: " << r.err;
  if (r.err.find("line " + std::to_string(line) + ": ") == std::string::npos) {
    return ::testing::AssertionFailure() << "no line " << line << ": " << r.err;
  }
  if (r.err.find(says) == std::string::npos) return ::testing::AssertionFailure() << "lacks '" << says << "': " << r.err;
  return ::testing::AssertionSuccess();
}

// An unquoted thousands separator splits an amount in two CSV fields; the record's field count
// gives it away, with a header or without one, rather than its first part being read.
TEST(CliHostileInputs, CsvRecordsKeepTheFirstRecordsFieldCount) {
  const fs::path two = write_file("thousands.csv", "invoice,amount\nA-1,1,234.56\nA-2,100.00\nA-3,1.00\n");
  EXPECT_TRUE(refused_at(run("solve " + two.string() + " --column amount --target 101.00 --all"), 2,
                         "the record has 3 fields, the header (line 1) 2 fields"));
  const fs::path one = write_file("onecol.csv", "amount\n1,234.56\n100.00\n");
  EXPECT_TRUE(refused_at(run("solve " + one.string() + " --column amount --target 101.00"), 2, "2 fields"));
  EXPECT_TRUE(refused_at(run("solve " + one.string() + " --column 1 --target 101.00"), 2, "2 fields"));
  const fs::path eu = write_file("eu.csv", "amount\n1.000,50\n");
  EXPECT_TRUE(refused_at(run("solve " + eu.string() + " --column amount"), 2, "2 fields"));
  const fs::path bare = write_file("bare.csv", "100.00\n1,234.56\n");
  EXPECT_TRUE(refused_at(run("solve " + bare.string() + " --column 1"), 2, "the first record (line 1) 1 field"));
  // Quoted, the comma is the amount's: refused as a thousands separator, by name.
  const fs::path quoted = write_file("quoted.csv", "invoice,amount\nA-1,\"1,234.56\"\n");
  EXPECT_TRUE(refused_at(run("solve " + quoted.string() + " --column amount"), 2, "thousands separator"));
}

// A .dat on standard input is several rows, as the file is: "m n", then rows of n + 1 numbers.
TEST(CliHostileInputs, StandardInputIsToldApartAsAFileIs) {
  const std::string dat = std::string(SSUM_SOURCE_DIR) + "/tests/data/marketsplit/ms_04_050_001.dat";
  const run_result file = run("solve --json " + dat);
  const run_result piped = run_shell("\"$SSUM\" solve --json - < " + dat);
  ASSERT_EQ(file.code, piped.code) << piped.err;
  const nlohmann::json a = nlohmann::json::parse(file.out), b = nlohmann::json::parse(piped.out);
  EXPECT_EQ(b.at("rows"), a.at("rows"));
  EXPECT_EQ(b.at("status"), a.at("status"));
  EXPECT_EQ(b.at("n"), a.at("n"));
  // Small ones, a row with a number too many, and the options a row's target makes moot.
  EXPECT_NE(run("solve", "# m n\n2 3\n1 2 3 3\n1 1 1 2\n").out.find("of 3 columns meet all 2 rows"), std::string::npos);
  EXPECT_TRUE(refused_at(run("solve", "1 3\n1 2 3 3 9\n"), 2, "row 1 has 5 numbers: extra number '9'"));
  // No columns: only the empty subset, which a row's target of 5 rules out (one row of the
  // weights 2, 0, 0, 5 would find {0}).
  EXPECT_EQ(run("solve", "2 0\n0\n5\n").code, 1);
  const run_result target = run("solve --target 3", "1 3\n1 2 3 3\n");
  EXPECT_EQ(target.code, 2);
  EXPECT_NE(target.err.find("takes its targets from its rows"), std::string::npos) << target.err;
  // One row stays one row: lines that are not "m n" then n + 1 numbers, or --format sum.
  EXPECT_NE(run("solve", "1 -3\n1 2 3\n").out.find("items sum to 0"), std::string::npos);
  EXPECT_NE(run("solve", "target: 4\n1 3\n1 2 3 3\n").out.find("items sum to 4"), std::string::npos);
  EXPECT_NE(run("solve --format sum --target 4", "1 3\n1 2 3 3\n").out.find("items sum to 4"), std::string::npos);
}

// A UTF-8 byte order mark before the rows' JSON (or a .dat's "m n") does not hide them.
TEST(CliHostileInputs, AByteOrderMarkDoesNotHideRows) {
  const std::string bom = "\xEF\xBB\xBF";
  const fs::path json = write_file("bom-rows.json", bom + "{\"rows\": [[1, 2, 3]], \"targets\": [3]}\n");
  for (const std::string& args : {"solve " + json.string(), "solve - < " + json.string(), "solve --format rows " + json.string()}) {
    const run_result r = run_shell("\"$SSUM\" " + args);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_NE(r.out.find("columns meet all 1 row"), std::string::npos) << args << ": " << r.out;
  }
  const run_result dat = run("solve", bom + "1 3\n1 2 3 3\n");
  EXPECT_EQ(dat.code, 0) << dat.err;
  EXPECT_NE(dat.out.find("columns meet all 1 row"), std::string::npos) << dat.out;
  const fs::path one = write_file("bom-one.json", bom + "{\"weights\": [1, 2, 3], \"target\": 5}\n");
  EXPECT_NE(run("solve " + one.string()).out.find("items sum to 5"), std::string::npos);
}

// A .dat line past what its "m n" allows is refused as soon as it arrives, from a file or a pipe:
// the header "1 3" allows four numbers, not megabytes of them.
TEST(CliHostileInputs, ALongDatLineIsRefusedAtOnce) {
  std::string line;
  for (int i = 0; i < 2'000'000; ++i) line += "1 ";
  const fs::path big = write_file("bigline.dat", "1 3\n" + line + "\n");
  const fs::path txt = write_file("bigline.txt", "1 3\n" + line + "\n");
  for (const std::string& args : {big.string(), "- < " + big.string(), "- < " + txt.string(), "--format rows " + txt.string()}) {
    const auto start = std::chrono::steady_clock::now();
    const run_result r = run_shell("\"$SSUM\" solve " + args);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(refused_at(r, 2, "a line of more than 65536 bytes, more than a row of 3 coefficients")) << args;
    EXPECT_LT(seconds, 10.0) << args;  // goal: well under a second
  }
  const fs::path comment = write_file("bigcomment.dat", "# " + line + "\n1 3\n1 2 3 3\n");
  EXPECT_TRUE(refused_at(run("solve " + comment.string()), 1, "before the 'm n' line"));
}

}  // namespace

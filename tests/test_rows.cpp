// Multi-row (market split) instances: the .dat and JSON readers, format_rows, the certificate
// check, and the fold into one subset sum against brute force.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ssum/errors.hpp"
#include "ssum/problem.hpp"
#include "ssum/rows.hpp"

namespace {

using ssum::int128;
using ssum::rows_problem;
using ssum::uint128;

const int128 two63 = int128(1) << 63;
const int128 two64 = int128(1) << 64;
const int128 max127 = int128(ssum::max_weight_total);

bool same(const rows_problem& a, const rows_problem& b) { return a.rows == b.rows && a.targets == b.targets; }

// The input_error that parsing `text` throws; fails the test when none is thrown.
ssum::input_error parse_error(const std::string& text) {
  try {
    ssum::parse_rows(text);
  } catch (const ssum::input_error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for: " << text;
  return ssum::input_error("none", 0);
}

// ---- the .dat form -------------------------------------------------------------------------

TEST(RowsParse, QoblibDat) {
  const rows_problem p = ssum::parse_rows(
      "# a comment\n\n2 3\r\n  1   2  3   6 # row one\n-4,5,-6 -10\n\n# the end\n");
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.columns(), 3u);
  EXPECT_EQ(p.rows[0], (std::vector<int128>{1, 2, 3}));
  EXPECT_EQ(p.rows[1], (std::vector<int128>{-4, 5, -6}));
  EXPECT_EQ(p.targets, (std::vector<int128>{6, -10}));
}

TEST(RowsParse, NoColumns) {
  const rows_problem p = ssum::parse_rows("2 0\n0\n5\n");
  EXPECT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.columns(), 0u);
  EXPECT_EQ(p.targets, (std::vector<int128>{0, 5}));
}

struct bad_input {
  const char* text;
  std::size_t line;
  const char* says;
};

TEST(RowsParse, MalformedDatNamesTheLine) {
  const bad_input cases[] = {
      {"", 0, "empty input"},
      {"# nothing\n\n  \n", 0, "empty input"},
      {"1\n", 1, "the counts 'm n'"},
      {"1 2 3\n", 1, "extra number '3' after the counts"},
      {"-1 3\n1 2 3 6\n", 1, "row count '-1' is not a non-negative integer"},
      {"1 -3\n", 1, "column count '-3' is not a non-negative integer"},
      {"2.0 3\n", 1, "row count '2.0' is not a non-negative integer"},
      {"0 3\n", 1, "no rows (m = 0)"},
      {"65 3\n", 1, "more than 64 rows"},
      {"1 16777217\n", 1, "more than 16777216 columns"},
      {"# c\n2 3\n1 2 3 6\n", 3, "ends after 1 of the 2 rows"},
      {"1 3\n1 2 3 6\n4 5 6 15\n", 3, "extra content '4 5 6 15' after the 1 row"},
      {"1 3\n\n1 2 3\n", 3, "row 1 has 3 numbers: its right-hand side is missing"},
      {"1 3\n1 2\n", 2, "row 1 has 2 numbers (expected 3 coefficients, then the right-hand side)"},
      {"2 3\n1 2 3 6\n1 2 3 4 5\n", 3, "row 2 has 5 numbers: extra number '5'"},
      {"1 2\n1 x 3\n", 2, "coefficient 'x' (row 1, column 2) is not an integer"},
      {"1 2\n1 2.5 3\n", 2, "coefficient '2.5' (row 1, column 2) is a decimal fraction"},
      {"1 2\n1 2 3.0\n", 2, "right-hand side '3.0' (row 1) is a decimal fraction"},
      {"1 2\n1 2 1e3\n", 2, "right-hand side '1e3' (row 1) is not an integer"},
      {"1 2\n1 999999999999999999999999999999999999999999 3\n", 2, "is out of 128-bit range"},
      {"1 2\n85070591730234615865843651857942052864 85070591730234615865843651857942052864 0\n", 2,
       "takes the row's sum of |coefficient| to 2^127 or more"},
      {"1 2\n1 2 3\x1b[31m\n", 2, "'3\\x1b[31m' (row 1) is not an integer"},
      {"1 1\n1 , , 1\n2 2\n", 3, "extra content"},
  };
  for (const bad_input& c : cases) {
    const ssum::input_error e = parse_error(c.text);
    EXPECT_EQ(e.line(), c.line) << c.text << " -> " << e.what();
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.text << " -> " << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(RowsParse, RefusesNul) {
  const std::string text("1 1\n1\0 1\n", 9);
  const ssum::input_error e = parse_error(text);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_NE(std::string(e.what()).find("NUL"), std::string::npos);
}

TEST(RowsParse, WideEntries) {
  // One row's magnitudes may total 2^127 - 1; targets may be any int128.
  const rows_problem p = ssum::parse_rows(
      "2 2\n170141183460469231731687303715884105726 1 -170141183460469231731687303715884105728\n"
      "-85070591730234615865843651857942052864 85070591730234615865843651857942052863 0\n");
  EXPECT_EQ(p.rows[0][0], max127 - 1);
  EXPECT_EQ(p.targets[0], -max127 - 1);
  EXPECT_EQ(p.rows[1][0], -(int128(1) << 126));
}

// ---- the JSON form -------------------------------------------------------------------------

TEST(RowsParse, Json) {
  const rows_problem p = ssum::parse_rows(
      "  {\"rows\": [[1, -2, \"3\"], [40000000000000000000000, 0, -5]],\n"
      "   \"targets\": [\"-1\", 18446744073709551615]}");
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0], (std::vector<int128>{1, -2, 3}));
  EXPECT_EQ(p.rows[1][0], *ssum::parse_int128("40000000000000000000000"));
  EXPECT_EQ(p.targets, (std::vector<int128>{-1, int128(UINT64_MAX)}));
  EXPECT_TRUE(same(ssum::parse_rows("{\"targets\": [5], \"rows\": [[2, 3]]}"), rows_problem{{{2, 3}}, {5}}));
}

TEST(RowsParse, MalformedJsonNamesTheLine) {
  const bad_input cases[] = {
      {"{\"rows\": [[1, 2],\n[3]], \"targets\": [1, 2]}", 2, "rows[1] has 1 coefficients; rows[0] has 2"},
      {"{\n\"rows\": [\n[1, 2],\n[3, 4.5]\n],\n\"targets\": [1, 2]\n}", 4,
       "coefficient '4.5' (rows[1][1]) is a decimal fraction"},
      {"{\"rows\": [], \"targets\": []}", 1, "'rows' is empty"},
      {"{\"rows\": [[1]],\n\"targets\": [1, 2]}", 2, "'targets' has 2 entries for 1 row"},
      {"{\"rows\": [[1]]}", 0, "no 'targets' key"},
      {"{\"targets\": [1]}", 0, "no 'rows' key"},
      {"{\"rows\": [[1]], \"targets\": [1], \"weights\": [1]}", 1, "unknown key 'weights'"},
      {"{\"rows\": [[1]], \"rows\": [[1]], \"targets\": [1]}", 1, "key 'rows' given twice"},
      {"{\"rows\": [[1, \"abc\"]], \"targets\": [1]}", 1, "coefficient 'abc' (rows[0][1]) is not an integer"},
      {"{\"rows\": [[1, true]], \"targets\": [1]}", 1, "coefficient (rows[0][1]) must be an integer, not 'true'"},
      {"{\"rows\": [[1, [2]]], \"targets\": [1]}", 1, "coefficient (rows[0][1]) must be an integer, not an array"},
      {"{\"rows\": [[1]], \"targets\": [null]}", 1, "target (targets[0]) must be an integer, not 'null'"},
      {"\n[[1, 2]]", 2, "JSON input must be an object, not an array"},
      {"{\"rows\": [1], \"targets\": [1]}", 1, "'rows' must be an array of arrays of integers"},
      {"{\"rows\": [[1]], \"targets\": 1}", 1, "'targets' must be an array"},
      {"{\"rows\": [[1]], \"targets\": [1e3]}", 1, "target '1e3' (targets[0]) is not an integer"},
      {"{\"rows\": [[1]], \"targets\": [1e999]}", 1, "target '1e999' (targets[0]) is not an integer"},
      {"{\"rows\": [[1]],\n\"targets\": [1]", 2, "malformed JSON"},
      {"{\"rows\": [[1]], \"targets\": [1]} x", 1, "malformed JSON"},
      {"{\"rows\": [[-170141183460469231731687303715884105728]], \"targets\": [1]}", 1, "2^127 or more"},
  };
  for (const bad_input& c : cases) {
    const ssum::input_error e = parse_error(c.text);
    EXPECT_EQ(e.line(), c.line) << c.text << " -> " << e.what();
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.text << " -> " << e.what();
  }
  std::string many = "{\"rows\": [";
  for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + "\n[1]";
  const ssum::input_error e = parse_error(many + "], \"targets\": []}");
  EXPECT_EQ(e.line(), 66u);
  EXPECT_NE(std::string(e.what()).find("more than 64 rows"), std::string::npos) << e.what();
}

// ---- round trip, files ---------------------------------------------------------------------

rows_problem random_rows(std::mt19937_64& rng, std::size_t m, std::size_t n, int low, int high) {
  std::uniform_int_distribution<int> coefficient(low, high);
  rows_problem p;
  p.rows.assign(m, std::vector<int128>(n));
  for (auto& row : p.rows) {
    for (auto& a : row) a = coefficient(rng);
  }
  p.targets.resize(m);
  for (auto& t : p.targets) t = coefficient(rng) * int128(n) / 2;
  return p;
}

TEST(RowsFormat, RoundTrip) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    rows_problem p = random_rows(rng, 1 + rng() % 8, rng() % 30, -1000, 1000);
    if (round % 5 == 0 && p.columns() > 0) {  // wide values too
      p.rows[0][0] = -(max127 / 2);
      p.targets.back() = -max127 - 1;
    }
    const std::string text = ssum::format_rows(p);
    EXPECT_TRUE(same(ssum::parse_rows(text), p)) << text;
    EXPECT_EQ(ssum::format_rows(ssum::parse_rows(text)), text);
  }
}

TEST(RowsRead, FileAndErrors) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ssum_rows_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "good.dat").string(), bad = (dir / "bad.dat").string();
  std::ofstream(good) << "1 2\n3 4 7\n";
  std::ofstream(bad) << "1 2\n3 4\n";
  EXPECT_TRUE(same(ssum::read_rows(good), rows_problem{{{3, 4}}, {7}}));
  try {
    ssum::read_rows(bad);
    ADD_FAILURE() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(std::string(e.what()).rfind(bad + ": line 2: row 1 has 2 numbers", 0), 0u) << e.what();
  }
  try {
    ssum::read_rows((dir / "missing.dat").string());
    ADD_FAILURE() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 0u);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(RowsRead, StandardInput) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  const std::string text = "{\"rows\": [[1, 2]], \"targets\": [3]}";
  ASSERT_EQ(::write(pipe_ends[1], text.data(), text.size()), ssize_t(text.size()));
  ::close(pipe_ends[1]);
  const int saved = ::dup(STDIN_FILENO);
  ::dup2(pipe_ends[0], STDIN_FILENO);
  ::close(pipe_ends[0]);
  rows_problem p;
  EXPECT_NO_THROW(p = ssum::read_rows("-"));
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_TRUE(same(p, rows_problem{{{1, 2}}, {3}}));
}

// A .dat is read as it arrives: a line past what its place allows is refused without reading
// on, the same whether the text comes whole or from a file in blocks.
TEST(RowsRead, LongLinesAreRefusedAtOnce) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ssum_rows_long_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const struct {
    std::string text;
    std::size_t line;
    const char* says;
  } cases[] = {
      {"1 3\n" + std::string(1, '1') + [] { std::string s; for (int i = 0; i < 2'000'000; ++i) s += " 1"; return s; }() + "\n",
       2, "a line of more than 65536 bytes, more than a row of 3 coefficients"},
      {"1 3\n1 2 3" + std::string(3'000'000, ' ') + "6\n", 2, "more than 65536 bytes"},
      {"# c\n1 3\n1 2 3 6 # " + std::string(3'000'000, 'x') + "\n", 3, "more than 65536 bytes"},
      {"# " + std::string(3'000'000, 'x'), 1, "a line of more than 65536 bytes before the 'm n' line"},
      {"1 3\n1 2 3 6 7\n", 2, "row 1 has 5 numbers: extra number '7'"},
  };
  for (const auto& c : cases) {
    const std::string path = (dir / "long.dat").string();
    std::ofstream(path, std::ios::binary) << c.text;
    for (const bool from_file : {true, false}) {
      try {
        from_file ? ssum::read_rows(path) : ssum::parse_rows(c.text);
        ADD_FAILURE() << "accepted";
      } catch (const ssum::input_error& e) {
        EXPECT_EQ(e.line(), c.line) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      }
    }
  }
  // A row of 64 bytes a number is within its limit; rows cross the reader's 1 MiB blocks.
  std::mt19937_64 rng(5);
  const std::size_t n = 100'000;
  std::string text = "3 " + std::to_string(n) + "\n";
  for (int i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < n; ++j) text += std::to_string(std::int64_t(rng() % 2'000'001) - 1'000'000) + ", ";
    text += "12345\n";
  }
  text += "1 1\n";  // not a row: named as extra content after the rows
  const std::string path = (dir / "wide.dat").string();
  std::ofstream(path, std::ios::binary) << text.substr(0, text.size() - 4);
  EXPECT_TRUE(same(ssum::read_rows(path), ssum::parse_rows(text.substr(0, text.size() - 4))));
  EXPECT_EQ(ssum::read_rows(path).columns(), n);
  std::ofstream(path, std::ios::binary) << text;
  try {
    ssum::read_rows(path);
    ADD_FAILURE() << "accepted";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 5u) << e.what();
    EXPECT_NE(std::string(e.what()).find("extra content '1 1'"), std::string::npos) << e.what();
  }
  // A byte order mark before the "m n" line, in a file and in a string.
  std::ofstream(path, std::ios::binary) << "\xEF\xBB\xBF" "1 2\n3 4 7\n";
  EXPECT_TRUE(same(ssum::read_rows(path), rows_problem{{{3, 4}}, {7}}));
  EXPECT_TRUE(same(ssum::parse_rows("\xEF\xBB\xBF" "1 2\n3 4 7\n"), rows_problem{{{3, 4}}, {7}}));
  std::filesystem::remove_all(dir);
}

// Several rows or one, told from the first bytes (standard input has nothing else to go by).
TEST(RowsRead, FormsToldFromTheFirstBytes) {
  const std::string bom = "\xEF\xBB\xBF";
  const struct {
    std::string head;
    bool whole;
    std::optional<bool> rows;
  } cases[] = {
      {"1 3\n1 2 3 6\n", true, true},
      {"# QOBLIB\n\n2 3 # m n\n1,2,3,6\n", false, true},
      {bom + "1 3\n1 2 3 6\n", true, true},
      {"1 3\n1 2 3 6 7\n", true, true},  // for the reader to name the extra number
      {"1 3\n1 2 3 6", true, true},
      {"1 3\n" + std::string(70'000, '1'), false, true},  // a row past its limit: the reader refuses it
      {"1 3\n1 2 3 6", false, std::nullopt},
      {"1 3\n", false, std::nullopt},
      {"  ", false, std::nullopt},
      {"1 3\n1 2 3\n", true, false},  // five weights
      {"1 3\n", true, false},
      {"0 3\n1 2 3 6\n", true, false},
      {"65 1\n1 2\n", true, false},
      {"1 0\n7\n", true, true},  // no columns: the empty subset, if the targets are 0
      {"3\n1 2 3 6\n", true, false},
      {"1 2 3\n1 2 3 6\n", true, false},
      {"target: 5\n1 3\n1 2 3 6\n", true, false},
      {"", true, false},
      {"{\"rows\": [[1, 2]], \"targets\": [3]}", true, true},
      {bom + " {\"rows\": [[1, 2]], \"targets\": [3]}", true, true},
      {"{\"rows\": [[1, 2]], \"targets\": [3]}", false, std::nullopt},  // "weights" may follow
      {"{\"weights\": [1, 2], \"rows\": 1}", true, false},
      {"{\"weights\": [1, 2]}", true, false},
      {"[1, 2]", true, false},
  };
  for (const auto& c : cases) EXPECT_EQ(ssum::holds_rows(c.head, c.whole), c.rows) << c.head.substr(0, 40);
}

// read_instance reads standard input once and returns what it holds.
TEST(RowsRead, StandardInputOfEitherForm) {
  const auto from_stdin = [](const std::string& text) {
    int pipe_ends[2];
    EXPECT_EQ(::pipe(pipe_ends), 0);
    EXPECT_EQ(::write(pipe_ends[1], text.data(), text.size()), ssize_t(text.size()));
    ::close(pipe_ends[1]);
    const int saved = ::dup(STDIN_FILENO);
    ::dup2(pipe_ends[0], STDIN_FILENO);
    ::close(pipe_ends[0]);
    std::optional<ssum::any_instance> any;
    std::string error;
    try {
      any = ssum::read_instance("-", ssum::read_options{});
    } catch (const ssum::input_error& e) {
      error = e.what();
    }
    ::dup2(saved, STDIN_FILENO);
    ::close(saved);
    return std::make_pair(std::move(any), error);
  };
  auto [dat, e1] = from_stdin("# c\n2 2\n1 2 3\n4 5 9\n");
  ASSERT_TRUE(dat && dat->rows) << e1;
  EXPECT_TRUE(same(*dat->rows, rows_problem{{{1, 2}, {4, 5}}, {3, 9}}));
  auto [one, e2] = from_stdin("target: 3\n1 2\n4\n");
  ASSERT_TRUE(one && !one->rows) << e2;
  EXPECT_EQ(one->one.weights, (std::vector<int128>{1, 2, 4}));
  EXPECT_EQ(one->one.target, int128(3));
  auto [json, e3] = from_stdin("\xEF\xBB\xBF{\"rows\": [[1, 2]], \"targets\": [3]}");
  ASSERT_TRUE(json && json->rows) << e3;
  auto [bad, e4] = from_stdin("1 3\n1 2 3 6\n1 1 1 1\n");
  EXPECT_FALSE(bad);
  EXPECT_EQ(e4.rfind("<stdin>: line 3: extra content", 0), 0u) << e4;
}

// ---- certificates --------------------------------------------------------------------------

TEST(RowsCertificate, Checks) {
  const rows_problem p{{{3, 5, -2, 7}, {1, 1, 1, 0}}, {10, 1}};
  EXPECT_TRUE(ssum::is_rows_certificate(p, {0, 3}));
  EXPECT_FALSE(ssum::is_rows_certificate(p, {3, 0}));     // not ascending
  EXPECT_FALSE(ssum::is_rows_certificate(p, {0, 0, 3}));  // repeated
  EXPECT_FALSE(ssum::is_rows_certificate(p, {0, 4}));     // out of range
  EXPECT_FALSE(ssum::is_rows_certificate(p, {1, 2, 3}));  // the first row holds, the second sums to 2
  EXPECT_FALSE(ssum::is_rows_certificate(p, {1, 3}));     // the first row sums to 12
  EXPECT_TRUE(ssum::is_rows_certificate(rows_problem{{{3, 5, -2, 7}, {1, 1, 1, 0}}, {10, 2}}, {1, 2, 3}));
  EXPECT_TRUE(ssum::is_rows_certificate(rows_problem{{{1, 2}, {3, 4}}, {0, 0}}, {}));
  EXPECT_FALSE(ssum::is_rows_certificate(rows_problem{{{1, 2}, {3}}, {0, 0}}, {}));  // ragged
  EXPECT_FALSE(ssum::is_rows_certificate(rows_problem{{{1, 2}}, {0, 0}}, {}));       // two targets, one row
  // Sums past int128 are exact: (2^127 - 1) * 2 + 2 = 2^128 is not the 0 that int128 wraps to.
  const rows_problem wide{{{max127, max127, 2}}, {-2 + 2}};
  EXPECT_FALSE(ssum::is_rows_certificate(wide, {0, 1, 2}));
}

// ---- the fold ------------------------------------------------------------------------------

// Every subset, by Gray code: the fold's verdict against the rows', and the solution counts.
// Returns the number of solutions.
std::uint64_t check_fold_against_brute_force(const rows_problem& p) {
  const auto e = ssum::encode_rows(p);
  if (!e) {
    ADD_FAILURE() << "no fold";
    return 0;
  }
  const ssum::problem& single = e->single;
  EXPECT_EQ(single.weights.size(), p.columns());
  EXPECT_TRUE(single.target.has_value());
  EXPECT_NO_THROW(ssum::check_weight_total(single));
  const std::size_t m = p.rows.size(), n = p.columns();
  std::vector<int128> row_sum(m, 0);
  int128 folded = 0;
  std::uint64_t code = 0, row_solutions = 0, folded_solutions = 0;
  for (std::uint64_t step = 0;; ++step) {
    bool rows_hold = true;
    for (std::size_t i = 0; i < m; ++i) rows_hold &= row_sum[i] == p.targets[i];
    const bool folded_holds = folded == *single.target;
    if (rows_hold != folded_holds) {
      ADD_FAILURE() << "subset mask " << code << ": rows " << rows_hold << ", fold " << folded_holds;
      return 0;
    }
    row_solutions += rows_hold;
    folded_solutions += folded_holds;
    if (rows_hold) {
      std::vector<std::size_t> subset;
      for (std::size_t j = 0; j < n; ++j) {
        if (code >> j & 1) subset.push_back(j);
      }
      EXPECT_TRUE(ssum::is_rows_certificate(p, subset));
      EXPECT_TRUE(ssum::is_certificate(single, subset));
    }
    if (step + 1 == (std::uint64_t(1) << n)) break;
    const std::size_t j = std::size_t(__builtin_ctzll(step + 1));  // the bit Gray code flips
    const int sign = (code >> j & 1) ? -1 : 1;
    code ^= std::uint64_t(1) << j;
    for (std::size_t i = 0; i < m; ++i) row_sum[i] += sign * p.rows[i][j];
    folded += sign * single.weights[j];
  }
  EXPECT_EQ(row_solutions, folded_solutions);
  if (e->infeasible_by_bounds) {
    EXPECT_EQ(row_solutions, 0u);
  }
  return row_solutions;
}

TEST(RowsEncoding, RadixIsTheFullSpan) {
  // Row 0 reaches [0, 3]: with radix 3 instead of its span 4, {0, 1, 2} (row sums 3, 0) would
  // fold onto the target 0 + 1 * 3.
  const rows_problem p{{{1, 1, 1, 0}, {0, 0, 0, 1}}, {0, 1}};
  EXPECT_EQ(check_fold_against_brute_force(p), 1u);  // {3} alone
}

TEST(RowsEncoding, MatchesBruteForce) {
  std::mt19937_64 rng(2024);
  int planted = 0, infeasible = 0, unreachable = 0;
  for (int round = 0; round < 180; ++round) {
    const std::size_t m = 2 + rng() % 5, n = 6 + rng() % 11;
    // Small coefficients too: their spans are small, so near-misses of the radix are many.
    const int ranges[3][2] = {{-20, 60}, {0, 100}, {-2, 3}};
    const int* range = ranges[round / 3 % 3];
    rows_problem p = random_rows(rng, m, n, range[0], range[1]);
    switch (round % 3) {
      case 0: {  // planted: the targets are a random subset's row sums
        for (std::size_t i = 0; i < m; ++i) p.targets[i] = 0;
        const std::uint64_t mask = rng();
        for (std::size_t j = 0; j < n; ++j) {
          if (mask >> j & 1) {
            for (std::size_t i = 0; i < m; ++i) p.targets[i] += p.rows[i][j];
          }
        }
        ++planted;
        break;
      }
      case 1:  // random targets, some at the ends of their rows' reach: mostly infeasible
        for (std::size_t i = 0; i < m; ++i) {
          int128 low = 0, high = 0;
          for (const int128 a : p.rows[i]) (a < 0 ? low : high) += a;
          const std::uint64_t pick = rng() % 4;
          p.targets[i] = pick == 0 ? low : pick == 1 ? high : low + int128(rng() % std::uint64_t(high - low + 1));
        }
        ++infeasible;
        break;
      default: {  // one target out of reach, just past the row's positive sum
        int128 positive = 0;
        for (const int128 a : p.rows[m - 1]) positive += a > 0 ? a : 0;
        p.targets[m - 1] = positive + 1;
        ++unreachable;
        break;
      }
    }
    SCOPED_TRACE(ssum::format_rows(p));
    const std::uint64_t solutions = check_fold_against_brute_force(p);
    if (round % 3 == 0) {
      EXPECT_GT(solutions, 0u);
      EXPECT_FALSE(ssum::encode_rows(p)->infeasible_by_bounds);
    } else if (round % 3 == 2) {
      EXPECT_TRUE(ssum::encode_rows(p)->infeasible_by_bounds);
    }
  }
  EXPECT_GT(planted * infeasible * unreachable, 0);
}

TEST(RowsEncoding, FoldShape) {
  // Spans 11 and 4, so B = (1, 11): column j weighs a_0j + 11 a_1j; the target is 5 + 11 * 1.
  const rows_problem p{{{5, -5, 0}, {-1, 1, 1}}, {5, 1}};
  const auto e = ssum::encode_rows(p);
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->infeasible_by_bounds);
  EXPECT_EQ(e->single.weights, (std::vector<int128>{5 - 11, -5 + 11, 11}));
  EXPECT_EQ(e->single.target, int128(16));
  EXPECT_EQ(ssum::rows_encoding_bits(p), 6u);  // 11 * 4 - 1 = 43
}

TEST(RowsEncoding, InfeasibleByBounds) {
  const rows_problem below{{{1, 2, 3}, {-4, 5, 0}}, {3, -5}};  // row 2 reaches [-4, 5]
  const auto e = ssum::encode_rows(below);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->infeasible_by_bounds);
  EXPECT_EQ(e->single.weights, (std::vector<int128>{0, 0, 0}));
  EXPECT_EQ(e->single.target, int128(1));
  EXPECT_FALSE(ssum::encode_rows(rows_problem{{{1, 2, 3}, {-4, 5, 0}}, {3, -4}})->infeasible_by_bounds);
  EXPECT_TRUE(ssum::encode_rows(rows_problem{{{1, 2, 3}, {-4, 5, 0}}, {7, 0}})->infeasible_by_bounds);
  // Decided without folding: even an instance far past 127 bits answers.
  rows_problem huge{std::vector<std::vector<int128>>(12, std::vector<int128>(100, 1 << 20)),
                    std::vector<int128>(12, 0)};
  huge.targets[5] = -1;
  EXPECT_TRUE(ssum::encode_rows(huge)->infeasible_by_bounds);
}

TEST(RowsEncoding, RefusesPast127Bits) {
  std::mt19937_64 rng(3);
  rows_problem p{std::vector<std::vector<int128>>(12, std::vector<int128>(100)), std::vector<int128>(12)};
  for (std::size_t i = 0; i < 12; ++i) {
    for (auto& a : p.rows[i]) a = (1 << 20) - int128(rng() % 1000);
    p.targets[i] = p.rows[i][0] + p.rows[i][7];
  }
  EXPECT_FALSE(ssum::encode_rows(p).has_value());
  EXPECT_GT(ssum::rows_encoding_bits(p), 300u);  // 12 * log2(100 * 2^20) ~ 319
  EXPECT_LT(ssum::rows_encoding_bits(p), 330u);
  EXPECT_TRUE(ssum::is_rows_certificate(p, {0, 7}));
}

TEST(RowsEncoding, AtTheEdge) {
  // Spans 2^63 and 2^64: the product is 2^127 and the non-negative weights add up to exactly
  // 2^127 - 1, the most ssum takes.
  const rows_problem fits{{{two63 - 1, 0}, {0, two64 - 1}}, {two63 - 1, two64 - 1}};
  EXPECT_EQ(ssum::rows_encoding_bits(fits), 127u);
  const auto e = ssum::encode_rows(fits);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->single.weights, (std::vector<int128>{two63 - 1, (two64 - 1) * two63}));
  EXPECT_EQ(e->single.weights[0] + e->single.weights[1], max127);
  EXPECT_EQ(e->single.target, max127);
  EXPECT_NO_THROW(ssum::check_weight_total(e->single));
  EXPECT_TRUE(ssum::is_certificate(e->single, {0, 1}));
  // One more in the second row: span 2^64 + 1, total 2^127 + 2^63 - 1.
  const rows_problem past{{{two63 - 1, 0}, {1, two64 - 1}}, {0, 0}};
  EXPECT_EQ(ssum::rows_encoding_bits(past), 128u);
  EXPECT_FALSE(ssum::encode_rows(past).has_value());
  // One row alone at 2^127 - 1 folds to itself.
  const rows_problem one{{{max127 - 5, 5}}, {5}};
  EXPECT_EQ(ssum::rows_encoding_bits(one), 127u);
  ASSERT_TRUE(ssum::encode_rows(one).has_value());
  EXPECT_EQ(ssum::encode_rows(one)->single.weights, one.rows[0]);
  // The refusal is exact, not the bound: spans 2^126 and 3 pass 2^127, but the weights cancel
  // to -1 and 2^126.
  const rows_problem cancels{{{(int128(1) << 126) - 1, 0}, {-1, 1}}, {0, 1}};
  EXPECT_EQ(ssum::rows_encoding_bits(cancels), 128u);
  const auto c = ssum::encode_rows(cancels);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->single.weights, (std::vector<int128>{-1, int128(1) << 126}));
  EXPECT_EQ(c->single.target, int128(1) << 126);
  // A row whose own magnitudes reach 2^127 does not fold; the bits still count it.
  const rows_problem row_past{{{max127, 1}}, {0}};
  EXPECT_FALSE(ssum::encode_rows(row_past).has_value());
  EXPECT_EQ(ssum::rows_encoding_bits(row_past), 128u);  // span 2^127 + 1
  EXPECT_EQ(ssum::rows_encoding_bits(rows_problem{{{max127, max127}}, {0}}), 128u);
  EXPECT_EQ(ssum::rows_encoding_bits(rows_problem{{{0, 0}, {0, 0}}, {0, 0}}), 0u);
}

TEST(RowsEncoding, RefusesBadShapes) {
  EXPECT_THROW(ssum::encode_rows(rows_problem{}), std::invalid_argument);
  EXPECT_THROW(ssum::encode_rows(rows_problem{{{1, 2}, {3}}, {0, 0}}), std::invalid_argument);
  EXPECT_THROW(ssum::encode_rows(rows_problem{{{1, 2}}, {0, 0}}), std::invalid_argument);
  EXPECT_THROW(ssum::rows_encoding_bits(rows_problem{{{1, 2}}, {}}), std::invalid_argument);
}

// ---- QOBLIB instances ----------------------------------------------------------------------

// A QOBLIB .opt.sol: one 0/1 value per column; the columns set to 1.
std::vector<std::size_t> read_solution(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::size_t> subset;
  std::string token;
  for (std::size_t j = 0; in >> token; ++j) {
    if (token == "1") subset.push_back(j);
    else if (token != "0") ADD_FAILURE() << path << ": unexpected token " << token;
  }
  return subset;
}

TEST(RowsQoblib, InstancesAndTheirSolutions) {
  const std::filesystem::path dir = std::filesystem::path(SSUM_SOURCE_DIR) / "tests/data/marketsplit";
  int instances = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".dat") continue;
    ++instances;
    const std::string name = entry.path().stem().string();  // ms_MM_RRR_KKK
    SCOPED_TRACE(name);
    const rows_problem p = ssum::read_rows(entry.path().string());
    const std::size_t m = std::stoul(name.substr(3, 2));
    EXPECT_EQ(p.rows.size(), m);
    EXPECT_EQ(p.columns(), 10 * (m - 1));  // QOBLIB's market split instances have n = 10 (m - 1)
    EXPECT_TRUE(same(ssum::parse_rows(ssum::format_rows(p)), p));
    const auto e = ssum::encode_rows(p);
    ASSERT_TRUE(e.has_value());
    EXPECT_FALSE(e->infeasible_by_bounds);
    EXPECT_LE(ssum::rows_encoding_bits(p), 127u);
    const std::filesystem::path solution = dir / (name + ".opt.sol");
    if (!std::filesystem::exists(solution)) continue;
    std::vector<std::size_t> subset = read_solution(solution.string());
    EXPECT_TRUE(ssum::is_rows_certificate(p, subset));
    EXPECT_TRUE(ssum::is_certificate(e->single, subset));
    subset.pop_back();  // one column fewer answers neither
    EXPECT_FALSE(ssum::is_rows_certificate(p, subset));
    EXPECT_FALSE(ssum::is_certificate(e->single, subset));
  }
  EXPECT_GE(instances, 3);
}

}  // namespace

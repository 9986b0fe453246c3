// parse_problem / read_problem / format_problem and is_certificate.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ssum/errors.hpp"
#include "ssum/problem.hpp"

namespace {

using ssum::int128;
using ssum::uint128;
using ssum::problem;
using weights_t = std::vector<int128>;

int128 int128_max() { return int128((uint128(1) << 127) - 1); }
int128 int128_min() { return int128(uint128(1) << 127); }
std::string int128_max_text() { return "170141183460469231731687303715884105727"; }

// Runs parse_problem(text) expecting an input_error on `line` whose message holds `fragment`.
::testing::AssertionResult fails_with(std::string_view text, std::size_t line,
                                      const std::string& fragment) {
  try {
    const problem p = ssum::parse_problem(text);
    return ::testing::AssertionFailure() << "parsed without error (n = " << p.weights.size() << ")";
  } catch (const ssum::input_error& e) {
    const std::string what = e.what();
    if (e.line() != line) {
      return ::testing::AssertionFailure() << "line " << e.line() << " instead of " << line
                                           << ": " << what;
    }
    if (what.find(fragment) == std::string::npos) {
      return ::testing::AssertionFailure() << "message '" << what << "' lacks '" << fragment << "'";
    }
    if (line != 0 && what.rfind("line " + std::to_string(line) + ": ", 0) != 0) {
      return ::testing::AssertionFailure() << "message '" << what << "' lacks the line prefix";
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "wrong exception type: " << e.what();
  }
}

// ---- text format: accepted input ------------------------------------------------------

TEST(ParseText, WhitespaceSeparatedWeights) {
  const problem p = ssum::parse_problem("3 -1 4\t1\n-5 9\n");
  EXPECT_EQ(p.weights, (weights_t{3, -1, 4, 1, -5, 9}));
  EXPECT_TRUE(p.zero_sum());
  EXPECT_FALSE(p.target.has_value());
}

TEST(ParseText, SignsAndLeadingZeros) {
  const problem p = ssum::parse_problem("+5 -0 +0 007 -007");
  EXPECT_EQ(p.weights, (weights_t{5, 0, 0, 7, -7}));
}

TEST(ParseText, Commas) {
  EXPECT_EQ(ssum::parse_problem("1,2,3").weights, (weights_t{1, 2, 3}));
  EXPECT_EQ(ssum::parse_problem("1, 2 ,3 , 4").weights, (weights_t{1, 2, 3, 4}));
  EXPECT_EQ(ssum::parse_problem("1,-2,+3").weights, (weights_t{1, -2, 3}));
  // A comma at a line end separates it from the next line's first number.
  EXPECT_EQ(ssum::parse_problem("1, 2,\n3, 4\n").weights, (weights_t{1, 2, 3, 4}));
  // Commas and plain blanks may be mixed.
  EXPECT_EQ(ssum::parse_problem("1 2, 3 4").weights, (weights_t{1, 2, 3, 4}));
}

TEST(ParseText, Comments) {
  const problem p = ssum::parse_problem(
      "# an instance\n"
      "1 2 # two weights\n"
      "   # indented comment\n"
      "3#no blank before the hash\n"
      "# target: 99 is commented out\n"
      "#\n");
  EXPECT_EQ(p.weights, (weights_t{1, 2, 3}));
  EXPECT_TRUE(p.zero_sum());
}

TEST(ParseText, TargetLineForms) {
  EXPECT_EQ(ssum::parse_problem("target: 5\n1 2").target, int128(5));
  EXPECT_EQ(ssum::parse_problem("target:5\n1").target, int128(5));
  EXPECT_EQ(ssum::parse_problem("target : 5\n1").target, int128(5));
  EXPECT_EQ(ssum::parse_problem("  \ttarget\t:\t-5  \n1").target, int128(-5));
  EXPECT_EQ(ssum::parse_problem("target: +5\n1").target, int128(5));
  EXPECT_EQ(ssum::parse_problem("target: 0\n1").target, int128(0));
  EXPECT_EQ(ssum::parse_problem("target: 5 # the sum we want\n1").target, int128(5));
}

TEST(ParseText, TargetPositionIsFree) {
  const problem before = ssum::parse_problem("target: 7\n1 2\n3\n");
  const problem middle = ssum::parse_problem("1 2\ntarget: 7\n3\n");
  const problem after = ssum::parse_problem("1 2\n3\ntarget: 7\n");
  for (const problem* p : {&before, &middle, &after}) {
    EXPECT_EQ(p->weights, (weights_t{1, 2, 3}));
    EXPECT_EQ(p->target, int128(7));
    EXPECT_FALSE(p->zero_sum());
  }
}

TEST(ParseText, TargetBeyond64Bits) {
  EXPECT_EQ(ssum::parse_problem("target: 18446744073709551616\n1").target, int128(1) << 64);
  EXPECT_EQ(ssum::parse_problem("target: 170141183460469231731687303715884105727\n1").target,
            int128_max());
  EXPECT_EQ(ssum::parse_problem("target: -170141183460469231731687303715884105728\n1").target,
            int128_min());
}

TEST(ParseText, TargetWithoutWeightsIsValid) {
  const problem p = ssum::parse_problem("# nothing to choose from\ntarget: 0\n");
  EXPECT_TRUE(p.weights.empty());
  EXPECT_EQ(p.target, int128(0));
}

TEST(ParseText, Int64Limits) {
  const problem p = ssum::parse_problem("9223372036854775807 -9223372036854775808 +9223372036854775807");
  EXPECT_EQ(p.weights, (weights_t{INT64_MAX, INT64_MIN, INT64_MAX}));
}

TEST(ParseText, WindowsLineEndings) {
  const problem p = ssum::parse_problem(
      "# comment\r\ntarget: 12\r\n1, 2\r\n3 4 # note\r\n-5\r\n\r\n");
  EXPECT_EQ(p.weights, (weights_t{1, 2, 3, 4, -5}));
  EXPECT_EQ(p.target, int128(12));
  EXPECT_TRUE(fails_with("1\r\n2\r\n1.5\r\n", 3, "'1.5'"));
  EXPECT_TRUE(fails_with("target:\r\n1\r\n", 1, "target line without a number"));
}

TEST(ParseText, NoFinalNewlineAndBlankLines) {
  EXPECT_EQ(ssum::parse_problem("\n\n  \n1\n\n2").weights, (weights_t{1, 2}));
}

TEST(ParseText, ByteOrderMarkIsIgnored) {
  EXPECT_EQ(ssum::parse_problem("\xEF\xBB\xBF" "1 2").weights, (weights_t{1, 2}));
  EXPECT_EQ(ssum::parse_problem("\xEF\xBB\xBF" "target: 3\n1").target, int128(3));
}

TEST(ParseText, ManyLines) {
  std::string text = "target: 4950\n";
  weights_t expected;
  for (int i = 0; i < 100; ++i) {
    text += std::to_string(i) + (i % 3 == 0 ? ",\n" : i % 3 == 1 ? " " : "\n");
    expected.push_back(i);
  }
  text.erase(text.size() - 2, 1);  // the last item (i = 99) ends with ",\n": drop the comma
  EXPECT_EQ(ssum::parse_problem(text).weights, expected);
}

// ---- text format: errors ----------------------------------------------------------------

TEST(ParseTextErrors, DecimalFractions) {
  for (const char* token : {"1.5", "2.0", ".5", "-0.5", "5.", "+3.25"}) {
    EXPECT_TRUE(fails_with(std::string("1 2\n3 ") + token + " 4\n", 2,
                           std::string("'") + token + "' is a decimal fraction"))
        << token;
  }
}

TEST(ParseTextErrors, NotAnInteger) {
  for (const char* token : {"abc", "0x10", "1e5", "--3", "+-3", "-", "+", "1-2", "12abc", "1.2.3",
                            "null"}) {
    EXPECT_TRUE(fails_with(std::string("# c\n\n7 ") + token + "\n", 3,
                           std::string("'") + token + "' is not an integer"))
        << token;
  }
  // U+2212 MINUS SIGN: shown byte by byte, which also tells it from '-'.
  EXPECT_TRUE(fails_with("# c\n\n7 \xE2\x88\x92" "5\n", 3, "'\\xe2\\x88\\x925' is not an integer"));
}

TEST(ParseTextErrors, WeightOutOf128BitRange) {
  EXPECT_TRUE(fails_with("1\n170141183460469231731687303715884105728\n", 2,
                         "'170141183460469231731687303715884105728' is out of 128-bit range"));
  EXPECT_TRUE(fails_with("-170141183460469231731687303715884105729", 1,
                         "'-170141183460469231731687303715884105729' is out of 128-bit range"));
  EXPECT_TRUE(fails_with("1 99999999999999999999999999999999999999999", 1, "out of 128-bit range"));
}

// ---- wide weights and their limit: sum of |w| below 2^127 --------------------------------

const int128 two_126 = int128(1) << 126;
const std::string two_126_text = "85070591730234615865843651857942052864";  // 2^126
const std::string two_126_minus_1_text = "85070591730234615865843651857942052863";

TEST(ParseText, WeightsBeyondInt64AreExact) {
  const problem p = ssum::parse_problem(
      "target: -9223372036854775809\n9223372036854775808 -9223372036854775809\n"
      "+18446744073709551616 -1267650600228229401496703205377\n");
  EXPECT_EQ(p.weights, (weights_t{int128(INT64_MAX) + 1, int128(INT64_MIN) - 1, int128(1) << 64,
                                  -((int128(1) << 100) + 1)}));
  EXPECT_EQ(p.target, int128(INT64_MIN) - 1);
}

TEST(ParseText, WeightTotalUpTo2To127Minus1IsAccepted) {
  const problem p = ssum::parse_problem(two_126_text + "\n-" + two_126_minus_1_text + "\n");
  EXPECT_EQ(p.weights, (weights_t{two_126, -(two_126 - 1)}));
  EXPECT_EQ(ssum::parse_problem(int128_max_text()).weights, weights_t{int128_max()});
  EXPECT_NO_THROW(ssum::check_weight_total(p));
}

TEST(ParseTextErrors, WeightTotalOf2To127IsRefused) {
  // Exactly 2^127, on the line of the weight that reaches it; signs do not matter.
  EXPECT_TRUE(fails_with("1 2\n" + two_126_text + "\n" + two_126_text + "\n", 3,
                         "takes the sum of |weight| to 2^127 or more"));
  EXPECT_TRUE(fails_with(two_126_text + " -" + two_126_text, 1, "2^127 - 1"));
  EXPECT_TRUE(fails_with(int128_max_text() + "\n1", 2, "weight '1' takes the sum of |weight| to 2^127"));
  // -2^127 is an int128, but its magnitude alone is 2^127.
  EXPECT_TRUE(fails_with("3\n-170141183460469231731687303715884105728", 2, "|weight| must stay below 2^127"));
}

TEST(ParseJson, WideWeightsAsNumbersAndStrings) {
  const problem p = ssum::parse_problem(
      R"({"weights": [9223372036854775807, 18446744073709551615, -9223372036854775809,)"
      R"( "85070591730234615865843651857942052863", "-12", "+7", 1267650600228229401496703205377],)"
      R"( "target": "-1"})");
  EXPECT_EQ(p.weights, (weights_t{INT64_MAX, int128(UINT64_MAX), int128(INT64_MIN) - 1, two_126 - 1, -12, 7,
                                  (int128(1) << 100) + 1}));
  EXPECT_EQ(p.target, int128(-1));
}

TEST(ParseJsonErrors, WeightTotalOf2To127IsRefused) {
  EXPECT_TRUE(fails_with("{\"weights\": [\"" + two_126_text + "\",\n\"" + two_126_text + "\"]}", 2,
                         "(weights[1]) takes the sum of |weight| to 2^127 or more"));
  EXPECT_TRUE(fails_with("{\"weights\": [" + two_126_text + ", -" + two_126_text + "]}", 1, "2^127 - 1"));
  EXPECT_TRUE(fails_with(R"({"weights": ["-170141183460469231731687303715884105728"]})", 1,
                         "(weights[0]) is out of range"));
  EXPECT_NO_THROW(ssum::parse_problem("{\"weights\": [\"" + two_126_text + "\", \"-" + two_126_minus_1_text + "\"]}"));
}

TEST(CheckWeightTotal, LimitIs2To127Minus1) {
  EXPECT_NO_THROW(ssum::check_weight_total(problem{{two_126, two_126 - 1}, std::nullopt}));
  EXPECT_NO_THROW(ssum::check_weight_total(problem{{-two_126, -(two_126 - 1), 0}, std::nullopt}));
  EXPECT_NO_THROW(ssum::check_weight_total(problem{{int128_max()}, int128_min()}));  // any target
  EXPECT_THROW(ssum::check_weight_total(problem{{two_126, two_126}, std::nullopt}), ssum::input_error);
  EXPECT_THROW(ssum::check_weight_total(problem{{two_126, -two_126}, std::nullopt}), ssum::input_error);
  EXPECT_THROW(ssum::check_weight_total(problem{{int128_min()}, std::nullopt}), ssum::input_error);
  EXPECT_THROW(ssum::check_weight_total(problem{{int128_max(), int128_max(), int128_max()}, 0}), ssum::input_error);
  try {
    ssum::check_weight_total(problem{{int128_max(), 1}, std::nullopt});
    ADD_FAILURE() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 0u);
    EXPECT_NE(std::string(e.what()).find("2^127"), std::string::npos) << e.what();
  }
}

TEST(ParseTextErrors, LongTokensAreShortenedInMessages) {
  const std::string garbage(10000, 'x');
  try {
    ssum::parse_problem("1 " + garbage);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_LT(std::string(e.what()).size(), 200u);
    EXPECT_NE(std::string(e.what()).find("xxx...'"), std::string::npos) << e.what();
  }
}

TEST(ParseTextErrors, EmptyFields) {
  EXPECT_TRUE(fails_with("1,,2", 1, "empty field"));
  EXPECT_TRUE(fails_with("1\n2, ,3", 2, "empty field"));
  EXPECT_TRUE(fails_with("1,\n,2", 2, "empty field"));
  EXPECT_TRUE(fails_with(",1", 1, "comma before the first weight"));
  EXPECT_TRUE(fails_with("1\n2,\n\n# end\n", 2, "comma after the last weight"));
}

TEST(ParseTextErrors, TargetProblems) {
  EXPECT_TRUE(fails_with("target: 1\n1 2\ntarget: 2\n", 3, "target given twice"));
  EXPECT_TRUE(fails_with("target: 1\n1 2\ntarget: 2\n", 3, "line 1"));  // names the first
  EXPECT_TRUE(fails_with("1\ntarget:\n", 2, "target line without a number"));
  EXPECT_TRUE(fails_with("1\ntarget:   # none\n", 2, "target line without a number"));
  EXPECT_TRUE(fails_with("1\ntarget: 5 6\n", 2, "target line with extra content '6'"));
  EXPECT_TRUE(fails_with("target: 5,6\n", 1, "target line with extra content"));
  EXPECT_TRUE(fails_with("target: 1.5\n1", 1, "target '1.5' is a decimal fraction"));
  EXPECT_TRUE(fails_with("target: abc\n1", 1, "target 'abc' is not an integer"));
  EXPECT_TRUE(fails_with("target: 1e9\n1", 1, "target '1e9' is not an integer"));
  EXPECT_TRUE(fails_with("target: 170141183460469231731687303715884105728\n1", 1,
                         "'170141183460469231731687303715884105728' is out of 128-bit range"));
  EXPECT_TRUE(fails_with("target: -170141183460469231731687303715884105729\n1", 1,
                         "out of 128-bit range"));
}

TEST(ParseTextErrors, TargetKeywordIsCaseSensitiveAndOnItsOwnLine) {
  EXPECT_TRUE(fails_with("Target: 5\n1", 1, "'Target:' is not an integer"));
  EXPECT_TRUE(fails_with("1 2 target: 5", 1, "'target:' is not an integer"));
  EXPECT_TRUE(fails_with("targets: 5\n1", 1, "'targets:' is not an integer"));
}

TEST(ParseTextErrors, EmptyInput) {
  for (const char* text : {"", "\n\n", "   \t\n", "# only a comment\n", "\r\n# x\r\n"}) {
    EXPECT_TRUE(fails_with(text, 0, "empty input: no weights and no target")) << text;
  }
  try {
    ssum::parse_problem("");
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_STREQ(e.what(), "empty input: no weights and no target");  // no "line 0:" prefix
  }
}

// A NUL byte is binary input: refused at once, naming its line, in either format.
TEST(ParseTextErrors, NulByteNamesItsLine) {
  EXPECT_TRUE(fails_with(std::string_view("1 2\n3\0 4\n", 9), 2, "NUL byte"));
  EXPECT_TRUE(fails_with(std::string_view("\0", 1), 1, "NUL byte"));
  EXPECT_TRUE(fails_with(std::string_view("{\"weights\": [1,\n\n\0]}", 20), 3, "NUL byte"));
}

// Bytes outside printable ASCII in an echoed token are \xNN: the message stays one line.
TEST(ParseTextErrors, ControlBytesAreEscapedInMessages) {
  EXPECT_TRUE(fails_with("1 2\x7fx\x1b[31m", 1, "weight '2\\x7fx\\x1b[31m' is not an integer"));
  EXPECT_TRUE(fails_with("target: 5\r\x01\n1", 1, "target line with extra content '\\x01'"));
  EXPECT_TRUE(fails_with("{\"weights\": [1], \"b\\n\\u0001\xc3\xa9\": 2}", 1, "unknown key 'b\\x0a\\x01\\xc3\\xa9'"));
  try {
    ssum::parse_problem("1 \n\n" + std::string(100, '\n') + "\x02\n");
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(std::string(e.what()), "line 103: weight '\\x02' is not an integer");
  }
}

// ssum::max_items weights are taken; one more is refused on its own line.
TEST(ParseTextErrors, MoreThanMaxItemsWeights) {
  std::string text;
  text.reserve(2 * ssum::max_items + 2);
  for (std::size_t i = 0; i < ssum::max_items; ++i) text += "0\n";
  EXPECT_EQ(ssum::parse_problem(text).weights.size(), ssum::max_items);
  text += "0\n";
  EXPECT_TRUE(fails_with(text, ssum::max_items + 1, "more than 16777216 weights (ssum::max_items)"));
}

TEST(ParseTextErrors, InputErrorIsAnInvalidArgument) {
  EXPECT_THROW(ssum::parse_problem("x"), std::invalid_argument);
}

// ---- JSON format -------------------------------------------------------------------------

TEST(ParseJson, Basic) {
  const problem p = ssum::parse_problem(R"({"weights": [3, -1, 4], "target": 6})");
  EXPECT_EQ(p.weights, (weights_t{3, -1, 4}));
  EXPECT_EQ(p.target, int128(6));
}

TEST(ParseJson, LeadingBlanksAndLayout) {
  const problem p = ssum::parse_problem("\r\n  \t{\n  \"target\": -2,\r\n  \"weights\": [\n    1,\n    -3\n  ]\n}\n\n");
  EXPECT_EQ(p.weights, (weights_t{1, -3}));
  EXPECT_EQ(p.target, int128(-2));
}

TEST(ParseJson, ZeroSumForms) {
  EXPECT_TRUE(ssum::parse_problem(R"({"weights": [1, -1]})").zero_sum());
  EXPECT_TRUE(ssum::parse_problem(R"({"weights": [1, -1], "target": null})").zero_sum());
  EXPECT_FALSE(ssum::parse_problem(R"({"weights": [1, -1], "target": 0})").zero_sum());
}

TEST(ParseJson, Int64LimitsInWeights) {
  const problem p =
      ssum::parse_problem(R"({"weights": [9223372036854775807, -9223372036854775808, 0]})");
  EXPECT_EQ(p.weights, (weights_t{INT64_MAX, INT64_MIN, 0}));
}

TEST(ParseJson, WideTargets) {
  EXPECT_EQ(ssum::parse_problem(R"({"weights": [1], "target": 18446744073709551615})").target,
            int128(UINT64_MAX));
  EXPECT_EQ(ssum::parse_problem(R"({"weights": [1], "target": "18446744073709551616"})").target,
            int128(1) << 64);
  EXPECT_EQ(ssum::parse_problem(R"({"weights": [1], "target": "-170141183460469231731687303715884105728"})")
                .target,
            int128_min());
  EXPECT_EQ(ssum::parse_problem(R"({"weights": [1], "target": "+12"})").target, int128(12));
  // A bare integer beyond 64 bits is read exactly from its text, not through a double.
  EXPECT_EQ(ssum::parse_problem(R"({"weights": [1], "target": 1267650600228229401496703205377})").target,
            (int128(1) << 100) + 1);
}

TEST(ParseJson, EmptyWeightsWithTarget) {
  const problem p = ssum::parse_problem(R"({"weights": [], "target": 0})");
  EXPECT_TRUE(p.weights.empty());
  EXPECT_EQ(p.target, int128(0));
}

TEST(ParseJsonErrors, FloatsAreRejected) {
  EXPECT_TRUE(fails_with(R"({"weights": [1, 2.0]})", 1, "'2.0' (weights[1]) is a decimal fraction"));
  EXPECT_TRUE(fails_with(R"({"weights": [1.5]})", 1, "decimal fraction"));
  EXPECT_TRUE(fails_with(R"({"weights": [-0.0]})", 1, "decimal fraction"));
  EXPECT_TRUE(fails_with(R"({"weights": [1e5]})", 1, "'1e5' (weights[0]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": 2.0})", 1, "target '2.0' is a decimal fraction"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": 1E3})", 1, "target '1E3' is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": 1e400})", 1, "not an integer"));
}

TEST(ParseJsonErrors, WeightsBeyond128Bits) {
  EXPECT_TRUE(fails_with(R"({"weights": [170141183460469231731687303715884105728]})", 1,
                         "'170141183460469231731687303715884105728' (weights[0]) is out of 128-bit range"));
  EXPECT_TRUE(fails_with(R"({"weights": [1, "170141183460469231731687303715884105728"]})", 1,
                         "(weights[1]) is out of 128-bit range"));
  EXPECT_TRUE(fails_with(R"({"weights": [-170141183460469231731687303715884105729]})", 1, "out of 128-bit range"));
  EXPECT_TRUE(fails_with("{\"weights\": [" + std::string(400, '9') + "]}", 1, "out of 128-bit range"));
}

TEST(ParseJsonErrors, TargetBeyond128Bits) {
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": "170141183460469231731687303715884105728"})",
                         1, "out of 128-bit range"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": 170141183460469231731687303715884105728})",
                         1, "out of 128-bit range"));
  EXPECT_TRUE(fails_with("{\"weights\": [1], \"target\": " + std::string(400, '9') + "}", 1,
                         "out of 128-bit range"));
}

TEST(ParseJsonErrors, WrongTypes) {
  EXPECT_TRUE(fails_with(R"({"weights": [1, true]})", 1, "'true' (weights[1]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [null]})", 1, "'null' (weights[0]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": ["five"]})", 1, "weight 'five' (weights[0]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [1, " 5"]})", 1, "weight ' 5' (weights[1]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": ["1.5"]})", 1, "weight '1.5' (weights[0]) is a decimal fraction"));
  EXPECT_TRUE(fails_with(R"({"weights": [""]})", 1, "weight '' (weights[0]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [[1]]})", 1, "an array (weights[0]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [{}]})", 1, "an object (weights[0]) is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": 5})", 1, "'weights' must be an array of integers"));
  EXPECT_TRUE(fails_with(R"({"weights": {"a": 1}})", 1, "'weights' must be an array of integers"));
  EXPECT_TRUE(fails_with(R"({"weights": "1 2"})", 1, "'weights' must be an array of integers"));
  EXPECT_TRUE(fails_with(R"({"weights": null})", 1, "'weights' must be an array of integers"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": false})", 1, "'target' must be"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": [5]})", 1, "'target' must be"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": {}})", 1, "'target' must be"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": "abc"})", 1, "target 'abc' is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": " 5"})", 1, "target ' 5' is not an integer"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": "1.5"})", 1, "decimal fraction"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "target": ""})", 1, "target '' is not an integer"));
}

TEST(ParseJsonErrors, Keys) {
  EXPECT_TRUE(fails_with(R"({"weights": [1], "taget": 4})", 1, "unknown key 'taget'"));
  EXPECT_TRUE(fails_with(R"({"Weights": [1]})", 1, "unknown key 'Weights'"));
  EXPECT_TRUE(fails_with(R"({"weights": [1], "weights": [2]})", 1, "key 'weights' given twice"));
  EXPECT_TRUE(fails_with(R"({"target": 1, "target": 2, "weights": []})", 1, "key 'target' given twice"));
  EXPECT_TRUE(fails_with(R"({"target": 5})", 0, "no 'weights' key"));
  EXPECT_TRUE(fails_with(R"({})", 0, "no 'weights' key"));
}

// A 'weights' key makes an instance even when its list is empty: zero-sum without a target.
TEST(ParseJson, EmptyWeightListIsTheEmptyInstance) {
  for (const char* text : {R"({"weights": []})", R"({"weights": [], "target": null})", R"({"target": null, "weights": []})"}) {
    const problem p = ssum::parse_problem(text);
    EXPECT_TRUE(p.weights.empty()) << text;
    EXPECT_TRUE(p.zero_sum()) << text;
  }
  EXPECT_EQ(ssum::parse_problem(R"({"weights": [], "target": 0})").target, ssum::int128(0));
}

TEST(ParseJsonErrors, Malformed) {
  EXPECT_TRUE(fails_with(R"({"weights": [1, 2]} x)", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with(R"({"weights": [1, 2]}{})", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with(R"({"weights": [1, 2],})", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with(R"({"weights": [1, 2,]})", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with(R"({"weights": [1 2]})", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with(R"({weights: [1]})", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with(R"({"weights": [01]})", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with(R"({"weights": [+1]})", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with("{\"weights\": [1] // comment\n}", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with("{\"weights\": [1, 2]", 1, "malformed JSON"));
  EXPECT_TRUE(fails_with("{", 1, "malformed JSON"));
}

TEST(ParseJsonErrors, LineNumbers) {
  // Syntax errors: nlohmann's byte offset becomes a line.
  EXPECT_TRUE(fails_with("{\n  \"weights\": [\n    1,\n    2x\n  ]\n}\n", 4, "malformed JSON"));
  EXPECT_TRUE(fails_with("{\r\n  \"weights\": [1],\r\n  \"target\": 5\r\n}\r\ngarbage\r\n", 5,
                         "malformed JSON"));
  // End of input is reported on the last line with content, not the blank line after it.
  EXPECT_TRUE(fails_with("{\n  \"weights\": [1, 2\n\n\n", 2, "malformed JSON"));
  // Schema errors name the line of the offending value or key too.
  EXPECT_TRUE(fails_with("{\n  \"weights\": [\n    1,\n    2,\n    2.5\n  ]\n}", 5, "'2.5'"));
  EXPECT_TRUE(fails_with("{\n  \"weights\": [\n    1,\n    2.5\n,3  ]\n}", 4, "'2.5'"));
  EXPECT_TRUE(fails_with("{\n  \"weights\": [1],\n  \"extra\": 1\n}", 3, "unknown key 'extra'"));
  EXPECT_TRUE(fails_with("{\n  \"weights\": [1],\n\n  \"target\": true\n}", 4, "'target' must be"));
}

// ---- format_problem and round trips ------------------------------------------------------

TEST(FormatProblem, ExactLayout) {
  problem p;
  p.weights = {1, -2, 3};
  p.target = 7;
  EXPECT_EQ(ssum::format_problem(p, "hello\nworld"), "# hello\n# world\ntarget: 7\n1 -2 3\n");
  EXPECT_EQ(ssum::format_problem(p), "target: 7\n1 -2 3\n");
  EXPECT_EQ(ssum::format_problem(p, "one line\n"), "# one line\ntarget: 7\n1 -2 3\n");
  EXPECT_EQ(ssum::format_problem(p, "a\n\nb"), "# a\n#\n# b\ntarget: 7\n1 -2 3\n");
  p.target.reset();
  EXPECT_EQ(ssum::format_problem(p), "1 -2 3\n");
}

TEST(FormatProblem, SixteenPerLine) {
  problem p;
  for (int i = 0; i < 33; ++i) p.weights.push_back(i);
  const std::string text = ssum::format_problem(p);
  std::string expected;
  for (int i = 0; i < 33; ++i) expected += std::to_string(i) + (i % 16 == 15 || i == 32 ? "\n" : " ");
  EXPECT_EQ(text, expected);
  p.weights.resize(32);
  const std::string even = ssum::format_problem(p);
  EXPECT_EQ(std::count(even.begin(), even.end(), '\n'), 2);
}

TEST(FormatProblem, ExtremeValues) {
  problem p;
  p.weights = {INT64_MIN, INT64_MAX};
  p.target = int128_min();
  EXPECT_EQ(ssum::format_problem(p),
            "target: -170141183460469231731687303715884105728\n"
            "-9223372036854775808 9223372036854775807\n");
}

TEST(FormatProblem, CommentCannotInjectContent) {
  problem p;
  p.weights = {5};
  const problem back = ssum::parse_problem(ssum::format_problem(p, "target: 9\n1 2 3"));
  EXPECT_EQ(back.weights, weights_t{5});
  EXPECT_TRUE(back.zero_sum());
}

TEST(FormatProblem, EmptyZeroSumSaysSoAndReadsBack) {
  // No weights to write: "target: none" keeps it an instance rather than an empty file.
  const std::string text = ssum::format_problem(problem{}, "empty");
  EXPECT_EQ(text, "# empty\ntarget: none\n");
  const problem back = ssum::parse_problem(text);
  EXPECT_TRUE(back.weights.empty());
  EXPECT_TRUE(back.zero_sum());
  // With weights, zero-sum is written as before (no target line), and "target: none" reads as zero-sum.
  EXPECT_EQ(ssum::format_problem(problem{{4, -4}, std::nullopt}), "4 -4\n");
  EXPECT_TRUE(ssum::parse_problem("target: none\n4 -4\n").zero_sum());
  EXPECT_TRUE(fails_with("target: none\ntarget: 3\n1\n", 2, "target given twice"));
  EXPECT_TRUE(fails_with("target: nothing\n1\n", 1, "'nothing'"));
}

void expect_round_trip(const problem& p, std::string_view comment = {}) {
  const std::string text = ssum::format_problem(p, comment);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const problem back = ssum::parse_problem(text);
  EXPECT_EQ(back.weights, p.weights);
  EXPECT_EQ(back.target, p.target);
}

TEST(RoundTrip, WideWeights) {
  expect_round_trip(problem{{int128_max()}, int128_min()});
  expect_round_trip(problem{{two_126, -(two_126 - 1)}, 0});  // total 2^127 - 1
  expect_round_trip(problem{{two_126 / 2, INT64_MIN, int128(INT64_MIN) - 1, int128(INT64_MAX) + 1}, std::nullopt});
  // Random weights of up to 126 bits with a total below 2^127: n * 2^(126 - 6) < 2^126 for n < 64.
  std::mt19937_64 rng(2127);
  for (int round = 0; round < 100; ++round) {
    problem p;
    const std::size_t n = 1 + rng() % 63;
    for (std::size_t i = 0; i < n; ++i) {
      const int bits = int(rng() % 121);
      const int128 m = int128(((uint128(rng()) << 64) | rng()) >> (128 - bits - 1) >> 1);
      p.weights.push_back(rng() % 2 ? -m : m);
    }
    if (round % 2) p.target = int128((uint128(rng()) << 64) | rng());
    SCOPED_TRACE("round " + std::to_string(round));
    expect_round_trip(p);
  }
}

TEST(FormatProblem, WideWeightsAreWrittenExactly) {
  const problem p{{int128_max(), -two_126 + 1, int128(INT64_MIN) - 1, 5}, std::nullopt};
  EXPECT_EQ(ssum::format_problem(p),
            "170141183460469231731687303715884105727 -85070591730234615865843651857942052863 "
            "-9223372036854775809 5\n");
}

TEST(RoundTrip, Fixed) {
  expect_round_trip(problem{{}, int128(0)});
  expect_round_trip(problem{{}, int128_max()});
  expect_round_trip(problem{{INT64_MIN}, std::nullopt});
  expect_round_trip(problem{{INT64_MIN, INT64_MAX, 0, -1, 1}, int128_min()}, "extremes\nline two");
}

TEST(RoundTrip, Random) {
  std::mt19937_64 rng(12345);
  const std::int64_t specials[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, 0, 1, -1};
  for (int round = 0; round < 300; ++round) {
    problem p;
    const std::size_t n = round == 0 ? 0 : round < 200 ? rng() % 40 : 1000 + rng() % 100;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t pick = rng() % 4;
      p.weights.push_back(pick == 0 ? specials[rng() % std::size(specials)]
                          : pick == 1 ? std::int64_t(rng() % 2001) - 1000
                                      : std::int64_t(rng()));
    }
    switch (rng() % 5) {
      case 0: break;  // zero-sum
      case 1: p.target = int128(std::int64_t(rng())); break;
      case 2: p.target = int128((uint128(rng()) << 64) | rng()); break;  // any 128-bit pattern
      case 3: p.target = rng() % 2 ? int128_min() : int128_max(); break;
      default: p.target = 0; break;
    }
    if (p.weights.empty() && !p.target) p.target = 0;  // an empty zero-sum cannot be written
    SCOPED_TRACE("round " + std::to_string(round));
    expect_round_trip(p, round % 3 ? "" : "random instance " + std::to_string(round));
  }
}

}  // namespace

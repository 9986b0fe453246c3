// Decimal amounts: parse_problem / read_problem with read_options, CSV columns, format_amount.
// Expected values come from ref_scaled: the amount's digits with the fraction padded by string
// building, read by parse_int128 (no arithmetic shared with the parser).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ssum/errors.hpp"
#include "ssum/problem.hpp"

namespace {

using ssum::int128;
using ssum::problem;
using ssum::read_options;
using weights_t = std::vector<int128>;

// "-12.5" at scale 3 -> -12500: sign, whole digits, fraction digits padded to `scale`.
int128 ref_scaled(std::string text, unsigned scale) {
  std::string sign;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) sign = text.substr(0, 1), text.erase(0, 1);
  const std::size_t point = text.find('.');
  std::string whole = point == std::string::npos ? text : text.substr(0, point);
  std::string fraction = point == std::string::npos ? "" : text.substr(point + 1);
  fraction.resize(scale, '0');
  const auto v = ssum::parse_int128(sign + (whole.empty() ? "0" : whole) + fraction);
  EXPECT_TRUE(v.has_value()) << text;
  return v.value_or(0);
}

weights_t ref_weights(const std::vector<std::string>& texts, unsigned scale) {
  weights_t out;
  for (const std::string& t : texts) out.push_back(ref_scaled(t, scale));
  return out;
}

problem parse(std::string_view text, read_options options = {}) { return ssum::parse_problem(text, options); }

// parse(text, options) fails with an input_error on `line` holding every fragment.
::testing::AssertionResult refused(std::string_view text, std::size_t line, const std::vector<std::string>& fragments,
                                   read_options options = {}) {
  try {
    parse(text, options);
    return ::testing::AssertionFailure() << "accepted";
  } catch (const ssum::input_error& e) {
    const std::string what = e.what();
    if (e.line() != line) return ::testing::AssertionFailure() << "line " << e.line() << ": " << what;
    for (const std::string& f : fragments) {
      if (what.find(f) == std::string::npos) return ::testing::AssertionFailure() << "'" << what << "' lacks '" << f << "'";
    }
    return ::testing::AssertionSuccess();
  }
}

// ---- accepted forms ------------------------------------------------------------------------

TEST(DecimalText, EveryAcceptedForm) {
  const std::vector<std::string> forms = {"1234.56", "-0.5", ".25", "1.", "-0.00", "+1.5", "-.75", "007.10", "42"};
  std::string text;
  for (const std::string& f : forms) text += f + "\n";
  const problem p = parse(text);
  EXPECT_EQ(p.decimals, 2u);
  EXPECT_EQ(p.weights, ref_weights(forms, 2));
  EXPECT_TRUE(p.zero_sum());
}

TEST(DecimalText, MixedDecimalsShareTheLargestScale) {
  const problem p = parse("1.5 2.25\n");
  EXPECT_EQ(p.decimals, 2u);
  EXPECT_EQ(p.weights, ref_weights({"1.5", "2.25"}, 2));
  // A later amount with more decimals scales everything read before it, the target too.
  const problem q = parse("target: 3.5\n1 2.5\n0.125 7\n");
  EXPECT_EQ(q.decimals, 3u);
  EXPECT_EQ(q.weights, ref_weights({"1", "2.5", "0.125", "7"}, 3));
  EXPECT_EQ(q.target, ref_scaled("3.5", 3));
}

TEST(DecimalText, TargetWithMoreDecimalsThanTheWeights) {
  const problem p = parse("12.5 7.25\ntarget: 19.755\n");
  EXPECT_EQ(p.decimals, 3u);
  EXPECT_EQ(p.weights, ref_weights({"12.5", "7.25"}, 3));
  EXPECT_EQ(p.target, ref_scaled("19.755", 3));
  // The options' target, applied last, raises the scale as well and replaces the input's.
  read_options o;
  o.target = "0.0625";
  const problem q = parse("target: 99\n1.5 2\n", o);
  EXPECT_EQ(q.decimals, 4u);
  EXPECT_EQ(q.weights, ref_weights({"1.5", "2"}, 4));
  EXPECT_EQ(q.target, ref_scaled("0.0625", 4));
}

TEST(DecimalText, IntegerInputIsUnchanged) {
  const std::string text = "# c\ntarget: -9223372036854775809\n3, -1, 4\n+5 -0 007\n";
  const problem old = ssum::parse_problem(text);
  const problem p = parse(text);
  EXPECT_EQ(p.decimals, 0u);
  EXPECT_EQ(p.weights, old.weights);
  EXPECT_EQ(p.target, old.target);
  EXPECT_EQ(old.decimals, 0u);
  // The integer entry points still refuse decimals, for callers that ignore `decimals`.
  EXPECT_THROW(ssum::parse_problem("1.5 2"), ssum::input_error);
}

TEST(DecimalText, EighteenDecimalsAcceptedNineteenRefused) {
  const std::string eighteen = "0." + std::string(17, '0') + "1";
  const problem p = parse("3 " + eighteen);
  EXPECT_EQ(p.decimals, 18u);
  EXPECT_EQ(p.weights, ref_weights({"3", eighteen}, 18));
  EXPECT_TRUE(refused("3\n1." + std::string(19, '5'), 2, {"more than 18 decimals", "(column 1)"}));
}

TEST(DecimalText, ScaledValuesNear2To127) {
  // 2^127 - 1 = 170141183460469231731687303715884105727: as 17014118346046923173168730371588410572.7
  // it scales to 2^127 - 1 exactly; one more tenth is refused.
  const std::string max_text = "170141183460469231731687303715884105727";
  const std::string tenths = max_text.substr(0, max_text.size() - 1) + "." + max_text.back();
  EXPECT_EQ(parse(tenths).weights, ref_weights({tenths}, 1));
  EXPECT_TRUE(refused("17014118346046923173168730371588410572.8", 1, {"out of 128-bit range"}));
  // A large integer is fine alone but not once another number brings in decimals.
  const std::string big = max_text.substr(0, max_text.size() - 2);  // about 2^120
  EXPECT_EQ(parse(big).weights, ref_weights({big}, 0));
  EXPECT_TRUE(refused(big + "\n0.001\n", 2, {"'0.001'", "2^127"}));
  EXPECT_TRUE(refused("target: " + big + "\n0.001\n", 2, {"target needs more than 127 bits"}));
  EXPECT_TRUE(refused("0.001\ntarget: " + big + "\n", 2, {"target '" + big + "'", "needs more than 127 bits"}));
}

// ---- refused forms ---------------------------------------------------------------------------

TEST(DecimalTextErrors, RefusedFormsNameLineAndColumn) {
  struct bad {
    std::string token, fragment;
  };
  const std::vector<bad> cases = {
      {"1e3", "has an exponent"}, {"1E-2", "has an exponent"}, {"2.5e+1", "has an exponent"},
      {"NaN", "not a finite number"}, {"inf", "not a finite number"}, {"-Infinity", "not a finite number"},
      {"1.2.3", "not a number"}, {"$5.00", "not a number"}, {"--1.5", "not a number"}, {".", "not a number"},
      {"1..5", "not a number"}};
  for (const bad& b : cases) {
    EXPECT_TRUE(refused("1.5\n  2.5 " + b.token + "\n", 2, {"'" + b.token + "' (column 7)", b.fragment})) << b.token;
  }
  EXPECT_TRUE(refused("target: 1e3\n1.5\n", 1, {"target '1e3' (column 9) has an exponent"}));
}

TEST(DecimalTextErrors, CommasAndDecimalPointsDoNotMix) {
  // Commas still separate integers.
  EXPECT_EQ(parse("1,2,3").weights, (weights_t{1, 2, 3}));
  EXPECT_TRUE(refused("1,000.00\n", 1, {"'000.00' (column 3)", "thousands separator"}));
  EXPECT_TRUE(refused("1.50 2\n3, 4\n", 2, {"comma (column 2)", "decimal amounts (line 1)", "blanks or newlines"}));
  EXPECT_TRUE(refused("3, 4\ntarget: 2.5\n", 2, {"'2.5' (column 9)", "commas between weights (line 1)"}));
  EXPECT_TRUE(refused("target: 1,000.00\n5\n", 1, {"'1,000.00' (column 9) has a thousands separator"}));
}

// ---- JSON ------------------------------------------------------------------------------------

TEST(DecimalJson, NumbersAreReadFromTheirText) {
  // 0.1 and 1234567890123.45 are not doubles; their text is exact.
  const problem p = parse(R"({"weights": [0.1, 1234567890123.45, -2, "12.50", "-.5"], "target": "0.015"})");
  EXPECT_EQ(p.decimals, 3u);
  EXPECT_EQ(p.weights, ref_weights({"0.1", "1234567890123.45", "-2", "12.50", "-.5"}, 3));
  EXPECT_EQ(p.target, ref_scaled("0.015", 3));
  const problem q = parse(R"({"weights": [3, 4], "target": 2.5})");
  EXPECT_EQ(q.weights, ref_weights({"3", "4"}, 1));
  EXPECT_EQ(q.target, ref_scaled("2.5", 1));
  // Integers beyond 64 bits, then decimals: the wide one is scaled exactly.
  const problem r = parse(R"({"weights": [18446744073709551616, 0.5]})");
  EXPECT_EQ(r.weights, ref_weights({"18446744073709551616", "0.5"}, 1));
}

TEST(DecimalJsonErrors, RefusedFormsNameIndexAndColumn) {
  EXPECT_TRUE(refused("{\"weights\": [1.5,\n  1e3]}", 2, {"'1e3' (weights[1], column 3) has an exponent"}));
  EXPECT_TRUE(refused(R"({"weights": ["1,000.00"]})", 1, {"(weights[0], column 14) has a thousands separator"}));
  EXPECT_TRUE(refused(R"({"weights": ["NaN"]})", 1, {"not a finite number"}));
  EXPECT_TRUE(refused("{\"weights\": [0." + std::string(19, '1') + "]}", 1, {"more than 18 decimals"}));
  EXPECT_TRUE(refused(R"({"weights": [1], "target": 1E-2})", 1, {"target '1E-2' (column 28) has an exponent"}));
}

// ---- format_amount and round trips ----------------------------------------------------------

// The reference: the magnitude's digits, zero-padded, with the point inserted by hand.
std::string ref_format(int128 v, unsigned decimals) {
  const bool negative = v < 0;
  std::string digits = ssum::to_string(v);
  if (negative) digits.erase(0, 1);
  if (digits.size() <= decimals) digits.insert(0, decimals + 1 - digits.size(), '0');
  if (decimals) digits.insert(digits.size() - decimals, ".");
  return (negative ? "-" : "") + digits;
}

TEST(FormatAmount, AgainstTheReference) {
  EXPECT_EQ(ssum::format_amount(123456, 2), ref_format(123456, 2));
  EXPECT_EQ(ssum::format_amount(-5, 2), ref_format(-5, 2));
  EXPECT_EQ(ssum::format_amount(0, 2), ref_format(0, 2));
  EXPECT_EQ(ssum::format_amount(-7, 0), ssum::to_string(-7));
  const int128 max = int128((ssum::uint128(1) << 127) - 1);
  EXPECT_EQ(ssum::format_amount(max, 18), ref_format(max, 18));
  EXPECT_EQ(ssum::format_amount(-max, 18), ref_format(-max, 18));
  // The text is the amount: parsing it back at the same scale gives the value.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 500; ++i) {
    const unsigned d = unsigned(rng() % 19);
    const int128 v = int128(rng() >> (rng() % 64)) * (rng() % 2 ? 1 : -1);
    const std::string text = ssum::format_amount(v, d);
    EXPECT_EQ(text, ref_format(v, d));
    EXPECT_EQ(ref_scaled(text, d), v) << text;
  }
}

TEST(FormatAmount, FormatProblemRoundTrips) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    problem p;
    p.decimals = unsigned(1 + rng() % 18);
    for (int i = 0; i < 20; ++i) p.weights.push_back(int128(rng() >> 4) * (rng() % 2 ? 1 : -1));
    if (round % 2) p.target = int128(rng() >> 3) - int128(rng() >> 3);
    const problem q = parse(ssum::format_problem(p, "amounts"));
    EXPECT_EQ(q.weights, p.weights);
    EXPECT_EQ(q.target, p.target);
    EXPECT_EQ(q.decimals, p.decimals);
  }
}

// ---- CSV ---------------------------------------------------------------------------------------

read_options column(std::string c) {
  read_options o;
  o.column = std::move(c);
  return o;
}

TEST(DecimalCsv, ByNameAndByNumber) {
  const std::string csv =
      "invoice,customer,amount\r\n"
      "A-1,\"Smith, John\",1234.56\r\n"
      "\r\n"
      "A-2,\"Doe \"\"Jr\"\"\",\"-0.5\"\r\n"
      "A-3,\"multi\nline\",  7 \r\n";
  const weights_t expected = ref_weights({"1234.56", "-0.5", "7"}, 2);
  const problem by_name = parse(csv, column("amount"));
  EXPECT_EQ(by_name.weights, expected);
  EXPECT_EQ(by_name.decimals, 2u);
  EXPECT_TRUE(by_name.zero_sum());
  // By number, the first line is a header because its field there is not an amount.
  EXPECT_EQ(parse(csv, column("3")).weights, expected);
  // Without a header every line is an amount.
  EXPECT_EQ(parse("x,10.5\ny,\"2\"\n", column("2")).weights, ref_weights({"10.5", "2"}, 1));
  // The target comes from the options only.
  read_options o = column("amount");
  o.target = "1234.06";
  EXPECT_EQ(parse(csv, o).target, ref_scaled("1234.06", 2));
}

TEST(DecimalCsvErrors, LinesAndColumns) {
  EXPECT_TRUE(refused("a,amount\nx,1.5\ny\n", 3, {"the record has 1 field, the header (line 1) 2 fields"}, column("amount")));
  EXPECT_TRUE(refused("1,2\n3,4\n", 1, {"missing field (column 3)", "has 2 fields"}, column("3")));
  EXPECT_TRUE(refused("a,amount\nx,1.5\ny,1e3\n", 3, {"'1e3' (column 2 'amount') has an exponent"}, column("amount")));
  EXPECT_TRUE(refused("a,amount\nx,\"1,000.00\"\n", 2, {"thousands separator"}, column("amount")));
  EXPECT_TRUE(refused("a,b\n1,2\n", 1, {"no column named 'amount'", "'a', 'b'"}, column("amount")));
  EXPECT_TRUE(refused("a,amount\nx,\n", 2, {"empty amount"}, column("amount")));
  EXPECT_TRUE(refused("a,amount\nx,\"1.5\n", 2, {"closing quote"}, column("amount")));
  EXPECT_TRUE(refused("a,amount\nx,\"1.5\"z\n", 2, {"after the closing quote"}, column("amount")));
  EXPECT_TRUE(refused("amount\n", 0, {"empty input"}, column("amount")));
  EXPECT_TRUE(refused("1\n", 0, {"column number 0"}, column("0")));
}

// An unquoted thousands separator splits an amount in two fields: the record is refused by its
// field count rather than read as its first part.
TEST(DecimalCsvErrors, FieldCountsMatchTheFirstRecord) {
  const std::string split = "a comma in an unquoted field splits it";
  EXPECT_TRUE(refused("invoice,amount\nA-1,1,234.56\nA-2,100.00\n", 2,
                      {"the record has 3 fields, the header (line 1) 2 fields", split}, column("amount")));
  EXPECT_TRUE(refused("invoice,amount\nA-1,1,234.56\n", 2, {"3 fields"}, column("2")));
  // One column, with a header by name or by number, and without one.
  EXPECT_TRUE(refused("amount\n1,234.56\n100.00\n", 2, {"the record has 2 fields, the header (line 1) 1 field"},
                      column("amount")));
  EXPECT_TRUE(refused("amount\n1,234.56\n", 2, {"2 fields", split}, column("1")));
  EXPECT_TRUE(refused("amount\n1.000,50\n", 2, {"2 fields"}, column("amount")));
  EXPECT_TRUE(refused("100.00\n1,234.56\n", 2, {"the record has 2 fields, the first record (line 1) 1 field"},
                      column("1")));
  EXPECT_TRUE(refused("1,234.56\n100.00\n", 2, {"the record has 1 field, the first record (line 1) 2 fields"},
                      column("1")));
  // A trailing comma is a field too; quoted commas and empty lines are not.
  EXPECT_TRUE(refused("a,amount\nx,1.5,\n", 2, {"3 fields"}, column("amount")));
  EXPECT_EQ(parse("a,amount\n\n\"x,y\",1.5\n", column("amount")).weights, ref_weights({"1.5"}, 1));
}

// ---- read_problem with options -----------------------------------------------------------------

TEST(DecimalRead, FileWithOptions) {
  const auto path = std::filesystem::temp_directory_path() / ("ssum_amounts_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path, std::ios::binary) << "id;x,amount\n1,10.10\n2,0.90\n";
  read_options o = column("amount");
  o.target = "11";
  const problem p = ssum::read_problem(path.string(), o);
  EXPECT_EQ(p.weights, ref_weights({"10.10", "0.90"}, 2));
  EXPECT_EQ(p.target, ref_scaled("11", 2));
  o.target = "1e3";  // refused before reading, without the path
  try {
    ssum::read_problem(path.string(), o);
    ADD_FAILURE() << "accepted";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(std::string(e.what()), "target '1e3' has an exponent; write the amount in full (1e3 as 1000)");
  }
  std::filesystem::remove(path);
}

}  // namespace

// `ssum solve --explain`: the plan's table printed instead of an answer, for one sum, several
// rows and a listing; its chosen plan is the one the solve then reports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace {

using namespace ssum_test;

const std::string example = std::string(SSUM_SOURCE_DIR) + "/examples/planted-24.txt";

TEST(CliExplain, PrintsTheTableInsteadOfSolving) {
  const auto r = run("solve --explain " + example);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("feasible:"), std::string::npos) << "nothing is solved";
  EXPECT_NE(r.out.find("question: decide"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("chosen"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nplan: "), std::string::npos) << r.out;
}

TEST(CliExplain, JsonCarriesTheCandidatesAndThePlanTheSolveRuns) {
  const auto e = run("solve --explain --json --memory 1G " + example);
  ASSERT_EQ(e.code, 0) << e.err;
  const auto t = nlohmann::json::parse(e.out);
  ASSERT_FALSE(t.at("candidates").empty());
  int chosen = 0;
  for (const auto& c : t.at("candidates")) {
    chosen += c.at("role") == "chosen";
    EXPECT_TRUE(c.at("seconds").is_null() || c.at("seconds").get<double>() >= 0);
  }
  EXPECT_EQ(chosen, 1);
  const auto s = nlohmann::json::parse(run("solve --json --memory 1G " + example).out);
  EXPECT_EQ(t.at("plan").at("algorithm"), s.at("plan").at("algorithm"));
  EXPECT_EQ(t.at("plan").at("reason"), s.at("plan").at("reason"));
}

TEST(CliExplain, ARefusalIsExplainedWithItsExitCode) {
  // Density 1 at n = 120 without a time limit: the solve refuses at once; --explain says why.
  const auto gen = run("gen random -n 120 --bits 120 --seed 5");
  ASSERT_EQ(gen.code, 0);
  const auto r = run("solve --explain --json -", gen.out);
  EXPECT_EQ(r.code, 3) << r.err;
  const auto t = nlohmann::json::parse(r.out);
  EXPECT_TRUE(t.at("plan").is_null());
  EXPECT_NE(t.at("refusal").get<std::string>().find("no proof is possible"), std::string::npos);
}

TEST(CliExplain, RowsAndListingsHaveTheirTables) {
  const auto dat = write_file("explain-rows.dat", "2 6\n3 5 7 2 4 6 9\n1 1 1 1 1 1 3\n");
  const auto rows = run("solve --explain --json " + dat.string());
  ASSERT_EQ(rows.code, 0) << rows.err;
  const auto t = nlohmann::json::parse(rows.out);
  EXPECT_EQ(t.at("question").get<std::string>().rfind("rows: decide", 0), 0u) << t.at("question");
  EXPECT_EQ(t.at("candidates").back().at("algorithm"), "lattice");
  const auto list = run("solve --all --explain --json " + example);
  ASSERT_EQ(list.code, 0) << list.err;
  const auto l = nlohmann::json::parse(list.out);
  EXPECT_EQ(l.at("question"), "list");
  EXPECT_FALSE(l.at("plan").is_null());
}

TEST(CliExplain, BadArgumentsAreStillRefused) {
  const auto r = run("solve --explain --algorithm completion --count " + example);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("count"), std::string::npos) << r.err;
}

}  // namespace

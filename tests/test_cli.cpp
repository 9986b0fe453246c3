// Runs the built `ssum` binary as a user would and checks exit status, stdout and stderr.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "cli_runner.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/ssum.hpp"

namespace {

using namespace ssum_test;

const std::string example = std::string(SSUM_SOURCE_DIR) + "/examples/planted-24.txt";

TEST(Cli, SolvesTheBundledExample) {
  const auto r = run("solve " + example);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("feasible:"), std::string::npos);
  EXPECT_NE(r.out.find("verified"), std::string::npos);
}

TEST(Cli, JsonOutputFollowsTheContractAndVerifies) {
  const auto r = run("solve --json " + example);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(count_lines(r.out), 1u);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("feasible").get<bool>());
  EXPECT_EQ(j.at("algorithm"), "two-list");
  EXPECT_EQ(j.at("backend"), "cpu");
  EXPECT_FALSE(j.at("zero_sum").get<bool>());
  for (const char* stage : {"generate", "prune", "search", "recover", "total", "wall"}) {
    EXPECT_TRUE(j.at("seconds").at(stage).is_number()) << stage;
  }
  EXPECT_GT(j.at("memory").at("peak_rss_bytes").get<std::uint64_t>(), 0u);
  // The printed subset is a certificate for the file's instance.
  const ssum::problem p = ssum::read_problem(example);
  EXPECT_EQ(j.at("n").get<std::size_t>(), p.weights.size());
  EXPECT_EQ(j.at("target").get<std::int64_t>(), static_cast<std::int64_t>(*p.target));
  EXPECT_TRUE(ssum::is_certificate(p, j.at("subset").get<std::vector<std::size_t>>()));
}

TEST(Cli, InfeasibleExitsOne) {
  const auto r = run("solve --json -", "target: 1000\n2 4 6 8\n");
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.at("feasible").get<bool>());
  EXPECT_FALSE(j.contains("subset"));
}

TEST(Cli, ZeroSumWhenNoTargetAndTargetOverride) {
  auto r = run("solve --json", "3 -1 -2 10\n");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("zero_sum").get<bool>());
  EXPECT_TRUE(j.at("target").is_null());
  EXPECT_EQ(j.at("subset"), nlohmann::json({0, 1, 2}));
  r = run("solve --json --target 13", "target: 5\n3 -1 -2 10\n");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("target"), 13);
  EXPECT_TRUE(ssum::is_certificate(ssum::problem{{3, -1, -2, 10}, 13}, j.at("subset").get<std::vector<std::size_t>>()));
}

// --count: 7 7 7 7 with target 14 has C(4,2) = 6 subsets; zero-sum {0, 0, 5} has 3
// non-empty ones ({0}, {0'}, {0, 0'}); a miss counts 0 and exits 1.
TEST(Cli, CountCountsEverySubset) {
  auto r = run("solve --json --count", "target: 14\n7 7 7 7\n");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("count"), "6");
  EXPECT_TRUE(ssum::is_certificate(ssum::problem{{7, 7, 7, 7}, 14}, j.at("subset").get<std::vector<std::size_t>>()));
  r = run("solve --count", "0 0 5\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solutions: 3 subsets sum to 0"), std::string::npos) << r.out;
  r = run("solve --json --count", "target: 15\n7 7 7 7\n");
  EXPECT_EQ(r.code, 1) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("count"), "0");
  EXPECT_FALSE(nlohmann::json::parse(run("solve --json", "target: 14\n7 7 7 7\n").out).contains("count"));
}

TEST(Cli, JsonInputAndWideTarget) {
  const auto r = run("solve --json", R"({"weights": [9223372036854775807, 9223372036854775807, 5], "target": "18446744073709551619"})");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("target"), "18446744073709551619");
  EXPECT_EQ(j.at("subset"), nlohmann::json({0, 1, 2}));
}

// Every bad input: exit 2 and one line on stderr naming the problem (and its line).
TEST(Cli, BadInputIsOneClearLineAndExitTwo) {
  struct bad {
    std::string input, fragment;
  };
  const bad cases[] = {
      {"1 2 x3\n", "line 1"},
      {"# c\n1 2\n3 abc\n", "line 3"},
      {"1 999999999999999999999999999999999999999999\n", "128-bit"},
      // The weights' absolute values reach 2^127: exactly 2^127 here, and -2^127 alone.
      {"1\n85070591730234615865843651857942052864 -85070591730234615865843651857942052864\n", "line 2"},
      {"{\"weights\": [\"85070591730234615865843651857942052864\", 85070591730234615865843651857942052864]}",
       "2^127"},
      {"-170141183460469231731687303715884105728\n", "2^127"},
      {"", "empty"},
      {"# only a comment\n", "empty"},
      {"{\"weights\": [1, 2,}", "line 1"},
      {"{\"weights\": [1.5e2]}", ""},  // decimal amounts are read; exponent forms are not
      {"target: 3\ntarget: 4\n1 2\n", "line 2"},
      {"target:\n1 2\n", "line 1"},
      {"1 2.5e1 3\n", "line 1"},
      {"1,000.00 5\n", "line 1"},  // a thousands separator, or a comma beside a decimal amount
  };
  for (const bad& b : cases) {
    const auto r = run("solve -", b.input);
    EXPECT_EQ(r.code, 2) << "input: " << b.input << "\nstderr: " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("ssum: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(b.fragment), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// 127-bit weights whose absolute values add up to 2^127 - 1 exactly: 2^126, -(2^126 - 4), 3.
// Solved exactly on the host under auto, weights printed in full; as JSON a target beyond 64
// bits is a decimal string. 2^126 + 4 agrees with the reachable 4 = 2^126 - (2^126 - 4) in its
// low 64 bits, and is no answer.
TEST(Cli, WideWeightsAreSolvedExactly) {
  const std::string a = "85070591730234615865843651857942052864", b = "-85070591730234615865843651857942052860";
  auto r = run("solve -", "target: 7\n" + a + " " + b + " 3\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("weights: " + a + " " + b + " 3\n"), std::string::npos) << r.out;
  const std::string json = "{\"weights\": [\"" + a + "\", \"" + b + "\", 3]}";
  for (const char* algorithm : {"two-list", "four-list"}) {
    const std::string args = std::string("solve --json --count --backend auto --algorithm ") + algorithm;
    r = run(args + " --target 85070591730234615865843651857942052867 -", json);  // 2^126 + 3
    ASSERT_EQ(r.code, 0) << algorithm << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("target"), "85070591730234615865843651857942052867");
    EXPECT_EQ(j.at("subset"), nlohmann::json({0, 2})) << algorithm;
    EXPECT_EQ(j.at("count"), "1") << algorithm;
    EXPECT_EQ(j.at("backend"), "cpu");
    r = run(args + " --target 85070591730234615865843651857942052868 -", json);  // 2^126 + 4
    EXPECT_EQ(r.code, 1) << algorithm << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out).at("count"), "0") << algorithm;
  }
}

TEST(Cli, BadUsageExitsTwo) {
  for (const char* args : {"", "frobnicate", "solve --threads 0 -", "solve --backend gpu -", "solve --algorithm magic -",
                           "solve --target 1e3 -", "solve /nonexistent/file.txt", "gen nosuchclass -n 5", "gen random",
                           "gen random -n 10 --bits 127", "gen random -n 10 --bits 125", "gen todd -n 200"}) {
    const auto r = run(args, "1 2 3\n");
    EXPECT_EQ(r.code, 2) << args << "\nstderr: " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << args << "\nstderr: " << r.err;
  }
  EXPECT_EQ(run("--help").code, 0);
  EXPECT_EQ(run("solve --help").code, 0);
  EXPECT_EQ(run("--version").code, 0);
}

TEST(Cli, TooLargeForMemoryExitsThreeWithTheBytes) {
  const auto instance = run("gen random -n 72 --seed 2");
  ASSERT_EQ(instance.code, 0);
  const auto r = run("solve --algorithm two-list -", instance.out);  // auto would take the four lists
  EXPECT_EQ(r.code, 3) << r.err;
  // "the two-list algorithm needs 1.25 TiB ...; 20.3 GiB are available": both amounts named.
  EXPECT_TRUE(std::regex_search(r.err, std::regex("needs [0-9.]+ [KMGTPE]iB.*[0-9.]+ [KMGTPE]iB are available")))
      << r.err;
  EXPECT_EQ(count_lines(r.err), 1u);
}

// --memory: the two lists of n = 40 (20 MiB) do not fit 2M, the four lists do (with 4 threads:
// each thread plans room for one residue class); bad sizes exit 2.
TEST(Cli, MemoryLimitPicksTheFourListsOrRefuses) {
  const auto instance = run("gen planted -n 40 --seed 9");
  ASSERT_EQ(instance.code, 0);
  auto r = run("solve --json --threads 4 --memory 2M -", instance.out);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("algorithm"), "four-list");
  EXPECT_LE(j.at("memory").at("planned_bytes").get<double>(), 2.0 * (1 << 20));
  r = run("solve --memory 2MiB --algorithm two-list -", instance.out);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u);
  for (const char* bad : {"12Q", "M", "0", "-5G", "99999999999T"}) {
    r = run(std::string("solve --memory ") + bad + " -", instance.out);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << bad;
  }
}

// --backend cuda: exit 3 and one line without a device; the answer with one.
TEST(Cli, CudaBackendSolvesOrExitsThree) {
  const auto r = run("solve --backend cuda -", "target: 3\n1 2\n");
  if (ssum::cuda_devices().empty()) {
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u);
  } else {
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("on cuda"), std::string::npos) << r.out;
  }
}

// --backend cuda --algorithm dp: the device's dynamic program (exit 3 without a device).
TEST(Cli, CudaDynamicProgramSolvesOrExitsThree) {
  const auto r = run("solve --json --backend cuda --algorithm dp -", "target: 1000\n3 5 7 11 400 600\n");
  if (ssum::cuda_devices().empty()) {
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u);
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("algorithm"), "dp");
  EXPECT_EQ(j.at("backend"), "cuda");
  EXPECT_EQ(j.at("plan").at("backend"), "cuda");
}

// --backend cuda --algorithm four-list: the same, by the GPU four-list.
TEST(Cli, CudaFourListSolvesOrExitsThree) {
  const auto instance = run("gen planted -n 30 --seed 5");
  ASSERT_EQ(instance.code, 0);
  const auto r = run("solve --json --count --backend cuda --algorithm four-list -", instance.out);
  if (ssum::cuda_devices().empty()) {
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u);
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("algorithm"), "four-list");
  EXPECT_EQ(j.at("backend"), "cuda");
  const auto host = run("solve --json --count --backend cpu --algorithm four-list -", instance.out);
  EXPECT_EQ(j.at("count"), nlohmann::json::parse(host.out).at("count"));
}

TEST(Cli, GenIsDeterministicAndPlantedIsSolvable) {
  const auto a = run("gen planted -n 30 --seed 11"), b = run("gen planted -n 30 --seed 11"),
             c = run("gen planted -n 30 --seed 12");
  ASSERT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  EXPECT_EQ(run("solve -", a.out).code, 0);
  const auto z = run("gen zero-sum -n 24 --seed 3");
  EXPECT_EQ(z.out.find("target"), std::string::npos);
  EXPECT_EQ(run("solve", z.out).code, 0);
  EXPECT_EQ(run("solve", run("gen evenodd -n 24").out).code, 1);
}

TEST(Cli, ProgressGoesToStderrOnRequest) {
  const auto r = run("solve --progress " + example);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.err.find("generate A"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("search"), std::string::npos) << r.err;
}

// Ctrl-C: tests/test_cli_solve.cpp, at each long stage, without racing a fixed sleep.

// A planted instance large enough for the solver to start its OpenMP team.
std::string planted_40() {
  static const std::string path = write_file("planted40.txt", run("gen planted -n 40 --seed 9").out).string();
  return path;
}

std::size_t count_ssum_lines(const std::string& err) {
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = err.find("ssum: ", at)) != std::string::npos; ++at) {
    if (at == 0 || err[at - 1] == '\n') ++lines;
  }
  return lines;
}

// OMP_NUM_THREADS is held to --threads' range before any OpenMP call: libgomp crashed at
// 65536 and exited 1 ("proven infeasible") at 40000. libgomp itself warns at start-up about
// a value it cannot parse, so only ssum's own lines are counted for those.
TEST(Cli, OmpNumThreadsIsValidated) {
  for (const char* value : {"65536", "40000", "4097", "0", "4,0", "4,,2", "2,", "abc", "-1", ""}) {
    const auto r = run("solve " + planted_40(), "", std::string("OMP_NUM_THREADS='") + value + "' ");
    EXPECT_EQ(r.code, 2) << value << ": " << r.err;
    EXPECT_EQ(count_ssum_lines(r.err), 1u) << value << ": " << r.err;
    EXPECT_NE(r.err.find("ssum: OMP_NUM_THREADS: '" + std::string(value) + "'"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << value;
  }
  for (const char* value : {"65536", "40000"}) {  // values libgomp parses: one line in all
    EXPECT_EQ(count_lines(run("solve " + planted_40(), "", std::string("OMP_NUM_THREADS=") + value + " ").err), 1u);
  }
  for (const char* value : {"2", "4,2", " 3 "}) {
    const auto r = run("solve --json " + planted_40(), "", std::string("OMP_NUM_THREADS='") + value + "' ");
    EXPECT_EQ(r.code, 0) << value << ": " << r.err;
  }
  EXPECT_EQ(run("solve " + example, "", "OMP_NUM_THREADS=4096 ").code, 0);  // too small for a team
  EXPECT_EQ(nlohmann::json::parse(run("solve --json " + planted_40(), "", "OMP_NUM_THREADS=3,2 ").out).at("threads"), 3);
  EXPECT_EQ(run("info", "", "OMP_NUM_THREADS=65536 ").code, 2);
  EXPECT_EQ(run("gen random -n 3", "", "OMP_NUM_THREADS=65536 ").code, 0);  // gen makes no OpenMP call
}

// libgomp calls exit(1) when it cannot create its threads; that is no verdict but exit 4.
// An address-space limit makes the team's thread stacks fail (512 MiB each: a team is capped
// at 4 threads per hardware thread, so the count alone no longer does it; sanitizers reserve
// too much for it).
TEST(Cli, ThreadCreationFailureIsAnInternalError) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ulimit -v and a sanitizer's shadow memory do not mix";
#else
  const auto r = run("solve " + planted_40(), "", "ulimit -v 1000000; OMP_NUM_THREADS=4096 OMP_STACKSIZE=512M ");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("\nssum: internal error: a library ended the process during the solve"), std::string::npos)
      << r.err;
  EXPECT_EQ(count_ssum_lines(r.err), 1u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
#endif
}

// A full disk is not a delivered answer: exit 4 and one line naming the error.
TEST(Cli, WriteErrorsExitFour) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string enospc = "ssum: cannot write the answer to standard output: No space left on device\n";
  for (const std::string& args : {"solve --json " + example, "solve " + example, std::string("gen random -n 100"),
                                  std::string("info")}) {
    const auto r = run_shell("\"$SSUM\" " + args + " >/dev/full");
    EXPECT_EQ(r.code, 4) << args << ": " << r.err;
    EXPECT_EQ(r.err, enospc) << args;
  }
  const auto r = run_shell("\"$SSUM\" --help >/dev/full");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_EQ(r.err, "ssum: cannot write to standard output: No space left on device\n");
}

// A closed pipe ends ssum by SIGPIPE, quietly, even when the parent ignores SIGPIPE (which
// made writes fail with EPIPE, unnoticed, and exit 0).
TEST(Cli, ClosedPipeEndsQuietly) {
  for (const char* trap : {"", "trap '' PIPE; "}) {
    const auto r = run_shell(std::string(trap) +
                             "( \"$SSUM\" gen random -n 100000; echo \"status $?\" >&2 ) | head -c1 >/dev/null");
    EXPECT_EQ(r.err, "status 141\n") << trap;
  }
}

// NUL bytes stop the reading at once; an endless text stops at ssum::max_input_bytes. The
// address-space limit keeps a regression from taking the machine's memory.
TEST(Cli, UnboundedInputIsRefused) {
  for (const std::string& script : {std::string("\"$SSUM\" solve /dev/zero"), std::string("\"$SSUM\" solve </dev/zero"),
                                    std::string("printf '1 2\\n3\\000' | \"$SSUM\" solve")}) {
    const auto r = run_shell(script);
    EXPECT_EQ(r.code, 2) << script << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("NUL byte"), std::string::npos) << r.err;
  }
  EXPECT_NE(run_shell("\"$SSUM\" solve </dev/zero").err.find("<stdin>: line 1: "), std::string::npos);
  EXPECT_NE(run_shell("printf '1 2\\n3\\000' | \"$SSUM\" solve").err.find("line 2: "), std::string::npos);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const std::string limit;
#else
  const std::string limit = "ulimit -v 4000000; ";
#endif
  const auto r = run_shell(limit + "yes 1 | \"$SSUM\" solve");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "ssum: <stdin>: more than 1 GiB of input (ssum::max_input_bytes)\n");
}

// Echoed values keep the message on one line: bytes outside printable ASCII are \xNN.
TEST(Cli, EchoedValuesAreEscaped) {
  struct echo {
    std::string script, shown;
  };
  const echo cases[] = {
      {"\"$SSUM\" solve --target \"$(printf '1\\n2')\" " + example, "'1\\x0a2'"},
      {"\"$SSUM\" solve --memory \"$(printf '8\\tG\\033[0m')\" " + example, "'8\\x09G\\x1b[0m'"},
      {"\"$SSUM\" solve \"$(printf '/no/such\\nfile')\"", "'/no/such\\x0afile'"},
      {"printf '1 2\\0013\\n' | \"$SSUM\" solve", "'2\\x013'"},
      {"\"$SSUM\" solve --backend \"$(printf 'g\\npu')\" " + example, "g\\x0apu"},
  };
  for (const echo& e : cases) {
    const auto r = run_shell(e.script);
    EXPECT_EQ(r.code, 2) << e.script << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(e.shown), std::string::npos) << r.err;
  }
}

// Values that were accepted silently: an empty --target (ignored: zero-sum followed), any
// "--option=" (CLI11 took the next argument as the value), a seed that wrapped.
TEST(Cli, EmptyAndWrappingValuesExitTwo) {
  struct bad {
    std::string args, named;
  };
  const bad cases[] = {
      {"solve --target '' -", "--target"},      {"solve --target= --json -", "--target"},
      {"solve --threads= -", "--threads"},      {"solve --memory= -", "--memory"},
      {"solve --memory '' -", "--memory"},      {"solve --backend= -", "--backend"},
      {"gen random -n 3 --seed -1", "--seed"}, {"gen random -n 3 --seed 99999999999999999999999", "--seed"},
      {"gen random -n 3 --seed 18446744073709551616", "--seed"}, {"gen random -n 3 --seed ''", "--seed"},
      {"gen random -n 3 --seed +5", "--seed"},  {"gen random -n 3 --seed 0x10", "--seed"},
  };
  for (const bad& b : cases) {
    const auto r = run(b.args, "1 2\n");
    EXPECT_EQ(r.code, 2) << b.args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << b.args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("ssum: " + b.named, 0), 0u) << b.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << b.args;
  }
  const auto top = run("gen random -n 3 --seed 18446744073709551615");
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_EQ(top.out.rfind("# ssum gen random -n 3 --seed 18446744073709551615\n", 0), 0u) << top.out;
  EXPECT_NE(run("gen random -n 3 --seed 0").out, run("gen random -n 3 --seed 1").out);
}

// Empty input with --target is the empty instance: target 0 is met by the empty subset,
// another target is infeasible. Without a target it stays an error.
TEST(Cli, EmptyInputWithATargetIsTheEmptyInstance) {
  auto r = run("solve --json --target 0", "");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("subset"), nlohmann::json::array());
  EXPECT_EQ(j.at("n"), 0);
  EXPECT_EQ(j.at("target"), 0);
  EXPECT_EQ(run("solve --target 5", "# nothing\n").code, 1);
  r = run("solve", "");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "ssum: <stdin>: empty input: no weights and no target\n");
}

// A closed standard input is a read error, not an empty input.
TEST(Cli, ClosedStandardInputIsAReadError) {
  for (const char* args : {"solve <&-", "solve - <&-", "solve --target 0 <&-"}) {
    const auto r = run_shell(std::string("\"$SSUM\" ") + args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(r.err, "ssum: cannot read standard input: Bad file descriptor\n") << args;
  }
}

TEST(Cli, InfoNamesTheBuild) {
  const auto r = run("info");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("CUDA backend"), std::string::npos);
  EXPECT_NE(r.out.find("host threads"), std::string::npos);
}

}  // namespace

namespace {

// One version everywhere: the CMake project version, through ssum/version.hpp.
TEST(Cli, VersionIsTheProjectVersion) {
  auto r = run("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("ssum ") + ssum::version + "\n");
  EXPECT_EQ(std::string(ssum::version),
            std::to_string(SSUM_VERSION_MAJOR) + "." + std::to_string(SSUM_VERSION_MINOR) + "." +
                std::to_string(SSUM_VERSION_PATCH));
  r = run("solve --json " + example);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("version"), ssum::version);
}

// --json's "plan": what ran, where, and why in a sentence; it agrees with "algorithm" and
// "backend".
TEST(Cli, JsonReportsThePlanAndItsReason) {
  const auto instance = run("gen planted -n 40 --seed 9");
  ASSERT_EQ(instance.code, 0);
  auto r = run("solve --json --threads 2 -", instance.out);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("plan")) << r.out;
  EXPECT_EQ(j.at("plan").at("algorithm"), j.at("algorithm"));
  EXPECT_EQ(j.at("plan").at("backend"), "cpu");
  const std::string reason = j.at("plan").at("reason");
  EXPECT_NE(reason.find("the host would take about"), std::string::npos) << reason;
  EXPECT_NE(reason.find("on 2 threads, less than a CUDA start-up (0.4 s)"), std::string::npos) << reason;

  r = run("solve --json --threads 4 --memory 2M -", instance.out);
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("plan").at("algorithm"), "four-list");
  const std::string limited = j.at("plan").at("reason");
  EXPECT_NE(limited.find("need 20.0 MiB, more than the 2.00 MiB within the memory limit"), std::string::npos) << limited;

  r = run("solve --json --backend cpu --target 100 -", "1 2 4\n");
  ASSERT_EQ(r.code, 1) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("plan").at("reason"),
            "the target 100 lies outside [0, 7], the sums a subset can reach: infeasible without building any list");
}

// --threads: the host's threads on cpu (reported as given); under auto they enter the choice
// (and its reason); on cuda they drive the host's share of the solve (the two-list's
// certificate: two halves side by side, or one after the other with --threads 1).
TEST(Cli, ThreadsDriveTheHostAndTheChoice) {
  const auto instance = run("gen planted -n 40 --seed 9");
  ASSERT_EQ(instance.code, 0);
  auto r = run("solve --json --backend cpu --threads 3 -", instance.out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("threads"), 3);
  r = run("solve --json --threads 1 -", instance.out);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string reason = nlohmann::json::parse(r.out).at("plan").at("reason");
  EXPECT_NE(reason.find("on 1 thread,"), std::string::npos) << reason;
  r = run("solve --json --backend cuda --threads 1 -", instance.out);
  if (ssum::cuda_devices().empty()) {
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u);
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("backend"), "cuda");
  EXPECT_EQ(j.at("threads"), 1);
  r = run("solve --json --backend cuda -", instance.out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("threads"), 2);
}

}  // namespace

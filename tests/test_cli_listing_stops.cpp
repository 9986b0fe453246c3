// How a listing stops, as a user meets it: SIGTERM, SIGINT and --time-limit while standard
// output is a FIFO nobody reads (the writer must not wait for the reader), SIGINT during the
// dp's table build, and what the summary says of an interrupted listing. The goal is 0.5 s;
// the tests hold it to 5x that. The timing tests are named CliSolve.Interrupt* so that they
// run alone (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using namespace ssum_test;
using clock_type = std::chrono::steady_clock;

constexpr double stop_bound = 5 * 0.5;

// 40 weights of 1 to 100, half their sum as the target: billions of subsets, listed for minutes.
fs::path many_subsets() {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> w(1, 100);
  std::string text;
  long long total = 0;
  for (int i = 0; i < 40; ++i) {
    const int v = w(rng);
    total += v;
    text += std::to_string(v) + " ";
  }
  return write_file("many40.txt", "target: " + std::to_string(total / 2) + "\n" + text + "\n");
}

// Waits for `pid` at most `limit` seconds, then kills it (a test of a process that ignores its
// stop must end, and fail). The exit status, or 128 + the signal.
int wait_at_most(pid_t pid, double limit) {
  const auto start = clock_type::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (clock_type::now() - start > std::chrono::duration<double>(limit)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return decode_status(status);
}

struct fifo_run {
  int code = -1;
  double after = 0;  // seconds from the signal (or the time limit's end) to the exit
  std::string read;  // what the reader got, read after the exit
};

// `ssum solve --all --json` of many subsets into a FIFO that is opened for reading but not
// read (the pipe fills at once), stopped by `sig` after 1.5 s or by `--time-limit 1` (sig 0).
fifo_run into_stalled_fifo(int sig, const std::string& name) {
  const fs::path fifo = scratch_dir() / (name + ".fifo");
  fs::remove(fifo);
  EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so that the writer's open does not wait
  EXPECT_GE(reader, 0);
  const fs::path input = many_subsets(), err = scratch_dir() / (name + "_err.txt");
  std::vector<std::string> args{SSUM_BINARY, "solve", input.string(), "--all", "--json"};
  if (sig == 0) args.insert(args.end(), {"--time-limit", "1"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, fifo.c_str(), O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const auto start = clock_type::now();
  EXPECT_EQ(posix_spawn(&pid, SSUM_BINARY, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  fifo_run r;
  if (pid <= 0) return r;
  auto from = start + std::chrono::seconds(1);
  if (sig != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    from = clock_type::now();
    kill(pid, sig);
  }
  r.code = wait_at_most(pid, 15);
  r.after = std::chrono::duration<double>(clock_type::now() - from).count();
  // The writer has gone: the reader now gets what was written, then the end of the file.
  fcntl(reader, F_SETFL, 0);
  char buffer[1 << 16];
  for (ssize_t n; (n = read(reader, buffer, sizeof buffer)) > 0;) r.read.append(buffer, std::size_t(n));
  close(reader);
  return r;
}

// Every line whole: ends with a newline and is one JSON object.
void expect_whole_lines(const std::string& text, const std::string& what) {
  ASSERT_FALSE(text.empty()) << what << ": nothing was written";
  EXPECT_EQ(text.back(), '\n') << what << ": the last line is torn";
  std::istringstream lines(text);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_TRUE(nlohmann::json::accept(line)) << what << ": line " << count << " is not whole: " << line;
  }
  EXPECT_GT(count, 10u) << what;
}

TEST(CliSolve, InterruptListingIntoAStalledReader) {
  for (const int sig : {SIGTERM, SIGINT}) {
    const std::string what = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    const fifo_run r = into_stalled_fifo(sig, "stalled_" + what);
    EXPECT_EQ(r.code, 130) << what;
    EXPECT_LT(r.after, stop_bound) << what << ": the listing waited for its reader";
    expect_whole_lines(r.read, what);
    std::printf("[ latency  ] stalled reader, %s: %.3f s\n", what.c_str(), r.after);
  }
}

TEST(CliSolve, InterruptListingIntoAStalledReaderByTheTimeLimit) {
  const fifo_run r = into_stalled_fifo(0, "stalled_limit");
  EXPECT_EQ(r.code, 5);
  EXPECT_LT(r.after, stop_bound) << "the listing waited for its reader past --time-limit 1";
  expect_whole_lines(r.read, "--time-limit 1");
  std::printf("[ latency  ] stalled reader, --time-limit 1: %.3f s after the limit\n", r.after);
}

// Four weights whose sums span 10^10 values: the dp's table (about 6 GB, touched row by row)
// takes seconds to build; SIGINT 0.5 s in, or --time-limit 1, must stop it within 0.5 s.
TEST(CliSolve, InterruptDpTableBuild) {
  const fs::path in = write_file("spread4.txt", "-4772169777 594089 1006844244338 365549\n");
  for (const bool limit : {false, true}) {
    std::vector<std::string> args{"solve", in.string(), "--target-range", "5", "45", "--algorithm", "dp", "--all"};
    if (limit) args.insert(args.end(), {"--time-limit", "1"});
    const auto start = clock_type::now();
    const spawned s = spawn(args, limit ? "dp_limit" : "dp_int");
    ASSERT_NE(s.pid, 0);
    auto from = start + std::chrono::seconds(1);
    if (!limit) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      from = clock_type::now();
      kill(s.pid, SIGINT);
    }
    const int code = wait_at_most(s.pid, 15);
    const double after = std::chrono::duration<double>(clock_type::now() - from).count();
    EXPECT_EQ(code, limit ? 5 : 130) << read_all(s.err);
    EXPECT_LT(after, stop_bound) << (limit ? "--time-limit 1" : "SIGINT");
    std::printf("[ latency  ] dp table build, %s: %.3f s\n", limit ? "--time-limit 1" : "SIGINT", after);
  }
}

// The summary of an interrupted listing says what ran: its algorithm, its plan and its seconds.
TEST(CliListing, InterruptedSummarySaysWhatRan) {
  const fs::path many = many_subsets();
  const fs::path r54 = write_file("r54.txt", run("gen random -n 54 --seed 4").out);
  const std::vector<std::vector<std::string>> cases{
      {"solve", many.string(), "--all", "--algorithm", "four-list", "--json"},
      {"solve", r54.string(), "--unique", "--backend", "cpu", "--json"}};
  for (const auto& args : cases) {
    const std::string what = args[2];
    const spawned s = spawn(args, "summary");
    ASSERT_NE(s.pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    kill(s.pid, SIGINT);
    EXPECT_EQ(wait_at_most(s.pid, 15), 130) << what;
    const std::string out = read_all(s.out);
    const std::size_t last = out.rfind('\n', out.size() - 2);
    const nlohmann::json summary = nlohmann::json::parse(out.substr(last == std::string::npos ? 0 : last + 1));
    EXPECT_EQ(summary.at("status"), "interrupted") << what;
    EXPECT_EQ(summary.at("complete"), false) << what;
    if (args[3] == "--algorithm") EXPECT_EQ(summary.at("algorithm"), "four-list") << what;
    ASSERT_TRUE(summary.at("plan").is_object()) << what << ": " << summary.dump();
    EXPECT_EQ(summary.at("plan").at("algorithm"), summary.at("algorithm")) << what;
    ASSERT_TRUE(summary.at("seconds").at("total").is_number()) << what;
    EXPECT_GT(summary.at("seconds").at("total").get<double>(), 0.5) << what;
    EXPECT_TRUE(summary.at("memory").at("planned_bytes").is_number()) << what;
  }
}

// A decision over a number of items answers as every decision does: feasible or infeasible.
TEST(CliListing, ItemsDecisionHasTheDecisionStatuses) {
  const std::string in = "target: 5\n1 2 3 4 9\n";
  const auto yes = run("solve --items 2 --json -", in);
  ASSERT_EQ(yes.code, 0) << yes.err;
  EXPECT_EQ(nlohmann::json::parse(yes.out).at("status"), "feasible") << yes.out;
  const auto no = run("solve --items 4 --json -", in);
  ASSERT_EQ(no.code, 1) << no.err;
  EXPECT_EQ(nlohmann::json::parse(no.out).at("status"), "infeasible") << no.out;
}

}  // namespace

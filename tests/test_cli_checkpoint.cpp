// `ssum solve --checkpoint` as a hostile user meets it: paths that cannot serve are refused
// before the search, flags without their file are errors, SIGTERM keeps the file as Ctrl-C
// does, and a process killed at the named points of the checkpoint's life (SSUM_FAULT: after
// a write, after units are recorded, before a complete answer removes its file) leaves a file
// from which the same command gives the answer of one whole run.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using namespace ssum_test;
using clock_type = std::chrono::steady_clock;

std::string four_list(const std::string& extra) {
  return "solve --json --algorithm four-list --backend cpu --threads 2 " + extra + " ";
}

// A checkpoint file in the scratch folder, not there yet.
fs::path fresh(const std::string& name) {
  const fs::path file = scratch_dir() / name;
  fs::remove(file);
  return file;
}

TEST(CliCheckpoint, PathsThatCannotServeAreRefusedBeforeTheSearch) {
  const fs::path in = write_file("ck44.txt", run("gen random -n 44 --seed 2").out);
  // A FIFO used to block the first read through --time-limit and Ctrl-C.
  const fs::path fifo = fresh("ck.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = clock_type::now();
  const auto on_fifo = run(four_list("--checkpoint " + fifo.string()) + in.string());
  EXPECT_EQ(on_fifo.code, 2) << on_fifo.err;
  EXPECT_NE(on_fifo.err.find("not a regular file"), std::string::npos) << on_fifo.err;
  EXPECT_LT(std::chrono::duration<double>(clock_type::now() - start).count(), 30.0);
  // A folder, a folder that is not there, a device: refused at start, exit 2, one line.
  for (const std::string& path : {scratch_dir().string(), (scratch_dir() / "no" / "such" / "ck").string(),
                                  std::string("/dev/null")}) {
    const auto r = run(four_list("--checkpoint " + path) + in.string());
    EXPECT_EQ(r.code, 2) << path << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("checkpoint"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "no answer from a refused run";
  }
  // The path is checked before a large input is read: standard input is never opened.
  const auto before_input = run("solve --checkpoint " + (scratch_dir() / "no" / "ck").string() + " -", "not weights");
  EXPECT_EQ(before_input.code, 2);
  EXPECT_NE(before_input.err.find("checkpoint"), std::string::npos) << before_input.err;
}

TEST(CliCheckpoint, FlagsWithoutTheirFileAreErrors) {
  const fs::path in = write_file("ck30.txt", run("gen random -n 30 --seed 2").out);
  const auto every = run("solve --checkpoint-every 1 " + in.string());
  EXPECT_EQ(every.code, 2);
  EXPECT_NE(every.err.find("--checkpoint-every needs --checkpoint"), std::string::npos) << every.err;
  const auto empty = run("solve --checkpoint '' " + in.string());
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.err;
}

// SIGTERM (kill's default) stops a search as Ctrl-C does: exit 130 and the file written; the
// same command continues it to the whole run's count.
TEST(CliCheckpoint, SigtermKeepsTheFileAsCtrlCDoes) {
  const fs::path in = write_file("ck52.txt", run("gen random -n 52 --seed 4").out);
  const auto whole = run(four_list("--count") + in.string());
  ASSERT_LE(whole.code, 1) << whole.err;
  const fs::path file = fresh("term.ckpt");
  const spawned s = spawn({"solve", "--count", "--algorithm", "four-list", "--backend", "cpu", "--threads", "2",
                           "--checkpoint", file.string(), "--checkpoint-every", "60", in.string()},
                          "term");
  ASSERT_NE(s.pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(s.pid, SIGTERM);
  ASSERT_EQ(s.wait(), 130) << read_all(s.err);
  ASSERT_TRUE(fs::exists(file)) << "SIGTERM left no checkpoint (the first write was 60 s away)";
  const auto resumed = run(four_list("--count --checkpoint " + file.string()) + in.string());
  ASSERT_EQ(resumed.code, whole.code) << resumed.err;
  EXPECT_EQ(nlohmann::json::parse(resumed.out).at("count"), nlohmann::json::parse(whole.out).at("count"));
  EXPECT_FALSE(fs::exists(file));
}

// Killed at each named point, counting and deciding: the file left behind gives the whole
// run's verdict, count and a subset that verifies, never "none" for a feasible instance.
TEST(CliCheckpoint, KilledAtEachNamedPointTheFileGivesTheWholeAnswer) {
  // One subset (wide weights): the unit that holds it is the one a decision finishes last.
  const fs::path in = write_file("ck44p.txt", run("gen planted -n 44 --bits 50 --seed 7").out);
  for (const bool count : {false, true}) {
    const std::string flags = count ? "--count" : "";
    const auto whole = run(four_list(flags) + in.string());
    ASSERT_EQ(whole.code, 0) << whole.err;
    const nlohmann::json want = nlohmann::json::parse(whole.out);
    for (const std::string point : {"written:1", "written:3", "finished:1", "finished:40", "removing"}) {
      SCOPED_TRACE(std::string(count ? "count" : "decision") + ", killed at " + point);
      const fs::path file = fresh("point.ckpt");
      const auto killed = run(four_list(flags + " --checkpoint " + file.string() + " --checkpoint-every 0.000001") +
                                  in.string(),
                              "", "SSUM_FAULT=" + point + " ");
      if (killed.code != 128 + SIGKILL) {  // the point was not reached (the answer came first)
        EXPECT_EQ(killed.code, 0) << killed.err;
        continue;
      }
      const auto resumed = run(four_list(flags + " --checkpoint " + file.string()) + in.string());
      ASSERT_EQ(resumed.code, 0) << resumed.err;
      const nlohmann::json got = nlohmann::json::parse(resumed.out);
      EXPECT_TRUE(got.at("feasible").get<bool>());
      if (count) EXPECT_EQ(got.at("count"), want.at("count"));
      EXPECT_FALSE(fs::exists(file));
    }
  }
}

}  // namespace

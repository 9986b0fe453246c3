// `mpirun -np K ssum solve`: the same verdicts and counts as one process on signed, zero-sum,
// planted and no-instances with 1, 2 and 3 ranks (oversubscribed on a small machine); a rank
// that fails or is killed ends the job non-zero naming the rank, never with a verdict; a
// killed job's checkpoint continues to the whole count. Skipped in a build without MPI.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.hpp"
#include "ssum/ssum.hpp"

namespace {

using namespace ssum_test;
using clock_type = std::chrono::steady_clock;

// Root may run mpirun here (CI machines run as root); shared memory between the ranks only.
const std::string mpi_env =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_rmaps_base_oversubscribe=1 ";

bool have_mpirun() {
  return SSUM_TESTS_HAVE_MPI && std::system("command -v mpirun >/dev/null 2>&1") == 0;
}

#define SKIP_WITHOUT_MPI()                                                                   \
  if (!have_mpirun()) GTEST_SKIP() << "built without MPI, or no mpirun: the MPI job not exercised"

run_result mpirun(int ranks, const std::string& args) {
  return run_shell(mpi_env + "mpirun --bind-to none -np " + std::to_string(ranks) + " \"$SSUM\" " + args + " </dev/null");
}

ssum::problem read_instance(const fs::path& file) { return ssum::read_problem(file.string(), std::nullopt); }

struct instance {
  std::string name, text;
};

// No reduction settles these: the four-list runs over many units (n = 40..44).
std::vector<instance> instances() {
  std::vector<instance> out = {
      {"planted", run("gen planted -n 44 --seed 3").out},
      {"zerosum", run("gen zero-sum -n 40 --bits 14 --seed 5").out},
      {"dense", run("gen random -n 44 --bits 16 --seed 3").out},   // many solutions
      {"none", run("gen random -n 44 --seed 3").out},              // none
  };
  // Signed weights with a target: many solutions, some negative weights.
  std::ostringstream signed_text;
  std::uint64_t x = 99;
  signed_text << "target: 1234\n";
  for (int i = 0; i < 42; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    signed_text << (std::int64_t(x >> 44) - (std::int64_t(1) << 19)) << ' ';
  }
  out.push_back({"signed", signed_text.str() + "\n"});
  return out;
}

TEST(CliMpi, SameAnswersAsOneProcess) {
  SKIP_WITHOUT_MPI();
  for (const instance& in : instances()) {
    const fs::path file = write_file("mpi_" + in.name + ".txt", in.text);
    const ssum::problem p = read_instance(file);
    for (const std::string count : {"--count ", ""}) {
      const std::string args = "solve --json --algorithm four-list " + count + file.string();
      const auto alone = run(args);
      ASSERT_LE(alone.code, 1) << in.name << ": " << alone.err;
      const auto one = nlohmann::json::parse(alone.out);
      for (int k = 1; k <= 3; ++k) {
        const auto r = mpirun(k, args);
        const std::string what = in.name + " " + count + "on " + std::to_string(k) + " ranks: " + r.err;
        ASSERT_EQ(r.code, alone.code) << what;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j.at("status"), one.at("status")) << what;
        EXPECT_EQ(j.at("ranks"), k) << what;
        EXPECT_EQ(j.at("rank_seconds").size(), std::size_t(k)) << what;
        if (!count.empty()) EXPECT_EQ(j.at("count"), one.at("count")) << what;
        if (j.at("feasible") == true) {
          EXPECT_TRUE(ssum::is_certificate(p, j.at("subset").get<std::vector<std::size_t>>())) << what;
        }
        if (j.at("status") == "infeasible" || !count.empty()) EXPECT_EQ(j.at("shared"), true) << what;
      }
    }
  }
}

// A decision ends on every rank once a subset is found: on an instance with many solutions,
// in a fifth of the time the whole search (the count) takes. (Which rank finds it is not
// fixed; the in-process shares of test_work_share.cpp stop a coordinator that did not.)
TEST(CliMpi, TheFirstSubsetStopsEveryRank) {
  SKIP_WITHOUT_MPI();
  const fs::path file = write_file("mpi_early.txt", run("gen random -n 52 --bits 40 --seed 8").out);
  const std::string args = "solve --json --backend cpu --algorithm four-list --threads 1 ";
  const auto whole = run(args + "--count " + file.string());
  ASSERT_EQ(whole.code, 0) << whole.err;
  const double whole_seconds = nlohmann::json::parse(whole.out).at("seconds").at("total").get<double>();
  const auto r = mpirun(3, args + file.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(ssum::is_certificate(read_instance(file), j.at("subset").get<std::vector<std::size_t>>()));
  for (const auto& seconds : j.at("rank_seconds")) {
    EXPECT_LT(seconds.get<double>(), whole_seconds / 5) << "a rank ran on after the subset was found: " << r.out;
  }
}

// Plans that are not the four-list run on rank 0 alone and say so; the others end quietly.
TEST(CliMpi, OtherPlansRunOnRankZeroAlone) {
  SKIP_WITHOUT_MPI();
  const fs::path file = write_file("mpi_small.txt", run("gen random -n 30 --seed 2").out);
  const auto alone = run("solve --algorithm two-list " + file.string());
  const auto r = mpirun(2, "solve --algorithm two-list " + file.string());
  EXPECT_EQ(r.code, alone.code) << r.err;
  EXPECT_NE(r.out.find("ran on rank 0 alone"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), alone.out.substr(0, alone.out.find('\n')));
}

// --explain under mpirun: rank 0 prints the table, once.
TEST(CliMpi, ExplainPrintsOneTable) {
  SKIP_WITHOUT_MPI();
  const fs::path file = write_file("mpi_explain.txt", run("gen random -n 30 --seed 2").out);
  const auto r = mpirun(3, "solve --explain " + file.string());
  EXPECT_EQ(r.code, 0) << r.err;
  std::size_t plans = 0;
  for (std::size_t at = r.out.find("\nplan: "); at != std::string::npos; at = r.out.find("\nplan: ", at + 1)) ++plans;
  EXPECT_EQ(plans, 1u) << r.out;
}

// Bad input on rank 0 ends every rank with its exit code, said once.
TEST(CliMpi, BadInputEndsEveryRank) {
  SKIP_WITHOUT_MPI();
  const fs::path file = write_file("mpi_bad.txt", "1 2 x 4\n");
  const auto r = mpirun(3, "solve " + file.string());
  EXPECT_EQ(r.code, 2) << r.err;
  std::size_t said = 0;
  for (std::size_t at = r.err.find("ssum: "); at != std::string::npos; at = r.err.find("ssum: ", at + 1)) ++said;
  EXPECT_EQ(said, 1u) << r.err;
}

// A rank whose plan fails (rank 1 given too little memory, by mpirun's MPMD form) ends the job
// with that failure's exit code and the rank's name, and no verdict on stdout.
TEST(CliMpi, AFailedRankEndsTheJobNamingIt) {
  SKIP_WITHOUT_MPI();
  const fs::path file = write_file("mpi_fail.txt", run("gen random -n 44 --seed 3").out);
  const std::string args = " solve --algorithm four-list --count " + file.string();
  const auto r = run_shell(mpi_env + "mpirun --bind-to none -np 1 \"$SSUM\"" + args + " : -np 1 \"$SSUM\"" + args +
                           " --memory 1K </dev/null");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("rank 1: "), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("infeasible"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("solutions"), std::string::npos) << r.out;
}

// The pids of the processes below `root` (children, grandchildren: launchers differ) whose
// environment names MPI rank `rank`.
std::vector<pid_t> ranks_of(pid_t root, int rank) {
  std::map<pid_t, pid_t> parent;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    parent[static_cast<pid_t>(std::stol(name))] = ppid;
  }
  const auto below_root = [&](pid_t p) {
    for (int depth = 0; depth < 8 && p > 1; ++depth) {
      const auto up = parent.find(p);
      if (up == parent.end()) return false;
      if (up->second == root) return true;
      p = up->second;
    }
    return false;
  };
  std::vector<pid_t> found;
  const std::string names[] = {"OMPI_COMM_WORLD_RANK=" + std::to_string(rank), "PMIX_RANK=" + std::to_string(rank)};
  for (const auto& [pid, ppid] : parent) {
    if (!below_root(pid)) continue;
    std::ifstream env("/proc/" + std::to_string(pid) + "/environ");
    std::string entry;
    bool named = false;
    while (std::getline(env, entry, '\0')) named = named || entry == names[0] || entry == names[1];
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string command;
    std::getline(comm, command);
    if (named && command == "ssum") found.push_back(pid);
  }
  return found;
}

// Rank 1 killed (SIGKILL) during a count (n = 54: seconds on one thread a rank): the job ends non-zero naming rank 1, with no verdict;
// its checkpoint (kept by rank 0) continues, on 2 ranks, to the count of one whole run.
TEST(CliMpi, AKilledRankEndsTheJobAndTheCheckpointContinues) {
  SKIP_WITHOUT_MPI();
  const fs::path in = write_file("mpi_kill.txt", run("gen random -n 54 --seed 4").out);
  const std::string four = "solve --json --count --backend cpu --algorithm four-list --threads 1 ";
  const auto whole = run(four + in.string());
  ASSERT_LE(whole.code, 1) << whole.err;
  const fs::path file = scratch_dir() / "mpi_kill.ckpt";
  fs::remove(file);
  const fs::path out = scratch_dir() / "mpi_kill_out.txt", err = scratch_dir() / "mpi_kill_err.txt";
  const std::string cmd = mpi_env + "exec mpirun --bind-to none -np 2 '" + std::string(SSUM_BINARY) + "' " + four +
                          "--checkpoint " + file.string() + " --checkpoint-every 0.05 " + in.string() + " >" +
                          out.string() + " 2>" + err.string() + " </dev/null";
  pid_t pid = 0;
  const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
  ASSERT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  const auto start = clock_type::now();
  std::vector<pid_t> victims;
  int status = 0;
  bool ended = false;
  while (clock_type::now() - start < std::chrono::seconds(60)) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    if (fs::exists(file) && !(victims = ranks_of(pid, 1)).empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_FALSE(ended) << "the job ended before rank 1 was killed: " << read_all(err);
  ASSERT_TRUE(fs::exists(file)) << "no checkpoint within 60 s: " << read_all(err);
  ASSERT_EQ(victims.size(), 1u) << "rank 1 not found below mpirun (pid " << pid << ")";
  kill(victims[0], SIGKILL);
  waitpid(pid, &status, 0);
  const int code = decode_status(status);
  EXPECT_NE(code, 0) << read_all(err);
  EXPECT_NE(code, 1) << "a verdict from part of the work: " << read_all(out);
  EXPECT_EQ(read_all(out).find("\"status\""), std::string::npos) << read_all(out);
  EXPECT_NE(read_all(err).find("rank 1"), std::string::npos) << read_all(err);
  ASSERT_TRUE(fs::exists(file));
  const auto resumed = mpirun(2, four + "--checkpoint " + file.string() + " " + in.string());
  ASSERT_EQ(resumed.code, whole.code) << resumed.err;
  EXPECT_EQ(nlohmann::json::parse(resumed.out).at("count"), nlohmann::json::parse(whole.out).at("count"));
  EXPECT_FALSE(fs::exists(file)) << "a complete answer removes its file";
}

}  // namespace

namespace {

// Several rows under mpirun answer as in one process: the fold's plan (the four-list from 32
// columns), the rows' fields, the job's fields and "MPI:" line, and "bounds" where a row's
// target lies beyond its coefficients' sums.
TEST(CliMpi, RowsAnswerAsInOneProcessWithTheJobsFields) {
  SKIP_WITHOUT_MPI();
  const std::string dat = std::string(SSUM_SOURCE_DIR) + "/tests/data/marketsplit/ms_06_050_001.dat";  // 50 columns
  const auto alone = run("solve --json " + dat);
  ASSERT_EQ(alone.code, 0) << alone.err;
  const auto one = nlohmann::json::parse(alone.out);
  const auto r = mpirun(2, "solve --json " + dat);
  ASSERT_EQ(r.code, alone.code) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("status"), one.at("status"));
  EXPECT_EQ(j.at("algorithm"), "four-list") << r.out;
  EXPECT_EQ(j.at("method"), "fold");
  EXPECT_EQ(j.at("targets"), one.at("targets"));
  EXPECT_EQ(j.at("ranks"), 2);
  EXPECT_EQ(j.at("rank_seconds").size(), 2u);
  EXPECT_TRUE(j.contains("shared"));
  const auto text = mpirun(2, "solve " + dat);
  EXPECT_NE(text.out.find("\nMPI: "), std::string::npos) << text.out;

  const fs::path bounds = write_file("mpi_bounds.dat", "2 3\n1 2 3 4\n1 1 1 9\n");  // row 2: 9 > 3
  const auto b = mpirun(2, "solve --json " + bounds.string());
  EXPECT_EQ(b.code, 1) << b.err;
  const auto jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(jb.at("status"), "infeasible");
  EXPECT_EQ(jb.at("method"), "bounds") << b.out;
}

}  // namespace

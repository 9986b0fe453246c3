#pragma once
// Runs the built `ssum` binary (SSUM_BINARY) as a user would, for the CLI test files:
// through the shell with files for standard input, output and error, or spawned directly
// for tests that signal it while it runs.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace ssum_test {

namespace fs = std::filesystem;

/// Whether the binary under test runs under a sanitizer (it is built with the same flags as the
/// tests): `ulimit -v` and a sanitizer's shadow memory do not mix.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool under_sanitizer = true;
#else
inline constexpr bool under_sanitizer = false;
#endif

struct run_result {
  int code = -1;  // the exit status, or 128 + the signal that ended the process
  std::string out, err;
};

inline fs::path scratch_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("ssum_cli_tests_" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path path = scratch_dir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline int decode_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

/// `script` runs under /bin/sh with $SSUM naming the binary; its stdout and stderr are kept.
inline run_result run_shell(const std::string& script) {
  const fs::path out = scratch_dir() / "stdout.txt", err = scratch_dir() / "stderr.txt",
                 file = write_file("script.sh", script);
  const std::string cmd = "SSUM='" + std::string(SSUM_BINARY) + "' /bin/sh " + file.string() + " >" + out.string() +
                          " 2>" + err.string();
  run_result r;
  r.code = decode_status(std::system(cmd.c_str()));
  r.out = read_all(out);
  r.err = read_all(err);
  return r;
}

/// `ssum ARGS <input`: `args` is passed through the shell; `prefix` goes before the command
/// (environment assignments such as "OMP_NUM_THREADS=4 ").
inline run_result run(const std::string& args, const std::string& input = "", const std::string& prefix = "") {
  const fs::path in = write_file("stdin.txt", input);
  return run_shell(prefix + "\"$SSUM\" " + args + " <" + in.string());
}

inline std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// `ssum ARGS...` started in the background with stdout and stderr in files; wait() reaps it.
struct spawned {
  pid_t pid = 0;
  fs::path out, err;

  int wait() const {
    int status = 0;
    waitpid(pid, &status, 0);
    return decode_status(status);
  }
};

inline spawned spawn(std::vector<std::string> args, const std::string& name) {
  spawned s;
  s.out = scratch_dir() / (name + "_out.txt");
  s.err = scratch_dir() / (name + "_err.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, s.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, s.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string binary = SSUM_BINARY;
  std::vector<char*> argv{binary.data()};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&s.pid, SSUM_BINARY, &actions, nullptr, argv.data(), environ) != 0) s.pid = 0;
  posix_spawn_file_actions_destroy(&actions);
  return s;
}

}  // namespace ssum_test

// The ssum command line: `ssum solve`, `ssum gen`, `ssum info`.
// Exit status (design.md section 4): 0 a subset was found, 1 proven that none exists,
// 2 bad usage or bad input, 3 not enough memory or no usable device, 4 internal error,
// 130 interrupted. Every failure is one line on stderr.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "progress.hpp"
#include "ssum/ssum.hpp"

namespace {

enum exit_code : int { found = 0, none = 1, bad_input = 2, no_resources = 3, internal = 4, interrupted = 130 };

std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

extern "C" void on_sigint(int) { g_interrupt.store(true); }

int fail(int code, const std::string& message) {
  std::cerr << "ssum: " << message << '\n';
  return code;
}

nlohmann::json target_json(const std::optional<ssum::int128>& t) {
  if (!t) return nullptr;
  if (*t >= INT64_MIN && *t <= INT64_MAX) return static_cast<std::int64_t>(*t);
  return ssum::to_string(*t);  // beyond 64 bits: a decimal string, as accepted on input
}

struct solve_args {
  std::string input = "-";
  std::string target;
  std::string backend = "auto";
  std::string algorithm = "auto";
  unsigned threads = 0;
  bool json = false;
  bool progress = false;
  bool count = false;
  std::string memory;
};

// "--memory 8G": bytes from a number with an optional K, M, G or T (powers of 1024) and an
// optional B / iB. Empty when the text is anything else.
std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  std::uint64_t value = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "IB") unit.resize(unit.size() - 2);
  else if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  int shift = 0;
  if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (unit == "T") shift = 40;
  else if (!unit.empty()) return std::nullopt;
  if (shift && value > (UINT64_MAX >> shift)) return std::nullopt;
  value <<= shift;
  if (value == 0) return std::nullopt;
  return value;
}

int run_solve(const solve_args& args) {
  const auto wall_start = std::chrono::steady_clock::now();
  ssum::problem p = ssum::read_problem(args.input);
  if (!args.target.empty()) {
    const auto t = ssum::parse_int128(args.target);
    if (!t) return fail(bad_input, "--target: '" + args.target + "' is not an integer in the 128-bit range");
    p.target = *t;
  }
  const ssum::backend which = args.backend == "cpu"    ? ssum::backend::cpu
                              : args.backend == "cuda" ? ssum::backend::cuda
                                                       : ssum::backend::automatic;
  ssum::cli::progress_printer printer(args.progress || isatty(STDERR_FILENO));
  ssum::solve_options options;
  options.algo = args.algorithm == "two-list"    ? ssum::algorithm::two_list
                 : args.algorithm == "four-list" ? ssum::algorithm::four_list
                                                 : ssum::algorithm::automatic;
  options.cancel = &g_interrupt;
  options.count = args.count;
  if (!args.memory.empty()) {
    const auto limit = parse_bytes(args.memory);
    if (!limit) return fail(bad_input, "--memory: '" + args.memory + "' is not a size such as 512M or 8G");
    options.memory_limit = *limit;
  }
  options.on_progress = [&printer](const ssum::progress& pr) { printer(pr); };

  std::signal(SIGINT, on_sigint);
  const ssum::solution s = ssum::solve(which, args.threads, p, options);
  std::signal(SIGINT, SIG_DFL);
  printer.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  // Belt and braces: the library verified the subset; the program checks again before printing.
  if (s.feasible && !ssum::is_certificate(p, s.subset)) {
    return fail(internal, "internal error: the subset found does not verify; no answer is printed");
  }
  const std::string target_text = p.target ? ssum::to_string(*p.target) : "0";
  if (args.json) {
    nlohmann::json out;
    out["version"] = ssum::version;
    out["feasible"] = s.feasible;
    if (s.feasible) out["subset"] = s.subset;
    out["target"] = target_json(p.target);
    out["zero_sum"] = p.zero_sum();
    out["n"] = p.weights.size();
    out["algorithm"] = s.algorithm;
    out["backend"] = s.backend;
    out["threads"] = s.threads;
    if (s.count) out["count"] = ssum::to_string(static_cast<ssum::int128>(*s.count));  // text: may pass 2^53
    out["seconds"] = {{"generate", s.seconds.generate}, {"prune", s.seconds.prune}, {"count", s.seconds.count},
                      {"search", s.seconds.search},     {"recover", s.seconds.recover}, {"total", s.seconds.total},
                      {"wall", wall}};
    out["memory"] = {{"planned_bytes", s.planned_bytes}, {"peak_rss_bytes", ssum::peak_resident_bytes()}};
    std::cout << out.dump() << '\n';
  } else {
    const std::string goal = p.zero_sum() ? "0 (a non-empty subset)" : target_text;
    if (s.feasible) {
      std::cout << "feasible: " << s.subset.size() << " of " << p.weights.size() << " items sum to " << goal << '\n';
      std::cout << "subset (0-based indices):";
      for (std::size_t i : s.subset) std::cout << ' ' << i;
      std::cout << "\nweights:";
      for (std::size_t i : s.subset) std::cout << ' ' << ssum::to_string(p.weights[i]);
      std::cout << '\n';
    } else {
      std::cout << "infeasible: no subset of the " << p.weights.size() << " items sums to " << goal << '\n';
    }
    if (s.count) {
      std::cout << "solutions: " << ssum::to_string(static_cast<ssum::int128>(*s.count))
                << " subsets sum to " << goal << '\n';
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g", s.seconds.total);
    const std::string where = s.backend == "cpu" ? " (" + std::to_string(s.threads) + " threads)" : "";
    std::cout << s.algorithm << " on " << s.backend << where << " in " << seconds << " s; "
              << (s.feasible ? "the subset was re-verified" : "the search was exhaustive") << '\n';
  }
  return s.feasible ? found : none;
}

int run_gen(const std::string& cls, std::size_t n, std::optional<int> bits, std::uint64_t seed) {
  const ssum::problem p = ssum::generate(cls, n, bits, seed);
  std::string comment = "ssum gen " + cls + " -n " + std::to_string(n);
  if (bits) comment += " --bits " + std::to_string(*bits);
  comment += " --seed " + std::to_string(seed);
  std::cout << ssum::format_problem(p, comment);
  return 0;
}

int run_info() {
  std::cout << "ssum " << ssum::version << '\n';
  std::cout << "host threads: " << ssum::resolved_threads(ssum::cpu{}) << '\n';
  std::cout << "host memory available: " << ssum::available_host_memory() / (1024 * 1024) << " MiB\n";
  if (!ssum::cuda_compiled()) {
    std::cout << "CUDA backend: not built\n";
    return 0;
  }
  const auto devices = ssum::cuda_devices();
  std::cout << "CUDA backend: built; " << devices.size() << " device(s)\n";
  for (const auto& d : devices) {
    std::cout << "  " << d.ordinal << ": " << d.name << ", compute " << d.compute_major << '.' << d.compute_minor
              << ", " << d.multiprocessors << " SMs, " << d.free_memory / (1024 * 1024) << " of "
              << d.total_memory / (1024 * 1024) << " MiB free\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ssum: exact subset sum on CPUs and GPUs"};
  app.set_version_flag("--version", std::string("ssum ") + ssum::version);
  app.require_subcommand(1);

  solve_args sa;
  CLI::App* solve = app.add_subcommand("solve", "Find a subset of the weights that sums to the target, or prove none exists");
  solve->add_option("file", sa.input, "Instance file (text or JSON); - or nothing reads standard input");
  solve->add_option("--target", sa.target, "Target sum (overrides the file's); without any target: zero-sum");
  solve->add_option("--backend", sa.backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  solve->add_option("--algorithm", sa.algorithm,
                    "auto, two-list or four-list (O(2^(n/4)) memory; on cpu, and on cuda for totals below 2^64)")
      ->check(CLI::IsMember({"auto", "two-list", "four-list"}));
  solve->add_option("--threads", sa.threads, "Host threads (default: all)")->check(CLI::Range(1u, 4096u));
  solve->add_flag("--json", sa.json, "Print one JSON object on stdout");
  solve->add_flag("--progress", sa.progress, "Show stage progress on stderr (default when stderr is a terminal)");
  solve->add_option("--memory", sa.memory, "Memory the solve may use, e.g. 512M or 8G (default: what is free)");
  solve->add_flag("--count", sa.count, "Also count every subset that sums to the target (index sets: equal weights give distinct subsets)");

  std::string cls;
  std::size_t n = 0;
  std::optional<int> bits;
  std::uint64_t seed = 1;
  CLI::App* gen = app.add_subcommand("gen", "Print a standard instance in the text format");
  gen->add_option("class", cls, "Instance class")->required()->check(CLI::IsMember(ssum::generator_classes()));
  gen->add_option("-n", n, "Number of items")->required()->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20));
  gen->add_option("--bits", bits, "Weight bits (1-126) for random, planted and zero-sum (default: keeps the sum below 2^62)");
  gen->add_option("--seed", seed, "Random seed (default 1)");

  CLI::App* info = app.add_subcommand("info", "Show the build, host threads, memory and CUDA devices");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(bad_input, std::string(e.what()) + " (see ssum --help)");
  }

  try {
    if (solve->parsed()) return run_solve(sa);
    if (gen->parsed()) return run_gen(cls, n, bits, seed);
    if (info->parsed()) return run_info();
  } catch (const ssum::interrupted&) {
    return fail(interrupted, "interrupted");
  } catch (const std::invalid_argument& e) {  // ssum::input_error too
    return fail(bad_input, e.what());
  } catch (const ssum::insufficient_memory& e) {
    return fail(no_resources, e.what());
  } catch (const ssum::backend_unavailable& e) {
    return fail(no_resources, e.what());
  } catch (const ssum::cuda_error& e) {
    return fail(no_resources, std::string("CUDA error: ") + e.what());
  } catch (const std::bad_alloc&) {
    return fail(no_resources, "out of memory");
  } catch (const std::exception& e) {
    return fail(internal, std::string("internal error: ") + e.what());
  }
  return fail(bad_input, "no command given (see ssum --help)");
}

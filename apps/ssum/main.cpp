// The ssum command line: `ssum solve`, `ssum gen`, `ssum info`.
// Exit status: 0 a subset was found, 1 proven that none exists, 2 bad usage or bad input,
// 3 not enough memory or no usable device, 4 internal error (the answer could not be
// written, too), 5 unknown (--time-limit ran out), 130 interrupted. Every failure is one line
// on stderr.
#include <pthread.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "listing.hpp"
#include "progress.hpp"
#include "explain_output.hpp"
#include "rows_input.hpp"
#include "stdout_text.hpp"
#include "ssum/ssum.hpp"
#if SSUM_HAVE_MPI
#include "mpi_job.hpp"
#endif

namespace {

enum exit_code : int {
  found = 0,
  none = 1,
  bad_input = 2,
  no_resources = 3,
  internal = 4,
  unknown = 5,
  interrupted = 130
};

std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

extern "C" void on_sigint(int) { g_interrupt.store(true); }

// libgomp calls exit(1) when it cannot create its threads, and 1 means "proven that no subset
// exists". While a solve runs, an exit() from inside a library ends the process with 4.
std::atomic<bool> g_solving{false};

extern "C" void on_exit_during_solve() {
  if (!g_solving.load()) return;
  constexpr char message[] = "ssum: internal error: a library ended the process during the solve (libgomp: "
                             "threads could not be created?); there is no verdict\n";
  [[maybe_unused]] const ::ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
  ::_exit(internal);
}

struct solving_scope {
  solving_scope() { g_solving.store(true); }
  ~solving_scope() { g_solving.store(false); }
  solving_scope(const solving_scope&) = delete;
  solving_scope& operator=(const solving_scope&) = delete;
};

constexpr unsigned max_threads = 4096;

// Ranks other than 0 of an MPI job are quiet: rank 0 speaks for the job.
bool g_quiet = false;

int fail(int code, const std::string& message) {
  if (!g_quiet) std::cerr << "ssum: " << ssum::printable(message) << '\n';
  return code;
}

// The exit code and one-line message of a failure (every failure is one line on stderr).
std::pair<int, std::string> failure_of(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const ssum::interrupted&) {
    return {interrupted, "interrupted"};
  } catch (const std::invalid_argument& e) {  // ssum::input_error too
    return {bad_input, e.what()};
  } catch (const ssum::insufficient_memory& e) {
    return {no_resources, e.what()};
  } catch (const ssum::backend_unavailable& e) {
    return {no_resources, e.what()};
  } catch (const ssum::out_of_reach& e) {
    return {no_resources, e.what()};
  } catch (const ssum::cuda_error& e) {
    return {no_resources, std::string("CUDA error: ") + e.what()};
  } catch (const std::bad_alloc&) {
    // Outside a solve's plan (the solver turns its own failures into insufficient_memory):
    // reading the input, say, which is bounded by ssum::max_input_bytes.
    return {no_resources, "out of memory outside the solver's plan; " +
                              ssum::format_bytes(double(ssum::available_host_memory())) + " are available"};
  } catch (const std::exception& e) {
    return {internal, std::string("internal error: ") + e.what()};
  } catch (...) {
    return {internal, "internal error: an unknown exception"};
  }
}

#if SSUM_HAVE_MPI
std::optional<ssum::cli::mpi_job> g_job;  // under mpirun
#endif

// A closed pipe (`ssum gen ... | head -c1`) ends the process by SIGPIPE, quietly, as it ends
// other filters; this is for a SIGPIPE that was blocked or ignored anyway.
// SIGPIPE at its default and unblocked, whatever the parent left.
void default_sigpipe() {
  std::signal(SIGPIPE, SIG_DFL);
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_UNBLOCK, &pipe_only, nullptr);
}

[[noreturn]] void end_by_broken_pipe() {
  default_sigpipe();
  std::raise(SIGPIPE);
  std::_Exit(internal);  // not reached
}

// All of `text` on stdout, or exit 4 naming the error: an answer lost to a full disk must not
// pass for one delivered.
int write_answer(const std::string& text, int code) {
  const int err = ssum::cli::write_stdout(text);
  if (err == 0) return code;
  return fail(internal, std::string("cannot write the answer to standard output: ") +
                            (err > 0 ? std::strerror(err) : "nothing was written"));
}

// What CLI11 printed (help, version) reached stdout, or exit 4.
int flushed(int code) {
  errno = 0;
  if (std::cout.flush()) return code;
  if (errno == EPIPE) end_by_broken_pipe();
  return fail(internal, std::string("cannot write to standard output: ") + (errno ? std::strerror(errno) : "error"));
}

// OMP_NUM_THREADS as libgomp reads it: a comma list of positive counts (one per nesting level),
// blanks allowed around each. libgomp takes any count and fails inside its first parallel
// region (a crash at 65536, exit(1) at 40000), so each entry is held to --threads' range.
std::optional<std::string> bad_omp_num_threads() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (!env) return std::nullopt;
  const std::string_view text(env);
  constexpr std::string_view blanks = " \t\n\r\v\f";
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    std::string_view entry = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    entry.remove_prefix(std::min(entry.find_first_not_of(blanks), entry.size()));
    entry.remove_suffix(entry.size() - (entry.find_last_not_of(blanks) + 1));
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), value);
    if (entry.empty() || ec != std::errc() || end != entry.data() + entry.size() || value < 1 ||
        value > max_threads) {
      return "OMP_NUM_THREADS: '" + std::string(text) + "' is not a thread count from 1 to " +
             std::to_string(max_threads) + " (or a comma list of them)";
    }
    if (comma == std::string_view::npos) return std::nullopt;
    start = comma + 1;
  }
}


nlohmann::json target_json(const std::optional<ssum::int128>& t) {
  if (!t) return nullptr;
  if (*t >= INT64_MIN && *t <= INT64_MAX) return static_cast<std::int64_t>(*t);
  return ssum::to_string(*t);  // beyond 64 bits: a decimal string, as accepted on input
}

struct solve_args {
  std::string input = "-";
  std::optional<std::string> target;  // given, even as '' (an error, not "no target")
  std::string backend = "auto";
  std::string algorithm = "auto";
  unsigned threads = 0;
  bool json = false;
  bool explain = false;  // print the plan's table instead of solving
  bool progress = false;
  bool count = false;
  std::optional<std::string> memory;
  std::optional<std::string> time_limit;  // seconds, as given
  std::optional<std::string> seed;        // the completion search's, as given
  std::optional<std::string> checkpoint;  // the four-list's progress file, as given
  std::optional<std::string> checkpoint_every;  // seconds between its writes, as given
  std::optional<std::string> column;            // CSV: the amounts' column, a header name or a number
  std::string format = "auto";                  // auto, sum (one row) or rows (several)
  ssum::cli::listing_flags list;  // listing and its constraints (listing.hpp), as given
};


// "--time-limit 2.5": seconds, a finite number above 0. Empty when the text is anything else.
std::optional<double> parse_seconds(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(seconds) || !(seconds > 0)) {
    return std::nullopt;
  }
  return seconds;
}

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
  // The arguments first: a bad one is reported before a large input is read.
  // --target is an amount like the input's (decimals allowed), read and scaled with them; its
  // form is checked before a large input is read.
  if (args.target) {
    const std::size_t point = args.target->find('.');
    const std::size_t own = point == std::string::npos ? 0 : args.target->size() - point - 1;
    ssum::parse_amount_at(*args.target, unsigned(std::min<std::size_t>(own, ssum::max_decimals)), "--target");
  }
  const ssum::read_options reading{args.target, args.column};
  std::uint64_t memory_limit = 0;
  if (args.memory) {
    const auto limit = parse_bytes(*args.memory);
    if (!limit) return fail(bad_input, "--memory: '" + *args.memory + "' is not a size such as 512M or 8G");
    memory_limit = *limit;
  }
  double time_limit = 0;
  if (args.time_limit) {
    const auto seconds = parse_seconds(*args.time_limit);
    if (!seconds) {
      return fail(bad_input, "--time-limit: '" + *args.time_limit + "' is not a number of seconds above 0, such as 2.5");
    }
    time_limit = *seconds;
  }
  double checkpoint_every = ssum::solve_options{}.checkpoint_seconds;
  if (args.checkpoint_every && !args.checkpoint) return fail(bad_input, "--checkpoint-every needs --checkpoint FILE");
  if (args.checkpoint && args.checkpoint->empty()) return fail(bad_input, "--checkpoint: the path is empty");
  ssum::cli::listing_request listing;
  if (args.list.any()) {
    // Throws input_error naming the flag.
    listing = ssum::cli::listing_of(args.list, args.count, args.target.has_value(), args.checkpoint.has_value(),
                                    args.algorithm);
#if SSUM_HAVE_MPI
    if (g_job) return fail(bad_input, "a listing runs in one process: not under mpirun");
#endif
  }
  if (args.checkpoint_every) {
    const auto seconds = parse_seconds(*args.checkpoint_every);
    if (!seconds) {
      return fail(bad_input, "--checkpoint-every: '" + *args.checkpoint_every +
                                 "' is not a number of seconds above 0, such as 5");
    }
    checkpoint_every = *seconds;
  }
  std::uint64_t seed = ssum::solve_options{}.seed;
  if (args.seed) {
    const auto value = ssum::cli::parse_whole(*args.seed);
    if (!value) return fail(bad_input, "--seed: '" + *args.seed + "' is not an integer from 0 to 2^64 - 1");
    seed = *value;
  }
  // Several rows take their targets from their file; they fold into one sum for MPI and the
  // listing, which need that to fit 127 bits.
  const bool rows_input = ssum::cli::is_rows_input(args.input, args.format, args.column.has_value());
  const bool row_options = args.target || args.column || !args.list.target_range.empty() || args.list.tolerance;
  constexpr const char* rows_refusal = "a multi-row instance takes its targets from its rows: --target, --column, "
                                       "--target-range and --tolerance do not apply";
  if (rows_input && row_options) return fail(bad_input, rows_refusal);
  std::optional<ssum::rows_problem> rows;
  bool rows_out_of_bounds = false;  // the fold's bounds answer: no subset meets every row
  // The library knows a command-line target: empty input with one is the empty instance. A
  // checkpoint path that cannot serve is refused before a large input is read.
  const auto read_input = [&] {
    if (args.checkpoint) ssum::check_checkpoint_path(*args.checkpoint);
    if (!rows_input && args.input == "-" && args.format == "auto") {
      // Standard input is read once, its form told from its bytes as a file's is.
      ssum::any_instance any = ssum::read_instance(args.input, reading);
      if (!any.rows) return std::move(any.one);
      if (row_options) throw ssum::input_error(rows_refusal, 0, "<stdin>");
      rows = std::move(any.rows);
    } else if (!rows_input) {
      return ssum::read_problem(args.input, reading);
    } else {
      rows = ssum::read_rows(args.input);
    }
    if (std::optional<ssum::rows_encoding> folded = ssum::encode_rows(*rows)) {
      rows_out_of_bounds = folded->infeasible_by_bounds;
      return std::move(folded->single);
    }
    bool alone = !args.list.any();
#if SSUM_HAVE_MPI
    alone = alone && !g_job;
#endif
    if (!alone) {
      throw std::invalid_argument("these rows need " + std::to_string(ssum::rows_encoding_bits(*rows)) +
                                  " bits, past the 127 of one sum: they are solved in one process, without a listing");
    }
    return ssum::problem{};  // solve_rows folds part of them
  };
#if SSUM_HAVE_MPI
  // Under mpirun rank 0 reads the instance and sends it to the other ranks.
  std::optional<ssum::problem> shared;
  if (g_job) {
    int code = 0;
    if (g_job->rank() == 0) {
      try {
        shared = read_input();
      } catch (...) {
        g_job->broadcast(std::nullopt, code = failure_of(std::current_exception()).first);
        throw;
      }
    }
    shared = g_job->broadcast(shared, code);
    if (!shared) return code;  // rank 0 says why
  }
  const ssum::problem p = shared ? std::move(*shared) : read_input();
  if (args.explain && g_job && g_job->rank() != 0) return found;  // rank 0 prints the table
#else
  const ssum::problem p = read_input();
#endif
  if (args.list.any()) {
    const ssum::problem q = ssum::cli::windowed(p, args.list, listing);
    listing.json = args.json;
    listing.which = args.backend == "cpu" ? ssum::backend::cpu : args.backend == "cuda" ? ssum::backend::cuda
                                                                                       : ssum::backend::automatic;
    listing.threads = args.threads;
    if (rows) {
      listing.goal = "the targets of all " + std::to_string(rows->rows.size()) + " rows";
      listing.row_targets = rows->targets;
    }
    listing.options.time_limit = time_limit;
    listing.options.memory_limit = memory_limit;
    if (args.explain) return ssum::cli::print_explain(ssum::explain_listing(listing.which, args.threads, q, listing.options), args.json);
    std::signal(SIGINT, on_sigint);
    std::signal(SIGTERM, on_sigint);
    const solving_scope guard;
    const int code = ssum::cli::run_listing(listing, q, g_interrupt, wall_start);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    return code;
  }
  const ssum::backend which = args.backend == "cpu"    ? ssum::backend::cpu
                              : args.backend == "cuda" ? ssum::backend::cuda
                                                       : ssum::backend::automatic;
  ssum::cli::progress_printer printer(!g_quiet && (args.progress || isatty(STDERR_FILENO)));
  ssum::solve_options options;
  options.algo = args.algorithm == "two-list"    ? ssum::algorithm::two_list
                 : args.algorithm == "four-list" ? ssum::algorithm::four_list
                 : args.algorithm == "dp"        ? ssum::algorithm::dynamic_programming
                 : args.algorithm == "completion" ? ssum::algorithm::completion_search
                 : args.algorithm == "lattice"    ? ssum::algorithm::lattice
                                                 : ssum::algorithm::automatic;
  options.cancel = &g_interrupt;
  options.count = args.count;
  if (memory_limit) options.memory_limit = memory_limit;
  options.time_limit = time_limit;
  options.seed = seed;
  options.checkpoint = args.checkpoint.value_or("");
  options.checkpoint_seconds = checkpoint_every;
  options.on_progress = [&printer](const ssum::progress& pr) { printer(pr); };
  if (args.explain) {
    return ssum::cli::print_explain(rows ? ssum::explain_rows(which, args.threads, *rows, options)
                                         : ssum::explain(which, args.threads, p, options), args.json);
  }

  // SIGTERM (kill's default, and what mpirun passes on for a Ctrl-C) stops as Ctrl-C does: the
  // checkpoint written, exit 130.
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
#if SSUM_HAVE_MPI
  std::optional<ssum::cli::job_answer> job;
  if (g_job) {
    // Each rank's share of the node's cores unless --threads says (the device takes none).
    const unsigned threads = args.threads || which == ssum::backend::cuda ? args.threads : g_job->default_threads();
    ssum::solve_options shared_options = options;
    shared_options.cancel = nullptr;  // the job's own, raised by g_interrupt
    // Folded rows take the plan ssum::solve_rows takes in one process.
    if (rows) shared_options.algo = ssum::fold_algorithm(which, threads, p, options);
    {
      const solving_scope guard;
      job = g_job->solve(which, threads, p, shared_options, g_interrupt, failure_of);
    }
    if (!job) return found;  // a rank other than 0: rank 0 answers
  }
  std::optional<ssum::rows_solution> rows_answer;
  const ssum::solution s = job ? job->answer : [&] {
#else
  std::optional<ssum::rows_solution> rows_answer;
  const ssum::solution s = [&] {
#endif
    const solving_scope guard;
    if (!rows) return ssum::solve(which, args.threads, p, options);
    rows_answer = ssum::solve_rows(which, args.threads, *rows, options);
    return rows_answer->answer;
  }();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  printer.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  // Belt and braces: the library verified the subset; the program checks again before printing.
  if (s.feasible && (rows ? !ssum::is_rows_certificate(*rows, s.subset) : !ssum::is_certificate(p, s.subset))) {
    return fail(internal, "internal error: the subset found does not verify; no answer is printed");
  }
  if (rows) {
    if (!rows_answer) {
      rows_answer = ssum::rows_solution{s, rows_out_of_bounds ? "bounds" : "fold", rows->rows.size(),
                                        ssum::rows_encoding_bits(*rows)};
    }
    std::optional<ssum::cli::mpi_report> mpi;
#if SSUM_HAVE_MPI
    if (job) mpi = ssum::cli::mpi_report{job->ranks, job->shared, job->rank_seconds, job->note};
#endif
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return write_answer(ssum::cli::rows_answer(*rows, *rows_answer, args.json, seconds, time_limit, mpi),
                        s.status == ssum::status::unknown ? unknown : s.feasible ? found : none);
  }
  const bool unknown_answer = s.status == ssum::status::unknown;
  const std::string target_text = p.target ? ssum::format_amount(*p.target, p.decimals) : "0";
  std::ostringstream answer;
  if (args.json) {
    nlohmann::json out;
    out["version"] = ssum::version;
    out["status"] = unknown_answer ? "unknown" : s.feasible ? "feasible" : "infeasible";
    out["feasible"] = unknown_answer ? nlohmann::json(nullptr) : nlohmann::json(s.feasible);
    if (s.feasible) out["subset"] = s.subset;
    out["target"] = p.decimals && p.target ? nlohmann::json(ssum::format_amount(*p.target, p.decimals)) : target_json(p.target);
    if (p.decimals) out["decimals"] = p.decimals;  // the amounts' scale: weights and target x 10^decimals
    out["zero_sum"] = p.zero_sum();
    out["n"] = p.weights.size();
    out["algorithm"] = s.algorithm;
    out["backend"] = s.backend;
    out["threads"] = s.threads;
    out["plan"] = {{"algorithm", s.plan.algorithm}, {"backend", s.plan.backend}, {"reason", s.plan.reason}};
    out["reductions"] = s.reductions;
    if (s.count) out["count"] = s.count->to_string();  // a decimal string always: counts pass 2^53 and 2^64
    out["seconds"] = {{"generate", s.seconds.generate}, {"prune", s.seconds.prune}, {"count", s.seconds.count},
                      {"search", s.seconds.search},     {"recover", s.seconds.recover}, {"total", s.seconds.total},
                      {"wall", wall}};
    // An unknown answer whose driver had not planned yet (the CUDA four-list) has no figure.
    const nlohmann::json planned =
        unknown_answer && s.planned_bytes == 0 ? nlohmann::json(nullptr) : nlohmann::json(s.planned_bytes);
    out["memory"] = {{"planned_bytes", planned}, {"peak_rss_bytes", ssum::peak_resident_bytes()}};
#if SSUM_HAVE_MPI
    if (job) {
      out["ranks"] = job->ranks;
      out["shared"] = job->shared;
      out["rank_seconds"] = job->rank_seconds;
    }
#endif
    answer << out.dump() << '\n';
  } else {
    const std::string goal = p.zero_sum() ? "0 (a non-empty subset)" : target_text;
    if (unknown_answer) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", time_limit);
      answer << "unknown: the time limit of " << limit << " s ran out before " << s.algorithm << " on " << s.backend
             << " found a subset summing to " << goal << " or proved that none exists\n";
      return write_answer(answer.str(), unknown);
    }
    if (s.feasible) {
      answer << "feasible: " << s.subset.size() << " of " << p.weights.size() << " items sum to " << goal << '\n';
      answer << "subset (0-based indices):";
      for (std::size_t i : s.subset) answer << ' ' << i;
      answer << "\nweights:";
      for (std::size_t i : s.subset) answer << ' ' << ssum::format_amount(p.weights[i], p.decimals);
      answer << '\n';
    } else {
      answer << "infeasible: no subset of the " << p.weights.size() << " items sums to " << goal << '\n';
    }
    if (s.count) {
      answer << "solutions: " << s.count->to_string()
                << " subsets sum to " << goal << '\n';
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3g", s.seconds.total);
    const std::string where =
        s.backend == "cpu" ? " (" + std::to_string(s.threads) + (s.threads == 1 ? " thread)" : " threads)") : "";
    const char* proof = s.feasible                    ? "the subset was re-verified"
                        : s.algorithm == "reductions" ? "the reductions prove it"
                                                      : "the search was exhaustive";
    answer << s.algorithm << " on " << s.backend << where << " in " << seconds << " s; " << proof << '\n';
#if SSUM_HAVE_MPI
    if (job) answer << "MPI: " << job->note << '\n';
#endif
  }
  return write_answer(answer.str(), unknown_answer ? unknown : s.feasible ? found : none);
}

int run_gen(const std::string& cls, std::size_t n, std::optional<int> bits, std::uint64_t seed) {
  const ssum::problem p = ssum::generate(cls, n, bits, seed);
#if SSUM_HAVE_MPI
  if (g_job && g_job->rank() != 0) return found;  // under mpirun the instance is printed once
#endif
  std::string comment = "ssum gen " + cls + " -n " + std::to_string(n);
  if (bits) comment += " --bits " + std::to_string(*bits);
  comment += " --seed " + std::to_string(seed);
  return write_answer(ssum::format_problem(p, comment), found);
}

int run_info() {
  std::ostringstream out;
  out << "ssum " << ssum::version << '\n';
  out << "host threads: " << ssum::resolved_threads(ssum::cpu{}) << '\n';
  out << "host memory available: " << ssum::available_host_memory() / (1024 * 1024) << " MiB\n";
  if (!ssum::cuda_compiled()) {
    out << "CUDA backend: not built\n";
    return write_answer(out.str(), 0);
  }
  const auto devices = ssum::cuda_devices();
  out << "CUDA backend: built; " << devices.size() << " device(s)\n";
  for (const auto& d : devices) {
    out << "  " << d.ordinal << ": " << d.name << ", compute " << d.compute_major << '.' << d.compute_minor
              << ", " << d.multiprocessors << " SMs, " << d.free_memory / (1024 * 1024) << " of "
              << d.total_memory / (1024 * 1024) << " MiB free\n";
  }
  return write_answer(out.str(), 0);
}

}  // namespace

static int run_main(int argc, char** argv) {
  default_sigpipe();  // a closed pipe ends ssum quietly
  std::atexit(on_exit_during_solve);
#if SSUM_HAVE_MPI
  if (ssum::cli::started_by_mpi_launcher()) {
    g_job.emplace(argc, argv);
    g_quiet = g_job->rank() != 0;
  }
#else
  // Started by mpirun without MPI support: K independent solves would each print an answer.
  if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK")) {
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    g_quiet = rank && std::string_view(rank) != "0";
    return fail(no_resources, "this ssum was built without MPI (CMake option SSUM_MPI): run it without mpirun");
  }
#endif

  // CLI11 reads "--target=" as a bare "--target" and takes the next argument as its value
  // ("--target= --json" targets "--json"): an empty value after '=' is refused first.
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() > 3 && arg.substr(0, 2) == "--" && arg.find('=') == arg.size() - 1) {
      return fail(bad_input, std::string(arg.substr(0, arg.size() - 1)) + ": empty value after '=' (see ssum --help)");
    }
  }

  CLI::App app{"ssum: exact subset sum on CPUs and GPUs"};
  app.set_version_flag("--version", std::string("ssum ") + ssum::version);
  app.require_subcommand(1);

  solve_args sa;
  CLI::App* solve = app.add_subcommand("solve", "Find a subset of the weights that sums to the target, or prove none exists");
  solve->add_option("file", sa.input, "Instance file (text, JSON or CSV; a .dat is several rows); - or nothing reads standard input");
  solve->add_option("--format", sa.format,
                    "auto, sum (one row: text, JSON or CSV) or rows (several rows: QOBLIB .dat or JSON "
                    "{\"rows\": [...], \"targets\": [...]}); auto takes a .dat file, an 'm n' line then a row "
                    "of n + 1 numbers, or JSON with \"rows\" as rows")
      ->check(CLI::IsMember({"auto", "sum", "rows"}));
  solve->add_option("--target", sa.target, "Target sum (overrides the file's); without any target: zero-sum");
  solve->add_option("--backend", sa.backend, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  solve->add_option("--algorithm", sa.algorithm,
                    "auto, two-list, four-list (O(2^(n/4)) memory; on cpu, and on cuda for totals below 2^64), "
                    "dp (dynamic programming over the sums up to the reduced target) or completion (a search "
                    "that finds subsets of dense instances and proves nothing; cpu only) or lattice (several "
                    "rows: finds a subset or answers unknown; cpu only)")
      ->check(CLI::IsMember({"auto", "two-list", "four-list", "dp", "completion", "lattice"}));
  solve->add_option("--threads", sa.threads, "Host threads (default: all, or OMP_NUM_THREADS)")
      ->check(CLI::Range(1u, max_threads));
  solve->add_flag("--json", sa.json, "Print one JSON object on stdout");
  solve->add_flag("--explain", sa.explain, "Print the plan's table (each algorithm, its bytes, its expected seconds, why it was or was not taken) without solving");
  solve->add_flag("--progress", sa.progress, "Show stage progress on stderr (default when stderr is a terminal)");
  solve->add_option("--memory", sa.memory, "Memory the solve may use, e.g. 512M or 8G (default: what is free)");
  solve->add_option("--time-limit", sa.time_limit,
                    "Seconds the solve may take; when they run out: exit 5, \"status\": \"unknown\" (default: no limit)");
  solve->add_option("--seed", sa.seed,
                    "The completion search's seed, 0 to 2^64 - 1: the same seed finds the same subset (default 1)");
  solve->add_option("--checkpoint", sa.checkpoint,
                    "Keep the four-list's progress in FILE (every 5 s and when stopped); run again with the same FILE to continue")
      ->type_name("FILE");
  solve->add_option("--checkpoint-every", sa.checkpoint_every, "Seconds between the checkpoint's writes (default 5)");
  solve->add_flag("--count", sa.count, "Also count every subset that sums to the target (index sets: equal weights give distinct subsets)");
  solve->add_option("--column", sa.column, "Read FILE as CSV: the amounts are this column (a header name or a 1-based number)")
      ->type_name("NAME|N");
  solve->add_flag("--all", sa.list.all, "List every subset that sums to the target, one a line as found (JSON Lines with --json)");
  solve->add_option("--limit", sa.list.limit, "List the first K subsets")->type_name("K");
  solve->add_flag("--unique", sa.list.unique, "Say whether no subset, exactly one or several sum to the target (stops at the second)");
  solve->add_option("--items", sa.list.items, "Only subsets of exactly K items")->type_name("K");
  solve->add_option("--min-items", sa.list.min_items, "Only subsets of at least A items")->type_name("A");
  solve->add_option("--max-items", sa.list.max_items, "Only subsets of at most B items")->type_name("B");
  solve->add_option("--target-range", sa.list.target_range, "Every subset whose sum lies in [LO, HI] (replaces the target)")
      ->expected(2)
      ->allow_extra_args(false)  // exactly two: a FILE after them stays the positional
      ->type_name("LO HI");
  solve->add_option("--tolerance", sa.list.tolerance, "Every subset whose sum lies within D of the target")->type_name("D");

  std::string cls;
  std::size_t n = 0;
  std::optional<int> bits;
  std::string seed_text = "1";
  CLI::App* gen = app.add_subcommand("gen", "Print a standard instance in the text format");
  gen->add_option("class", cls, "Instance class")->required()->check(CLI::IsMember(ssum::generator_classes()));
  constexpr std::size_t max_gen_items = std::size_t{1} << 20;
  // What gen prints, solve reads: 2^20 weights of up to 127 bits are about 42 MB of text.
  static_assert(max_gen_items <= ssum::max_items && max_gen_items * 42 < ssum::max_input_bytes);
  gen->add_option("-n", n, "Number of items")->required()->check(CLI::Range(std::size_t{0}, max_gen_items));
  gen->add_option("--bits", bits, "Weight bits (1-126) for random, planted, zero-sum and partition (default: keeps the sum below 2^62)");
  gen->add_option("--seed", seed_text, "Random seed, 0 to 2^64 - 1 (default 1)");

  CLI::App* info = app.add_subcommand("info", "Show the build, host threads, memory and CUDA devices");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return flushed(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return flushed(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return flushed(app.exit(e));
  } catch (const CLI::ParseError& e) {
    return fail(bad_input, std::string(e.what()) + " (see ssum --help)");
  }

  // Before any OpenMP call (solve and info make them; gen does not): libgomp would fail on a
  // bad count only inside the solve.
  if (solve->parsed() || info->parsed()) {
    if (const auto message = bad_omp_num_threads()) return fail(bad_input, *message);
  }

  try {
    if (solve->parsed()) return run_solve(sa);
    if (gen->parsed()) {
      const auto seed = ssum::cli::parse_whole(seed_text);
      if (!seed) return fail(bad_input, "--seed: '" + seed_text + "' is not an integer from 0 to 2^64 - 1");
      return run_gen(cls, n, bits, *seed);
    }
    if (info->parsed()) return run_info();
#if SSUM_HAVE_MPI
  } catch (const ssum::cli::rank_failure& e) {
    return fail(e.code, e.message);
#endif
  } catch (...) {
    const auto [code, message] = failure_of(std::current_exception());
    return fail(code, message);
  }
  return fail(bad_input, "no command given (see ssum --help)");
}

int main(int argc, char** argv) {
  const int code = run_main(argc, argv);
#if SSUM_HAVE_MPI
  g_job.reset();  // MPI_Finalize before the exit, not among the static destructors
#endif
  return code;
}

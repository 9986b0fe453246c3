// ssum.solve, ssum.Solution and the exceptions solve raises.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "solve_binding.hpp"
#include "ssum/cuda_device.hpp"
#include "ssum/errors.hpp"
#include "ssum/memory.hpp"
#include "ssum/problem.hpp"
#include "ssum/solve.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace ssum::python {
namespace {

// ---- the solver threads ---------------------------------------------------------------
// A solve runs on a thread of its own while the calling thread waits with the GIL released and
// looks for Ctrl-C. The threads are kept and reused, one per concurrent solve, because each
// keeps its OpenMP team: a new thread per call would start a new team every time.
class solver_thread {
 public:
  solver_thread() { std::thread([this] { loop(); }).detach(); }

  void start(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      job_ = std::move(job);
      done_ = false;
    }
    wake_.notify_one();  // unlocked: the woken thread need not block on the mutex at once
  }
  /// True once the job has returned.
  bool wait_for(std::chrono::milliseconds slice) {
    std::unique_lock lock(mutex_);
    return finished_.wait_for(lock, slice, [this] { return done_; });
  }
  void wait() {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [this] { return done_; });
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return bool(job_); });
        job = std::move(job_);
        job_ = nullptr;
      }
      job();  // catches everything itself
      {
        std::lock_guard lock(mutex_);
        done_ = true;
      }
      finished_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::function<void()> job_;
  bool done_ = true;
};

// Idle threads, taken by a solve and given back after it. Never destroyed: a detached thread
// may still wait on its members at interpreter exit.
std::mutex idle_mutex;
std::vector<solver_thread*>* idle_threads = new std::vector<solver_thread*>();

solver_thread* take_thread() {
  {
    std::lock_guard lock(idle_mutex);
    if (!idle_threads->empty()) {
      solver_thread* t = idle_threads->back();
      idle_threads->pop_back();
      return t;
    }
  }
  return new solver_thread();
}
void give_back(solver_thread* t) {
  std::lock_guard lock(idle_mutex);
  idle_threads->push_back(t);
}
// A forked child (multiprocessing) has none of its parent's threads: forget them.
void forget_threads_after_fork() { idle_threads = new std::vector<solver_thread*>(); }

// ---- arguments ------------------------------------------------------------------------
ssum::algorithm parse_algorithm(nb::handle value) {
  const std::string name =
      to_choice(value, "algorithm", "'auto', 'two-list', 'four-list', 'dp', 'completion' or 'lattice'");
  if (name == "auto") return ssum::algorithm::automatic;
  if (name == "two-list") return ssum::algorithm::two_list;
  if (name == "four-list") return ssum::algorithm::four_list;
  if (name == "dp") return ssum::algorithm::dynamic_programming;
  if (name == "completion") return ssum::algorithm::completion_search;
  if (name == "lattice") return ssum::algorithm::lattice;
  throw nb::value_error(("algorithm must be 'auto', 'two-list', 'four-list', 'dp', 'completion' or 'lattice', not '" +
                         ssum::printable(name) + "'")
                            .c_str());
}

}  // namespace

ssum::backend parse_backend(nb::handle value) {
  const std::string name = to_choice(value, "backend", "'auto', 'cpu' or 'cuda'");
  if (name == "auto") return ssum::backend::automatic;
  if (name == "cpu") return ssum::backend::cpu;
  if (name == "cuda") return ssum::backend::cuda;
  throw nb::value_error(("backend must be 'auto', 'cpu' or 'cuda', not '" + ssum::printable(name) + "'").c_str());
}

unsigned parse_threads(nb::handle threads) {
  if (threads.is_none()) return 0;
  const int128 n = to_integer(threads, "threads");
  if (n < 1 || n > 4096) throw nb::value_error("threads must be from 1 to 4096, or None for all");
  return static_cast<unsigned>(n);
}

std::optional<std::uint64_t> parse_memory(nb::handle memory) {
  if (memory.is_none()) return std::nullopt;
  const int128 bytes = to_integer(memory, "memory");
  if (bytes <= 0) throw nb::value_error("memory must be a number of bytes above 0, or None for what is free");
  if (bytes > int128(UINT64_MAX)) {
    throw nb::value_error("memory must be a number of bytes below 2^64, or None for what is free");
  }
  return static_cast<std::uint64_t>(bytes);
}

solve_settings parse_settings(nb::handle backend, nb::handle algorithm, nb::handle threads, nb::handle memory,
                              bool count, nb::handle time_limit, nb::handle seed) {
  solve_settings r;
  r.backend = parse_backend(backend);
  r.options.algo = parse_algorithm(algorithm);
  r.threads = parse_threads(threads);
  if (const std::optional<std::uint64_t> bytes = parse_memory(memory)) r.options.memory_limit = *bytes;
  if (const std::optional<double> seconds = to_seconds(time_limit, "time_limit")) r.options.time_limit = *seconds;
  r.options.count = count;
  const int128 s = to_integer(seed, "seed");
  if (s < 0 || s > int128(UINT64_MAX)) throw nb::value_error("seed must be from 0 to 2^64 - 1");
  r.options.seed = static_cast<std::uint64_t>(s);
  return r;
}

ssum::solution run_interruptible(const std::function<ssum::solution(const std::atomic<bool>*)>& solve) {
  std::atomic<bool> cancel{false};
  std::optional<ssum::solution> result;
  std::exception_ptr failure;
  solver_thread* worker = take_thread();
  worker->start([&] {
    try {
      result = solve(&cancel);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  std::optional<nb::python_error> signal_error;
  for (;;) {
    bool finished;
    {
      nb::gil_scoped_release unlocked;
      finished = worker->wait_for(std::chrono::milliseconds(50));
    }
    if (finished) break;
    if (PyErr_CheckSignals() != 0) {
      signal_error.emplace();  // takes the pending exception
      cancel = true;
      nb::gil_scoped_release unlocked;
      worker->wait();
      break;
    }
  }
  give_back(worker);
  if (signal_error) throw std::move(*signal_error);
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

namespace {

struct solve_request : solve_settings {
  ssum::problem problem;
};

/// Whether the solve can run on the calling thread, saving the hand-off to a solver thread
/// (two thread wake-ups, tens of microseconds: as much as the solve). Only where it is bound to
/// finish within a few milliseconds, so that a Ctrl-C that arrives meanwhile is raised by the
/// interpreter right after it: at most 24 items on the host, so a meet-in-the-middle over lists
/// of at most 2^12 sums; no count and no dynamic program, whose time grows with the weights and
/// target, not with n; no CUDA build under "auto", whose probe may start a driver. And only on
/// one OpenMP thread: a team on the calling thread would be inherited broken by a child that
/// thread forks (multiprocessing), where libgomp hangs. threads=1 guarantees one; so does a
/// host two-list with threads left to the solver, which the planner gives one up to n = 24.
bool runs_inline(const solve_request& r) {
  const bool host = r.backend == ssum::backend::cpu ||
                    (r.backend == ssum::backend::automatic && !ssum::cuda_compiled());
  const bool one_thread =
      r.threads == 1 || (r.threads == 0 && r.backend == ssum::backend::cpu && r.options.algo == ssum::algorithm::two_list);
  return host && one_thread && r.problem.weights.size() <= 24 && !r.options.count &&
         r.options.algo != ssum::algorithm::dynamic_programming;
}

solve_request make_request(nb::handle weights, nb::handle target, nb::handle backend, nb::handle algorithm,
                           nb::handle threads, nb::handle memory, bool count, nb::handle time_limit,
                           nb::handle seed) {
  solve_request r;
  static_cast<solve_settings&>(r) = parse_settings(backend, algorithm, threads, memory, count, time_limit, seed);
  r.problem.weights = to_weights(weights);
  if (!target.is_none()) r.problem.target = to_int128(target, "target");
  return r;
}

// ---- the answer -----------------------------------------------------------------------
py_solution answer(ssum::solution s, const solve_request& r, std::optional<int> decimals) {
  py_solution p;
  p.s = std::move(s);
  p.target = r.problem.target;
  p.decimals = decimals.value_or(-1);
  if (p.s.status == ssum::status::feasible) {
    int128 total = 0;
    for (const std::size_t i : p.s.subset) total += r.problem.weights[i];
    p.sum = total;
  }
  return p;
}

// ---- questions answered by listing ----------------------------------------------------
struct listing_question {
  std::optional<int128> high;
  std::optional<int128> asked;  // the target as asked, for a window (none for target_range)
  std::size_t min_items = 0, max_items = SIZE_MAX;
  bool unique = false;
};

/// A decision, a count or unique=True over a window or a number of items, answered by
/// ssum::list_subsets as `ssum solve --unique/--items/--target-range` answers it: the first
/// subset found, every one counted, or the first two.
py_solution solve_by_listing(solve_request& r, const listing_question& q, std::optional<int> decimals) {
  if (r.options.algo == ssum::algorithm::completion_search) {
    throw nb::value_error("a window, a number of items or unique=True is answered by listing, which runs the "
                          "two-list, the four-list or the dp: algorithm must not be 'completion'");
  }
  ssum::listing_options options;
  options.algo = r.options.algo;
  options.high = q.high;
  options.min_items = q.min_items;
  options.max_items = q.max_items;
  options.limit = q.unique ? 2 : r.options.count ? 0 : 1;
  options.time_limit = r.options.time_limit;
  options.memory_limit = r.options.memory_limit;
  std::vector<std::vector<std::size_t>> kept;
  std::uint64_t listed = 0;
  ssum::listing result;
  ssum::solution s = run_interruptible([&](const std::atomic<bool>* cancel) {
    options.cancel = cancel;
    result = ssum::list_subsets(r.backend, r.threads, r.problem, options, [&](const std::vector<std::size_t>& subset) {
      if (listed++ < 2) kept.push_back(subset);
      return true;
    });
    return ssum::solution{};
  });
  s.status = !kept.empty() ? ssum::status::feasible : result.complete ? ssum::status::infeasible : ssum::status::unknown;
  s.feasible = s.status == ssum::status::feasible;
  if (!kept.empty()) s.subset = kept.front();
  if (r.options.count && result.complete) s.count = ssum::big_count(uint128(listed));
  s.algorithm = result.algorithm.empty() ? "two-list" : result.algorithm;
  s.backend = result.backend.empty() ? "cpu" : result.backend;
  s.threads = result.threads;
  s.seconds.total = result.seconds;
  s.planned_bytes = result.planned_bytes;
  s.plan = result.plan;
  py_solution p = answer(std::move(s), r, decimals);
  if (q.high) {
    p.low = r.problem.target;
    p.high = q.high;
    p.target = q.asked;
  }
  if (q.unique) {
    p.unique = kept.size() >= 2 ? "several" : !result.complete ? "unknown" : kept.size() == 1 ? "unique" : "none";
    p.subsets = std::move(kept);
  }
  return p;
}

// ---- exceptions -----------------------------------------------------------------------
struct exception_types {
  PyObject* insufficient_memory;
  PyObject* backend_unavailable;
  PyObject* out_of_reach;
  PyObject* cuda_error;
};
exception_types* errors = nullptr;  // created once with the module, never freed

PyObject* new_exception(nb::module_& m, const char* name, const char* doc, PyObject* base) {
  const std::string qualified = std::string("ssum.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (!type) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;
}

void raise_with(PyObject* type, const char* message, std::initializer_list<std::pair<const char*, nb::object>> attrs) {
  nb::object exc = nb::steal(PyObject_CallFunction(type, "s", message));
  if (!exc.is_valid()) return;  // the call's own error stays set
  for (const auto& [name, value] : attrs) nb::setattr(exc, name, value);
  PyErr_SetObject(type, exc.ptr());
}

void translate(const std::exception_ptr& failure, void*) {
  try {
    std::rethrow_exception(failure);
  } catch (const ssum::insufficient_memory& e) {
    raise_with(errors->insufficient_memory, e.what(),
               {{"bytes_needed", nb::float_(e.bytes_needed())}, {"bytes_available", nb::float_(e.bytes_available())}});
  } catch (const ssum::backend_unavailable& e) {
    PyErr_SetString(errors->backend_unavailable, e.what());
  } catch (const ssum::out_of_reach& e) {
    PyErr_SetString(errors->out_of_reach, e.what());
  } catch (const ssum::cuda_error& e) {
    raise_with(errors->cuda_error, e.what(), {{"code", nb::int_(e.code())}});
  } catch (const ssum::interrupted&) {
    PyErr_SetString(PyExc_KeyboardInterrupt, "interrupted");
  }
}

}  // namespace

void bind_solve(nb::module_& m) {
  errors = new exception_types{
      new_exception(m, "InsufficientMemory",
                    "The solve would need more memory than is available (or than memory= allows); raised before "
                    "allocating. bytes_needed and bytes_available hold the two figures.",
                    PyExc_MemoryError),
      new_exception(m, "BackendUnavailable",
                    "The backend asked for cannot run here: no CUDA build or device, or a GMP count in a build "
                    "without GMP.",
                    PyExc_RuntimeError),
      new_exception(m, "OutOfReach",
                    "backend and algorithm 'auto': the instance expects no solution and its exact search would run "
                    "for more than a day. A time_limit searches anyway.",
                    PyExc_RuntimeError),
      new_exception(m, "CudaError", "A CUDA call failed; code is the cudaError_t value.", PyExc_RuntimeError),
  };
  nb::register_exception_translator(translate);
  pthread_atfork(nullptr, nullptr, forget_threads_after_fork);

  nb::class_<py_solution>(m, "Solution", "The answer of ssum.solve.")
      .def_prop_ro("feasible", &py_solution::feasible)
      .def_prop_ro("status", [](const py_solution& p) { return status_name(p.s.status); })
      .def_prop_ro("subset", [](const py_solution& p) { return p.s.subset; })
      .def_prop_ro("count", &py_solution::count)
      .def_prop_ro("algorithm", [](const py_solution& p) { return p.s.algorithm; })
      .def_prop_ro("backend", [](const py_solution& p) { return p.s.backend; })
      .def_prop_ro("threads", [](const py_solution& p) { return p.s.threads; })
      .def_prop_ro("seconds", [](const py_solution& p) { return p.s.seconds.total; })
      .def_prop_ro("reason", [](const py_solution& p) { return p.s.plan.reason; })
      .def_prop_ro("reductions", [](const py_solution& p) { return p.s.reductions; })
      .def_prop_ro("planned_bytes", [](const py_solution& p) { return p.s.planned_bytes; })
      .def_prop_ro("target", [](const py_solution& p) { return p.target ? p.amount(*p.target) : nb::none(); })
      .def_prop_ro("window",
                   [](const py_solution& p) {
                     return p.high ? nb::object(nb::make_tuple(p.amount(*p.low), p.amount(*p.high))) : nb::none();
                   })
      .def_prop_ro("sum", [](const py_solution& p) { return p.sum ? p.amount(*p.sum) : nb::none(); })
      .def_prop_ro("decimals", [](const py_solution& p) { return p.decimals < 0 ? 0 : p.decimals; })
      .def_prop_ro("unique", [](const py_solution& p) { return p.unique; })
      .def_prop_ro("subsets",
                   [](const py_solution& p) {
                     if (p.unique) return p.subsets;
                     return p.s.status == ssum::status::feasible ? std::vector<std::vector<std::size_t>>{p.s.subset}
                                                                 : std::vector<std::vector<std::size_t>>{};
                   })
      .def("__repr__", [](const py_solution& p) { return p.repr(); })
      .def("__bool__", [](const py_solution& p) { return p.s.status == ssum::status::feasible; });

  // ssum.solve (python/ssum/__init__.py) checks and scales the listing's arguments and decimal
  // amounts, and calls this.
  m.def(
      "solve",
      [](nb::handle weights, nb::handle target, nb::handle backend, nb::handle algorithm, nb::handle threads,
         nb::handle memory, nb::handle count, nb::handle time_limit, nb::handle seed, bool listing, nb::handle high,
         std::size_t min_items, std::optional<std::size_t> max_items, bool unique, std::optional<int> decimals,
         nb::handle asked) {
        // count as a handle: nanobind's bool takes only Python's two, not numpy's bool.
        solve_request r = make_request(weights, target, backend, algorithm, threads, memory,
                                       to_bool(count, "count"), time_limit, seed);
        if (listing) {
          listing_question q;
          if (!high.is_none()) q.high = to_int128(high, "the window's top");
          if (!asked.is_none()) q.asked = to_int128(asked, "target");
          q.min_items = min_items;
          q.max_items = max_items.value_or(SIZE_MAX);
          q.unique = unique;
          return solve_by_listing(r, q, decimals);
        }
        if (runs_inline(r)) {
          ssum::solution s;
          {
            nb::gil_scoped_release unlocked;  // other Python threads keep running, as for any solve
            s = ssum::solve(r.backend, r.threads, r.problem, r.options);
          }
          return answer(std::move(s), r, decimals);
        }
        ssum::solution s = run_interruptible([&r](const std::atomic<bool>* cancel) {
          r.options.cancel = cancel;
          return ssum::solve(r.backend, r.threads, r.problem, r.options);
        });
        return answer(std::move(s), r, decimals);
      },
      "weights"_a, "target"_a.none() = nb::none(), nb::kw_only(), "backend"_a.none() = "auto",
      "algorithm"_a.none() = "auto", "threads"_a.none() = nb::none(), "memory"_a.none() = nb::none(),
      "count"_a.none() = false, "time_limit"_a.none() = nb::none(), "seed"_a.none() = 1, "_listing"_a = false, "_high"_a = nb::none(), "_min_items"_a = 0, "_max_items"_a = nb::none(),
      "_unique"_a = false, "_decimals"_a = nb::none(), "_asked"_a.none() = nb::none());

  // What the host's free memory was measured from (each figure; the room is the smallest).
  m.def("_host_memory_report", [] { return ssum::host_memory_report(); });

  // For measuring the binding: the conversion alone, and the C++ call alone (in a C++ loop).
  m.def("_convert_weights", [](nb::handle weights) { return to_weights(weights).size(); }, "weights"_a);
  m.def(
      "_time_cpp_solve",
      [](nb::handle weights, nb::handle target, std::size_t repeat, nb::handle threads) {
        solve_request r = make_request(weights, target, nb::str("cpu"), nb::str("auto"), threads, nb::none(), false,
                                       nb::none(), nb::int_(1));
        nb::gil_scoped_release unlocked;
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t k = 0; k < repeat; ++k) ssum::solve(r.backend, r.threads, r.problem, r.options);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / double(repeat);
      },
      "weights"_a, "target"_a, "repeat"_a, "threads"_a.none() = nb::none());
}

}  // namespace ssum::python

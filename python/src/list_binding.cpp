// ssum.solutions: every subset in a window, handed to Python as ssum::list_subsets finds them.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
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

#include "bindings.hpp"
#include "convert.hpp"
#include "solve_binding.hpp"
#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace ssum::python {
namespace {

using clock_type = std::chrono::steady_clock;
using subset_batch = std::vector<std::vector<std::size_t>>;

// Subsets travel in batches, so that the consumer takes the mutex and the GIL once per batch
// rather than once per subset; a batch leaves when it is full, 20 ms after its first subset, or
// at once while the consumer waits (a slow listing shows each subset as soon as it is found).
constexpr std::size_t batch_size = 4096;
constexpr auto batch_age = std::chrono::milliseconds(20);
// The least time next() leaves the GIL to other threads once it has to wait (take_batch).
constexpr auto gil_pause = std::chrono::milliseconds(1);
// At most this many batches wait: the producer then waits too, so that memory stays bounded
// whatever the number of subsets and however slowly they are taken.
constexpr std::size_t queued_batches = 4;

// What the listing thread and the iterator share. The thread holds it by shared_ptr too, so
// that the iterator may go away (at interpreter exit) while the thread finishes.
struct channel {
  std::mutex mutex;
  std::condition_variable arrived, room;
  std::deque<subset_batch> queue;
  bool finished = false;
  bool consumer_waiting = false;
  std::exception_ptr failure;
  ssum::listing summary;
  std::atomic<bool> cancel{false};
};

struct listing_request {
  ssum::problem problem;
  ssum::backend backend = ssum::backend::automatic;
  unsigned threads = 0;
  ssum::listing_options options;
};

void produce(const std::shared_ptr<channel>& ch, const listing_request& r) {
  subset_batch batch;
  clock_type::time_point first{};
  // False when the iterator was closed: the listing then stops.
  const auto send = [&]() -> bool {
    std::unique_lock lock(ch->mutex);
    ch->room.wait(lock, [&] { return ch->queue.size() < queued_batches || ch->cancel; });
    if (ch->cancel) return false;
    ch->queue.push_back(std::move(batch));
    batch.clear();
    lock.unlock();
    ch->arrived.notify_one();
    return true;
  };
  ssum::listing summary;
  std::exception_ptr failure;
  try {
    ssum::listing_options options = r.options;
    options.cancel = &ch->cancel;
    summary = ssum::list_subsets(r.backend, r.threads, r.problem, options, [&](const std::vector<std::size_t>& s) {
      if (batch.empty()) first = clock_type::now();
      batch.push_back(s);
      bool waiting;
      {
        std::lock_guard lock(ch->mutex);
        waiting = ch->consumer_waiting && ch->queue.empty();
      }
      if (batch.size() >= batch_size || waiting || clock_type::now() - first >= batch_age) return send();
      return true;
    });
    if (!batch.empty()) send();
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(ch->mutex);
    ch->summary = std::move(summary);
    ch->failure = failure;
    ch->finished = true;
  }
  ch->arrived.notify_all();
}

// One next() at a time, as a generator allows: a second one, from another thread or from a
// signal handler, raises ValueError at once. Every flag that next(), close() and the properties
// share is read under state_ (or is atomic), not under the GIL: next() releases the GIL while it
// waits, and a free-threaded build has none.
class solutions_iterator {
 public:
  explicit solutions_iterator(listing_request request)
      : ch_(std::make_shared<channel>()), request_(std::move(request)) {
    std::shared_ptr<channel> ch = ch_;
    thread_ = std::thread([ch, this] { produce(ch, request_); });
  }
  solutions_iterator(const solutions_iterator&) = delete;
  solutions_iterator& operator=(const solutions_iterator&) = delete;
  ~solutions_iterator() {
    cancel();
    join_thread();
  }

  nb::object next() {
    bool busy, closing;
    {
      std::lock_guard lock(state_);
      busy = running_;
      closing = close_requested_;
      running_ = running_ || !closing;
    }
    // Raised without the lock held: the exceptions are Python objects.
    if (busy) throw nb::value_error("ssum.Solutions iterator already executing (another thread is in its next())");
    if (closing) throw nb::stop_iteration();
    running_guard guard{*this};
    while (position_ >= current_.size()) {
      current_.clear();
      position_ = 0;
      if (!take_batch()) throw nb::stop_iteration();
    }
    const std::vector<std::size_t>& s = current_[position_++];
    yielded_.fetch_add(1, std::memory_order_relaxed);
    nb::list out;
    for (const std::size_t i : s) out.append(nb::int_(i));
    return out;
  }

  /// Stops the listing. With a next() running on another thread, that next() ends with
  /// StopIteration and waits for the listing's thread itself, so that close() never waits on
  /// it; otherwise close() waits for the thread (promptly: the listing polls cancel).
  void close() {
    bool join_here;
    {
      std::lock_guard lock(state_);
      close_requested_ = true;
      join_here = !running_;
      if (join_here) {
        closed_ = true;
        current_.clear();
        position_ = 0;
      }
    }
    cancel();
    if (join_here) join_thread();
  }

  std::uint64_t listed() const { return yielded_.load(std::memory_order_relaxed); }
  bool complete() const { return done() && ch_->summary.complete; }
  bool timed_out() const { return done() && ch_->summary.timed_out; }
  nb::object seconds() const { return done() ? nb::object(nb::float_(ch_->summary.seconds)) : nb::none(); }
  nb::object planned_bytes() const { return done() ? nb::object(nb::int_(ch_->summary.planned_bytes)) : nb::none(); }
  nb::object reason() const { return done() ? nb::object(nb::str(ch_->summary.plan.reason.c_str())) : nb::none(); }

 private:
  // Leaves next(): the next caller may enter, and a close() that came meanwhile is finished here.
  struct running_guard {
    solutions_iterator& it;
    ~running_guard() {
      bool close_now;
      {
        std::lock_guard lock(it.state_);
        it.running_ = false;
        close_now = it.close_requested_ && !it.closed_;
        if (close_now) {
          it.closed_ = true;
          it.current_.clear();
          it.position_ = 0;
        }
      }
      if (close_now) it.join_thread();
    }
  };

  // The listing's summary may be read once done_ is set: the thread has ended.
  bool done() const { return done_.load(std::memory_order_acquire); }

  void cancel() {
    {
      std::lock_guard lock(ch_->mutex);
      ch_->cancel = true;
    }
    ch_->room.notify_all();
    ch_->arrived.notify_all();  // a next() waiting on another thread looks at close_requested_
  }

  // Joins the listing's thread once, whoever asks first (a later caller finds it claimed).
  void join_thread() {
    {
      std::lock_guard lock(state_);
      if (join_claimed_) return;
      join_claimed_ = true;
    }
    if (PyGILState_Check()) {
      nb::gil_scoped_release unlocked;
      thread_.join();
    } else {
      thread_.join();
    }
  }

  bool close_requested() {
    std::lock_guard lock(state_);
    return close_requested_;
  }

  // The next batch into current_; false at the end or once closed. A batch already queued is
  // taken with the GIL held. Otherwise it waits with the GIL released, looking for signals
  // every 50 ms (a handler that raises cancels the listing first), and keeps the GIL away for
  // at least gil_pause: a consumer that dropped the GIL and took it straight back after each
  // small batch would starve every other Python thread (CPython's GIL is not fair: a thread
  // that takes it back at once wins, and the waiting thread's switch request is withdrawn each
  // time the GIL changes hands), a threading.Timer that raises KeyboardInterrupt included.
  bool take_batch() {
    if (done() || close_requested()) return false;
    {
      std::lock_guard lock(ch_->mutex);
      if (!ch_->cancel && !ch_->queue.empty()) {
        current_ = std::move(ch_->queue.front());
        ch_->queue.pop_front();
      }
    }
    if (!current_.empty()) {
      ch_->room.notify_one();
      return true;
    }
    for (;;) {
      bool have = false, finished = false, closing = false;
      {
        nb::gil_scoped_release unlocked;
        const auto released = clock_type::now();
        std::unique_lock lock(ch_->mutex);
        ch_->consumer_waiting = true;
        ch_->arrived.wait_for(lock, std::chrono::milliseconds(50),
                              [&] { return !ch_->queue.empty() || ch_->finished || ch_->cancel; });
        ch_->consumer_waiting = false;
        if (!ch_->cancel && !ch_->finished) {
          // What the listing finds meanwhile joins its batch: fewer, larger batches too.
          ch_->arrived.wait_until(lock, released + gil_pause, [&] { return ch_->cancel.load(); });
        }
        closing = ch_->cancel;
        if (!closing && !ch_->queue.empty()) {
          current_ = std::move(ch_->queue.front());
          ch_->queue.pop_front();
          have = true;
        } else if (!closing) {
          finished = ch_->finished;
        }
      }
      if (closing) return false;  // closed from another thread (or a signal handler)
      if (have) {
        ch_->room.notify_one();
        return true;
      }
      if (finished) {
        join_thread();
        done_.store(true, std::memory_order_release);
        if (ch_->failure) std::rethrow_exception(ch_->failure);
        return false;
      }
      if (PyErr_CheckSignals() != 0) {
        nb::python_error signal_error;  // takes the pending exception
        {
          std::lock_guard lock(state_);
          close_requested_ = true;  // finished by running_guard as next() leaves
        }
        cancel();
        throw signal_error;
      }
    }
  }

  std::shared_ptr<channel> ch_;
  listing_request request_;  // the thread reads it: it lives as long as the iterator
  std::thread thread_;
  // Touched only by the one next() running (or by close() when none runs).
  subset_batch current_;
  std::size_t position_ = 0;
  std::atomic<std::uint64_t> yielded_{0};
  std::atomic<bool> done_{false};  // the listing ended and its summary may be read
  std::mutex state_;               // guards the four flags below
  bool running_ = false;           // a next() is under way
  bool close_requested_ = false;   // close(), a signal, or destruction: no more subsets
  bool closed_ = false;            // current_ dropped after a close
  bool join_claimed_ = false;      // someone joins (or joined) the listing's thread
};

}  // namespace

void bind_listing(nb::module_& m) {
  nb::class_<solutions_iterator>(m, "Solutions",
                                 "The iterator of ssum.solutions: each subset as a list of indices, then a summary.")
      .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__next__", &solutions_iterator::next)
      .def("close", &solutions_iterator::close)
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](solutions_iterator& it, nb::args) { it.close(); })
      .def_prop_ro("listed", &solutions_iterator::listed)
      .def_prop_ro("complete", &solutions_iterator::complete)
      .def_prop_ro("timed_out", &solutions_iterator::timed_out)
      .def_prop_ro("seconds", &solutions_iterator::seconds)
      .def_prop_ro("planned_bytes", &solutions_iterator::planned_bytes)
      .def_prop_ro("reason", &solutions_iterator::reason)
      .def("__repr__", [](const solutions_iterator& it) {
        return "<ssum.Solutions: " + std::to_string(it.listed()) + " listed" +
               (it.complete() ? ", complete>" : it.timed_out() ? ", timed out>" : ">");
      });

  // The arguments come checked and scaled from ssum.solutions (python/ssum/__init__.py).
  m.def(
      "_solutions",
      [](nb::handle weights, nb::handle target, nb::handle high, std::size_t min_items,
         std::optional<std::size_t> max_items, std::uint64_t limit, nb::handle time_limit, nb::handle memory,
         nb::handle threads, nb::handle backend) {
        listing_request r;
        r.backend = parse_backend(backend);
        r.problem.weights = to_weights(weights);
        if (!target.is_none()) r.problem.target = to_int128(target, "target");
        if (!high.is_none()) r.options.high = to_int128(high, "the window's top");
        r.options.min_items = min_items;
        r.options.max_items = max_items.value_or(SIZE_MAX);
        r.options.limit = limit;
        if (const std::optional<double> seconds = to_seconds(time_limit, "time_limit")) r.options.time_limit = *seconds;
        if (const std::optional<std::uint64_t> bytes = parse_memory(memory)) r.options.memory_limit = *bytes;
        r.threads = parse_threads(threads);
        return new solutions_iterator(std::move(r));
      },
      "weights"_a, "target"_a.none(), "high"_a.none(), "min_items"_a, "max_items"_a.none(), "limit"_a,
      "time_limit"_a.none(), "memory"_a.none(), "threads"_a.none(), "backend"_a.none(), nb::rv_policy::take_ownership);
}

}  // namespace ssum::python

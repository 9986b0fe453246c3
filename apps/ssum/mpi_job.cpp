// The MPI job of `ssum solve` (mpi_job.hpp): rank 0 coordinates a work_pool, the other ranks
// reach it through remote_share. Every message is a short array of 64-bit words (or text),
// between rank 0 and one other rank; MPI keeps each pair's messages in order.
#include "mpi_job.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "ssum/ssum.hpp"

namespace ssum::cli {
namespace {

using words = std::vector<std::uint64_t>;

// Tags: ranks -> 0 ask and report; 0 -> ranks answer and steer.
enum tag : int {
  tag_start = 1,   // 0 -> r: the four-list began on rank 0; start yours
  tag_begin,       // r -> 0: fingerprint, n, proposed bits, largest bits
  tag_bits,        // 0 -> r: the job's bits (0: refused)
  tag_need,        // r -> 0: units, please
  tag_grant,       // 0 -> r: first, last (first == last: none left)
  tag_done,        // r -> 0: first, last, count low, count high
  tag_end,         // r -> 0: the rank's solve ended: its answer as JSON text
  tag_failed,      // r -> 0: exit code, then the message's bytes
  tag_stop,        // 0 -> r: stop your solve now
  tag_final,       // 0 -> r: the job is over
  tag_subset       // r -> 0: a subset of the searched instance found in a unit not yet done
};

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

void send(const words& w, int to, int t) {
  check(MPI_Send(w.data(), static_cast<int>(w.size()), MPI_UINT64_T, to, t, MPI_COMM_WORLD), "MPI_Send");
}

void send_text(const std::string& s, int to, int t) {
  check(MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, to, t, MPI_COMM_WORLD), "MPI_Send");
}

bool is_text(int t) { return t == tag_end || t == tag_failed; }

struct message {
  int from = 0, tag = 0;
  words w;
  std::string text;
};

// The next message waiting for this rank, if any (does not block).
std::optional<message> poll() {
  int ready = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &status), "MPI_Iprobe");
  if (!ready) return std::nullopt;
  message m;
  m.from = status.MPI_SOURCE;
  m.tag = status.MPI_TAG;
  int count = 0;
  if (is_text(m.tag)) {
    check(MPI_Get_count(&status, MPI_CHAR, &count), "MPI_Get_count");
    m.text.resize(static_cast<std::size_t>(count));
    check(MPI_Recv(m.text.data(), count, MPI_CHAR, m.from, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  } else {
    check(MPI_Get_count(&status, MPI_UINT64_T, &count), "MPI_Get_count");
    m.w.resize(static_cast<std::size_t>(count));
    check(MPI_Recv(m.w.data(), count, MPI_UINT64_T, m.from, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  }
  return m;
}

// The main threads poll for messages between pauses that grow while nothing arrives, from 0.1
// ms to `most`: rank 0 to 10 ms (a rank asks for its next range a quarter before it needs it),
// the others to 20 ms unless they wait for an answer. Each poll (MPI_Iprobe) runs MPI's progress
// engine; at 0.1-2 ms the pollers took 5-9% of a core beside the solve's threads, which cost a
// shared search on the 2-core machine more than that.
class idle_pause {
 public:
  explicit idle_pause(std::chrono::microseconds most) : most_(most) {}
  std::chrono::microseconds next(bool active) {
    pause_ = active ? least : std::min(pause_ * 2, most_);
    return pause_;
  }

 private:
  static constexpr std::chrono::microseconds least{100};
  std::chrono::microseconds most_, pause_{least};
};

uint128 count_of(const words& w, std::size_t at) { return (uint128(w[at + 1]) << 64) | w[at]; }

// A rank's answer, as it travels to rank 0.
std::string answer_text(const solution& s) {
  nlohmann::json j;
  j["status"] = s.status == status::unknown ? "unknown" : s.feasible ? "feasible" : "infeasible";
  if (s.feasible) j["subset"] = s.subset;
  j["algorithm"] = s.algorithm;
  j["backend"] = s.backend;
  j["threads"] = s.threads;
  j["seconds"] = s.seconds.total;
  return j.dump();
}

// The units of a rank other than 0: asked of rank 0 in ranges, handed to the solve's threads
// `most` at a time. The calls come from the solve's threads; mailbox() is served by the
// rank's main thread, which alone talks MPI.
class remote_share final : public work_share {
 public:
  int begin(std::uint64_t fingerprint, std::size_t n, int proposed, int largest) override {
    std::unique_lock<std::mutex> guard(lock_);
    outbox_.push_back({tag_begin, {fingerprint, n, std::uint64_t(proposed), std::uint64_t(largest)}});
    begun_asked_ = true;
    wake_.notify_all();
    wake_.wait(guard, [&] { return bits_ >= 0 || stopped_; });
    begun_asked_ = false;
    if (stopped_) throw interrupted();
    if (bits_ == 0) throw input_error("rank 0 holds another instance or plan for this search: no verdict", 0);
    return bits_;
  }
  std::optional<std::array<std::uint64_t, 2>> next(std::uint64_t, std::uint64_t most) override {
    std::unique_lock<std::mutex> guard(lock_);
    for (;;) {
      if (stopped_) return std::nullopt;
      if (held_[0] == held_[1] && ahead_) {
        held_ = *ahead_;
        granted_ = held_[1] - held_[0];
        ahead_.reset();
      }
      if (held_[0] < held_[1]) {
        const std::uint64_t first = held_[0], last = std::min(held_[1], first + std::max<std::uint64_t>(most, 1));
        held_[0] = last;
        // The next range is asked for when a quarter of this one is left, so that it is here
        // before this one runs out.
        if (4 * (held_[1] - held_[0]) <= granted_) ask();
        return std::array<std::uint64_t, 2>{first, last};
      }
      if (exhausted_) return std::nullopt;
      ask();
      wake_.wait(guard);
    }
  }
  // Finished units wait here, consecutive ones joined, until the main thread's next pass (at
  // most 20 ms) or the next request: one message per unit cost rank 1 of a 2-core search 6% of
  // a core in its main thread.
  void finished(std::uint64_t first, std::uint64_t last, uint128 count) override {
    std::lock_guard<std::mutex> guard(lock_);
    if (!done_.empty() && done_.back().last == first) {
      done_.back().last = last;
      done_.back().count += count;
    } else {
      done_.push_back({first, last, count});
    }
  }
  // Ahead of the finished units (they wait in done_ until the next send): rank 0's checkpoint
  // never counts this rank's solutions without holding one of them.
  void found(const std::vector<std::size_t>& subset) override {
    std::lock_guard<std::mutex> guard(lock_);
    flush_done();
    outbox_.push_back({tag_subset, words(subset.begin(), subset.end())});
    wake_.notify_all();
  }
  double done() const override { return 0; }  // not shown: rank 0 shows the job's progress
  uint128 finish(uint128 own, const std::atomic<bool>*) override { return own; }
  std::size_t solves() const override { return ranks_; }
  explicit remote_share(std::size_t ranks) : ranks_(ranks) {}

  // The main thread: sends what the solve's threads asked for, waiting at most `pause` for
  // it; whether anything was sent.
  bool send_pending(std::chrono::microseconds pause) {
    std::deque<std::pair<int, words>> out;
    {
      std::unique_lock<std::mutex> guard(lock_);
      if (outbox_.empty()) wake_.wait_for(guard, pause);
      flush_done();
      out.swap(outbox_);
    }
    for (const auto& [t, w] : out) send(w, 0, t);
    return !out.empty();
  }
  void deliver(const message& m) {
    std::lock_guard<std::mutex> guard(lock_);
    if (m.tag == tag_bits) bits_ = static_cast<int>(m.w.at(0));
    if (m.tag == tag_grant) {
      const std::array<std::uint64_t, 2> g{m.w.at(0), m.w.at(1)};
      if (g[0] == g[1]) {
        exhausted_ = true;  // what is held still runs
      } else if (held_[0] == held_[1]) {
        held_ = g;
        granted_ = g[1] - g[0];
      } else {
        ahead_ = g;
      }
      asked_ = false;
    }
    if (m.tag == tag_stop) stopped_ = true;
    wake_.notify_all();
  }
  /// Whether a solve's thread waits for rank 0 (the main thread then polls often).
  bool waiting() {
    std::lock_guard<std::mutex> guard(lock_);
    return asked_ || begun_asked_;
  }

 private:
  void ask() {  // with lock_ held
    if (asked_ || ahead_ || exhausted_) return;
    asked_ = true;
    flush_done();  // rank 0 hears of the finished units first
    outbox_.push_back({tag_need, {}});
    wake_.notify_all();
  }
  void flush_done() {  // with lock_ held
    for (const auto& d : done_) {
      outbox_.push_back({tag_done, {d.first, d.last, std::uint64_t(d.count), std::uint64_t(d.count >> 64)}});
    }
    done_.clear();
  }
  struct done_range {
    std::uint64_t first, last;
    uint128 count;
  };
  std::vector<done_range> done_;
  std::size_t ranks_;
  std::mutex lock_;
  std::condition_variable wake_;
  std::deque<std::pair<int, words>> outbox_;
  int bits_ = -1;
  std::array<std::uint64_t, 2> held_{0, 0};       // units being handed to the solve's threads
  std::optional<std::array<std::uint64_t, 2>> ahead_;  // the next range, already granted
  std::uint64_t granted_ = 0;                     // the size of held_ when it was granted
  bool asked_ = false, begun_asked_ = false, exhausted_ = false, stopped_ = false;
};

// Runs `solve` on a thread of its own; the caller polls done().
class solve_thread {
 public:
  explicit solve_thread(std::function<solution()> solve)
      : thread_([this, solve = std::move(solve)] {
          try {
            answer_ = solve();
          } catch (...) {
            error_ = std::current_exception();
          }
          done_.store(true);
        }) {}
  ~solve_thread() {
    if (thread_.joinable()) thread_.join();
  }
  bool done() const { return done_.load(); }
  void join() { thread_.join(); }
  std::optional<solution> answer_;
  std::exception_ptr error_;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// One GPU a rank: the rank's node-local index picks one of the visible devices (the list in
// CUDA_VISIBLE_DEVICES, or the driver's GPUs), before anything starts CUDA.
void take_gpu_by_local_rank(int local_rank, int local_size) {
  if (local_size <= 1) return;
  std::vector<std::string> visible;
  if (const char* env = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string list = env;
    for (std::size_t at = 0; at <= list.size();) {
      const std::size_t comma = std::min(list.find(',', at), list.size());
      if (comma > at) visible.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
  } else {
    std::error_code ec;
    std::size_t gpus = 0;
    for (const auto& e : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) gpus += e.is_directory();
    for (std::size_t g = 0; g < gpus; ++g) visible.push_back(std::to_string(g));
    if (gpus > 0) ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
  }
  if (visible.size() <= 1) return;
  ::setenv("CUDA_VISIBLE_DEVICES", visible[std::size_t(local_rank) % visible.size()].c_str(), 1);
}

}  // namespace

bool started_by_mpi_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

mpi_job::mpi_job(int& argc, char**& argv) {
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
  take_gpu_by_local_rank(local_rank_, local_size_);
}

mpi_job::~mpi_job() { MPI_Finalize(); }

unsigned mpi_job::default_threads() const {
  // The cores this rank may run on (OpenMP reads its affinity): fewer than the node's when
  // mpirun bound it (Open MPI binds to a core by default for 2 ranks or fewer), and then they
  // are its share; otherwise the node's cores split among its ranks.
  const unsigned allowed = std::max(1u, ssum::resolved_threads(ssum::cpu{}));
  const unsigned node = std::max(1u, std::thread::hardware_concurrency());
  if (allowed < node) return allowed;
  return std::max(1u, node / unsigned(std::max(local_size_, 1)));
}

std::optional<problem> mpi_job::broadcast(const std::optional<problem>& p, int& code) {
  // Header: readable, exit code, n, has target, target low, target high; then the weights.
  words head(6, 0);
  if (rank_ == 0) {
    head[0] = p.has_value();
    head[1] = std::uint64_t(code);
    if (p) {
      head[2] = p->weights.size();
      head[3] = p->target.has_value();
      const uint128 t = p->target ? uint128(*p->target) : 0;
      head[4] = std::uint64_t(t);
      head[5] = std::uint64_t(t >> 64);
    }
  }
  check(MPI_Bcast(head.data(), 6, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (!head[0]) {
    code = static_cast<int>(head[1]);
    return std::nullopt;
  }
  words w(2 * head[2]);
  if (rank_ == 0) {
    for (std::size_t i = 0; i < p->weights.size(); ++i) {
      w[2 * i] = std::uint64_t(uint128(p->weights[i]));
      w[2 * i + 1] = std::uint64_t(uint128(p->weights[i]) >> 64);
    }
  }
  // In pieces below 2^31 words: MPI counts are int.
  constexpr std::size_t piece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < w.size(); at += piece) {
    const int count = static_cast<int>(std::min(piece, w.size() - at));
    check(MPI_Bcast(w.data() + at, count, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }
  if (rank_ == 0) return p;
  problem q;
  q.weights.resize(head[2]);
  for (std::size_t i = 0; i < q.weights.size(); ++i) q.weights[i] = int128(count_of(w, 2 * i));
  if (head[3]) q.target = int128((uint128(head[5]) << 64) | head[4]);
  return q;
}

std::optional<job_answer> mpi_job::solve(backend which, unsigned threads, const problem& p, solve_options options,
                                         const std::atomic<bool>& interrupt, const failure_of& failure) {
  if (rank_ == 0) return coordinate(which, threads, p, std::move(options), interrupt);
  work(which, threads, p, std::move(options), interrupt, failure);
  return std::nullopt;
}

// A rank other than 0: waits for the start (or the end), runs the four-list with units from
// rank 0, reports its answer, and waits for the end.
void mpi_job::work(backend which, unsigned threads, const problem& p, solve_options options,
                   const std::atomic<bool>& interrupt, const failure_of& failure) {
  remote_share share{std::size_t(size_)};
  std::atomic<bool> stop{false};
  options.algo = algorithm::four_list;
  options.share = &share;
  options.cancel = &stop;
  options.checkpoint.clear();  // rank 0 keeps it
  options.on_progress = nullptr;
  std::optional<solve_thread> running;
  bool reported = false, active = true;
  idle_pause pause(std::chrono::milliseconds(20));
  for (;;) {
    if (running) active = share.send_pending(pause.next(active || share.waiting()));
    else std::this_thread::sleep_for(pause.next(active));
    if (interrupt.load()) stop.store(true);
    while (const std::optional<message> m = poll()) {
      active = true;
      if (m->tag == tag_final) {
        if (running) {
          stop.store(true);
          share.deliver(message{0, tag_stop, {}, {}});
          running->join();
        }
        return;
      }
      if (m->tag == tag_start && !running) {
        running.emplace([&] { return ssum::solve(which, threads, p, options); });
      } else if (m->tag == tag_stop) {
        stop.store(true);
        share.deliver(*m);
      } else {
        share.deliver(*m);
      }
    }
    if (running && running->done() && !reported) {
      share.send_pending(std::chrono::microseconds(0));  // its last finished units first
      if (running->answer_) {
        send_text(answer_text(*running->answer_), 0, tag_end);
      } else if (running->error_ && stop.load()) {
        solution stopped;  // stopped by rank 0 (or a signal): no answer of its own
        stopped.status = status::unknown;
        send_text(answer_text(stopped), 0, tag_end);
      } else {
        const auto [code, text] = failure(running->error_);
        send_text(std::to_string(code) + " " + text, 0, tag_failed);
      }
      reported = true;
    }
  }
}

// Rank 0: its own solve on a thread (the pool's coordinator), the other ranks served from the
// main thread until every rank has answered.
std::optional<job_answer> mpi_job::coordinate(backend which, unsigned threads, const problem& p,
                                              solve_options options, const std::atomic<bool>& interrupt) {
  const int others = size_ - 1;
  work_pool pool(options.count, options.checkpoint, options.checkpoint_seconds);
  pool_share share(pool, true, std::size_t(size_));
  std::atomic<bool> stop{false};
  options.checkpoint.clear();
  options.share = &share;
  options.cancel = &stop;
  solve_thread own([&] { return ssum::solve(which, threads, p, options); });

  bool started = false, stopped = false;
  std::vector<char> ended(std::size_t(size_), 0);
  int ended_count = 0;
  std::vector<double> seconds(std::size_t(size_), 0.0);
  std::optional<std::pair<int, nlohmann::json>> found;  // (rank, its answer) of the first subset from another rank
  std::optional<rank_failure> failed;
  std::exception_ptr pool_error;
  idle_pause pause(std::chrono::milliseconds(10));
  bool active = true;
  const auto stop_all = [&] {
    if (stopped) return;
    stopped = true;
    pool.stop();
    stop.store(true);
    if (started) {
      for (int r = 1; r < size_; ++r) send({}, r, tag_stop);
    }
  };
  for (;;) {
    if (!started && pool.begun()) {
      started = true;
      for (int r = 1; r < size_; ++r) send({}, r, tag_start);
    }
    if (interrupt.load()) stop_all();
    while (const std::optional<message> m = poll()) {
      active = true;
      const int r = m->from;
      try {
        switch (m->tag) {
          case tag_begin: {
            int bits = 0;
            try {
              bits = pool.begin(m->w.at(0), m->w.at(1), int(m->w.at(2)), int(m->w.at(3)));
            } catch (const std::exception& e) {
              if (!failed) failed = rank_failure{2, "rank " + std::to_string(r) + ": " + e.what()};
              stop_all();
            }
            send({std::uint64_t(bits)}, r, tag_bits);
            break;
          }
          case tag_need: {
            const auto g = pool.grant(std::size_t(size_), UINT64_MAX);
            send(g ? words{(*g)[0], (*g)[1]} : words{0, 0}, r, tag_grant);
            break;
          }
          case tag_done:
            pool.finished(m->w.at(0), m->w.at(1), count_of(m->w, 2));
            break;
          case tag_subset:
            pool.found(std::vector<std::size_t>(m->w.begin(), m->w.end()));
            break;
          case tag_end: {
            const nlohmann::json j = nlohmann::json::parse(m->text);
            seconds[std::size_t(r)] = j.at("seconds").get<double>();
            if (j.at("status") == "feasible" && !found) {
              const auto subset = j.at("subset").get<std::vector<std::size_t>>();
              if (!is_certificate(p, subset)) {
                failed = rank_failure{4, "rank " + std::to_string(r) + ": internal error: its subset does not verify"};
                stop_all();
              } else {
                found.emplace(r, j);
                if (!options.count) stop_all();  // a decision is answered
              }
            }
            if (!ended[std::size_t(r)]) ++ended_count;
            ended[std::size_t(r)] = 1;
            break;
          }
          case tag_failed: {
            const std::size_t space = m->text.find(' ');
            const int code = std::atoi(m->text.substr(0, space).c_str());
            if (!failed) failed = rank_failure{code, "rank " + std::to_string(r) + ": " + m->text.substr(space + 1)};
            if (!ended[std::size_t(r)]) ++ended_count;
            ended[std::size_t(r)] = 1;
            stop_all();
            break;
          }
          default:
            throw std::logic_error("unexpected message " + std::to_string(m->tag) + " from rank " + std::to_string(r));
        }
      } catch (const std::exception&) {
        if (!pool_error) pool_error = std::current_exception();  // a checkpoint's write, a bad message
        stop_all();
      }
    }
    if (own.done()) {
      const bool own_found = own.answer_ && own.answer_->feasible && !options.count;
      if (own_found || !own.answer_) stop_all();  // answered here, or failed or stopped here
      if (!started || ended_count == others) break;
      if (own.answer_ && own.answer_->status == status::unknown) stop_all();  // the time limit
    }
    std::this_thread::sleep_for(pause.next(active));
    active = false;
  }
  for (int r = 1; r < size_; ++r) send({}, r, tag_final);
  own.join();
  try {
    pool.close();  // the checkpoint: kept when stopped early, removed when complete
  } catch (...) {
    if (!pool_error) pool_error = std::current_exception();
  }

  if (failed) throw *failed;
  if (pool_error) std::rethrow_exception(pool_error);
  job_answer out;
  out.ranks = size_;
  out.shared = started;
  if (own.answer_) seconds[0] = own.answer_->seconds.total;
  out.rank_seconds = seconds;
  if (own.answer_) {
    out.answer = *own.answer_;
  } else if (found && !options.count) {
    // Rank 0's own solve was stopped by another rank's subset: that rank's answer. (A count
    // has no answer until rank 0's own solve has gathered every unit's.)
    const nlohmann::json& j = found->second;
    out.answer.algorithm = j.at("algorithm").get<std::string>();
    out.answer.backend = j.at("backend").get<std::string>();
    out.answer.threads = j.at("threads").get<unsigned>();
    out.answer.plan = {out.answer.algorithm, out.answer.backend,
                       "the four-list shared by " + std::to_string(size_) + " ranks; rank " +
                           std::to_string(found->first) + " found the subset"};
    out.answer.seconds.total = seconds[std::size_t(found->first)];
  } else {
    std::rethrow_exception(own.error_);  // interrupted, or rank 0's own failure
  }
  if (found && !out.answer.feasible) {
    out.answer.feasible = true;
    out.answer.status = status::feasible;
    out.answer.subset = found->second.at("subset").get<std::vector<std::size_t>>();
  }
  const std::string ranks = std::to_string(size_) + (size_ == 1 ? " rank" : " ranks");
  out.note = started        ? "the four-list's units were shared by " + ranks
             : pool.begun() ? "rank 0 found the subset before the other ranks started"
                            : "ran on rank 0 alone: " + out.answer.algorithm + " is not shared between ranks";
  return out;
}

}  // namespace ssum::cli

// The pool of a shared four-list search (ssum/work_share.hpp): units handed out in shrinking
// ranges, their counts summed, the checkpoint kept by one unit_record (unit_record.hpp), the
// same file format as a search run in one process.
#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "solver/four_list/checkpoint.hpp"
#include "solver/four_list/four_list_plan.hpp"
#include "solver/four_list/unit_record.hpp"
#include "ssum/errors.hpp"
#include "ssum/work_share.hpp"

namespace ssum {

struct work_pool::state {
  mutable std::mutex lock;
  bool counting;
  std::string path;
  double seconds;
  // The plan, fixed by the first begin().
  bool begun = false;
  std::uint64_t fingerprint = 0;
  std::size_t n = 0;
  int bits = 0;
  std::uint64_t units = 0;
  std::vector<char> skip;   // finished before this run (a checkpoint's)
  std::uint64_t cursor = 0;      // units below it are handed out or skipped
  std::uint64_t ungranted = 0;   // units at or above cursor not yet handed out, skipped ones excluded
  std::uint64_t finished = 0;    // units finished, skipped ones included
  uint128 count = 0;             // solutions in the finished units, the checkpoint's included
  bool stopped = false;
  std::optional<std::vector<std::size_t>> subset;  // the first found, or the checkpoint's
  std::optional<detail::unit_record> record;
};

work_pool::work_pool(bool counting, std::string checkpoint, double checkpoint_seconds)
    : s_(std::make_unique<state>()) {
  s_->counting = counting;
  s_->path = std::move(checkpoint);
  s_->seconds = checkpoint_seconds;
  if (!s_->path.empty()) check_checkpoint_path(s_->path);
}

work_pool::~work_pool() = default;

int work_pool::begin(std::uint64_t fingerprint, std::size_t n, int proposed, int largest) {
  std::lock_guard<std::mutex> guard(s_->lock);
  state& s = *s_;
  if (s.begun) {
    if (fingerprint != s.fingerprint || n != s.n) {
      throw input_error("the processes of one search reduced the instance differently (" + std::to_string(n) +
                            " items against " + std::to_string(s.n) + "): no verdict",
                        0);
    }
    return s.bits;
  }
  if (proposed < 1 || proposed > largest) throw std::invalid_argument("work_pool::begin: modulus bits out of range");
  int bits = proposed;
  std::optional<detail::checkpoint> saved;
  if (!s.path.empty()) saved = detail::read_checkpoint(s.path);
  if (saved && saved->id.modulus_bits >= 1 && saved->id.modulus_bits <= largest) bits = saved->id.modulus_bits;
  const std::uint64_t units = detail::units_of(detail::modulus_for(bits));
  std::vector<bool> done(units, false);
  uint128 before = 0;
  if (!s.path.empty()) {
    const detail::checkpoint_identity id{"four-list", fingerprint, n, bits, units, s.counting};
    detail::checkpoint_state st;
    if (saved) detail::check_identity(s.path, saved->id, id);
    if (saved && detail::resumable(saved->state)) {
      st = saved->state;
    } else {  // none, or solutions counted without a subset (version 1): from the start
      st.done = done;
    }
    done = st.done;
    before = st.count;
    s.subset = st.subset;
    s.record.emplace(s.path, id, std::move(st), s.seconds);
  }
  s.begun = true;
  s.fingerprint = fingerprint;
  s.n = n;
  s.bits = bits;
  s.units = units;
  s.skip.assign(done.begin(), done.end());
  s.finished = std::uint64_t(std::count(s.skip.begin(), s.skip.end(), 1));
  s.ungranted = units - s.finished;
  s.count = before;
  if (!s.counting && s.subset) {  // a decision answered by its checkpoint: nothing to hand out
    s.skip.assign(units, 1);
    s.finished = units;
    s.ungranted = 0;
  }
  return bits;
}

bool work_pool::begun() const {
  std::lock_guard<std::mutex> guard(s_->lock);
  return s_->begun;
}

std::optional<std::array<std::uint64_t, 2>> work_pool::grant(std::size_t takers, std::uint64_t most) {
  std::lock_guard<std::mutex> guard(s_->lock);
  state& s = *s_;
  if (!s.begun) throw std::logic_error("work_pool::grant before begin");
  if (s.stopped) return std::nullopt;
  while (s.cursor < s.units && s.skip[s.cursor]) ++s.cursor;
  if (s.cursor >= s.units) return std::nullopt;
  const std::uint64_t share = std::max<std::uint64_t>(1, s.ungranted / (2 * std::max<std::size_t>(takers, 1)));
  const std::uint64_t want = std::min(share, std::max<std::uint64_t>(most, 1));
  const std::uint64_t first = s.cursor;
  std::uint64_t last = first;
  while (last < s.units && last - first < want && !s.skip[last]) ++last;
  s.cursor = last;
  s.ungranted -= last - first;
  return std::array<std::uint64_t, 2>{first, last};
}

void work_pool::finished(std::uint64_t first, std::uint64_t last, uint128 count) {
  std::lock_guard<std::mutex> guard(s_->lock);
  state& s = *s_;
  if (!s.begun || first >= last || last > s.units) throw std::logic_error("work_pool::finished: not a granted range");
  s.finished += last - first;
  s.count += count;
  if (s.record && !s.record->finished_range(first, last, count)) {
    s.stopped = true;
    s.record->close(false);  // throws the write's failure
  }
}

void work_pool::found(const std::vector<std::size_t>& subset) {
  std::lock_guard<std::mutex> guard(s_->lock);
  if (s_->subset) return;
  s_->subset = subset;
  if (s_->record) s_->record->found(subset);
}

std::optional<std::vector<std::size_t>> work_pool::subset() const {
  std::lock_guard<std::mutex> guard(s_->lock);
  return s_->subset;
}

void work_pool::stop() {
  std::lock_guard<std::mutex> guard(s_->lock);
  s_->stopped = true;
}

bool work_pool::stopped() const {
  std::lock_guard<std::mutex> guard(s_->lock);
  return s_->stopped;
}

bool work_pool::complete() const {
  std::lock_guard<std::mutex> guard(s_->lock);
  return s_->begun && s_->finished == s_->units;
}

double work_pool::done() const {
  std::lock_guard<std::mutex> guard(s_->lock);
  return s_->units ? double(s_->finished) / double(s_->units) : 0.0;
}

uint128 work_pool::count() const {
  std::lock_guard<std::mutex> guard(s_->lock);
  return s_->count;
}

std::uint64_t work_pool::units() const {
  std::lock_guard<std::mutex> guard(s_->lock);
  return s_->units;
}

void work_pool::close() {
  std::lock_guard<std::mutex> guard(s_->lock);
  if (s_->record) s_->record->close(s_->finished == s_->units || (!s_->counting && s_->subset));
}

int pool_share::begin(std::uint64_t fingerprint, std::size_t n, int proposed, int largest) {
  return pool_.begin(fingerprint, n, proposed, largest);
}

std::optional<std::array<std::uint64_t, 2>> pool_share::next(std::uint64_t units, std::uint64_t most) {
  if (units != pool_.units()) throw std::logic_error("pool_share::next: another plan's units");
  return pool_.grant(takers_, most);
}

void pool_share::finished(std::uint64_t first, std::uint64_t last, uint128 count) {
  pool_.finished(first, last, count);
}

uint128 pool_share::finish(uint128 own, const std::atomic<bool>* cancel) {
  if (!coordinator_) return own;
  // Waits in short sleeps: the others finish their last units, or the search is stopped.
  for (auto pause = std::chrono::microseconds(100);; pause = std::min(pause * 2, std::chrono::microseconds(10000))) {
    if (pool_.complete()) return pool_.count();
    if (pool_.stopped() || (cancel && cancel->load(std::memory_order_relaxed))) throw interrupted();
    std::this_thread::sleep_for(pause);
  }
}

}  // namespace ssum

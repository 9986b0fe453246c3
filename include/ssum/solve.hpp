#pragma once
// The exact subset-sum solver.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ssum/big_count.hpp"
#include "ssum/errors.hpp"
#include "ssum/int128.hpp"
#include "ssum/policy.hpp"
#include "ssum/problem.hpp"

namespace ssum {

/// The end of a time limit of `limit` seconds from `start`: nullopt for 0 (no limit) and for a
/// limit past a quarter of what the clock counts (int64 nanoseconds: about 2.3e9 s, 73 years),
/// which is no limit either: a plain cast of 1e10 s would overflow into the past. Every time
/// limit (solves, listings, the lattice stage, the program's output) becomes a deadline here.
/// Throws std::invalid_argument unless `limit` is a finite number of seconds, 0 or more.
std::optional<std::chrono::steady_clock::time_point> deadline_after(double limit,
                                                                   std::chrono::steady_clock::time_point start);

class work_share;

enum class backend { automatic, cpu, cuda };
/// two_list: O(2^(n/2)) memory, the fastest while the lists fit; four_list (Schroeppel-Shamir,
/// modular): O(2^(n/4)) memory, the same O(2^(n/2)) time in cache-sized pieces. automatic:
/// two-list when its plan fits the memory available (or options.memory_limit), else four-list.
/// dynamic_programming ("dp"; host, or GPU with ssum::cuda): reachable sums 0..T as a bitset
/// after the reductions (zero weights, gcd, signs, complement, heavy items;
/// solution::reductions), T/8 bytes and up to 8 checkpoints of them (the certificate
/// recovered in linear space), and about n T / 64 word operations; automatic takes it beyond
/// 120 items, and below when it is cheaper than a two-list that would take more than a
/// millisecond. It counts too (solve_options::count, exact through GMP): (T+1) rows of
/// ceil(n'/64) limbs for n' reduced items; automatic counts with it beyond 120 items.
/// completion_search ("completion"; host): for dense instances, attempts that fix all but 48
/// to 92 items and look for those in a few residue classes of their four-list, with a target
/// or zero-sum; it finds subsets and proves nothing
/// (infeasible instances run until solve_options::time_limit). automatic takes it for a dense
/// target instance when the exact algorithms would take more than about 10 s.
/// lattice ("lattice"; host, builds with fplll): several rows only (ssum::solve_rows): the
/// lattice stage, which finds a subset or answers unknown, never infeasible; it neither counts
/// nor lists. automatic races it beside the exact search on several rows.
enum class algorithm { automatic, two_list, four_list, dynamic_programming, completion_search, lattice };

/// What a long solve reports as it goes: the stage, its completed fraction, and the completed
/// fraction of the whole solve's work, which never decreases and ends at 1. The work is
/// estimated up front: on the two-list, level k of a list's generation weighs the 2^(k+1) sums
/// it merges, the search a fifth of a unit per sum of both lists (one that finds a subset
/// early jumps ahead), the host's count two fifths; on the four-list, the residue classes (or
/// batches) done.
struct progress {
  std::string stage;  // "generate A", "generate B", "prune", "count", "search", "recover", "dp"
  double fraction = 0;
  double overall = 0;
};

struct solve_options {
  algorithm algo = algorithm::automatic;
  /// Polled between and inside stages; when it becomes true the solve throws ssum::interrupted.
  const std::atomic<bool>* cancel = nullptr;
  /// Called from one of the solve's threads (never two at once) at stage changes and along the
  /// way; keep it short: the solve waits for it.
  std::function<void(const progress&)> on_progress;
  /// Bytes the solve may use; 0 means what the machine has available now.
  std::uint64_t memory_limit = 0;
  /// Also count every solution (solution::count): an exhaustive pass over the lists after
  /// they are built, on top of the search for one subset.
  bool count = false;
  /// Seconds the solve may take, from its call (0: no limit). When they run out the solve
  /// stops as it does for `cancel` and returns status::unknown: no verdict, no subset, no
  /// count. Throws std::invalid_argument when negative or not finite.
  double time_limit = 0;
  /// The completion search's random choices start from this seed: the same seed gives the
  /// same subset, whatever the thread count. The lattice stage's restarts draw their
  /// randomized bases from it (another seed, other bases). The exact algorithms take no seed.
  std::uint64_t seed = 1;
  /// A file that keeps the host four-list's progress (empty: none): the finished ranges of
  /// residue classes and the count found in them, replaced atomically every
  /// `checkpoint_seconds` and when the solve is stopped. A solve of the same instance with the
  /// same file continues from it and gives the same verdict and count; the file is removed
  /// once the answer is complete. A file of another instance or plan, or a damaged one, throws
  /// ssum::input_error. Other plans run in one piece and say so in their reason.
  std::string checkpoint;
  double checkpoint_seconds = 5;
  /// A four-list search shared with other solves (ssum/work_share.hpp; `mpirun -np K ssum
  /// solve`): the units come from it, and the coordinator's solve answers for all of them.
  /// Only the four-list takes it: another plan runs in this solve alone and never calls it.
  /// With a share, `checkpoint` stays empty (std::invalid_argument): the work_pool keeps the
  /// file. Not owned.
  work_share* share = nullptr;
};

/// Checks that `path` can serve as solve_options::checkpoint before a search starts: when it
/// exists it is a regular file that can be read and written, and its folder takes new files (a
/// probe file is created and removed). Throws ssum::input_error naming the path and why (a
/// FIFO, a folder, a device, no permission, no such folder, an empty path). ssum::solve and
/// work_pool call it.
void check_checkpoint_path(const std::string& path);

/// A solve's verdict: a verified subset, a proof that there is none, or neither because the
/// time limit ran out (SAT-solver convention: SAT, UNSAT, UNKNOWN).
enum class status { feasible, infeasible, unknown };

struct stage_seconds {
  double generate = 0, prune = 0, count = 0, search = 0, recover = 0, total = 0;
};

/// What ssum::solve decided before running, and why: the plan it ran.
struct solve_plan {
  std::string algorithm;  // "two-list", "four-list" or "dp"
  std::string backend;    // "cpu" or "cuda"
  std::string reason;     // a sentence for people, e.g. "the host would take about 0.02 s on 2
                          // threads, less than a CUDA start-up (0.4 s); two lists of 2^24 sums
                          // (384 MiB) fit the 7.50 GiB available"
};

struct solution {
  bool feasible = false;   // status == status::feasible
  ssum::status status = ssum::status::infeasible;
  std::vector<std::size_t> subset;  // 0-based, ascending; verified with is_certificate()
  std::string algorithm;            // what actually ran, e.g. "two-list"
  std::string backend;              // "cpu" or "cuda"
  unsigned threads = 0;
  stage_seconds seconds;
  std::uint64_t planned_bytes = 0;  // memory the plan reserved for lists and buffers
  /// With solve_options::count: how many subsets sum to the target (index sets, so equal
  /// weights give distinct subsets; the empty subset counts only when a target is given).
  /// Exact at any size: up to 2^n, beyond 128 bits from the dynamic program's n > 128.
  std::optional<big_count> count;
  /// The plan solve() chose and ran (what --json reports as "plan").
  solve_plan plan;
  /// The reductions every algorithm ran on, in order (--json "reductions"), e.g. "divided by
  /// the gcd 3"; the subset is mapped back to the original indices. Counting keeps zero weights.
  std::vector<std::string> reductions;
};

/// Bytes the two-list algorithm plans for `p` (lists, merge buffer); may exceed 2^64, hence double.
/// Throws ssum::input_error when the weights' absolute values add up to 2^127 or more.
double two_list_planned_bytes(const problem& p);

// Every solve below throws ssum::input_error when the weights' absolute values add up to
// 2^127 or more (check_weight_total); below that, weights and targets of any width are exact.

/// Solves exactly on the host: sums in 64 bits while the total |weight| fits, in 128 bits
/// beyond. Throws ssum::insufficient_memory before allocating when the plan does not fit,
/// ssum::interrupted on cancellation. A std::bad_alloc inside becomes insufficient_memory with
/// the plan's bytes. automatic (algorithm) beyond 120 items takes the dynamic program, and
/// throws ssum::insufficient_memory (saying what each algorithm would need) when its table
/// does not fit either, and ssum::out_of_reach (without a time limit) for an instance that
/// expects fewer than one solution and whose exact plan would run for more than a day. A count
/// with the dynamic program throws ssum::backend_unavailable in a build without GMP.
solution solve(const cpu& policy, const problem& p, const solve_options& options = {});

/// Solves exactly on a CUDA device (policy.device, ordered on policy.stream), the certificate
/// recovered and verified on the host. options.algo: two_list generates and searches both lists
/// on the device; four_list (O(2^(n/4)) lists) works through batches of residue classes sized to
/// the device's memory; automatic takes the two-list while its lists fit the device (and
/// options.memory_limit), else the four-list. Sums are 64-bit: the two-list throws
/// ssum::backend_unavailable when the total |weight| needs more (or there is no CUDA build or
/// device), the four-list std::invalid_argument. Throws ssum::insufficient_memory before
/// allocating when the plan does not fit the device, ssum::interrupted, ssum::cuda_error.
solution solve(const cuda& policy, const problem& p, const solve_options& options = {});

/// Chooses the backend and solves. automatic: device 0 when a CUDA device is present, the
/// host would need longer than a CUDA start-up (about 0.4 s: n >= 56 with 16 host threads,
/// n >= 52 with 2; `threads` count here), and the device two-list can hold the instance
/// (unless four_list is named) or else the device four-list can take it (totals below 2^64;
/// unless two_list is named); the host otherwise (which then picks two-list or four-list by
/// memory). threads: the host's (0: all); backend::cuda takes none and throws
/// std::invalid_argument for any other value. solution::plan says what was chosen and why.
/// Throws ssum::backend_unavailable when the named backend cannot run.
solution solve(backend which, unsigned threads, const problem& p, const solve_options& options = {});

/// Enumeration: which subsets list_subsets hands out.
struct listing_options {
  /// The window's top: every subset whose sum lies in [p.target, high] (high below the target:
  /// an empty window). nullopt: the target alone. Zero-sum instances (no target) list the
  /// non-empty subsets that sum to 0 and take no `high`.
  std::optional<int128> high;
  /// Cardinality bounds: subsets of min_items to max_items items.
  std::size_t min_items = 0, max_items = SIZE_MAX;
  /// Stop after this many (0: every one).
  std::uint64_t limit = 0;
  /// As solve_options': cancel throws ssum::interrupted (after the subsets handed out so far),
  /// time_limit ends the listing incomplete, memory_limit bounds the plan.
  const std::atomic<bool>* cancel = nullptr;
  double time_limit = 0;
  std::uint64_t memory_limit = 0;
  /// The enumerator: automatic (whichever fits and is expected sooner), two_list, four_list or
  /// dynamic_programming (each refused with its reason when it cannot take the listing).
  algorithm algo = algorithm::automatic;
};

/// What a listing handed out.
struct listing {
  std::uint64_t listed = 0;  // subsets handed out
  bool complete = false;     // they are every subset in the window and the size bounds
  bool timed_out = false;    // listing_options::time_limit ended it
  std::string algorithm, backend;
  unsigned threads = 0;
  double seconds = 0;
  std::uint64_t planned_bytes = 0;  // bounded by the plan, never by the number of subsets
  solve_plan plan;
};

/// The ssum::interrupted that list_subsets throws on cancel: what it ran until then (its plan,
/// algorithm, seconds and the subsets handed out), complete false.
class listing_interrupted : public interrupted {
 public:
  explicit listing_interrupted(listing so_far) : so_far(std::move(so_far)) {}
  listing so_far;
};

/// Hands every subset of p whose sum lies in the window (and whose size lies in the bounds) to
/// on_subset, one at a time as it is found, each verified first, as ascending 0-based indices
/// of p; on_subset returning false stops the listing (complete stays false unless none was
/// left). Every subset is handed out once: equal weights give distinct subsets. Runs over the
/// instance as given (no reduction drops a subset), by whichever enumerator fits the memory
/// (options.memory_limit included) and is expected sooner: on a CUDA device (backend::cuda,
/// or automatic where the host would take longer than a CUDA start-up) the meet in the middle
/// with both half lists sorted there and the pairs handed to the host in batches (n <= 60,
/// sum of |w| below 2^63); on the host the meet in the middle (n <= 60, two half lists of up to
/// 2^(n/2) sums, fewer under a size bound), the four-list (n <= 120, quarter lists of 2^(n/4)
/// sums, a window of at most 1024 values searched one target at a time, `threads` threads),
/// backtracking through a table of reachable sums (any n, one bit per sum and item) or, under
/// algorithm::automatic only, a walk through every subset of at most max_items items (any n,
/// at most 2.5 x 10^13 subsets; the plan's algorithm "few-items"). Where it is expected
/// sooner, the complements are listed instead (n - max_items to n - min_items items summing
/// to [total - high, total - target]) and each handed out as the items it leaves out; the
/// plan's reason then says "the complement was taken". The plan it took is the listing's
/// `plan`; the bytes it planned bound its memory whatever the number of subsets. on_subset is
/// called from one thread at a time, not always the caller's. Throws
/// ssum::insufficient_memory when no enumerator fits (naming the smallest, or each one's reason
/// when none can take the instance at any size), ssum::backend_unavailable
/// for backend::cuda without a CUDA build or device, std::invalid_argument for an enumerator
/// named that the device does not have (dp, four-list on backend::cuda), for a zero-sum
/// instance with `high` or min_items > max_items, ssum::listing_interrupted on cancel.
listing list_subsets(backend which, unsigned threads, const problem& p, const listing_options& options,
                     const std::function<bool(const std::vector<std::size_t>&)>& on_subset);

/// list_subsets in bulk, for callers that take millions of subsets a second: the same subsets,
/// plan, order, limit, complete, time limit, cancel (listing_interrupted, thrown after the
/// batches handed out), memory limit and errors, handed to on_masks in batches of 64-bit masks
/// (bit i set: item i is in the subset), each verified first (no bit past n, its sum in the
/// window, its size in the bounds, not empty for zero-sum). on_masks returning false stops the
/// listing after that batch (listed counts the whole batch; complete stays false unless none
/// was left). The span is valid during the call only: copy what you keep. The meet in the
/// middle hands its pairs of half masks in stretches, up to 2^16 on the host and 2^18 on the
/// GPU (backend::cuda, or automatic where it is chosen), each turned into item masks and
/// verified on `threads` host threads; the other host enumerators' subsets come in batches of
/// up to 4096. Calls come from one thread at a
/// time, not always the caller's. Throws ssum::instance_refused (a std::invalid_argument) for
/// more than 64 items, which list_subsets takes.
listing list_subset_masks(backend which, unsigned threads, const problem& p, const listing_options& options,
                          const std::function<bool(std::span<const std::uint64_t>)>& on_masks);

}  // namespace ssum

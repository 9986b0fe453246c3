#pragma once
// Internal: checkpoints of a long four-list search. The search is split into "units" (ranges
// of residue classes); a checkpoint records which units are finished and, for a count, the
// solutions found in them, so that a run started again skips them.
//
// The file is small text a person can read, checked strictly (fixed key order, nothing extra):
//
//   ssum checkpoint 2
//   algorithm four-list
//   fingerprint 0123456789abcdef      (16 lowercase hex digits)
//   n 40
//   modulus_bits 20
//   units 10
//   counting yes                      (yes or no)
//   count 12345                       (decimal, up to 2^128 - 1)
//   subset 0 3 7                      (a subset found so far, ascending indices below n;
//                                      "none" when none was found, "empty" for the empty one)
//   done 3f0                          (ceil(units / 4) lowercase hex digits, see below)
//   checksum 89abcdef01234567         (FNV-1a 64 over every byte before this line)
//
// `done`: hex digit j holds units 4j .. 4j + 3, unit 4j in its lowest bit, so "f" reads as
// four finished units from left to right; bits beyond `units` must be zero. Every line ends
// with '\n' (the last one too); numbers are decimal without sign or leading zeros.
//
// A file whose finished units hold solutions holds one of them: a run that resumes from it
// answers with that subset even when the units left hold none, so that no resume ever turns
// "found" into "none". Version 1 files (before `subset`) are read as holding none; a run
// starts such a file afresh when its count is not 0 (see open_unit_record).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ssum/int128.hpp"
#include "ssum/problem.hpp"

namespace ssum::detail {

/// What a checkpoint belongs to: the instance the search runs on and how its work is split.
struct checkpoint_identity {
  std::string algorithm;          // e.g. "four-list": printable ASCII, no spaces, not empty
  std::uint64_t fingerprint = 0;  // fingerprint_of(the problem searched)
  std::size_t n = 0;              // its items
  int modulus_bits = 0;           // the residue classes' modulus, 2^bits (not negative)
  std::uint64_t units = 0;        // how many units the classes are split into
  bool counting = false;          // a count (every unit runs to its end) or a decision
  bool operator==(const checkpoint_identity&) const = default;
};

struct checkpoint_state {
  std::vector<bool> done;         // units entries: finished units
  ssum::uint128 count = 0;        // solutions found in the finished units
  // A subset of the problem searched (its indices, ascending) found in this search: always
  // present once a finished unit held a solution.
  std::optional<std::vector<std::size_t>> subset;
};

struct checkpoint {
  checkpoint_identity id;
  checkpoint_state state;
};

/// A 64-bit fingerprint of the weights (in order) and the target (or its absence): FNV-1a 64
/// over a fixed little-endian encoding (the weight count as 8 bytes, each weight as 16 bytes
/// of two's complement, then a byte 0 or 1 for the target and its 16 bytes when present), so
/// that it is the same on every machine.
std::uint64_t fingerprint_of(const problem& p);

/// Writes atomically: to PATH.tmp.<pid>.<counter>, flushed and fsync'ed, then renamed over
/// PATH (and the directory fsync'ed), so that a process killed at any moment leaves PATH
/// either the old or the new checkpoint, never a partial one. Throws ssum::input_error naming
/// the path when it cannot write (the temporary file is removed), and when the identity cannot
/// be written (bad algorithm name, negative modulus_bits, done.size() != units).
void write_checkpoint(const std::string& path, const checkpoint_identity& id,
                      const checkpoint_state& state);

/// Reads PATH: std::nullopt when it does not exist; throws ssum::input_error ("the checkpoint
/// PATH is damaged: <what>") when it cannot be parsed, its checksum does not match, its
/// version is unknown, or done does not hold `units` entries; ("cannot read the checkpoint
/// PATH: <why>") when it exists but cannot be read. The caller compares the identity.
std::optional<checkpoint> read_checkpoint(const std::string& path);

/// Whether a saved state can be continued: a count above 0 needs the subset behind it (a
/// version 1 file has none). A state that cannot is started afresh.
inline bool resumable(const checkpoint_state& state) { return state.count == 0 || state.subset.has_value(); }

/// A named point of the checkpoint's life where a fault campaign may end the process: the
/// environment variable SSUM_FAULT=NAME[:K] raises SIGKILL the K-th time (default 1) the point
/// NAME is reached: "written" (a checkpoint replaced), "finished" (units recorded as
/// finished), "removing" (a complete answer about to remove its file). A test hook: without
/// the variable it costs one relaxed load.
void fault_point(const char* name) noexcept;

/// Throws ssum::input_error ("the checkpoint PATH belongs to another instance or plan: <each
/// field that differs, with both values>") unless `found` == `expected`.
void check_identity(const std::string& path, const checkpoint_identity& found,
                    const checkpoint_identity& expected);

}  // namespace ssum::detail

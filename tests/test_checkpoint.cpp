// Checkpoints of the four-list search (solver/four_list/checkpoint.hpp): round trips, stable
// fingerprints, atomic replacement, and strict refusal of every kind of damage.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "solver/four_list/checkpoint.hpp"
#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

namespace fs = std::filesystem;
using namespace ssum;
using namespace ssum::detail;

namespace {

class Checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "ssum-checkpoint-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "run.ckpt").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string slurp() const {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void spit(const std::string& text) const { std::ofstream(path_, std::ios::binary) << text; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  // The file must be refused as damaged, never accepted or answered by another error.
  void expect_damaged(const std::string& text, const std::string& why) const {
    spit(text);
    try {
      (void)read_checkpoint(path_);
      ADD_FAILURE() << "accepted damaged checkpoint (" << why << "):\n" << text;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("the checkpoint " + path_ + " is damaged: "), std::string::npos)
          << why << ": " << e.what();
    }
  }

  fs::path dir_;
  std::string path_;
};

checkpoint_identity sample_identity(std::uint64_t units) {
  return {"four-list", 0x0123456789abcdefull, 40, 20, units, true};
}

checkpoint_state sample_state(std::uint64_t units, uint128 count, unsigned seed) {
  checkpoint_state s;
  s.count = count;
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < units; ++i) s.done.push_back(rng() & 1);
  if (units) s.done.back() = true;  // the last unit in the last hex digit is written too
  return s;
}

// FNV-1a 64, written again here, to re-seal a tampered file so that the parser, not only the
// checksum, has to refuse it.
std::string reseal(const std::string& text) {
  std::string body = text.substr(0, text.rfind("checksum "));
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : body) h = (h ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return body + "checksum " + hex + "\n";
}

std::string replace_line(const std::string& text, const std::string& key, const std::string& line) {
  const std::size_t at = text.find("\n" + key + " ") + 1;
  return text.substr(0, at) + line + text.substr(text.find('\n', at));
}

}  // namespace

TEST_F(Checkpoint, RoundTripsEverySizeAndCount) {
  const uint128 counts[] = {0, (uint128(1) << 64) + 1, (uint128(1) << 127) - 1, ~uint128(0)};
  unsigned seed = 1;
  for (const std::uint64_t units : {0ull, 1ull, 63ull, 64ull, 65ull, 4096ull, 1ull << 20}) {
    for (const uint128 count : counts) {
      const checkpoint_identity id = sample_identity(units);
      const checkpoint_state state = sample_state(units, count, seed++);
      write_checkpoint(path_, id, state);
      const auto back = read_checkpoint(path_);
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ(back->id, id) << units;
      EXPECT_TRUE(back->state.done == state.done) << units;
      EXPECT_TRUE(back->state.count == count) << units;
    }
  }
}

TEST_F(Checkpoint, RoundTripsAllDoneNoneDoneAndDecisionIdentity) {
  for (const bool value : {false, true}) {
    checkpoint_identity id{"x", 0, 0, 0, 5, false};
    checkpoint_state state{std::vector<bool>(5, value), 7};
    write_checkpoint(path_, id, state);
    const auto back = read_checkpoint(path_);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->id, id);
    EXPECT_TRUE(back->state.done == state.done);
    EXPECT_TRUE(back->state.count == 7);
  }
}

TEST_F(Checkpoint, RoundTripsTwoToTheTwentyFourUnits) {
  const std::uint64_t units = 1ull << 24;
  checkpoint_state state;
  state.done.resize(units);
  for (std::uint64_t i = 0; i < units; i += 3) state.done[i] = true;
  write_checkpoint(path_, sample_identity(units), state);
  EXPECT_GT(fs::file_size(path_), units / 4);
  const auto back = read_checkpoint(path_);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->state.done == state.done);
}

TEST(CheckpointFingerprint, StableAndSensitive) {
  const auto make = [](std::vector<int128> w, std::optional<int128> t) { return problem{std::move(w), t}; };
  const int128 big = int128(1) << 100;
  const problem a = make({3, -5, big, 7}, int128(9));
  EXPECT_EQ(fingerprint_of(a), fingerprint_of(make({3, -5, big, 7}, int128(9))));
  EXPECT_NE(fingerprint_of(a), fingerprint_of(make({3, -5, big, 8}, int128(9))));
  EXPECT_NE(fingerprint_of(a), fingerprint_of(make({3, -5, big + 1, 7}, int128(9))));
  EXPECT_NE(fingerprint_of(a), fingerprint_of(make({-5, 3, big, 7}, int128(9))));
  EXPECT_NE(fingerprint_of(a), fingerprint_of(make({3, -5, big, 7}, int128(10))));
  EXPECT_NE(fingerprint_of(a), fingerprint_of(make({3, -5, big, 7}, std::nullopt)));
  EXPECT_NE(fingerprint_of(make({3, -5}, std::nullopt)), fingerprint_of(make({3, -5}, int128(0))));
  EXPECT_NE(fingerprint_of(make({3, -5, 0}, std::nullopt)), fingerprint_of(make({3, -5}, std::nullopt)));
  EXPECT_EQ(fingerprint_of(make({}, std::nullopt)), fingerprint_of(make({}, std::nullopt)));
  EXPECT_NE(fingerprint_of(make({}, std::nullopt)), fingerprint_of(make({0}, std::nullopt)));
}

TEST_F(Checkpoint, MissingFileIsNoCheckpoint) {
  EXPECT_FALSE(read_checkpoint(path_).has_value());
  EXPECT_FALSE(read_checkpoint((dir_ / "no" / "such" / "file").string()).has_value());
}

TEST_F(Checkpoint, UnreadablePathThrows) {
  EXPECT_THROW((void)read_checkpoint(dir_.string()), input_error);  // a directory
}

TEST_F(Checkpoint, TruncationAnywhereIsDamage) {
  write_checkpoint(path_, sample_identity(10), sample_state(10, 123, 7));
  const std::string good = slurp();
  ASSERT_TRUE(read_checkpoint(path_).has_value());
  for (std::size_t size = 0; size < good.size(); ++size)
    expect_damaged(good.substr(0, size), "truncated to " + std::to_string(size));
}

TEST_F(Checkpoint, EveryFlippedByteIsDamage) {
  write_checkpoint(path_, sample_identity(10), sample_state(10, 123, 7));
  const std::string good = slurp();
  for (std::size_t at = 0; at < good.size(); ++at) {
    for (const int mask : {1, 2, 4, 8, 16, 32, 64, 128, 255}) {
      std::string bad = good;
      bad[at] = char(bad[at] ^ mask);
      expect_damaged(bad, "byte " + std::to_string(at) + " ^ " + std::to_string(mask));
    }
  }
}

TEST_F(Checkpoint, ParserRefusesResealedDamage) {
  write_checkpoint(path_, sample_identity(10), sample_state(10, 123, 7));
  const std::string good = slurp();
  ASSERT_EQ(reseal(good), good);  // the test's FNV-1a agrees with the writer's
  const auto bad = [&](const std::string& key, const std::string& line) {
    expect_damaged(reseal(replace_line(good, key, line)), key + " -> " + line);
  };
  expect_damaged(reseal("ssum checkpoint 3" + good.substr(good.find('\n'))), "version 3");
  expect_damaged(reseal("ssum checkpoint 01" + good.substr(good.find('\n'))), "version 01");
  expect_damaged(reseal("ssum checkpoints 1" + good.substr(good.find('\n'))), "bad magic");
  bad("done", "done 3");  // too short; then too long for 10 units
  bad("done", "done 0000");
  bad("done", "done 00g");                // not hex
  bad("done", "done 00A");                // upper case
  bad("done", "done 004");                // unit 10 of 10 (beyond the end)
  bad("done", "done 00 ");
  bad("fingerprint", "fingerprint 0123456789abcde");
  bad("fingerprint", "fingerprint 0123456789abcdeff");
  bad("fingerprint", "fingerprint 0123456789abcdeX");
  bad("fingerprint", "fingerprint 0123456789ABCDEF");
  bad("n", "n 040");
  bad("n", "n -40");
  bad("n", "n +40");
  bad("n", "n ");
  bad("n", "n 40 ");
  bad("n", "n 40\r");
  bad("n", "n 18446744073709551616");
  bad("modulus_bits", "modulus_bits 2147483648");
  bad("units", "units 8");                // done then has the wrong length
  bad("units", "units 13");
  bad("units", "units 18446744073709551615");
  bad("counting", "counting maybe");
  bad("counting", "counting Yes");
  bad("count", "count 340282366920938463463374607431768211456");  // 2^128
  bad("count", "count 1e3");
  bad("algorithm", "algorithm ");
  bad("algorithm", "algorithm four list");
  bad("n", "nn 40");                      // unknown key in place of n
  bad("n", "units 10");                   // repeated key, n missing
  bad("n", "n 40\nn 40");                 // duplicate
  bad("n", "n 40\nextra 1");              // unknown key
  bad("n", "n 40\n");                     // an empty line
  const std::size_t done_at = good.find("\ndone ") + 1;
  const std::string done_line = good.substr(done_at, good.find('\n', done_at) - done_at);
  bad("done", done_line + "\n" + done_line);  // an extra line after done
  bad("done", done_line + "\n#comment");
  const std::string no_done = good.substr(0, good.find("\ndone ") + 1) + "checksum 0\n";
  expect_damaged(reseal(no_done), "done missing");
  expect_damaged(reseal("ssum checkpoint 1\nchecksum 0\n"), "everything missing");
  expect_damaged("ssum checkpoint 1\n", "no checksum line");
  expect_damaged(good + "\n", "an empty line at the end");
  expect_damaged(good + "extra\n", "a line after the checksum");
  expect_damaged(good + "x", "trailing garbage");
  expect_damaged(good + good, "twice");
  std::string crlf = good;
  crlf.insert(crlf.size() - 1, "\r");
  expect_damaged(crlf, "CRLF");
}

TEST_F(Checkpoint, CheckIdentityNamesEachDifferingField) {
  const checkpoint_identity id = sample_identity(64);
  EXPECT_NO_THROW(check_identity(path_, id, id));
  const auto refused = [&](checkpoint_identity other, const std::string& field) {
    try {
      check_identity(path_, other, id);
      ADD_FAILURE() << field << " accepted";
    } catch (const input_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the checkpoint " + path_ + " belongs to another instance or plan: "),
                std::string::npos) << what;
      EXPECT_NE(what.find(field), std::string::npos) << what;
    }
  };
  checkpoint_identity other = id;
  other.algorithm = "two-list";
  refused(other, "algorithm");
  (other = id).fingerprint ^= 1;
  refused(other, "fingerprint");
  (other = id).n = 41;
  refused(other, "n is 41");
  (other = id).modulus_bits = 21;
  refused(other, "modulus_bits");
  (other = id).units = 128;
  refused(other, "units");
  (other = id).counting = false;
  refused(other, "counting");
}

TEST_F(Checkpoint, UnwritablePathThrows) {
  const checkpoint_identity id = sample_identity(3);
  const checkpoint_state state = sample_state(3, 1, 3);
  EXPECT_THROW(write_checkpoint((dir_ / "no" / "such" / "dir").string(), id, state), input_error);
  spit("a regular file");
  EXPECT_THROW(write_checkpoint(path_ + "/below", id, state), input_error);
  fs::create_directory(dir_ / "sub");
  EXPECT_THROW(write_checkpoint((dir_ / "sub").string(), id, state), input_error);  // rename fails
  checkpoint_state short_state = state;
  short_state.done.pop_back();
  EXPECT_THROW(write_checkpoint((dir_ / "x").string(), id, short_state), input_error);
  checkpoint_identity bad_name = id;
  bad_name.algorithm = "four\nlist";
  EXPECT_THROW(write_checkpoint((dir_ / "x").string(), bad_name, state), input_error);
  EXPECT_EQ(entries().size(), 2u);  // run.ckpt and sub: no temporary file left behind
  try {
    write_checkpoint((dir_ / "no" / "f").string(), id, state);
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "no" / "f").string()), std::string::npos) << e.what();
  }
}

TEST_F(Checkpoint, WriteReplacesAndLeavesNoTemporary) {
  write_checkpoint(path_, sample_identity(100), sample_state(100, 5, 1));
  const checkpoint_identity id = {"four-list", 42, 48, 24, 7, false};
  const checkpoint_state state = sample_state(7, 0, 2);
  write_checkpoint(path_, id, state);
  const auto back = read_checkpoint(path_);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->id, id);
  EXPECT_TRUE(back->state.done == state.done);
  EXPECT_EQ(entries(), std::vector<std::string>{"run.ckpt"});
}

TEST_F(Checkpoint, RoundTripsEveryFormOfSubset) {
  using subset = std::optional<std::vector<std::size_t>>;
  for (const subset& kept : {subset{}, subset{std::vector<std::size_t>{}}, subset{{0}}, subset{{39}},
                             subset{{0, 5, 39}}, subset{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}}) {
    checkpoint_state state = sample_state(10, 3, 5);
    state.subset = kept;
    write_checkpoint(path_, sample_identity(10), state);
    const auto back = read_checkpoint(path_);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->state.subset, kept) << slurp();
  }
}

TEST_F(Checkpoint, AVersionOneFileHoldsNoSubsetAndIsNotResumableWithACount) {
  for (const uint128 count : {uint128(0), uint128(4)}) {
    checkpoint_state state = sample_state(10, count, 9);
    state.subset = std::vector<std::size_t>{1, 2};
    write_checkpoint(path_, sample_identity(10), state);
    std::string text = slurp();
    const std::size_t at = text.find("\nsubset ") + 1;
    text.erase(at, text.find('\n', at) + 1 - at);
    text.replace(0, text.find('\n'), "ssum checkpoint 1");
    spit(reseal(text));
    const auto back = read_checkpoint(path_);
    ASSERT_TRUE(back.has_value());
    EXPECT_FALSE(back->state.subset.has_value());
    EXPECT_TRUE(back->state.done == state.done);
    // Its units' solutions have no subset behind them: a run starts such a file afresh.
    EXPECT_EQ(resumable(back->state), count == 0);
  }
}

TEST_F(Checkpoint, ParserRefusesBadSubsets) {
  checkpoint_state state = sample_state(10, 2, 4);
  state.subset = std::vector<std::size_t>{3, 7};
  write_checkpoint(path_, sample_identity(10), state);  // n = 40
  const std::string good = slurp();
  for (const char* line : {"subset 7 3", "subset 3 3", "subset 40", "subset 18446744073709551616", "subset ",
                           "subset 1  2", "subset 1 2 ", "subset -1", "subset 01", "subset nonee", "subset none 1",
                           "subset 1,2", "subset +1"}) {
    expect_damaged(reseal(replace_line(good, "subset", line)), line);
  }
  const std::size_t at = good.find("\nsubset ") + 1;
  std::string missing = good;
  missing.erase(at, missing.find('\n', at) + 1 - at);
  expect_damaged(reseal(missing), "version 2 without its subset line");
}

TEST_F(Checkpoint, WriterRefusesASubsetItCouldNotReadBack) {
  for (const std::vector<std::size_t>& bad : {std::vector<std::size_t>{2, 1}, {1, 1}, {40}}) {
    checkpoint_state state = sample_state(4, 1, 4);
    state.subset = bad;
    EXPECT_THROW(write_checkpoint(path_, sample_identity(4), state), input_error);
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(Checkpoint, PathsThatCannotServeAreRefusedBeforeTheSearch) {
  EXPECT_NO_THROW(check_checkpoint_path(path_));  // not there yet, in a folder that takes files
  spit("x");
  EXPECT_NO_THROW(check_checkpoint_path(path_));  // a regular file
  EXPECT_EQ(entries(), std::vector<std::string>{"run.ckpt"}) << "the probe file was left behind";
  const auto refused = [](const std::string& path, const std::string& why) {
    try {
      check_checkpoint_path(path);
      ADD_FAILURE() << "accepted " << path;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  refused(fifo, "not a regular file");
  refused(dir_.string(), "folder");
  refused((dir_ / "no" / "such" / "file").string(), "takes no new file");
  refused("", "empty");
  refused("/dev/null", "not a regular file");
  // Reading a FIFO does not wait for a writer.
  EXPECT_THROW((void)read_checkpoint(fifo), input_error);
}

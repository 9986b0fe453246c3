// read_problem: files, standard input, pipes, and what can go wrong reading them (the parser
// itself is tested in test_problem_io.cpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ssum/errors.hpp"
#include "ssum/problem.hpp"

namespace {

using ssum::int128;
using ssum::uint128;
using ssum::problem;
using weights_t = std::vector<int128>;

// ---- read_problem -------------------------------------------------------------------------

class ReadProblem : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ssum_io_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }

  std::filesystem::path dir_;
};

TEST_F(ReadProblem, TextFile) {
  const std::string path = write("in.txt", "# c\r\ntarget: 3\r\n1, 2\r\n");
  const problem p = ssum::read_problem(path);
  EXPECT_EQ(p.weights, (weights_t{1, 2}));
  EXPECT_EQ(p.target, int128(3));
}

TEST_F(ReadProblem, JsonFile) {
  const std::string path = write("in.json", "{\"weights\": [4, 5], \"target\": \"99999999999999999999\"}\n");
  const problem p = ssum::read_problem(path);
  EXPECT_EQ(p.weights, (weights_t{4, 5}));
  EXPECT_EQ(p.target, int128(99999999999) * 1000000000 + 999999999);
}

TEST_F(ReadProblem, RoundTripThroughFile) {
  problem p{{INT64_MIN, 3, INT64_MAX}, int128(1) << 90};
  const std::string path = write("round.txt", ssum::format_problem(p, "written by a test"));
  const problem back = ssum::read_problem(path);
  EXPECT_EQ(back.weights, p.weights);
  EXPECT_EQ(back.target, p.target);
}

TEST_F(ReadProblem, ParseErrorNamesPathAndLine) {
  const std::string path = write("bad.txt", "1 2\n3\n4 1.5\n");
  try {
    ssum::read_problem(path);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(std::string(e.what()),
              path + ": line 3: weight '1.5' is a decimal fraction; weights must be integers");
  }
}

TEST_F(ReadProblem, JsonErrorNamesPathAndLine) {
  const std::string path = write("bad.json", "{\n\"weights\": [1],\n\"bogus\": 2}\n");
  try {
    ssum::read_problem(path);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(std::string(e.what()).rfind(path + ": line 3: unknown key 'bogus'", 0), 0u) << e.what();
  }
}

TEST_F(ReadProblem, EmptyFileNamesPathWithoutLine) {
  const std::string path = write("empty.txt", "");
  try {
    ssum::read_problem(path);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 0u);
    EXPECT_EQ(std::string(e.what()), path + ": empty input: no weights and no target");
  }
}

TEST_F(ReadProblem, MissingFile) {
  const std::string path = (dir_ / "does_not_exist.txt").string();
  try {
    ssum::read_problem(path);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 0u);
    EXPECT_EQ(std::string(e.what()), "cannot open '" + path + "': No such file or directory");
  }
}

TEST_F(ReadProblem, DirectoryIsAnInputError) {
  try {
    ssum::read_problem(dir_.string());
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 0u);
    EXPECT_NE(std::string(e.what()).find("'" + dir_.string() + "'"), std::string::npos) << e.what();
  }
}

// A target from the caller (the command line) replaces the input's; with one, input with
// neither weights nor target is the empty instance.
TEST_F(ReadProblem, TargetFromTheCallerMakesEmptyInputTheEmptyInstance) {
  const std::string empty = write("empty.txt", "# nothing\n");
  problem p = ssum::read_problem(empty, int128(0));
  EXPECT_TRUE(p.weights.empty());
  EXPECT_EQ(p.target, int128(0));
  EXPECT_EQ(ssum::read_problem(empty, int128(-7)).target, int128(-7));
  EXPECT_THROW(ssum::read_problem(empty, std::nullopt), ssum::input_error);
  EXPECT_THROW(ssum::read_problem(empty), ssum::input_error);
  p = ssum::read_problem(write("t.txt", "target: 3\n1 2\n"), int128(1) << 100);
  EXPECT_EQ(p.weights, (weights_t{1, 2}));
  EXPECT_EQ(p.target, int128(1) << 100);
  EXPECT_EQ(ssum::read_problem(write("e.json", "{\"weights\": []}"), int128(4)).target, int128(4));
  EXPECT_THROW(ssum::read_problem(write("k.json", "{}"), int128(4)), ssum::input_error);  // no 'weights' key
}

// Standard input through a pipe, several MiB in 64 KiB pieces, reads as the same text does.
TEST_F(ReadProblem, StandardInputThroughAPipe) {
  std::string text = "target: 12345\n";
  for (int i = 0; i < 400000; ++i) text += std::to_string(i % 1000 - 500) + (i % 16 == 15 ? "\n" : " ");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const int saved = ::dup(STDIN_FILENO);
  ::dup2(fds[0], STDIN_FILENO);
  ::close(fds[0]);
  std::thread writer([&] {
    for (std::size_t done = 0; done < text.size();) {
      const ::ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  problem p;
  EXPECT_NO_THROW(p = ssum::read_problem("-"));
  writer.join();
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  const problem expected = ssum::parse_problem(text);
  EXPECT_EQ(p.weights, expected.weights);
  EXPECT_EQ(p.target, int128(12345));
}

// A closed standard input is a read error, not an empty input.
TEST_F(ReadProblem, ClosedStandardInputIsAReadError) {
  const int saved = ::dup(STDIN_FILENO);
  ::close(STDIN_FILENO);
  std::string what;
  try {
    ssum::read_problem("-");
  } catch (const ssum::input_error& e) {
    what = e.what();
  }
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_EQ(what, "cannot read standard input: Bad file descriptor");
}

// /dev/zero is refused at its first byte instead of read until memory runs out.
TEST_F(ReadProblem, NulByteStopsReadingAtOnce) {
  try {
    ssum::read_problem("/dev/zero");
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(std::string(e.what()).rfind("/dev/zero: line 1: NUL byte", 0), 0u) << e.what();
  }
  const std::string path = write("nul.txt", std::string("1 2\n3\n\0\n", 8));
  try {
    ssum::read_problem(path);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(e.line(), 3u);
  }
}

TEST_F(ReadProblem, FileNamesAreEscapedInMessages) {
  const std::string path = (dir_ / "a\nb\x1b").string();
  try {
    ssum::read_problem(path);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open '" + (dir_ / "a\\x0ab\\x1b").string() + "': No such file or directory");
  }
  const std::string bad = write("x\ty.txt", "1 z\n");
  try {
    ssum::read_problem(bad);
    FAIL() << "no error";
  } catch (const ssum::input_error& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "x\\x09y.txt").string() + ": line 1: weight 'z' is not an integer");
  }
}

// ---- is_certificate -----------------------------------------------------------------------

TEST(IsCertificate, WithTarget) {
  const problem p{{3, 34, 4, 12, 5, 2}, int128(9)};
  EXPECT_TRUE(ssum::is_certificate(p, {2, 4}));      // 4 + 5
  EXPECT_TRUE(ssum::is_certificate(p, {0, 2, 5}));   // 3 + 4 + 2
  EXPECT_FALSE(ssum::is_certificate(p, {0, 4, 5}));  // 3 + 5 + 2 = 10
  EXPECT_FALSE(ssum::is_certificate(p, {4, 2}));     // right sum, not ascending
  EXPECT_FALSE(ssum::is_certificate(p, {5, 0, 2}));
  EXPECT_FALSE(ssum::is_certificate(p, {}));         // 0 != 9
}

TEST(IsCertificate, DuplicatesAndRange) {
  const problem p{{2, 7, 1}, int128(4)};
  EXPECT_FALSE(ssum::is_certificate(p, {0, 0}));     // 2 + 2 = 4, but one weight twice
  EXPECT_FALSE(ssum::is_certificate(p, {2, 2, 2, 2}));
  EXPECT_FALSE(ssum::is_certificate(p, {0, 3}));     // index == n
  EXPECT_FALSE(ssum::is_certificate(p, {0, std::size_t(-1)}));
  const problem empty{{}, int128(0)};
  EXPECT_TRUE(ssum::is_certificate(empty, {}));
  EXPECT_FALSE(ssum::is_certificate(empty, {0}));
}

TEST(IsCertificate, EmptySubsetZeroSumVersusTargetZero) {
  const problem zero_sum{{5, -5, 3}, std::nullopt};
  const problem target_zero{{5, -5, 3}, int128(0)};
  EXPECT_FALSE(ssum::is_certificate(zero_sum, {}));   // zero-sum wants a non-empty subset
  EXPECT_TRUE(ssum::is_certificate(target_zero, {}));  // the empty sum is 0
  EXPECT_TRUE(ssum::is_certificate(zero_sum, {0, 1}));
  EXPECT_TRUE(ssum::is_certificate(target_zero, {0, 1}));
  EXPECT_FALSE(ssum::is_certificate(zero_sum, {0, 2}));
  EXPECT_TRUE(ssum::is_certificate(problem{{0, 4}, std::nullopt}, {0}));  // {0} sums to zero
}

TEST(IsCertificate, SumsBeyondInt64AreExact) {
  const problem big{{INT64_MAX, INT64_MAX, INT64_MAX}, int128(INT64_MAX) * 3};
  EXPECT_TRUE(ssum::is_certificate(big, {0, 1, 2}));
  // The int64 wrap-around of 3 * INT64_MAX is INT64_MAX - 2; it must not pass.
  EXPECT_FALSE(ssum::is_certificate(problem{big.weights, int128(INT64_MAX - 2)}, {0, 1, 2}));
  // INT64_MIN + INT64_MIN wraps to 0 in int64, so a 64-bit sum would call this a zero-sum.
  const problem wraps{{INT64_MIN, INT64_MIN}, std::nullopt};
  EXPECT_FALSE(ssum::is_certificate(wraps, {0, 1}));
  EXPECT_TRUE(ssum::is_certificate(problem{wraps.weights, -(int128(1) << 64)}, {0, 1}));
  const problem mixed{{INT64_MIN, INT64_MAX, 1}, std::nullopt};
  EXPECT_TRUE(ssum::is_certificate(mixed, {0, 1, 2}));  // -2^63 + 2^63 - 1 + 1 = 0
}

TEST(IsCertificate, RandomAgainstBruteForce) {
  // Every subset of a small random instance, checked against a sum computed in int64 (the
  // weights are small enough not to overflow) and a validity check written independently.
  std::mt19937_64 rng(99);
  for (int round = 0; round < 50; ++round) {
    const std::size_t n = 1 + rng() % 10;
    problem p;
    for (std::size_t i = 0; i < n; ++i) p.weights.push_back(std::int64_t(rng() % 41) - 20);
    if (round % 2) p.target = int128(std::int64_t(rng() % 41) - 20);
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
      std::vector<std::size_t> subset;
      std::int64_t sum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (mask >> i & 1) {
          subset.push_back(i);
          sum += p.weights[i];
        }
      }
      const bool expected = sum == (p.target ? std::int64_t(*p.target) : 0) &&
                            (p.target.has_value() || mask != 0);
      ASSERT_EQ(ssum::is_certificate(p, subset), expected) << "round " << round << " mask " << mask;
    }
  }
}

}  // namespace

// Checkpoints of the four-list (checkpoint.hpp): the strict text format, its checksum, and
// writes that replace the file atomically.
#include "solver/four_list/checkpoint.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "ssum/errors.hpp"
#include "ssum/solve.hpp"

namespace ssum::detail {
namespace {

constexpr std::uint64_t fnv_offset = 0xcbf29ce484222325ull;
constexpr std::uint64_t fnv_prime = 0x100000001b3ull;
// Far beyond any real plan (2^24 units take 4 MiB), but a stray huge file is not read whole.
constexpr std::size_t max_checkpoint_bytes = std::size_t(1) << 30;
constexpr char hex_digits[] = "0123456789abcdef";

std::uint64_t fnv1a(std::uint64_t h, const unsigned char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * fnv_prime;
  return h;
}

// Little-endian bytes of the low `bytes` bytes of v: the same encoding on every machine.
std::uint64_t fnv1a_le(std::uint64_t h, uint128 v, int bytes) {
  for (int i = 0; i < bytes; ++i) h = (h ^ static_cast<unsigned char>(v >> (8 * i))) * fnv_prime;
  return h;
}

std::uint64_t fnv1a(std::string_view text) {
  return fnv1a(fnv_offset, reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

std::string hex64(std::uint64_t v) {
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = hex_digits[v & 15];
  return s;
}

std::string decimal(uint128 v) {
  std::string s;
  do s.insert(s.begin(), char('0' + int(v % 10))), v /= 10; while (v != 0);
  return s;
}

int hex_value(char c) {  // lowercase only: the writer never emits anything else
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string subset_text(const std::optional<std::vector<std::size_t>>& subset) {
  if (!subset) return "none";
  if (subset->empty()) return "empty";
  std::string s;
  for (const std::size_t i : *subset) s += (s.empty() ? "" : " ") + std::to_string(i);
  return s;
}

std::uint64_t units_hex_length(std::uint64_t units) { return units / 4 + (units % 4 != 0); }

bool valid_algorithm(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name)
    if (c <= 0x20 || c >= 0x7f) return false;  // a space or newline would break the line format
  return true;
}

std::string errno_text(int err) { return std::strerror(err); }

[[noreturn]] void damaged(const std::string& path, const std::string& what) {
  throw input_error("the checkpoint " + printable(path) + " is damaged: " + what, 0);
}

// Strict decimal: digits only, no sign, no leading zeros, at most `max`.
std::optional<uint128> parse_decimal(std::string_view s, uint128 max) {
  if (s.empty() || s.size() > 39 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  uint128 v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const unsigned d = unsigned(c - '0');
    if (v > (max - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

// `subset`'s value: "none", "empty", or ascending decimal indices below n, one space apart.
std::optional<std::vector<std::size_t>> parse_subset(const std::string& path, std::string_view text, std::size_t n) {
  if (text == "none") return std::nullopt;
  std::vector<std::size_t> subset;
  if (text == "empty") return subset;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view item = text.substr(0, space);
    const auto v = parse_decimal(item, SIZE_MAX);
    if (!v || *v >= n || (!subset.empty() && std::size_t(*v) <= subset.back()))
      damaged(path, "the subset is not ascending indices below n at '" + printable(item.substr(0, 64)) + "'");
    subset.push_back(std::size_t(*v));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
    if (text.empty()) damaged(path, "the subset ends with a space");
  }
  if (subset.empty()) damaged(path, "the subset is empty");
  return subset;
}

// The body's `key value` lines in their fixed order, so that a damaged file names what it lacks.
class body_parser {
 public:
  body_parser(const std::string& path, std::string_view body) : path_(path), rest_(body) {}

  std::string_view value(const char* key) {
    std::string_view line;
    if (!next(line)) damaged(path_, std::string("'") + key + "' is missing");
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || line.substr(0, space) != key)
      damaged(path_, std::string("expected '") + key + "', found '" +
                         printable(line.substr(0, space)) + "'");
    return line.substr(space + 1);
  }
  uint128 number(const char* key, uint128 max) {
    const std::string_view text = value(key);
    const auto v = parse_decimal(text, max);
    if (!v) damaged(path_, std::string("bad ") + key + " '" + printable(text.substr(0, 64)) + "'");
    return *v;
  }
  void finish() {
    std::string_view line;
    if (next(line)) damaged(path_, "unexpected line '" + printable(line.substr(0, 64)) + "' after 'done'");
  }

 private:
  bool next(std::string_view& line) {
    if (rest_.empty()) return false;
    const std::size_t end = rest_.find('\n');  // the body ends with '\n', so one is found
    line = rest_.substr(0, end);
    rest_.remove_prefix(end + 1);
    return true;
  }
  const std::string& path_;
  std::string_view rest_;
};

std::string read_whole(int fd, const std::string& path) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw input_error("cannot read the checkpoint " + printable(path) + ": " + errno_text(errno), 0);
    if (got == 0) return text;
    if (text.size() + std::size_t(got) > max_checkpoint_bytes) damaged(path, "it is larger than 1 GiB");
    text.append(buffer, std::size_t(got));
  }
}

// Removes the temporary file unless the rename consumed it: a failed write leaves nothing.
struct temp_file {
  std::string name;
  int fd = -1;
  bool renamed = false;
  ~temp_file() {
    if (fd >= 0) ::close(fd);
    if (!renamed) ::unlink(name.c_str());
  }
};

}  // namespace

std::uint64_t fingerprint_of(const problem& p) {
  std::uint64_t h = fnv1a_le(fnv_offset, p.weights.size(), 8);  // the count: no weight/target ambiguity
  for (const int128 w : p.weights) h = fnv1a_le(h, uint128(w), 16);
  h = fnv1a_le(h, p.target.has_value() ? 1 : 0, 1);
  if (p.target) h = fnv1a_le(h, uint128(*p.target), 16);
  return h;
}

void write_checkpoint(const std::string& path, const checkpoint_identity& id,
                      const checkpoint_state& state) {
  const std::string where = "cannot write the checkpoint " + printable(path) + ": ";
  if (!valid_algorithm(id.algorithm))
    throw input_error(where + "bad algorithm name '" + printable(id.algorithm) + "'", 0);
  if (id.modulus_bits < 0) throw input_error(where + "negative modulus_bits", 0);
  if (state.done.size() != id.units)
    throw input_error(where + "done holds " + std::to_string(state.done.size()) + " units, not " +
                          std::to_string(id.units), 0);

  if (state.subset) {
    for (std::size_t k = 0; k < state.subset->size(); ++k) {
      if ((*state.subset)[k] >= id.n || (k > 0 && (*state.subset)[k] <= (*state.subset)[k - 1]))
        throw input_error(where + "the subset is not ascending indices below n", 0);
    }
  }
  std::string text = "ssum checkpoint 2\nalgorithm " + id.algorithm + "\nfingerprint " +
                     hex64(id.fingerprint) + "\nn " + std::to_string(id.n) + "\nmodulus_bits " +
                     std::to_string(id.modulus_bits) + "\nunits " + std::to_string(id.units) +
                     "\ncounting " + (id.counting ? "yes" : "no") + "\ncount " +
                     decimal(state.count) + "\nsubset " + subset_text(state.subset) + "\ndone ";
  const std::size_t digits = units_hex_length(id.units);
  text.reserve(text.size() + digits + 27);
  for (std::size_t j = 0; j < digits; ++j) {
    unsigned nibble = 0;
    for (std::size_t b = 0; b < 4 && 4 * j + b < state.done.size(); ++b)
      nibble |= unsigned(state.done[4 * j + b]) << b;
    text += hex_digits[nibble];
  }
  text += '\n';
  text += "checksum " + hex64(fnv1a(text)) + "\n";

  // A unique name: two writers (or a stale file of a killed one) never share a temporary.
  static std::atomic<std::uint64_t> counter{0};
  temp_file tmp{path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++)};
  tmp.fd = ::open(tmp.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (tmp.fd < 0) throw input_error(where + errno_text(errno), 0);
  for (std::size_t off = 0; off < text.size();) {
    const ssize_t put = ::write(tmp.fd, text.data() + off, text.size() - off);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) throw input_error(where + errno_text(errno), 0);
    off += std::size_t(put);
  }
  // The data must be on disk before the rename makes it PATH, or a crash could leave it empty.
  if (::fsync(tmp.fd) != 0) throw input_error(where + errno_text(errno), 0);
  const int fd = tmp.fd;
  tmp.fd = -1;
  if (::close(fd) != 0) throw input_error(where + errno_text(errno), 0);
  if (::rename(tmp.name.c_str(), path.c_str()) != 0) throw input_error(where + errno_text(errno), 0);
  tmp.renamed = true;
  fault_point("written");
  // Makes the rename itself durable; best effort, as the checkpoint is already complete.
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

std::optional<checkpoint> read_checkpoint(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0)
    throw input_error("cannot read the checkpoint " + printable(path) + ": " + errno_text(errno), 0);
  const struct closer { int fd; ~closer() { ::close(fd); } } close_fd{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw input_error("cannot read the checkpoint " + printable(path) + ": " + errno_text(errno), 0);
  if (!S_ISREG(st.st_mode))
    throw input_error("cannot read the checkpoint " + printable(path) + ": it is not a regular file", 0);
  const std::string text = read_whole(fd, path);

  const std::string_view all(text);
  if (all.empty()) damaged(path, "it is empty");
  if (all.back() != '\n') damaged(path, "its last line does not end with a newline");
  // The version first: a later format may check itself differently.
  const std::string_view header = all.substr(0, all.find('\n'));
  constexpr std::string_view magic = "ssum checkpoint ";
  if (header.substr(0, magic.size()) != magic) damaged(path, "it does not start with 'ssum checkpoint'");
  const std::string_view version = header.substr(magic.size());
  if (version != "1" && version != "2") damaged(path, "unknown version '" + printable(version.substr(0, 64)) + "'");

  if (header.size() + 1 == all.size()) damaged(path, "it holds nothing but its first line");
  // The '\n' that ends the line before the last: the header's at least.
  const std::size_t last = all.rfind('\n', all.size() - 2);
  const std::string_view checksum_line = all.substr(last + 1, all.size() - last - 2);
  const std::string_view body = all.substr(header.size() + 1, last - header.size());
  constexpr std::string_view checksum_key = "checksum ";
  if (checksum_line.substr(0, checksum_key.size()) != checksum_key)
    damaged(path, "its last line is not 'checksum'");
  if (checksum_line.substr(checksum_key.size()) != hex64(fnv1a(all.substr(0, last + 1))))
    damaged(path, "its checksum does not match");

  checkpoint c;
  body_parser parser(path, body);
  c.id.algorithm = std::string(parser.value("algorithm"));
  if (!valid_algorithm(c.id.algorithm)) damaged(path, "bad algorithm name");
  const std::string_view fingerprint = parser.value("fingerprint");
  if (fingerprint.size() != 16) damaged(path, "the fingerprint is not 16 hex digits");
  for (const char ch : fingerprint) {
    if (hex_value(ch) < 0) damaged(path, "the fingerprint is not 16 hex digits");
    c.id.fingerprint = c.id.fingerprint << 4 | std::uint64_t(hex_value(ch));
  }
  c.id.n = std::size_t(parser.number("n", SIZE_MAX));
  c.id.modulus_bits = int(parser.number("modulus_bits", INT_MAX));
  c.id.units = std::uint64_t(parser.number("units", UINT64_MAX));
  const std::string_view counting = parser.value("counting");
  if (counting != "yes" && counting != "no") damaged(path, "counting is neither 'yes' nor 'no'");
  c.id.counting = counting == "yes";
  c.state.count = parser.number("count", ~uint128(0));
  if (version == "2") c.state.subset = parse_subset(path, parser.value("subset"), c.id.n);
  const std::string_view done = parser.value("done");
  // Compared before anything is allocated: a forged huge `units` costs nothing.
  if (done.size() != units_hex_length(c.id.units))
    damaged(path, "done holds " + std::to_string(done.size()) + " hex digits, not " +
                      std::to_string(units_hex_length(c.id.units)) + " for " +
                      std::to_string(c.id.units) + " units");
  c.state.done.assign(c.id.units, false);
  for (std::size_t j = 0; j < done.size(); ++j) {
    const int nibble = hex_value(done[j]);
    if (nibble < 0) damaged(path, "done is not hex at digit " + std::to_string(j));
    for (std::size_t b = 0; b < 4; ++b) {
      if (!(nibble >> b & 1)) continue;
      if (4 * j + b >= c.id.units) damaged(path, "done marks units beyond its " + std::to_string(c.id.units));
      c.state.done[4 * j + b] = true;
    }
  }
  parser.finish();
  return c;
}


void fault_point(const char* name) noexcept {
  // Read once: the name and the count of arrivals that raises the signal.
  static const struct armed {
    std::string name;
    long at = 0;
    armed() {
      const char* text = std::getenv("SSUM_FAULT");
      if (!text || !*text) return;
      const std::string_view all(text);
      const std::size_t colon = all.find(':');
      name = std::string(all.substr(0, colon));
      at = colon == std::string_view::npos ? 1 : std::strtol(text + colon + 1, nullptr, 10);
    }
  } fault;
  static std::atomic<long> arrivals{0};
  if (fault.name.empty() || fault.name != name) return;
  if (arrivals.fetch_add(1) + 1 == fault.at) ::kill(::getpid(), SIGKILL);
}

void check_identity(const std::string& path, const checkpoint_identity& found,
                    const checkpoint_identity& expected) {
  if (found == expected) return;
  std::string diff;
  const auto field = [&](const char* name, const std::string& was, const std::string& is) {
    if (was == is) return;
    diff += std::string(diff.empty() ? "" : "; ") + name + " is " + was + " there, " + is + " here";
  };
  field("algorithm", printable(found.algorithm), printable(expected.algorithm));
  field("fingerprint", hex64(found.fingerprint), hex64(expected.fingerprint));
  field("n", std::to_string(found.n), std::to_string(expected.n));
  field("modulus_bits", std::to_string(found.modulus_bits), std::to_string(expected.modulus_bits));
  field("units", std::to_string(found.units), std::to_string(expected.units));
  field("counting", found.counting ? "yes" : "no", expected.counting ? "yes" : "no");
  throw input_error("the checkpoint " + printable(path) + " belongs to another instance or plan: " + diff, 0);
}

}  // namespace ssum::detail

namespace ssum {

void check_checkpoint_path(const std::string& path) {
  const std::string where = "cannot use the checkpoint " + printable(path) + ": ";
  if (path.empty()) throw input_error("the checkpoint's path is empty", 0);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    // A FIFO would block the first read; a folder or a device cannot be replaced by rename.
    if (S_ISDIR(st.st_mode)) throw input_error(where + "it is a folder", 0);
    if (!S_ISREG(st.st_mode)) throw input_error(where + "it is not a regular file (a FIFO, socket or device)", 0);
    if (::access(path.c_str(), R_OK | W_OK) != 0) throw input_error(where + detail::errno_text(errno), 0);
  } else if (errno != ENOENT) {
    throw input_error(where + detail::errno_text(errno), 0);
  }
  // Every write goes through a new file in the same folder: make one now rather than fail
  // at the first write, minutes into the search.
  const std::string probe = path + ".probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw input_error(where + "its folder takes no new file: " + detail::errno_text(errno), 0);
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace ssum

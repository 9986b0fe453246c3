// Reading an instance's bytes (see input_text.hpp).
#include "io/input_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <system_error>

#include "ssum/problem.hpp"

namespace ssum::io {
namespace {

// All that `fd` holds. `what` names the input in a read error ("standard input", "'PATH'");
// `source` prefixes the other errors, as the parse errors' do.
void read_all(int fd, input_buffer& in, const std::string& what, const std::string& source, const char* kinds) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    // The whole file and one byte more, so that the read that sees its end needs no growth.
    in.reserve(std::min<std::size_t>(static_cast<std::size_t>(st.st_size), max_input_bytes) + 1);
  }
  constexpr std::size_t first_block = std::size_t(1) << 20;
  for (;;) {
    if (in.size == in.capacity) {  // grow by doubling: a pipe delivers 64 KiB at a time
      in.reserve(std::min(std::max(2 * in.size, first_block), max_input_bytes + 1));
    }
    const ::ssize_t got = ::read(fd, in.data + in.size, in.capacity - in.size);
    if (got < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      throw input_error("cannot read " + what + ": " + std::generic_category().message(err), 0);
    }
    if (got == 0) return;
    if (const void* nul = std::memchr(in.data + in.size, 0, static_cast<std::size_t>(got))) {
      in.size += static_cast<std::size_t>(got);
      throw_nul(in.view(), static_cast<std::size_t>(static_cast<const char*>(nul) - in.data), kinds, source);
    }
    in.size += static_cast<std::size_t>(got);
    if (in.size > max_input_bytes) throw input_error(limit_text(), 0, source);
  }
}

}  // namespace

std::size_t line_of(std::string_view text, std::size_t index) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + std::min(index, text.size()), '\n'));
}

static_assert(max_input_bytes % (std::size_t(1) << 30) == 0, "limit_text() says GiB");

std::string limit_text() {
  return "more than " + std::to_string(max_input_bytes >> 30) + " GiB of input (ssum::max_input_bytes)";
}

void throw_nul(std::string_view text, std::size_t index, const char* kinds, const std::string& source) {
  throw input_error(std::string("NUL byte in the input (") + kinds + " instances hold no binary data)",
                    line_of(text, index), source);
}

input_buffer::~input_buffer() { std::free(data); }

void input_buffer::reserve(std::size_t bytes) {
  void* grown = std::realloc(data, bytes);
  if (!grown) throw std::bad_alloc();
  data = static_cast<char*>(grown);
  capacity = bytes;
}

void input_buffer::append(std::string_view bytes) {
  if (bytes.empty()) return;  // nothing to copy, and memcpy takes no null pointer
  if (bytes.size() > capacity - size) reserve(std::max({2 * capacity, size + bytes.size(), std::size_t(1) << 20}));
  std::memcpy(data + size, bytes.data(), bytes.size());
  size += bytes.size();
}

void read_blocks_erased(const std::string& path, const std::string& source, const char* kinds,
                        void (*take)(void*, std::string_view), void* context) {
  int fd = STDIN_FILENO;  // a closed one: EBADF, not "empty"
  const std::string what = path == "-" ? "standard input" : "'" + source + "'";
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      throw input_error("cannot open '" + source + "': " + std::generic_category().message(err), 0);
    }
  }
  const struct closer {
    int fd;
    ~closer() {
      if (fd != STDIN_FILENO) ::close(fd);
    }
  } close_at_end{fd};
  constexpr std::size_t block = std::size_t(1) << 20;
  const std::unique_ptr<char[]> buffer(new char[block]);
  std::size_t total = 0, lines = 0;  // lines before this block, for a NUL byte's message
  for (;;) {
    const ::ssize_t got = ::read(fd, buffer.get(), block);
    if (got < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      throw input_error("cannot read " + what + ": " + std::generic_category().message(err), 0);
    }
    if (got == 0) return;
    const std::string_view bytes(buffer.get(), static_cast<std::size_t>(got));
    if (const std::size_t nul = bytes.find('\0'); nul != std::string_view::npos) {
      throw input_error(std::string("NUL byte in the input (") + kinds + " instances hold no binary data)",
                        lines + line_of(bytes, nul), source);
    }
    total += bytes.size();
    if (total > max_input_bytes) throw input_error(limit_text(), 0, source);
    lines += static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n'));
    take(context, bytes);
  }
}

std::string source_of(const std::string& path) { return path == "-" ? "<stdin>" : printable(path); }

void read_input(const std::string& path, const std::string& source, const char* kinds, input_buffer& in) {
  if (path == "-") {
    read_all(STDIN_FILENO, in, "standard input", source, kinds);  // a closed one: EBADF, not "empty"
    return;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw input_error("cannot open '" + source + "': " + std::generic_category().message(err), 0);
  }
  const struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_at_end{fd};
  read_all(fd, in, "'" + source + "'", source, kinds);  // e.g. EISDIR: open succeeds on a directory
}

void rethrow_with_source(const input_error& e, const std::string& source) {
  std::string message = e.what();
  const std::string prefix = "line " + std::to_string(e.line()) + ": ";
  if (e.line() != 0 && message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  throw input_error(message, e.line(), source);
}

}  // namespace ssum::io

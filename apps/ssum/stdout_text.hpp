#pragma once
// Writing the program's answers: all of a text on standard output, or the reason it could not
// be: the one-answer printer (main.cpp). The listing streams through listing_output.hpp,
// which must not wait for a stalled reader.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string_view>

namespace ssum::cli {

/// Writes all of `text` to standard output; 0 when done, else the errno that stopped it (-1
/// when a write took nothing). A closed pipe (`| head`) ends the process quietly by SIGPIPE,
/// as it ends other filters: an answer cut short by a full disk is an error, one nobody reads
/// is not.
inline int write_stdout(std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ::ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    const int err = n < 0 ? errno : -1;
    if (err == EINTR) continue;
    if (err == EPIPE) {
      std::signal(SIGPIPE, SIG_DFL);
      std::raise(SIGPIPE);
      std::_Exit(4);  // not reached: SIGPIPE is unblocked at start
    }
    return err;
  }
  return 0;
}

}  // namespace ssum::cli

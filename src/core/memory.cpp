#include "ssum/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <fstream>
#include <optional>
#include <string>

namespace ssum {
namespace {

std::optional<std::uint64_t> read_number(const char* path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return std::nullopt;
  try {
    return std::stoull(word);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<std::uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

// "VmSize:" or "VmData:" of /proc/self/status, in bytes.
std::optional<std::uint64_t> own_usage(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string key, unit;
  std::uint64_t kib;
  while (in >> key) {
    if (key == field && in >> kib) return kib * 1024;
    std::getline(in, unit);
  }
  return std::nullopt;
}

// Asked afresh at most every 50 ms: reading /proc and the cgroup files costs some 20 us, more
// than a whole small solve, and a plan asks several times.
constexpr auto refresh_interval = std::chrono::milliseconds(50);

std::uint64_t measure_available_host_memory() {
  std::uint64_t best = UINT64_MAX;
  if (auto m = mem_available()) best = *m;
  else best = std::uint64_t(sysconf(_SC_AVPHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGESIZE));
  // A container's cgroup may allow less than the machine has free (v2, then v1).
  const std::pair<const char*, const char*> cgroups[] = {
      {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
      {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}};
  for (const auto& [limit_path, usage_path] : cgroups) {
    const auto limit = read_number(limit_path);
    const auto usage = read_number(usage_path);
    if (limit && usage) best = std::min(best, *limit > *usage ? *limit - *usage : 0);
  }
  // The process's own limits: every allocation counts against the address space (RLIMIT_AS)
  // and, since Linux 4.7, private writable mappings against RLIMIT_DATA.
  const std::pair<int, const char*> rlimits[] = {{RLIMIT_AS, "VmSize:"}, {RLIMIT_DATA, "VmData:"}};
  for (const auto& [resource, field] : rlimits) {
    rlimit lim{};
    if (getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) continue;
    const std::uint64_t used = own_usage(field).value_or(0);
    const std::uint64_t cap = std::uint64_t(lim.rlim_cur);
    best = std::min(best, cap > used ? cap - used : 0);
  }
  return best;
}

}  // namespace

std::uint64_t available_host_memory() {
  static std::mutex lock;
  static std::chrono::steady_clock::time_point asked{};
  static std::uint64_t answer = 0;
  const auto now = std::chrono::steady_clock::now();
  const std::lock_guard<std::mutex> hold(lock);
  if (asked == std::chrono::steady_clock::time_point{} || now - asked >= refresh_interval) {
    answer = measure_available_host_memory();
    asked = now;
  }
  return answer;
}

double host_plan_room(std::uint64_t limit) {
  const double room = 0.95 * double(available_host_memory());
  return limit ? std::min(room, double(limit)) : room;
}

std::uint64_t peak_resident_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace ssum

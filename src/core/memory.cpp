#include "ssum/memory.hpp"

#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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

// KiB as bytes; nullopt where the figure cannot be a byte count (it would overflow).
std::optional<std::uint64_t> kib_to_bytes(std::uint64_t kib) {
  if (kib > UINT64_MAX / 1024) return std::nullopt;
  return kib * 1024;
}

std::optional<std::uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib_to_bytes(kib);
  }
  return std::nullopt;
}

// The machine's memory and what is free of it, from sysinfo(2): no file to open, so it answers
// when /proc cannot be read (no descriptor left, a sandbox without it).
struct machine_memory {
  std::uint64_t total = 0, free = 0;
};
std::optional<machine_memory> machine() {
  struct sysinfo info {};
  if (::sysinfo(&info) != 0 || info.totalram == 0) return std::nullopt;
  const auto bytes = [&](unsigned long pages) {
    const unsigned __int128 b = static_cast<unsigned __int128>(pages) * std::max<unsigned>(info.mem_unit, 1);
    return b > UINT64_MAX ? UINT64_MAX : std::uint64_t(b);
  };
  return machine_memory{bytes(info.totalram), std::min(bytes(info.totalram), bytes(info.freeram) + bytes(info.bufferram))};
}

// The file cache a cgroup holds (the active and inactive file lists of its memory.stat): it
// counts in the cgroup's usage, but the kernel drops it before it refuses an allocation. After
// a large build or copy it can fill the whole limit, so usage alone would leave no room at all.
std::uint64_t cgroup_file_cache(const char* stat_path, const char* active, const char* inactive) {
  std::ifstream in(stat_path);
  std::string key;
  std::uint64_t value = 0, cache = 0;
  while (in >> key >> value) {
    if (key == active || key == inactive) cache += value;
  }
  return cache;
}

// "VmSize:" or "VmData:" of /proc/self/status, in bytes.
std::optional<std::uint64_t> own_usage(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string key, unit;
  std::uint64_t kib;
  while (in >> key) {
    if (key == field && in >> kib) return kib_to_bytes(kib);
    std::getline(in, unit);
  }
  return std::nullopt;
}

// Asked afresh at most every 50 ms: reading /proc and the cgroup files costs some 20 us, more
// than a whole small solve, and a plan asks several times.
constexpr auto refresh_interval = std::chrono::milliseconds(50);

// Every figure the room is the smallest of, each with its name (for host_memory_report()).
std::vector<std::pair<std::string, std::uint64_t>> host_memory_figures() {
  std::vector<std::pair<std::string, std::uint64_t>> figures;
  // No figure may pass the machine's memory: a sandbox's /proc/meminfo has been seen to report
  // MemAvailable of 2^57 bytes on a machine of 2^37 once CUDA had mapped memory.
  const std::optional<machine_memory> mm = machine();
  const auto bounded = [&](std::string name, std::uint64_t bytes) {
    if (mm && bytes > mm->total) {
      name += " (above the machine's memory: taken as that)";
      bytes = mm->total;
    }
    figures.emplace_back(std::move(name), bytes);
  };
  if (auto m = mem_available()) bounded("MemAvailable", *m);
  else if (mm) bounded("free and buffer memory (sysinfo)", mm->free);
  // A container's cgroup may allow less than the machine has free (v2, then v1): its limit
  // less what it uses, not counting the file cache it would drop.
  struct cgroup_files {
    const char *name, *limit, *usage, *stat, *active_file, *inactive_file;
  };
  const cgroup_files cgroups[] = {
      {"cgroup v2 limit less use", "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current",
       "/sys/fs/cgroup/memory.stat", "active_file", "inactive_file"},
      {"cgroup v1 limit less use", "/sys/fs/cgroup/memory/memory.limit_in_bytes",
       "/sys/fs/cgroup/memory/memory.usage_in_bytes", "/sys/fs/cgroup/memory/memory.stat", "total_active_file",
       "total_inactive_file"}};
  for (const auto& c : cgroups) {
    const auto limit = read_number(c.limit);
    auto usage = read_number(c.usage);
    // No limit: v2 says "max", v1 a number near 2^63.
    if (!limit || *limit >= (std::uint64_t(1) << 62) || !usage) continue;
    // Use above the limit cannot happen where the kernel enforces the limit: a sandbox that
    // counts device mappings in it reports such figures, which say nothing of the room.
    if (*usage > *limit) {
      figures.emplace_back(std::string(c.name) + " (its use is above its limit: not a figure)", UINT64_MAX);
      continue;
    }
    *usage -= std::min(*usage, cgroup_file_cache(c.stat, c.active_file, c.inactive_file));
    bounded(c.name, *limit - *usage);
  }
  // The process's own limits: every allocation counts against the address space (RLIMIT_AS)
  // and, since Linux 4.7, private writable mappings against RLIMIT_DATA.
  const std::tuple<int, const char*, const char*> rlimits[] = {{RLIMIT_AS, "VmSize:", "RLIMIT_AS less VmSize"},
                                                               {RLIMIT_DATA, "VmData:", "RLIMIT_DATA less VmData"}};
  for (const auto& [resource, field, name] : rlimits) {
    rlimit lim{};
    if (getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) continue;
    const std::uint64_t used = own_usage(field).value_or(0);
    const std::uint64_t cap = std::uint64_t(lim.rlim_cur);
    bounded(name, cap > used ? cap - used : 0);
  }
  return figures;
}

std::uint64_t measure_available_host_memory() {
  // UINT64_MAX marks a figure that was read but says nothing; with no figure at all there is
  // no room to promise.
  std::uint64_t best = UINT64_MAX;
  for (const auto& figure : host_memory_figures()) best = std::min(best, figure.second);
  return best == UINT64_MAX ? 0 : best;
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

std::string host_memory_report() {
  std::string text;
  for (const auto& [name, bytes] : host_memory_figures()) {
    char figure[32] = "";
    if (bytes != UINT64_MAX) std::snprintf(figure, sizeof figure, " %.1f GiB", double(bytes) / double(1ull << 30));
    text += (text.empty() ? "" : "; ") + name + figure;
  }
  return text;
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

#pragma once
#include <cstdint>
#include <string>

namespace ssum {

/// Bytes this process can still allocate without swapping, being killed or refused: the
/// smallest of the kernel's MemAvailable, what the cgroup's limit leaves (memory.max less
/// memory.current, less the file cache it would drop; v1 too), and what RLIMIT_AS and
/// RLIMIT_DATA leave beside the address space (VmSize) and data (VmData) the process already
/// has (`ulimit -v`, `ulimit -d`).
std::uint64_t available_host_memory();

/// Each figure available_host_memory() takes the smallest of, measured afresh, as one line
/// ("MemAvailable 12.0 GiB; cgroup v2 limit less use 3.1 GiB"): for saying why a plan was refused.
/// No figure passes the machine's memory (sysinfo); one that did is named "(above the machine's
/// memory: taken as that)", and a cgroup whose use is above its limit "(... not a figure)".
std::string host_memory_report();

/// Bytes a host solve may plan for: 95% of available_host_memory(), and no more than
/// `limit` when it is not 0 (solve_options::memory_limit, the CLI's --memory).
double host_plan_room(std::uint64_t limit);

/// Largest resident set of this process so far, in bytes.
std::uint64_t peak_resident_bytes();

}  // namespace ssum

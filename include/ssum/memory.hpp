#pragma once
#include <cstdint>

namespace ssum {

/// Bytes this process can still allocate without swapping, being killed or refused: the
/// smallest of the kernel's MemAvailable, what the cgroup's limit leaves (memory.max less
/// memory.current; v1 too), and what RLIMIT_AS and RLIMIT_DATA leave beside the address
/// space (VmSize) and data (VmData) the process already has (`ulimit -v`, `ulimit -d`).
std::uint64_t available_host_memory();

/// Bytes a host solve may plan for: 95% of available_host_memory(), and no more than
/// `limit` when it is not 0 (solve_options::memory_limit, the CLI's --memory).
double host_plan_room(std::uint64_t limit);

/// Largest resident set of this process so far, in bytes.
std::uint64_t peak_resident_bytes();

}  // namespace ssum

#pragma once
#include <cstdint>

namespace ssum {

/// Bytes this process can still allocate without swapping or being killed: the smaller of
/// the kernel's MemAvailable and what the cgroup limit leaves.
std::uint64_t available_host_memory();

/// Largest resident set of this process so far, in bytes.
std::uint64_t peak_resident_bytes();

}  // namespace ssum

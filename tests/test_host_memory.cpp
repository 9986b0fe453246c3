// The host's free memory as the plans see it (ssum/memory.hpp): never more than the machine
// has, whatever /proc and the cgroup files say, and every figure named in the report.
#include <gtest/gtest.h>
#include <sys/sysinfo.h>

#include <string>

#include "ssum/memory.hpp"

TEST(HostMemoryBound, TheRoomNeverPassesTheMachinesMemory) {
  struct sysinfo info {};
  ASSERT_EQ(::sysinfo(&info), 0);
  const unsigned __int128 total = static_cast<unsigned __int128>(info.totalram) * info.mem_unit;
  const std::uint64_t room = ssum::available_host_memory();
  EXPECT_GT(room, 0u) << ssum::host_memory_report();
  EXPECT_LE(room, total) << ssum::host_memory_report();
  EXPECT_LE(ssum::host_plan_room(0), double(total));
  // A limit above the machine's memory does not raise the room; one below it bounds it.
  EXPECT_LE(ssum::host_plan_room(UINT64_MAX), double(total));
  EXPECT_EQ(ssum::host_plan_room(4096), std::min(4096.0, ssum::host_plan_room(0)));
}

TEST(HostMemoryBound, TheReportNamesTheFigureTheRoomComesFrom) {
  const std::string report = ssum::host_memory_report();
  EXPECT_FALSE(report.empty());
  EXPECT_TRUE(report.find("MemAvailable") != std::string::npos || report.find("sysinfo") != std::string::npos)
      << report;
}

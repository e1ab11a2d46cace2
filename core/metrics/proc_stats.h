#pragma once

// What the kernel says about this process and the machine, as raw counters (/proc, statvfs).

#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace shardmap::core {

// Raw counters of this process, read from /proc/self (stat, statm, io).
struct ProcessCounters {
    // Resident memory, VmRSS: what top and ps call RSS, the shared libraries' pages included.
    std::uint64_t rssBytes = 0;
    // utime + stime in seconds.
    double cpuSeconds = 0;
    // /proc/self/io read_bytes / write_bytes (storage IO). ioAvailable is false where the kernel
    // does not expose them (no task IO accounting); rates are then reported as 0.
    std::uint64_t ioReadBytes = 0;
    std::uint64_t ioWriteBytes = 0;
    bool ioAvailable = false;
};

// System-wide CPU jiffies from the first line of /proc/stat.
struct SystemCpuTimes {
    std::uint64_t total = 0;
    std::uint64_t iowait = 0;
};

struct DiskSpace {
    std::uint64_t totalBytes = 0;
    std::uint64_t freeBytes = 0; // available to an unprivileged user (f_bavail)
};

Result<ProcessCounters> readProcessCounters();
Result<SystemCpuTimes> readSystemCpuTimes();
Result<DiskSpace> readDiskSpace(const std::string& path);

// Parsers split from the readers so tests can feed them known text.
Result<SystemCpuTimes> parseProcStat(std::string_view text);
Result<double> parseProcSelfStatCpuSeconds(std::string_view text, long ticksPerSecond);
Result<ProcessCounters> parseProcSelfIo(std::string_view text);
// Resident pages from /proc/self/statm (its second field, VmRSS in pages).
Result<std::uint64_t> parseStatmResidentPages(std::string_view text);

} // namespace shardmap::core

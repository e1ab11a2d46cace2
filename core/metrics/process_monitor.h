#pragma once

// This process's CPU, memory and IO as rates between two samples, for the node's metrics tick.

#include "core/metrics/proc_stats.h"

#include <chrono>
#include <mutex>
#include <optional>

namespace shardmap::core {

// Rates of this process and of the system between two samples.
struct ProcessRates {
    std::uint64_t rssBytes = 0;
    double cpuPercent = 0; // of one core: 200 means two cores busy
    double ioReadBytesPerSecond = 0;
    double ioWriteBytesPerSecond = 0;
    double iowaitPercent = 0; // system-wide share of CPU time spent waiting on IO
};

// Turns the monotonically growing /proc counters into rates. Each sample() compares with the
// previous one; the first call reports rates of 0 and the current RSS. Thread-safe.
class ProcessMonitor final {
public:
    ProcessRates sample();

private:
    std::mutex m_mutex;
    std::optional<std::chrono::steady_clock::time_point> m_lastTime;
    ProcessCounters m_lastProcess;
    SystemCpuTimes m_lastSystem;
};

} // namespace shardmap::core

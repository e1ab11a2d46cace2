#include "core/metrics/process_monitor.h"

// ProcessMonitor's implementation: the growth of each /proc counter since the previous sample as a
// rate, iowait as a share of the CPU time that passed.

#include <cmath>
#include <limits>

namespace shardmap::core {

namespace {

// A failed read leaves no baseline behind, so the next sample reports 0 for that part instead
// of dividing a counter delta that spans several intervals by the length of just one. For the
// process the marker is a NaN cpuSeconds (a real reading is never NaN); for the system it is a
// total of 0 (a running system has always used some jiffies).
ProcessCounters noProcessBaseline()
{
    ProcessCounters counters;
    counters.cpuSeconds = std::numeric_limits<double>::quiet_NaN();
    return counters;
}

bool hasBaseline(const ProcessCounters& counters)
{
    return !std::isnan(counters.cpuSeconds);
}
bool hasBaseline(const SystemCpuTimes& times)
{
    return times.total > 0;
}

// The counters only ever grow; a smaller value than last time means a reset or a different
// source, not negative work, and 0 is more honest than a huge or negative rate.
double grownBy(double now, double before)
{
    return now > before ? now - before : 0;
}
double grownBy(std::uint64_t now, std::uint64_t before)
{
    return now > before ? static_cast<double>(now - before) : 0;
}

void fillProcessRates(ProcessRates& rates, const ProcessCounters& now, const ProcessCounters& before, double seconds)
{
    rates.cpuPercent = grownBy(now.cpuSeconds, before.cpuSeconds) / seconds * 100;
    // Both samples must have IO counters: a delta against the 0s of an unavailable read
    // would be the whole lifetime's IO presented as one interval's.
    if (now.ioAvailable && before.ioAvailable) {
        rates.ioReadBytesPerSecond = grownBy(now.ioReadBytes, before.ioReadBytes) / seconds;
        rates.ioWriteBytesPerSecond = grownBy(now.ioWriteBytes, before.ioWriteBytes) / seconds;
    }
}

double iowaitPercent(const SystemCpuTimes& now, const SystemCpuTimes& before)
{
    const double total = grownBy(now.total, before.total);
    if (total <= 0)
        return 0; // no jiffy passed (samples within one tick): there is no share to report
    return grownBy(now.iowait, before.iowait) / total * 100;
}

} // namespace

ProcessRates ProcessMonitor::sample()
{
    // Reading under the lock keeps samples in order: two threads sampling at once cannot store an
    // older reading over a newer one and make the next delta negative.
    std::lock_guard lock(m_mutex);
    const auto now = std::chrono::steady_clock::now();
    const Result<ProcessCounters> process = readProcessCounters();
    const Result<SystemCpuTimes> system = readSystemCpuTimes();

    ProcessRates rates;
    if (process)
        rates.rssBytes = process->rssBytes;
    if (m_lastTime) {
        const double seconds = std::chrono::duration<double>(now - *m_lastTime).count();
        if (seconds > 0) {
            if (process && hasBaseline(m_lastProcess))
                fillProcessRates(rates, *process, m_lastProcess, seconds);
            if (system && hasBaseline(m_lastSystem))
                rates.iowaitPercent = iowaitPercent(*system, m_lastSystem);
        }
    }

    m_lastTime = now;
    m_lastProcess = process ? *process : noProcessBaseline();
    m_lastSystem = system ? *system : SystemCpuTimes {};
    return rates;
}

} // namespace shardmap::core

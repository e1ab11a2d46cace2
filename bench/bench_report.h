#pragma once

// Small helpers the end-to-end benchmarks share for their reports.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

namespace shardmap::bench {

// The fraction-quantile (0..1) of the samples, interpolated between the two nearest ranks.
inline double percentile(std::vector<double> samples, double fraction)
{
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    const double rank = fraction * static_cast<double>(samples.size() - 1);
    const auto low = static_cast<std::size_t>(std::floor(rank));
    const auto high = std::min(samples.size() - 1, low + 1);
    return samples[low] + (samples[high] - samples[low]) * (rank - static_cast<double>(low));
}

// "1.20 0.90 0.75" from /proc/loadavg: results on a shared box say how busy it was.
inline std::string loadAverage()
{
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

// "2026-11-29 18:58 UTC"
inline std::string utcNow()
{
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm {};
    ::gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
    return text;
}

} // namespace shardmap::bench

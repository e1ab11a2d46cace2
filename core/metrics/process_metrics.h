#pragma once

// The families every server exports about its own process, read from /proc/self at each scrape:
// its version, and its CPU time and storage IO as counters. Counters let Prometheus's rate() give
// CPU and IO over whatever window a query asks for; the node's per-tick gauges only say what
// happened in the second before the scrape.

#include "core/metrics/prometheus.h"

#include <string>

namespace shardmap::core {

// Adds <prefix>_build_info{version} (always 1), <prefix>_cpu_seconds_total and, where the kernel
// accounts task IO, <prefix>_io_read_bytes_total and <prefix>_io_write_bytes_total.
void addProcessCollector(MetricsRegistry& registry, const std::string& prefix);

} // namespace shardmap::core

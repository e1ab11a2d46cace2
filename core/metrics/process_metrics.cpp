#include "core/metrics/process_metrics.h"

// addProcessCollector's implementation: the build info, CPU and IO counters read at each scrape.

#include "core/metrics/proc_stats.h"

namespace shardmap::core {

void addProcessCollector(MetricsRegistry& registry, const std::string& prefix)
{
    registry.addCollector([prefix](MetricsWriter& out) {
        out.family(prefix + "_build_info", "gauge", "Always 1; the version of the running binary is its label");
        out.sample(prefix + "_build_info", { { "version", SHARDMAP_VERSION } }, 1);
        // An unreadable /proc/self leaves these out for this scrape rather than failing it.
        const auto counters = readProcessCounters();
        if (!counters)
            return;
        const auto counter = [&](const std::string& name, const std::string& help, double value) {
            out.family(name, "counter", help);
            out.sample(name, {}, value);
        };
        counter(prefix + "_cpu_seconds_total", "CPU time the process used, user and system", counters->cpuSeconds);
        if (!counters->ioAvailable)
            return;
        counter(prefix + "_io_read_bytes_total", "Bytes the process read from storage",
            static_cast<double>(counters->ioReadBytes));
        counter(prefix + "_io_write_bytes_total", "Bytes the process wrote to storage",
            static_cast<double>(counters->ioWriteBytes));
    });
}

} // namespace shardmap::core

#include "core/metrics/prometheus.h"

// The Prometheus registry's implementation: label keys and escaping, counters and histograms by
// name and labels, and the text rendering of every family and collector.

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardmap::core {

namespace {

std::string labelKey(const MetricLabels& labels)
{
    std::string key;
    for (const auto& [name, value] : labels)
        key += name + '\x1f' + value + '\x1e';
    return key;
}

std::string formatLabels(const MetricLabels& labels, const std::string& extraName = {}, const std::string& extra = {})
{
    if (labels.empty() && extraName.empty())
        return {};
    std::string out = "{";
    bool first = true;
    for (const auto& [name, value] : labels) {
        out += (first ? "" : ",") + name + "=\"" + escapeLabelValue(value) + "\"";
        first = false;
    }
    if (!extraName.empty())
        out += (first ? "" : ",") + extraName + "=\"" + extra + "\"";
    return out + "}";
}

std::string formatValue(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == std::floor(value) && std::fabs(value) < 1e15)
        return std::to_string(static_cast<long long>(value));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return buffer;
}

} // namespace

std::string escapeLabelValue(const std::string& value)
{
    std::string out;
    out.reserve(value.size());
    for (const char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

const std::vector<double>& latencyBucketsSeconds()
{
    static const std::vector<double> buckets { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
        5, 10 };
    return buckets;
}

MetricHistogram::MetricHistogram(std::vector<double> bounds)
    : m_bounds(std::move(bounds))
    , m_buckets(new std::atomic<std::uint64_t>[m_bounds.size() + 1])
{
    for (std::size_t i = 0; i <= m_bounds.size(); ++i)
        m_buckets[i].store(0, std::memory_order_relaxed);
}

void MetricHistogram::observe(double value)
{
    const auto at = std::lower_bound(m_bounds.begin(), m_bounds.end(), value) - m_bounds.begin();
    m_buckets[static_cast<std::size_t>(at)].fetch_add(1, std::memory_order_relaxed);
    m_count.fetch_add(1, std::memory_order_relaxed);
    m_sumMicros.fetch_add(static_cast<std::uint64_t>(std::max(0.0, value) * 1e6 + 0.5), std::memory_order_relaxed);
}

std::vector<std::uint64_t> MetricHistogram::cumulative() const
{
    std::vector<std::uint64_t> out;
    std::uint64_t running = 0;
    for (std::size_t i = 0; i <= m_bounds.size(); ++i) {
        running += m_buckets[i].load(std::memory_order_relaxed);
        out.push_back(running);
    }
    return out;
}

double MetricHistogram::sum() const
{
    return static_cast<double>(m_sumMicros.load(std::memory_order_relaxed)) / 1e6;
}

void MetricsWriter::family(const std::string& name, const std::string& type, const std::string& help)
{
    m_out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void MetricsWriter::sample(const std::string& name, const MetricLabels& labels, double value)
{
    m_out += name + formatLabels(labels) + " " + formatValue(value) + "\n";
}

void MetricsWriter::histogram(const std::string& name, const MetricLabels& labels, const MetricHistogram& histogram)
{
    const auto counts = histogram.cumulative();
    const auto& bounds = histogram.bounds();
    for (std::size_t i = 0; i < bounds.size(); ++i)
        m_out += name + "_bucket" + formatLabels(labels, "le", formatValue(bounds[i])) + " " + std::to_string(counts[i])
            + "\n";
    m_out += name + "_bucket" + formatLabels(labels, "le", "+Inf") + " " + std::to_string(counts.back()) + "\n";
    m_out += name + "_sum" + formatLabels(labels) + " " + formatValue(histogram.sum()) + "\n";
    m_out += name + "_count" + formatLabels(labels) + " " + std::to_string(counts.back()) + "\n";
}

namespace {

// The metric of these labels in a family's slots, made on first use.
template <typename Metric, typename Make>
Metric& slotFor(std::map<std::string, std::pair<MetricLabels, std::unique_ptr<Metric>>>& slots,
    const MetricLabels& labels, Make make)
{
    auto& slot = slots[labelKey(labels)];
    if (!slot.second)
        slot = { labels, make() };
    return *slot.second;
}

} // namespace

MetricsRegistry::Family& MetricsRegistry::familyFor(const std::string& name, const std::string& help)
{
    auto& family = m_families[name];
    if (family.help.empty())
        family.help = help;
    return family;
}

MetricCounter& MetricsRegistry::counter(const std::string& name, const std::string& help, const MetricLabels& labels)
{
    std::lock_guard lock(m_mutex);
    return slotFor(familyFor(name, help).counters, labels, [] { return std::make_unique<MetricCounter>(); });
}

MetricHistogram& MetricsRegistry::histogram(
    const std::string& name, const std::string& help, const MetricLabels& labels, const std::vector<double>& bounds)
{
    std::lock_guard lock(m_mutex);
    return slotFor(familyFor(name, help).histograms, labels, [&] { return std::make_unique<MetricHistogram>(bounds); });
}

void MetricsRegistry::addCollector(Collector collector)
{
    std::lock_guard lock(m_mutex);
    m_collectors.push_back(std::move(collector));
}

std::string MetricsRegistry::render() const
{
    MetricsWriter writer;
    std::vector<Collector> collectors;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [name, family] : m_families) {
            if (!family.counters.empty()) {
                writer.family(name, "counter", family.help);
                for (const auto& [key, entry] : family.counters)
                    writer.sample(name, entry.first, static_cast<double>(entry.second->value()));
            }
            if (!family.histograms.empty()) {
                writer.family(name, "histogram", family.help);
                for (const auto& [key, entry] : family.histograms)
                    writer.histogram(name, entry.first, *entry.second);
            }
        }
        collectors = m_collectors;
    }
    for (const auto& collector : collectors)
        collector(writer);
    return std::move(writer).text();
}

} // namespace shardmap::core

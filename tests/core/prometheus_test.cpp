// The Prometheus text format of core/metrics/prometheus.h (issue 15).
#include "core/metrics/prometheus.h"

#include <gtest/gtest.h>

using namespace shardmap::core;

TEST(Prometheus, CountersWithTheSameLabelsAreOneCounterAndRenderWithTheirFamily)
{
    MetricsRegistry registry;
    registry.counter("x_requests_total", "Requests", { { "method", "Write" } }).add(2);
    registry.counter("x_requests_total", "ignored help", { { "method", "Write" } }).add();
    registry.counter("x_requests_total", "Requests", { { "method", "Search" } }).add(5);
    EXPECT_EQ(registry.render(),
        "# HELP x_requests_total Requests\n"
        "# TYPE x_requests_total counter\n"
        "x_requests_total{method=\"Search\"} 5\n"
        "x_requests_total{method=\"Write\"} 3\n");
}

TEST(Prometheus, LabelValuesAreEscaped)
{
    EXPECT_EQ(escapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    MetricsRegistry registry;
    registry.counter("y_total", "Y", { { "shard", "s\"1" } }).add();
    EXPECT_NE(registry.render().find("y_total{shard=\"s\\\"1\"} 1\n"), std::string::npos) << registry.render();
}

TEST(Prometheus, HistogramsAreCumulativeWithInfSumAndCount)
{
    MetricsRegistry registry;
    auto& histogram = registry.histogram("z_seconds", "Z", { { "method", "Search" } }, { 0.01, 0.1, 1 });
    for (const double value : { 0.005, 0.01, 0.05, 0.5, 3.0 })
        histogram.observe(value);
    EXPECT_EQ(registry.render(),
        "# HELP z_seconds Z\n"
        "# TYPE z_seconds histogram\n"
        "z_seconds_bucket{method=\"Search\",le=\"0.01\"} 2\n"
        "z_seconds_bucket{method=\"Search\",le=\"0.1\"} 3\n"
        "z_seconds_bucket{method=\"Search\",le=\"1\"} 4\n"
        "z_seconds_bucket{method=\"Search\",le=\"+Inf\"} 5\n"
        "z_seconds_sum{method=\"Search\"} 3.565\n"
        "z_seconds_count{method=\"Search\"} 5\n");
}

TEST(Prometheus, CollectorsAddWhatTheyReadAtEachScrape)
{
    MetricsRegistry registry;
    double free = 10;
    registry.addCollector([&](MetricsWriter& out) {
        out.family("disk_free_bytes", "gauge", "Free");
        out.sample("disk_free_bytes", {}, free);
    });
    EXPECT_EQ(registry.render(), "# HELP disk_free_bytes Free\n# TYPE disk_free_bytes gauge\ndisk_free_bytes 10\n");
    free = 2.5;
    EXPECT_NE(registry.render().find("disk_free_bytes 2.5\n"), std::string::npos);
}

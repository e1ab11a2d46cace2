// Measures core/metrics/prometheus.h against Debian 12's prometheus-cpp (prometheus-cpp-dev 1.0.1)
// on what the node does: counter and histogram updates on the request path, one thread and two,
// and rendering 64 shards' families for a scrape (docs/OPERATIONS.md has the figures and the
// decision). Not part of the build, as the project does not depend on prometheus-cpp:
//
//   apt-get install prometheus-cpp-dev
//   g++ -std=c++20 -O2 -DNDEBUG -I. scripts/prometheus_cpp_compare.cpp core/metrics/prometheus.cpp \
//       -lprometheus-cpp-core -lpthread -o /tmp/prometheus_cpp_compare && /tmp/prometheus_cpp_compare
#include "core/metrics/prometheus.h"

#include <chrono>
#include <cstdio>
#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <thread>
#include <vector>
using Clock = std::chrono::steady_clock;
template <class F> double perOpNs(int n, F f)
{
    auto t = Clock::now();
    for (int i = 0; i < n; ++i)
        f(i);
    return std::chrono::duration<double, std::nano>(Clock::now() - t).count() / n;
}
template <class F> double contendedNs(int n, F f)
{
    auto t = Clock::now();
    std::thread a([&] {
        for (int i = 0; i < n; ++i)
            f(i);
    });
    std::thread b([&] {
        for (int i = 0; i < n; ++i)
            f(i);
    });
    a.join();
    b.join();
    return std::chrono::duration<double, std::nano>(Clock::now() - t).count() / (2.0 * n);
}
int main()
{
    const int shards = 64;
    const auto& bounds = shardmap::core::latencyBucketsSeconds();
    shardmap::core::MetricsRegistry ours;
    std::vector<shardmap::core::MetricCounter*> oc;
    std::vector<shardmap::core::MetricHistogram*> oh;
    prometheus::Registry theirs;
    auto& c1 = prometheus::BuildCounter().Name("shardmap_node_searches_total").Help("h").Register(theirs);
    auto& c2 = prometheus::BuildCounter().Name("shardmap_node_writes_applied_total").Help("h").Register(theirs);
    auto& c3 = prometheus::BuildCounter().Name("shardmap_node_docs_indexed_total").Help("h").Register(theirs);
    auto& h1 = prometheus::BuildHistogram().Name("shardmap_node_search_duration_seconds").Help("h").Register(theirs);
    auto& h2 = prometheus::BuildHistogram().Name("shardmap_node_write_duration_seconds").Help("h").Register(theirs);
    std::vector<prometheus::Counter*> tc;
    std::vector<prometheus::Histogram*> th;
    for (int s = 0; s < shards; ++s) {
        std::string id = "s" + std::to_string(s);
        for (auto* n : { "shardmap_node_searches_total", "shardmap_node_writes_applied_total",
                 "shardmap_node_docs_indexed_total" })
            oc.push_back(&ours.counter(n, "h", { { "shard", id } }));
        for (auto* n : { "shardmap_node_search_duration_seconds", "shardmap_node_write_duration_seconds" })
            oh.push_back(&ours.histogram(n, "h", { { "shard", id } }));
        for (auto* f : { &c1, &c2, &c3 })
            tc.push_back(&f->Add({ { "shard", id } }));
        for (auto* f : { &h1, &h2 })
            th.push_back(
                &f->Add({ { "shard", id } }, prometheus::Histogram::BucketBoundaries(bounds.begin(), bounds.end())));
    }
    const int n = 5'000'000;
    std::printf("counter add, 1 thread:   ours %.1f ns, prometheus-cpp %.1f ns\n",
        perOpNs(n, [&](int) { oc[0]->add(); }), perOpNs(n, [&](int) { tc[0]->Increment(); }));
    std::printf("counter add, 2 threads:  ours %.1f ns, prometheus-cpp %.1f ns\n",
        contendedNs(n, [&](int) { oc[0]->add(); }), contendedNs(n, [&](int) { tc[0]->Increment(); }));
    std::printf("histogram observe, 1 thread:  ours %.1f ns, prometheus-cpp %.1f ns\n",
        perOpNs(n, [&](int i) { oh[0]->observe((i % 1000) * 1e-4); }),
        perOpNs(n, [&](int i) { th[0]->Observe((i % 1000) * 1e-4); }));
    std::printf("histogram observe, 2 threads: ours %.1f ns, prometheus-cpp %.1f ns\n",
        contendedNs(n, [&](int i) { oh[0]->observe((i % 1000) * 1e-4); }),
        contendedNs(n, [&](int i) { th[0]->Observe((i % 1000) * 1e-4); }));
    std::size_t bo = 0, bt = 0;
    const int r = 2000;
    double ro = perOpNs(r, [&](int) { bo = ours.render().size(); }) / 1000;
    prometheus::TextSerializer ser;
    double rt = perOpNs(r, [&](int) { bt = ser.Serialize(theirs.Collect()).size(); }) / 1000;
    std::printf("render %d shards (3 counters, 2 histograms of %zu buckets each): ours %.0f us (%zu B), prometheus-cpp "
                "%.0f us (%zu B)\n",
        shards, bounds.size(), ro, bo, rt, bt);
}

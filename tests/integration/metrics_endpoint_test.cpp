// The servers' Prometheus endpoints (--metrics-listen, issue 15), scraped with a real HTTP client
// while a real fleet takes writes and searches and migrates a space.
#include "core/map/shard_map.h"
#include "core/migration/migration_requests.h"
#include "ctl_run.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

// name{labels} -> value, checking the text format as it goes: every sample belongs to a family
// declared by # TYPE before it, and every line is a comment or a sample.
struct Scrape {
    std::map<std::string, double> samples;
    std::map<std::string, std::string> types;
    std::vector<std::string> problems;

    double value(const std::string& key) const
    {
        const auto found = samples.find(key);
        return found == samples.end() ? -1 : found->second;
    }
};

Scrape parse(const std::string& text)
{
    Scrape scrape;
    static const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.e+-]+|\+Inf|NaN)$)");
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("# TYPE ")) {
            std::stringstream words(line.substr(7));
            std::string name;
            std::string type;
            words >> name >> type;
            scrape.types[name] = type;
            continue;
        }
        if (line.starts_with("# HELP ") || line.empty())
            continue;
        std::smatch match;
        if (!std::regex_match(line, match, sample)) {
            scrape.problems.push_back("not a sample: " + line);
            continue;
        }
        std::string family = match[1];
        for (const char* suffix : { "_bucket", "_sum", "_count" }) {
            if (!scrape.types.contains(family) && family.ends_with(suffix))
                family = family.substr(0, family.size() - std::string(suffix).size());
        }
        if (!scrape.types.contains(family))
            scrape.problems.push_back("no # TYPE before " + line);
        scrape.samples[match[1].str() + match[2].str()] = std::stod(match[3].str() == "+Inf" ? "inf" : match[3].str());
    }
    return scrape;
}

// "metrics on http://HOST:PORT/metrics" from the server's log.
std::string metricsAddress(const std::function<std::string()>& stderrText)
{
    std::string address;
    pollUntil(std::chrono::seconds(10), [&] {
        static const std::regex line(R"(metrics on http://([^/ ]+)/metrics)");
        std::smatch match;
        const std::string text = stderrText();
        if (std::regex_search(text, match, line))
            address = match[1];
        return !address.empty();
    });
    return address;
}

Scrape scrape(const std::string& address, std::string& body)
{
    const auto colon = address.rfind(':');
    httplib::Client client(address.substr(0, colon), std::stoi(address.substr(colon + 1)));
    client.set_read_timeout(10, 0);
    auto response = client.Get("/metrics");
    if (!response) {
        ADD_FAILURE() << "GET http://" << address << "/metrics failed: " << httplib::to_string(response.error());
        return {};
    }
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    body = response->body;
    return parse(body);
}

class MetricsEndpointTest : public FleetTest<::testing::Test> { };

} // namespace

TEST_F(MetricsEndpointTest, NodesAndControllersExportWhatTheyDoForPrometheus)
{
    // The fleet's nodes with an endpoint each.
    for (int i = 0; i < 2; ++i) {
        m_dataDirs.push_back(m_dir.file("node" + std::to_string(i)));
        m_nodes.push_back(NodeProcess::start(m_dataDirs.back(), { "--metrics-listen", "127.0.0.1:0" }));
        ASSERT_TRUE(m_nodes.back());
    }
    {
        auto store = core::openStore(storeUri(), true);
        ASSERT_TRUE(store);
        m_store = std::move(*store);
        core::MapEditor editor(*m_store);
        for (int i = 0; i < 2; ++i) {
            ASSERT_TRUE(editor.addNode({ "n" + std::to_string(i), m_nodes[i]->address(), {}, false }, m_actor));
            ASSERT_TRUE((*m_pool.get(m_nodes[i]->address()))->createShard("s" + std::to_string(i), {}));
            ASSERT_TRUE(editor.addShard(
                { "s" + std::to_string(i), "n" + std::to_string(i), core::ShardState::Active, 0, 0 }, m_actor));
        }
    }
    auto controller = ControllerProcess::start(m_dir.file("c1.stderr.log"),
        { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000", "--metrics-listen", "127.0.0.1:0" });
    ASSERT_TRUE(controller);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return controller->leads(); }));

    // Writes and searches through the router, then a migration of the space.
    Workload workload(
        { { "acme" }, 300, 1, 4, 0.0, std::chrono::milliseconds(1), 5 }, { routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    for (int i = 0; i < 5; ++i) {
        grpc::ClientContext context;
        v1::RouterSearchRequest request;
        request.add_spaces("acme");
        request.set_query("body");
        v1::RouterSearchResponse response;
        ASSERT_TRUE(controller->router().Search(&context, request, &response).ok());
    }
    auto map = core::MapSnapshot::decode(*m_store->snapshot());
    const std::string source = map->space("acme")->shard;
    const std::string target = source == "s0" ? "s1" : "s0";
    core::MigrationRequests requests(*m_store, m_pool);
    core::MigrationSettings settings;
    settings.rollbackWindowSeconds = 0;
    ASSERT_TRUE(requests.setSettings(settings, m_actor));
    auto queued = requests.queue("acme", target, m_actor);
    ASSERT_TRUE(queued) << queued.error().describe();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] {
        auto now = core::MapSnapshot::decode(*m_store->snapshot());
        return !now->migrations.at(queued->id).value.active();
    })) << controller->stderrText();
    // A request a node refuses.
    {
        auto stub = m_nodes[0]->channel();
        auto node = v1::Node::NewStub(stub);
        v1::BulkWriteRequest request;
        request.set_shard_id("no-such-shard");
        v1::BulkWriteResponse response;
        EXPECT_FALSE(node->BulkWrite(contextWithDeadline().get(), request, &response).ok());
    }

    // The source node: writes, searches and their latency per shard, disk and process gauges.
    const std::size_t sourceIndex = source == "s0" ? 0 : 1;
    const auto sourceAddress = metricsAddress([&] { return m_nodes[sourceIndex]->stderrText(); });
    ASSERT_FALSE(sourceAddress.empty()) << m_nodes[sourceIndex]->stderrText();
    std::string body;
    const auto node = scrape(sourceAddress, body);
    EXPECT_EQ(node.problems, std::vector<std::string> {}) << body;
    const std::string shard = "{shard=\"" + source + "\"}";
    EXPECT_GE(node.value("shardmap_node_writes_applied_total" + shard), 300) << body;
    EXPECT_GE(node.value("shardmap_node_searches_total" + shard), 5) << body;
    EXPECT_GE(node.value("shardmap_node_search_duration_seconds_count" + shard), 5) << body;
    EXPECT_GE(node.value("shardmap_node_search_duration_seconds_bucket{shard=\"" + source + "\",le=\"+Inf\"}"), 5);
    EXPECT_GT(node.value("shardmap_node_write_duration_seconds_count" + shard), 0) << body;
    EXPECT_EQ(node.value("shardmap_node_shard_healthy" + shard), 1);
    EXPECT_GT(node.value("shardmap_node_disk_free_bytes"), 0);
    EXPECT_GT(node.value("shardmap_node_disk_total_bytes"), node.value("shardmap_node_disk_free_bytes"));
    EXPECT_GT(node.value("shardmap_node_rss_bytes"), 0);
    EXPECT_EQ(node.types.at("shardmap_node_writes_applied_total"), "counter");
    EXPECT_EQ(node.types.at("shardmap_node_search_duration_seconds"), "histogram");
    EXPECT_EQ(node.types.at("shardmap_node_disk_free_bytes"), "gauge");
    // The target has the space's documents now; node 0 counted the refused call.
    const auto targetAddress = metricsAddress([&] { return m_nodes[1 - sourceIndex]->stderrText(); });
    const auto targetNode = scrape(targetAddress, body);
    EXPECT_GE(targetNode.value("shardmap_node_shard_docs{shard=\"" + target + "\"}"), 300) << body;
    const auto first = scrape(metricsAddress([&] { return m_nodes[0]->stderrText(); }), body);
    EXPECT_EQ(first.value("shardmap_node_requests_refused_total{method=\"BulkWrite\",code=\"NOT_FOUND\"}"), 1) << body;

    // The controller: router calls and latency, the lease, the migration's figures.
    const auto controllerAddress = metricsAddress([&] { return controller->stderrText(); });
    ASSERT_FALSE(controllerAddress.empty()) << controller->stderrText();
    const auto ctl = scrape(controllerAddress, body);
    EXPECT_EQ(ctl.problems, std::vector<std::string> {}) << body;
    EXPECT_GE(ctl.value("shardmapd_router_requests_total{method=\"BulkWrite\",code=\"OK\"}"), 1) << body;
    EXPECT_EQ(ctl.value("shardmapd_router_requests_total{method=\"Search\",code=\"OK\"}"), 5) << body;
    EXPECT_EQ(ctl.value("shardmapd_router_request_duration_seconds_count{method=\"Search\"}"), 5);
    EXPECT_GE(ctl.value("shardmapd_router_items_total{outcome=\"applied\"}"), 300);
    EXPECT_EQ(ctl.value("shardmapd_leader"), 1);
    EXPECT_EQ(ctl.value("shardmapd_router_following"), 1);
    // The lease is renewed every third of its 1 s TTL; the run above may have been quicker.
    EXPECT_TRUE(pollUntil(std::chrono::seconds(3), [&] {
        return scrape(controllerAddress, body).value("shardmapd_lease_renewals_total{result=\"ok\"}") > 0;
    })) << body;
    EXPECT_EQ(ctl.value("shardmapd_cutover_write_hold_seconds_count"), 1) << body;
    EXPECT_GE(ctl.value("shardmapd_backfill_docs_total"), 300) << body;
    EXPECT_GT(ctl.value("shardmapd_store_commit_duration_seconds_count"), 3) << body;
    EXPECT_TRUE(pollUntil(std::chrono::seconds(5), [&] {
        return scrape(controllerAddress, body).value("shardmapd_migrations{phase=\"done\"}") == 1;
    })) << body;

    // The sample dashboard and alert rules in packaging/prometheus use only what the servers export.
    std::set<std::string> exported;
    const auto ctlLater = scrape(controllerAddress, body);
    for (const auto* scraped : { &node, &first, &ctlLater }) {
        for (const auto& [name, type] : scraped->types)
            exported.insert(name);
    }
    for (const char* file : { "alerts.yml", "grafana-dashboard.json" }) {
        SCOPED_TRACE(file);
        const std::string text = readWholeFile(std::string(SHARDMAP_SOURCE_DIR) + "/packaging/prometheus/" + file);
        ASSERT_FALSE(text.empty());
        static const std::regex metric(R"(\b(shardmapd?_[a-z_]+)\b)");
        std::size_t used = 0;
        for (auto it = std::sregex_iterator(text.begin(), text.end(), metric); it != std::sregex_iterator(); ++it) {
            std::string name = (*it)[1];
            for (const char* suffix : { "_bucket", "_sum", "_count" }) {
                if (name.ends_with(suffix) && !exported.contains(name))
                    name = name.substr(0, name.size() - std::string(suffix).size());
            }
            EXPECT_TRUE(exported.contains(name)) << name << " is not a metric the servers export";
            ++used;
        }
        EXPECT_GT(used, 10u);
    }
}

TEST_F(MetricsEndpointTest, AnAddressThatCannotBeBoundStopsTheServerWithAClearError)
{
    // Taken by the first node's endpoint.
    auto first = NodeProcess::start(m_dir.file("other"), { "--metrics-listen", "127.0.0.1:0" });
    ASSERT_TRUE(first);
    const auto taken = metricsAddress([&] { return first->stderrText(); });
    ASSERT_FALSE(taken.empty());
    TempDir dir;
    auto second = runProgram(dir,
        { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dir.file("d"), "--metrics-listen", taken }, {},
        "taken");
    EXPECT_EQ(second.code, 1);
    EXPECT_NE(second.err.find("cannot listen for metrics on " + taken), std::string::npos) << second.err;
    auto bad = runProgram(dir,
        { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dir.file("e"), "--metrics-listen", "nonsense" }, {},
        "nonsense");
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("--metrics-listen wants HOST:PORT"), std::string::npos) << bad.err;
}

namespace {

// VmRSS of a process, from /proc/PID/status (kB).
double vmRssBytes(pid_t pid)
{
    std::stringstream status(readWholeFile("/proc/" + std::to_string(pid) + "/status"));
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("VmRSS:"))
            return std::stod(line.substr(6)) * 1024;
    }
    return -1;
}

} // namespace

// Issue 27: the node reported its anonymous pages (3.3 MB) as its resident memory (VmRSS 24.6 MB).
TEST_F(MetricsEndpointTest, TheNodeReportsItsResidentMemoryAsTheKernelCountsIt)
{
    auto node = NodeProcess::start(m_dir.file("rss"), { "--metrics-listen", "127.0.0.1:0" });
    ASSERT_TRUE(node);
    const auto address = metricsAddress([&] { return node->stderrText(); });
    ASSERT_FALSE(address.empty()) << node->stderrText();
    std::string body;
    double reported = 0;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        reported = scrape(address, body).value("shardmap_node_rss_bytes");
        return reported > 0;
    })) << body;
    const double kernel = vmRssBytes(node->process().pid());
    ASSERT_GT(kernel, 0);
    // Both move a little between the sampler's tick and this read; the anonymous pages were a seventh.
    EXPECT_GT(reported, 0.7 * kernel) << "reported " << reported << ", VmRSS " << kernel;
    EXPECT_LT(reported, 1.3 * kernel) << "reported " << reported << ", VmRSS " << kernel;
}

// Issue 27: CPU and IO were per-tick gauges only, which a scrape every 15 s samples one second of;
// as counters, rate() covers the whole window. The version is a label of a build_info family.
class ProcessCountersTest : public MetricsEndpointTest {
protected:
    void SetUp() override
    {
        m_node = NodeProcess::start(m_dir.file("counters"), { "--metrics-listen", "127.0.0.1:0" });
        ASSERT_TRUE(m_node);
        m_controller = ControllerProcess::start(m_dir.file("controller.stderr"),
            { "--store", "sqlite:" + m_dir.file("counters.db"), "--create-store", "--metrics-listen", "127.0.0.1:0" });
        ASSERT_TRUE(m_controller);
    }

    // Each server's family prefix and metrics address.
    std::vector<std::pair<std::string, std::string>> servers()
    {
        return { { "shardmap_node", metricsAddress([&] { return m_node->stderrText(); }) },
            { "shardmapd", metricsAddress([&] { return m_controller->stderrText(); }) } };
    }

    // Counters never go back.
    void expectCounters(const std::vector<std::string>& suffixes)
    {
        for (const auto& [prefix, address] : servers()) {
            SCOPED_TRACE(prefix);
            ASSERT_FALSE(address.empty());
            std::string body;
            const auto first = scrape(address, body);
            EXPECT_EQ(first.problems, std::vector<std::string> {}) << body;
            EXPECT_EQ(first.value(prefix + "_build_info{version=\"" SHARDMAP_VERSION "\"}"), 1) << body;
            for (const auto& suffix : suffixes) {
                const std::string counter = prefix + suffix;
                ASSERT_TRUE(first.types.contains(counter)) << counter << " is not exported:\n" << body;
                EXPECT_EQ(first.types.at(counter), "counter") << counter;
                EXPECT_GE(first.value(counter), 0) << counter;
                const auto second = scrape(address, body);
                EXPECT_GE(second.value(counter), first.value(counter)) << counter;
            }
        }
    }

    std::unique_ptr<NodeProcess> m_node;
    std::unique_ptr<ControllerProcess> m_controller;
};

TEST_F(ProcessCountersTest, BothServersExportTheirVersionAndTheirCpuAsACounter)
{
    expectCounters({ "_cpu_seconds_total" });
    // The first sample lands at the sampler's first tick after the start: until then it reads 0.
    for (const auto& [prefix, address] : servers()) {
        std::string body;
        EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&, &prefix = prefix, &address = address] {
            return scrape(address, body).value(prefix + "_cpu_seconds_total") > 0;
        })) << body;
    }
}

// The servers leave the IO counters out where the kernel does no task IO accounting (no
// /proc/self/io, or one a sandbox will not let the process read): nothing to check there.
TEST_F(ProcessCountersTest, BothServersExportTheirIoAsCountersWhereTheKernelAccountsIt)
{
    if (readWholeFile("/proc/self/io").empty())
        GTEST_SKIP() << "this kernel does no task IO accounting (/proc/self/io cannot be read), so the servers "
                        "export no IO counters";
    expectCounters({ "_io_read_bytes_total", "_io_write_bytes_total" });
}

// shardmap_node_shard_info says each open shard's engine, for breaking the per-shard figures down
// by engine (issue 29).
TEST_F(MetricsEndpointTest, EachShardIsLabelledWithItsEngine)
{
    m_dataDirs.push_back(m_dir.file("node0"));
    m_nodes.push_back(NodeProcess::start(m_dataDirs.back(), { "--metrics-listen", "127.0.0.1:0" }));
    ASSERT_TRUE(m_nodes.back());
    auto client = m_pool.get(m_nodes.back()->address());
    ASSERT_TRUE(client);
    ASSERT_TRUE((*client)->createShard("s-fts5", {}, core::IndexEngine::Fts5));
    ASSERT_TRUE((*client)->createShard("s-xapian", {}, core::IndexEngine::Xapian));

    std::string body;
    const auto node = scrape(metricsAddress([&] { return m_nodes.back()->stderrText(); }), body);
    EXPECT_EQ(node.problems, std::vector<std::string> {}) << body;
    EXPECT_EQ(node.types.at("shardmap_node_shard_info"), "gauge");
    EXPECT_EQ(node.value("shardmap_node_shard_info{shard=\"s-fts5\",engine=\"fts5\"}"), 1) << body;
    EXPECT_EQ(node.value("shardmap_node_shard_info{shard=\"s-xapian\",engine=\"xapian\"}"), 1) << body;
}

// Process-level behaviour of shardmap-node: flags, restarts, crashes, corrupt files, full disks.
#include "core/client/node_client.h"
#include "node_test_helpers.h"
#include "tests/support/controller_process.h"
#include "tests/support/small_filesystem.h"

#include <atomic>
#include <csignal>
#include <fstream>
#include <map>
#include <sqlite3.h>
#include <thread>
#include <unistd.h>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

std::string integrityCheck(const std::string& path)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr);
    std::string result
        = sqlite3_step(stmt) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)) : "no row";
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return result;
}

std::pair<int, std::string> runNode(const std::vector<std::string>& args, const TempDir& dir)
{
    std::vector<std::string> argv { nodeBinary() };
    argv.insert(argv.end(), args.begin(), args.end());
    auto child = ChildProcess::spawn(argv, dir.file("run.stderr"));
    EXPECT_TRUE(child);
    std::string out;
    while (auto line = child->readLine(std::chrono::seconds(10)))
        out += *line + "\n";
    const int code = child->wait(std::chrono::seconds(10)).value_or(-1);
    return { code, out + readWholeFile(dir.file("run.stderr")) };
}

} // namespace

TEST(NodeProcessTest, HelpListsTheFlags)
{
    TempDir dir;
    const auto [code, text] = runNode({ "--help" }, dir);
    EXPECT_EQ(code, 0);
    for (const char* flag :
        { "--listen", "--data-dir", "--node-id", "--tls-cert", "--tls-key", "--tls-ca", "--insecure" })
        EXPECT_NE(text.find(flag), std::string::npos) << flag;
}

TEST(NodeProcessTest, RefusesNonLoopbackWithoutTlsAndSaysSo)
{
    TempDir dir;
    const auto [code, text] = runNode({ "--listen", "0.0.0.0:0", "--data-dir", dir.file("d") }, dir);
    EXPECT_NE(code, 0);
    EXPECT_NE(text.find("without TLS"), std::string::npos) << text;
    EXPECT_NE(text.find("--insecure"), std::string::npos) << text;
}

TEST(NodeProcessTest, InsecureAllowsNonLoopback)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("d"), { "--listen", "0.0.0.0:0", "--insecure" });
    ASSERT_TRUE(node);
    EXPECT_TRUE(node->address().starts_with("0.0.0.0:"));
    EXPECT_EQ(node->stop(), 0);
}

TEST(NodeProcessTest, SecondNodeOnTheSameDataDirIsRefused)
{
    TempDir dir;
    auto first = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(first);
    const auto [code, text] = runNode({ "--listen", "127.0.0.1:0", "--data-dir", dir.file("d") }, dir);
    EXPECT_NE(code, 0);
    EXPECT_NE(text.find("another process is using this data directory"), std::string::npos) << text;
}

TEST(NodeProcessTest, SigtermExitsCleanlyAndDataSurvivesRestart)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 3).ok());
    v1::BulkWriteResponse response;
    ASSERT_TRUE(bulkWrite(node->stub(), "s1", { makeDoc("acme", "a", 1, "durable words") }, 3, &response).ok());
    EXPECT_EQ(node->stop(), 0);
    EXPECT_NE(node->stderrText().find("stopped cleanly"), std::string::npos);
    // A checkpoint at shutdown leaves an empty WAL.
    std::error_code error;
    const auto walSize = std::filesystem::file_size(dir.file("d/shards/s1.db-wal"), error);
    EXPECT_TRUE(error || walSize == 0);

    auto again = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(again);
    v1::SearchResponse result;
    ASSERT_TRUE(search(again->stub(), "s1", { "acme" }, "durable", &result).ok());
    EXPECT_EQ(result.hits_size(), 1);
    EXPECT_EQ(spaceStats(again->stub(), "s1", "acme").live_docs(), 1u);
    auto staleAfterRestart = bulkWrite(again->stub(), "s1", { makeDoc("acme", "b", 1, "x") }, 2, &response);
    EXPECT_EQ(staleAfterRestart.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << "ownership persisted";
}

TEST(NodeProcessTest, SigtermFinishesTheBatchInFlight)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    std::vector<v1::Document> docs;
    for (int i = 0; i < 8000; ++i)
        docs.push_back(
            makeDoc("acme", "d" + std::to_string(i), 1, "a batch large enough to be in flight " + std::to_string(i)));
    v1::BulkWriteResponse response;
    grpc::Status status;
    std::thread writer([&] { status = bulkWrite(node->stub(), "s1", docs, 1, &response); });
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    node->process().signal(SIGTERM);
    writer.join();
    EXPECT_EQ(node->process().wait(std::chrono::seconds(30)).value_or(-1), 0);
    auto again = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(again);
    const auto live = spaceStats(again->stub(), "s1", "acme").live_docs();
    if (status.ok()) {
        EXPECT_EQ(response.applied(), 8000u);
        EXPECT_EQ(live, 8000u) << "an acknowledged batch is wholly there";
    } else {
        EXPECT_TRUE(live == 0 || live == 8000) << "never half a batch; got " << live;
    }
}

TEST(NodeProcessTest, KillNineDuringWritesLeavesWholeBatchesAndAHealthyFile)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    constexpr int kBatchSize = 250;
    std::atomic<int> acknowledged { 0 };
    std::atomic<bool> stop { false };
    std::vector<std::thread> writers;
    for (int w = 0; w < 3; ++w) {
        writers.emplace_back([&, w] {
            for (int b = 0; !stop; ++b) {
                std::vector<v1::Document> docs;
                const std::string batch = "w" + std::to_string(w) + "b" + std::to_string(b);
                for (int i = 0; i < kBatchSize; ++i) {
                    auto doc = makeDoc("acme", batch + "-" + std::to_string(i), 1, "payload " + std::string(400, 'p'));
                    (*doc.mutable_fields())["batch"] = batch;
                    docs.push_back(doc);
                }
                v1::BulkWriteResponse response;
                if (!bulkWrite(node->stub(), "s1", docs, 1, &response).ok())
                    return;
                ++acknowledged;
            }
        });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    node->kill9();
    stop = true;
    for (auto& writer : writers)
        writer.join();
    ASSERT_GT(acknowledged.load(), 0);
    EXPECT_EQ(integrityCheck(dir.file("d/shards/s1.db")), "ok");

    auto again = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(again);
    std::map<std::string, int> perBatch;
    for (const auto& doc : scanAll(again->stub(), "s1", "acme", false, 2000))
        ++perBatch[doc.fields().at("batch")];
    for (const auto& [batch, count] : perBatch)
        EXPECT_EQ(count, kBatchSize) << "batch " << batch << " is partly there";
    EXPECT_GE(perBatch.size(), static_cast<std::size_t>(acknowledged.load())) << "an acknowledged batch was lost";
    const auto stats = spaceStats(again->stub(), "s1", "acme");
    EXPECT_EQ(stats.live_docs(), perBatch.size() * kBatchSize) << "aggregates agree with the documents";
    EXPECT_EQ(again->stop(), 0);
    EXPECT_EQ(integrityCheck(dir.file("d/shards/s1.db")), "ok");
}

TEST(NodeProcessTest, CorruptShardIsMarkedFailedWhileOthersServe)
{
    TempDir dir;
    {
        auto node = NodeProcess::start(dir.file("d"));
        ASSERT_TRUE(node);
        for (const char* shard : { "good", "bad" }) {
            ASSERT_TRUE(createShard(node->stub(), shard).ok());
            ASSERT_TRUE(setOwner(node->stub(), shard, "acme", 1).ok());
            v1::BulkWriteResponse response;
            ASSERT_TRUE(bulkWrite(node->stub(), shard, { makeDoc("acme", "a", 1, "still here") }, 1, &response).ok());
        }
        ASSERT_EQ(node->stop(), 0);
    }
    {
        std::fstream file(dir.file("d/shards/bad.db"), std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(0);
        const std::string garbage(4096, '\x13');
        file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    }
    auto node = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(node);
    EXPECT_NE(node->stderrText().find("shard bad failed to open"), std::string::npos);
    v1::ListShardsResponse list;
    ASSERT_TRUE(node->stub().ListShards(contextWithDeadline().get(), {}, &list).ok());
    ASSERT_EQ(list.shards_size(), 2);
    EXPECT_EQ(list.shards(0).shard_id(), "bad");
    EXPECT_EQ(list.shards(0).health(), v1::SHARD_HEALTH_FAILED);
    EXPECT_FALSE(list.shards(0).error().empty());
    EXPECT_EQ(list.shards(1).health(), v1::SHARD_HEALTH_OK);

    v1::SearchResponse result;
    ASSERT_TRUE(search(node->stub(), "good", { "acme" }, "still", &result).ok());
    EXPECT_EQ(result.hits_size(), 1);
    auto refused = search(node->stub(), "bad", { "acme" }, "still", &result);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(refused.error_message().find("failed to open"), std::string::npos);

    auto health = grpc::health::v1::Health::NewStub(node->channel());
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    request.set_service("shardmap.v1.Node/shard/bad");
    ASSERT_TRUE(health->Check(contextWithDeadline().get(), request, &response).ok());
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::NOT_SERVING);
    request.set_service("shardmap.v1.Node/shard/good");
    ASSERT_TRUE(health->Check(contextWithDeadline().get(), request, &response).ok());
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);

    v1::NodeMetrics metrics;
    ASSERT_TRUE(node->stub().GetMetrics(contextWithDeadline().get(), {}, &metrics).ok());
    ASSERT_EQ(metrics.shards_size(), 2);
    EXPECT_EQ(metrics.shards(0).health(), v1::SHARD_HEALTH_FAILED);
}

TEST(NodeProcessTest, FullShardIsResourceExhaustedWithNothingHalfWritten)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("d"), { "--shard-max-bytes", "393216" });
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    v1::BulkWriteResponse response;
    ASSERT_TRUE(bulkWrite(node->stub(), "s1", { makeDoc("acme", "first", 1, "kept") }, 1, &response).ok());
    std::vector<v1::Document> docs;
    for (int i = 0; i < 300; ++i)
        docs.push_back(makeDoc(
            "acme", "big" + std::to_string(i), 1, std::string(3000, static_cast<char>('a' + i % 26)) + " overflow"));
    auto full = bulkWrite(node->stub(), "s1", docs, 1, &response);
    ASSERT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << full.error_message();
    EXPECT_EQ(spaceStats(node->stub(), "s1", "acme").live_docs(), 1u);
    EXPECT_EQ(scanAll(node->stub(), "s1", "acme").size(), 1u);
    v1::SearchResponse result;
    ASSERT_TRUE(search(node->stub(), "s1", { "acme" }, "overflow", &result).ok());
    EXPECT_EQ(result.hits_size(), 0);
}

TEST(NodeProcessTest, DiskReserveRefusesWritesBeforeTheDiskIsFull)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("d"), { "--min-free-bytes", "18446744073709551615" });
    ASSERT_TRUE(node);
    auto create = createShard(node->stub(), "s1");
    EXPECT_EQ(create.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(create.error_message().find("in reserve"), std::string::npos) << create.error_message();
}

TEST(NodeProcessTest, FullFilesystemIsResourceExhaustedAndWritesResumeWhenSpaceReturns)
{
    TempDir dir;
    SmallFilesystem fs(dir.file("small"));
    if (!fs.mounted())
        GTEST_SKIP() << "needs root to mount a 4 MiB tmpfs; the capped-shard test covers SQLITE_FULL without it";
    // Filler takes most of the space so the shard runs out quickly; deleting it frees space again.
    {
        std::ofstream filler(dir.file("small/filler"), std::ios::binary);
        const std::string block(1 << 20, 'f');
        for (int i = 0; i < 2; ++i)
            filler.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
    auto node = NodeProcess::start(dir.file("small/d"));
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    std::map<std::string, int> acknowledged;
    grpc::Status status;
    for (int b = 0; b < 200 && status.ok(); ++b) {
        std::vector<v1::Document> docs;
        const std::string batch = "b" + std::to_string(b);
        for (int i = 0; i < 40; ++i) {
            auto doc = makeDoc(
                "acme", batch + "-" + std::to_string(i), 1, std::string(900, static_cast<char>('a' + i % 26)));
            (*doc.mutable_fields())["batch"] = batch;
            docs.push_back(doc);
        }
        v1::BulkWriteResponse response;
        status = bulkWrite(node->stub(), "s1", docs, 1, &response);
        if (status.ok())
            acknowledged[batch] = 40;
    }
    ASSERT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
    ASSERT_FALSE(acknowledged.empty());
    std::map<std::string, int> stored;
    for (const auto& doc : scanAll(node->stub(), "s1", "acme", false, 1000))
        ++stored[doc.fields().at("batch")];
    EXPECT_EQ(stored, acknowledged) << "every acknowledged batch is whole and nothing else is there";

    std::filesystem::remove(dir.file("small/filler"));
    v1::BulkWriteResponse response;
    auto resumed = bulkWrite(node->stub(), "s1", { makeDoc("acme", "after", 1, "space again") }, 1, &response);
    EXPECT_TRUE(resumed.ok()) << resumed.error_message();
    EXPECT_EQ(node->stop(), 0);
    EXPECT_EQ(integrityCheck(dir.file("small/d/shards/s1.db")), "ok");
}

// Issue 14, defect 3: a node that stops answering (SIGSTOP, as a black-holed host) fails a
// long-running stream within the client's keepalive instead of hanging its caller until the
// stream's deadline (an hour for an unbounded drop). The node is resumed afterwards.
TEST(NodeProcessTest, AStalledNodeFailsALongStreamWithinTheKeepalive)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("d"));
    ASSERT_TRUE(node);
    shardmap::core::NodeClientOptions options;
    options.keepaliveTime = std::chrono::milliseconds(500);
    options.keepaliveTimeout = std::chrono::milliseconds(1000);
    auto client = shardmap::core::GrpcNodeClient::connect(node->address(), options);
    ASSERT_TRUE(client);
    ASSERT_TRUE((*client)->createShard("s1", {}));
    std::vector<shardmap::core::WriteItem> items;
    for (int i = 0; i < 2000; ++i)
        items.push_back(
            { shardmap::core::Document { "acme", "d" + std::to_string(i), 1, { { "body", "x" } }, false }, 2 });
    ASSERT_TRUE((*client)->setOwnership("s1", { "acme", shardmap::core::SpaceRole::Owner, 2 }));
    ASSERT_TRUE((*client)->bulkWrite("s1", items));
    ASSERT_TRUE((*client)->setOwnership("s1", { "acme", shardmap::core::SpaceRole::Fenced, 3 }));

    std::atomic<bool> returned { false };
    shardmap::core::Result<shardmap::core::DropProgress> result = shardmap::core::DropProgress {};
    std::thread dropper([&] {
        // 2,000 rows at 20 rows/s and no row limit: the call alone would last for minutes.
        result = (*client)->dropSpace("s1", "acme", 3, 20, 0);
        returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    node->process().signal(SIGSTOP);
    const auto stopped = std::chrono::steady_clock::now();
    const bool failedInTime = pollUntil(std::chrono::seconds(10), [&] { return returned.load(); });
    const auto waited = std::chrono::steady_clock::now() - stopped;
    node->process().signal(SIGCONT);
    dropper.join();
    ASSERT_TRUE(failedInTime) << "the stream hung on a stopped node";
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, shardmap::core::ErrorCode::Unavailable) << result.error().describe();
    EXPECT_LT(waited, std::chrono::seconds(10));
}

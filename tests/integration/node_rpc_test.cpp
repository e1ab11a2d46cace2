// Every RPC of shardmap.v1.Node against a real shardmap-node process, and its bad inputs.
#include "node_test_helpers.h"

#include <grpcpp/generic/generic_stub.h>
#include <thread>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

class NodeRpcTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_node = NodeProcess::start(m_dir.file("data"), { "--metrics-tick-ms", "200", "--history-interval-ms", "300" });
        ASSERT_TRUE(m_node);
        ASSERT_TRUE(createShard(stub(), "s1").ok());
        ASSERT_TRUE(setOwner(stub(), "s1", "acme", 1).ok());
    }

    v1::Node::Stub& stub() { return m_node->stub(); }

    TempDir m_dir;
    std::unique_ptr<NodeProcess> m_node;
};

} // namespace

TEST_F(NodeRpcTest, NodeInfoReportsIdentity)
{
    v1::NodeInfo info;
    ASSERT_TRUE(stub().GetNodeInfo(contextWithDeadline().get(), {}, &info).ok());
    EXPECT_EQ(info.node_id(), "test-node");
    EXPECT_EQ(info.listen_address(), m_node->address());
    EXPECT_GT(info.started_unix_ms(), 0);
    EXPECT_FALSE(info.version().empty());
}

TEST_F(NodeRpcTest, ShardsAreCreatedListedAndDropped)
{
    v1::CreateShardRequest create;
    create.set_shard_id("s2");
    create.add_fields("name");
    create.add_fields("content");
    v1::ShardInfo info;
    ASSERT_TRUE(stub().CreateShard(contextWithDeadline().get(), create, &info).ok());
    EXPECT_EQ(info.fields_size(), 2);
    EXPECT_EQ(info.health(), v1::SHARD_HEALTH_OK);
    auto again = stub().CreateShard(contextWithDeadline().get(), create, &info);
    EXPECT_EQ(again.error_code(), grpc::StatusCode::ALREADY_EXISTS);

    v1::ListShardsResponse list;
    ASSERT_TRUE(stub().ListShards(contextWithDeadline().get(), {}, &list).ok());
    ASSERT_EQ(list.shards_size(), 2);
    EXPECT_EQ(list.shards(1).shard_id(), "s2");
    EXPECT_GT(list.shards(1).bytes_on_disk(), 0u);

    v1::DropShardRequest drop;
    drop.set_shard_id("s2");
    v1::DropShardResponse dropped;
    ASSERT_TRUE(stub().DropShard(contextWithDeadline().get(), drop, &dropped).ok());
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("data/shards/s2.db")));
    EXPECT_EQ(stub().DropShard(contextWithDeadline().get(), drop, &dropped).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(NodeRpcTest, ShardsAreMadeWithTheEngineAskedAndSayWhichInListAndMetrics)
{
    for (const char* engine : { "fts5", "xapian" }) {
        v1::CreateShardRequest create;
        create.set_shard_id(std::string("e-") + engine);
        create.set_engine(engine);
        v1::ShardInfo info;
        ASSERT_TRUE(stub().CreateShard(contextWithDeadline().get(), create, &info).ok()) << engine;
        EXPECT_EQ(info.engine(), engine) << "the engine the node made the shard with";
    }
    // s1 was asked for without an engine, as clients older than engines do: FTS5.
    v1::ListShardsResponse list;
    ASSERT_TRUE(stub().ListShards(contextWithDeadline().get(), {}, &list).ok());
    std::map<std::string, std::string> listed;
    for (const auto& shard : list.shards())
        listed[shard.shard_id()] = shard.engine();
    EXPECT_EQ(listed,
        (std::map<std::string, std::string> { { "e-fts5", "fts5" }, { "e-xapian", "xapian" }, { "s1", "fts5" } }));
    v1::NodeMetrics metrics;
    ASSERT_TRUE(stub().GetMetrics(contextWithDeadline().get(), {}, &metrics).ok());
    std::map<std::string, std::string> measured;
    for (const auto& shard : metrics.shards())
        measured[shard.shard_id()] = shard.engine();
    EXPECT_EQ(measured, listed);
}

// A CreateShard that names no engine (a client older than engines) gets the node's --default-engine.
TEST(NodeDefaultEngine, ACreateShardNamingNoEngineGetsTheNodesDefault)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("data"), { "--default-engine", "xapian" });
    ASSERT_TRUE(node);
    v1::CreateShardRequest create;
    create.set_shard_id("s1");
    v1::ShardInfo info;
    ASSERT_TRUE(node->stub().CreateShard(contextWithDeadline().get(), create, &info).ok());
    EXPECT_EQ(info.engine(), "xapian");
    create.set_shard_id("s2");
    create.set_engine("fts5");
    ASSERT_TRUE(node->stub().CreateShard(contextWithDeadline().get(), create, &info).ok());
    EXPECT_EQ(info.engine(), "fts5") << "a named engine wins over the node's default";
}

// A search that runs past the node's --search-budget-ms is stopped with RESOURCE_EXHAUSTED and a
// sentence that says what to do; the node goes on answering (issue 29, bad input: a query that
// scores every row of a large space).
TEST(NodeSearchBudget, ASearchPastTheBudgetIsStoppedAndTheNodeGoesOnAnswering)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("data"), { "--search-budget-ms", "1" });
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    for (int batch = 0; batch < 20; ++batch) {
        std::vector<v1::Document> docs;
        for (int i = 0; i < 1000; ++i) {
            const int n = batch * 1000 + i;
            docs.push_back(makeDoc("acme", "d" + std::to_string(n), 1,
                "common words in every document, and word" + std::to_string(n) + " alone"));
        }
        v1::BulkWriteResponse written;
        ASSERT_TRUE(bulkWrite(node->stub(), "s1", docs, 1, &written).ok());
    }
    v1::SearchResponse found;
    const auto stopped = search(node->stub(), "s1", { "acme" }, "common OR every OR words", &found);
    EXPECT_EQ(stopped.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << stopped.error_message();
    EXPECT_NE(stopped.error_message().find("search budget of 1 ms"), std::string::npos) << stopped.error_message();
    v1::NodeMetrics metrics;
    EXPECT_TRUE(node->stub().GetMetrics(contextWithDeadline().get(), {}, &metrics).ok());
    EXPECT_EQ(spaceStats(node->stub(), "s1", "acme").live_docs(), 20000u) << "nothing lost";
}

TEST_F(NodeRpcTest, AnUnknownEngineIsRefusedAndMakesNoShard)
{
    v1::CreateShardRequest create;
    create.set_shard_id("s2");
    create.set_engine("lucene");
    v1::ShardInfo info;
    const auto refused = stub().CreateShard(contextWithDeadline().get(), create, &info);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(refused.error_message(), "unknown index engine 'lucene' (the engines are fts5, xapian)");
    v1::ListShardsResponse list;
    ASSERT_TRUE(stub().ListShards(contextWithDeadline().get(), {}, &list).ok());
    EXPECT_EQ(list.shards_size(), 1);
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("data/shards/s2.db")));
}

TEST_F(NodeRpcTest, DropShardIsRefusedWhileItHoldsDataUnlessForced)
{
    v1::BulkWriteResponse written;
    ASSERT_TRUE(bulkWrite(stub(), "s1", { makeDoc("acme", "d1", 1, "x") }, 1, &written).ok());
    v1::DropShardRequest drop;
    drop.set_shard_id("s1");
    v1::DropShardResponse dropped;
    auto refused = stub().DropShard(contextWithDeadline().get(), drop, &dropped);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(refused.error_message().find("holds 1 documents"), std::string::npos) << refused.error_message();
    drop.set_force(true);
    EXPECT_TRUE(stub().DropShard(contextWithDeadline().get(), drop, &dropped).ok());
}

TEST_F(NodeRpcTest, OwnershipIsSetAndRead)
{
    ASSERT_TRUE(setOwner(stub(), "s1", "globex", 4, v1::SPACE_ROLE_MIGRATION_TARGET).ok());
    v1::GetOwnershipRequest request;
    request.set_shard_id("s1");
    v1::GetOwnershipResponse response;
    ASSERT_TRUE(stub().GetOwnership(contextWithDeadline().get(), request, &response).ok());
    ASSERT_EQ(response.ownerships_size(), 2);
    EXPECT_EQ(response.ownerships(1).space(), "globex");
    EXPECT_EQ(response.ownerships(1).role(), v1::SPACE_ROLE_MIGRATION_TARGET);
    EXPECT_EQ(response.ownerships(1).epoch(), 4u);
    EXPECT_EQ(setOwner(stub(), "s1", "globex", 3).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(NodeRpcTest, BulkWriteReportsPerItemOutcomes)
{
    v1::BulkWriteResponse response;
    ASSERT_TRUE(
        bulkWrite(stub(), "s1", { makeDoc("acme", "a", 2, "x"), makeDoc("acme", "b", 1, "y") }, 1, &response).ok());
    EXPECT_EQ(response.applied(), 2u);
    v1::Document bad = makeDoc("acme", "c", 1, "z");
    (*bad.mutable_fields())["Bad-Field"] = "v";
    ASSERT_TRUE(
        bulkWrite(stub(), "s1", { makeDoc("acme", "a", 1, "old"), bad, makeTombstone("acme", "b", 5) }, 1, &response)
            .ok());
    ASSERT_EQ(response.results_size(), 3);
    EXPECT_EQ(response.results(0).outcome(), v1::WRITE_OUTCOME_STALE);
    EXPECT_EQ(response.results(0).stored_version(), 2u);
    EXPECT_EQ(response.results(1).outcome(), v1::WRITE_OUTCOME_REJECTED);
    EXPECT_NE(response.results(1).reason().find("Bad-Field"), std::string::npos);
    EXPECT_EQ(response.results(2).outcome(), v1::WRITE_OUTCOME_APPLIED);
    const auto stats = spaceStats(stub(), "s1", "acme");
    EXPECT_EQ(stats.live_docs(), 1u);
    EXPECT_EQ(stats.tombstones(), 1u);
    EXPECT_NE(stats.checksum(), 0u);
}

TEST_F(NodeRpcTest, StaleEpochIsFailedPreconditionWithTheHeldEpoch)
{
    ASSERT_TRUE(setOwner(stub(), "s1", "acme", 7).ok());
    v1::BulkWriteResponse response;
    auto status = bulkWrite(stub(), "s1", { makeDoc("acme", "a", 1, "x") }, 6, &response);
    ASSERT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    v1::EpochMismatch mismatch;
    ASSERT_TRUE(mismatch.ParseFromString(status.error_details()));
    EXPECT_EQ(mismatch.space(), "acme");
    EXPECT_EQ(mismatch.held_epoch(), 7u);
    EXPECT_EQ(mismatch.sent_epoch(), 6u);
    EXPECT_EQ(mismatch.held_role(), v1::SPACE_ROLE_OWNER);
    auto unknown = bulkWrite(stub(), "s1", { makeDoc("stranger", "a", 1, "x") }, 1, &response);
    ASSERT_EQ(unknown.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    ASSERT_TRUE(mismatch.ParseFromString(unknown.error_details()));
    EXPECT_EQ(mismatch.held_epoch(), 0u);
    EXPECT_EQ(spaceStats(stub(), "s1", "acme").live_docs(), 0u);
}

TEST_F(NodeRpcTest, SearchRanksMarksAndPages)
{
    v1::BulkWriteResponse response;
    ASSERT_TRUE(bulkWrite(stub(), "s1",
        { makeDoc("acme", "a", 1, "update the server update now", "Update"),
            makeDoc("acme", "b", 1, "an update", "Other"), makeDoc("acme", "c", 1, "upgrade path", "Upgrade") },
        1, &response)
                    .ok());
    v1::SearchResponse result;
    ASSERT_TRUE(search(stub(), "s1", { "acme" }, "update", &result).ok());
    ASSERT_EQ(result.hits_size(), 2);
    EXPECT_EQ(result.hits(0).id(), "a") << "the document with more matches ranks first";
    EXPECT_LT(result.hits(0).score(), result.hits(1).score());
    EXPECT_NE(result.hits(0).snippet().find("[[update]]"), std::string::npos) << result.hits(0).snippet();
    EXPECT_EQ(result.hits(0).version(), 1u);
    ASSERT_TRUE(search(stub(), "s1", { "acme" }, "up*", &result).ok());
    EXPECT_EQ(result.hits_size(), 3);
    ASSERT_TRUE(search(stub(), "s1", { "acme" }, "upg*", &result).ok());
    EXPECT_EQ(result.hits_size(), 1);
    ASSERT_TRUE(search(stub(), "s1", { "acme" }, "title:upgrade OR \"an update\"", &result).ok());
    EXPECT_EQ(result.hits_size(), 2);
    ASSERT_TRUE(search(stub(), "s1", { "acme" }, "update NOT server", &result).ok());
    ASSERT_EQ(result.hits_size(), 1);
    EXPECT_EQ(result.hits(0).id(), "b");
    v1::SearchRequest paged;
    paged.set_shard_id("s1");
    paged.add_spaces("acme");
    paged.set_query("up*");
    paged.set_limit(2);
    paged.set_offset(2);
    ASSERT_TRUE(stub().Search(contextWithDeadline().get(), paged, &result).ok());
    EXPECT_EQ(result.hits_size(), 1);
}

TEST_F(NodeRpcTest, ScanStreamsEveryDocumentInIdOrder)
{
    std::vector<v1::Document> docs;
    for (int i = 0; i < 1234; ++i)
        docs.push_back(makeDoc("acme", "doc-" + std::to_string(100000 + i), 1, "body " + std::to_string(i)));
    v1::BulkWriteResponse response;
    ASSERT_TRUE(bulkWrite(stub(), "s1", docs, 1, &response).ok());
    ASSERT_TRUE(bulkWrite(stub(), "s1", { makeTombstone("acme", "doc-100010", 2) }, 1, &response).ok());
    const auto scanned = scanAll(stub(), "s1", "acme", false, 100);
    ASSERT_EQ(scanned.size(), 1233u);
    EXPECT_EQ(scanned.front().id(), "doc-100000");
    EXPECT_EQ(scanned.front().fields().at("body"), "body 0");
    for (std::size_t i = 1; i < scanned.size(); ++i)
        ASSERT_LT(scanned[i - 1].id(), scanned[i].id());
    EXPECT_EQ(scanAll(stub(), "s1", "acme", true, 500).size(), 1234u);

    v1::ScanRequest resume;
    resume.set_shard_id("s1");
    resume.set_space("acme");
    resume.set_after_id("doc-101000");
    resume.set_max_docs(10);
    auto context = contextWithDeadline();
    auto reader = stub().Scan(context.get(), resume);
    v1::ScanBatch batch;
    ASSERT_TRUE(reader->Read(&batch));
    EXPECT_EQ(batch.docs(0).id(), "doc-101001");
    EXPECT_EQ(batch.docs_size(), 10);
    EXPECT_EQ(batch.cursor(), "doc-101010");
    EXPECT_FALSE(reader->Read(&batch));
    EXPECT_TRUE(reader->Finish().ok());
}

TEST_F(NodeRpcTest, DropSpaceStreamsProgressAndThrottles)
{
    std::vector<v1::Document> docs;
    for (int i = 0; i < 500; ++i)
        docs.push_back(makeDoc("acme", "d" + std::to_string(i), 1, "bye"));
    v1::BulkWriteResponse response;
    ASSERT_TRUE(bulkWrite(stub(), "s1", docs, 1, &response).ok());
    v1::DropSpaceRequest request;
    request.set_shard_id("s1");
    request.set_space("acme");
    request.set_batch_size(100);
    request.set_max_rows_per_second(1000);
    // Refused without the epoch the space is fenced at, and while it is owned here (issue 14).
    const auto refused = [&](v1::DropSpaceRequest r) {
        auto ctx = contextWithDeadline();
        auto stream = stub().DropSpace(ctx.get(), r);
        v1::DropSpaceProgress ignored;
        while (stream->Read(&ignored)) { }
        return stream->Finish().error_code();
    };
    EXPECT_EQ(refused(request), grpc::StatusCode::INVALID_ARGUMENT);
    request.set_epoch(1);
    EXPECT_EQ(refused(request), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_EQ(spaceStats(stub(), "s1", "acme").live_docs(), 500u);
    ASSERT_TRUE(setOwner(stub(), "s1", "acme", 2, v1::SPACE_ROLE_FENCED).ok());
    request.set_epoch(2);
    auto context = contextWithDeadline();
    const auto started = std::chrono::steady_clock::now();
    auto reader = stub().DropSpace(context.get(), request);
    v1::DropSpaceProgress progress;
    std::vector<std::uint64_t> steps;
    while (reader->Read(&progress)) {
        steps.push_back(progress.deleted());
        EXPECT_EQ(progress.total(), 500u);
    }
    ASSERT_TRUE(reader->Finish().ok());
    const auto elapsed = std::chrono::steady_clock::now() - started;
    ASSERT_GE(steps.size(), 5u);
    EXPECT_EQ(steps.back(), 500u);
    EXPECT_TRUE(progress.done());
    // 500 rows at 1000 rows/s: the pacing keeps it from finishing in one burst.
    EXPECT_GE(elapsed, std::chrono::milliseconds(350));
    EXPECT_EQ(spaceStats(stub(), "s1", "acme").live_docs(), 0u);
}

TEST_F(NodeRpcTest, MetricsAreRealAndHistoryAccumulates)
{
    std::vector<v1::Document> docs;
    for (int i = 0; i < 300; ++i)
        docs.push_back(makeDoc("acme", "m" + std::to_string(i), 1, "metric words here"));
    v1::BulkWriteResponse response;
    ASSERT_TRUE(bulkWrite(stub(), "s1", docs, 1, &response).ok());
    for (int i = 0; i < 20; ++i) {
        v1::SearchResponse result;
        ASSERT_TRUE(search(stub(), "s1", { "acme" }, "metric", &result).ok());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(900));

    v1::GetMetricsRequest request;
    request.set_include_spaces(true);
    v1::NodeMetrics metrics;
    ASSERT_TRUE(stub().GetMetrics(contextWithDeadline().get(), request, &metrics).ok());
    EXPECT_GT(metrics.rss_bytes(), 1u << 20);
    EXPECT_GT(metrics.disk_total_bytes(), 0u);
    EXPECT_GT(metrics.sqlite_memory_bytes(), 0u);
    ASSERT_EQ(metrics.shards_size(), 1);
    const auto& shard = metrics.shards(0);
    EXPECT_EQ(shard.live_docs(), 300u);
    EXPECT_GT(shard.bytes_on_disk(), 0u);
    ASSERT_EQ(shard.space_metrics_size(), 1);
    EXPECT_EQ(shard.space_metrics(0).space(), "acme");
    EXPECT_EQ(shard.space_metrics(0).live_docs(), 300u);

    v1::WatchMetricsRequest watch;
    watch.set_interval_ms(200);
    auto context = contextWithDeadline();
    auto reader = stub().WatchMetrics(context.get(), watch);
    std::vector<std::int64_t> stamps;
    v1::NodeMetrics sample;
    while (stamps.size() < 3 && reader->Read(&sample))
        stamps.push_back(sample.unix_ms());
    context->TryCancel();
    (void)reader->Finish();
    ASSERT_EQ(stamps.size(), 3u);
    EXPECT_LE(stamps.front(), stamps.back());

    v1::MetricsHistory history;
    ASSERT_TRUE(stub().GetMetricsHistory(contextWithDeadline().get(), {}, &history).ok());
    EXPECT_EQ(history.interval_ms(), 300);
    ASSERT_GE(history.samples_size(), 2);
    double queries = 0;
    for (const auto& s : history.samples())
        queries = std::max(queries, s.queries_per_second());
    EXPECT_GT(queries, 0.0) << "the 20 searches show up as a query rate in some history sample";
    v1::GetMetricsHistoryRequest since;
    since.set_since_unix_ms(history.samples(history.samples_size() - 1).unix_ms());
    ASSERT_TRUE(stub().GetMetricsHistory(contextWithDeadline().get(), since, &history).ok());
    EXPECT_GE(history.samples_size(), 1);
}

TEST_F(NodeRpcTest, HealthServiceAndReflectionAnswer)
{
    auto health = grpc::health::v1::Health::NewStub(m_node->channel());
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    ASSERT_TRUE(health->Check(contextWithDeadline().get(), request, &response).ok());
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
    request.set_service("shardmap.v1.Node");
    ASSERT_TRUE(health->Check(contextWithDeadline().get(), request, &response).ok());
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);

    // grpc.reflection.v1alpha: ServerReflectionRequest{list_services: ""} is field 7, empty string.
    grpc::GenericStub generic(m_node->channel());
    auto context = contextWithDeadline();
    grpc::CompletionQueue queue;
    auto call
        = generic.PrepareCall(context.get(), "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
    void* tag = nullptr;
    bool ok = false;
    call->StartCall(reinterpret_cast<void*>(1));
    ASSERT_TRUE(queue.Next(&tag, &ok) && ok);
    const std::string requestBytes("\x3a\x00", 2);
    grpc::Slice slice(requestBytes);
    grpc::ByteBuffer out(&slice, 1);
    call->Write(out, reinterpret_cast<void*>(2));
    ASSERT_TRUE(queue.Next(&tag, &ok) && ok);
    grpc::ByteBuffer in;
    call->Read(&in, reinterpret_cast<void*>(3));
    ASSERT_TRUE(queue.Next(&tag, &ok) && ok);
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(in.Dump(&slices).ok());
    std::string answer;
    for (const auto& s : slices)
        answer.append(reinterpret_cast<const char*>(s.begin()), s.size());
    EXPECT_NE(answer.find("shardmap.v1.Node"), std::string::npos);
    context->TryCancel();
    call->Finish(nullptr, reinterpret_cast<void*>(4));
    grpc::Status finished;
    queue.Shutdown();
    while (queue.Next(&tag, &ok)) { }
}

TEST_F(NodeRpcTest, BadInputsGetClearErrors)
{
    v1::BulkWriteResponse response;
    auto unknownShard = bulkWrite(stub(), "nope", { makeDoc("acme", "a", 1, "x") }, 1, &response);
    EXPECT_EQ(unknownShard.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_NE(unknownShard.error_message().find("no shard nope"), std::string::npos);

    auto badShardId = createShard(stub(), "../escape");
    EXPECT_EQ(badShardId.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

    auto badSpace = setOwner(stub(), "s1", "has space", 1);
    EXPECT_EQ(badSpace.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(badSpace.error_message().find("space id"), std::string::npos);

    v1::SearchResponse result;
    auto syntax = search(stub(), "s1", { "acme" }, "(open", &result);
    EXPECT_EQ(syntax.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    auto field = search(stub(), "s1", { "acme" }, "colour:red", &result);
    EXPECT_EQ(field.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(field.error_message().find("colour"), std::string::npos);
    auto noSpaces = search(stub(), "s1", {}, "x", &result);
    EXPECT_EQ(noSpaces.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    auto badLimit = search(stub(), "s1", { "acme" }, "x", &result, 5000);
    EXPECT_EQ(badLimit.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

    std::vector<v1::Document> tooMany(10001, makeDoc("acme", "same", 1, "x"));
    auto oversized = bulkWrite(stub(), "s1", tooMany, 1, &response);
    EXPECT_EQ(oversized.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(oversized.error_message().find("limit is 10000"), std::string::npos);

    auto huge = makeDoc("acme", "huge", 1, std::string(2 * 1024 * 1024, 'h'));
    ASSERT_TRUE(bulkWrite(stub(), "s1", { huge, makeDoc("acme", "small", 1, "x") }, 1, &response).ok());
    EXPECT_EQ(response.results(0).outcome(), v1::WRITE_OUTCOME_REJECTED);
    EXPECT_NE(response.results(0).reason().find("limit is 1048576"), std::string::npos);
    EXPECT_EQ(response.results(1).outcome(), v1::WRITE_OUTCOME_APPLIED);

    // A request above the 64 MiB message limit is refused by the transport itself.
    std::vector<v1::Document> heavy(70, makeDoc("acme", "h", 1, std::string(1000 * 1000, 'x')));
    auto tooBig = bulkWrite(stub(), "s1", heavy, 1, &response);
    EXPECT_EQ(tooBig.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);

    v1::ScanRequest scan;
    scan.set_shard_id("s1");
    scan.set_space("bad space");
    auto context = contextWithDeadline();
    auto reader = stub().Scan(context.get(), scan);
    v1::ScanBatch batch;
    EXPECT_FALSE(reader->Read(&batch));
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(NodeRpcTest, AShardCreatedSinceTheLastSampleIsInTheMetricsAtOnce)
{
    ASSERT_TRUE(createShard(stub(), "fresh").ok());
    v1::NodeMetrics metrics;
    ASSERT_TRUE(stub().GetMetrics(contextWithDeadline().get(), {}, &metrics).ok());
    const bool found = std::any_of(metrics.shards().begin(), metrics.shards().end(), [](const v1::ShardMetrics& shard) {
        return shard.shard_id() == "fresh" && shard.health() == v1::SHARD_HEALTH_OK;
    });
    EXPECT_TRUE(found) << "an allocator must see a new shard as empty, not as unreachable";
}

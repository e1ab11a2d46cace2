// Issue 25, the node's part: what an operator who wants to hurt the service could do to a real
// shardmap-node, each refused with the reason while the node keeps serving: open access off
// loopback, readable shard files, paths in NodeInfo, epochs that pin a space, a thread per
// metrics stream.
#include "core/map/shard_map.h"
#include "core/util/validation.h"
#include "node_test_helpers.h"
#include "tests/support/certificates.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <grpcpp/generic/generic_stub.h>
#include <iostream>
#include <limits>
#include <mutex>
#include <sys/stat.h>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

constexpr std::uint64_t kLargestUnsigned = std::numeric_limits<std::uint64_t>::max();

// A node started with argv (after the binary) that is expected to refuse: its exit code and stderr.
std::pair<int, std::string> refusedStart(const TempDir& dir, const std::string& name, std::vector<std::string> args)
{
    args.insert(args.begin(), nodeBinary());
    auto child = ChildProcess::spawn(args, dir.file(name + ".stderr"));
    EXPECT_TRUE(child);
    if (!child)
        return { -1, {} };
    const int code = child->wait(std::chrono::seconds(20)).value_or(-1);
    return { code, readWholeFile(dir.file(name + ".stderr")) };
}

std::unique_ptr<v1::Node::Stub> tlsStub(const TempDir& dir, const std::string& address, bool clientCertificate)
{
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = readWholeFile(dir.file("ca.pem"));
    if (clientCertificate) {
        options.pem_private_key = readWholeFile(dir.file("client.key"));
        options.pem_cert_chain = readWholeFile(dir.file("client.pem"));
    }
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    return v1::Node::NewStub(grpc::CreateCustomChannel(address, grpc::SslCredentials(options), args));
}

// "0.0.0.0:PORT" -> "127.0.0.1:PORT": a node bound to every address, reached on loopback only.
std::string onLoopback(const std::string& address)
{
    return "127.0.0.1" + address.substr(address.rfind(':'));
}

unsigned modeOf(const std::string& path)
{
    struct stat info { };
    EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
    return info.st_mode & 07777;
}

std::string octal(unsigned mode)
{
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode);
    return text;
}

// The payload of a unary call as the node sent it, undecoded.
grpc::Status rawUnary(grpc::Channel& channel, const std::string& method, const std::string& payload, std::string* out)
{
    grpc::GenericStub generic(std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
    grpc::Slice slice(payload);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::Status status;
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    auto context = contextWithDeadline();
    generic.UnaryCall(context.get(), method, grpc::StubOptions(), &request, &response, [&](grpc::Status s) {
        std::lock_guard lock(mutex);
        status = std::move(s);
        finished = true;
        done.notify_one();
    });
    std::unique_lock lock(mutex);
    done.wait(lock, [&] { return finished; });
    if (status.ok() && out) {
        std::vector<grpc::Slice> slices;
        (void)response.Dump(&slices);
        out->clear();
        for (const auto& part : slices)
            out->append(reinterpret_cast<const char*>(part.begin()), part.size());
    }
    return status;
}

grpc::Status dropSpace(v1::Node::Stub& stub, const std::string& shard, const std::string& space, std::uint64_t epoch)
{
    v1::DropSpaceRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    request.set_epoch(epoch);
    auto context = contextWithDeadline();
    auto reader = stub.DropSpace(context.get(), request);
    v1::DropSpaceProgress progress;
    while (reader->Read(&progress)) { }
    return reader->Finish();
}

std::vector<v1::Ownership> ownerships(v1::Node::Stub& stub, const std::string& shard, const std::string& space)
{
    v1::GetOwnershipRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    v1::GetOwnershipResponse response;
    const auto status = stub.GetOwnership(contextWithDeadline().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return { response.ownerships().begin(), response.ownerships().end() };
}

// A normal write and a search that finds it: the node still serves.
void expectServing(v1::Node::Stub& stub, const std::string& shard, const std::string& space, std::uint64_t epoch,
    const std::string& id)
{
    v1::BulkWriteResponse written;
    const auto status = bulkWrite(stub, shard, { makeDoc(space, id, 1, "still serving " + id) }, epoch, &written);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(written.applied(), 1u);
    v1::SearchResponse found;
    ASSERT_TRUE(search(stub, shard, { space }, "serving", &found).ok());
    EXPECT_GE(found.hits_size(), 1);
}

int threadsOf(pid_t pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.starts_with("Threads:"))
            return std::stoi(line.substr(8));
    }
    return -1;
}

// The names of a process's threads (/proc/PID/task/*/comm, 15 characters at most).
std::vector<std::string> threadNamesOf(pid_t pid)
{
    std::vector<std::string> names;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        if (std::getline(comm, name))
            names.push_back(name);
    }
    return names;
}

} // namespace

// Item 9: server-only TLS off loopback lets any TLS client change the node. Refused like
// plaintext, with the reason and the way out; --insecure starts it with a warning.
TEST(NodeHardeningTest, ServerOnlyTlsOffLoopbackIsRefusedUnlessInsecure)
{
    TempDir dir;
    ASSERT_TRUE(makeTestCertificates(dir.path())) << "openssl could not make test certificates";
    const std::vector<std::string> serverOnly { "--tls-cert", dir.file("server.pem"), "--tls-key",
        dir.file("server.key") };
    auto args = std::vector<std::string> { "--listen", "0.0.0.0:0", "--data-dir", dir.file("refused") };
    args.insert(args.end(), serverOnly.begin(), serverOnly.end());
    const auto [code, said] = refusedStart(dir, "refused", args);
    EXPECT_EQ(code, 1);
    EXPECT_NE(said.find("refusing to listen on non-loopback address 0.0.0.0:0 with TLS but without client "
                        "certificates: any client that reaches it could create and drop shards"),
        std::string::npos)
        << said;
    EXPECT_NE(said.find("pass --tls-ca"), std::string::npos) << said;
    EXPECT_FALSE(std::filesystem::exists(dir.file("refused") + "/shards")) << "refused before touching the data";

    auto insecure = serverOnly;
    insecure.insert(insecure.end(), { "--listen", "0.0.0.0:0", "--insecure" });
    auto open = NodeProcess::start(dir.file("open"), insecure);
    ASSERT_TRUE(open);
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return open->stderrText().find("--insecure: serving TLS without client certificates on 0.0.0.0:0, so any "
                                       "client that reaches it may create and drop shards")
            != std::string::npos;
    })) << open->stderrText();
    // Reached on loopback only; with --insecure it serves as asked.
    auto client = tlsStub(dir, onLoopback(open->address()), false);
    ASSERT_TRUE(createShard(*client, "s1").ok());
    ASSERT_TRUE(setOwner(*client, "s1", "acme", 1).ok());
    expectServing(*client, "s1", "acme", 1, "d1");

    // With client certificates (--tls-ca) the same address starts without --insecure or a warning.
    auto mutual = serverOnly;
    mutual.insert(mutual.end(), { "--listen", "0.0.0.0:0", "--tls-ca", dir.file("ca.pem") });
    auto verified = NodeProcess::start(dir.file("verified"), mutual);
    ASSERT_TRUE(verified);
    auto withCertificate = tlsStub(dir, onLoopback(verified->address()), true);
    v1::NodeInfo info;
    EXPECT_TRUE(withCertificate->GetNodeInfo(contextWithDeadline().get(), {}, &info).ok());
    EXPECT_EQ(verified->stderrText().find("--insecure:"), std::string::npos) << verified->stderrText();
}

// Item 10: under umask 022 the node made its data directory 0755 and shard files 0644; every
// shard file and directory it makes is its user's alone now, and files it finds open to others
// lose that at start.
TEST(NodeHardeningTest, ShardFilesAndDirectoriesArePrivateWhateverTheUmask)
{
    TempDir dir;
    const std::string data = dir.file("deep/er/data");
    const mode_t previous = ::umask(022);
    auto node = NodeProcess::start(data);
    ::umask(previous);
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    expectServing(node->stub(), "s1", "acme", 1, "d1");

    for (const auto& directory : { dir.file("deep"), dir.file("deep/er"), data, data + "/shards" })
        EXPECT_EQ(octal(modeOf(directory)), "0700") << directory;
    for (const auto& file :
        { data + "/LOCK", data + "/shards/s1.db", data + "/shards/s1.db-wal", data + "/shards/s1.db-shm" })
        EXPECT_EQ(octal(modeOf(file)), "0600") << file;

    // A shard file from before (or copied in by hand) readable by everyone: 0640 at most after a start.
    ASSERT_EQ(node->stop(), 0);
    ASSERT_EQ(::chmod((data + "/shards/s1.db").c_str(), 0666), 0);
    auto again = NodeProcess::start(data);
    ASSERT_TRUE(again);
    EXPECT_EQ(octal(modeOf(data + "/shards/s1.db")), "0640");
    expectServing(again->stub(), "s1", "acme", 1, "d2");
}

// Item 10: GetNodeInfo named the data directory to every caller (any reader of a mutual-TLS
// node, anyone at all otherwise). No byte of its answer holds the path now.
TEST(NodeHardeningTest, NodeInfoShowsNoFilesystemPath)
{
    TempDir dir;
    const std::string data = dir.file("secret-place-of-the-shards");
    auto node = NodeProcess::start(data);
    ASSERT_TRUE(node);
    std::string raw;
    const auto status = rawUnary(*node->channel(), "/shardmap.v1.Node/GetNodeInfo", {}, &raw);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(raw.find("secret-place-of-the-shards"), std::string::npos) << raw;
    v1::NodeInfo info;
    ASSERT_TRUE(info.ParseFromString(raw));
    EXPECT_EQ(info.node_id(), "test-node");
    EXPECT_EQ(info.listen_address(), node->address());
}

// Item 11: epoch 2^64 - 1 made the shard refuse every later epoch, pinning the space there for
// good (no fence, no move, no drop). Every epoch a caller sends above 2^62 is refused now.
TEST(NodeHardeningTest, EpochsAboveTheLargestAreRefusedWhereverTheyComeIn)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("data"));
    ASSERT_TRUE(node);
    auto& stub = node->stub();
    ASSERT_TRUE(createShard(stub, "s1").ok());
    ASSERT_TRUE(setOwner(stub, "s1", "acme", 5).ok());
    for (const std::uint64_t epoch : { kLargestUnsigned, core::kMaxEpoch + 1 }) {
        SCOPED_TRACE(epoch);
        const auto owned = setOwner(stub, "s1", "acme", epoch);
        EXPECT_EQ(owned.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        EXPECT_NE(owned.error_message().find("is above the largest, 4611686018427387904 (2^62)"), std::string::npos)
            << owned.error_message();
        v1::BulkWriteResponse written;
        const auto write = bulkWrite(stub, "s1", { makeDoc("acme", "x", 1, "pinned") }, epoch, &written);
        EXPECT_EQ(write.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << write.error_message();
        EXPECT_EQ(dropSpace(stub, "s1", "acme", epoch).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    }
    const auto held = ownerships(stub, "s1", "acme");
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].epoch(), 5u);
    // The largest is still an epoch, and the space can still be fenced and moved on from 5.
    EXPECT_TRUE(setOwner(stub, "s1", "other", core::kMaxEpoch).ok());
    expectServing(stub, "s1", "acme", 5, "d1");
    EXPECT_TRUE(setOwner(stub, "s1", "acme", 6, v1::SPACE_ROLE_FENCED).ok());
}

// Item 11: lifting a fence at the epoch it was set at is how an aborted cutover, a rollback and
// a router hand a space back (docs/NODE.md), so the node allows it, and says each one.
TEST(NodeHardeningTest, AFenceLiftedAtTheSameEpochIsLoggedWithTheCaller)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("data"));
    ASSERT_TRUE(node);
    auto& stub = node->stub();
    ASSERT_TRUE(createShard(stub, "s1").ok());
    ASSERT_TRUE(setOwner(stub, "s1", "acme", 3).ok());
    ASSERT_TRUE(setOwner(stub, "s1", "acme", 3, v1::SPACE_ROLE_FENCED).ok());
    ASSERT_TRUE(setOwner(stub, "s1", "acme", 3, v1::SPACE_ROLE_OWNER).ok());
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return node->stderrText().find("space acme on shard s1: fence lifted at epoch 3 (now owner) by ipv4:127.0.0.1:")
            != std::string::npos;
    })) << node->stderrText();
    expectServing(stub, "s1", "acme", 3, "d1");
}

namespace {

class NodeHardeningFleetTest : public FleetTest<::testing::Test> {
protected:
    void SetUp() override { startFleet(1); }
};

} // namespace

// gRPC's callback API (its built-in health service, a callback method) brings a completion
// queue whose two "nexting_thread"s nap 100 ms after every idle second while they poll the
// server's connections: every 1.1 s a call arriving then waited 100 ms (docs/BENCHMARKS.md,
// "gRPC's callback queue and the write tail"). Neither server may have those threads, with a
// metrics stream open and health asked, and both still answer health and WatchMetrics.
TEST_F(NodeHardeningFleetTest, NeitherServerRunsGrpcsCallbackQueue)
{
    auto controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"), { "--store", storeUri(), "--id", "c" });
    ASSERT_TRUE(controller);
    EXPECT_EQ(controller->health(""), grpc::health::v1::HealthCheckResponse::SERVING);
    auto health = grpc::health::v1::Health::NewStub(m_nodes[0]->channel());
    grpc::health::v1::HealthCheckRequest asked;
    grpc::health::v1::HealthCheckResponse answer;
    ASSERT_TRUE(health->Check(contextWithDeadline().get(), asked, &answer).ok());
    EXPECT_EQ(answer.status(), grpc::health::v1::HealthCheckResponse::SERVING);
    asked.set_service("no such service");
    EXPECT_EQ(health->Check(contextWithDeadline().get(), asked, &answer).error_code(), grpc::StatusCode::NOT_FOUND);
    v1::WatchMetricsRequest request;
    request.set_interval_ms(200);
    auto context = contextWithDeadline(std::chrono::seconds(30));
    auto reader = m_nodes[0]->stub().WatchMetrics(context.get(), request);
    v1::NodeMetrics sample;
    ASSERT_TRUE(reader->Read(&sample));
    ASSERT_TRUE(reader->Read(&sample));
    for (const pid_t pid : { m_nodes[0]->process().pid(), controller->process().pid() }) {
        const auto names = threadNamesOf(pid);
        EXPECT_FALSE(names.empty());
        EXPECT_EQ(std::count(names.begin(), names.end(), "nexting_thread"), 0) << "process " << pid;
    }
    context->TryCancel();
    (void)reader->Finish();
}

// Item 11: a space record with epoch -1 (written straight to the store) was read as 2^64 - 1,
// which routers pushed to the owner's node: the space was pinned there for good. The record is
// refused now, the node never sees that epoch, and a sound record serves again.
TEST_F(NodeHardeningFleetTest, ANegativeEpochInTheMapIsRefusedAndNeverReachesANode)
{
    const auto put = [&](const std::string& json) {
        core::CommitRequest request;
        request.mutations.push_back({ "spaces/acme", json, std::nullopt });
        request.actor = "test";
        request.action = "hand-written space";
        auto committed = m_store->commit(request);
        ASSERT_TRUE(committed) << committed.error().describe();
    };
    const auto decoded = core::decodeSpace(R"({"id":"acme","shard":"s0","epoch":-1})");
    ASSERT_FALSE(decoded);
    EXPECT_EQ(decoded.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_NE(decoded.error().message.find("epoch -1 is outside 0 to 4611686018427387904"), std::string::npos)
        << decoded.error().message;
    EXPECT_FALSE(core::decodeSpace(R"({"id":"acme","shard":"s0","epoch":18446744073709551615})"));
    EXPECT_FALSE(core::decodeSpace(R"({"id":"acme","shard":"s0","epoch":4611686018427387905})"));
    EXPECT_FALSE(core::decodeSpace(R"({"id":"acme","shard":"s0","epoch":2.5})"));

    auto controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"), { "--store", storeUri(), "--id", "c" });
    ASSERT_TRUE(controller);
    put(R"({"id":"acme","shard":"s0","epoch":-1})");
    v1::RouterWriteRequest request;
    *request.add_docs() = makeDoc("acme", "d1", 1, "pinned?");
    v1::RouterWriteResponse response;
    const auto refused = controller->router().BulkWrite(contextWithDeadline().get(), request, &response);
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.error_message().find("epoch -1 is outside"), std::string::npos) << refused.error_message();
    auto& node = m_nodes[0]->stub();
    for (const auto& held : ownerships(node, "s0", "acme"))
        EXPECT_LE(held.epoch(), core::kMaxEpoch);

    put(R"({"id":"acme","shard":"s0","epoch":7})");
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] {
        return controller->router().BulkWrite(contextWithDeadline().get(), request, &response).ok();
    })) << controller->stderrText();
    const auto held = ownerships(node, "s0", "acme");
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].epoch(), 7u);
}

// Item 12: each WatchMetrics stream held a node thread (2,000 streams, 2,013 threads). Streams
// run on the callback API now: hundreds of them leave the node's thread count where it was, the
// stream beyond the per-peer cap is refused with the reason, and the node keeps serving.
TEST(NodeHardeningTest, MetricsStreamsHoldNoThreadEachAndArePerPeerCapped)
{
    constexpr int kStreams = 300;
    TempDir dir;
    auto node = NodeProcess::start(
        dir.file("data"), { "--metrics-tick-ms", "200", "--max-watch-streams-per-peer", std::to_string(kStreams) });
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    const int idle = threadsOf(node->process().pid());
    ASSERT_GT(idle, 0);

    struct Watch {
        std::unique_ptr<grpc::ClientContext> context;
        std::unique_ptr<grpc::ClientReader<v1::NodeMetrics>> reader;
    };
    std::vector<Watch> watches;
    v1::WatchMetricsRequest request;
    request.set_interval_ms(200);
    request.set_include_spaces(true);
    for (int i = 0; i < kStreams; ++i) {
        auto context = contextWithDeadline(std::chrono::seconds(60));
        auto reader = node->stub().WatchMetrics(context.get(), request);
        watches.push_back({ std::move(context), std::move(reader) });
    }
    // Every stream delivers samples, on the interval asked for.
    for (auto& watch : watches) {
        v1::NodeMetrics first;
        v1::NodeMetrics second;
        ASSERT_TRUE(watch.reader->Read(&first));
        ASSERT_TRUE(watch.reader->Read(&second));
        EXPECT_EQ(second.node_id(), "test-node");
        ASSERT_EQ(second.shards_size(), 1);
        EXPECT_GE(second.unix_ms(), first.unix_ms());
    }
    const int watching = threadsOf(node->process().pid());
    std::cout << "node threads: " << idle << " idle, " << watching << " with " << kStreams << " metrics streams"
              << std::endl;
    EXPECT_LT(watching, idle + 40) << kStreams << " streams; " << idle << " threads idle, " << watching << " now";

    auto context = contextWithDeadline();
    auto beyond = node->stub().WatchMetrics(context.get(), request);
    v1::NodeMetrics sample;
    EXPECT_FALSE(beyond->Read(&sample));
    const auto refused = beyond->Finish();
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(refused.error_message().find("ipv4:127.0.0.1 has 300 metrics streams open, the most one peer may hold "
                                           "(--max-watch-streams-per-peer)"),
        std::string::npos)
        << refused.error_message();

    for (auto& watch : watches)
        watch.context->TryCancel();
    for (auto& watch : watches)
        (void)watch.reader->Finish();
    // Closed streams give their places back: a new one is served again.
    EXPECT_TRUE(pollUntil(std::chrono::seconds(20), [&] {
        auto again = contextWithDeadline(std::chrono::seconds(5));
        auto reader = node->stub().WatchMetrics(again.get(), request);
        const bool delivered = reader->Read(&sample);
        again->TryCancel();
        (void)reader->Finish();
        return delivered;
    }));
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    expectServing(node->stub(), "s1", "acme", 1, "d1");
    EXPECT_EQ(node->stop(), 0) << "a stop with streams gone stays clean";
}

// Item 12: a stream open at SIGTERM ends, so the node stops promptly and cleanly.
TEST(NodeHardeningTest, OpenMetricsStreamsEndAtAStop)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("data"), { "--metrics-tick-ms", "200" });
    ASSERT_TRUE(node);
    v1::WatchMetricsRequest request;
    request.set_interval_ms(60000);
    auto context = contextWithDeadline(std::chrono::seconds(60));
    auto reader = node->stub().WatchMetrics(context.get(), request);
    v1::NodeMetrics sample;
    ASSERT_TRUE(reader->Read(&sample)) << "the first sample comes at once";
    EXPECT_EQ(node->stop(), 0) << node->stderrText();
    EXPECT_FALSE(reader->Read(&sample));
    EXPECT_TRUE(reader->Finish().ok());
}

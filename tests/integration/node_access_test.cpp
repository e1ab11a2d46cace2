// Issue 17: who may do what on a shard node and on shardmapd's port, with real certificates made
// by openssl: controllers (by certificate identity) change, other certificates of the CA read,
// expired, revoked and foreign certificates are refused in the handshake with a clear error.
#include "core/auth/bearer_tokens.h"
#include "core/client/node_client.h"
#include "ctl_run.h"
#include "node_test_helpers.h"
#include "tests/support/certificates.h"
#include "tests/support/controller_process.h"
#include "tests/support/workload.h"

#include <fstream>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

bool makeAccessCertificates(const TempDir& dir)
{
    return makeTestCertificates(dir.path()) && makeAccessTestCertificates(dir.path());
}

// A channel presenting the client certificate dir/NAME.pem, trusting ca.pem for the server.
std::shared_ptr<grpc::Channel> channelAs(const TempDir& dir, const std::string& address, const std::string& name)
{
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = readWholeFile(dir.file("ca.pem"));
    options.pem_private_key = readWholeFile(dir.file(name + ".key"));
    options.pem_cert_chain = readWholeFile(dir.file(name + ".pem"));
    return grpc::CreateChannel(address, grpc::SslCredentials(options));
}

std::unique_ptr<v1::Node::Stub> nodeAs(const TempDir& dir, const std::string& address, const std::string& name)
{
    return v1::Node::NewStub(channelAs(dir, address, name));
}

core::NodeClientOptions clientOptions(const TempDir& dir, const std::string& name)
{
    core::NodeClientOptions options;
    options.caFile = dir.file("ca.pem");
    options.certFile = dir.file(name + ".pem");
    options.keyFile = dir.file(name + ".key");
    return options;
}

std::vector<std::string> serverTls(const TempDir& dir)
{
    return { "--tls-cert", dir.file("server.pem"), "--tls-key", dir.file("server.key"), "--tls-ca", dir.file("ca.pem"),
        "--tls-crl", dir.file("ca.crl") };
}

std::unique_ptr<NodeProcess> startAccessNode(const TempDir& dir)
{
    auto args = serverTls(dir);
    args.insert(args.end(), { "--controller-identity", kControllerIdentity, "--controller-identity", "dns:localhost" });
    return NodeProcess::start(dir.file("node"), args);
}

grpc::Status dropShard(v1::Node::Stub& stub, const std::string& shard)
{
    v1::DropShardRequest request;
    request.set_shard_id(shard);
    request.set_force(true);
    v1::DropShardResponse response;
    return stub.DropShard(contextWithDeadline().get(), request, &response);
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

grpc::Status backfill(v1::Node::Stub& stub, const std::string& shard, const v1::Document& doc, std::uint64_t epoch)
{
    v1::BulkWriteRequest request;
    request.set_shard_id(shard);
    request.set_backfill(true);
    auto* item = request.add_items();
    *item->mutable_doc() = doc;
    item->set_epoch(epoch);
    v1::BulkWriteResponse response;
    return stub.BulkWrite(contextWithDeadline().get(), request, &response);
}

std::vector<v1::Ownership> ownerships(v1::Node::Stub& stub, const std::string& shard)
{
    v1::GetOwnershipRequest request;
    request.set_shard_id(shard);
    v1::GetOwnershipResponse response;
    const auto status = stub.GetOwnership(contextWithDeadline().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return { response.ownerships().begin(), response.ownerships().end() };
}

std::vector<std::string> shardIds(v1::Node::Stub& stub)
{
    v1::ListShardsResponse response;
    const auto status = stub.ListShards(contextWithDeadline().get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::string> ids;
    for (const auto& shard : response.shards())
        ids.push_back(shard.shard_id());
    return ids;
}

void expectOnlyControllers(const grpc::Status& status, const std::string& method)
{
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << method << ": " << status.error_message();
    EXPECT_EQ(status.error_message(),
        "test-node: only controllers may call " + method + "; 'reader-x' is not one (--controller-identity)");
}

} // namespace

TEST(NodeAccessTest, ControllersChangeTheNodeAndOtherCertificatesOnlyRead)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    auto node = startAccessNode(dir);
    ASSERT_TRUE(node);
    auto controller = nodeAs(dir, node->address(), "controller");
    auto reader = nodeAs(dir, node->address(), "reader");

    // The controller (a URI SAN identity) sets the node up.
    ASSERT_TRUE(createShard(*controller, "s1").ok());
    ASSERT_TRUE(setOwner(*controller, "s1", "acme", 1).ok());
    v1::BulkWriteResponse written;
    const auto write = bulkWrite(*controller, "s1", { makeDoc("acme", "d1", 1, "hello world") }, 1, &written);
    ASSERT_TRUE(write.ok()) << write.error_message();
    EXPECT_EQ(written.applied(), 1u);

    // The reader reads everything a router or a console needs.
    v1::SearchResponse found;
    ASSERT_TRUE(search(*reader, "s1", { "acme" }, "hello", &found).ok());
    EXPECT_EQ(found.hits_size(), 1);
    v1::NodeInfo info;
    EXPECT_TRUE(reader->GetNodeInfo(contextWithDeadline().get(), {}, &info).ok());
    v1::NodeMetrics metrics;
    EXPECT_TRUE(reader->GetMetrics(contextWithDeadline().get(), {}, &metrics).ok());
    v1::MetricsHistory history;
    EXPECT_TRUE(reader->GetMetricsHistory(contextWithDeadline().get(), {}, &history).ok());
    EXPECT_EQ(scanAll(*reader, "s1", "acme").size(), 1u);
    EXPECT_EQ(spaceStats(*reader, "s1", "acme").live_docs(), 1u);
    EXPECT_EQ(shardIds(*reader), std::vector<std::string> { "s1" });

    // It changes nothing, and each refusal names the method and the identity.
    expectOnlyControllers(createShard(*reader, "s2"), "CreateShard");
    expectOnlyControllers(setOwner(*reader, "s1", "acme", 2), "SetOwnership");
    v1::BulkWriteResponse refused;
    expectOnlyControllers(
        bulkWrite(*reader, "s1", { makeDoc("acme", "d1", 2, "overwritten") }, 1, &refused), "BulkWrite");
    expectOnlyControllers(backfill(*reader, "s1", makeDoc("acme", "d2", 1, "backfilled"), 1), "BulkWrite");
    expectOnlyControllers(dropSpace(*reader, "s1", "acme", 1), "DropSpace");
    expectOnlyControllers(dropShard(*reader, "s1"), "DropShard");
    EXPECT_EQ(shardIds(*reader), std::vector<std::string> { "s1" });
    const auto owners = ownerships(*reader, "s1");
    ASSERT_EQ(owners.size(), 1u);
    EXPECT_EQ(owners[0].epoch(), 1u);
    EXPECT_EQ(owners[0].role(), v1::SPACE_ROLE_OWNER);
    const auto docs = scanAll(*reader, "s1", "acme");
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_EQ(docs[0].version(), 1u);
    EXPECT_EQ(docs[0].fields().at("body"), "hello world");
    EXPECT_NE(node->stderrText().find("only controllers may call CreateShard"), std::string::npos)
        << node->stderrText();

    // Through the node client, the refusal arrives as a domain error that says the same.
    auto asReader = core::GrpcNodeClient::connect(node->address(), clientOptions(dir, "reader"));
    ASSERT_TRUE(asReader);
    const auto created = (*asReader)->createShard("s3", {});
    ASSERT_FALSE(created);
    EXPECT_EQ(created.error().code, core::ErrorCode::PermissionDenied);
    EXPECT_NE(created.error().describe().find("only controllers may call CreateShard; 'reader-x' is not one"),
        std::string::npos)
        << created.error().describe();
    EXPECT_TRUE((*asReader)->listShards());

    // A DNS SAN identity ("dns:localhost", the first of client.pem's) is listed too.
    auto dnsNamed = nodeAs(dir, node->address(), "client");
    EXPECT_TRUE(createShard(*dnsNamed, "s4").ok());

    // The controller fences, drops the space and the shards.
    ASSERT_TRUE(setOwner(*controller, "s1", "acme", 1, v1::SPACE_ROLE_FENCED).ok());
    const auto dropped = dropSpace(*controller, "s1", "acme", 1);
    EXPECT_TRUE(dropped.ok()) << dropped.error_message();
    EXPECT_TRUE(dropShard(*controller, "s1").ok());
    EXPECT_TRUE(dropShard(*controller, "s4").ok());
    EXPECT_TRUE(shardIds(*reader).empty());
}

// Without --tls-crl the node serves with gRPC's plain SSL credentials: the identities hold there too.
TEST(NodeAccessTest, TheControllerListHoldsWithoutARevocationList)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    auto node = NodeProcess::start(dir.file("node"),
        { "--tls-cert", dir.file("server.pem"), "--tls-key", dir.file("server.key"), "--tls-ca", dir.file("ca.pem"),
            "--controller-identity", kControllerIdentity });
    ASSERT_TRUE(node);
    expectOnlyControllers(createShard(*nodeAs(dir, node->address(), "reader"), "s1"), "CreateShard");
    EXPECT_TRUE(createShard(*nodeAs(dir, node->address(), "controller"), "s1").ok());
    v1::NodeInfo info;
    EXPECT_TRUE(nodeAs(dir, node->address(), "revoked")->GetNodeInfo(contextWithDeadline().get(), {}, &info).ok())
        << "without a revocation list a revoked certificate is still one the CA signed";
    v1::NodeInfo refused;
    EXPECT_EQ(
        nodeAs(dir, node->address(), "expired")->GetNodeInfo(contextWithDeadline().get(), {}, &refused).error_code(),
        grpc::StatusCode::UNAVAILABLE);
}

TEST(NodeAccessTest, ExpiredRevokedAndForeignCertificatesAreRefusedInTheHandshake)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    auto node = startAccessNode(dir);
    ASSERT_TRUE(node);
    ASSERT_EQ(runCtl(dir, "sqlite:" + dir.file("map.db"), { "init" }).code, 0);
    auto args = serverTls(dir);
    args.insert(args.end(), { "--store", "sqlite:" + dir.file("map.db"), "--no-executor" });
    auto controller = ControllerProcess::start(dir.file("shardmapd.stderr"), args);
    ASSERT_TRUE(controller);

    const auto nodeInfo = [&](const std::string& name) {
        v1::NodeInfo info;
        return nodeAs(dir, node->address(), name)
            ->GetNodeInfo(contextWithDeadline(std::chrono::seconds(5)).get(), {}, &info);
    };
    const auto routerHealth = [&](const std::string& name) {
        auto health = grpc::health::v1::Health::NewStub(channelAs(dir, controller->address(), name));
        grpc::health::v1::HealthCheckResponse response;
        return health->Check(contextWithDeadline(std::chrono::seconds(5)).get(), {}, &response);
    };
    EXPECT_TRUE(nodeInfo("reader").ok());
    EXPECT_TRUE(routerHealth("reader").ok());
    const std::vector<std::pair<std::string, std::string>> refused {
        { "expired", "refused our client certificate (--node-tls-cert): it expired at Jan  2 00:00:00 2020 GMT" },
        { "revoked", "refused our client certificate (--node-tls-cert): revoked, or signed by a CA it does not trust" },
        { "intruder", "refused our client certificate (--node-tls-cert): it is not signed by the CA of --node-tls-ca" }
    };
    for (const auto& [name, why] : refused) {
        SCOPED_TRACE(name);
        const auto atNode = nodeInfo(name);
        EXPECT_EQ(atNode.error_code(), grpc::StatusCode::UNAVAILABLE) << atNode.error_message();
        const auto atRouter = routerHealth(name);
        EXPECT_EQ(atRouter.error_code(), grpc::StatusCode::UNAVAILABLE) << atRouter.error_message();

        // What shardmapctl and shardmapd report says who refused what, and why where TLS tells.
        auto client = core::GrpcNodeClient::connect(node->address(), clientOptions(dir, name));
        ASSERT_TRUE(client);
        const auto listed = (*client)->listShards();
        ASSERT_FALSE(listed);
        const std::string said = listed.error().describe();
        EXPECT_TRUE(said.starts_with(node->address() + ": " + why)) << said;
    }
    // What the servers log tells an administrator why each was refused.
    for (const auto& [server, log] :
        { std::pair { "node", node->stderrText() }, std::pair { "shardmapd", controller->stderrText() } }) {
        SCOPED_TRACE(server);
        for (const char* reason : { "certificate revoked (verify code 23)", "certificate has expired (verify code 10)",
                 "unable to get local issuer certificate (verify code 20)" })
            EXPECT_NE(log.find(std::string("a TLS handshake refused a certificate: ") + reason), std::string::npos)
                << log;
    }

    // The other way round: a client that does not trust the node's CA says so.
    auto options = clientOptions(dir, "controller");
    options.caFile = dir.file("other-ca.pem");
    auto distrustful = core::GrpcNodeClient::connect(node->address(), options);
    ASSERT_TRUE(distrustful);
    const auto listed = (*distrustful)->listShards();
    ASSERT_FALSE(listed);
    EXPECT_TRUE(listed.error().describe().starts_with(
        node->address() + ": we refused its TLS certificate: not signed by the CA we trust"))
        << listed.error().describe();
}

TEST(NodeAccessTest, ABadRevocationListOrIdentityListStopsTheServersAtStart)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    std::ofstream(dir.file("garbage.crl")) << "not a list\n";
    const auto startNode = [&](const std::vector<std::string>& flags, const std::string& name) {
        std::vector<std::string> argv { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dir.file(name),
            "--tls-cert", dir.file("server.pem"), "--tls-key", dir.file("server.key") };
        argv.insert(argv.end(), flags.begin(), flags.end());
        auto child = ChildProcess::spawn(argv, dir.file(name + ".stderr"));
        EXPECT_TRUE(child);
        if (!child)
            return std::make_pair(-1, std::string());
        const int code = child->wait(std::chrono::seconds(10)).value_or(0);
        return std::make_pair(code, readWholeFile(dir.file(name + ".stderr")));
    };
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases {
        { { "--tls-ca", dir.file("ca.pem"), "--tls-crl", dir.file("missing.crl") },
            "cannot read the certificate revocation list (--tls-crl)" },
        { { "--tls-ca", dir.file("ca.pem"), "--tls-crl", dir.file("garbage.crl") },
            "not a certificate revocation list" },
        { { "--tls-ca", dir.file("other-ca.pem"), "--tls-crl", dir.file("ca.crl") },
            "issued by /CN=test-ca, which is not a CA of --tls-ca" },
        { { "--tls-ca", dir.file("ca.pem"), "--tls-crl", dir.file("expired.crl") },
            "expired at Jan  2 00:00:00 2020 GMT" },
        { { "--tls-crl", dir.file("ca.crl") }, "--tls-crl needs --tls-ca" },
        { { "--controller-identity", "shardmapd" }, "--controller-identity needs --tls-ca" },
        { { "--tls-ca", dir.file("ca.pem"), "--controller-identity", "" }, "--controller-identity must not be empty" },
    };
    int index = 0;
    for (const auto& [flags, message] : cases) {
        SCOPED_TRACE(message);
        const auto [code, said] = startNode(flags, "n" + std::to_string(index++));
        EXPECT_EQ(code, 1);
        EXPECT_NE(said.find(message), std::string::npos) << said;
    }

    // shardmapd checks its list the same way.
    ASSERT_EQ(runCtl(dir, "sqlite:" + dir.file("map.db"), { "init" }).code, 0);
    auto controller = ChildProcess::spawn(
        { controllerBinary(), "--store", "sqlite:" + dir.file("map.db"), "--listen", "127.0.0.1:0", "--tls-cert",
            dir.file("server.pem"), "--tls-key", dir.file("server.key"), "--tls-ca", dir.file("ca.pem"), "--tls-crl",
            dir.file("garbage.crl") },
        dir.file("shardmapd.stderr"));
    ASSERT_TRUE(controller);
    EXPECT_NE(controller->wait(std::chrono::seconds(10)).value_or(0), 0);
    EXPECT_NE(readWholeFile(dir.file("shardmapd.stderr")).find("not a certificate revocation list"), std::string::npos)
        << readWholeFile(dir.file("shardmapd.stderr"));
}

// Deployed as docs/NODE.md says: shardmapd and the administrators' shardmapctl hold a listed
// certificate, anything else signed by the CA only reads.
TEST(NodeAccessTest, ShardmapctlAndShardmapdWithAListedCertificateManageTheFleet)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    auto node = startAccessNode(dir);
    ASSERT_TRUE(node);
    const std::string store = "sqlite:" + dir.file("map.db");
    const auto tlsAs = [&](const std::string& name) {
        return std::vector<std::string> { "--node-tls-ca", dir.file("ca.pem"), "--node-tls-cert",
            dir.file(name + ".pem"), "--node-tls-key", dir.file(name + ".key") };
    };
    const auto ctlAs = [&](const std::string& name, std::vector<std::string> args) {
        const auto tls = tlsAs(name);
        args.insert(args.end(), tls.begin(), tls.end());
        return runCtl(dir, store, args);
    };
    ASSERT_EQ(runCtl(dir, store, { "init" }).code, 0);
    ASSERT_EQ(runCtl(dir, store, { "node", "add", "n1", node->address() }).code, 0);

    const auto byReader = ctlAs("reader", { "shard", "create", "s1", "--node", "n1" });
    EXPECT_NE(byReader.code, 0);
    EXPECT_NE(byReader.err.find("only controllers may call CreateShard; 'reader-x' is not one (--controller-identity)"),
        std::string::npos)
        << byReader.err;
    const auto created = ctlAs("controller", { "shard", "create", "s1", "--node", "n1" });
    ASSERT_EQ(created.code, 0) << created.err;
    const auto written = ctlAs("controller", { "write", "--space", "acme", "--id", "d1", "--field", "body=listed" });
    ASSERT_EQ(written.code, 0) << written.err;
    const auto refusedWrite = ctlAs("reader", { "write", "--space", "acme", "--id", "d2", "--field", "body=refused" });
    EXPECT_NE(refusedWrite.code, 0);
    EXPECT_NE(refusedWrite.err.find("only controllers may call BulkWrite"), std::string::npos) << refusedWrite.err;

    // shardmapd routes applications' writes with its listed certificate; with a reader's it cannot.
    std::vector<std::string> args { "--store", store, "--id", "listed", "--no-executor" };
    const auto listed = tlsAs("controller");
    args.insert(args.end(), listed.begin(), listed.end());
    auto controller = ControllerProcess::start(dir.file("listed.stderr"), args);
    ASSERT_TRUE(controller);
    WritePath viaController = routerServicePath(controller->address());
    std::vector<core::ItemResult> results;
    std::string error;
    ASSERT_TRUE(viaController({ core::Document { "acme", "d3", 1, { { "body", "routed" } }, false } }, results, error))
        << error << controller->stderrText();
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].outcome, core::WriteOutcome::Applied) << results[0].reason;

    std::vector<std::string> readerArgs { "--store", store, "--id", "unlisted", "--no-executor" };
    const auto unlisted = tlsAs("reader");
    readerArgs.insert(readerArgs.end(), unlisted.begin(), unlisted.end());
    auto readerController = ControllerProcess::start(dir.file("unlisted.stderr"), readerArgs);
    ASSERT_TRUE(readerController);
    WritePath viaReader = routerServicePath(readerController->address());
    const bool accepted
        = viaReader({ core::Document { "acme", "d4", 1, { { "body", "refused" } }, false } }, results, error);
    const bool applied = accepted && !results.empty() && results[0].outcome == core::WriteOutcome::Applied;
    EXPECT_FALSE(applied);
    const auto docs = scanAll(*nodeAs(dir, node->address(), "reader"), "s1", "acme");
    EXPECT_EQ(docs.size(), 2u);
}

namespace {

// shardmapctl through shardmapd's Admin API with `credentials` (--controller-ca, a certificate or
// a token file), its stderr kept in dir/NAME.stderr.
CtlRun ctlVia(const TempDir& dir, const std::string& address, const std::vector<std::string>& credentials,
    const std::vector<std::string>& args, const std::string& name)
{
    std::vector<std::string> argv { SHARDMAP_CTL_BINARY, "--controller", address };
    argv.insert(argv.end(), credentials.begin(), credentials.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return runProgram(dir, argv, {}, name);
}

std::vector<std::string> certificateOf(const TempDir& dir, const std::string& name)
{
    return { "--controller-ca", dir.file("ca.pem"), "--controller-cert", dir.file(name + ".pem"), "--controller-key",
        dir.file(name + ".key") };
}

} // namespace

// docs/ACCESS.md, "Turning it on": with --tokens and mutual TLS one replica serves certificates
// and tokens; a caller with neither is refused; a certificate presented is still verified. A
// bearer token never crosses a network in plaintext: shardmapd refuses --tokens without TLS
// (unless it listens on loopback only) and shardmapctl sends none without --controller-ca.
TEST(NodeAccessTest, CertificatesAndTokensShareOneReplicaAndTokensNeverTravelInPlaintext)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    const std::string store = "sqlite:" + dir.file("map.db");
    ASSERT_EQ(runCtl(dir, store, { "init" }).code, 0);
    auto token = core::newToken("ci-bot");
    ASSERT_TRUE(token) << token.error().describe();
    writeSecretFile(dir.file("tokens"), token->line + "\n");
    std::ofstream(dir.file("ci.token")) << token->token << "\n";
    std::ofstream(dir.file("access.json"))
        << R"({"version": 1, "roles": {"ci-bot": "operator", "reader-x": "viewer"}})";

    auto args = serverTls(dir);
    args.insert(args.end(),
        { "--store", store, "--no-executor", "--access-policy", dir.file("access.json"), "--tokens",
            dir.file("tokens") });
    auto controller = ControllerProcess::start(dir.file("shardmapd.stderr"), args);
    ASSERT_TRUE(controller);
    const std::vector<std::string> byToken { "--controller-ca", dir.file("ca.pem"), "--token-file",
        dir.file("ci.token") };
    auto who = ctlVia(dir, controller->address(), byToken, { "whoami" }, "ctl-token");
    EXPECT_EQ(who.out, "token:ci-bot (operator, by token)\n") << who.err;
    who = ctlVia(dir, controller->address(), certificateOf(dir, "reader"), { "whoami" }, "ctl-reader");
    EXPECT_EQ(who.out, "reader-x (viewer, by certificate)\n") << who.err;
    auto nobody
        = ctlVia(dir, controller->address(), { "--controller-ca", dir.file("ca.pem") }, { "whoami" }, "ctl-nobody");
    EXPECT_EQ(nobody.code, 7);
    EXPECT_NE(
        nobody.err.find("does not know who you are: no client certificate and no bearer token"), std::string::npos)
        << nobody.err;
    // Nor does an anonymous caller get the router.
    {
        grpc::SslCredentialsOptions anonymous;
        anonymous.pem_root_certs = readWholeFile(dir.file("ca.pem"));
        auto router = v1::Router::NewStub(grpc::CreateChannel(controller->address(), grpc::SslCredentials(anonymous)));
        v1::RouterSearchRequest search;
        search.add_spaces("acme");
        search.set_query("hello");
        v1::RouterSearchResponse found;
        const auto status = router->Search(contextWithDeadline().get(), search, &found);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
    }
    // A certificate presented is verified as without tokens: a revoked one is refused.
    auto revoked = ctlVia(dir, controller->address(), certificateOf(dir, "revoked"), { "whoami" }, "ctl-revoked");
    EXPECT_EQ(revoked.code, 6) << revoked.err;

    // --tokens without TLS on a network address does not start, --insecure or not.
    auto insecure = ChildProcess::spawn(
        { controllerBinary(), "--store", store, "--no-executor", "--listen", "0.0.0.0:0", "--insecure",
            "--access-policy", dir.file("access.json"), "--tokens", dir.file("tokens") },
        dir.file("insecure.stderr"));
    ASSERT_TRUE(insecure);
    EXPECT_EQ(insecure->wait(std::chrono::seconds(20)).value_or(-1), 1);
    const std::string said = readWholeFile(dir.file("insecure.stderr"));
    EXPECT_NE(said.find("--tokens needs TLS on 0.0.0.0:0"), std::string::npos) << said;

    // On loopback it does, and a local script may use it without TLS.
    auto local = ControllerProcess::start(dir.file("local.stderr"),
        { "--store", store, "--no-executor", "--access-policy", dir.file("access.json"), "--tokens",
            dir.file("tokens") });
    ASSERT_TRUE(local);
    who = ctlVia(dir, local->address(), { "--token-file", dir.file("ci.token") }, { "whoami" }, "ctl-local");
    EXPECT_EQ(who.out, "token:ci-bot (operator, by token)\n") << who.err;

    // To another host shardmapctl sends no token without TLS, before it connects at all.
    auto refused = ctlVia(dir, "192.0.2.1:7500", { "--token-file", dir.file("ci.token") }, { "whoami" }, "ctl-plain");
    EXPECT_NE(refused.code, 0);
    EXPECT_NE(refused.err.find("a bearer token is sent to 192.0.2.1:7500 only over TLS: pass --controller-ca"),
        std::string::npos)
        << refused.err;
}

// docs/ACCESS.md, "Applications": with an access policy, shardmapd's Router wants a viewer to
// search and an operator to write documents; a certificate without a role does neither.
TEST(NodeAccessTest, WithAnAccessPolicyTheRouterWantsAViewerToSearchAndAnOperatorToWrite)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    auto node = startAccessNode(dir);
    ASSERT_TRUE(node);
    const std::string store = "sqlite:" + dir.file("map.db");
    const std::vector<std::string> nodeTls { "--node-tls-ca", dir.file("ca.pem"), "--node-tls-cert",
        dir.file("controller.pem"), "--node-tls-key", dir.file("controller.key") };
    ASSERT_EQ(runCtl(dir, store, { "init" }).code, 0);
    ASSERT_EQ(runCtl(dir, store, { "node", "add", "n1", node->address() }).code, 0);
    auto shard = nodeTls;
    shard.insert(shard.begin(), { "shard", "create", "s1", "--node", "n1" });
    ASSERT_EQ(runCtl(dir, store, shard).code, 0);
    // client.pem names dns:localhost (a DNS name: typed, issue 25); controller.pem's identity has no role here.
    std::ofstream(dir.file("access.json"))
        << R"({"version": 1, "roles": {"dns:localhost": "operator", "reader-x": "viewer"}})";
    auto args = serverTls(dir);
    args.insert(args.end(), { "--store", store, "--no-executor", "--access-policy", dir.file("access.json") });
    args.insert(args.end(), nodeTls.begin(), nodeTls.end());
    auto controller = ControllerProcess::start(dir.file("shardmapd.stderr"), args);
    ASSERT_TRUE(controller);

    const auto write = [&](const std::string& as, const std::string& id, v1::RouterWriteResponse& response) {
        v1::RouterWriteRequest request;
        *request.add_docs() = makeDoc("acme", id, 1, "routed");
        return v1::Router::NewStub(channelAs(dir, controller->address(), as))
            ->BulkWrite(contextWithDeadline().get(), request, &response);
    };
    const auto search = [&](const std::string& as) {
        v1::RouterSearchRequest request;
        request.add_spaces("acme");
        request.set_query("routed");
        v1::RouterSearchResponse response;
        return v1::Router::NewStub(channelAs(dir, controller->address(), as))
            ->Search(contextWithDeadline().get(), request, &response);
    };
    v1::RouterWriteResponse written;
    const auto byOperator = write("client", "d1", written);
    ASSERT_TRUE(byOperator.ok()) << byOperator.error_message();
    EXPECT_EQ(written.applied(), 1u);
    EXPECT_TRUE(search("reader").ok());

    v1::RouterWriteResponse refused;
    const auto byViewer = write("reader", "d2", refused);
    EXPECT_EQ(byViewer.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(
        byViewer.error_message(), "reader-x is a viewer; writing documents through the router needs the operator role");
    const auto byNobody = write("controller", "d3", refused);
    EXPECT_EQ(byNobody.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(byNobody.error_message(),
        std::string(kControllerIdentity)
            + " is not given a role; writing documents through the router needs the operator role");
    const auto searchByNobody = search("controller");
    EXPECT_EQ(searchByNobody.error_code(), grpc::StatusCode::PERMISSION_DENIED) << searchByNobody.error_message();
    EXPECT_EQ(scanAll(*nodeAs(dir, node->address(), "reader"), "s1", "acme").size(), 1u) << "only d1 was written";
}

// docs/NODE.md, "Who may change a node": a node that checks client certificates but lists no
// controller says at start that any certificate of the CA may change it.
TEST(NodeAccessTest, ANodeWithoutAControllerListWarnsThatAnyCertificateMayChangeIt)
{
    TempDir dir;
    ASSERT_TRUE(makeAccessCertificates(dir)) << "openssl could not make test certificates";
    const std::string warning = "no --controller-identity: every client certificate --tls-ca signed may change "
                                "shards, ownership and documents";
    auto open = NodeProcess::start(dir.file("open"), serverTls(dir));
    ASSERT_TRUE(open);
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return open->stderrText().find(warning) != std::string::npos;
    })) << open->stderrText();
    EXPECT_TRUE(createShard(*nodeAs(dir, open->address(), "reader"), "s1").ok()) << "as the warning says";
    auto listed = startAccessNode(dir);
    ASSERT_TRUE(listed);
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return listed->stderrText().find("only controllers may change") != std::string::npos;
    })) << listed->stderrText();
    EXPECT_EQ(listed->stderrText().find(warning), std::string::npos) << listed->stderrText();
}

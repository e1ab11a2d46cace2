// TLS and client-certificate checks against a real shardmap-node with certificates made here.
#include "ctl_run.h"
#include "node_test_helpers.h"
#include "tests/support/certificates.h"
#include "tests/support/controller_process.h"
#include "tests/support/workload.h"

#include <cstdlib>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

bool makeCertificates(const TempDir& dir)
{
    return makeTestCertificates(dir.path());
}

grpc::Status nodeInfo(const std::shared_ptr<grpc::ChannelCredentials>& credentials, const std::string& address)
{
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    auto channel = grpc::CreateCustomChannel(address, credentials, args);
    auto stub = v1::Node::NewStub(channel);
    v1::NodeInfo info;
    return stub->GetNodeInfo(contextWithDeadline(std::chrono::seconds(5)).get(), {}, &info);
}

} // namespace

TEST(NodeTlsTest, ClientCertificatesAreRequiredAndVerified)
{
    TempDir dir;
    ASSERT_TRUE(makeCertificates(dir)) << "openssl could not make test certificates";
    std::vector<std::string> argv { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dir.file("d"), "--tls-cert",
        dir.file("server.pem"), "--tls-key", dir.file("server.key"), "--tls-ca", dir.file("ca.pem") };
    auto child = ChildProcess::spawn(argv, dir.file("node.stderr"));
    ASSERT_TRUE(child);
    const auto line = child->readLine(std::chrono::seconds(20));
    ASSERT_TRUE(line && line->starts_with("listening on ")) << readWholeFile(dir.file("node.stderr"));
    const std::string address = line->substr(13);

    grpc::SslCredentialsOptions withCert;
    withCert.pem_root_certs = readWholeFile(dir.file("ca.pem"));
    withCert.pem_private_key = readWholeFile(dir.file("client.key"));
    withCert.pem_cert_chain = readWholeFile(dir.file("client.pem"));
    EXPECT_TRUE(nodeInfo(grpc::SslCredentials(withCert), address).ok());

    grpc::SslCredentialsOptions withoutCert;
    withoutCert.pem_root_certs = withCert.pem_root_certs;
    EXPECT_EQ(nodeInfo(grpc::SslCredentials(withoutCert), address).error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(nodeInfo(grpc::InsecureChannelCredentials(), address).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST(NodeTlsTest, TlsAllowsNonLoopbackAndMissingKeyIsAClearError)
{
    TempDir dir;
    ASSERT_TRUE(makeCertificates(dir));
    // Off loopback with client certificates: server-only TLS there is refused (node_hardening_test).
    auto withKey = ChildProcess::spawn(
        { nodeBinary(), "--listen", "0.0.0.0:0", "--data-dir", dir.file("d"), "--tls-cert", dir.file("server.pem"),
            "--tls-key", dir.file("server.key"), "--tls-ca", dir.file("ca.pem") },
        dir.file("a.stderr"));
    ASSERT_TRUE(withKey);
    const auto line = withKey->readLine(std::chrono::seconds(20));
    EXPECT_TRUE(line && line->starts_with("listening on 0.0.0.0:")) << readWholeFile(dir.file("a.stderr"));

    auto noKey = ChildProcess::spawn(
        { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dir.file("e"), "--tls-cert", dir.file("server.pem") },
        dir.file("b.stderr"));
    ASSERT_TRUE(noKey);
    EXPECT_NE(noKey->wait(std::chrono::seconds(10)).value_or(0), 0);
    EXPECT_NE(readWholeFile(dir.file("b.stderr")).find("--tls-cert needs --tls-key"), std::string::npos);
}

// Issue 15: a fleet whose nodes accept only mutual TLS works end to end from shardmapctl and
// shardmapd given the node TLS flags; without a client certificate they are refused.
TEST(NodeTlsTest, ShardmapctlAndShardmapdReachMutualTlsNodes)
{
    TempDir dir;
    ASSERT_TRUE(makeCertificates(dir));
    std::vector<std::unique_ptr<NodeProcess>> nodes;
    for (int i = 0; i < 2; ++i) {
        nodes.push_back(NodeProcess::start(dir.file("node" + std::to_string(i)),
            { "--tls-cert", dir.file("server.pem"), "--tls-key", dir.file("server.key"), "--tls-ca",
                dir.file("ca.pem") }));
        ASSERT_TRUE(nodes.back());
    }
    const std::string store = "sqlite:" + dir.file("map.db");
    const std::vector<std::string> tls { "--node-tls-ca", dir.file("ca.pem"), "--node-tls-cert", dir.file("client.pem"),
        "--node-tls-key", dir.file("client.key") };
    auto ctl = [&](std::vector<std::string> args, bool withTls = true) {
        if (withTls)
            args.insert(args.end(), tls.begin(), tls.end());
        return runCtl(dir, store, args);
    };
    ASSERT_EQ(ctl({ "init" }).code, 0);
    for (int i = 0; i < 2; ++i) {
        const auto n = std::to_string(i);
        ASSERT_EQ(ctl({ "node", "add", "n" + n, nodes[static_cast<std::size_t>(i)]->address() }).code, 0);
    }
    // Without the flags, or with the CA but no client certificate, the node refuses shardmapctl.
    const auto plain = ctl({ "shard", "create", "s0", "--node", "n0" }, false);
    EXPECT_NE(plain.code, 0);
    const auto noCert
        = runCtl(dir, store, { "shard", "create", "s0", "--node", "n0", "--node-tls-ca", dir.file("ca.pem") });
    EXPECT_NE(noCert.code, 0);
    const auto noKey = runCtl(dir, store,
        { "shard", "create", "s0", "--node", "n0", "--node-tls-ca", dir.file("ca.pem"), "--node-tls-cert",
            dir.file("client.pem") });
    EXPECT_NE(noKey.code, 0);
    EXPECT_NE(noKey.err.find("--node-tls-key"), std::string::npos) << noKey.err;
    for (int i = 0; i < 2; ++i) {
        const auto n = std::to_string(i);
        const auto created = ctl({ "shard", "create", "s" + n, "--node", "n" + n });
        ASSERT_EQ(created.code, 0) << created.err;
    }
    const auto written = ctl({ "write", "--space", "acme", "--id", "d1", "--field", "body=over tls" });
    ASSERT_EQ(written.code, 0) << written.err;

    // shardmapd with the flags routes writes and runs a migration on the TLS-only nodes.
    std::vector<std::string> args { "--store", store, "--id", "tls", "--lease-ttl-ms", "1000" };
    args.insert(args.end(), tls.begin(), tls.end());
    auto controller = ControllerProcess::start(dir.file("shardmapd.stderr"), args);
    ASSERT_TRUE(controller);
    WritePath viaController = routerServicePath(controller->address());
    std::vector<core::ItemResult> results;
    std::string error;
    ASSERT_TRUE(viaController({ core::Document { "acme", "d2", 1, { { "body", "routed" } }, false } }, results, error))
        << error << controller->stderrText();
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].outcome, core::WriteOutcome::Applied) << results[0].reason;
    const auto map = ctl({ "--json", "space", "list" });
    ASSERT_EQ(map.code, 0) << map.err;
    const std::string from = map.parsed().at("spaces").at(0).at("shard").get<std::string>();
    const auto drained = ctl({ "drain", from });
    ASSERT_EQ(drained.code, 0) << drained.err;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] {
        const auto now = ctl({ "--json", "space", "list" });
        // Cut over to the other shard (its cleanup waits for the rollback window).
        return now.code == 0 && now.parsed().at("spaces").at(0).at("shard").get<std::string>() != from;
    })) << controller->stderrText();

    // Without the flags, shardmapd cannot reach them: its writes fail.
    auto plainController
        = ControllerProcess::start(dir.file("plain.stderr"), { "--store", store, "--id", "plain", "--no-executor" });
    ASSERT_TRUE(plainController);
    WritePath viaPlain = routerServicePath(plainController->address());
    EXPECT_FALSE(viaPlain({ core::Document { "acme", "d3", 1, { { "body", "refused" } }, false } }, results, error));
    // A half-given client certificate stops shardmapd at start, saying what is missing.
    auto halfTls = ChildProcess::spawn({ controllerBinary(), "--store", store, "--node-tls-ca", dir.file("ca.pem"),
                                           "--node-tls-cert", dir.file("client.pem") },
        dir.file("half.stderr"));
    ASSERT_TRUE(halfTls);
    EXPECT_NE(halfTls->wait(std::chrono::seconds(10)).value_or(0), 0);
    EXPECT_NE(readWholeFile(dir.file("half.stderr")).find("--node-tls-key"), std::string::npos);
}

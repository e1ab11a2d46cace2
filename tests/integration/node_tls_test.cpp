// TLS and client-certificate checks against a real shardmap-node with certificates made here.
#include "node_test_helpers.h"
#include "tests/support/certificates.h"

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
    auto withKey = ChildProcess::spawn({ nodeBinary(), "--listen", "0.0.0.0:0", "--data-dir", dir.file("d"),
                                           "--tls-cert", dir.file("server.pem"), "--tls-key", dir.file("server.key") },
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

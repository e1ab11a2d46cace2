// Issue 25: identities, people and secret files against real processes. Certificates that try to
// pass for someone else through another field (a CN that reads like the controller's URI SAN, a
// DNS SAN that reads like an admin's CN), one person approving their own request with a second
// identity, an operator refusing what only an admin may decide, and the files shardmapd and the
// stores keep secrets in: each refused with the reason, the servers still serving.
#include "admin_fixture.h"
#include "core/auth/bearer_tokens.h"
#include "node_test_helpers.h"

#include <arpa/inet.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

// Whether shardmapd's log has a line at `level` that says `fragment`.
bool logged(const std::string& log, const std::string& level, const std::string& fragment)
{
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.find(" " + level + " ") != std::string::npos && line.find(fragment) != std::string::npos)
            return true;
    }
    return false;
}

unsigned modeOf(const std::string& path)
{
    struct stat info { };
    EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
    return info.st_mode & 0777;
}

class IdentityTest : public AdminFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(makeTestCertificates(m_dir.path()));
        ASSERT_TRUE(makeAccessTestCertificates(m_dir.path()));
        ASSERT_TRUE(makeLookalikeCertificates(m_dir.path()));
        for (const char* name : { "alice", "bob", "carol", "olga" })
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        startCtlFleet(m_dir, storeUri(), m_nodes);
        // Two spaces on s0, so that draining it moves more than the approval threshold of one.
        for (const char* space : { "acme", "globex" }) {
            ASSERT_EQ(
                runCtl(m_dir, storeUri(), { "write", "--space", space, "--id", "d1", "--field", "title=x" }).code, 0);
            if (map().spaces.at(space).value.shard != "s0") {
                ASSERT_EQ(runCtl(m_dir, storeUri(), { "space", "reassign", space, "s0" }).code, 0);
            }
        }
    }

    // shardmapd with mutual TLS, the role file access.json and, when there is one, the tokens file.
    void startController(const std::string& policy, bool tokens = false)
    {
        std::ofstream(m_dir.file("access.json")) << policy;
        std::vector<std::string> args { "--store", storeUri(), "--id", "c1", "--no-executor", "--tls-cert",
            m_dir.file("server.pem"), "--tls-key", m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"),
            "--access-policy", m_dir.file("access.json") };
        if (tokens)
            args.insert(args.end(), { "--tokens", m_dir.file("tokens") });
        m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"), args);
        ASSERT_TRUE(m_controller);
    }

    // shardmapctl through the Admin API with the token in dir/NAME.token.
    CtlRun withToken(const std::string& name, std::vector<std::string> args)
    {
        std::vector<std::string> argv { SHARDMAP_CTL_BINARY, "--controller", m_controller->address(), "--controller-ca",
            m_dir.file("ca.pem"), "--token-file", m_dir.file(name + ".token") };
        argv.insert(argv.end(), args.begin(), args.end());
        return runProgram(m_dir, argv, {}, "ctl-" + name);
    }
};

TEST_F(IdentityTest, ACertificateWhoseDnsNameOrCommonNameReadsLikeSomeoneElsesGetsNoRole)
{
    startController(R"({"version": 1, "roles": {"alice": "admin", "spiffe://shardmap.test/shardmapd": "admin"}})");
    const auto before = map().revision;

    // CN vera2 with DNS SAN alice is dns:alice, not the admin whose CN is alice.
    auto who = as("dns-alice", { "whoami" });
    EXPECT_EQ(who.out, "dns:alice (none, by certificate)\n") << who.err;
    auto byDnsName = as("dns-alice", { "shard", "create", "s9", "--node", "n0" });
    EXPECT_EQ(byDnsName.code, 7) << byDnsName.err;
    EXPECT_NE(byDnsName.err.find("dns:alice is not given a role"), std::string::npos) << byDnsName.err;

    // A CN that reads like the controller's URI SAN is that CN, not the URI.
    auto byCommonName = as("uri-cn", { "node", "add", "n9", "127.0.0.1:1" });
    EXPECT_EQ(byCommonName.code, 7) << byCommonName.err;
    EXPECT_NE(byCommonName.err.find("cn:spiffe://shardmap.test/shardmapd is not given a role"), std::string::npos)
        << byCommonName.err;
    EXPECT_EQ(map().revision, before) << "a refused call commits nothing";

    // The real ones still may, and the audit names them as typed.
    auto byAlice = as("alice", { "shard", "create", "s9", "--node", "n0" });
    EXPECT_EQ(byAlice.code, 0) << byAlice.err;
    EXPECT_EQ(lastAudit().actor, "alice");
    auto byController = as("controller", { "whoami" });
    EXPECT_EQ(byController.out, "spiffe://shardmap.test/shardmapd (admin, by certificate)\n") << byController.err;
}

TEST_F(IdentityTest, ACommonNameThatReadsLikeTheControllersUriMayNotChangeANode)
{
    auto node = NodeProcess::start(m_dir.file("typed-node"),
        { "--tls-cert", m_dir.file("server.pem"), "--tls-key", m_dir.file("server.key"), "--tls-ca",
            m_dir.file("ca.pem"), "--controller-identity", kControllerIdentity });
    ASSERT_TRUE(node);
    const auto stubAs = [&](const std::string& name) {
        grpc::SslCredentialsOptions options;
        options.pem_root_certs = readWholeFile(m_dir.file("ca.pem"));
        options.pem_private_key = readWholeFile(m_dir.file(name + ".key"));
        options.pem_cert_chain = readWholeFile(m_dir.file(name + ".pem"));
        return v1::Node::NewStub(grpc::CreateChannel(node->address(), grpc::SslCredentials(options)));
    };

    const auto refused = createShard(*stubAs("uri-cn"), "s1");
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << refused.error_message();
    EXPECT_NE(refused.error_message().find(
                  "only controllers may call CreateShard; 'cn:spiffe://shardmap.test/shardmapd' is not one"),
        std::string::npos)
        << refused.error_message();
    v1::ListShardsResponse shards;
    ASSERT_TRUE(stubAs("uri-cn")->ListShards(contextWithDeadline().get(), {}, &shards).ok()) << "it may still read";
    EXPECT_EQ(shards.shards_size(), 0);

    // The certificate with that URI SAN still changes the node.
    const auto created = createShard(*stubAs("controller"), "s1");
    EXPECT_TRUE(created.ok()) << created.error_message();

    // A value of an unknown kind stops a node at start.
    auto typo = ChildProcess::spawn({ nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", m_dir.file("typo-node"),
                                        "--tls-cert", m_dir.file("server.pem"), "--tls-key", m_dir.file("server.key"),
                                        "--tls-ca", m_dir.file("ca.pem"), "--controller-identity", "spiffe:shardmapd" },
        m_dir.file("typo-node.stderr"));
    ASSERT_TRUE(typo);
    EXPECT_NE(typo->wait(std::chrono::seconds(20)).value_or(0), 0);
    EXPECT_NE(readWholeFile(m_dir.file("typo-node.stderr"))
                  .find("--controller-identity: identity 'spiffe:shardmapd' has an unknown kind"),
        std::string::npos)
        << readWholeFile(m_dir.file("typo-node.stderr"));
}

TEST_F(IdentityTest, APersonApprovesNoRequestOfTheirOwnWithAnotherIdentity)
{
    auto token = core::newToken("bob.ci");
    ASSERT_TRUE(token) << token.error().describe();
    writeSecretFile(m_dir.file("tokens"), token->line + "\n");
    std::ofstream(m_dir.file("bob.ci.token")) << token->token << "\n";
    startController(R"({"version": 1,
        "roles": {"alice": "admin", "carol": "admin", "bob": "operator", "token:bob.ci": "operator",
                  "olga": "operator"},
        "people": {"bob": ["bob", "token:bob.ci"]},
        "approval": {"max_spaces": 1}})",
        true);

    auto asked = as("bob", { "--json", "drain", "s0", "--reason", "new disks" });
    ASSERT_EQ(asked.code, 10) << asked.err << asked.out;
    const std::string id = asked.parsed()["awaiting_approval"]["id"];
    for (const char* decision : { "approve", "refuse" }) {
        SCOPED_TRACE(decision);
        auto self = withToken("bob.ci", { "approvals", decision, id });
        EXPECT_EQ(self.code, 7) << self.err;
        EXPECT_NE(
            self.err.find("token:bob.ci and bob, who requested " + id + ", are one person (bob"), std::string::npos)
            << self.err;
    }
    EXPECT_TRUE(map().operations.empty()) << "nothing is made before another person approves";

    // Another person approves it, and the token still works for what it may do.
    auto approved = as("olga", { "approvals", "approve", id });
    EXPECT_EQ(approved.code, 0) << approved.err;
    EXPECT_EQ(map().operations.size(), 1u);
    auto who = withToken("bob.ci", { "whoami" });
    EXPECT_EQ(who.out, "token:bob.ci (operator, by token)\n") << who.err;
}

TEST_F(IdentityTest, OnlyWhoCouldApproveARequestMayRefuseIt)
{
    startController(R"({"version": 1,
        "roles": {"alice": "admin", "carol": "admin", "bob": "operator", "olga": "operator"}})");
    // Raising a setting is an admin's change, and it waits for a second person.
    auto asked = as("alice", { "--json", "migrations", "settings", "--max-concurrent", "16" });
    ASSERT_EQ(asked.code, 10) << asked.err << asked.out;
    const std::string id = asked.parsed()["awaiting_approval"]["id"];

    auto byOperator = as("olga", { "approvals", "refuse", id, "--reason", "not today" });
    EXPECT_EQ(byOperator.code, 7) << byOperator.err;
    EXPECT_NE(byOperator.err.find("olga is an operator; " + id), std::string::npos) << byOperator.err;
    EXPECT_NE(byOperator.err.find("only an admin may approve or refuse it"), std::string::npos) << byOperator.err;
    auto pending = as("olga", { "approvals", "list", "--pending" });
    EXPECT_EQ(pending.code, 0) << pending.err;
    EXPECT_NE(pending.out.find(id + "  pending"), std::string::npos) << "still pending: " << pending.out;

    auto byAdmin = as("carol", { "approvals", "refuse", id, "--reason", "not today" });
    EXPECT_EQ(byAdmin.code, 0) << byAdmin.err;
    EXPECT_NE(byAdmin.out.find("refused by carol"), std::string::npos) << byAdmin.out;
}

// The tokens file and the policy file as shardmapd re-reads them (docs/ACCESS.md, "The tokens file").
class SecretFilesTest : public IdentityTest {
protected:
    void SetUp() override
    {
        IdentityTest::SetUp();
        for (const char* name : { "a", "b", "c" }) {
            auto made = core::newToken("ci");
            ASSERT_TRUE(made);
            m_lines[name] = made->line;
            std::ofstream(m_dir.file(std::string(name) + ".token")) << made->token << "\n";
        }
    }

    // Waits out shardmapd's one-second look at its files.
    static void letItLook() { std::this_thread::sleep_for(std::chrono::milliseconds(1100)); }

    void expectTokenWorks(const std::string& name)
    {
        auto who = withToken(name, { "whoami" });
        EXPECT_EQ(who.code, 0) << who.err;
        EXPECT_EQ(who.out, "token:ci (operator, by token)\n") << who.err;
    }

    void expectTokenRefused(const std::string& name, const std::string& why)
    {
        auto who = withToken(name, { "whoami" });
        EXPECT_EQ(who.code, 7) << who.out;
        EXPECT_NE(who.err.find(why), std::string::npos) << who.err;
    }

    const std::string m_policy = R"({"version": 1, "roles": {"alice": "admin", "token:ci": "operator"}})";
    std::map<std::string, std::string> m_lines;
};

TEST_F(SecretFilesTest, ATokensFileOthersMayReadStopsShardmapdAtStart)
{
    std::ofstream(m_dir.file("access.json")) << m_policy;
    writeSecretFile(m_dir.file("tokens"), m_lines["a"] + "\n");
    std::filesystem::permissions(m_dir.file("tokens"),
        std::filesystem::perms::group_read | std::filesystem::perms::others_read, std::filesystem::perm_options::add);
    auto refused
        = ChildProcess::spawn({ controllerBinary(), "--store", storeUri(), "--listen", "127.0.0.1:0", "--no-executor",
                                  "--access-policy", m_dir.file("access.json"), "--tokens", m_dir.file("tokens") },
            m_dir.file("refused.stderr"));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->wait(std::chrono::seconds(20)).value_or(-1), 1);
    const std::string said = readWholeFile(m_dir.file("refused.stderr"));
    EXPECT_NE(said.find("--tokens: the file " + m_dir.file("tokens")
                  + " may be read by other accounts (mode 0644); a secret must be readable only by its owner: "
                    "chmod 600"),
        std::string::npos)
        << said;
}

TEST_F(SecretFilesTest, ATokensFileItsGroupMayReadStopsShardmapdAtStartToo)
{
    std::ofstream(m_dir.file("access.json")) << m_policy;
    writeSecretFile(m_dir.file("tokens"), m_lines["a"] + "\n");
    std::filesystem::permissions(
        m_dir.file("tokens"), std::filesystem::perms::group_read, std::filesystem::perm_options::add);
    ASSERT_EQ(modeOf(m_dir.file("tokens")), 0640u);
    auto refused
        = ChildProcess::spawn({ controllerBinary(), "--store", storeUri(), "--listen", "127.0.0.1:0", "--no-executor",
                                  "--access-policy", m_dir.file("access.json"), "--tokens", m_dir.file("tokens") },
            m_dir.file("refused.stderr"));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->wait(std::chrono::seconds(20)).value_or(-1), 1);
    const std::string said = readWholeFile(m_dir.file("refused.stderr"));
    EXPECT_NE(said.find("--tokens: the file " + m_dir.file("tokens")
                  + " may be read by other accounts (mode 0640); a secret must be readable only by its owner: "
                    "chmod 600"),
        std::string::npos)
        << said;
}

TEST_F(SecretFilesTest, ATokenTakenOutIsRefusedHoweverTheEditWentAndSaidAtError)
{
    writeSecretFile(m_dir.file("tokens"), m_lines["a"] + "\n");
    startController(m_policy, true);
    expectTokenWorks("a");

    // An edit of the same size, its time put back: the contents changed, so it is read.
    const auto time = std::filesystem::last_write_time(m_dir.file("tokens"));
    writeSecretFile(m_dir.file("tokens"), m_lines["b"] + "\n");
    std::filesystem::last_write_time(m_dir.file("tokens"), time);
    letItLook();
    expectTokenRefused("a", "the bearer token is not one this controller knows");
    expectTokenWorks("b");

    // Taking b out in an edit that does not parse: no token is valid until it is fixed.
    writeSecretFile(m_dir.file("tokens"), m_lines["c"] + "\nbroken\n");
    letItLook();
    const std::string broken = "shardmapd's --tokens file is missing or broken, so it takes no bearer token now";
    expectTokenRefused("b", broken);
    expectTokenRefused("c", broken);
    EXPECT_TRUE(logged(m_controller->stderrText(), "error", "--tokens: " + m_dir.file("tokens") + ":2: expected"))
        << m_controller->stderrText();
    writeSecretFile(m_dir.file("tokens"), m_lines["c"] + "\n");
    letItLook();
    expectTokenWorks("c");
    expectTokenRefused("b", "the bearer token is not one this controller knows");

    // Deleted: no token, said at error; back: its tokens work again.
    std::filesystem::remove(m_dir.file("tokens"));
    letItLook();
    expectTokenRefused("c", broken);
    EXPECT_TRUE(logged(m_controller->stderrText(), "error", "--tokens: cannot read the file " + m_dir.file("tokens")))
        << m_controller->stderrText();
    writeSecretFile(m_dir.file("tokens"), m_lines["c"] + "\n");
    letItLook();
    expectTokenWorks("c");

    // Made readable by others while shardmapd runs: treated as broken.
    std::filesystem::permissions(
        m_dir.file("tokens"), std::filesystem::perms::others_read, std::filesystem::perm_options::add);
    letItLook();
    expectTokenRefused("c", broken);
    EXPECT_TRUE(logged(m_controller->stderrText(), "error", "may be read by other accounts (mode 0604)"))
        << m_controller->stderrText();
    writeSecretFile(m_dir.file("tokens"), m_lines["c"] + "\n");
    letItLook();
    expectTokenWorks("c");
    EXPECT_TRUE(logged(m_controller->stderrText(), "info", "is good again"));
    // Certificates never depended on the file.
    EXPECT_EQ(as("alice", { "whoami" }).out, "alice (admin, by certificate)\n");
}

TEST_F(SecretFilesTest, ABadEditOfThePolicyKeepsTheLastGoodOneAndIsSaidAtError)
{
    writeSecretFile(m_dir.file("tokens"), m_lines["a"] + "\n");
    startController(m_policy, true);
    std::ofstream(m_dir.file("access.json"), std::ios::trunc)
        << R"({"version": 1, "roles": {"alice": "boss", "token:ci": "operator"}})";
    letItLook();
    EXPECT_EQ(as("alice", { "whoami" }).out, "alice (admin, by certificate)\n") << "the last good policy";
    EXPECT_TRUE(logged(m_controller->stderrText(), "error",
        "--access-policy: " + m_dir.file("access.json") + ": roles.alice: unknown role 'boss'"))
        << m_controller->stderrText();
    EXPECT_TRUE(logged(m_controller->stderrText(), "error", "the last good contents stay in force"));
    expectTokenWorks("a");
}

// The store's own files (docs/SHARD_MAP.md).
TEST(StoreSecretsTest, ANewSqliteStoreIsTheOwnersAloneWhateverTheUmask)
{
    TempDir dir;
    const mode_t umaskBefore = ::umask(022);
    const std::string store = "sqlite:" + dir.file("map.db");
    auto init = runCtl(dir, store, { "init" });
    EXPECT_EQ(init.code, 0) << init.err;
    EXPECT_EQ(modeOf(dir.file("map.db")), 0600u);
    {
        // While a writer has it open, its -wal and -shm files exist, with the database's mode.
        auto opened = core::openStore(store, false);
        ASSERT_TRUE(opened) << opened.error().describe();
        ASSERT_TRUE(
            (*opened)->commit({ { { "k", "v", std::nullopt } }, std::nullopt, std::nullopt, "tester", "t", "" }));
        for (const char* suffix : { "-wal", "-shm" }) {
            SCOPED_TRACE(suffix);
            ASSERT_TRUE(std::filesystem::exists(dir.file(std::string("map.db") + suffix)));
            EXPECT_EQ(modeOf(dir.file(std::string("map.db") + suffix)), 0600u);
        }
    }
    ::umask(umaskBefore);
    auto listed = runCtl(dir, store, { "node", "list" });
    EXPECT_EQ(listed.code, 0) << listed.err;
}

TEST(StoreSecretsTest, AnEtcdPasswordGoesOffThisHostOnlyOverTlsAndFromAFileOnlyItsOwnerReads)
{
    TempDir dir;
    // 0.0.0.0 is no loopback address by the rule, yet the kernel would deliver a connection to it
    // here: had shardmapctl connected, this listener (127.0.0.1) would have it waiting.
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listener, 8), 0);
    socklen_t length = sizeof address;
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    const std::string endpoint = "0.0.0.0:" + std::to_string(ntohs(address.sin_port));

    auto refused = runCtl(
        dir, "etcd://" + endpoint + "/shardmap?user=operator&password=op-pw&timeout_ms=2000", { "node", "list" });
    EXPECT_NE(refused.code, 0);
    EXPECT_NE(
        refused.err.find("the etcd password of user 'operator' is sent to " + endpoint + " only over TLS: add ca=FILE"),
        std::string::npos)
        << refused.err;
    EXPECT_EQ(refused.err.find("op-pw"), std::string::npos) << "the password in an error";
    EXPECT_LT(::accept(listener, nullptr, nullptr), 0) << "shardmapctl connected before it refused";
    ::close(listener);

    // A password file others may read is refused, saying how to fix it.
    std::ofstream(dir.file("etcd.password")) << "op-pw\n";
    std::filesystem::permissions(dir.file("etcd.password"),
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | std::filesystem::perms::group_read
            | std::filesystem::perms::others_read);
    auto shared = runCtl(dir, "etcd://127.0.0.1:1/shardmap?user=operator&password_file=" + dir.file("etcd.password"),
        { "node", "list" });
    EXPECT_NE(shared.code, 0);
    EXPECT_NE(shared.err.find("the etcd password file " + dir.file("etcd.password")
                  + " may be read by other accounts (mode 0644); a secret must be readable only by its owner: chmod "
                    "600"),
        std::string::npos)
        << shared.err;
}

TEST(StoreSecretsTest, ShardmapdSendsAnEtcdPasswordOffThisHostOnlyOverTlsAndReadsItOnlyFromItsOwnersFile)
{
    TempDir dir;
    // As for shardmapctl: a listener that would hold shardmapd's connection, had it made one.
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(listener, 8), 0);
    socklen_t length = sizeof address;
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    const std::string endpoint = "0.0.0.0:" + std::to_string(ntohs(address.sin_port));
    const auto start = [&](const std::string& store, const std::string& name) {
        auto controller
            = ChildProcess::spawn({ controllerBinary(), "--store", store, "--listen", "127.0.0.1:0", "--no-executor" },
                dir.file(name + ".stderr"));
        EXPECT_TRUE(controller);
        EXPECT_EQ(controller ? controller->wait(std::chrono::seconds(20)).value_or(-1) : -1, 1);
        return readWholeFile(dir.file(name + ".stderr"));
    };

    const std::string plaintext
        = start("etcd://" + endpoint + "/shardmap?user=shardmapd&password=op-pw&timeout_ms=2000", "plaintext");
    EXPECT_NE(
        plaintext.find("the etcd password of user 'shardmapd' is sent to " + endpoint + " only over TLS: add ca=FILE"),
        std::string::npos)
        << plaintext;
    EXPECT_EQ(plaintext.find("op-pw"), std::string::npos) << "the password in shardmapd's log";
    EXPECT_LT(::accept(listener, nullptr, nullptr), 0) << "shardmapd connected before it refused";
    ::close(listener);

    // A password file its group may read (0640) is refused as one anyone may read is.
    std::ofstream(dir.file("etcd.password")) << "op-pw\n";
    std::filesystem::permissions(dir.file("etcd.password"),
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | std::filesystem::perms::group_read);
    const std::string shared
        = start("etcd://127.0.0.1:1/shardmap?user=shardmapd&password_file=" + dir.file("etcd.password"), "shared");
    EXPECT_NE(shared.find("the etcd password file " + dir.file("etcd.password")
                  + " may be read by other accounts (mode 0640); a secret must be readable only by its owner: chmod "
                    "600"),
        std::string::npos)
        << shared;
    EXPECT_EQ(shared.find("op-pw"), std::string::npos) << "the password in shardmapd's log";
}

} // namespace

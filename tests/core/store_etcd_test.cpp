// etcd-only cases of the metadata store: what the SQLite backend has no counterpart for (several
// endpoints, a server that restarts, compaction, authentication). The cases both backends share
// are in store_conformance_test.cpp.

#include "core/store/audit_chain.h"
#include "core/store/etcd_store.h"
#include "core/util/failpoint.h"
#include "tests/core/test_helpers.h"
#include "tests/support/certificates.h"
#include "tests/support/etcd_process.h"
#include "tests/support/etcd_roles.h"

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

using namespace shardmap::core;
using shardmap::testing::errorText;
using namespace std::chrono_literals;
using shardmap::testing::EtcdProcess;
using shardmap::testing::etcdUriAs;
using shardmap::testing::TempDir;
using shardmap::testing::writeSecretFile;

namespace {

CommitRequest etcdCommit(const std::string& key, const std::string& value)
{
    CommitRequest result;
    result.mutations.push_back({ key, value, std::nullopt });
    result.actor = "tester";
    result.action = "test";
    return result;
}

// Records a watch delivers, for the test thread to wait on; block() holds the callback.
class EtcdWatchCollector {
public:
    WatchCallback callback()
    {
        return [this](const AuditRecord& record) {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] { return !m_blocked; });
            m_revisions.push_back(record.revision);
            m_changed.notify_all();
        };
    }
    WatchErrorCallback errorCallback()
    {
        return [this](const Error& error) {
            std::lock_guard lock(m_mutex);
            m_errors.push_back(errorText(error));
            m_changed.notify_all();
        };
    }
    void block(bool blocked)
    {
        std::lock_guard lock(m_mutex);
        m_blocked = blocked;
        m_changed.notify_all();
    }
    bool waitForCount(std::size_t count, std::chrono::milliseconds timeout = 30s)
    {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, timeout, [&] { return m_revisions.size() >= count; });
    }
    std::vector<std::uint64_t> revisions()
    {
        std::lock_guard lock(m_mutex);
        return m_revisions;
    }
    std::vector<std::string> errors()
    {
        std::lock_guard lock(m_mutex);
        return m_errors;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_blocked = false;
    std::vector<std::uint64_t> m_revisions;
    std::vector<std::string> m_errors;
};

std::vector<std::uint64_t> revisionsUpTo(std::uint64_t last)
{
    std::vector<std::uint64_t> out;
    for (std::uint64_t revision = 1; revision <= last; ++revision)
        out.push_back(revision);
    return out;
}

// Like the conformance suite: a missing etcd fails these cases unless SHARDMAP_ALLOW_NO_ETCD=1.
bool etcdMayBeMissing()
{
    const char* allowed = std::getenv("SHARDMAP_ALLOW_NO_ETCD");
    return allowed && std::string(allowed) == "1";
}

class EtcdStoreTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::string error;
        m_shared = EtcdProcess::shared(error);
        if (!m_shared && etcdMayBeMissing())
            GTEST_SKIP() << error;
        ASSERT_TRUE(m_shared) << "the etcd backend cannot be tested: " << error;
    }

    // A fresh map on the shared server, reached through endpoints (default: the server's).
    std::string uri(const std::string& endpoints = {}, const std::string& options = {}) const
    {
        const auto name = std::filesystem::path(m_dir.path()).filename().string();
        return "etcd://" + (endpoints.empty() ? m_shared->endpoint() : endpoints) + "/shardmap-test/" + name + options;
    }

    std::unique_ptr<EtcdStore> open(const std::string& uri)
    {
        auto config = EtcdStoreConfig::parse(uri);
        EXPECT_TRUE(config) << errorText(config.error());
        if (!config)
            return nullptr;
        auto store = EtcdStore::open(std::move(*config), true);
        EXPECT_TRUE(store) << errorText(store.error());
        return store ? std::move(*store) : nullptr;
    }

    std::unique_ptr<EtcdProcess> startOwnServer()
    {
        std::string error;
        auto etcd = EtcdProcess::start(error);
        EXPECT_TRUE(etcd) << error;
        return etcd;
    }

    TempDir m_dir;
    EtcdProcess* m_shared = nullptr;
};

TEST(EtcdStoreConfigTest, ParsesEndpointsPrefixAndOptions)
{
    auto config = EtcdStoreConfig::parse("etcd://a:1,b/maps/prod/?user=u&password=p%26q&timeout_ms=250");
    ASSERT_TRUE(config) << errorText(config.error());
    EXPECT_EQ(config->endpoints, (std::vector<std::string> { "a:1", "b:2379" }));
    EXPECT_EQ(config->prefix, "maps/prod");
    EXPECT_EQ(config->user, "u");
    EXPECT_EQ(config->password, "p&q");
    EXPECT_EQ(config->callTimeout, 250ms);
    EXPECT_EQ(config->describe(), "etcd://a:1,b:2379/maps/prod");
    for (const std::string bad : { "etcd://a:1", "etcd://a:1/", "etcd://,a:1/p", "etcd://a:1/p?colour=red",
             "etcd://a:1/p?password=x", "etcd://a:1/p?user=%zz" }) {
        auto refused = EtcdStoreConfig::parse(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument) << bad;
    }
}

TEST_F(EtcdStoreTest, OpenStoreUnderstandsEtcdUrisAndNeedsTheMarker)
{
    auto missing = openStore(uri(), false);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound) << errorText(missing.error());
    auto store = openStore(uri(), true);
    ASSERT_TRUE(store) << errorText(store.error());
    EXPECT_EQ((*store)->describe(), uri());
    auto again = openStore(uri(), false);
    EXPECT_TRUE(again) << errorText(again.error());
}

TEST_F(EtcdStoreTest, FailsOverFromADeadEndpoint)
{
    // Port 1 on loopback refuses connections: every call there fails at once with UNAVAILABLE.
    auto store = open(uri("127.0.0.1:1," + m_shared->endpoint()));
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commit(etcdCommit("k", "1")));
    EtcdWatchCollector collector;
    auto watch = store->watch(0, collector.callback(), collector.errorCallback());
    ASSERT_TRUE(watch);
    ASSERT_TRUE(store->commit(etcdCommit("k", "2")));
    ASSERT_TRUE(collector.waitForCount(2));
    EXPECT_EQ(collector.revisions(), revisionsUpTo(2));
    auto snap = store->snapshot();
    ASSERT_TRUE(snap) << errorText(snap.error());
    EXPECT_EQ(snap->records.at("k").value, "2");

    auto refused = EtcdStore::open(*EtcdStoreConfig::parse(uri("127.0.0.1:1", "?timeout_ms=500")), true);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::Unavailable) << errorText(refused.error());
}

TEST_F(EtcdStoreTest, WatchContinuesAfterTheServerRestarts)
{
    auto etcd = startOwnServer();
    ASSERT_TRUE(etcd);
    // A short call timeout: the commit made while the server is down gives up sooner.
    auto store = open("etcd://" + etcd->endpoint() + "/restart?timeout_ms=2000");
    ASSERT_TRUE(store);
    for (int i = 1; i <= 3; ++i)
        ASSERT_TRUE(store->commit(etcdCommit("k", std::to_string(i))));
    EtcdWatchCollector collector;
    auto watch = store->watch(0, collector.callback(), collector.errorCallback());
    ASSERT_TRUE(watch);
    ASSERT_TRUE(collector.waitForCount(3));

    etcd->stop();
    auto down = store->commit(etcdCommit("k", "down"));
    ASSERT_FALSE(down);
    EXPECT_EQ(down.error().code, ErrorCode::Unavailable) << errorText(down.error());
    std::string error;
    ASSERT_TRUE(etcd->restart(error)) << error;

    for (int i = 4; i <= 5; ++i) {
        auto committed = store->commit(etcdCommit("k", std::to_string(i)));
        ASSERT_TRUE(committed) << errorText(committed.error());
        EXPECT_EQ(*committed, static_cast<std::uint64_t>(i));
    }
    ASSERT_TRUE(collector.waitForCount(5)) << "got " << collector.revisions().size();
    EXPECT_EQ(collector.revisions(), revisionsUpTo(5));
    EXPECT_TRUE(collector.errors().empty());
    watch->reset();
}

TEST_F(EtcdStoreTest, WatchReListsAfterCompactionAndHistoryStaysWhole)
{
    auto store = open(uri());
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commit(etcdCommit("k", "1")));
    EtcdWatchCollector collector;
    // The watch reads revision 1 and is held in its callback; meanwhile the commits it would
    // stream are compacted away, so its etcd watch starts at a compacted revision.
    collector.block(true);
    auto watch = store->watch(0, collector.callback(), collector.errorCallback());
    ASSERT_TRUE(watch);
    std::this_thread::sleep_for(200ms);
    for (int i = 2; i <= 10; ++i)
        ASSERT_TRUE(store->commit(etcdCommit("k", std::to_string(i))));
    ASSERT_TRUE(store->compactEtcd());
    collector.block(false);
    ASSERT_TRUE(collector.waitForCount(10)) << "got " << collector.revisions().size();
    ASSERT_TRUE(store->commit(etcdCommit("k", "11")));
    ASSERT_TRUE(collector.waitForCount(11));
    EXPECT_EQ(collector.revisions(), revisionsUpTo(11));
    EXPECT_TRUE(collector.errors().empty());

    auto history = store->history(0, 0, 0);
    ASSERT_TRUE(history) << errorText(history.error());
    EXPECT_EQ(history->size(), 11u);
    EtcdWatchCollector late;
    auto replay = store->watch(0, late.callback(), late.errorCallback());
    ASSERT_TRUE(replay);
    ASSERT_TRUE(late.waitForCount(11));
    EXPECT_EQ(late.revisions(), revisionsUpTo(11));
}

TEST_F(EtcdStoreTest, DestroyingTheStoreEndsItsWatchesWithAnError)
{
    auto store = open(uri());
    ASSERT_TRUE(store);
    EtcdWatchCollector collector;
    auto watch = store->watch(0, collector.callback(), collector.errorCallback());
    ASSERT_TRUE(watch);
    store.reset();
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (collector.errors().empty() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    ASSERT_EQ(collector.errors().size(), 1u);
    EXPECT_NE(collector.errors()[0].find("closed"), std::string::npos) << collector.errors()[0];
}

TEST_F(EtcdStoreTest, AuthenticatesWithUserAndPassword)
{
    auto etcd = startOwnServer();
    ASSERT_TRUE(etcd);
    std::string error;
    ASSERT_TRUE(etcd->etcdctl({ "user", "add", "root:rootpw" }, error)) << error;
    (void)etcd->etcdctl({ "user", "grant-role", "root", "root" }, error); // 3.4 grants it itself
    ASSERT_TRUE(etcd->etcdctl({ "auth", "enable" }, error)) << error;

    const std::string base = "etcd://" + etcd->endpoint() + "/auth";
    auto store = open(base + "?user=root&password=rootpw");
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commit(etcdCommit("k", "1")));
    EtcdWatchCollector collector;
    auto watch = store->watch(0, collector.callback(), collector.errorCallback());
    ASSERT_TRUE(watch);
    ASSERT_TRUE(store->commit(etcdCommit("k", "2")));
    ASSERT_TRUE(collector.waitForCount(2));
    auto grant = store->acquireLease("leader", "ctl-a", 10s);
    ASSERT_TRUE(grant) << errorText(grant.error());

    for (const std::string options : { "?user=root&password=wrong", "" }) {
        auto refused = EtcdStore::open(*EtcdStoreConfig::parse(base + options), false);
        ASSERT_FALSE(refused) << options;
        EXPECT_EQ(refused.error().code, ErrorCode::FailedPrecondition) << errorText(refused.error());
    }

    // Without the password in the URI (process listings show it): a file, or the environment.
    {
        writeSecretFile(m_dir.file("etcd.password"), "rootpw\n");
        auto fromFile = open(base + "?user=root&password_file=" + m_dir.file("etcd.password"));
        ASSERT_TRUE(fromFile);
        EXPECT_TRUE(fromFile->commit(etcdCommit("k", "3")));
    }
    {
        ::setenv(kEtcdPasswordVariable, "rootpw", 1);
        auto fromEnvironment = open(base + "?user=root");
        ::unsetenv(kEtcdPasswordVariable);
        ASSERT_TRUE(fromEnvironment);
        EXPECT_TRUE(fromEnvironment->commit(etcdCommit("k", "4")));
    }
}

// etcd's own users and roles (docs/SHARD_MAP.md): a viewer's etcd user, with read permission on
// the prefix alone, opens the store, reads, watches and lists leases, and every change it tries is
// refused with a sentence naming the user and the prefix, before anything changed.
TEST_F(EtcdStoreTest, AViewersEtcdUserReadsAndWatchesButEveryChangeIsRefused)
{
    auto etcd = startOwnServer();
    ASSERT_TRUE(etcd);
    std::string error;
    ASSERT_TRUE(shardmap::testing::enableEtcdRoles(*etcd, error)) << error;
    auto writer = open(etcdUriAs(*etcd, "shardmap", "shardmapd"));
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->commit(etcdCommit("k", "1")));
    auto grant = writer->acquireLease("executor", "ctl-a", 60s);
    ASSERT_TRUE(grant) << errorText(grant.error());

    auto opened = EtcdStore::open(*EtcdStoreConfig::parse(etcdUriAs(*etcd, "shardmap", "viewer")), true);
    ASSERT_TRUE(opened) << "opening an existing store writes nothing: " << errorText(opened.error());
    auto& viewer = **opened;
    auto snap = viewer.snapshot();
    ASSERT_TRUE(snap) << errorText(snap.error());
    EXPECT_EQ(snap->revision, 1u);
    EXPECT_EQ(snap->records.at("k").value, "1");
    EXPECT_EQ(viewer.history(0, 0, 0)->size(), 1u);
    auto leases = viewer.liveLeases("");
    ASSERT_TRUE(leases) << errorText(leases.error());
    ASSERT_EQ(leases->size(), 1u);
    EXPECT_EQ(leases->front().holder, "ctl-a");

    EtcdWatchCollector collector;
    auto watch = viewer.watch(0, collector.callback(), collector.errorCallback());
    ASSERT_TRUE(watch) << errorText(watch.error());
    ASSERT_TRUE(writer->commit(etcdCommit("k", "2")));
    ASSERT_TRUE(collector.waitForCount(2)) << "the viewer's watch did not see the writer's change";
    EXPECT_EQ(collector.revisions(), revisionsUpTo(2));

    const std::string refusal
        = "the store refused the change: etcd user 'viewer' may not write under 'shardmap/' (permission denied)";
    std::vector<Error> refused;
    for (auto result : { viewer.commit(etcdCommit("k", "3")), viewer.commit(etcdCommit("other", "1")) })
        refused.push_back(result ? Error {} : result.error());
    for (auto result : { viewer.acquireLease("mine", "viewer", 60s), viewer.renewLease(*grant, 60s) })
        refused.push_back(result ? Error {} : result.error());
    auto released = viewer.releaseLease(*grant);
    refused.push_back(released ? Error {} : released.error());
    for (const auto& one : refused) {
        EXPECT_EQ(one.code, ErrorCode::PermissionDenied) << errorText(one);
        EXPECT_NE(one.message.find(refusal), std::string::npos) << errorText(one);
    }

    auto after = writer->snapshot();
    ASSERT_TRUE(after);
    EXPECT_EQ(after->revision, 2u);
    EXPECT_EQ(after->records.size(), 1u);
    EXPECT_EQ(after->records.at("k").value, "2");
    auto held = writer->liveLeases("");
    ASSERT_TRUE(held);
    ASSERT_EQ(held->size(), 1u);
    EXPECT_EQ(held->front().holder, "ctl-a");
    EXPECT_EQ(held->front().token, grant->token);
    EXPECT_EQ(held->front().expiresUnixMs, grant->expiresUnixMs);
    EXPECT_TRUE(collector.errors().empty());

    // Creating a store is a change too.
    auto created = EtcdStore::open(*EtcdStoreConfig::parse(etcdUriAs(*etcd, "shardmap/new", "viewer")), true);
    ASSERT_FALSE(created);
    EXPECT_EQ(created.error().code, ErrorCode::PermissionDenied) << errorText(created.error());
    EXPECT_NE(created.error().message.find("etcd user 'viewer' may not write under 'shardmap/new/'"), std::string::npos)
        << errorText(created.error());
}

// A user without a role, and a viewer outside its prefix, cannot even open the store, and say so.
TEST_F(EtcdStoreTest, AnEtcdUserWithoutReadPermissionIsRefusedOnOpen)
{
    auto etcd = startOwnServer();
    ASSERT_TRUE(etcd);
    std::string error;
    ASSERT_TRUE(shardmap::testing::enableEtcdRoles(*etcd, error)) << error;
    ASSERT_TRUE(open(etcdUriAs(*etcd, "shardmap", "shardmapd")));
    ASSERT_TRUE(open(etcdUriAs(*etcd, "elsewhere", "root")));
    const std::pair<std::string, std::string> cases[] = {
        { etcdUriAs(*etcd, "shardmap", "nobody"), "etcd user 'nobody' may not read under 'shardmap/'" },
        { etcdUriAs(*etcd, "elsewhere", "viewer"), "etcd user 'viewer' may not read under 'elsewhere/'" },
    };
    for (const auto& [uri, expected] : cases) {
        auto refused = openStore(uri, false);
        ASSERT_FALSE(refused) << uri;
        EXPECT_EQ(refused.error().code, ErrorCode::PermissionDenied) << errorText(refused.error());
        EXPECT_NE(refused.error().message.find("the store refused the read: " + expected + " (permission denied)"),
            std::string::npos)
            << errorText(refused.error());
    }
}

TEST(EtcdStoreConfigTest, APasswordFileIsReadAndItsProblemsAreClearErrors)
{
    TempDir dir;
    writeSecretFile(dir.file("pw"), "s3cret\r\nignored\n");
    auto config = EtcdStoreConfig::parse("etcd://a:1/p?user=u&password_file=" + dir.file("pw"));
    ASSERT_TRUE(config) << errorText(config.error());
    EXPECT_EQ(config->password, "s3cret");
    writeSecretFile(dir.file("empty"), "");
    for (const std::string& bad : { "etcd://a:1/p?user=u&password_file=" + dir.file("missing"),
             "etcd://a:1/p?user=u&password_file=" + dir.file("empty"),
             "etcd://a:1/p?user=u&password=x&password_file=" + dir.file("pw"),
             "etcd://a:1/p?password_file=" + dir.file("pw") }) {
        auto refused = EtcdStoreConfig::parse(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument) << bad;
        EXPECT_EQ(refused.error().message.find("s3cret"), std::string::npos) << "the password in an error";
    }
    // One that other accounts may read is refused, saying how to fix it (issue 25).
    std::filesystem::permissions(
        dir.file("pw"), std::filesystem::perms::others_read, std::filesystem::perm_options::add);
    auto shared = EtcdStoreConfig::parse("etcd://a:1/p?user=u&password_file=" + dir.file("pw"));
    ASSERT_FALSE(shared);
    EXPECT_NE(shared.error().message.find("may be read by other accounts (mode 0604)"), std::string::npos)
        << errorText(shared.error());
    EXPECT_NE(shared.error().message.find("chmod 600 " + dir.file("pw")), std::string::npos);
    // The environment applies only with a user and no other password.
    ::setenv(kEtcdPasswordVariable, "fromenv", 1);
    EXPECT_EQ(EtcdStoreConfig::parse("etcd://a:1/p?user=u")->password, "fromenv");
    EXPECT_EQ(EtcdStoreConfig::parse("etcd://a:1/p?user=u&password=given")->password, "given");
    EXPECT_EQ(EtcdStoreConfig::parse("etcd://a:1/p")->password, "");
    ::unsetenv(kEtcdPasswordVariable);
}

TEST_F(EtcdStoreTest, TalksTlsWithAClientCertificateAndRefusesWithoutOne)
{
    ASSERT_TRUE(shardmap::testing::makeTestCertificates(m_dir.path())) << "openssl failed";
    const EtcdProcess::Tls tls { m_dir.file("ca.pem"), m_dir.file("server.pem"), m_dir.file("server.key"),
        m_dir.file("client.pem"), m_dir.file("client.key") };
    std::string error;
    auto etcd = EtcdProcess::start(error, tls);
    ASSERT_TRUE(etcd) << error;
    const std::string base = "etcd://" + etcd->endpoint() + "/tls";
    auto store = open(base + "?ca=" + tls.ca + "&cert=" + tls.clientCert + "&key=" + tls.clientKey);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commit(etcdCommit("k", "1")));
    EtcdWatchCollector collector;
    auto watch = store->watch(0, collector.callback(), collector.errorCallback());
    ASSERT_TRUE(watch);
    ASSERT_TRUE(store->commit(etcdCommit("k", "2")));
    ASSERT_TRUE(collector.waitForCount(2));

    // Plaintext against a TLS server, and TLS without a client certificate, do not get in.
    for (const std::string& options : { std::string(), "?ca=" + tls.ca + "&timeout_ms=1000" }) {
        auto config = EtcdStoreConfig::parse(base + options);
        ASSERT_TRUE(config);
        config->retryFor = 2s;
        auto refused = EtcdStore::open(std::move(*config), false);
        EXPECT_FALSE(refused) << "opened with '" << options << "'";
    }
}

TEST_F(EtcdStoreTest, ACommitWhoseAnswerWasLostIsFoundByItsAuditRecordNotAppliedTwice)
{
    auto store = open(uri());
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commit(etcdCommit("k", "1")));
    ASSERT_TRUE(setFailpoints("etcd.commit.answer_lost=error@1").ok());
    auto committed = store->commit(etcdCommit("k", "2"));
    ASSERT_TRUE(setFailpoints("").ok());
    ASSERT_TRUE(committed) << errorText(committed.error());
    EXPECT_EQ(*committed, 2u);
    EXPECT_EQ(*store->currentRevision(), 2u) << "the retry applied the commit a second time";
    const auto history = store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(history->size(), 2u);
    // The retry found the record it wrote; the next commit links to it.
    ASSERT_TRUE(store->commit(etcdCommit("k", "3")));
    auto report = verifyAuditChain(*store, true);
    ASSERT_TRUE(report) << errorText(report.error());
    EXPECT_FALSE(report->broken) << report->broken->message;
    EXPECT_EQ(report->chainStart, 1u);
}

// A store written before the chain: its counter holds the revision alone and its audit records
// no hash. The next commit links to the anchor and the whole audit verifies.
TEST_F(EtcdStoreTest, AStoreWrittenBeforeTheChainStartsItsChainAtTheNextCommit)
{
    auto store = open(uri());
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commit(etcdCommit("k", "1")));
    auto first = store->history(0, 0, 0);
    ASSERT_TRUE(first);
    ASSERT_EQ(first->size(), 1u);
    const nlohmann::json legacy { { "revision", 1 }, { "unixMs", (*first)[0].unixMs }, { "actor", "tester" },
        { "action", "test" }, { "reason", "" },
        { "changes", nlohmann::json::array({ { { "key", "k" }, { "before", nullptr }, { "after", "1" } } }) },
        { "commit", "1" } };
    const std::string root = "shardmap-test/" + std::filesystem::path(m_dir.path()).filename().string() + "/";
    std::string error;
    ASSERT_TRUE(m_shared->etcdctl({ "put", root + "meta/revision", "1" }, error)) << error;
    ASSERT_TRUE(m_shared->etcdctl({ "put", root + "audit/00000000000000000001", legacy.dump() }, error)) << error;

    ASSERT_TRUE(store->commit(etcdCommit("k", "2")));
    auto history = store->history(0, 0, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ((*history)[0].hash, "");
    EXPECT_EQ((*history)[1].hash, auditChainHash(kAuditChainAnchor, (*history)[1]));
    auto report = verifyAuditChain(*store, true);
    ASSERT_TRUE(report) << errorText(report.error());
    EXPECT_FALSE(report->broken) << report->broken->message;
    EXPECT_EQ(report->chainStart, 2u);
}

} // namespace

// The audit cannot be rewritten quietly (issue 25): on both stores, an audit record edited or
// deleted behind the store's back is named by `shardmapctl map verify-audit` (and raised by
// `shardmapctl health`), and a direct write of access/policy that bypassed the audit is refused by
// a running shardmapd, which keeps the last audited policy, says so in its error log and its
// metrics, and keeps serving.
#include "admin_fixture.h"
#include "ctl_run.h"
#include "tests/support/controller_process.h"
#include "tests/support/etcd_process.h"
#include "tests/support/etcd_roles.h"

#include <fstream>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sqlite3.h>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

constexpr const char* kAudited = R"({"version": 1, "roles": {"alice": "admin", "vera": "viewer"}})";
constexpr const char* kForged = R"({"version": 1, "roles": {"alice": "admin", "vera": "admin"}})";

// The store behind a test, and how someone with write access to it edits it directly.
class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string uri() const = 0;
    virtual void editAuditReason(std::uint64_t revision, const std::string& reason) = 0;
    virtual void deleteAudit(std::uint64_t revision) = 0;
    virtual void putPolicyDirectly(const std::string& policy) = 0;
};

// sqlite3 on the store file, as the sqlite3 shell would.
class SqliteBackend final : public Backend {
public:
    explicit SqliteBackend(std::string path)
        : m_path(std::move(path))
    {
    }
    std::string uri() const override { return "sqlite:" + m_path; }
    void editAuditReason(std::uint64_t revision, const std::string& reason) override
    {
        sql("UPDATE audit SET reason = '" + reason + "' WHERE revision = " + std::to_string(revision));
    }
    void deleteAudit(std::uint64_t revision) override
    {
        sql("DELETE FROM audit WHERE revision = " + std::to_string(revision));
    }
    void putPolicyDirectly(const std::string& policy) override
    {
        sql("UPDATE records SET value = '" + policy + "' WHERE key = 'access/policy'");
    }

private:
    void sql(const std::string& statement)
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(m_path.c_str(), &db), SQLITE_OK);
        sqlite3_busy_timeout(db, 5000);
        char* message = nullptr;
        EXPECT_EQ(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &message), SQLITE_OK)
            << (message ? message : "");
        EXPECT_EQ(sqlite3_changes(db), 1) << statement;
        sqlite3_free(message);
        sqlite3_close(db);
    }

    std::string m_path;
};

// A real etcd with the roles docs/SHARD_MAP.md gives; edits are etcdctl puts and deletes with the
// writer's etcd user (the one shardmapd uses).
class EtcdBackend final : public Backend {
public:
    EtcdBackend()
    {
        std::string error;
        m_etcd = EtcdProcess::start(error);
        EXPECT_TRUE(m_etcd) << error;
        if (m_etcd) {
            EXPECT_TRUE(enableEtcdRoles(*m_etcd, error)) << error;
        }
    }
    bool ready() const { return m_etcd != nullptr; }
    std::string uri() const override { return etcdUriAs(*m_etcd, "shardmap", "shardmapd"); }
    void editAuditReason(std::uint64_t revision, const std::string& reason) override
    {
        auto record = auditRecord(revision);
        json changes = json::array();
        for (const auto& change : record.changes)
            changes.push_back({ { "key", change.key }, { "before", change.before ? json(*change.before) : json() },
                { "after", change.after ? json(*change.after) : json() } });
        const json edited { { "revision", record.revision }, { "unixMs", record.unixMs }, { "actor", record.actor },
            { "action", record.action }, { "reason", reason }, { "changes", changes }, { "commit", "1" },
            { "hash", record.hash } };
        etcdctl({ "put", auditKey(revision), edited.dump() });
    }
    void deleteAudit(std::uint64_t revision) override { etcdctl({ "del", auditKey(revision) }); }
    void putPolicyDirectly(const std::string& policy) override
    {
        // The map revisions of the audited record stay, so that only the value gives it away.
        auto store = core::openStore(uri(), false);
        ASSERT_TRUE(store);
        auto listed = (*store)->list("access/policy");
        ASSERT_TRUE(listed);
        const auto& record = listed->records.at("access/policy");
        etcdctl({ "put", "shardmap/data/access/policy",
            json { { "v", policy }, { "c", record.createRevision }, { "m", record.modRevision } }.dump() });
    }

private:
    static std::string auditKey(std::uint64_t revision)
    {
        char digits[24];
        std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(revision));
        return std::string("shardmap/audit/") + digits;
    }
    core::AuditRecord auditRecord(std::uint64_t revision)
    {
        auto store = core::openStore(uri(), false);
        EXPECT_TRUE(store);
        auto history = (*store)->history(revision - 1, revision, 1);
        EXPECT_TRUE(history && history->size() == 1);
        return history && history->size() == 1 ? history->front() : core::AuditRecord {};
    }
    void etcdctl(std::vector<std::string> args)
    {
        args.insert(args.begin(), "--user=shardmapd:" + etcdPasswordOf("shardmapd"));
        std::string error;
        EXPECT_TRUE(m_etcd->etcdctl(args, error)) << error;
    }

    std::unique_ptr<EtcdProcess> m_etcd;
};

// "metrics on http://HOST:PORT/metrics" from shardmapd's log, then GET /metrics.
std::string scrapeMetrics(ControllerProcess& controller)
{
    static const std::regex line(R"(metrics on http://([^/ ]+):([0-9]+)/metrics)");
    std::smatch match;
    const std::string text = controller.stderrText();
    if (!std::regex_search(text, match, line))
        return {};
    httplib::Client client(match[1].str(), std::stoi(match[2].str()));
    auto response = client.Get("/metrics");
    return response && response->status == 200 ? response->body : std::string();
}

class AuditChainTest : public AdminFixture, public ::testing::WithParamInterface<std::string> {
protected:
    void SetUp() override
    {
        if (GetParam() == "sqlite") {
            m_backend = std::make_unique<SqliteBackend>(m_dir.file("map.db"));
        } else {
            auto etcd = std::make_unique<EtcdBackend>();
            ASSERT_TRUE(etcd->ready());
            m_backend = std::move(etcd);
        }
        ASSERT_EQ(ctl({ "init" }).code, 0);
    }

    CtlRun ctl(const std::vector<std::string>& args) { return runCtl(m_dir, m_backend->uri(), args); }

    // Revisions 1-4: two nodes, the access policy, one node removed.
    void makeHistory()
    {
        ASSERT_EQ(ctl({ "node", "add", "n1", "127.0.0.1:1" }).code, 0);
        ASSERT_EQ(ctl({ "node", "add", "n2", "127.0.0.1:2" }).code, 0);
        std::ofstream(m_dir.file("policy.json")) << kAudited;
        auto set = ctl({ "access", "set", m_dir.file("policy.json") });
        ASSERT_EQ(set.code, 0) << set.err;
        ASSERT_EQ(ctl({ "node", "remove", "n2" }).code, 0);
    }

    std::vector<core::AuditRecord> history()
    {
        auto store = core::openStore(m_backend->uri(), false);
        if (!store) {
            ADD_FAILURE() << store.error().describe();
            return {};
        }
        auto records = (*store)->history(0, 0, 0);
        EXPECT_TRUE(records);
        return records ? *records : std::vector<core::AuditRecord> {};
    }

    json verifyAudit(int expectedCode)
    {
        auto run = ctl({ "--json", "map", "verify-audit" });
        EXPECT_EQ(run.code, expectedCode) << run.out << run.err;
        return run.parsed();
    }

    std::unique_ptr<Backend> m_backend;
};

TEST_P(AuditChainTest, AnEditedOrDeletedAuditRecordIsNamedByVerifyAuditAndHealth)
{
    ASSERT_NO_FATAL_FAILURE(makeHistory());
    const std::string reason = history().at(1).reason;
    const json clean = verifyAudit(0);
    EXPECT_EQ(clean["verified"], true) << clean.dump();
    EXPECT_EQ(clean["records"], 4);
    EXPECT_EQ(clean["chain_start"], 1);
    EXPECT_EQ(clean["first_break"], nullptr);
    EXPECT_NE(ctl({ "map", "verify-audit" }).out.find("audit verified: 4 records up to revision 4"), std::string::npos);

    m_backend->editAuditReason(2, "nothing happened here");
    const json edited = verifyAudit(11);
    EXPECT_EQ(edited["verified"], false);
    EXPECT_EQ(edited["first_break"]["revision"], 2) << edited.dump();
    EXPECT_EQ(edited["first_break"]["kind"], "changed-record");
    const auto human = ctl({ "map", "verify-audit" });
    EXPECT_EQ(human.code, 11);
    EXPECT_NE(human.out.find("audit broken at revision 2 (changed-record): revision 2 does not match its hash"),
        std::string::npos)
        << human.out;
    // health raises it with the rest of the fleet's alerts, as critical.
    const auto health = ctl({ "--json", "health" });
    EXPECT_EQ(health.code, 9) << health.out << health.err;
    bool raised = false;
    const json alerts = health.parsed()["alerts"];
    for (const auto& alert : alerts)
        raised = raised || (alert["kind"] == "audit-chain-broken" && alert["severity"] == "critical");
    EXPECT_TRUE(raised) << health.out;
    // A copy would start a chain of its own that verifies: a broken source is refused.
    const std::string copy = "sqlite:" + m_dir.file("copy.db");
    auto copied = ctl({ "store", "copy", "--from", m_backend->uri(), "--to", copy });
    EXPECT_EQ(copied.code, 5) << copied.err;
    EXPECT_NE(copied.err.find("the source's audit chain is broken: revision 2"), std::string::npos) << copied.err;

    m_backend->deleteAudit(3);
    const json deleted = verifyAudit(11);
    EXPECT_EQ(deleted["first_break"]["revision"], 2) << "the first break is still the first one named";
    m_backend->editAuditReason(2, reason);
    const json restored = verifyAudit(11);
    EXPECT_EQ(restored["first_break"]["revision"], 3) << restored.dump();
    EXPECT_EQ(restored["first_break"]["kind"], "missing-revision");
    EXPECT_EQ(
        restored["first_break"]["message"], "revision 3 is missing from the audit (the next record is revision 4)");

    // The store itself still works: a normal change commits.
    EXPECT_EQ(ctl({ "node", "add", "n3", "127.0.0.1:3" }).code, 0);
}

TEST_P(AuditChainTest, AStoreCopyVerifiesAsItsSourceDid)
{
    ASSERT_NO_FATAL_FAILURE(makeHistory());
    const std::string copy = "sqlite:" + m_dir.file("copy.db");
    auto copied = ctl({ "store", "copy", "--from", m_backend->uri(), "--to", copy });
    ASSERT_EQ(copied.code, 0) << copied.err;
    auto verified = runCtl(m_dir, copy, { "--json", "map", "verify-audit" });
    EXPECT_EQ(verified.code, 0) << verified.out;
    EXPECT_EQ(verified.parsed()["records"], 4) << verified.out;
    EXPECT_EQ(verified.parsed()["first_break"], nullptr) << verified.out;
}

TEST_P(AuditChainTest, ADirectWriteOfThePolicyIsRefusedByARunningShardmapdThatKeepsServing)
{
    ASSERT_NO_FATAL_FAILURE(makeHistory());
    ASSERT_TRUE(makeTestCertificates(m_dir.path()));
    for (const char* name : { "alice", "vera" })
        ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
    m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"),
        { "--store", m_backend->uri(), "--id", "c1", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
            m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy", "store", "--metrics-listen",
            "127.0.0.1:0" });
    ASSERT_TRUE(m_controller);
    EXPECT_EQ(as("vera", { "whoami" }).out, "vera (viewer, by certificate)\n");
    const std::string unaudited = "shardmapd_audit_unaudited_record{key=\"access/policy\"} 1";
    EXPECT_EQ(scrapeMetrics(*m_controller).find(unaudited), std::string::npos);

    m_backend->putPolicyDirectly(kForged);
    // The policy is looked at again at most once a second, when a call needs it.
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        (void)as("vera", { "whoami" });
        return scrapeMetrics(*m_controller).find(unaudited) != std::string::npos;
    })) << m_controller->stderrText();
    EXPECT_EQ(as("vera", { "whoami" }).out, "vera (viewer, by certificate)\n") << "the forged policy was taken";
    const std::string log = m_controller->stderrText();
    EXPECT_NE(log.find(" error shardmapd: audit: record 'access/policy' (mod revision 3) is not the value revision 3"
                       " wrote: it was written without an audit record; it is not taken"),
        std::string::npos)
        << log;
    EXPECT_NE(scrapeMetrics(*m_controller).find("shardmapd_audit_chain_broken 0"), std::string::npos);
    const json found = verifyAudit(11);
    EXPECT_EQ(found["first_break"]["kind"], "record-differs") << found.dump();
    EXPECT_EQ(found["first_break"]["key"], "access/policy");

    // shardmapd serves on, and an audited change of the policy through it is taken.
    std::ofstream(m_dir.file("policy2.json")) << R"({"version": 1, "roles": {"alice": "admin"}})";
    auto set = as("alice", { "access", "set", m_dir.file("policy2.json") });
    EXPECT_EQ(set.code, 0) << set.err << set.out;
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return as("vera", { "shard", "list" }).code == 7; }));
    EXPECT_EQ(as("alice", { "whoami" }).out, "alice (admin, by certificate)\n");
    EXPECT_EQ(scrapeMetrics(*m_controller).find(unaudited), std::string::npos);
}

TEST_P(AuditChainTest, ShardmapdRaisesABrokenChainAtStart)
{
    ASSERT_NO_FATAL_FAILURE(makeHistory());
    m_backend->editAuditReason(1, "rewritten");
    m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"),
        { "--store", m_backend->uri(), "--id", "c1", "--metrics-listen", "127.0.0.1:0" });
    ASSERT_TRUE(m_controller);
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10),
        [&] { return scrapeMetrics(*m_controller).find("shardmapd_audit_chain_broken 1") != std::string::npos; }));
    EXPECT_NE(m_controller->stderrText().find("audit: the audit chain is broken: revision 1 does not match its hash"),
        std::string::npos)
        << m_controller->stderrText();
    // It serves on.
    EXPECT_EQ(m_controller->health(""), grpc::health::v1::HealthCheckResponse::SERVING);
}

TEST_P(AuditChainTest, ARecordEditedWhileShardmapdRunsIsRaisedWithoutACallOrARestart)
{
    ASSERT_NO_FATAL_FAILURE(makeHistory());
    ASSERT_TRUE(makeTestCertificates(m_dir.path()));
    ASSERT_TRUE(makeClientCertificate(m_dir.path(), "vera"));
    m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"),
        { "--store", m_backend->uri(), "--id", "c1", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
            m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy", "store", "--metrics-listen",
            "127.0.0.1:0", "--audit-recheck-ms", "1000" });
    ASSERT_TRUE(m_controller);
    EXPECT_EQ(as("vera", { "whoami" }).out, "vera (viewer, by certificate)\n");
    EXPECT_NE(scrapeMetrics(*m_controller).find("shardmapd_audit_chain_broken 0"), std::string::npos);

    // An older record than the newest, so that only a check of the whole history finds it; no
    // call reads the policy meanwhile.
    m_backend->editAuditReason(2, "nothing happened here");
    EXPECT_TRUE(pollUntil(std::chrono::seconds(30), [&] {
        return scrapeMetrics(*m_controller).find("shardmapd_audit_chain_broken 1") != std::string::npos;
    })) << m_controller->stderrText();
    // Logged right after the gauge is set.
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return m_controller->stderrText().find(
                   " error shardmapd: audit: the audit chain is broken: revision 2 does not match its hash")
            != std::string::npos;
    })) << m_controller->stderrText();
    // health raises it as critical, and shardmapd serves on.
    const auto health = ctl({ "--json", "health" });
    EXPECT_EQ(health.code, 9) << health.out << health.err;
    bool raised = false;
    const json alerts = health.parsed()["alerts"];
    for (const auto& alert : alerts)
        raised = raised || (alert["kind"] == "audit-chain-broken" && alert["severity"] == "critical");
    EXPECT_TRUE(raised) << health.out;
    EXPECT_EQ(as("vera", { "whoami" }).out, "vera (viewer, by certificate)\n");
    EXPECT_FALSE(m_controller->process().wait(std::chrono::milliseconds(0)));
}

INSTANTIATE_TEST_SUITE_P(Stores, AuditChainTest, ::testing::Values("sqlite", "etcd"),
    [](const ::testing::TestParamInfo<std::string>& store) { return store.param; });

} // namespace

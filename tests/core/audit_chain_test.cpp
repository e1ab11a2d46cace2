// The audit's hash chain (core/store/audit_chain.h): the canonical encoding, the verifier over
// records built here, and shardmapd's monitor over a real SQLite store edited behind its back.

#include "core/store/audit_chain.h"
#include "core/store/audit_monitor.h"
#include "core/store/sqlite_store.h"
#include "core/util/sha256.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

AuditRecord record(std::uint64_t revision, std::vector<RecordChange> changes, std::string reason = "why")
{
    return AuditRecord { revision, 1700000000000 + static_cast<std::int64_t>(revision), "alice", "set",
        std::move(reason), std::move(changes), {} };
}

// Records 1..count, each writing key k<revision % 3>, hashed as a store would.
std::vector<AuditRecord> chain(std::uint64_t count, std::string previous = {})
{
    std::vector<AuditRecord> records;
    for (std::uint64_t revision = 1; revision <= count; ++revision) {
        const std::string key = "k" + std::to_string(revision % 3);
        AuditRecord next = record(revision, { { key, std::nullopt, "v" + std::to_string(revision) } });
        next.hash = auditChainHash(auditChainPrevious(previous), next);
        previous = next.hash;
        records.push_back(std::move(next));
    }
    return records;
}

AuditChainVerifier verified(const std::vector<AuditRecord>& records, std::uint64_t storeRevision)
{
    AuditChainVerifier verifier;
    verifier.trackAllKeys();
    for (const auto& each : records)
        verifier.add(each);
    verifier.finish(storeRevision);
    return verifier;
}

TEST(AuditChainTest, TheCanonicalEncodingIsTheDocumentedOne)
{
    AuditRecord one = record(7, { { "spaces/acme", std::nullopt, "s1" }, { "nodes/n1", "{}", std::nullopt } });
    EXPECT_EQ(canonicalAuditEncoding(one),
        "16:shardmap-audit-1,1:7,13:1700000000007,5:alice,3:set,3:why,1:2,"
        "11:spaces/acme,~2:s1,8:nodes/n1,2:{},~");
    EXPECT_EQ(auditChainHash(kAuditChainAnchor, one),
        toHex(sha256(std::string(kAuditChainAnchor) + canonicalAuditEncoding(one))));
}

TEST(AuditChainTest, MovingBytesBetweenFieldsOrEmptyingAValueChangesTheHash)
{
    AuditRecord a = record(1, { { "k", "", "x" } });
    AuditRecord b = a;
    b.actor = "alic";
    b.action = "eset";
    AuditRecord c = a;
    c.changes[0].before = std::nullopt;
    AuditRecord d = a;
    d.changes = { { "k", std::nullopt, ",x" } };
    std::set<std::string> hashes;
    for (const auto& each : { a, b, c, d })
        hashes.insert(auditChainHash(kAuditChainAnchor, each));
    EXPECT_EQ(hashes.size(), 4u);
    EXPECT_NE(auditChainHash(kAuditChainAnchor, a), auditChainHash(std::string(64, '1'), a)) << "the link counts";
}

TEST(AuditChainTest, AWholeChainVerifiesWithItsLiveRecords)
{
    const auto records = chain(6);
    auto verifier = verified(records, 6);
    EXPECT_FALSE(verifier.firstBreak()) << verifier.firstBreak()->message;
    EXPECT_EQ(verifier.chainStart(), 1u);
    EXPECT_EQ(verifier.hash(), records.back().hash);
    StoreSnapshot live { 6,
        { { "k0", { "k0", "v6", 3, 6 } }, { "k1", { "k1", "v4", 1, 4 } }, { "k2", { "k2", "v5", 2, 5 } } } };
    verifier.checkLiveRecords(live);
    EXPECT_FALSE(verifier.firstBreak()) << verifier.firstBreak()->message;
}

TEST(AuditChainTest, AnEditedRecordIsOneBreakAtItsRevision)
{
    auto records = chain(6);
    records[2].reason = "nothing to see";
    const auto verifier = verified(records, 6);
    ASSERT_TRUE(verifier.firstBreak());
    EXPECT_EQ(verifier.firstBreak()->revision, 3u);
    EXPECT_EQ(verifier.firstBreak()->kind, AuditBreakKind::ChangedRecord);
    EXPECT_NE(verifier.firstBreak()->message.find("revision 3 does not match its hash"), std::string::npos)
        << verifier.firstBreak()->message;
    EXPECT_EQ(verifier.breaks(), 1u) << "the records after it link to its hash as stored";
}

TEST(AuditChainTest, ARecomputedHashBreaksTheNextLink)
{
    auto records = chain(6);
    records[2].changes[0].after = "forged";
    records[2].hash = auditChainHash(records[1].hash, records[2]);
    const auto verifier = verified(records, 6);
    ASSERT_TRUE(verifier.firstBreak());
    EXPECT_EQ(verifier.firstBreak()->revision, 4u);
    EXPECT_EQ(verifier.firstBreak()->kind, AuditBreakKind::ChangedRecord);
}

TEST(AuditChainTest, ADeletedRecordIsAMissingRevisionAndSoIsALostTail)
{
    auto records = chain(6);
    records.erase(records.begin() + 3);
    const auto middle = verified(records, 6);
    ASSERT_TRUE(middle.firstBreak());
    EXPECT_EQ(middle.firstBreak()->revision, 4u);
    EXPECT_EQ(middle.firstBreak()->kind, AuditBreakKind::MissingRevision);
    EXPECT_EQ(middle.firstBreak()->message, "revision 4 is missing from the audit (the next record is revision 5)");

    auto tail = chain(6);
    tail.pop_back();
    const auto lost = verified(tail, 6);
    ASSERT_TRUE(lost.firstBreak());
    EXPECT_EQ(lost.firstBreak()->revision, 6u);
    EXPECT_EQ(lost.firstBreak()->kind, AuditBreakKind::MissingRevision);
}

TEST(AuditChainTest, RecordsBeforeTheChainAreAllowedOnlyBeforeIt)
{
    // A store upgraded to the chain: two records without a hash, then records linked from the anchor.
    auto records = chain(5);
    records[0].hash.clear();
    records[1].hash.clear();
    records[2].hash = auditChainHash(kAuditChainAnchor, records[2]);
    records[3].hash = auditChainHash(records[2].hash, records[3]);
    records[4].hash = auditChainHash(records[3].hash, records[4]);
    const auto upgraded = verified(records, 5);
    EXPECT_FALSE(upgraded.firstBreak()) << upgraded.firstBreak()->message;
    EXPECT_EQ(upgraded.chainStart(), 3u);

    records[3].hash.clear();
    const auto stripped = verified(records, 5);
    ASSERT_TRUE(stripped.firstBreak());
    EXPECT_EQ(stripped.firstBreak()->revision, 4u);
    EXPECT_EQ(stripped.firstBreak()->kind, AuditBreakKind::HashMismatch);
    EXPECT_NE(
        stripped.firstBreak()->message.find("has no hash, but the audit chain began at revision 3"), std::string::npos);
}

TEST(AuditChainTest, LiveRecordsWrittenAroundTheAuditAreNamed)
{
    const auto records = chain(3);
    const std::map<std::string, StoredRecord> audited { { "k0", { "k0", "v3", 3, 3 } }, { "k1", { "k1", "v1", 1, 1 } },
        { "k2", { "k2", "v2", 2, 2 } } };
    const std::pair<std::string, std::map<std::string, StoredRecord>> tampered[] = {
        { "k1", { { "k0", { "k0", "v3", 3, 3 } }, { "k1", { "k1", "evil", 1, 1 } }, { "k2", { "k2", "v2", 2, 2 } } } },
        { "k2", { { "k0", { "k0", "v3", 3, 3 } }, { "k1", { "k1", "v1", 1, 1 } } } },
        { "k9",
            { { "k0", { "k0", "v3", 3, 3 } }, { "k1", { "k1", "v1", 1, 1 } }, { "k2", { "k2", "v2", 2, 2 } },
                { "k9", { "k9", "x", 3, 3 } } } },
    };
    for (const auto& [key, live] : tampered) {
        SCOPED_TRACE(key);
        auto verifier = verified(records, 3);
        verifier.checkLiveRecords({ 3, live });
        ASSERT_TRUE(verifier.firstBreak());
        EXPECT_EQ(verifier.firstBreak()->kind, AuditBreakKind::RecordDiffers);
        EXPECT_EQ(verifier.firstBreak()->key, key);
        EXPECT_NE(verifier.firstBreak()->message.find("record '" + key + "'"), std::string::npos);
    }
    auto clean = verified(records, 3);
    clean.checkLiveRecords({ 3, audited });
    EXPECT_FALSE(clean.firstBreak());
}

// ---- shardmapd's monitor on a real store ---------------------------------------------------------

void rawSql(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
}

class AuditMonitorTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = SqliteStore::open(m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        m_monitor = std::make_unique<AuditChainMonitor>(
            *m_store, std::set<std::string> { "access/policy" }, [this](LogLevel level, const std::string& line) {
                if (level == LogLevel::Error)
                    m_errors.push_back(line);
            });
    }

    std::uint64_t put(const std::string& key, const std::string& value)
    {
        auto revision
            = m_store->commit({ { { key, value, std::nullopt } }, std::nullopt, std::nullopt, "alice", "set", "" });
        EXPECT_TRUE(revision) << revision.error().describe();
        return revision ? *revision : 0;
    }

    AuditChainMonitor::LiveState live(std::string* why = nullptr)
    {
        auto read = m_store->list("access/policy");
        EXPECT_TRUE(read);
        auto state = m_monitor->checkLive("access/policy", *read, why);
        EXPECT_TRUE(state) << state.error().describe();
        return state ? *state : AuditChainMonitor::LiveState::Stale;
    }

    TempDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
    std::unique_ptr<AuditChainMonitor> m_monitor;
    std::vector<std::string> m_errors;
};

TEST_F(AuditMonitorTest, APolicyWrittenAroundTheAuditIsUnauditedUntilAnAuditedWriteReplacesIt)
{
    put("access/policy", "p1");
    put("spaces/acme", "s1");
    EXPECT_EQ(live(), AuditChainMonitor::LiveState::Audited);

    rawSql(m_dir.file("map.db"), "UPDATE records SET value = 'p-evil' WHERE key = 'access/policy'");
    std::string why;
    EXPECT_EQ(live(&why), AuditChainMonitor::LiveState::Unaudited);
    EXPECT_EQ(why,
        "record 'access/policy' (mod revision 1) is not the value revision 1 wrote: it was written without an "
        "audit record");
    EXPECT_EQ(m_monitor->unauditedKeys(), std::vector<std::string> { "access/policy" });
    EXPECT_EQ(live(), AuditChainMonitor::LiveState::Unaudited);
    ASSERT_EQ(m_errors.size(), 1u) << "logged once, not at every look";
    EXPECT_NE(m_errors[0].find("it is not taken"), std::string::npos) << m_errors[0];
    EXPECT_FALSE(m_monitor->broken()) << "the chain itself is whole";

    put("access/policy", "p2");
    EXPECT_EQ(live(), AuditChainMonitor::LiveState::Audited);
    EXPECT_TRUE(m_monitor->unauditedKeys().empty());
}

TEST_F(AuditMonitorTest, ARewriteOfTheNewestVerifiedRecordIsNoticedEvenWithItsHashRecomputed)
{
    put("spaces/acme", "s1");
    put("spaces/acme", "s2");
    ASSERT_TRUE(m_monitor->check());
    EXPECT_FALSE(m_monitor->broken());

    rawSql(m_dir.file("map.db"),
        "UPDATE audit SET reason = 'rewritten', hash = '" + std::string(64, 'a') + "' WHERE revision = 2");
    ASSERT_TRUE(m_monitor->check());
    EXPECT_TRUE(m_monitor->broken());
    ASSERT_TRUE(m_monitor->firstBreak());
    EXPECT_EQ(m_monitor->firstBreak()->revision, 2u);
    EXPECT_EQ(m_monitor->firstBreak()->kind, AuditBreakKind::HashMismatch);
    ASSERT_EQ(m_errors.size(), 1u);
    EXPECT_NE(m_errors[0].find("the audit chain is broken: revision 2 was changed after shardmapd verified it"),
        std::string::npos)
        << m_errors[0];
}

TEST_F(AuditMonitorTest, TheFirstCheckVerifiesTheWholeHistory)
{
    put("spaces/acme", "s1");
    put("spaces/acme", "s2");
    put("spaces/acme", "s3");
    rawSql(m_dir.file("map.db"), "DELETE FROM audit WHERE revision = 2");
    ASSERT_TRUE(m_monitor->check());
    ASSERT_TRUE(m_monitor->firstBreak());
    EXPECT_EQ(m_monitor->firstBreak()->revision, 2u);
    EXPECT_EQ(m_monitor->firstBreak()->kind, AuditBreakKind::MissingRevision);
}

} // namespace

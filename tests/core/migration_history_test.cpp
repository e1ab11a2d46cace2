// What the executor keeps of a migration for reports: phases with their times, events derived
// from changes of the migration record, bounded progress samples, the direction asked for
// through a rollback, and the JSON form kept in the store.
#include "core/map/shard_map.h"
#include "core/migration/migration_history.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

MigrationRecord queued()
{
    MigrationRecord m;
    m.id = "m-1";
    m.space = "acme";
    m.source = "s1";
    m.target = "s2";
    m.createdUnixMs = 1000;
    return m;
}

} // namespace

TEST(MigrationHistory, PhasesStartAndEndAsTheRecordMoves)
{
    MigrationRecord before = queued();
    MigrationHistory history = MigrationHistory::start(before);
    ASSERT_EQ(history.phases.size(), 1u);
    EXPECT_EQ(history.phases[0].startedUnixMs, 1000);
    MigrationRecord after = before;
    after.phase = MigrationPhase::DualWrite;
    EXPECT_TRUE(history.observe(before, after, 2000));
    after.phase = MigrationPhase::Done;
    EXPECT_TRUE(history.observe(MigrationRecord(after), after, 2500) == false);
    MigrationRecord dual = before;
    dual.phase = MigrationPhase::DualWrite;
    EXPECT_TRUE(history.observe(dual, after, 3000));
    ASSERT_EQ(history.phases.size(), 3u);
    EXPECT_EQ(history.phases[0].endedUnixMs, 2000);
    EXPECT_EQ(history.phases[1].phase, MigrationPhase::DualWrite);
    EXPECT_EQ(history.phases[1].endedUnixMs, 3000);
    EXPECT_EQ(history.phases[2].phase, MigrationPhase::Done);
    EXPECT_EQ(history.phases[2].endedUnixMs, 3000) << "a final phase ends as it starts";
    ASSERT_FALSE(history.events.empty());
    EXPECT_EQ(history.events.back().kind, "done");
}

TEST(MigrationHistory, EventsComeFromWhatChangedInTheRecord)
{
    MigrationRecord before = queued();
    before.phase = MigrationPhase::Backfill;
    MigrationHistory history = MigrationHistory::start(before);
    MigrationRecord after = before;
    after.error = "node n2 unreachable";
    after.status = "retrying in 400 ms";
    after.paused = true;
    EXPECT_TRUE(history.observe(before, after, 10));
    MigrationRecord later = after;
    later.cutoverAborts = 1;
    later.repairs = 1;
    later.repairedDocs = 7;
    later.paused = false;
    later.cancelRequested = true;
    EXPECT_TRUE(history.observe(after, later, 20));
    std::vector<std::string> kinds;
    for (const auto& event : history.events)
        kinds.push_back(event.kind);
    EXPECT_EQ(kinds,
        (std::vector<std::string> { "error", "paused", "cutover-aborted", "repair", "resumed", "cancel-requested" }));
    EXPECT_EQ(history.events[0].text, "node n2 unreachable (retrying in 400 ms)");
    EXPECT_EQ(history.events[3].text, "repaired 7 document(s)");
    EXPECT_FALSE(history.observe(later, later, 30)) << "nothing changed, nothing to write";
}

TEST(MigrationHistory, AbortedCutoversAreCountedThroughTheCutoverThatCommits)
{
    MigrationRecord cutover = queued();
    cutover.phase = MigrationPhase::Cutover;
    MigrationHistory history = MigrationHistory::start(cutover);
    MigrationRecord aborted = cutover;
    aborted.phase = MigrationPhase::DualWrite;
    aborted.cutoverAborts = 1;
    history.observe(cutover, aborted, 10);
    MigrationRecord again = aborted;
    again.phase = MigrationPhase::Cutover;
    history.observe(aborted, again, 20);
    // The cutover that commits resets the record's count of aborts in a row.
    MigrationRecord committed = again;
    committed.phase = MigrationPhase::Cleanup;
    committed.cutoverAborts = 0;
    history.observe(again, committed, 30);
    EXPECT_EQ(history.cutoverAborts, 1u);
    auto decoded = decodeMigrationHistory(encode(history));
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->cutoverAborts, 1u);
    // A history written before the counter: its cutover-aborted events.
    auto old = nlohmann::json::parse(encode(history));
    old.erase("cutover_aborts");
    auto fromEvents = decodeMigrationHistory(old.dump());
    ASSERT_TRUE(fromEvents);
    EXPECT_EQ(fromEvents->cutoverAborts, 1u);
}

TEST(MigrationHistory, ProgressSamplesAreSpacedAndBounded)
{
    MigrationRecord before = queued();
    before.phase = MigrationPhase::Backfill;
    MigrationHistory history = MigrationHistory::start(before);
    std::int64_t now = 0;
    for (std::uint64_t done = 1; done <= 2000; ++done) {
        MigrationRecord after = before;
        after.progress.docsDone = done;
        now += 500;
        history.observe(before, after, now);
        before = after;
    }
    // One sample per 2 s of 1,000 s: 500, thinned to at most kMostSamples, spanning the run.
    EXPECT_LE(history.samples.size(), MigrationHistory::kMostSamples);
    EXPECT_GE(history.samples.size(), MigrationHistory::kMostSamples / 2);
    EXPECT_EQ(history.samples.front().docsDone, 1u);
    EXPECT_GE(history.samples.back().docsDone, 1990u);
    for (std::size_t i = 1; i < history.samples.size(); ++i)
        EXPECT_GT(history.samples[i].unixMs, history.samples[i - 1].unixMs);
}

TEST(MigrationHistory, KeepsTheDirectionAskedForThroughARollback)
{
    MigrationRecord rolled = queued();
    rolled.phase = MigrationPhase::Verify;
    rolled.rolledBack = true;
    std::swap(rolled.source, rolled.target);
    const MigrationHistory history = MigrationHistory::start(rolled);
    EXPECT_EQ(history.requestedSource, "s1");
    EXPECT_EQ(history.requestedTarget, "s2");
}

TEST(MigrationHistory, EventsAreBounded)
{
    MigrationHistory history;
    for (int i = 0; i < 1000; ++i)
        history.addEvent(i, "error", std::to_string(i));
    EXPECT_EQ(history.events.size(), MigrationHistory::kMostEvents);
    EXPECT_EQ(history.events.front().text, "0") << "the first events stay";
    EXPECT_EQ(history.events.back().text, "999") << "and the newest";
}

TEST(MigrationHistory, RetriesOfTheSameErrorAreOneEventWithACount)
{
    MigrationRecord before = queued();
    before.phase = MigrationPhase::Backfill;
    MigrationHistory history = MigrationHistory::start(before);
    // As the executor records a failed step: the record's error (an error event when it changed),
    // then the retry. A progress save clears the error between retries.
    for (std::int64_t at = 10; at <= 1000; at += 10) {
        MigrationRecord failed = before;
        failed.error = "node n2 unreachable";
        failed.status = "retrying in 400 ms";
        history.observe(before, failed, at);
        history.addRetry(at, "node n2 unreachable");
    }
    ASSERT_EQ(history.events.size(), 1u);
    EXPECT_EQ(history.events[0].kind, "retry");
    EXPECT_EQ(history.events[0].text, "node n2 unreachable");
    EXPECT_EQ(history.events[0].count, 100u);
    EXPECT_EQ(history.events[0].unixMs, 10);
    EXPECT_EQ(history.events[0].lastUnixMs, 1000);
    // Another error, or another event in between, starts a new one.
    history.addRetry(1010, "disk full");
    history.addEvent(1020, "paused", "");
    history.addRetry(1030, "disk full");
    ASSERT_EQ(history.events.size(), 4u);
    EXPECT_EQ(history.events[1].count, 1u);
    EXPECT_EQ(history.events[3].count, 1u);
    auto decoded = decodeMigrationHistory(encode(history));
    ASSERT_TRUE(decoded);
    EXPECT_EQ(*decoded, history);
    EXPECT_EQ(nlohmann::json::parse(encode(history))["events"][0]["count"], 100);
}

TEST(MigrationHistory, RoundTripsThroughItsJson)
{
    MigrationHistory history = MigrationHistory::start(queued());
    history.addEvent(5, "error", "x");
    history.addSample({ 6, 10, 1000 });
    history.writeHoldMs = 12.5;
    history.verification = VerificationFigures { 7, { 10, 1, 99 }, { 10, 1, 99 }, 3, 2, true };
    auto decoded = decodeMigrationHistory(encode(history));
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, history);
    EXPECT_FALSE(decodeMigrationHistory("[]"));
    EXPECT_FALSE(decodeMigrationHistory(R"({"migration":"m","phases":[{"phase":"sideways"}]})"));
}

TEST(MigrationHistory, ChangedFieldsNamePlainValuesWithBeforeAndAfter)
{
    EXPECT_EQ(changedFields(std::nullopt, "{}"), std::vector<std::string> { "created" });
    EXPECT_EQ(changedFields("{}", std::nullopt), std::vector<std::string> { "removed" });
    EXPECT_EQ(changedFields("[]", "{}"), std::vector<std::string> { "changed" });
    const std::vector<std::string> expected { R"(phase "backfill" -> "verify")", "progress" };
    EXPECT_EQ(changedFields(R"({"phase":"backfill","paused":false,"progress":{"docs_done":1}})",
                  R"({"phase":"verify","paused":false,"progress":{"docs_done":2}})"),
        expected);
}

namespace {

// Reading a migration's history back from a real store, as `shardmapctl migrations show` and the
// console's migration detail view do.
class StoredMigrationHistoryTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
    }

    void put(const std::string& key, const std::string& value, const std::string& action)
    {
        auto listed = m_store->list(key);
        ASSERT_TRUE(listed);
        const auto found = listed->records.find(key);
        const std::uint64_t expect = found == listed->records.end() ? 0 : found->second.modRevision;
        ASSERT_TRUE(
            m_store->commit({ { { key, value, expect } }, std::nullopt, std::nullopt, "alice", action, "why" }));
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
};

} // namespace

TEST_F(StoredMigrationHistoryTest, ChangesAreTheCommitsOfTheMigrationsOwnRecordOnly)
{
    MigrationRecord m = queued();
    // m-10 shares m-1's key prefix; its commits are not m-1's.
    MigrationRecord other = queued();
    other.id = "m-10";
    put(keys::migration(other.id), encode(other), "queue-migration");
    put(keys::migration(m.id), encode(m), "queue-migration");
    m.phase = MigrationPhase::DualWrite;
    put(keys::migration(m.id), encode(m), "migration-step");
    put(keys::migration(other.id), encode(other), "unrelated");

    auto changes = migrationChanges(*m_store, m.id);
    ASSERT_TRUE(changes) << changes.error().describe();
    ASSERT_EQ(changes->size(), 2u);
    EXPECT_EQ((*changes)[0].action, "queue-migration");
    EXPECT_EQ((*changes)[0].actor, "alice");
    EXPECT_EQ((*changes)[0].reason, "why");
    EXPECT_EQ((*changes)[0].fields, std::vector<std::string> { "created" });
    EXPECT_EQ((*changes)[1].action, "migration-step");
    EXPECT_EQ((*changes)[1].fields, std::vector<std::string> { R"(phase "queued" -> "dual_write")" });
    EXPECT_LT((*changes)[0].revision, (*changes)[1].revision);
}

TEST_F(StoredMigrationHistoryTest, TheExecutorsHistoryIsReadByItsExactKey)
{
    auto none = readMigrationHistory(*m_store, "m-1");
    ASSERT_TRUE(none) << none.error().describe();
    EXPECT_FALSE(*none) << "a migration the executor never started has no history";

    MigrationRecord other = queued();
    other.id = "m-10";
    put(keys::migrationHistory(other.id), encode(MigrationHistory::start(other)), "migration-step");
    auto stillNone = readMigrationHistory(*m_store, "m-1");
    ASSERT_TRUE(stillNone);
    EXPECT_FALSE(*stillNone) << "m-10's history is not m-1's";

    const MigrationHistory written = MigrationHistory::start(queued());
    put(keys::migrationHistory("m-1"), encode(written), "migration-step");
    auto found = readMigrationHistory(*m_store, "m-1");
    ASSERT_TRUE(found) << found.error().describe();
    ASSERT_TRUE(*found);
    EXPECT_EQ(**found, written);

    put(keys::migrationHistory("m-1"), "not json", "migration-step");
    EXPECT_FALSE(readMigrationHistory(*m_store, "m-1")) << "a record that does not decode is an error";
}

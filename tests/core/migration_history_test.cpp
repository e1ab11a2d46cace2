// What the executor keeps of a migration for reports: phases with their times, events derived
// from changes of the migration record, bounded progress samples, the direction asked for
// through a rollback, and the JSON form kept in the store.
#include "core/migration/migration_history.h"

#include <gtest/gtest.h>

using namespace shardmap::core;

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

#include "core/migration/migration_requests.h"
#include "tests/core/test_helpers.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>
#include <regex>
#include <set>

using namespace shardmap::core;
using shardmap::testing::kGiB;
using shardmap::testing::TempDir;

namespace {

// s1 on n1 holds acme; s2 on n2 is an empty, active target with plenty of disk.
MapSnapshot fleet()
{
    MapSnapshot map;
    map.revision = 10;
    map.nodes["n1"] = { { "n1", "127.0.0.1:1", {}, false }, 1 };
    map.nodes["n2"] = { { "n2", "127.0.0.1:2", {}, false }, 2 };
    map.shards["s1"] = { { "s1", "n1", ShardState::Active, 0, 0 }, 3 };
    map.shards["s2"] = { { "s2", "n2", ShardState::Active, 0, 0 }, 4 };
    SpaceRecord acme;
    acme.id = "acme";
    acme.shard = "s1";
    map.spaces["acme"] = { acme, 5 };
    return map;
}

PreflightFacts roomy()
{
    PreflightFacts facts;
    facts.spaceDocs = 100;
    facts.spaceBytes = kGiB;
    facts.targetShardDocs = 0;
    facts.targetShardBytes = 0;
    facts.targetNodeDiskFree = 10 * kGiB;
    return facts;
}

std::string refusal(const Status& status)
{
    return status ? std::string("(accepted)") : status.error().message;
}

} // namespace

TEST(PreflightMigration, AcceptsAMoveToAnActiveShardWithRoom)
{
    EXPECT_TRUE(preflightMigration(fleet(), "acme", "s2", roomy()));
}

TEST(PreflightMigration, UnknownSpaceOrShardIsNotFound)
{
    auto space = preflightMigration(fleet(), "ghost", "s2", roomy());
    ASSERT_FALSE(space);
    EXPECT_EQ(space.error().code, ErrorCode::NotFound);
    EXPECT_EQ(space.error().message, "no space ghost in the shard map");
    auto shard = preflightMigration(fleet(), "acme", "s9", roomy());
    ASSERT_FALSE(shard);
    EXPECT_EQ(shard.error().code, ErrorCode::NotFound);
    EXPECT_EQ(shard.error().message, "no shard s9 in the shard map");
}

TEST(PreflightMigration, RefusesTheShardTheSpaceIsOn)
{
    auto status = preflightMigration(fleet(), "acme", "s1", roomy());
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(status.error().message, "space acme is already on shard s1");
}

TEST(PreflightMigration, RefusesATargetThatIsNotActive)
{
    for (auto state : { ShardState::Draining, ShardState::Readonly, ShardState::Retired }) {
        auto map = fleet();
        map.shards["s2"].value.state = state;
        auto status = preflightMigration(map, "acme", "s2", roomy());
        ASSERT_FALSE(status);
        EXPECT_EQ(status.error().code, ErrorCode::FailedPrecondition);
        EXPECT_EQ(status.error().message,
            std::string("shard s2 is ") + shardStateName(state) + "; only an active shard can receive a space");
    }
}

TEST(PreflightMigration, RefusesATargetOnARetiredOrMissingNode)
{
    auto map = fleet();
    map.nodes["n2"].value.retired = true;
    EXPECT_EQ(refusal(preflightMigration(map, "acme", "s2", roomy())), "shard s2 is on node n2, which is retired");
    map.nodes.erase("n2");
    EXPECT_EQ(refusal(preflightMigration(map, "acme", "s2", roomy())),
        "shard s2 is on node n2, which is not in the shard map");
}

TEST(PreflightMigration, APinElsewhereRefusesAPinOnTheTargetDoesNot)
{
    auto map = fleet();
    map.shards["s3"] = { { "s3", "n2", ShardState::Active, 0, 0 }, 6 };
    map.spaces["acme"].value.pin = "s3";
    EXPECT_EQ(refusal(preflightMigration(map, "acme", "s2", roomy())),
        "space acme is pinned to shard s3; unpin it before moving it to s2");
    EXPECT_TRUE(preflightMigration(map, "acme", "s3", roomy()));
}

TEST(PreflightMigration, AMigratingSpaceIsRefusedUnlessItIsTheOwnMigration)
{
    auto map = fleet();
    map.spaces["acme"].value.migrationId = "m-1700000000000-00aa";
    map.spaces["acme"].value.phase = MigrationPhase::Queued;
    auto status = preflightMigration(map, "acme", "s2", roomy());
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(status.error().message,
        "space acme is already migrating (m-1700000000000-00aa); wait for it to finish or cancel it first");
    EXPECT_TRUE(preflightMigration(map, "acme", "s2", roomy(), "m-1700000000000-00aa"));
    EXPECT_FALSE(preflightMigration(map, "acme", "s2", roomy(), "m-1700000000000-00bb"));
}

TEST(PreflightMigration, NeedsTwiceTheSpaceBytesFreeOnTheTargetNode)
{
    auto facts = roomy();
    facts.targetNodeDiskFree = 2 * kGiB;
    EXPECT_TRUE(preflightMigration(fleet(), "acme", "s2", facts)) << "exactly twice is enough";
    facts.targetNodeDiskFree = 2 * kGiB - 1;
    EXPECT_EQ(refusal(preflightMigration(fleet(), "acme", "s2", facts)),
        "node n2 of shard s2 has 2.0 GiB free; space acme needs twice its 1.0 GiB, 2.0 GiB");
    facts.targetNodeDiskFree = kGiB + kGiB / 2;
    EXPECT_EQ(refusal(preflightMigration(fleet(), "acme", "s2", facts)),
        "node n2 of shard s2 has 1.5 GiB free; space acme needs twice its 1.0 GiB, 2.0 GiB");
}

TEST(PreflightMigration, UnknownFreeDiskIsNoRoom)
{
    auto facts = roomy();
    facts.targetNodeDiskFree.reset();
    EXPECT_EQ(refusal(preflightMigration(fleet(), "acme", "s2", facts)),
        "cannot read the free disk of node n2 (target shard s2); room that cannot be checked is not room");
}

TEST(PreflightMigration, KeepsTheTargetWithinMaxTargetFillOfItsCapacity)
{
    auto map = fleet();
    map.shards["s2"].value.capacityDocs = 1000;
    auto facts = roomy();
    facts.targetShardDocs = 800;
    facts.spaceDocs = 100;
    EXPECT_TRUE(preflightMigration(map, "acme", "s2", facts)) << "900 of 1000 is exactly 90%";
    facts.spaceDocs = 150;
    EXPECT_EQ(refusal(preflightMigration(map, "acme", "s2", facts)),
        "shard s2 would hold 950 of its 1000 docs (95%) with space acme (150 docs), above the 90% limit");
    map.settings.value.maxTargetFill = 1.0;
    EXPECT_TRUE(preflightMigration(map, "acme", "s2", facts)) << "the settings' limit applies";

    map.shards["s2"].value.capacityBytes = 4 * kGiB;
    facts.targetShardBytes = 3 * kGiB + kGiB / 2;
    EXPECT_EQ(refusal(preflightMigration(map, "acme", "s2", facts)),
        "shard s2 would hold 4831838208 of its 4294967296 bytes (112%) with space acme (1073741824 bytes), above "
        "the 100% limit");
}

TEST(PreflightMigration, AnUnknownLoadRefusesOnlyWhenTheTargetHasACapacity)
{
    auto facts = roomy();
    facts.targetShardDocs.reset();
    facts.targetShardBytes.reset();
    EXPECT_TRUE(preflightMigration(fleet(), "acme", "s2", facts));
    auto map = fleet();
    map.shards["s2"].value.capacityBytes = 100 * kGiB;
    EXPECT_EQ(refusal(preflightMigration(map, "acme", "s2", facts)),
        "cannot read the load of shard s2 (node n2 did not answer) to check its capacity of 107374182400 bytes");
}

TEST(MigrationIds, SortByTimeAndDifferWithinOneMillisecond)
{
    const std::regex migration("m-[0-9]{13}-[0-9a-f]{4}");
    const std::regex operation("op-[0-9]{13}-[0-9a-f]{4}");
    std::set<std::string> ids;
    for (int i = 0; i < 1000; ++i) {
        const auto id = newMigrationId();
        EXPECT_TRUE(std::regex_match(id, migration)) << id;
        ids.insert(id);
    }
    EXPECT_EQ(ids.size(), 1000u);
    EXPECT_TRUE(std::regex_match(newOperationId(), operation));
    const auto first = newMigrationId();
    const auto later = newMigrationId();
    EXPECT_LE(first.substr(0, 15), later.substr(0, 15)) << "the millisecond prefix sorts by creation";
}

namespace {

// Requests that only change records, against a real store; no node is asked.
class MigrationRequestsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        MapEditor editor(*m_store);
        ASSERT_TRUE(editor.addNode({ "n1", "127.0.0.1:7401", {}, false }, m_actor));
        ASSERT_TRUE(editor.addShard({ "s1", "n1", ShardState::Active, 0, 0 }, m_actor));
        ASSERT_TRUE(editor.addShard({ "s2", "n1", ShardState::Active, 0, 0 }, m_actor));
        m_requests = std::make_unique<MigrationRequests>(*m_store, m_pool);
    }

    // A migration of acme from s1 to s2 in the given phase, with the space record to match.
    std::string addMigration(MigrationPhase phase)
    {
        MigrationRecord migration;
        migration.id = newMigrationId();
        migration.space = "acme";
        migration.source = "s1";
        migration.target = "s2";
        migration.phase = phase;
        SpaceRecord space;
        space.id = "acme";
        space.shard = phase >= MigrationPhase::Cleanup ? "s2" : "s1";
        space.migrationId = isFinal(phase) ? "" : migration.id;
        space.target = phase == MigrationPhase::Cleanup ? "s1" : (isFinal(phase) ? "" : "s2");
        space.phase = phase;
        const auto spaceRevision = map().spaces.contains("acme") ? map().spaces.at("acme").modRevision : 0;
        EXPECT_TRUE(m_store->commit({ { { keys::migration(migration.id), encode(migration), 0 },
                                          { keys::space("acme"), encode(space), spaceRevision } },
            std::nullopt, std::nullopt, "executor", "test-setup", "" }));
        return migration.id;
    }

    MapSnapshot map()
    {
        auto raw = m_store->snapshot();
        EXPECT_TRUE(raw);
        auto decoded = MapSnapshot::decode(*raw);
        EXPECT_TRUE(decoded);
        return *decoded;
    }

    MigrationRecord migration(const std::string& id) { return map().migrations.at(id).value; }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    NodeClientPool m_pool { NodeClientOptions { std::chrono::milliseconds(2000), {}, {}, {} } };
    std::unique_ptr<MigrationRequests> m_requests;
    Actor m_actor { "alice", "testing" };
};

} // namespace

TEST_F(MigrationRequestsTest, PauseResumeAndThrottleChangeTheRecordOnce)
{
    const auto id = addMigration(MigrationPhase::Backfill);
    const auto before = map().revision;
    ASSERT_TRUE(m_requests->pause(id, m_actor));
    EXPECT_TRUE(migration(id).paused);
    ASSERT_TRUE(m_requests->pause(id, m_actor));
    EXPECT_EQ(map().revision, before + 1) << "pausing a paused migration commits nothing";
    ASSERT_TRUE(m_requests->resume(id, m_actor));
    EXPECT_FALSE(migration(id).paused);
    ASSERT_TRUE(m_requests->setThrottle(id, 250, m_actor));
    EXPECT_EQ(migration(id).throttleDocsPerSecond, 250u);
    auto history = m_store->history(before, 0, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), 3u);
    EXPECT_EQ((*history)[0].action, "pause-migration");
    EXPECT_EQ((*history)[0].actor, "alice");
    EXPECT_EQ((*history)[0].reason, "testing");
    EXPECT_EQ((*history)[2].action, "throttle-migration");
    EXPECT_EQ(m_requests->pause("m-0000000000000-0000", m_actor).error().code, ErrorCode::NotFound);
}

TEST_F(MigrationRequestsTest, FinalMigrationsRefuseEveryRequest)
{
    const auto id = addMigration(MigrationPhase::Done);
    EXPECT_EQ(m_requests->pause(id, m_actor).error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(m_requests->resume(id, m_actor).error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(m_requests->setThrottle(id, 5, m_actor).error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(
        m_requests->cancel(id, m_actor).error().message, "migration " + id + " is done; there is nothing to cancel");
    EXPECT_EQ(m_requests->rollback(id, m_actor).error().message,
        "migration " + id + " is done and its rollback window has closed; queue a migration back instead");
}

TEST_F(MigrationRequestsTest, CancellingAQueuedMigrationClearsTheSpaceInOneCommit)
{
    const auto id = addMigration(MigrationPhase::Queued);
    const auto before = map().revision;
    auto cancelled = m_requests->cancel(id, m_actor);
    ASSERT_TRUE(cancelled) << cancelled.error().describe();
    EXPECT_EQ(cancelled->phase, MigrationPhase::Cancelled);
    const auto after = map();
    EXPECT_EQ(after.revision, before + 1);
    const auto& record = after.migrations.at(id).value;
    EXPECT_EQ(record.phase, MigrationPhase::Cancelled);
    EXPECT_GT(record.finishedUnixMs, 0);
    EXPECT_EQ(record.status, "cancelled by alice: testing");
    const auto& space = after.spaces.at("acme").value;
    EXPECT_FALSE(space.migrating());
    EXPECT_EQ(space.phase, MigrationPhase::Done);
    EXPECT_EQ(space.shard, "s1");
}

TEST_F(MigrationRequestsTest, CancellingARunningMigrationAsksTheExecutor)
{
    const auto id = addMigration(MigrationPhase::Verify);
    ASSERT_TRUE(m_requests->cancel(id, m_actor));
    EXPECT_TRUE(migration(id).cancelRequested);
    EXPECT_EQ(migration(id).phase, MigrationPhase::Verify);
    EXPECT_EQ(map().spaces.at("acme").value.migrationId, id) << "the executor clears the space when it is done";
}

TEST_F(MigrationRequestsTest, AfterCutoverCancelSaysRollback)
{
    const auto id = addMigration(MigrationPhase::Cutover);
    auto cancel = m_requests->cancel(id, m_actor);
    ASSERT_FALSE(cancel);
    EXPECT_NE(cancel.error().message.find("use rollback"), std::string::npos) << cancel.error().message;
    EXPECT_NE(m_requests->rollback(id, m_actor).error().message.find("roll it back once it is in cleanup"),
        std::string::npos);
}

TEST_F(MigrationRequestsTest, RollbackOnlyWhileTheWindowIsOpen)
{
    const auto early = addMigration(MigrationPhase::Backfill);
    EXPECT_EQ(m_requests->rollback(early, m_actor).error().message,
        "migration " + early + " has not cut over yet (phase backfill); cancel it instead");
    ASSERT_TRUE(m_requests->cancel(early, m_actor));

    const auto id = addMigration(MigrationPhase::Cleanup);
    auto cancel = m_requests->cancel(id, m_actor);
    EXPECT_EQ(cancel.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(cancel.error().message.find("after cutover use rollback"), std::string::npos);
    auto rolled = m_requests->rollback(id, m_actor);
    ASSERT_TRUE(rolled) << rolled.error().describe();
    EXPECT_TRUE(migration(id).rollbackRequested);

    // The window closes when the space no longer keeps its old source as a target.
    const auto closed = addMigration(MigrationPhase::Cleanup);
    auto snapshot = map();
    SpaceRecord space = snapshot.spaces.at("acme").value;
    space.target.clear();
    ASSERT_TRUE(m_store->commit({ { { keys::space("acme"), encode(space), snapshot.spaces.at("acme").modRevision } },
        std::nullopt, std::nullopt, "executor", "close-window", "" }));
    auto late = m_requests->rollback(closed, m_actor);
    ASSERT_FALSE(late);
    EXPECT_EQ(late.error().message,
        "the rollback window of migration " + closed
            + " has closed (the copy on s1 is being deleted); queue a migration back instead");
}

TEST_F(MigrationRequestsTest, SettingsAreValidatedAndComparedAndSet)
{
    auto defaults = m_requests->settings();
    ASSERT_TRUE(defaults);
    EXPECT_EQ(*defaults, MigrationSettings {});
    MigrationSettings changed;
    changed.maxConcurrent = 8;
    changed.maxTargetFill = 0.75;
    auto revision = m_requests->setSettings(changed, m_actor);
    ASSERT_TRUE(revision) << revision.error().describe();
    EXPECT_EQ(*m_requests->settings(), changed);
    auto history = m_store->history(*revision - 1, *revision, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(history->front().action, "set-migration-settings");

    auto bad = changed;
    bad.backfillBatch = 0;
    EXPECT_EQ(m_requests->setSettings(bad, m_actor).error().code, ErrorCode::InvalidArgument);
    bad.backfillBatch = 5001;
    EXPECT_EQ(m_requests->setSettings(bad, m_actor).error().code, ErrorCode::InvalidArgument);
    bad = changed;
    bad.maxTargetFill = 0;
    EXPECT_EQ(m_requests->setSettings(bad, m_actor).error().code, ErrorCode::InvalidArgument);
    bad.maxTargetFill = 1.01;
    EXPECT_EQ(m_requests->setSettings(bad, m_actor).error().code, ErrorCode::InvalidArgument);
    bad = changed;
    bad.cutoverTimeoutMs = 49;
    EXPECT_EQ(m_requests->setSettings(bad, m_actor).error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(*m_requests->settings(), changed);
}

TEST_F(MigrationRequestsTest, QueueRefusesBeforeAskingAnyNode)
{
    // n1's address has no node: refusals that the map alone decides must not wait for it.
    SpaceRecord acme;
    acme.id = "acme";
    acme.shard = "s1";
    ASSERT_TRUE(m_store->commit(
        { { { keys::space("acme"), encode(acme), 0 } }, std::nullopt, std::nullopt, "t", "create", "" }));
    const auto before = map().revision;
    EXPECT_EQ(m_requests->queue("acme", "s1", m_actor).error().message, "space acme is already on shard s1");
    EXPECT_EQ(m_requests->queue("acme", "s9", m_actor).error().code, ErrorCode::NotFound);
    auto noRoom = m_requests->queue("acme", "s2", m_actor);
    ASSERT_FALSE(noRoom);
    EXPECT_NE(noRoom.error().message.find("cannot read the free disk of node n1"), std::string::npos)
        << noRoom.error().message;
    EXPECT_EQ(map().revision, before);
}

// A list of moves (a console plan) is queued whole or not at all: one bad entry refuses the
// others and commits nothing.
TEST_F(MigrationRequestsTest, MoveSpacesIsAllOrNothing)
{
    MapEditor editor(*m_store);
    SpaceRecord space;
    space.id = "acme";
    space.shard = "s1";
    ASSERT_TRUE(m_store->commit(
        { { { keys::space("acme"), encode(space), 0 } }, std::nullopt, std::nullopt, "router", "create-space", "" }));
    const std::uint64_t before = map().revision;

    auto unknown = m_requests->moveSpaces({ { "acme", "s2" }, { "ghost", "s2" } }, m_actor);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, ErrorCode::NotFound);
    EXPECT_NE(unknown.error().message.find("ghost"), std::string::npos);

    auto same = m_requests->moveSpaces({ { "acme", "s1" } }, m_actor);
    ASSERT_FALSE(same);
    EXPECT_NE(same.error().message.find("already on shard s1"), std::string::npos);

    auto twice = m_requests->moveSpaces({ { "acme", "s2" }, { "acme", "s2" } }, m_actor);
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("twice"), std::string::npos);

    EXPECT_FALSE(m_requests->moveSpaces({}, m_actor));
    EXPECT_EQ(map().revision, before);
    EXPECT_TRUE(map().migrations.empty());
}

// In a rollback window (issue 26): the moved space cannot move again and the refusal says until
// when, as notes the console words in its language; its old shard, which keeps the copy for a
// rollback, can still be drained.
TEST_F(MigrationRequestsTest, InItsRollbackWindowASpaceWaitsAndItsOldShardCanBeDrained)
{
    const auto id = addMigration(MigrationPhase::Cleanup);
    constexpr std::int64_t kCutover = 1'700'000'000'000;
    auto snapshot = map();
    MigrationRecord record = snapshot.migrations.at(id).value;
    record.cutoverUnixMs = kCutover;
    ASSERT_TRUE(m_store->commit({ { { keys::migration(id), encode(record), snapshot.migrations.at(id).modRevision } },
        std::nullopt, std::nullopt, "executor", "migration-cutover", "" }));
    const std::vector<PlanNote> held { { PlanNoteKind::InRollbackWindow,
        { "acme", "s2", id, std::to_string(kCutover + 600'000) } } };
    const std::string english
        = "space acme is in its rollback window after moving to s2 (" + id + ") until 22:23 UTC; it can move then";

    // A console plan's moves (checkMovable) and a single migration (the preflight).
    auto moved = m_requests->moveSpaces({ { "acme", "s1" } }, m_actor);
    ASSERT_FALSE(moved);
    EXPECT_EQ(moved.error().message, english);
    EXPECT_EQ(refusalNotes(moved.error()), held);
    auto queued = m_requests->queue("acme", "s1", m_actor);
    ASSERT_FALSE(queued);
    EXPECT_EQ(queued.error().message, english);
    EXPECT_EQ(refusalNotes(queued.error()), held);

    // The drain of the old shard: acme is not on it, its rollback copy leaves with the cleanup.
    const std::map<std::string, PlannerNode> nodes { { "n1", { "n1", false, 400ull << 30, 500ull << 30 } } };
    const auto drain = planDrain(plannerInputFrom(map(), {}, nodes), "s1");
    ASSERT_TRUE(drain) << drain.error().describe();
    EXPECT_TRUE(drain->plan.moves.empty());
    const auto operation = m_requests->applyPlan(drain->plan, m_actor);
    ASSERT_TRUE(operation) << operation.error().describe();
    EXPECT_EQ(map().shards.at("s1").value.state, ShardState::Draining);
    EXPECT_EQ(map().spaces.at("acme").value.migrationId, id) << "the window stays open";
}

TEST_F(MigrationRequestsTest, ACatchUpCannotBeAbandonedOrRolledBackAndIsCancelledOnRequest)
{
    MigrationRecord catchUp;
    catchUp.id = newMigrationId();
    catchUp.source = catchUp.target = "s1";
    catchUp.copyNode = "n2";
    catchUp.copyPrimary = "n1";
    catchUp.phase = MigrationPhase::Backfill;
    ASSERT_TRUE(m_store->commit({ { { keys::migration(catchUp.id), encode(catchUp), 0 } }, std::nullopt, std::nullopt,
        "executor", "test-setup", "" }));
    const auto before = map().revision;
    auto abandoned = m_requests->abandon(catchUp.id, m_actor);
    ASSERT_FALSE(abandoned);
    EXPECT_EQ(abandoned.error().message,
        catchUp.id
            + " is the catch-up of the copy of s1 on n2, which moves no space; remove that copy from the shard "
              "instead");
    EXPECT_FALSE(m_requests->rollback(catchUp.id, m_actor));
    EXPECT_EQ(map().revision, before) << "a refused request changes nothing";
    ASSERT_TRUE(m_requests->cancel(catchUp.id, m_actor));
    EXPECT_TRUE(migration(catchUp.id).cancelRequested);
}

#include "core/map/map_editor.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

class MapEditorTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        m_editor = std::make_unique<MapEditor>(*m_store);
        ASSERT_TRUE(m_editor->addNode({ "n1", "127.0.0.1:7401", {} }, m_actor));
        ASSERT_TRUE(m_editor->addShard({ "s1", "n1", ShardState::Active, 0, 0 }, m_actor));
        ASSERT_TRUE(m_editor->addShard({ "s2", "n1", ShardState::Active, 0, 0 }, m_actor));
    }

    void addSpace(const std::string& id, const std::string& shard)
    {
        SpaceRecord space;
        space.id = id;
        space.shard = shard;
        ASSERT_TRUE(m_store->commit(
            { { { keys::space(id), encode(space), 0 } }, std::nullopt, std::nullopt, "t", "create", "" }));
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    std::unique_ptr<MapEditor> m_editor;
    Actor m_actor { "alice", "testing" };
};

} // namespace

TEST_F(MapEditorTest, DuplicatesAndUnknownIdsAreRefused)
{
    EXPECT_EQ(m_editor->addNode({ "n1", "127.0.0.1:9", {} }, m_actor).error().code, ErrorCode::AlreadyExists);
    EXPECT_EQ(m_editor->addNode({ "n2", "127.0.0.1:7401", {} }, m_actor).error().code, ErrorCode::AlreadyExists);
    EXPECT_EQ(m_editor->addNode({ "n 3", "127.0.0.1:9", {} }, m_actor).error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(m_editor->addNode({ "n3", "nowhere", {} }, m_actor).error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(
        m_editor->addShard({ "s1", "n1", ShardState::Active, 0, 0 }, m_actor).error().code, ErrorCode::AlreadyExists);
    EXPECT_EQ(
        m_editor->addShard({ "s9", "ghost", ShardState::Active, 0, 0 }, m_actor).error().code, ErrorCode::NotFound);
    EXPECT_EQ(m_editor->setShardState("ghost", ShardState::Draining, m_actor).error().code, ErrorCode::NotFound);
    EXPECT_EQ(m_editor->pinSpace("ghost", "s1", m_actor).error().code, ErrorCode::NotFound);
}

TEST_F(MapEditorTest, ShardStateTransitionsFollowTheRules)
{
    addSpace("acme", "s1");
    EXPECT_TRUE(m_editor->setShardState("s1", ShardState::Draining, m_actor));
    EXPECT_TRUE(m_editor->setShardState("s1", ShardState::Readonly, m_actor));
    EXPECT_TRUE(m_editor->setShardState("s1", ShardState::Active, m_actor));
    auto retire = m_editor->setShardState("s1", ShardState::Retired, m_actor);
    ASSERT_FALSE(retire);
    EXPECT_EQ(retire.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(retire.error().message.find("(acme)"), std::string::npos);
    EXPECT_TRUE(m_editor->setShardState("s2", ShardState::Retired, m_actor));
    EXPECT_EQ(m_editor->setShardState("s2", ShardState::Active, m_actor).error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(m_editor->removeShard("s1", m_actor).error().code, ErrorCode::FailedPrecondition);
    EXPECT_TRUE(m_editor->removeShard("s2", m_actor));
    EXPECT_EQ(m_editor->removeNode("n1", m_actor).error().code, ErrorCode::FailedPrecondition);
}

TEST_F(MapEditorTest, EveryChangeIsAuditedWithActorAndReason)
{
    ASSERT_TRUE(m_editor->setShardState("s1", ShardState::Draining, m_actor));
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    const auto& last = history->back();
    EXPECT_EQ(last.actor, "alice");
    EXPECT_EQ(last.reason, "testing");
    EXPECT_EQ(last.action, "set-shard-state draining");
    ASSERT_EQ(last.changes.size(), 1u);
    EXPECT_EQ(last.changes[0].key, "shards/s1");
    EXPECT_NE(last.changes[0].before->find("active"), std::string::npos);
    EXPECT_NE(last.changes[0].after->find("draining"), std::string::npos);
}

TEST_F(MapEditorTest, TwoAdministratorsMovingOneSpaceCannotBothWin)
{
    addSpace("acme", "s1");
    auto map = m_editor->snapshot();
    ASSERT_TRUE(map);
    const auto read = map->spaces.at("acme");
    // Both read the same version of the record, then both try to commit their move.
    SpaceRecord toS2 = read.value;
    toS2.shard = "s2";
    toS2.epoch += 1;
    SpaceRecord backToS1 = read.value;
    backToS1.epoch += 1;
    auto first = m_store->commit({ { { keys::space("acme"), encode(toS2), read.modRevision } }, std::nullopt,
        std::nullopt, "alice", "reassign-space", "" });
    auto second = m_store->commit({ { { keys::space("acme"), encode(backToS1), read.modRevision } }, std::nullopt,
        std::nullopt, "bob", "reassign-space", "" });
    EXPECT_TRUE(first);
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, ErrorCode::Conflict);
    EXPECT_NE(second.error().message.find("spaces/acme"), std::string::npos);
    EXPECT_EQ(m_editor->snapshot()->space("acme")->shard, "s2");
}

TEST_F(MapEditorTest, ReassignBumpsTheEpochAndRefusesInactiveTargets)
{
    addSpace("acme", "s1");
    auto moved = m_editor->reassignSpace("acme", "s2", m_actor);
    ASSERT_TRUE(moved);
    EXPECT_EQ(moved->epoch, 2u);
    ASSERT_TRUE(m_editor->setShardState("s1", ShardState::Draining, m_actor));
    EXPECT_EQ(m_editor->reassignSpace("acme", "s1", m_actor).error().code, ErrorCode::FailedPrecondition);
}

TEST_F(MapEditorTest, DiffFoldsEverythingBetweenTwoRevisions)
{
    const auto start = *m_store->currentRevision();
    addSpace("acme", "s1");
    ASSERT_TRUE(m_editor->reassignSpace("acme", "s2", m_actor));
    ASSERT_TRUE(m_editor->reassignSpace("acme", "s1", m_actor));
    ASSERT_TRUE(m_editor->setShardState("s2", ShardState::Draining, m_actor));
    ASSERT_TRUE(m_editor->addNode({ "n2", "127.0.0.1:7402", {} }, m_actor));
    const auto end = *m_store->currentRevision();
    auto diff = diffRevisions(*m_store, end, start);
    ASSERT_TRUE(diff) << diff.error().describe();
    EXPECT_EQ(diff->fromRevision, start);
    EXPECT_EQ(diff->commits, 5u);
    ASSERT_EQ(diff->spaces.size(), 1u);
    EXPECT_EQ(diff->spaces[0].fromShard, "");
    EXPECT_EQ(diff->spaces[0].toShard, "s1");
    EXPECT_EQ(diff->spaces[0].toEpoch, 3u);
    ASSERT_EQ(diff->shards.size(), 1u);
    EXPECT_EQ(diff->shards[0].after, ShardState::Draining);
    ASSERT_EQ(diff->nodes.size(), 1u);
    EXPECT_TRUE(diff->nodes[0].added);
    auto moves = diffRevisions(*m_store, start + 1, start + 2);
    ASSERT_EQ(moves->spaces.size(), 1u);
    EXPECT_EQ(moves->spaces[0].fromShard, "s1");
    EXPECT_EQ(moves->spaces[0].toShard, "s2");
    EXPECT_EQ(diffRevisions(*m_store, 0, end + 5).error().code, ErrorCode::NotFound);
}

TEST(MapCodecTest, RecordsRoundTripAndMalformedOnesAreErrors)
{
    MigrationRecord migration;
    migration.id = "m-1";
    migration.space = "acme";
    migration.source = "s1";
    migration.target = "s2";
    migration.phase = MigrationPhase::Backfill;
    migration.progress = { 10, 100, 1000, 10000, 12.5, 8, "doc-10" };
    migration.requestedBy = "alice";
    migration.operation = "op-1";
    migration.startedUnixMs = 5;
    migration.notBeforeUnixMs = 7;
    migration.backfilled = true;
    migration.repairs = 2;
    migration.repairedDocs = 9;
    migration.cutoverAborts = 4;
    migration.cancelRequested = true;
    migration.rollbackRequested = true;
    migration.rolledBack = true;
    migration.aborting = true;
    migration.abortPhase = MigrationPhase::Failed;
    migration.status = "copying";
    EXPECT_EQ(*decodeMigration(encode(migration)), migration);
    MigrationSettings settings;
    settings.maxConcurrent = 9;
    settings.rollbackWindowSeconds = 3;
    settings.maxTargetFill = 0.5;
    EXPECT_EQ(*decodeMigrationSettings(encode(settings)), settings);
    EXPECT_EQ(*decodeMigrationSettings("{}"), MigrationSettings {});
    EXPECT_EQ(decodeMigrationSettings("{}")->defaultEngine, kDefaultShardEngine);
    settings.defaultEngine = IndexEngine::Xapian;
    EXPECT_EQ(*decodeMigrationSettings(encode(settings)), settings);
    EXPECT_FALSE(decodeMigrationSettings(R"({"default_engine":"lucene"})"));
    OperationRecord operation { "op-1", OperationKind::Split, "s1", "s9", { "m-1", "m-2" }, OperationState::Running,
        "bob", "full", 1, 0, "", 5, 2, { { "s1", 120, 4096, 3, true }, { "s9", 0, 0, 0, false } } };
    EXPECT_EQ(*decodeOperation(encode(operation)), operation);
    EXPECT_FALSE(decodeOperation(R"({"id":"op","kind":"explode"})"));
    NodeRecord node { "n1", "127.0.0.1:1", { { "rack", "a" } }, true };
    EXPECT_EQ(*decodeNode(encode(node)), node);
    SpaceRecord space { "acme", "s1", 4, "m-1", "s2", MigrationPhase::Verify, "s1", true };
    EXPECT_EQ(*decodeSpace(encode(space)), space);
    EXPECT_FALSE(decodeShard(R"({"id":"s1","node":"n1","state":"sleeping"})"));
    const ShardRecord xapian { "s2", "n1", ShardState::Readonly, 10, 20, IndexEngine::Xapian };
    EXPECT_EQ(*decodeShard(encode(xapian)), xapian);
    EXPECT_EQ(decodeShard(R"({"id":"s1","node":"n1","state":"active"})")->engine, IndexEngine::Fts5);
    const auto unknownEngine = decodeShard(R"({"id":"s1","node":"n1","state":"active","engine":"lucene"})");
    ASSERT_FALSE(unknownEngine);
    EXPECT_NE(unknownEngine.error().message.find("unknown index engine 'lucene'"), std::string::npos);
    EXPECT_FALSE(decodeNode("not json"));
    EXPECT_FALSE(decodeSpace(R"({"id":"x"})"));
}

// Space records are read from SAX events; whatever that reader does not expect goes to the DOM
// reader, so both agree on every record and on every refusal.
TEST(MapEncodingTest, SpaceRecordsDecodeTheSameOnBothReaders)
{
    SpaceRecord space { "acme", "s1", 4, "m-1", "s2", MigrationPhase::Verify, "s1", true };
    EXPECT_EQ(*decodeSpace(encode(space)), space);
    EXPECT_EQ(*decodeSpace(R"({"id":"a","shard":"s1","epoch":3})"),
        (SpaceRecord { "a", "s1", 3, "", "", MigrationPhase::Done, "", false }));
    EXPECT_EQ(*decodeSpace(R"({"id":"a","shard":"s1","epoch":3,"pin":null,"paused":null,"phase":"cutover"})"),
        (SpaceRecord { "a", "s1", 3, "", "", MigrationPhase::Cutover, "", false }));
    // Unknown fields, even nested ones, are ignored as before.
    EXPECT_EQ(*decodeSpace(R"({"id":"a","shard":"s1","epoch":3,"note":"x","extra":{"k":[1,2]},"n":-1})"),
        (SpaceRecord { "a", "s1", 3, "", "", MigrationPhase::Done, "", false }));
    EXPECT_EQ(decodeSpace(R"({"id":"a","shard":"s1","epoch":3,"phase":"exploded"})")->phase, MigrationPhase::Done);
    for (const char* bad : { R"({"id":"x"})", R"({"id":1,"shard":"s1","epoch":3})",
             R"({"id":"a","shard":"s1","epoch":"3"})", R"({"id":"a","shard":"s1","epoch":3,"pin":4})",
             R"({"id":null,"shard":"s1","epoch":3})", R"({"id":"a","shard":"s1","epoch":3} trailing)", "[]", "" }) {
        EXPECT_FALSE(decodeSpace(bad)) << bad;
    }
}

// spacesOn lists owners and migration targets; an empty id matches nothing (a space that is not
// migrating has an empty target, which once made "no shard selected" list every space).
TEST(MapSnapshotTest, SpacesOnMatchesOwnersAndTargetsOnly)
{
    MapSnapshot map;
    SpaceRecord still;
    still.id = "a";
    still.shard = "s1";
    SpaceRecord moving = still;
    moving.id = "b";
    moving.migrationId = "m-1";
    moving.target = "s2";
    map.spaces["a"] = { still, 1 };
    map.spaces["b"] = { moving, 2 };
    EXPECT_EQ(map.spacesOn("s1").size(), 2u);
    ASSERT_EQ(map.spacesOn("s2").size(), 1u);
    EXPECT_EQ(map.spacesOn("s2").front()->id, "b");
    EXPECT_TRUE(map.spacesOn("").empty());
}

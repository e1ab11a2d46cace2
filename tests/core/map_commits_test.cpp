// applyCommits against the truth: a real SQLite store takes random commits of every kind of
// record, and after each batch the map built from the previous map and the batch's audit records
// must equal the map decoded from a fresh snapshot, with the changes diffMaps() finds.

#include "core/map/map_commits.h"
#include "core/map/map_index.h"
#include "core/map/shard_map.h"
#include "core/store/sqlite_store.h"
#include "core/util/validation.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>
#include <random>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

template <typename T>
void expectSameRecords(const std::map<std::string, Versioned<T>>& applied,
    const std::map<std::string, Versioned<T>>& decoded, const char* what)
{
    ASSERT_EQ(applied.size(), decoded.size()) << what;
    for (auto a = applied.begin(), d = decoded.begin(); a != applied.end(); ++a, ++d) {
        EXPECT_EQ(a->first, d->first) << what;
        EXPECT_TRUE(a->second.value == d->second.value) << what << " " << a->first;
        EXPECT_EQ(a->second.modRevision, d->second.modRevision) << what << " " << a->first;
    }
}

void expectSameMap(const MapSnapshot& applied, const MapSnapshot& decoded)
{
    EXPECT_EQ(applied.revision, decoded.revision);
    expectSameRecords(applied.nodes, decoded.nodes, "node");
    expectSameRecords(applied.shards, decoded.shards, "shard");
    expectSameRecords(applied.spaces, decoded.spaces, "space");
    expectSameRecords(applied.migrations, decoded.migrations, "migration");
    expectSameRecords(applied.operations, decoded.operations, "operation");
    EXPECT_TRUE(applied.settings.value == decoded.settings.value);
    EXPECT_EQ(applied.settings.modRevision, decoded.settings.modRevision);
}

void expectSameKeys(const KeyChanges& a, const KeyChanges& b, const char* what)
{
    EXPECT_EQ(a.added, b.added) << what;
    EXPECT_EQ(a.removed, b.removed) << what;
    EXPECT_EQ(a.changed, b.changed) << what;
}

void expectSameChanges(const MapChanges& a, const MapChanges& b)
{
    EXPECT_EQ(a.fromRevision, b.fromRevision);
    EXPECT_EQ(a.toRevision, b.toRevision);
    expectSameKeys(a.nodes, b.nodes, "nodes");
    expectSameKeys(a.shards, b.shards, "shards");
    expectSameKeys(a.spaces, b.spaces, "spaces");
    expectSameKeys(a.migrations, b.migrations, "migrations");
    expectSameKeys(a.operations, b.operations, "operations");
    EXPECT_EQ(a.settingsChanged, b.settingsChanged);
    EXPECT_EQ(a.spaceShards, b.spaceShards);
}

class MapCommitsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = SqliteStore::open(m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
    }

    void commit(std::vector<Mutation> mutations)
    {
        CommitRequest request;
        request.mutations = std::move(mutations);
        request.actor = "test";
        request.action = "random";
        auto revision = m_store->commit(request);
        ASSERT_TRUE(revision) << revision.error().describe();
    }

    MapSnapshot decoded()
    {
        auto snapshot = m_store->snapshot();
        EXPECT_TRUE(snapshot) << snapshot.error().describe();
        auto map = MapSnapshot::decode(*snapshot);
        EXPECT_TRUE(map) << map.error().describe();
        map->buildIndex();
        return std::move(*map);
    }

    std::vector<AuditRecord> commitsAfter(std::uint64_t revision)
    {
        auto records = m_store->history(revision, 0, 0);
        EXPECT_TRUE(records) << records.error().describe();
        return records ? *records : std::vector<AuditRecord> {};
    }

    TempDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
};

// One random mutation of every kind the map knows (and one it ignores).
std::vector<Mutation> randomMutations(std::mt19937& random, int& migrationCounter)
{
    const auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };
    const std::string node = "n" + std::to_string(pick(4));
    const std::string shard = "s" + std::to_string(pick(8));
    const std::string space = "sp" + std::to_string(pick(40));
    switch (pick(13)) {
    case 0:
        return { { keys::node(node),
            encode(NodeRecord { node, "127.0.0.1:" + std::to_string(7000 + pick(50)), {}, pick(4) == 0 }),
            std::nullopt } };
    case 1: return { { keys::node(node), std::nullopt, std::nullopt } };
    case 2:
        return { { keys::shard(shard),
            encode(ShardRecord { shard, node, pick(3) == 0 ? ShardState::Draining : ShardState::Active,
                static_cast<std::uint64_t>(pick(3)) * 1000, 0 }),
            std::nullopt } };
    case 3: return { { keys::shard(shard), std::nullopt, std::nullopt } };
    case 4:
    case 5:
    case 6: {
        SpaceRecord record;
        record.id = space;
        record.shard = "s" + std::to_string(pick(8));
        record.epoch = 1 + static_cast<std::uint64_t>(pick(5));
        if (pick(3) == 0) {
            record.migrationId = "m" + std::to_string(pick(20));
            record.target = "s" + std::to_string(pick(8));
            record.phase = MigrationPhase::Backfill;
        }
        std::vector<Mutation> out { { keys::space(space), encode(record), std::nullopt } };
        if (pick(2) == 0) // two spaces in one commit
            out.push_back({ keys::space(space + "b"),
                encode(SpaceRecord { space + "b", shard, 1, {}, {}, MigrationPhase::Done, {}, false }), std::nullopt });
        return out;
    }
    case 7: return { { keys::space(space), std::nullopt, std::nullopt } };
    case 8: {
        MigrationRecord record;
        record.id = "m" + std::to_string(++migrationCounter);
        record.space = space;
        record.source = shard;
        record.target = "s" + std::to_string(pick(8));
        record.phase = MigrationPhase::Backfill;
        record.progress.docsDone = static_cast<std::uint64_t>(pick(1000));
        return { { keys::migration(record.id), encode(record), std::nullopt } };
    }
    case 9: {
        // Archiving: the live record goes and the archived one comes, in one commit.
        if (migrationCounter == 0)
            return { { "unrelated/key", "x", std::nullopt } };
        const std::string id = "m" + std::to_string(1 + pick(migrationCounter));
        MigrationRecord record;
        record.id = id;
        record.space = space;
        record.source = shard;
        record.target = shard;
        record.phase = MigrationPhase::Done;
        return { { keys::migration(id), std::nullopt, std::nullopt },
            { keys::archivedMigration(id), encode(record), std::nullopt } };
    }
    case 10: {
        OperationRecord operation;
        operation.id = "op" + std::to_string(pick(5));
        operation.subject = shard;
        operation.state = pick(2) == 0 ? OperationState::Running : OperationState::Done;
        if (pick(3) == 0)
            return { { keys::operation(operation.id), std::nullopt, std::nullopt } };
        return { { keys::operation(operation.id), encode(operation), std::nullopt } };
    }
    case 11: {
        // Pruning: a live record abandoned, or an archived one past its keeping time.
        const std::string id = "m" + std::to_string(1 + pick(std::max(1, migrationCounter)));
        return { { pick(2) == 0 ? keys::migration(id) : keys::archivedMigration(id), std::nullopt, std::nullopt } };
    }
    default: {
        MigrationSettings settings;
        settings.maxConcurrent = static_cast<std::uint32_t>(1 + pick(6));
        return { { std::string(keys::kMigrationSettings), encode(settings), std::nullopt } };
    }
    }
}

} // namespace

TEST_F(MapCommitsTest, RandomCommitsOfEveryKindGiveTheDecodedMapAndItsDiff)
{
    std::mt19937 random(20261202);
    int migrationCounter = 0;
    for (int i = 0; i < 20; ++i)
        commit(randomMutations(random, migrationCounter));
    MapSnapshot shown = decoded();
    int batches = 0;
    int nonEmpty = 0;
    while (batches < 120) {
        const int commits = std::uniform_int_distribution<int>(1, 4)(random);
        for (int c = 0; c < commits; ++c)
            commit(randomMutations(random, migrationCounter));
        if (HasFatalFailure())
            return;
        auto applied = applyCommits(shown, commitsAfter(shown.revision));
        ASSERT_TRUE(applied) << applied.error().describe();
        MapSnapshot truth = decoded();
        expectSameMap(*applied, truth);
        ASSERT_NE(applied->changes, nullptr);
        const MapChanges expected = diffMaps(shown, truth);
        expectSameChanges(*applied->changes, expected);
        nonEmpty += expected.empty() ? 0 : 1;
        // The index follows: the applied map answers as the decoded one.
        ASSERT_NE(applied->index(), nullptr);
        for (int s = 0; s < 8; ++s) {
            const std::string shard = "s" + std::to_string(s);
            const auto ids = [](const std::vector<const SpaceRecord*>& spaces) {
                std::vector<std::string> out;
                for (const SpaceRecord* space : spaces)
                    out.push_back(space->id);
                return out;
            };
            EXPECT_EQ(ids(applied->spacesOn(shard)), ids(truth.spacesOn(shard))) << shard;
            EXPECT_EQ(applied->index()->ownedCount(shard), truth.index()->ownedCount(shard)) << shard;
        }
        if (HasFailure())
            FAIL() << "after batch " << batches << " (revision " << truth.revision << ")";
        shown = std::move(*applied);
        ++batches;
    }
    EXPECT_GT(nonEmpty, 100); // the comparison had changes to compare
}

TEST_F(MapCommitsTest, CommitsAlreadyInTheMapAreSkippedAndNoneLeavesNoChanges)
{
    commit({ { keys::node("n1"), encode(NodeRecord { "n1", "127.0.0.1:7001", {}, false }), std::nullopt } });
    commit({ { keys::shard("s1"), encode(ShardRecord { "s1", "n1", ShardState::Active, 0, 0 }), std::nullopt } });
    const MapSnapshot shown = decoded();
    auto again = applyCommits(shown, commitsAfter(0));
    ASSERT_TRUE(again) << again.error().describe();
    EXPECT_EQ(again->revision, shown.revision);
    ASSERT_NE(again->changes, nullptr);
    EXPECT_TRUE(again->changes->empty());
    expectSameMap(*again, shown);
}

TEST_F(MapCommitsTest, AMissingCommitIsRefusedSoTheReaderReadsTheWholeMap)
{
    commit({ { keys::node("n1"), encode(NodeRecord { "n1", "127.0.0.1:7001", {}, false }), std::nullopt } });
    const MapSnapshot shown = decoded();
    commit({ { keys::shard("s1"), encode(ShardRecord { "s1", "n1", ShardState::Active, 0, 0 }), std::nullopt } });
    commit({ { keys::shard("s2"), encode(ShardRecord { "s2", "n1", ShardState::Active, 0, 0 }), std::nullopt } });
    auto records = commitsAfter(shown.revision);
    ASSERT_EQ(records.size(), 2u);
    records.erase(records.begin());
    auto applied = applyCommits(shown, records);
    ASSERT_FALSE(applied);
    EXPECT_EQ(applied.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(
        applied.error().message.find("commit " + std::to_string(shown.revision + 1) + " is missing"), std::string::npos)
        << applied.error().message;
}

TEST_F(MapCommitsTest, ARecordThatDoesNotDecodeFailsNamingItsKeyAsAFullReadWould)
{
    const MapSnapshot shown = decoded();
    commit({ { keys::space("acme"), "{not json", std::nullopt } });
    auto applied = applyCommits(shown, commitsAfter(shown.revision));
    ASSERT_FALSE(applied);
    EXPECT_NE(applied.error().describe().find("spaces/acme"), std::string::npos) << applied.error().describe();
    auto full = MapSnapshot::decode(*m_store->snapshot());
    ASSERT_FALSE(full);
    EXPECT_EQ(applied.error().code, full.error().code);
}

namespace {

// A store snapshot with enough spaces that decoding uses several threads.
StoreSnapshot largeSnapshot(std::size_t spaces)
{
    StoreSnapshot snapshot;
    snapshot.revision = 42;
    const auto put = [&](const std::string& key, std::string value, std::uint64_t revision) {
        snapshot.records[key] = StoredRecord { key, std::move(value), 1, revision };
    };
    put(keys::node("n1"), encode(NodeRecord { "n1", "127.0.0.1:7001", {}, false }), 2);
    for (int s = 0; s < 50; ++s) {
        const std::string id = "s" + std::to_string(s);
        put(keys::shard(id), encode(ShardRecord { id, "n1", ShardState::Active, 0, 0 }), 3);
    }
    for (std::size_t i = 0; i < spaces; ++i) {
        SpaceRecord space;
        space.id = "tenant-" + std::to_string(100000 + i);
        space.shard = "s" + std::to_string(i % 50);
        space.epoch = 1 + i % 7;
        put(keys::space(space.id), encode(space), 4 + i % 11);
    }
    OperationRecord operation;
    operation.id = "op1";
    operation.subject = "s1";
    put(keys::operation("op1"), encode(operation), 5);
    return snapshot;
}

} // namespace

// Large maps decode their spaces on several threads; the result is the one thread's, record by
// record, and a bad record is reported as one thread would.
TEST(MapDecodeTest, ALargeMapDecodesOnSeveralThreadsToTheSameMap)
{
    const StoreSnapshot raw = largeSnapshot(120'000);
    auto sequential = MapSnapshot::decode(raw); // the copying overload: one thread
    ASSERT_TRUE(sequential) << sequential.error().describe();
    auto parallel = MapSnapshot::decode(StoreSnapshot(raw));
    ASSERT_TRUE(parallel) << parallel.error().describe();
    ASSERT_EQ(parallel->spaces.size(), 120'000u);
    expectSameMap(*parallel, *sequential);
}

TEST(MapDecodeTest, TheFirstBadRecordInKeyOrderIsReportedWhateverThreadFindsIt)
{
    StoreSnapshot raw = largeSnapshot(120'000);
    raw.records[keys::space("tenant-200000")].value = "{\"id\":\"tenant-200000\"}"; // late: no shard
    raw.records[keys::space("tenant-150000")].value = "not json"; // earlier in key order
    auto sequential = MapSnapshot::decode(raw);
    auto parallel = MapSnapshot::decode(StoreSnapshot(raw));
    ASSERT_FALSE(sequential);
    ASSERT_FALSE(parallel);
    EXPECT_EQ(parallel.error().describe(), sequential.error().describe());
    EXPECT_NE(parallel.error().describe().find("spaces/tenant-150000"), std::string::npos)
        << parallel.error().describe();

    raw.records[keys::node("n1")].value = "{}"; // before every space
    parallel = MapSnapshot::decode(StoreSnapshot(raw));
    ASSERT_FALSE(parallel);
    EXPECT_NE(parallel.error().describe().find("nodes/n1"), std::string::npos) << parallel.error().describe();
}

namespace {

// The same JSON with whitespace after every structural character: never the scanner's (it takes
// only compact text), always the JSON library's.
std::string spaced(const std::string& text)
{
    std::string out;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        out += c;
        if (c == '"' && (i == 0 || text[i - 1] != '\\'))
            inString = !inString;
        if (!inString && (c == '{' || c == ':' || c == ','))
            out += ' ';
    }
    return out;
}

} // namespace

// Space records are read by a scanner of the compact form encode() writes, and by the JSON
// library otherwise: both read every record the same, and refuse the same ones.
TEST(SpaceDecodeTest, TheCompactScannerAndTheJsonLibraryReadEveryRecordAlike)
{
    std::mt19937 random(11);
    const auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };
    const std::vector<std::string> ids { "acme", "t-1.x_2", "", "Z9", "space with spaces", "quote\"d", "back\\slash",
        "tab\there", "ünïcode", "s-" + std::string(80, 'x') };
    const std::vector<MigrationPhase> phases { MigrationPhase::Done, MigrationPhase::Backfill, MigrationPhase::Cutover,
        MigrationPhase::Queued };
    for (int i = 0; i < 2000; ++i) {
        SpaceRecord record;
        record.id = ids[static_cast<std::size_t>(pick(static_cast<int>(ids.size())))];
        record.shard = ids[static_cast<std::size_t>(pick(static_cast<int>(ids.size())))];
        record.epoch = pick(3) == 0 ? kMaxEpoch : static_cast<std::uint64_t>(pick(100000));
        if (pick(2) == 0) {
            record.migrationId = "m-" + std::to_string(i);
            record.target = ids[static_cast<std::size_t>(pick(static_cast<int>(ids.size())))];
            record.phase = phases[static_cast<std::size_t>(pick(4))];
        }
        record.pin = pick(4) == 0 ? "s7" : "";
        record.paused = pick(2) == 0;
        const std::string text = encode(record);
        auto compact = decodeSpace(text);
        auto library = decodeSpace(spaced(text));
        ASSERT_TRUE(compact) << text << ": " << compact.error().describe();
        ASSERT_TRUE(library) << spaced(text) << ": " << library.error().describe();
        EXPECT_TRUE(*compact == record) << text;
        EXPECT_TRUE(*library == record) << spaced(text);
        // Above the largest epoch both refuse it alike (issue 25: 2^64-1 pinned a space for good).
        record.epoch = pick(2) == 0 ? kMaxEpoch + 1 : std::numeric_limits<std::uint64_t>::max();
        EXPECT_FALSE(decodeSpace(encode(record))) << encode(record);
        EXPECT_FALSE(decodeSpace(spaced(encode(record)))) << spaced(encode(record));
    }
}

TEST(SpaceDecodeTest, WhatTheScannerDoesNotTakeTheLibraryDecidesAsBefore)
{
    // Accepted by the library: unknown keys, null optional fields, another key order, escapes.
    for (const std::string text :
        { R"({"id":"a","shard":"s1","epoch":2,"owner_note":"x"})", R"({"id":"a","shard":"s1","epoch":2,"target":null})",
            R"({"shard":"s1","epoch":2,"id":"a"})", R"({"id":"\u0061","shard":"s1","epoch":2})" }) {
        auto decoded = decodeSpace(text);
        ASSERT_TRUE(decoded) << text << ": " << decoded.error().describe();
        EXPECT_EQ(decoded->id, "a") << text;
        EXPECT_EQ(decoded->shard, "s1") << text;
        EXPECT_EQ(decoded->epoch, 2u) << text;
    }
    // Refused: no shard, a leading-zero epoch, trailing bytes, a truncated record.
    for (const std::string text : { R"({"id":"a","epoch":2})", R"({"id":"a","shard":"s1","epoch":02})",
             R"({"id":"a","shard":"s1","epoch":2}x)", R"({"id":"a","shard":"s1","epoch":2)", "{}", "" }) {
        EXPECT_FALSE(decodeSpace(text)) << text;
    }
    // Whatever the library makes of odd numbers, the compact text gets the same.
    for (const std::string text : { R"({"id":"a","shard":"s1","epoch":2.5})", R"({"id":"a","shard":"s1","epoch":2e3})",
             R"({"id":"a","shard":"s1","epoch":-2})", R"({"id":"a","shard":"s1","epoch":18446744073709551616})" }) {
        const auto compact = decodeSpace(text);
        const auto library = decodeSpace(spaced(text));
        ASSERT_EQ(compact.ok(), library.ok()) << text;
        if (compact.ok()) {
            EXPECT_TRUE(*compact == *library) << text;
        }
    }
}

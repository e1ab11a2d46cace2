// The snapshot repository's rules (issue 32) without a fleet: the records' and manifest's JSON
// forms, ids, the paths a repository takes and refuses, a shard copied while it is written, and
// a snapshot's removal that keeps what another manifest references, the copy's pause only while
// the node writes, and a restored file checked against its manifest and named as its new shard.
#include "core/shard/sqlite_db.h"
#include "core/snapshot/snapshot_repository.h"
#include "tests/support/test_dir.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <thread>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

SnapshotManifest manifestWith(const std::string& id, std::vector<std::string> files)
{
    SnapshotManifest manifest;
    manifest.id = id;
    manifest.mapRevision = 12;
    manifest.mapRecords["spaces/acme"] = R"({"epoch":3,"id":"acme","shard":"s0"})";
    for (const auto& file : files)
        manifest.shards.push_back({ file.substr(file.find('/') + 1, 2), "n0", "default", 1, IndexEngine::Fts5, file,
            file.substr(0, file.find('/')), 10, "00", 7, { { "acme", 2, 100, 5, 1 } } });
    return manifest;
}

void touch(const std::string& path)
{
    std::ofstream(path) << "x";
}

} // namespace

TEST(SnapshotRecords, RecordAndManifestRoundTrip)
{
    SnapshotRecord record;
    record.id = newSnapshotId(1796657556863);
    EXPECT_TRUE(record.id.starts_with("snap-20261207-153236-")) << record.id;
    EXPECT_TRUE(validateSnapshotId(record.id));
    record.state = SnapshotState::Corrupt;
    record.badFile = record.id + "/s1.db";
    record.leaderToken = 4;
    auto decoded = decodeSnapshot(encode(record));
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, record);
    const auto manifest = manifestWith("snap-a", { "snap-a/s0.db", "snap-0/s1.db" });
    auto back = decodeManifest(encodeManifest(manifest));
    ASSERT_TRUE(back) << back.error().describe();
    EXPECT_EQ(*back, manifest);
    EXPECT_EQ(back->bytes(), 20u);
    for (const char* bad : { "", "Snap", "-a", "a/b", "..", std::string(65, 'a').c_str() })
        EXPECT_FALSE(validateSnapshotId(bad)) << bad;
    EXPECT_EQ(shardContentChecksum({ { "a", 2, 0, 10, 1 }, { "b", 1, 0, 5, 0 } }), 19u);
}

TEST(SnapshotRepository, PathsOutsideTheRepositoryAreRefused)
{
    TempDir dir;
    const std::string repository = dir.file("repo");
    std::filesystem::create_directories(repository + "/snap-a");
    std::filesystem::create_symlink(dir.path(), repository + "/snap-a/out");
    EXPECT_TRUE(repositoryFile(repository, "snap-a/s0.db"));
    for (const char* bad :
        { "../x.db", "/x.db", "snap-a/../../x.db", "snap-a//x.db", "snap-a/./x.db", "", "snap-a/", "snap-a/out/x.db" })
        EXPECT_FALSE(repositoryFile(repository, bad)) << bad;
    for (const char* bad : { "relative", "/a/../b", "/a/./b", "" })
        EXPECT_FALSE(checkRepositoryPath(bad)) << bad;
    EXPECT_EQ(checkRepositoryWritable(dir.file("none")).error().code, ErrorCode::NotFound);
}

TEST(SnapshotRepository, ACopyMadeWhileWritersWriteHoldsTheAggregatesItReports)
{
    TempDir dir;
    auto store = ShardStore::create(dir.file("s0.db"), "s0", {});
    ASSERT_TRUE(store) << store.error().describe();
    ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    std::atomic<bool> writing { true };
    std::thread writer([&] {
        for (std::uint64_t v = 1; writing; ++v)
            (void)(*store)->write({ { { "acme", "d" + std::to_string(v % 300), v, { { "body", "words" } } }, 1 } });
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string repository = dir.file("repo");
    ASSERT_TRUE(createSnapshotFolder(repository + "", "snap-a").error().code == ErrorCode::NotFound);
    std::filesystem::create_directories(repository);
    ASSERT_TRUE(createSnapshotFolder(repository, "snap-a"));
    auto copy = copyShardFile(**store, repository, "snap-a/s0.db", { 4, std::chrono::milliseconds(1) });
    writing = false;
    writer.join();
    ASSERT_TRUE(copy) << copy.error().describe();
    EXPECT_EQ(*digestFile(repository + "/snap-a/s0.db"), copy->digest);
    EXPECT_FALSE(std::filesystem::exists(repository + "/snap-a/s0.db.tmp"));
    std::filesystem::copy_file(repository + "/snap-a/s0.db", dir.file("opened.db"));
    auto opened = ShardStore::open(dir.file("opened.db"), {});
    ASSERT_TRUE(opened) << opened.error().describe();
    EXPECT_EQ(*(*opened)->spaceStats({}), copy->spaces);
    EXPECT_EQ(copyShardFile(**store, repository, "snap-a/s0.db", {}).error().code, ErrorCode::AlreadyExists);
}

TEST(SnapshotRepository, RemovalKeepsTheFilesAnotherManifestReferences)
{
    TempDir dir;
    const std::string repository = dir.path();
    for (const char* folder : { "snap-a", "snap-b" })
        std::filesystem::create_directories(repository + "/" + folder);
    for (const char* file : { "snap-a/s0.db", "snap-a/s1.db", "snap-a/s1.db.tmp", "snap-b/s0.db" })
        touch(repository + "/" + file);
    ASSERT_TRUE(writeManifest(repository, manifestWith("snap-a", { "snap-a/s0.db", "snap-a/s1.db" })));
    ASSERT_TRUE(writeManifest(repository, manifestWith("snap-b", { "snap-b/s0.db", "snap-a/s1.db" })));
    ASSERT_EQ(readManifests(repository)->size(), 2u);
    ASSERT_TRUE(removeSnapshotFolder(repository, "snap-a"));
    EXPECT_FALSE(std::filesystem::exists(repository + "/snap-a/manifest.json"));
    EXPECT_FALSE(std::filesystem::exists(repository + "/snap-a/s0.db"));
    EXPECT_FALSE(std::filesystem::exists(repository + "/snap-a/s1.db.tmp"));
    EXPECT_TRUE(std::filesystem::exists(repository + "/snap-a/s1.db")) << "snap-b references it";
    ASSERT_TRUE(removeSnapshotFolder(repository, "snap-b"));
    ASSERT_TRUE(removeSnapshotFolder(repository, "snap-a"));
    EXPECT_TRUE(std::filesystem::is_empty(repository));
    EXPECT_TRUE(removeSnapshotFolder(repository, "snap-c")) << "a folder never made is nothing to remove";
}

// A copy is the file's bytes, hashed as written, when a checkpoint took every WAL frame into the
// file; a reader holding an older point keeps frames out of the file, and then the copy goes
// through SQLite's backup. Both give the shard as of the copy's point, with the writes before it.
TEST(SnapshotRepository, TheCopyReadsTheFileItselfWhenTheWalIsInItElseGoesThroughSqlite)
{
    TempDir dir;
    auto store = ShardStore::create(dir.file("s0.db"), "s0", {});
    ASSERT_TRUE(store) << store.error().describe();
    ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    auto writeDocs = [&](std::uint64_t from, std::uint64_t to) {
        for (std::uint64_t v = from; v <= to; ++v)
            ASSERT_TRUE((*store)->write(
                { { { "acme", "d" + std::to_string(v), 1, { { "body", std::string(3000, 'x') } } }, 1 } }));
    };
    writeDocs(1, 100);
    auto bytes = (*store)->backupTo(dir.file("bytes.db"), { 8, std::chrono::milliseconds(0) });
    ASSERT_TRUE(bytes) << bytes.error().describe();
    ASSERT_TRUE(bytes->digest) << "no other reader: the file alone holds the shard";
    EXPECT_EQ(*digestFile(dir.file("bytes.db")), *bytes->digest);
    EXPECT_EQ(bytes->spaces.at(0).liveDocs, 100u);

    auto other = SqliteDb::open(dir.file("s0.db"), { .readOnly = true, .create = false, .busyTimeoutMs = 1000 });
    ASSERT_TRUE(other) << other.error().describe();
    ASSERT_TRUE(other->exec("BEGIN; SELECT count(*) FROM meta"));
    writeDocs(101, 150);
    auto paged = (*store)->backupTo(dir.file("paged.db"), { 8, std::chrono::milliseconds(0) });
    ASSERT_TRUE(other->exec("COMMIT"));
    ASSERT_TRUE(paged) << paged.error().describe();
    EXPECT_FALSE(paged->digest) << "the older reader keeps frames out of the file: SQLite's backup";
    EXPECT_EQ(paged->spaces.at(0).liveDocs, 150u);
    for (const char* name : { "bytes.db", "paged.db" }) {
        auto opened = ShardStore::open(dir.file(name), {});
        ASSERT_TRUE(opened) << name << ": " << opened.error().describe();
        EXPECT_EQ(*(*opened)->spaceStats({}), std::string(name) == "bytes.db" ? bytes->spaces : paged->spaces);
    }
}

// The pause between backup steps is asked of busy: a copy whose node takes no writes is not held
// (here an hour's pause per step would never end), one whose node writes is.
TEST(SnapshotRepository, TheCopyPausesOnlyWhileTheNodeTakesWrites)
{
    TempDir dir;
    auto store = ShardStore::create(dir.file("s0.db"), "s0", {});
    ASSERT_TRUE(store) << store.error().describe();
    ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    for (std::uint64_t v = 1; v <= 200; ++v)
        ASSERT_TRUE(
            (*store)->write({ { { "acme", "d" + std::to_string(v), 1, { { "body", std::string(2000, 'x') } } }, 1 } }));
    const std::string repository = dir.file("repo");
    std::filesystem::create_directories(repository + "/snap-a");
    int asked = 0;
    BackupPace idle { 4, std::chrono::hours(1), {}, [&] { return ++asked < 0; } };
    auto copy = copyShardFile(**store, repository, "snap-a/s0.db", idle);
    ASSERT_TRUE(copy) << copy.error().describe();
    EXPECT_GT(asked, 10) << "asked before every pause";
    // Busy: the pause is taken, and a stop between steps ends the copy, leaving no file.
    int steps = 0;
    BackupPace busy { 4, std::chrono::milliseconds(1), [&] { return ++steps > 3; }, [] { return true; } };
    auto stopped = copyShardFile(**store, repository, "snap-a/s1.db", busy);
    ASSERT_FALSE(stopped);
    EXPECT_EQ(stopped.error().code, ErrorCode::Cancelled);
    EXPECT_FALSE(std::filesystem::exists(repository + "/snap-a/s1.db"));
}

// The node's side of a restore: a file that matches its manifest is installed and answers as the
// shard it is restored as; a file of another hash is refused naming it, and nothing is left.
TEST(SnapshotRepository, ARestoredFileIsCheckedAgainstItsManifestAndNamedAsItsNewShard)
{
    TempDir dir;
    {
        auto store = ShardStore::create(dir.file("s0.db"), "s0", {});
        ASSERT_TRUE(store) << store.error().describe();
        ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
        ASSERT_TRUE((*store)->write({ { { "acme", "d1", 1, { { "body", "words" } } }, 1 } }));
        const std::string repository = dir.file("repo");
        std::filesystem::create_directories(repository + "/snap-a");
        ASSERT_TRUE(copyShardFile(**store, repository, "snap-a/s0.db", {}));
    }
    const std::string repository = dir.file("repo");
    auto digest = digestFile(repository + "/snap-a/s0.db");
    ASSERT_TRUE(digest);
    const std::string into = dir.file("restore-m1.db");
    ASSERT_TRUE(restoreShardFile(repository, "snap-a/s0.db", *digest, into));
    ASSERT_TRUE(ShardStore::relabel(into, "restore-m1"));
    auto opened = ShardStore::open(into, {});
    ASSERT_TRUE(opened) << opened.error().describe();
    EXPECT_EQ((*opened)->id(), "restore-m1");
    EXPECT_EQ((*(*opened)->spaceStats({ "acme" })).front().liveDocs, 1u);

    FileDigest other = *digest;
    other.xxh3_128 = std::string(32, '0');
    const std::string refused = dir.file("other.db");
    auto damaged = restoreShardFile(repository, "snap-a/s0.db", other, refused);
    ASSERT_FALSE(damaged);
    EXPECT_EQ(damaged.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(damaged.error().message.find("the snapshot file snap-a/s0.db is damaged"), std::string::npos)
        << damaged.error().message;
    EXPECT_FALSE(std::filesystem::exists(refused));
    EXPECT_FALSE(std::filesystem::exists(refused + ".tmp"));
    EXPECT_EQ(restoreShardFile(repository, "snap-a/none.db", *digest, refused).error().code, ErrorCode::NotFound);
    EXPECT_FALSE(restoreShardFile(repository, "../s0.db", *digest, refused));
}

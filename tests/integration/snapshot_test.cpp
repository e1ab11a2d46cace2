// Issue 32's snapshots end to end: real nodes, a real shardmapd whose executor leader takes them,
// a real SQLite map (etcd for the first two) and shardmapctl. A snapshot taken while writers write is a consistent
// point of every shard; a corrupted byte is named by verify; a leader killed between two shards leaves a snapshot the
// next leader fails and cleans; a missing, read-only or full repository fails with a clear error and nothing usable; an
// unchanged shard is referenced, not copied; retention by count.
#include "core/shard/shard_store.h"
#include "snapshot_fixture.h"
#include "tests/support/small_filesystem.h"
#include "tests/support/workload.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <unistd.h>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

const std::vector<std::string> kSpaces { "t1", "t2", "t3", "t4" };

class SnapshotTest : public SnapshotFixture {
protected:
    // The bodies of the tests that run on both stores (SnapshotTest on SQLite, SnapshotEtcdTest).
    void snapshotUnderWriters();
    void killedLeaderMidSnapshot();
};

// The same fleet with its map on the test binary's shared etcd server.
class SnapshotEtcdTest : public SnapshotTest {
protected:
    void SetUp() override
    {
        std::string error;
        ASSERT_TRUE(useSharedEtcd(error)) << "etcd is needed for this test and did not start: " << error;
        SnapshotTest::SetUp();
    }
};

// Every row of every space of the file, live or tombstone, summed as the node sums its checksum.
std::map<std::string, std::uint64_t> checksumsOfRows(core::ShardStore& store)
{
    std::map<std::string, std::uint64_t> sums;
    auto spaces = store.spaceStats({});
    EXPECT_TRUE(spaces) << spaces.error().describe();
    for (const auto& stats : spaces ? *spaces : std::vector<core::SpaceStats> {}) {
        std::string after;
        std::uint64_t& sum = sums[stats.space];
        while (true) {
            auto page = store.scan(stats.space, after, 500, true);
            EXPECT_TRUE(page) << page.error().describe();
            if (!page)
                break;
            for (const auto& doc : page->docs)
                sum += core::rowTerm(doc.id, core::contentHash(doc));
            if (page->done || page->docs.empty())
                break;
            after = page->cursor;
        }
    }
    return sums;
}

} // namespace

TEST_F(SnapshotTest, ASnapshotWhileWritersWriteIsAConsistentPointOfEveryShard)
{
    snapshotUnderWriters();
}

TEST_F(SnapshotEtcdTest, ASnapshotWhileWritersWriteIsAConsistentPointOfEveryShard)
{
    snapshotUnderWriters();
}

void SnapshotTest::snapshotUnderWriters()
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    Workload workload(
        { kSpaces, 150, 2, 4, 0.2, std::chrono::milliseconds(2), 32 }, { routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    workload.start();
    const auto record = takeSnapshot();
    workload.stop();
    ASSERT_EQ(record["state"], "verified") << record.dump(2) << controller->stderrText();
    EXPECT_EQ(record["shards_total"], 2);
    EXPECT_EQ(record["shards_copied"], 2);
    EXPECT_EQ(record["requested_by"], "tester");
    EXPECT_EQ(record["reason"], "test");
    const auto manifest = manifestOf(record["id"]);
    ASSERT_EQ(manifest.shards.size(), 2u);
    EXPECT_TRUE(manifest.mapRecords.contains("shards/s0"));
    std::size_t spacesSeen = 0;
    for (const auto& entry : manifest.shards) {
        // Opened as a shard (a copy of the file: opening may write its WAL beside it).
        const std::string copy = m_dir.file("open-" + entry.shard + ".db");
        std::filesystem::copy_file(m_repository + "/" + entry.file, copy);
        auto store = core::ShardStore::open(copy, {});
        ASSERT_TRUE(store) << entry.file << ": " << store.error().describe();
        auto held = (*store)->spaceStats({});
        ASSERT_TRUE(held) << held.error().describe();
        EXPECT_EQ(*held, entry.spaces) << entry.file << ": the manifest's spaces are the file's";
        const auto rows = checksumsOfRows(**store);
        for (const auto& stats : *held) {
            EXPECT_EQ(rows.at(stats.space), stats.checksum) << entry.file << " space " << stats.space;
            ++spacesSeen;
        }
    }
    EXPECT_EQ(spacesSeen, kSpaces.size());
}

TEST_F(SnapshotTest, VerifyNamesTheFileWithACorruptByte)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    for (const auto& space : kSpaces)
        write(space, "a", 1);
    const auto record = takeSnapshot();
    ASSERT_EQ(record["state"], "verified") << record.dump(2);
    const std::string id = record["id"];
    const std::string file = id + "/s1.db";
    {
        std::fstream bytes(m_repository + "/" + file, std::ios::in | std::ios::out | std::ios::binary);
        bytes.seekg(1000);
        char byte = 0;
        bytes.read(&byte, 1);
        bytes.seekp(1000);
        byte = static_cast<char>(byte ^ 0x5a);
        bytes.write(&byte, 1);
    }
    auto verified = ctl({ "--json", "snapshot", "verify", id, "--wait" });
    EXPECT_EQ(verified.code, 12) << verified.out << verified.err;
    EXPECT_EQ(verified.parsed()["state"], "corrupt") << verified.out;
    EXPECT_EQ(verified.parsed()["bad_file"], file) << verified.out;
    auto listed = ctl({ "--json", "snapshot", "list" });
    ASSERT_EQ(listed.code, 0) << listed.err;
    EXPECT_EQ(listed.parsed()["snapshots"][0]["usable"], false);
}

TEST_F(SnapshotTest, TheNewLeaderFailsAndCleansASnapshotItsKilledLeaderLeftRunning)
{
    killedLeaderMidSnapshot();
}

TEST_F(SnapshotEtcdTest, TheNewLeaderFailsAndCleansASnapshotItsKilledLeaderLeftRunning)
{
    killedLeaderMidSnapshot();
}

void SnapshotTest::killedLeaderMidSnapshot()
{
    for (const auto& space : kSpaces)
        write(space, "a", 1);
    // Killed between the first shard and the second, as kill -9 would.
    auto first = startController("c1", { "SHARDMAP_FAILPOINTS=snapshot.between_shards=kill@2" });
    ASSERT_TRUE(first);
    auto asked = ctl({ "--json", "snapshot", "create" });
    ASSERT_EQ(asked.code, 0) << asked.err;
    const std::string id = asked.parsed()["id"];
    ASSERT_TRUE(first->process().wait(std::chrono::seconds(30))) << first->stderrText();
    ASSERT_EQ(records().front().state, core::SnapshotState::Running);
    EXPECT_TRUE(std::filesystem::exists(m_repository + "/" + id + "/s0.db"));

    auto second = startController("c2");
    ASSERT_TRUE(second);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] {
        return records().front().state == core::SnapshotState::Failed;
    })) << second->stderrText();
    EXPECT_NE(records().front().error.find("interrupted"), std::string::npos) << records().front().error;
    EXPECT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return !std::filesystem::exists(m_repository + "/" + id); }));
    const auto next = takeSnapshot();
    EXPECT_EQ(next["state"], "verified") << next.dump(2) << second->stderrText();
}

TEST_F(SnapshotTest, AMissingReadOnlyOrFullRepositoryFailsClearlyAndNothingIsUsable)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    for (const auto& space : kSpaces)
        write(space, "a", 1);
    setRepository(m_dir.file("nowhere"));
    auto missing = takeSnapshot(12);
    EXPECT_EQ(missing["state"], "failed");
    EXPECT_NE(missing["error"].get<std::string>().find("does not exist"), std::string::npos) << missing.dump(2);

    const std::string readOnly = m_dir.file("readonly");
    std::filesystem::create_directories(readOnly);
    const bool root = ::geteuid() == 0;
    if (root)
        ASSERT_EQ(std::system(("mount -t tmpfs -o ro,size=1m shardmap-test '" + readOnly + "'").c_str()), 0);
    else
        std::filesystem::permissions(readOnly, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    setRepository(readOnly);
    auto refused = takeSnapshot(12);
    if (root)
        (void)std::system(("umount -l '" + readOnly + "'").c_str());
    EXPECT_EQ(refused["state"], "failed");
    EXPECT_NE(refused["error"].get<std::string>().find("read-only"), std::string::npos) << refused.dump(2);

    // A repository that fills up while the first shard is copied.
    SmallFilesystem small(m_dir.file("small"), "64k");
    if (small.mounted()) {
        for (int i = 0; i < 400; ++i)
            write(kSpaces[static_cast<std::size_t>(i) % kSpaces.size()], "big" + std::to_string(i), 1);
        setRepository(m_dir.file("small"));
        auto full = takeSnapshot(12);
        EXPECT_EQ(full["state"], "failed");
        EXPECT_NE(full["error"].get<std::string>().find("is full"), std::string::npos) << full.dump(2);
        EXPECT_TRUE(std::filesystem::is_empty(m_dir.file("small"))) << "a failed snapshot leaves no file";
    }
    auto listed = ctl({ "--json", "snapshot", "list" });
    ASSERT_EQ(listed.code, 0) << listed.err;
    for (const auto& snapshot : listed.parsed()["snapshots"])
        EXPECT_EQ(snapshot["usable"], false) << snapshot.dump(2);
}

TEST_F(SnapshotTest, AnIncrementalSnapshotCopiesOnlyTheChangedShardAndDeleteKeepsWhatIsReferenced)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    for (const auto& space : kSpaces)
        write(space, "a", 1);
    const auto first = takeSnapshot();
    ASSERT_EQ(first["state"], "verified") << first.dump(2);
    const std::string firstId = first["id"];
    // One document more in one space: its shard changes, the other does not.
    write(kSpaces[0], "b", 1);
    const std::string changed = map().spaces.at(kSpaces[0]).value.shard;
    const std::string unchanged = changed == "s0" ? "s1" : "s0";
    const auto second = takeSnapshot();
    ASSERT_EQ(second["state"], "verified") << second.dump(2);
    EXPECT_EQ(second["shards_copied"], 1);
    const std::string secondId = second["id"];
    for (const auto& entry : manifestOf(secondId).shards)
        EXPECT_EQ(entry.file, (entry.shard == changed ? secondId : firstId) + "/" + entry.shard + ".db");

    auto deleted = ctl({ "--json", "snapshot", "delete", firstId, "--wait" });
    ASSERT_EQ(deleted.code, 0) << deleted.out << deleted.err;
    EXPECT_FALSE(std::filesystem::exists(m_repository + "/" + firstId + "/manifest.json"));
    EXPECT_FALSE(std::filesystem::exists(m_repository + "/" + firstId + "/" + changed + ".db"));
    EXPECT_TRUE(std::filesystem::exists(m_repository + "/" + firstId + "/" + unchanged + ".db"))
        << "the second snapshot still references it";
    auto verified = ctl({ "--json", "snapshot", "verify", secondId, "--wait" });
    EXPECT_EQ(verified.code, 0) << verified.out;
    EXPECT_EQ(verified.parsed()["state"], "verified");
}

TEST_F(SnapshotTest, RetentionKeepsTheNewestByCount)
{
    setRepository(m_repository, 2);
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        for (const auto& space : kSpaces)
            write(space, "v", static_cast<std::uint64_t>(i + 1));
        const auto record = takeSnapshot();
        ASSERT_EQ(record["state"], "verified") << record.dump(2);
        ids.push_back(record["id"]);
    }
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return records().size() == 2; }));
    EXPECT_EQ(records().front().id, ids[1]);
    EXPECT_EQ(records().back().id, ids[2]);
    EXPECT_FALSE(std::filesystem::exists(m_repository + "/" + ids[0]));
}

TEST_F(SnapshotTest, TheNodeRefusesAFileOutsideTheRepository)
{
    std::filesystem::create_directories(m_repository + "/snap-x");
    std::filesystem::create_symlink(m_dir.path(), m_repository + "/snap-x/out");
    auto node = nodeOf("s0");
    for (const std::string file :
        { "../s0.db", "/tmp/s0.db", "snap-x/../../s0.db", "snap-x//s0.db", "snap-x/./s0.db", "snap-x/out/s0.db" }) {
        auto copied = node->snapshotShard({ "s0", m_repository, file, 0 });
        ASSERT_FALSE(copied) << file;
        EXPECT_EQ(copied.error().code, core::ErrorCode::InvalidArgument) << file << ": " << copied.error().describe();
    }
    auto relative = node->snapshotShard({ "s0", "repo", "snap-x/s0.db", 0 });
    ASSERT_FALSE(relative);
    EXPECT_EQ(relative.error().code, core::ErrorCode::InvalidArgument) << relative.error().describe();
    auto copied = node->snapshotShard({ "s0", m_repository, "snap-x/s0.db", 0 });
    ASSERT_TRUE(copied) << copied.error().describe();
    auto digest = core::digestFile(m_repository + "/snap-x/s0.db");
    ASSERT_TRUE(digest) << digest.error().describe();
    EXPECT_EQ(*digest, copied->digest);
    auto again = node->snapshotShard({ "s0", m_repository, "snap-x/s0.db", 0 });
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, core::ErrorCode::AlreadyExists) << again.error().describe();
}

TEST_F(SnapshotTest, TheScheduleTakesSnapshotsAndRetentionByAgeKeepsTheNewestUsableOne)
{
    for (const auto& space : kSpaces)
        write(space, "a", 1);
    core::MigrationSettings settings = map().settings.value;
    settings.snapshotIntervalSeconds = 1;
    settings.snapshotMaxAgeSeconds = 2;
    settings.snapshotKeep = 0;
    ASSERT_TRUE(core::MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor));
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    std::set<std::string> seen;
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(6)) {
        for (const auto& record : records()) {
            seen.insert(record.id);
            EXPECT_TRUE(record.scheduled) << record.id;
            EXPECT_EQ(record.requestedBy, "shardmapd/c1");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_GE(seen.size(), 4u) << "one a second";
    // Every snapshot older than 2 s went; the newest usable one always stays.
    settings.snapshotIntervalSeconds = 0;
    ASSERT_TRUE(core::MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor));
    std::this_thread::sleep_for(std::chrono::seconds(4));
    const auto left = records();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left.front().state, core::SnapshotState::Verified);
    EXPECT_EQ(left.front().id, *seen.rbegin()) << "ids sort by the second they were made in, 1 s apart";
    EXPECT_TRUE(std::filesystem::exists(m_repository + "/" + left.front().id + "/manifest.json"));
}

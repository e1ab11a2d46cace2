// Issue 32's restore of a space end to end: real nodes, a real shardmapd whose executor runs the
// restore as a migration from a snapshot's file, a real SQLite map and shardmapctl. A tenant whose
// documents were deleted by mistake comes back as the snapshot held it, its neighbours untouched,
// the restore in the audit; under a new id it is made beside the live one; a corrupt snapshot is
// refused, and a file damaged after its verify fails the restore with nothing live changed; a lost
// shard comes back onto another node, a whole fleet onto new nodes; a leader killed mid-restore
// leaves it to the next, who finishes it.
#include "core/fleet/shard_creation.h"
#include "core/shard/shard_store.h"
#include "core/util/index_settings.h"
#include "snapshot_fixture.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

const std::vector<std::string> kTenants { "t1", "t2", "t3" };

class RestoreTest : public SnapshotFixture {
protected:
    // Every row of space on shard, tombstones included, by id.
    std::map<std::string, core::Document> rowsOf(const std::string& shard, const std::string& space)
    {
        std::map<std::string, core::Document> rows;
        std::string after;
        while (true) {
            auto page = nodeOf(shard)->scanPage(shard, space, after, 500, true);
            EXPECT_TRUE(page) << page.error().describe();
            if (!page)
                return rows;
            for (auto& doc : page->docs) {
                doc.space.clear();
                rows[doc.id] = doc;
            }
            if (page->done || page->docs.empty())
                return rows;
            after = page->cursor;
        }
    }

    core::SpaceStats statsOf(const std::string& shard, const std::string& space)
    {
        auto stats = nodeOf(shard)->spaceStats(shard, { space });
        EXPECT_TRUE(stats) << stats.error().describe();
        core::SpaceStats none;
        none.space = space;
        return stats && !stats->empty() ? stats->front() : none;
    }

    // The migration record of the restore once it is final (the test fails after 60 s).
    core::MigrationRecord waitForEnd(const std::string& id)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (std::chrono::steady_clock::now() < deadline) {
            const auto snapshot = map();
            const auto found = snapshot.migrations.find(id);
            if (found != snapshot.migrations.end() && core::isFinal(found->second.value.phase))
                return found->second.value;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ADD_FAILURE() << "restore " << id << " did not end";
        return {};
    }

    // t1..t3 with `docs` documents each, a snapshot of them (verified), its id.
    std::string writeAndSnapshot(int docs)
    {
        for (const auto& tenant : kTenants) {
            for (int i = 0; i < docs; ++i)
                write(tenant, "d" + std::to_string(i), 1);
        }
        const auto record = takeSnapshot();
        EXPECT_EQ(record["state"], "verified") << record.dump(2);
        return record.value("id", "");
    }

    std::string shardOf(const std::string& space) { return map().spaces.at(space).value.shard; }
    static std::string otherShard(const std::string& shard) { return shard == "s0" ? "s1" : "s0"; }

    // The stats of space as the snapshot's manifest records them.
    core::SpaceStats snapshotStats(const std::string& snapshot, const std::string& space)
    {
        for (const auto& entry : manifestOf(snapshot).shards) {
            for (const auto& stats : entry.spaces) {
                if (stats.space == space)
                    return stats;
            }
        }
        ADD_FAILURE() << "snapshot " << snapshot << " holds no " << space;
        return {};
    }

    bool stagingShardsLeft()
    {
        for (const auto& shard : { "s0", "s1" }) {
            auto listed = nodeOf(shard)->listShards();
            EXPECT_TRUE(listed) << listed.error().describe();
            for (const auto& summary : listed ? *listed : std::vector<core::ShardSummary> {}) {
                if (summary.id.starts_with("restore-"))
                    return true;
            }
        }
        return false;
    }
};

} // namespace

TEST_F(RestoreTest, ATenantDeletedByMistakeComesBackFromTheLastSnapshotAndOthersAreUntouched)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    const std::string snapshot = writeAndSnapshot(40);
    ASSERT_FALSE(snapshot.empty());
    const std::string live = shardOf("t1");
    const auto then = rowsOf(live, "t1");
    ASSERT_EQ(then.size(), 40u);
    // The mistake: every document of t1 deleted; t2 goes on being written after the snapshot.
    {
        std::vector<core::Document> deletes;
        for (int i = 0; i < 40; ++i)
            deletes.push_back({ "t1", "d" + std::to_string(i), 3, {}, true });
        auto deleted = m_router->write(deletes);
        ASSERT_TRUE(deleted) << deleted.error().describe();
    }
    write("t2", "after-snapshot", 1);
    ASSERT_EQ(statsOf(live, "t1").liveDocs, 0u);
    const auto t2Before = statsOf(shardOf("t2"), "t2");
    const auto t3Before = statsOf(shardOf("t3"), "t3");
    const std::string into = otherShard(live);

    auto preview = ctl({ "--json", "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard", into });
    ASSERT_EQ(preview.code, 0) << preview.out << preview.err;
    EXPECT_EQ(preview.parsed()["applied"], false);
    EXPECT_EQ(preview.parsed()["replaces"], true);
    EXPECT_EQ(preview.parsed()["then"]["live_docs"], 40);
    EXPECT_EQ(preview.parsed()["now"]["live_docs"], 0);
    EXPECT_TRUE(map().migrations.empty()) << "a preview queues nothing";

    auto applied = ctl({ "--json", "--reason", "t1 deleted by mistake", "restore", "space", "--snapshot", snapshot,
        "--space", "t1", "--shard", into, "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
    const auto ended = waitForEnd(applied.parsed()["id"]);
    ASSERT_EQ(ended.phase, core::MigrationPhase::Done) << ended.status << " " << ended.error << "\n"
                                                       << controller->stderrText();
    EXPECT_EQ(shardOf("t1"), into);
    EXPECT_FALSE(map().spaces.at("t1").value.migrating()) << "the restore let go of the space";
    EXPECT_EQ(rowsOf(into, "t1"), then) << "t1's documents are the snapshot's";
    EXPECT_EQ(statsOf(into, "t1"), snapshotStats(snapshot, "t1"));
    EXPECT_EQ(statsOf(live, "t1").liveDocs + statsOf(live, "t1").tombstones, 0u) << "the replaced rows are removed";
    EXPECT_EQ(statsOf(shardOf("t2"), "t2"), t2Before) << "t2 keeps its write after the snapshot";
    EXPECT_EQ(statsOf(shardOf("t3"), "t3"), t3Before);
    EXPECT_FALSE(stagingShardsLeft());
    // The application goes on writing t1 where it is now.
    write("t1", "new", 1);
    EXPECT_EQ(statsOf(into, "t1").liveDocs, 41u);
    // The restore is in the audit, with who and why.
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history) << history.error().describe();
    bool requested = false;
    bool cutover = false;
    for (const auto& record : *history) {
        requested
            |= record.action == "restore-space" && record.actor == "tester" && record.reason == "t1 deleted by mistake";
        cutover |= record.action == "restore-cutover";
    }
    EXPECT_TRUE(requested);
    EXPECT_TRUE(cutover);
}

TEST_F(RestoreTest, UnderANewIdTheSpaceIsMadeBesideTheLiveOne)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    const std::string snapshot = writeAndSnapshot(25);
    const std::string live = shardOf("t1");
    write("t1", "after-snapshot", 1);
    const auto liveBefore = statsOf(live, "t1");
    auto applied = ctl({ "--json", "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard",
        otherShard(live), "--as", "t1-then", "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
    const auto ended = waitForEnd(applied.parsed()["id"]);
    ASSERT_EQ(ended.phase, core::MigrationPhase::Done) << ended.status << " " << ended.error;
    EXPECT_EQ(shardOf("t1-then"), otherShard(live));
    EXPECT_EQ(statsOf(otherShard(live), "t1-then"), [&] {
        auto stats = snapshotStats(snapshot, "t1");
        stats.space = "t1-then";
        return stats;
    }());
    EXPECT_EQ(shardOf("t1"), live);
    EXPECT_EQ(statsOf(live, "t1"), liveBefore) << "the live space is untouched";
    core::ShardSearchRequest search { { "t1-then" }, "words", 100, 0, false };
    auto found = m_router->search(search);
    ASSERT_TRUE(found) << found.error().describe();
    EXPECT_EQ(found->hits.size(), 25u);
    // A new id that exists is refused.
    auto again = ctl({ "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard", otherShard(live), "--as",
        "t1-then" });
    EXPECT_NE(again.code, 0);
    EXPECT_NE(again.err.find("space t1-then exists"), std::string::npos) << again.err;
}

TEST_F(RestoreTest, BadRequestsAreRefusedWithTheReasonAndQueueNothing)
{
    const std::string snapshot = [&] {
        auto controller = startController("c1");
        return writeAndSnapshot(3);
    }();
    const std::string live = shardOf("t1");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases {
        { { "--snapshot", "snap-nope", "--space", "t1", "--shard", otherShard(live) }, "no snapshot snap-nope" },
        { { "--snapshot", snapshot, "--space", "t9", "--shard", otherShard(live) }, "holds no space t9" },
        { { "--snapshot", snapshot, "--space", "t1", "--shard", "s7" }, "no shard s7" },
        { { "--snapshot", snapshot, "--space", "t1", "--shard", live }, "restore it into another shard" },
        { { "--snapshot", snapshot, "--space", "t1", "--shard", otherShard(live), "--as", "bad id!" }, "space" },
        // A shard whose capacity the space would pass: refused at planning with the numbers.
        { { "--snapshot", snapshot, "--space", "t1", "--shard", "s2" }, "would hold" },
    };
    ASSERT_EQ(ctl({ "shard", "create", "s2", "--node", "n0", "--capacity-docs", "2" }).code, 0);
    for (const auto& [args, expected] : cases) {
        std::vector<std::string> command { "restore", "space" };
        command.insert(command.end(), args.begin(), args.end());
        command.push_back("--apply");
        auto refused = ctl(command);
        EXPECT_NE(refused.code, 0) << refused.out;
        EXPECT_NE(refused.err.find(expected), std::string::npos) << refused.err;
    }
    EXPECT_TRUE(map().migrations.empty());

    // Into a shard built with another template: allowed, and the preview says so.
    core::FleetAdmin admin(*m_store, m_pool);
    core::IndexSettings stemmed = core::defaultIndexSettings();
    stemmed.tokenizer = core::Tokenizer::Porter;
    ASSERT_TRUE(admin.map().createTemplate("stemmed", stemmed, "", m_actor));
    core::NewShard shard("s3", "n1");
    shard.index = stemmed;
    shard.templateName = "stemmed";
    shard.templateVersion = 1;
    auto created = admin.createShard(shard, m_actor);
    ASSERT_TRUE(created) << created.error().describe();
    auto preview = ctl({ "--json", "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard", "s3" });
    ASSERT_EQ(preview.code, 0) << preview.out << preview.err;
    EXPECT_NE(preview.parsed().value("template_note", "").find("built with template stemmed:1"), std::string::npos)
        << preview.out;
}

TEST_F(RestoreTest, ACorruptSnapshotIsRefusedAndAFileDamagedAfterItsVerifyFailsTheRestoreWithNothingChanged)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    const std::string snapshot = writeAndSnapshot(20);
    const std::string live = shardOf("t1");
    write("t1", "after-snapshot", 1);
    const auto before = statsOf(live, "t1");
    std::string file;
    for (const auto& entry : manifestOf(snapshot).shards) {
        if (entry.shard == live)
            file = entry.file;
    }
    ASSERT_FALSE(file.empty());
    {
        std::fstream bytes(m_repository + "/" + file, std::ios::in | std::ios::out | std::ios::binary);
        bytes.seekg(2000);
        char byte = 0;
        bytes.read(&byte, 1);
        bytes.seekp(2000);
        byte = static_cast<char>(byte ^ 0x5a);
        bytes.write(&byte, 1);
    }
    // Damaged after its verify: the snapshot still reads as verified; the node refuses the file.
    auto applied = ctl({ "--json", "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard",
        otherShard(live), "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
    const auto ended = waitForEnd(applied.parsed()["id"]);
    EXPECT_EQ(ended.phase, core::MigrationPhase::Failed);
    EXPECT_NE(ended.error.find("the snapshot file " + file + " is damaged"), std::string::npos) << ended.error;
    EXPECT_EQ(shardOf("t1"), live);
    EXPECT_FALSE(map().spaces.at("t1").value.migrating());
    EXPECT_EQ(statsOf(live, "t1"), before);
    EXPECT_FALSE(stagingShardsLeft());
    // Verified again, it is corrupt, and a restore from it is refused at once.
    auto verified = ctl({ "snapshot", "verify", snapshot, "--wait" });
    EXPECT_EQ(verified.code, 12) << verified.out << verified.err;
    auto refused = ctl({ "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard", otherShard(live) });
    EXPECT_NE(refused.code, 0);
    EXPECT_NE(refused.err.find("is corrupt (" + file), std::string::npos) << refused.err;
}

TEST_F(RestoreTest, AShardWhoseEveryCopyIsLostComesBackOntoAnotherNodeAndTheMapSaysWhatWasLost)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    const std::string snapshot = writeAndSnapshot(15);
    // The shard that holds t1 is lost with its node; it comes back on the other node.
    const std::string lostShard = shardOf("t1");
    const std::string lostNode = lostShard == "s0" ? "n0" : "n1";
    const std::string otherNode = lostShard == "s0" ? "n1" : "n0";
    std::vector<std::string> onS1;
    for (const auto& tenant : kTenants) {
        if (shardOf(tenant) == lostShard)
            onS1.push_back(tenant);
    }
    // Written after the snapshot: lost with the node.
    write(onS1.front(), "lost-with-the-node", 1);
    const auto epochBefore = map().spaces.at(onS1.front()).value.epoch;
    auto client = nodeOf(otherShard(lostShard));
    m_nodes[lostShard == "s0" ? 0 : 1]->kill9();
    auto lost = ctl({ "node", "lose", lostNode, "--yes" });
    ASSERT_EQ(lost.code, 0) << lost.out << lost.err;
    // Its copy on n0 would serve: a shard that is not lost is refused.
    auto refused
        = ctl({ "restore", "shard", "--snapshot", snapshot, "--shard", otherShard(lostShard), "--node", lostNode });
    EXPECT_NE(refused.code, 0);
    EXPECT_NE(refused.err.find("which is not lost"), std::string::npos) << refused.err;

    auto preview
        = ctl({ "--json", "restore", "shard", "--snapshot", snapshot, "--shard", lostShard, "--node", otherNode });
    ASSERT_EQ(preview.code, 0) << preview.out << preview.err;
    EXPECT_EQ(preview.parsed()["applied"], false);
    EXPECT_EQ(map().shards.at(lostShard).value.node, lostNode) << "a preview changes nothing";
    auto applied = ctl({ "--json", "--reason", "a disk died", "restore", "shard", "--snapshot", snapshot, "--shard",
        lostShard, "--node", otherNode, "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
    const auto shard = map().shards.at(lostShard).value;
    EXPECT_EQ(shard.node, otherNode);
    EXPECT_TRUE(shard.replicas.empty());
    EXPECT_NE(shard.restoredFrom.find(snapshot), std::string::npos) << shard.restoredFrom;
    EXPECT_EQ(map().spaces.at(onS1.front()).value.epoch, epochBefore + 1);
    // The shard serves as the snapshot held it, and takes writes again.
    for (const auto& tenant : onS1) {
        auto stats = client->spaceStats(lostShard, { tenant });
        ASSERT_TRUE(stats && !stats->empty()) << tenant;
        EXPECT_EQ(stats->front(), snapshotStats(snapshot, tenant)) << tenant;
    }
    // The router learns the new route from its watch of the map; a write before that fails as
    // Unavailable (the node it knew is dead) and the application retries it.
    core::Document doc { onS1.front(), "after-restore", 1, { { "title", "new" } }, false };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    auto written = m_router->write({ doc });
    while (!written && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        written = m_router->write({ doc });
    }
    ASSERT_TRUE(written) << written.error().describe();
    auto after = client->spaceStats(lostShard, { onS1.front() });
    ASSERT_TRUE(after && !after->empty());
    EXPECT_EQ(after->front().liveDocs, 16u);
}

TEST_F(RestoreTest, AWholeFleetIsRebuiltOntoNewNodesFromASnapshotAndSearched)
{
    const std::string snapshot = [&] {
        auto controller = startController("c1");
        return writeAndSnapshot(12);
    }();
    ASSERT_FALSE(snapshot.empty());
    // The drill: two empty nodes and an empty store somewhere else.
    std::vector<std::unique_ptr<NodeProcess>> fresh;
    for (int i = 0; i < 2; ++i) {
        fresh.push_back(NodeProcess::start(m_dir.file("fresh" + std::to_string(i))));
        ASSERT_TRUE(fresh.back());
    }
    const std::string newStore = "sqlite:" + m_dir.file("drill.db");
    ASSERT_EQ(runCtl(m_dir, newStore, { "init" }).code, 0);
    auto restored = runCtl(m_dir, newStore,
        { "--json", "--reason", "drill", "restore", "fleet", "--repository", m_repository, "--snapshot", snapshot,
            "--node", "n0=" + fresh[0]->address(), "--node", "n1=" + fresh[1]->address() });
    ASSERT_EQ(restored.code, 0) << restored.out << restored.err;
    EXPECT_EQ(restored.parsed()["shards"].size(), 2u) << restored.out;
    // Into a store that holds a fleet already: refused.
    auto again = runCtl(m_dir, newStore,
        { "restore", "fleet", "--repository", m_repository, "--snapshot", snapshot, "--node",
            "n0=" + fresh[0]->address(), "--node", "n1=" + fresh[1]->address() });
    EXPECT_NE(again.code, 0);
    EXPECT_NE(again.err.find("empty store"), std::string::npos) << again.err;

    auto store = core::openStore(newStore, false);
    ASSERT_TRUE(store) << store.error().describe();
    core::NodeClientPool pool;
    auto router = core::Router::start(**store, pool, {});
    ASSERT_TRUE(router) << router.error().describe();
    for (const auto& tenant : kTenants) {
        auto found = (*router)->search({ { tenant }, "words", 100, 0, false });
        ASSERT_TRUE(found) << tenant << ": " << found.error().describe();
        EXPECT_EQ(found->hits.size(), 12u) << tenant;
    }
    core::Document doc { "t1", "after-drill", 1, { { "title", "new" } }, false };
    auto written = (*router)->write({ doc });
    ASSERT_TRUE(written) << written.error().describe();
}

// A leader killed in the middle of a restore, once while copying and once with the live shard
// fenced before the cutover's commit: the next leader finishes it from the record, the space holds
// the snapshot's documents and takes writes.
TEST_F(RestoreTest, ALeaderKilledMidRestoreLeavesItToTheNextLeaderWhoFinishesIt)
{
    const std::string snapshot = [&] {
        auto controller = startController("c0");
        return writeAndSnapshot(60);
    }();
    const std::string live = shardOf("t1");
    const auto then = rowsOf(live, "t1");
    write("t1", "after-snapshot", 1);
    // A small backfill batch, so that the copy has several batches to be killed between.
    core::MigrationSettings settings = map().settings.value;
    settings.backfillBatch = 10;
    ASSERT_TRUE(core::MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor));
    for (const std::string failpoint : { "migration.backfill.batch=kill@3", "restore.cutover.before_commit=kill" }) {
        SCOPED_TRACE(failpoint);
        const std::string from = shardOf("t1");
        auto first = startController("c1", { "SHARDMAP_FAILPOINTS=" + failpoint });
        ASSERT_TRUE(first);
        auto applied = ctl({ "--json", "--reason", "crash drill", "restore", "space", "--snapshot", snapshot, "--space",
            "t1", "--shard", otherShard(from), "--apply" });
        ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
        ASSERT_TRUE(first->process().wait(std::chrono::seconds(30))) << "the failpoint killed it\n"
                                                                     << first->stderrText();
        EXPECT_FALSE(core::isFinal(map().migrations.at(applied.parsed()["id"]).value.phase));
        auto second = startController("c2");
        ASSERT_TRUE(second);
        const auto ended = waitForEnd(applied.parsed()["id"]);
        ASSERT_EQ(ended.phase, core::MigrationPhase::Done) << ended.error << "\n" << second->stderrText();
        EXPECT_EQ(shardOf("t1"), otherShard(from));
        EXPECT_FALSE(map().spaces.at("t1").value.migrating());
        EXPECT_EQ(rowsOf(otherShard(from), "t1"), then);
        EXPECT_FALSE(stagingShardsLeft());
        write("t1", "after-restore", 1);
        EXPECT_EQ(statsOf(otherShard(from), "t1").liveDocs, then.size() + 1);
        // The second round restores the snapshot over that write again, back onto the first shard.
        write("t1", "after-restore", 2);
        std::vector<core::Document> undo { { "t1", "after-restore", 3, {}, true } };
        ASSERT_TRUE(m_router->write(undo));
    }
}

// A restore that must stop after its cutover fenced the live shard (a leader killed there, and a
// stop found by the next leader: here the record's cancel set in the store by hand, the fault this
// test injects, since a cancel is refused once a restore cuts over): the space goes on on its live
// shard, at an epoch above the fence, and takes writes.
TEST_F(RestoreTest, ARestoreStoppedAfterTheLiveShardWasFencedLeavesTheSpaceWritable)
{
    const std::string snapshot = [&] {
        auto controller = startController("c0");
        return writeAndSnapshot(10);
    }();
    const std::string live = shardOf("t1");
    const std::string into = otherShard(live);
    auto first = startController("c1", { "SHARDMAP_FAILPOINTS=restore.cutover.before_commit=kill" });
    ASSERT_TRUE(first);
    auto applied
        = ctl({ "--json", "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard", into, "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
    ASSERT_TRUE(first->process().wait(std::chrono::seconds(30))) << first->stderrText();
    const std::uint64_t epoch = map().spaces.at("t1").value.epoch;
    {
        const auto snapshotNow = map();
        const auto& versioned = snapshotNow.migrations.at(applied.parsed()["id"]);
        core::MigrationRecord record = versioned.value;
        ASSERT_EQ(record.phase, core::MigrationPhase::Cutover);
        record.cancelRequested = true;
        ASSERT_TRUE(m_store->commit({ { { core::keys::migration(record.id), encode(record), versioned.modRevision } },
            std::nullopt, std::nullopt, "tester", "test-fixture", "a stop at the cutover" }));
    }
    auto second = startController("c2");
    ASSERT_TRUE(second);
    const auto ended = waitForEnd(applied.parsed()["id"]);
    EXPECT_EQ(ended.phase, core::MigrationPhase::Cancelled) << ended.error;
    const auto space = map().spaces.at("t1").value;
    EXPECT_EQ(space.shard, live);
    EXPECT_FALSE(space.migrating());
    EXPECT_GT(space.epoch, epoch + 1) << "above the fence the cutover set at " << epoch + 1;
    write("t1", "after-the-stop", 1);
    EXPECT_EQ(statsOf(live, "t1").liveDocs, 11u);
}

// Into a shard with a replica: the replica is a target of the restore as the primary is (owned,
// backfilled, verified against the staging shard, told the new owner), so both copies hold the
// snapshot's rows, the replica stays in sync, and the rows the space had go from the live shard.
TEST_F(RestoreTest, IntoAShardWithAReplicaEveryCopyHoldsTheSnapshotsRows)
{
    auto controller = startController("c0");
    const std::string snapshot = writeAndSnapshot(40);
    const std::string live = shardOf("t1");
    const std::string into = otherShard(live);
    const std::string replicaNode = live == "s0" ? "n0" : "n1";
    core::FleetAdmin admin(*m_store, m_pool);
    auto added = admin.addReplica(into, replicaNode, m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    const auto replicaState = [&] { return map().shards.at(into).value.replicaOn(replicaNode)->state; };
    for (int i = 0; i < 600 && replicaState() != core::CopyState::InSync; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_EQ(replicaState(), core::CopyState::InSync) << "the controller's catch-up";
    const auto then = rowsOf(live, "t1");
    write("t1", "after-snapshot", 1);
    auto applied = ctl({ "--json", "--reason", "bad import", "restore", "space", "--snapshot", snapshot, "--space",
        "t1", "--shard", into, "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
    const auto ended = waitForEnd(applied.parsed()["id"]);
    ASSERT_EQ(ended.phase, core::MigrationPhase::Done) << ended.error << "\n" << controller->stderrText();
    EXPECT_EQ(shardOf("t1"), into);
    EXPECT_EQ(rowsOf(into, "t1"), then);
    EXPECT_EQ(replicaState(), core::CopyState::InSync) << "the replica took every page; it did not leave";
    auto replica = m_pool.get(m_nodes.at(live == "s0" ? 0 : 1)->address());
    ASSERT_TRUE(replica);
    auto onReplica = (*replica)->spaceStats(into, { "t1" });
    ASSERT_TRUE(onReplica && onReplica->size() == 1) << (onReplica ? "no t1" : onReplica.error().describe());
    const auto onPrimary = statsOf(into, "t1");
    EXPECT_EQ(onReplica->front().liveDocs, then.size());
    EXPECT_EQ(onReplica->front().checksum, onPrimary.checksum);
    EXPECT_EQ(onReplica->front().tombstones, onPrimary.tombstones);
    EXPECT_EQ(statsOf(live, "t1").liveDocs, 0u) << "the replaced rows are gone from the live shard";
    EXPECT_FALSE(stagingShardsLeft());
    write("t1", "after-restore", 1);
    auto afterWrite = (*replica)->spaceStats(into, { "t1" });
    ASSERT_TRUE(afterWrite);
    EXPECT_EQ(afterWrite->front().liveDocs, then.size() + 1) << "the router writes the replica too";
}

// A leader that installed a restore's staging shard and died before its first commit left the
// restore queued: a cancel then is asked of the executor (not done in the map alone), whose stop
// removes the staging shard from the target's node.
TEST_F(RestoreTest, ACancelOfAQueuedRestoreRemovesTheStagingShardItsLeaderLeft)
{
    const std::string snapshot = [&] {
        auto controller = startController("c0");
        return writeAndSnapshot(10);
    }();
    const std::string live = shardOf("t1");
    auto first = startController("c1", { "SHARDMAP_FAILPOINTS=restore.start.staged=kill" });
    ASSERT_TRUE(first);
    auto applied = ctl({ "--json", "restore", "space", "--snapshot", snapshot, "--space", "t1", "--shard",
        otherShard(live), "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
    const std::string id = applied.parsed()["id"];
    ASSERT_TRUE(first->process().wait(std::chrono::seconds(30))) << first->stderrText();
    ASSERT_EQ(map().migrations.at(id).value.phase, core::MigrationPhase::Queued);
    ASSERT_TRUE(stagingShardsLeft()) << "the staging shard was installed before the kill";
    auto cancelled = ctl({ "--json", "migrations", "cancel", id });
    ASSERT_EQ(cancelled.code, 0) << cancelled.out << cancelled.err;
    EXPECT_TRUE(map().migrations.at(id).value.cancelRequested);
    auto second = startController("c2");
    ASSERT_TRUE(second);
    const auto ended = waitForEnd(id);
    EXPECT_EQ(ended.phase, core::MigrationPhase::Cancelled) << ended.error;
    EXPECT_FALSE(stagingShardsLeft());
    EXPECT_EQ(shardOf("t1"), live);
    EXPECT_EQ(statsOf(live, "t1").liveDocs, 10u);
}

// snapshot_fleet_bench: a full snapshot of a fleet of --shards shards against an incremental one
// where one shard changed (issue 32), taken by a real shardmapd's executor leader through a real
// shardmap-node it starts, on an SQLite map.
//
// 1. One node, --shards shards of --docs documents each (one space per shard), a repository.
// 2. Full: a snapshot is requested and timed from its record (started to finished, as the leader
//    measured it: every shard copied, fsynced and hashed, the manifest written), then its verify.
// 3. One document written to one shard; the next snapshot is incremental: the unchanged shards'
//    files are referenced after their content checksums are compared, only the changed one copied.
//    The disk's writeback is flushed (sync) before each of the two.
// 4. Reports both durations, the shards and bytes copied, and the ratio incremental / full.
//
// Nothing here asserts on timings; the program reports and exits 0 unless something failed.

#include "bench/bench_main.h"
#include "bench/bench_process.h"
#include "bench/bench_report.h"
#include "core/admin/fleet_admin.h"
#include "core/migration/migration_requests.h"
#include "core/snapshot/snapshot_requests.h"
#include "core/store/metadata_store.h"
#include "core/util/units.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>
#include <unistd.h>

using namespace shardmap;
using namespace shardmap::bench;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    std::string controllerBinary = SHARDMAP_CONTROLLER_BINARY;
    std::size_t shards = 100;
    std::size_t docs = 500;
    std::string workDir;
};

template <typename T> void check(const core::Result<T>& result, const std::string& what)
{
    if (!result)
        throw std::runtime_error(what + ": " + result.error().describe());
}

std::string shardName(std::size_t i)
{
    char name[32];
    std::snprintf(name, sizeof name, "s%03zu", i);
    return name;
}

void writeDocs(core::NodeClient& node, const std::string& shard, std::size_t first, std::size_t count)
{
    std::vector<core::WriteItem> items;
    for (std::size_t i = first; i < first + count; ++i)
        items.push_back({ { "t-" + shard, "d" + std::to_string(i), 1,
                              { { "title", "document " + std::to_string(i) },
                                  { "body", std::string(400, static_cast<char>('a' + i % 26)) } },
                              false },
            1 });
    auto written = node.bulkWrite(shard, items);
    check(written, "writing " + shard);
}

// Requests a snapshot and waits until it is verified; its record.
core::SnapshotRecord takeSnapshot(core::MetadataStore& store, const core::Actor& actor)
{
    auto made = core::SnapshotRequests(store).create(actor);
    check(made, "requesting a snapshot");
    const auto deadline = Clock::now() + std::chrono::minutes(10);
    while (Clock::now() < deadline) {
        auto found = core::SnapshotRequests(store).find(made->id);
        check(found, "reading the snapshot");
        if (found->value.state == core::SnapshotState::Verified)
            return found->value;
        if (found->value.state == core::SnapshotState::Failed || found->value.state == core::SnapshotState::Corrupt)
            throw std::runtime_error("snapshot " + made->id + " ended " + core::snapshotStateName(found->value.state)
                + ": " + found->value.error);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("snapshot " + made->id + " did not end within 10 minutes");
}

void report(const char* what, const core::SnapshotRecord& r)
{
    std::printf("  %-12s %8.3f s  %3u of %3u shards copied  %10s copied of %s\n", what,
        static_cast<double>(r.finishedUnixMs - r.startedUnixMs) / 1000.0, r.shardsCopied, r.shardsTotal,
        core::formatBytes(r.bytesCopied).c_str(), core::formatBytes(r.bytes).c_str());
}

void measure(const Options& o, const std::filesystem::path& dir)
{
    auto node = ServerProcess::start({ o.nodeBinary, "--listen", "127.0.0.1:0", "--data-dir", (dir / "node").string(),
                                         "--min-free-bytes", "0", "--exit-with-parent" },
        (dir / "node.log").string());
    const std::string storeUri = "sqlite:" + (dir / "map.db").string();
    auto store = core::openStore(storeUri, true);
    check(store, "opening the map");
    core::NodeClientPool pool;
    core::FleetAdmin admin(**store, pool);
    const core::Actor actor { "bench", "snapshot fleet bench" };
    check(admin.map().addNode({ "n0", node->address(), {}, false }, actor), "adding n0");
    auto client = *pool.get(node->address());
    for (std::size_t i = 0; i < o.shards; ++i) {
        const std::string shard = shardName(i);
        check(admin.createShard({ shard, "n0" }, actor), "creating " + shard);
        check(client->setOwnership(shard, { "t-" + shard, core::SpaceRole::Owner, 1 }), "owning");
        writeDocs(*client, shard, 0, o.docs);
    }
    core::MigrationSettings settings;
    settings.snapshotRepository = (dir / "repository").string();
    std::filesystem::create_directories(settings.snapshotRepository);
    check(core::MigrationRequests(**store, pool).setSettings(settings, actor), "settings");
    auto controller = ServerProcess::start(
        { o.controllerBinary, "--store", storeUri, "--listen", "127.0.0.1:0", "--id", "c1", "--exit-with-parent" },
        (dir / "shardmapd.log").string());
    // Each snapshot starts on a disk with nothing left to write back (the load's pages, then the
    // full snapshot's 100 files): neither pays for what came before it.
    ::sync();
    const auto full = takeSnapshot(**store, actor);
    writeDocs(*client, shardName(o.shards / 2), o.docs, 1);
    ::sync();
    const auto incremental = takeSnapshot(**store, actor);
    report("full", full);
    report("incremental", incremental);
    const double ratio = static_cast<double>(incremental.finishedUnixMs - incremental.startedUnixMs)
        / static_cast<double>(std::max<std::int64_t>(1, full.finishedUnixMs - full.startedUnixMs));
    std::printf("incremental / full: %.3f (target <= 0.05)\n", ratio);
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    CLI::App app("A fleet's full snapshot against an incremental one where one shard changed (issue 32)");
    app.add_option("--shards", o.shards, "Shards on the node (default 100)");
    app.add_option("--docs", o.docs, "Documents per shard (default 500)");
    app.add_option("--node-binary", o.nodeBinary, "shardmap-node");
    app.add_option("--controller-binary", o.controllerBinary, "shardmapd");
    app.add_option("--work-dir", o.workDir, "Where the work directory is made (default: the temp dir)");
    CLI11_PARSE(app, argc, argv);
    std::cout << "# " << joinCommand(argc, argv) << "\n"
              << "snapshot_fleet_bench on " << cpuModel() << ", load " << loadAverage() << ", " << utcNow() << "\n";
    std::filesystem::path workDir;
    if (!measureInWorkDir(argv[0], o.workDir, "snapshot-fleet-bench", workDir,
            [&](const std::filesystem::path& dir) { measure(o, dir); }))
        return 1;
    finishWorkDir(workDir, false);
    return 0;
}

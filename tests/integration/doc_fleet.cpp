#include "doc_fleet.h"

#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "ctl_run.h"

#include <filesystem>
#include <map>

namespace shardmap::testing {

namespace {

// Which shard holds which spaces: two on most shards, three on s7 (a split has halves to make),
// the two of s8 for the drain.
const std::vector<std::pair<std::string, std::vector<std::string>>> kSpaces {
    { "s1", { "acme", "globex" } },
    { "s2", { "initech" } },
    { "s3", { "hooli", "umbrella" } },
    { "s4", { "stark" } },
    { "s5", { "wayne" } },
    { "s6", { "wonka", "oscorp" } },
    { "s7", { "tyrell", "cyberdyne", "soylent" } },
    { "s8", { "initrode", "vandelay" } },
};

// s1 and s2 on n1, s3 and s4 on n2 ...: the node's number.
int nodeOfShard(int shard)
{
    return (shard + 1) / 2;
}

} // namespace

void DocFleet::start(const TempDir& dir)
{
    std::filesystem::create_directories(dir.file("fleet"));
    m_storeUri = "sqlite:" + dir.file("fleet/map.db");
    const auto ctl = [&](const std::vector<std::string>& args) {
        const auto run = runCtl(dir, m_storeUri, args);
        EXPECT_EQ(run.code, 0) << "shardmapctl " << args.front() << ": " << run.out << run.err;
        return run.code == 0;
    };
    ASSERT_TRUE(ctl({ "init" }));
    for (int i = 1; i <= 5; ++i) {
        m_nodes.push_back(NodeProcess::start(dir.file("fleet/n" + std::to_string(i))));
        ASSERT_TRUE(m_nodes.back());
        ASSERT_TRUE(ctl({ "node", "add", "n" + std::to_string(i), m_nodes.back()->address() }));
    }
    for (int shard = 1; shard <= 8; ++shard)
        ASSERT_TRUE(ctl(
            { "shard", "create", "s" + std::to_string(shard), "--node", "n" + std::to_string(nodeOfShard(shard)) }));
    int docs = 10;
    for (const auto& [shard, spaces] : kSpaces) {
        for (const auto& space : spaces)
            ASSERT_NO_FATAL_FAILURE(addSpace(space, shard, docs += 5));
    }
    // A migration is done at once after its cutover, with no old copy kept.
    ASSERT_TRUE(ctl({ "migrations", "settings", "--rollback-window", "0" }));
    m_controller = ControllerProcess::start(
        dir.file("fleet/shardmapd.stderr"), { "--store", m_storeUri, "--id", "doc-fleet", "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(m_controller);
    ASSERT_NO_FATAL_FAILURE(drainAndWait(dir));
}

// A space record owned by shard, and its documents written to the shard's node.
void DocFleet::addSpace(const std::string& space, const std::string& shard, int docs)
{
    auto store = core::openStore(m_storeUri, false);
    ASSERT_TRUE(store) << store.error().describe();
    core::SpaceRecord record;
    record.id = space;
    record.shard = shard;
    ASSERT_TRUE((*store)->commit({ { { core::keys::space(space), core::encode(record), 0 } }, std::nullopt,
        std::nullopt, "doc-test", "create-space", "" }));
    const auto node = static_cast<std::size_t>(nodeOfShard(std::stoi(shard.substr(1))));
    core::NodeClientPool pool;
    auto client = pool.get(m_nodes.at(node - 1)->address());
    ASSERT_TRUE(client);
    ASSERT_TRUE((*client)->setOwnership(shard, { space, core::SpaceRole::Owner, 1 }));
    std::vector<core::WriteItem> items;
    for (int i = 0; i < docs; ++i) {
        items.push_back(
            { { space, "doc-" + std::to_string(i), 1,
                  { { "title", space + " " + std::to_string(i) }, { "body", std::string(200, 'a' + i % 26) } }, false },
                1 });
    }
    auto written = (*client)->bulkWrite(shard, items);
    ASSERT_TRUE(written) << written.error().describe();
}

// Drains s8 through the real shardmapctl and waits until shardmapd has moved both its spaces.
void DocFleet::drainAndWait(const TempDir& dir)
{
    const auto drained = runCtl(dir, m_storeUri, { "--json", "drain", "s8" });
    ASSERT_EQ(drained.code, 0) << drained.out << drained.err;
    const auto operation = drained.parsed()["operation"];
    ASSERT_TRUE(operation.is_object()) << drained.out;
    m_operation = operation["id"];
    const auto done = [&] {
        const auto shown = runCtl(dir, m_storeUri, { "--json", "operations", "show", m_operation }).parsed();
        return shown.is_object() && shown["operation"]["state"] == "done";
    };
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), done)) << m_controller->stderrText();
    const auto shown = runCtl(dir, m_storeUri, { "--json", "operations", "show", m_operation }).parsed();
    for (const auto& migration : shown["operation"]["migrations"])
        m_migrations.push_back(migration);
    ASSERT_EQ(m_migrations.size(), 2u) << shown.dump();
}

} // namespace shardmap::testing

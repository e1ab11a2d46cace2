#pragma once

#include "core/admin/fleet_admin.h"
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "tests/support/etcd_process.h"
#include "tests/support/node_process.h"
#include "tests/support/test_dir.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::testing {

// A test fixture with a small real fleet: `count` shardmap-node processes (n0, n1 ... on data
// dirs node0, node1 ... under the test's temp dir), one shard each (s0 on n0, s1 on n1 ...), and
// a fresh SQLite shard map listing them. Base is ::testing::Test or ::testing::TestWithParam<T>.
template <typename Base> class FleetTest : public Base {
protected:
    void startFleet(std::size_t count)
    {
        for (std::size_t i = 0; i < count; ++i) {
            m_dataDirs.push_back(m_dir.file("node" + std::to_string(i)));
            const std::string& host = i < m_nodeHosts.size() ? m_nodeHosts[i] : m_nodeHost;
            std::vector<std::string> args = nodeListenArgs(host + ":0");
            args.insert(args.end(), m_extraNodeArgs.begin(), m_extraNodeArgs.end());
            m_nodes.push_back(NodeProcess::start(m_dataDirs.back(), args));
            ASSERT_TRUE(m_nodes.back());
        }
        auto store = core::openStore(storeUri(), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        // The shards are made the one way the product makes them (core/fleet/shard_creation.h), on
        // the engine the tests' nodes default to (the ctest entries of label xapian set it).
        const char* engineName = std::getenv("SHARDMAP_NODE_DEFAULT_ENGINE");
        auto engine = core::parseNewShardEngine(engineName ? engineName : "");
        ASSERT_TRUE(engine) << engine.error().describe();
        core::FleetAdmin admin(*m_store, m_pool);
        for (std::size_t i = 0; i < count; ++i) {
            const std::string node = "n" + std::to_string(i);
            auto added = admin.map().addNode({ node, m_nodes[i]->address(), {}, false }, m_actor);
            ASSERT_TRUE(added) << added.error().describe();
            auto created = admin.createShard({ "s" + std::to_string(i), node, {}, 0, 0, *engine }, m_actor);
            ASSERT_TRUE(created) << created.error().describe();
        }
    }

    // --listen ADDRESS, and --insecure for an address off loopback (the test's own network).
    std::vector<std::string> nodeListenArgs(const std::string& address) const
    {
        std::vector<std::string> args { "--listen", address };
        if (!address.starts_with("127."))
            args.push_back("--insecure");
        return args;
    }

    // The map's store on the test binary's shared etcd server (EtcdProcess::shared), under a key
    // prefix of this test's own; call before startFleet(). False, with why, when etcd did not start.
    bool useSharedEtcd(std::string& error)
    {
        auto* etcd = EtcdProcess::shared(error);
        if (!etcd)
            return false;
        m_storeUri = "etcd://" + etcd->endpoint() + "/" + std::filesystem::path(m_dir.path()).filename().string();
        return true;
    }

    // The map as the store holds it now (empty, with the test failed, when it cannot be read).
    core::MapSnapshot map()
    {
        auto snapshot = m_store->snapshot();
        EXPECT_TRUE(snapshot) << snapshot.error().describe();
        if (!snapshot)
            return {};
        auto decoded = core::MapSnapshot::decode(*snapshot);
        EXPECT_TRUE(decoded) << decoded.error().describe();
        return decoded ? *decoded : core::MapSnapshot {};
    }

    // The map's store: an SQLite file in the test's directory unless the fixture set
    // m_storeUri (an etcd prefix) before startFleet().
    std::string storeUri() const { return m_storeUri.empty() ? "sqlite:" + m_dir.file("map.db") : m_storeUri; }

    // A space record owned by shard, committed straight to the store (its node is not told).
    void addSpaceRecord(const std::string& space, const std::string& shard)
    {
        core::SpaceRecord record;
        record.id = space;
        record.shard = shard;
        core::CommitRequest request;
        request.mutations.push_back({ "spaces/" + space, core::encode(record), 0 });
        request.actor = "test";
        request.action = "add space";
        auto committed = m_store->commit(request);
        ASSERT_TRUE(committed) << committed.error().describe();
    }

    // The client of the node that holds shard "s<i>".
    std::shared_ptr<core::NodeClient> nodeOf(const std::string& shard)
    {
        return *m_pool.get(m_nodes.at(std::stoul(shard.substr(1)))->address());
    }

    TempDir m_dir;
    std::vector<std::string> m_dataDirs;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
    std::unique_ptr<core::MetadataStore> m_store;
    core::NodeClientPool m_pool;
    core::Actor m_actor { "test", "integration test" };
    std::string m_storeUri;
    // Where the nodes listen (and are registered): loopback unless the fixture set another
    // address before startFleet().
    std::string m_nodeHost = "127.0.0.1";
    // Node i listens on m_nodeHosts[i] where given (a partition test puts one node on an address
    // it can cut off alone).
    std::vector<std::string> m_nodeHosts;
    // More flags for every node startFleet() starts (e.g. a short --history-interval-ms).
    std::vector<std::string> m_extraNodeArgs;
};

} // namespace shardmap::testing

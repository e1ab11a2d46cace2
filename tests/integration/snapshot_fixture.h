#pragma once

// The fleet the snapshot and restore tests share (issue 32): two real nodes on a map in SQLite (or
// etcd), a snapshot repository in the test's folder, shardmapd started as a process, shardmapctl
// run against the map, and writes through an in-process router.

#include "core/migration/migration_requests.h"
#include "core/router/router.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/snapshot/snapshot_requests.h"
#include "ctl_run.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::testing {

class SnapshotFixture : public FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(2);
        m_repository = m_dir.file("repo");
        std::filesystem::create_directories(m_repository);
        setRepository(m_repository);
    }

    void setRepository(const std::string& repository, std::uint32_t keep = 7)
    {
        core::MigrationSettings settings = map().settings.value;
        settings.snapshotRepository = repository;
        settings.snapshotKeep = keep;
        settings.snapshotPauseMs = 1;
        core::MigrationRequests requests(*m_store, m_pool);
        auto set = requests.setSettings(settings, m_actor);
        ASSERT_TRUE(set) << set.error().describe();
    }

    std::unique_ptr<ControllerProcess> startController(const std::string& id, const std::vector<std::string>& env = {})
    {
        auto controller = ControllerProcess::start(
            m_dir.file(id + ".stderr.log"), { "--store", storeUri(), "--id", id, "--lease-ttl-ms", "1000" }, env);
        EXPECT_TRUE(controller);
        return controller;
    }

    CtlRun ctl(std::vector<std::string> args) { return runCtl(m_dir, storeUri(), args); }

    // Writes a document through an in-process router (the space is placed on first write).
    void write(const std::string& space, const std::string& id, std::uint64_t version)
    {
        if (!m_router) {
            auto router = core::Router::start(*m_store, m_pool, {});
            ASSERT_TRUE(router) << router.error().describe();
            m_router = std::move(*router);
        }
        core::Document doc { space, id, version, { { "title", "doc " + id }, { "body", "some words " + id } }, false };
        auto written = m_router->write({ doc });
        ASSERT_TRUE(written) << written.error().describe();
    }

    // snapshot create --wait --json: the record it ended with.
    nlohmann::json takeSnapshot(int expectedCode = 0)
    {
        auto made = ctl({ "--json", "--reason", "test", "snapshot", "create", "--wait", "--wait-seconds", "120" });
        EXPECT_EQ(made.code, expectedCode) << made.out << made.err;
        return made.parsed();
    }

    core::SnapshotManifest manifestOf(const std::string& id)
    {
        auto manifest = core::readManifest(m_repository, id);
        EXPECT_TRUE(manifest) << manifest.error().describe();
        return manifest ? *manifest : core::SnapshotManifest {};
    }

    std::vector<core::SnapshotRecord> records()
    {
        std::vector<core::SnapshotRecord> out;
        auto listed = core::SnapshotRequests(*m_store).list();
        EXPECT_TRUE(listed) << listed.error().describe();
        for (auto& record : listed ? *listed : std::vector<core::Versioned<core::SnapshotRecord>> {})
            out.push_back(record.value);
        return out;
    }

    std::string m_repository;
    std::shared_ptr<core::Router> m_router;
};

} // namespace shardmap::testing

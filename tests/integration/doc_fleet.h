#pragma once

// The fleet that the pages' examples name (docs/PLANNER.md, OPERATIONS.md, REPORTS.md), for the
// blocks marked <!-- doc-test: on the test fleet --> (issue 27, point 12).

#include "tests/support/controller_process.h"
#include "tests/support/node_process.h"
#include "tests/support/test_dir.h"

#include <memory>
#include <string>
#include <vector>

namespace shardmap::testing {

// Real shardmap-node processes n1-n5 with shards s1-s8 (s1 and s2 on n1, s3 and s4 on n2, s5 and
// s6 on n3, s7 and s8 on n4; n5 has none), a dozen spaces of a few documents (acme and globex on
// s1 ...), an SQLite store, a real shardmapd, and a drain of s8 that is done: an operation with two
// migrations for the examples that report on one.
class DocFleet final {
public:
    // Brings it up under dir/fleet; fails the calling test (fatally) where a part does not.
    void start(const TempDir& dir);

    const std::string& storeUri() const { return m_storeUri; }
    const std::string& drainOperation() const { return m_operation; }
    const std::vector<std::string>& drainMigrations() const { return m_migrations; }

private:
    void addSpace(const std::string& space, const std::string& shard, int docs);
    void drainAndWait(const TempDir& dir);

    std::string m_storeUri;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
    std::unique_ptr<ControllerProcess> m_controller;
    std::string m_operation;
    std::vector<std::string> m_migrations;
};

} // namespace shardmap::testing

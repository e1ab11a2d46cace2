#pragma once

// A write workload with a reference model, for the migration tests: writer threads insert,
// update and delete documents of a few spaces through a write path (shardmapd's Router service,
// or an in-process core Router), each writer owning its own ids so the model needs no ordering
// guesses. A write whose call failed may or may not have been applied; its ids are "uncertain"
// until settle() writes them once more. Afterwards the model is exactly what every acknowledged
// write says the space must contain.

#include "core/client/node_client.h"
#include "core/router/router.h"
#include "core/shard/document.h"
#include "core/shard/shard_store.h"

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shardmap::testing {

// Writes documents; returns per-item results, or false with an error text when the call failed.
using WritePath
    = std::function<bool(const std::vector<core::Document>&, std::vector<core::ItemResult>&, std::string& error)>;

// shardmapd's shardmap.v1.Router service at address.
WritePath routerServicePath(const std::string& address);
// An in-process router (kept alive by the path).
WritePath inProcessRouterPath(std::shared_ptr<core::Router> router);

struct WorkloadOptions {
    std::vector<std::string> spaces;
    int idsPerSpace = 40;
    int writers = 2;
    int batch = 4;
    double deleteShare = 0.2;
    std::chrono::milliseconds pause { 3 };
    std::uint32_t seed = 1;
};

struct ModelEntry {
    std::uint64_t version = 0;
    bool deleted = false;
    std::string body;
    bool uncertain = false;
};

class Workload final {
public:
    // One path per writer, reused round robin when there are fewer paths than writers.
    Workload(WorkloadOptions options, std::vector<WritePath> paths);
    ~Workload();

    // Writes every id once (version 1, a live document) through the first path.
    bool prefill();
    void start();
    void stop();
    // Rewrites every uncertain id until acknowledged (through the first path); false if it could not.
    bool settle(std::chrono::milliseconds timeout);

    std::uint64_t acknowledged() const { return m_acknowledged.load(); }
    std::uint64_t failedCalls() const { return m_failedCalls.load(); }
    // Items answered stale or rejected: never expected with growing versions.
    std::vector<std::string> anomalies() const;
    std::map<std::string, ModelEntry> model(const std::string& space) const;
    std::string lastError() const;

private:
    void writerLoop(int writer);

    WorkloadOptions m_options;
    std::vector<WritePath> m_paths;
    std::vector<std::thread> m_threads;
    std::atomic<bool> m_stop { false };
    std::atomic<std::uint64_t> m_acknowledged { 0 };
    std::atomic<std::uint64_t> m_failedCalls { 0 };
    mutable std::mutex m_mutex;
    // space -> id -> entry
    std::map<std::string, std::map<std::string, ModelEntry>> m_model;
    std::map<std::string, std::uint64_t> m_nextVersion;
    std::vector<std::string> m_anomalies;
    std::string m_lastError;
};

// Compares the live documents of a space on a shard with the model; returns the differences
// (empty: equal). Documents the model says are deleted must be absent or tombstones.
std::vector<std::string> compareWithModel(core::NodeClient& node, const std::string& shard, const std::string& space,
    const std::map<std::string, ModelEntry>& model);

// Rows (documents and tombstones) of a space on a shard.
std::uint64_t rowsOf(core::NodeClient& node, const std::string& shard, const std::string& space);

} // namespace shardmap::testing

#pragma once

// The shards a node holds: one data directory's shard files, open or failed.

#include "core/shard/shard_store.h"
#include "core/util/result.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace shardmap::core {

// What the node knows about one shard: the open store, or why it could not be opened.
struct ShardEntry {
    std::string id;
    std::shared_ptr<ShardStore> store; // null when failed
    std::string error; // why it failed
};

// The shards of one data directory: <data-dir>/shards/<id>.db. Opens every shard file at start;
// a file that cannot be opened or fails its check is kept as a failed entry (reported in health
// and stats) while the others serve. Thread-safe.
class ShardRegistry final {
public:
    struct Options {
        std::string dataDir;
        ShardStoreOptions storeOptions;
        // Writes are refused with ResourceExhausted when the filesystem has less than this free.
        std::uint64_t minFreeBytes = 64ull * 1024 * 1024;
    };

    explicit ShardRegistry(Options options);

    // Opens all shard files; returns the ids that failed (already recorded as failed entries).
    std::vector<std::string> openAll();

    // A new shard with these index settings (none: the store options', today's index) and engine.
    Result<std::shared_ptr<ShardStore>> create(
        const std::string& id, const std::optional<IndexSettings>& settings, IndexEngine engine);
    // A shard made from a file of `bytes` (a snapshot's, issue 32): refused (ResourceExhausted)
    // unless the disk has room for it above the reserve; place writes it at the path it is given
    // (not yet the shard's), which becomes shard id's file once the place succeeded; the id is
    // held meanwhile (a create or another restore of it is refused), nothing is left on failure.
    Result<std::shared_ptr<ShardStore>> restore(
        const std::string& id, std::uint64_t bytes, const std::function<Status(const std::string& path)>& place);
    Status drop(const std::string& id, bool force);
    // The shard or NotFound / FailedPrecondition (failed shard) naming it.
    Result<std::shared_ptr<ShardStore>> get(const std::string& id) const;
    std::vector<ShardEntry> list() const;

    // ResourceExhausted when the data directory's filesystem is below its free-space reserve (with
    // `needed` bytes more set aside).
    Status checkDiskReserve(std::uint64_t needed = 0) const;
    // Checkpoints every open shard; called at shutdown.
    void checkpointAll();
    void closeAll();

    const Options& options() const { return m_options; }
    std::string shardPath(const std::string& id) const;

private:
    std::string withoutDataDir(std::string text) const;

    Options m_options;
    mutable std::shared_mutex m_mutex;
    std::map<std::string, ShardEntry> m_shards;
};

} // namespace shardmap::core

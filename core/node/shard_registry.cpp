#include "core/node/shard_registry.h"

// ShardRegistry's implementation: shard files by id under the data directory, opened at start,
// created and dropped on request, and the disk reserve writes need.

#include "core/metrics/proc_stats.h"
#include "core/util/fs.h"
#include "core/util/validation.h"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <mutex>

namespace shardmap::core {

namespace {
constexpr std::string_view kShardSuffix = ".db";
}

ShardRegistry::ShardRegistry(Options options)
    : m_options(std::move(options))
{
}

std::string ShardRegistry::shardPath(const std::string& id) const
{
    return m_options.dataDir + "/shards/" + id + std::string(kShardSuffix);
}

// A failed shard's error as ListShards and the metrics show it to any reader: the node's paths are
// its operator's business.
std::string ShardRegistry::withoutDataDir(std::string text) const
{
    const std::string& dir = m_options.dataDir;
    for (auto at = text.find(dir); !dir.empty() && at != std::string::npos; at = text.find(dir, at))
        text.replace(at, dir.size(), "<data-dir>");
    return text;
}

std::vector<std::string> ShardRegistry::openAll()
{
    std::vector<std::string> failed;
    const std::filesystem::path dir = m_options.dataDir + "/shards";
    (void)ensureDirectory(dir.string()); // a failure shows as the directory's listing failing below
    std::error_code error;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        if (entry.is_regular_file() && entry.path().extension() == kShardSuffix)
            files.push_back(entry.path());
    }
    std::unique_lock lock(m_mutex);
    for (const auto& file : files) {
        const std::string id = file.stem().string();
        auto store = ShardStore::open(file.string(), m_options.storeOptions);
        if (store) {
            m_shards[id] = ShardEntry { id, std::shared_ptr<ShardStore>(std::move(*store)), {} };
            continue;
        }
        m_shards[id] = ShardEntry { id, nullptr, withoutDataDir(store.error().describe()) };
        failed.push_back(id);
    }
    return failed;
}

Result<std::shared_ptr<ShardStore>> ShardRegistry::create(
    const std::string& id, const std::optional<IndexSettings>& settings, IndexEngine engine)
{
    if (auto status = validateShardId(id); !status)
        return status.error();
    if (auto status = checkDiskReserve(); !status)
        return status.error();
    std::unique_lock lock(m_mutex);
    if (m_shards.contains(id))
        return makeError(ErrorCode::AlreadyExists, "shard " + id + " already exists on this node");
    ShardStoreOptions options = m_options.storeOptions;
    if (settings)
        options.index = *settings;
    options.engine = engine;
    auto store = ShardStore::create(shardPath(id), id, options);
    if (!store)
        return store.error();
    std::shared_ptr<ShardStore> shared(std::move(*store));
    m_shards[id] = ShardEntry { id, shared, {} };
    return shared;
}

Result<std::shared_ptr<ShardStore>> ShardRegistry::restore(
    const std::string& id, std::uint64_t bytes, const std::function<Status(const std::string& path)>& place)
{
    if (auto status = validateShardId(id); !status)
        return status.error();
    if (auto status = checkDiskReserve(bytes); !status)
        return status.error();
    {
        std::unique_lock lock(m_mutex);
        if (m_shards.contains(id))
            return makeError(ErrorCode::AlreadyExists, "shard " + id + " already exists on this node");
        m_shards[id] = ShardEntry { id, nullptr, "being restored" };
    }
    // Not ".db": a node that restarts meanwhile does not take a half-made file for a shard.
    const std::string staged = shardPath(id) + ".restoring";
    Result<std::unique_ptr<ShardStore>> store = makeError(ErrorCode::Internal, "not restored");
    Status placed = place(staged);
    if (placed)
        placed = ShardStore::relabel(staged, id);
    if (placed && ::rename(staged.c_str(), shardPath(id).c_str()) != 0)
        placed = fileError(errno, "cannot rename into place", shardPath(id));
    if (placed)
        store = ShardStore::open(shardPath(id), m_options.storeOptions);
    std::unique_lock lock(m_mutex);
    if (!placed || !store) {
        m_shards.erase(id);
        ShardStore::removeFiles(placed ? shardPath(id) : staged);
        const Error& why = placed ? store.error() : placed.error();
        return makeError(why.code, withoutDataDir(why.message));
    }
    std::shared_ptr<ShardStore> shared(std::move(*store));
    m_shards[id] = ShardEntry { id, shared, {} };
    return shared;
}

Status ShardRegistry::drop(const std::string& id, bool force)
{
    std::unique_lock lock(m_mutex);
    const auto found = m_shards.find(id);
    if (found == m_shards.end())
        return makeError(ErrorCode::NotFound, "no shard " + id + " on this node");
    if (found->second.store && !force) {
        auto totals = found->second.store->totals();
        if (!totals)
            return totals.error();
        if (totals->liveDocs > 0 || totals->tombstones > 0)
            return makeError(ErrorCode::FailedPrecondition,
                "shard " + id + " holds " + std::to_string(totals->liveDocs) + " documents and "
                    + std::to_string(totals->tombstones) + " tombstones; drop it with force to delete them");
    }
    m_shards.erase(found);
    ShardStore::removeFiles(shardPath(id));
    return {};
}

Result<std::shared_ptr<ShardStore>> ShardRegistry::get(const std::string& id) const
{
    if (auto status = validateShardId(id); !status)
        return status.error();
    std::shared_lock lock(m_mutex);
    const auto found = m_shards.find(id);
    if (found == m_shards.end())
        return makeError(ErrorCode::NotFound, "no shard " + id + " on this node");
    if (!found->second.store)
        return makeError(ErrorCode::FailedPrecondition, "shard " + id + " failed to open: " + found->second.error);
    return found->second.store;
}

std::vector<ShardEntry> ShardRegistry::list() const
{
    std::shared_lock lock(m_mutex);
    std::vector<ShardEntry> out;
    for (const auto& [id, entry] : m_shards)
        out.push_back(entry);
    return out;
}

Status ShardRegistry::checkDiskReserve(std::uint64_t needed) const
{
    auto disk = readDiskSpace(m_options.dataDir);
    if (!disk)
        return disk.error();
    if (disk->freeBytes < m_options.minFreeBytes + needed)
        return makeError(ErrorCode::ResourceExhausted,
            "data directory has " + std::to_string(disk->freeBytes) + " bytes free; the node keeps "
                + std::to_string(m_options.minFreeBytes) + " in reserve"
                + (needed ? " and needs " + std::to_string(needed) + " for the file" : std::string()));
    return {};
}

void ShardRegistry::checkpointAll()
{
    for (auto& entry : list()) {
        if (entry.store)
            (void)entry.store->checkpoint();
    }
}

void ShardRegistry::closeAll()
{
    std::unique_lock lock(m_mutex);
    m_shards.clear();
}

} // namespace shardmap::core

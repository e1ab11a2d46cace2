// ShardIndex's choice of engine: the tables a new shard's file gets, the index a shard opens and
// the files an index leaves beside the shard's file.

#include "core/shard/shard_index.h"

#include <filesystem>

namespace shardmap::core {

Status ShardIndex::createTables(IndexEngine engine, SqliteDb& db, const std::vector<std::string>& fields)
{
    switch (engine) {
    case IndexEngine::Fts5: return createFts5Tables(db, fields);
    case IndexEngine::Xapian: return createXapianTables(db, fields);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown index engine");
}

Result<std::unique_ptr<ShardIndex>> ShardIndex::open(
    IndexEngine engine, SqliteDb& writer, const std::string& shardPath, const std::vector<std::string>& fields)
{
    switch (engine) {
    case IndexEngine::Fts5: return openFts5Index(writer, fields);
    case IndexEngine::Xapian: return openXapianIndex(writer, shardPath, fields);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown index engine");
}

void ShardIndex::removeFiles(const std::string& shardPath)
{
    std::error_code ignored;
    std::filesystem::remove_all(xapianIndexPath(shardPath), ignored);
}

} // namespace shardmap::core

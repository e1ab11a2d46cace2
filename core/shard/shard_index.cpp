// ShardIndex's choice of engine: the settings an engine refuses, the tables a new shard's file
// gets, the index a shard opens, the query schema of its settings and the files an index leaves
// beside the shard's file.

#include "core/shard/shard_index.h"

#include <filesystem>

namespace shardmap::core {

Status ShardIndex::checkSettings(IndexEngine engine, const IndexSettings& settings)
{
    if (engine == IndexEngine::Xapian && settings.tokenizer == Tokenizer::Trigram)
        return makeError(ErrorCode::InvalidArgument,
            "trigram needs the fts5 engine: the xapian engine indexes words, not every three characters");
    return {};
}

Status ShardIndex::createTables(IndexEngine engine, SqliteDb& db, const IndexSettings& settings)
{
    switch (engine) {
    case IndexEngine::Fts5: return createFts5Tables(db, settings);
    case IndexEngine::Xapian: return createXapianTables(db, settings);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown index engine");
}

Result<std::unique_ptr<ShardIndex>> ShardIndex::open(
    IndexEngine engine, SqliteDb& writer, const std::string& shardPath, const IndexSettings& settings)
{
    switch (engine) {
    case IndexEngine::Fts5: return openFts5Index(writer, settings);
    case IndexEngine::Xapian: return openXapianIndex(writer, shardPath, settings);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown index engine");
}

QuerySchema querySchemaOf(const IndexSettings& settings)
{
    QuerySchema schema { settings.indexedFieldNames() };
    for (const IndexField& field : settings.fields) {
        if (!field.indexed)
            schema.storedOnly.push_back(field.name);
    }
    return schema;
}

void ShardIndex::removeFiles(const std::string& shardPath)
{
    std::error_code ignored;
    std::filesystem::remove_all(xapianIndexPath(shardPath), ignored);
}

} // namespace shardmap::core

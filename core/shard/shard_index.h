#pragma once

// The full-text index of a shard (issue 29), whichever engine keeps it: what a write puts into it
// and takes out of it, what a commit and a checkpoint owe it, and the searches it answers. The
// shard's docs table stays the truth (versions, epochs, tombstones, checksums, ownership); an index
// holds each row's text under the row's rowid and ranks rows. Two engines: FTS5 in the shard's own
// file (shard_index_fts5.cpp) and Xapian beside it (shard_index_xapian.cpp, core/shard/xapian_engine.h).

#include "core/query/query_compiler.h"
#include "core/shard/shard_store.h"
#include "core/shard/sqlite_db.h"
#include "core/util/index_engine.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// A row's text as the writer hands it over: one value per schema field, then the catch-all.
using RowText = std::vector<std::optional<std::string>>;

class ShardIndex {
public:
    // InvalidArgument when the engine cannot build an index with these settings (trigram on Xapian).
    static Status checkSettings(IndexEngine engine, const IndexSettings& settings);
    // The index's tables in a new shard's file, inside the schema's transaction.
    static Status createTables(IndexEngine engine, SqliteDb& db, const IndexSettings& settings);
    // The index of a shard whose file is at `shardPath`, written through the shard's writer
    // connection (the index must be destroyed before it). A Xapian index is opened, replayed or
    // rebuilt here (core/shard/xapian_engine.h).
    static Result<std::unique_ptr<ShardIndex>> open(
        IndexEngine engine, SqliteDb& writer, const std::string& shardPath, const IndexSettings& settings);
    // Removes what an index keeps beside the shard's file (the Xapian directory).
    static void removeFiles(const std::string& shardPath);

    virtual ~ShardIndex() = default;

    virtual IndexEngine engine() const = 0;
    // The table of the shard's file that holds each row's text in the text columns' layout
    // (shard_internal::textColumns), joined by rowid: what scans and schema upgrades read.
    virtual const char* textTable() const = 0;

    // On the writer's thread, inside its transaction.
    virtual Status insert(std::int64_t rowid, const std::string& space, const RowText& text) = 0;
    virtual Status remove(std::int64_t rowid) = 0;
    // On the writer's thread after its transaction ended (committed or rolled back), before the
    // writes are acknowledged: what the transaction changed becomes searchable.
    virtual Status committed() = 0;
    // On the writer's thread: what the index holds is made durable (with the file's checkpoint).
    virtual Status checkpoint() = 0;

    // The page of hits a validated request asks for, best first (score: lower is better), on a
    // reader connection of the shard's file.
    virtual Result<SearchResult> search(SqliteDb& reader, const ShardSearchRequest& request) = 0;

    // Bytes the index keeps outside the shard's file.
    virtual std::uint64_t bytesBeside() const = 0;
};

// Each engine's own file; ShardIndex::createTables and open choose between them.
Status createFts5Tables(SqliteDb& db, const IndexSettings& settings);
Result<std::unique_ptr<ShardIndex>> openFts5Index(SqliteDb& writer, const IndexSettings& settings);
Status createXapianTables(SqliteDb& db, const IndexSettings& settings);
Result<std::unique_ptr<ShardIndex>> openXapianIndex(
    SqliteDb& writer, const std::string& shardPath, const IndexSettings& settings);
// The query language's view of a shard's fields: the indexed ones, and the stored-only ones a
// query may not name.
QuerySchema querySchemaOf(const IndexSettings& settings);
// The directory of a shard's Xapian database: beside the file, "<file>.xapian".
std::string xapianIndexPath(const std::string& shardPath);

} // namespace shardmap::core

#pragma once

// The Xapian index of a shard (issue 29): one Xapian database beside the shard's SQLite file that
// answers its searches with top-k retrieval (Xapian stops scoring documents that cannot enter the
// top k). It holds no document of its own: each document is the docs row of the same rowid, its
// space a boolean filter term, its fields' tokens (the shard's FTS5 tokenizer, unicode61 or
// porter, core/shard/fts5_tokens.h) with positions under one prefix per field. The SQLite file
// stays the truth; the index records the last change it holds (committedSeq) so that a shard
// replays the rest after a crash.

#include "core/query/query_compiler.h"
#include "core/util/index_settings.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// A row's text as the index takes it: one value per schema field, then the other fields joined.
struct IndexedRow {
    std::int64_t rowid = 0;
    std::string space;
    std::vector<std::optional<std::string>> columns;
};

struct IndexedHit {
    std::int64_t rowid = 0;
    // Higher is better (BM25).
    double weight = 0;
};

struct XapianIndexOptions {
    // A prefix query (`abc*`, `a*`) stands for at most this many terms of each field it searches:
    // its most frequent ones (a documented cap, NODE.md "Search"), so that `a*` over a large shard
    // stays a bounded query. A two-character prefix (`ab*`) over every field is one term, exact.
    std::uint32_t maxPrefixExpansion = 256;
    // Per field (the schema's, then the other fields'), how much a match there counts; 1 by default.
    // Xapian counts occurrences in whole numbers: one word there counts round(w / s) times, where
    // s is the smallest weight when it is below 1, else 1 (weights 2 and 0.5 count 4 and 1 times).
    std::vector<double> columnWeights;
    // false: a commit writes the changes for readers to see (XapianSearcher) but does not wait for
    // the disk; syncFiles() does, when the caller is ready to rely on them (a shard's checkpoint).
    bool syncOnCommit = true;
    // Per field: false for a stored-only one, whose text is never indexed; indexed by default.
    std::vector<bool> columnIndexed = {};
    // The tokenizer and its options (core/shard/fts5_tokens.h): a porter index holds, and a query
    // looks for, stems. Its fields do not matter.
    IndexSettings tokenizer = defaultIndexSettings();
};

class XapianIndex final {
public:
    // Opens the index in directory `path`, creating it when missing. `fields` are the shard's
    // schema fields, in its column order; the other fields come after them.
    static Result<std::unique_ptr<XapianIndex>> open(
        const std::string& path, std::vector<std::string> fields, XapianIndexOptions options = {});
    ~XapianIndex();
    XapianIndex(const XapianIndex&) = delete;
    XapianIndex& operator=(const XapianIndex&) = delete;

    // Changes, visible to search at once, durable at the next commit. A row replaced keeps its rowid.
    Status put(const IndexedRow& row);
    Status remove(std::int64_t rowid);
    // Makes every change so far durable and records `seq` as the last change the index holds.
    Status commit(std::uint64_t seq);
    // Waits until every committed change is on disk (fsync of the index's files and directory).
    Status syncFiles();
    // The last change a commit recorded (0 for a new index).
    std::uint64_t committedSeq() const;
    // Changes made since the last commit.
    std::uint64_t pendingChanges() const;

    // The rows of `spaces` that match, best first.
    Result<std::vector<IndexedHit>> search(
        const std::vector<std::string>& spaces, const QueryNode& query, std::uint32_t offset, std::uint32_t limit);
    // Every row the index holds, in rowid order (for checks and tests).
    Result<std::vector<std::int64_t>> rowids() const;
    // The documents the index holds.
    std::uint64_t documentCount() const;
    // Bytes of its files on disk.
    std::uint64_t diskBytes() const;

    const std::string& path() const;

private:
    struct Impl;
    explicit XapianIndex(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// A reader of an index that another object writes (XapianIndex, in this process): it sees each
// commit as it is made. Not safe for concurrent use: give each thread its own.
class XapianSearcher final {
public:
    static Result<std::unique_ptr<XapianSearcher>> open(
        const std::string& path, std::vector<std::string> fields, XapianIndexOptions options = {});
    ~XapianSearcher();
    XapianSearcher(const XapianSearcher&) = delete;
    XapianSearcher& operator=(const XapianSearcher&) = delete;

    // As XapianIndex::search, over the latest commit.
    Result<std::vector<IndexedHit>> search(
        const std::vector<std::string>& spaces, const QueryNode& query, std::uint32_t offset, std::uint32_t limit);

private:
    struct Impl;
    explicit XapianSearcher(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace shardmap::core

#include "core/shard/shard_store.h"
#include "core/util/validation.h"
#include "tests/core/sync_counting_vfs.h"
#include "tests/support/test_dir.h"

#include <future>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <sqlite3.h>
#include <thread>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

Document doc(const std::string& space, const std::string& id, std::uint64_t version, const std::string& body)
{
    return Document { space, id, version, { { "title", "doc " + id }, { "body", body } }, false };
}

Document tombstone(const std::string& space, const std::string& id, std::uint64_t version)
{
    return Document { space, id, version, {}, true };
}

// Every test of a shard's store runs on each index engine (issue 29's conformance suite): the
// documents, versions, tombstones, aggregates, ownerships and searches behave the same on both.
class ShardStoreTest : public ::testing::TestWithParam<IndexEngine> {
protected:
    static ShardStoreOptions engineOptions()
    {
        ShardStoreOptions options;
        options.engine = GetParam();
        return options;
    }

    void SetUp() override
    {
        auto created = ShardStore::create(m_dir.file("s1.db"), "s1", engineOptions());
        ASSERT_TRUE(created) << created.error().describe();
        m_store = std::move(*created);
        own("acme", 1);
        own("globex", 1);
    }

    void own(const std::string& space, std::uint64_t epoch, SpaceRole role = SpaceRole::Owner)
    {
        auto result = m_store->setOwnership({ space, role, epoch });
        ASSERT_TRUE(result) << result.error().describe();
    }

    WriteSummary write(std::vector<Document> docs, std::uint64_t epoch = 1)
    {
        std::vector<WriteItem> items;
        for (auto& d : docs)
            items.push_back({ std::move(d), epoch });
        auto result = m_store->write(std::move(items));
        EXPECT_TRUE(result) << result.error().describe();
        return result ? *result : WriteSummary {};
    }

    std::vector<std::string> searchIds(const std::string& query, std::vector<std::string> spaces = { "acme" })
    {
        auto result = m_store->search({ std::move(spaces), query, 100, 0, false });
        EXPECT_TRUE(result) << result.error().describe();
        std::vector<std::string> ids;
        for (const auto& hit : result ? result->hits : std::vector<SearchHit> {})
            ids.push_back(hit.id);
        std::sort(ids.begin(), ids.end());
        return ids;
    }

    SpaceStats stats(const std::string& space)
    {
        auto result = m_store->spaceStats({ space });
        EXPECT_TRUE(result);
        return result->front();
    }

    // The aggregates recomputed the slow way, to compare with the O(1) ones.
    SpaceStats recompute(const std::string& space)
    {
        SpaceStats expected { space };
        std::string after;
        while (true) {
            auto page = m_store->scan(space, after, 1000, true);
            EXPECT_TRUE(page);
            for (const auto& d : page->docs) {
                // Every row's content counts, tombstones included.
                expected.checksum += rowTerm(d.id, contentHash(d));
                if (d.deleted) {
                    ++expected.tombstones;
                    continue;
                }
                ++expected.liveDocs;
                expected.bytesEstimate += documentBytes(d);
            }
            after = page->cursor;
            if (page->done)
                return expected;
        }
    }

    TempDir m_dir;
    std::unique_ptr<ShardStore> m_store;
};

} // namespace

INSTANTIATE_TEST_SUITE_P(Engines, ShardStoreTest, ::testing::Values(IndexEngine::Fts5, IndexEngine::Xapian),
    [](const ::testing::TestParamInfo<IndexEngine>& engine) { return std::string(indexEngineName(engine.param)); });

TEST_P(ShardStoreTest, NewerVersionReplacesOlderIsStale)
{
    auto first = write({ doc("acme", "d1", 5, "alpha") });
    EXPECT_EQ(first.applied, 1u);
    auto older = write({ doc("acme", "d1", 4, "beta") });
    EXPECT_EQ(older.stale, 1u);
    EXPECT_EQ(older.results[0].outcome, WriteOutcome::Stale);
    EXPECT_EQ(older.results[0].storedVersion, 5u);
    auto same = write({ doc("acme", "d1", 5, "gamma") });
    EXPECT_EQ(same.stale, 1u);
    EXPECT_EQ(searchIds("alpha"), std::vector<std::string> { "d1" });
    EXPECT_TRUE(searchIds("beta").empty());
    auto newer = write({ doc("acme", "d1", 6, "delta") });
    EXPECT_EQ(newer.applied, 1u);
    EXPECT_TRUE(searchIds("alpha").empty());
    EXPECT_EQ(searchIds("delta"), std::vector<std::string> { "d1" });
}

TEST_P(ShardStoreTest, OldWriteAfterDeleteDoesNotResurrect)
{
    write({ doc("acme", "d1", 1, "phoenix") });
    auto deleted = write({ tombstone("acme", "d1", 2) });
    EXPECT_EQ(deleted.applied, 1u);
    EXPECT_TRUE(searchIds("phoenix").empty());
    // A backfill copy of version 1 arriving after the delete must not bring the document back.
    auto late = write({ doc("acme", "d1", 1, "phoenix") });
    EXPECT_EQ(late.stale, 1u);
    EXPECT_TRUE(searchIds("phoenix").empty());
    EXPECT_EQ(stats("acme").liveDocs, 0u);
    EXPECT_EQ(stats("acme").tombstones, 1u);
    // A newer version after the delete is a real re-creation.
    EXPECT_EQ(write({ doc("acme", "d1", 3, "phoenix") }).applied, 1u);
    EXPECT_EQ(searchIds("phoenix"), std::vector<std::string> { "d1" });
}

TEST_P(ShardStoreTest, TombstoneForUnknownDocumentBlocksOlderInsert)
{
    EXPECT_EQ(write({ tombstone("acme", "ghost", 10) }).applied, 1u);
    EXPECT_EQ(write({ doc("acme", "ghost", 9, "boo") }).stale, 1u);
    EXPECT_TRUE(searchIds("boo").empty());
}

TEST_P(ShardStoreTest, ReplayedBatchChangesNothing)
{
    std::vector<Document> batch { doc("acme", "a", 1, "one"), doc("acme", "b", 2, "two"), tombstone("acme", "c", 3) };
    auto first = write(batch);
    EXPECT_EQ(first.applied, 3u);
    const SpaceStats before = stats("acme");
    auto replay = write(batch);
    EXPECT_EQ(replay.applied, 0u);
    EXPECT_EQ(replay.stale, 3u);
    EXPECT_EQ(stats("acme"), before);
}

TEST_P(ShardStoreTest, InvalidItemsAreRejectedWithReasonOthersApply)
{
    std::string huge(kMaxDocumentBytes + 1, 'x');
    auto result = write({ doc("acme", "ok", 1, "fine"), doc("acme", "", 1, "no id"), doc("acme", "big", 1, huge),
        doc("acme", "v0", 0, "zero"), Document { "acme", "tomb", 2, { { "title", "x" } }, true } });
    EXPECT_EQ(result.applied, 1u);
    EXPECT_EQ(result.rejected, 4u);
    EXPECT_EQ(result.results[1].reason, "document id is empty");
    EXPECT_NE(result.results[2].reason.find("the limit is 1048576"), std::string::npos);
    EXPECT_EQ(result.results[3].reason, "version must be at least 1");
    EXPECT_EQ(result.results[4].reason, "a tombstone carries no fields");
    EXPECT_EQ(stats("acme").liveDocs, 1u);
}

TEST_P(ShardStoreTest, OversizedBatchIsRefusedWhole)
{
    std::vector<WriteItem> items(kMaxBatchItems + 1, WriteItem { doc("acme", "x", 1, "x"), 1 });
    auto result = m_store->write(std::move(items));
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::InvalidArgument);
}

TEST_P(ShardStoreTest, AggregatesMatchARecomputationAfterRandomWrites)
{
    std::mt19937 random(42);
    std::map<std::string, std::uint64_t> versions;
    for (int round = 0; round < 40; ++round) {
        std::vector<Document> batch;
        for (int i = 0; i < 50; ++i) {
            const std::string id = "d" + std::to_string(random() % 200);
            const std::uint64_t version = ++versions[id] + (random() % 3 == 0 ? 0 : 1);
            versions[id] = version;
            if (random() % 5 == 0)
                batch.push_back(tombstone("acme", id, version));
            else
                batch.push_back(doc("acme", id, version, std::string(random() % 300, 'w')));
        }
        write(batch);
    }
    EXPECT_EQ(stats("acme"), recompute("acme"));
    EXPECT_GT(stats("acme").liveDocs, 0u);
}

TEST_P(ShardStoreTest, ChecksumIsOrderIndependentAndSensitiveToVersions)
{
    auto other = ShardStore::create(m_dir.file("s2.db"), "s2", engineOptions());
    ASSERT_TRUE(other);
    ASSERT_TRUE((*other)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    write({ doc("acme", "a", 1, "x"), doc("acme", "b", 2, "y"), doc("acme", "c", 3, "z") });
    ASSERT_TRUE((*other)->write({ { doc("acme", "c", 3, "z"), 1 }, { doc("acme", "a", 1, "x"), 1 } }));
    ASSERT_TRUE((*other)->write({ { doc("acme", "b", 2, "y"), 1 } }));
    auto theirs = (*other)->spaceStats({ "acme" });
    EXPECT_EQ(theirs->front(), stats("acme"));
    ASSERT_TRUE((*other)->write({ { doc("acme", "b", 3, "y"), 1 } }));
    EXPECT_NE((*other)->spaceStats({ "acme" })->front().checksum, stats("acme").checksum);
}

// Issue 14: an equal version with another body, and a tombstone, change the checksum; only a
// repair write replaces the same version, and never a newer one.
TEST_P(ShardStoreTest, TheChecksumCoversContentAndTombstones)
{
    auto other = ShardStore::create(m_dir.file("s2.db"), "s2", engineOptions());
    ASSERT_TRUE(other);
    ASSERT_TRUE((*other)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    write({ doc("acme", "a", 5, "the body client A was told was applied") });
    ASSERT_TRUE((*other)->write({ { doc("acme", "a", 5, "client B's body, same version"), 1 } }));
    EXPECT_EQ((*other)->spaceStats({ "acme" })->front().liveDocs, stats("acme").liveDocs);
    EXPECT_NE((*other)->spaceStats({ "acme" })->front().checksum, stats("acme").checksum);

    // A normal write of the same version is stale; a repair replaces it, and then they agree.
    auto normal = (*other)->write({ { doc("acme", "a", 5, "the body client A was told was applied"), 1 } });
    ASSERT_TRUE(normal);
    EXPECT_EQ(normal->stale, 1u);
    auto repaired
        = (*other)->write({ { doc("acme", "a", 5, "the body client A was told was applied"), 1 } }, WriteMode::Repair);
    ASSERT_TRUE(repaired);
    EXPECT_EQ(repaired->applied, 1u);
    EXPECT_EQ((*other)->spaceStats({ "acme" })->front(), stats("acme"));
    // The same content again changes nothing, and a repair never replaces a newer version.
    EXPECT_EQ((*other)
                  ->write({ { doc("acme", "a", 5, "the body client A was told was applied"), 1 } }, WriteMode::Repair)
                  ->stale,
        1u);
    ASSERT_TRUE((*other)->write({ { doc("acme", "a", 6, "newer"), 1 } }));
    EXPECT_EQ((*other)->write({ { doc("acme", "a", 5, "older"), 1 } }, WriteMode::Repair)->stale, 1u);

    // Tombstones: a delete of an id never written, then a re-delete.
    const SpaceStats before = stats("acme");
    EXPECT_EQ(write({ tombstone("acme", "ghost", 3) }).applied, 1u);
    const SpaceStats deleted = stats("acme");
    EXPECT_EQ(deleted.tombstones, before.tombstones + 1);
    EXPECT_EQ(deleted.liveDocs, before.liveDocs);
    EXPECT_NE(deleted.checksum, before.checksum) << "a tombstone is part of the checksum";
    EXPECT_EQ(write({ tombstone("acme", "ghost", 3) }).stale, 1u);
    EXPECT_EQ(stats("acme"), deleted);
    EXPECT_EQ(recompute("acme").checksum, stats("acme").checksum);
    EXPECT_EQ(stats("acme").checksumKind, kChecksumKind);
}

// A shard file written before content checksums (schema 1) is upgraded when opened: every row's
// content hash and every space's checksum, as a new file would have them.
TEST_P(ShardStoreTest, ASchemaOneFileIsUpgradedWhenOpened)
{
    if (GetParam() != IndexEngine::Fts5)
        GTEST_SKIP() << "every schema 1 file is an FTS5 shard";
    write(
        { doc("acme", "a", 1, "x"), doc("acme", "b", 2, "y"), tombstone("acme", "c", 4), doc("globex", "g", 1, "z") });
    ASSERT_TRUE(
        write({ Document { "acme", "d", 1, { { "title", "t" }, { "custom", "not searchable" } }, false } }).applied);
    const SpaceStats acme = stats("acme");
    const SpaceStats globex = stats("globex");
    const std::string path = m_store->path();
    m_store.reset();
    // Back to schema 1 as its node wrote it: no content hashes, the old checksum.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                  "ALTER TABLE docs DROP COLUMN chash; UPDATE meta SET value = '1' WHERE key = 'schema_version';"
                  " UPDATE spaces SET checksum = 12345;",
                  nullptr, nullptr, nullptr),
        SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);

    auto reopened = ShardStore::open(path, engineOptions());
    ASSERT_TRUE(reopened) << reopened.error().describe();
    m_store = std::move(*reopened);
    EXPECT_EQ(stats("acme"), acme);
    EXPECT_EQ(stats("globex"), globex);
    // Later writes keep the aggregates right.
    write({ doc("acme", "a", 2, "x2"), tombstone("acme", "b", 3) });
    EXPECT_EQ(recompute("acme"), stats("acme"));
}

TEST_P(ShardStoreTest, SpacesAreIsolatedInSearchAndStats)
{
    write({ doc("acme", "a1", 1, "shared word"), doc("globex", "g1", 1, "shared word") });
    EXPECT_EQ(searchIds("shared"), std::vector<std::string> { "a1" });
    EXPECT_EQ(searchIds("shared", { "globex" }), std::vector<std::string> { "g1" });
    EXPECT_EQ(searchIds("shared", { "acme", "globex" }), (std::vector<std::string> { "a1", "g1" }));
    EXPECT_EQ(stats("acme").liveDocs, 1u);
    EXPECT_EQ(stats("nobody").liveDocs, 0u);
}

TEST_P(ShardStoreTest, SearchSupportsTheQueryLanguageWithSnippetsAndPaging)
{
    write({ Document { "acme", "a", 1, { { "title", "Update notes" }, { "body", "the quick brown fox" } }, false },
        Document { "acme", "b", 1, { { "title", "Upgrade" }, { "body", "a slow brown dog" } }, false },
        Document {
            "acme", "c", 1, { { "title", "Other" }, { "body", "nothing here" }, { "owner", "fox mulder" } }, false } });
    EXPECT_EQ(searchIds("up*"), (std::vector<std::string> { "a", "b" }));
    EXPECT_EQ(searchIds("upd*"), std::vector<std::string> { "a" });
    EXPECT_EQ(searchIds("\"brown fox\""), std::vector<std::string> { "a" });
    EXPECT_EQ(searchIds("brown NOT fox"), std::vector<std::string> { "b" });
    EXPECT_EQ(searchIds("fox OR dog"), (std::vector<std::string> { "a", "b", "c" }));
    EXPECT_EQ(searchIds("title:upgrade"), std::vector<std::string> { "b" });
    EXPECT_EQ(searchIds("mulder"), std::vector<std::string> { "c" });
    auto withSnippets = m_store->search({ { "acme" }, "quick", 10, 0, true });
    ASSERT_TRUE(withSnippets);
    ASSERT_EQ(withSnippets->hits.size(), 1u);
    EXPECT_NE(withSnippets->hits[0].snippet.find("[[quick]]"), std::string::npos) << withSnippets->hits[0].snippet;
    auto page = m_store->search({ { "acme" }, "fox OR dog", 2, 2, false });
    ASSERT_TRUE(page);
    EXPECT_EQ(page->hits.size(), 1u);
}

TEST_P(ShardStoreTest, SearchErrorsAreInvalidArgument)
{
    for (const std::string query : { "", "(unbalanced", "nosuchfield:x" }) {
        auto result = m_store->search({ { "acme" }, query, 10, 0, false });
        ASSERT_FALSE(result) << query;
        EXPECT_EQ(result.error().code, ErrorCode::InvalidArgument) << query;
    }
    EXPECT_FALSE(m_store->search({ {}, "x", 10, 0, false }));
    EXPECT_FALSE(m_store->search({ { "bad space" }, "x", 10, 0, false }));
    EXPECT_FALSE(m_store->search({ { "acme" }, "x", kMaxSearchLimit + 1, 0, false }));
}

// The search budget (ShardStoreOptions::searchBudget) stops a search that scores too many rows of
// an FTS5 shard with ResourceExhausted; the file is untouched and the same search answers under a
// budget that allows it. Xapian's matcher stops scoring early by itself and bounds its prefixes.
TEST(ShardStoreSearchBudget, AnFts5SearchPastItsBudgetIsStoppedAndLosesNothing)
{
    TempDir dir;
    ShardStoreOptions options;
    options.engine = IndexEngine::Fts5;
    options.searchBudget = std::chrono::milliseconds(1);
    {
        auto store = ShardStore::create(dir.file("s.db"), "s", options);
        ASSERT_TRUE(store) << store.error().describe();
        ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
        for (int batch = 0; batch < 4; ++batch) {
            std::vector<WriteItem> items;
            for (int i = batch * 5000; i < (batch + 1) * 5000; ++i)
                items.push_back(
                    { doc("acme", "d" + std::to_string(i), 1, "common words and word" + std::to_string(i)), 1 });
            ASSERT_TRUE((*store)->write(std::move(items)));
        }
        auto stopped = (*store)->search({ { "acme" }, "common OR words", 20, 0, false });
        ASSERT_FALSE(stopped);
        EXPECT_EQ(stopped.error().code, ErrorCode::ResourceExhausted);
        EXPECT_NE(stopped.error().message.find("search budget of 1 ms"), std::string::npos) << stopped.error().message;
    }
    options.searchBudget = std::chrono::milliseconds(0);
    auto reopened = ShardStore::open(dir.file("s.db"), options);
    ASSERT_TRUE(reopened);
    auto found = (*reopened)->search({ { "acme" }, "common OR words", 20, 0, false });
    ASSERT_TRUE(found) << found.error().describe();
    EXPECT_EQ(found->hits.size(), 20u);
}

TEST_P(ShardStoreTest, ScanPagesInIdOrderWithCursorAndTombstones)
{
    std::vector<Document> docs;
    for (int i = 0; i < 25; ++i)
        docs.push_back(doc("acme", "id" + std::to_string(100 + i), 1, "x"));
    docs.push_back(Document { "acme", "zz", 1, { { "title", "t" }, { "custom", "kept" } }, false });
    write(docs);
    write({ tombstone("acme", "id105", 2) });
    std::vector<std::string> seen;
    std::string cursor;
    int pages = 0;
    while (true) {
        auto page = m_store->scan("acme", cursor, 10, false);
        ASSERT_TRUE(page);
        ++pages;
        for (const auto& d : page->docs)
            seen.push_back(d.id);
        cursor = page->cursor;
        if (page->done)
            break;
    }
    EXPECT_EQ(seen.size(), 25u);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_EQ(pages, 3);
    auto last = m_store->scan("acme", "z", 10, false);
    ASSERT_EQ(last->docs.size(), 1u);
    EXPECT_EQ(last->docs[0].fields.at("custom"), "kept");
    EXPECT_EQ(last->docs[0].fields.at("title"), "t");
    auto withTombs = m_store->scan("acme", "id104", 1, true);
    EXPECT_TRUE(withTombs->docs[0].deleted);
    EXPECT_EQ(withTombs->docs[0].version, 2u);
}

TEST_P(ShardStoreTest, WritesNeedTheHeldEpochAndARoleThatAcceptsWrites)
{
    auto stale = m_store->write({ { doc("acme", "a", 1, "x"), 0 } });
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(stale.error().details.at("held_epoch"), "1");
    own("acme", 3);
    auto old = m_store->write({ { doc("acme", "a", 1, "x"), 2 } });
    ASSERT_FALSE(old);
    EXPECT_NE(old.error().message.find("stale epoch 2"), std::string::npos);
    EXPECT_EQ(old.error().details.at("held_epoch"), "3");
    auto unknown = m_store->write({ { doc("nobody", "a", 1, "x"), 1 } });
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("holds no ownership"), std::string::npos);
    EXPECT_EQ(unknown.error().details.at("held_epoch"), "0");
    own("acme", 3, SpaceRole::Fenced);
    auto fenced = m_store->write({ { doc("acme", "a", 1, "x"), 3 } });
    ASSERT_FALSE(fenced);
    EXPECT_NE(fenced.error().message.find("fenced"), std::string::npos);
    // A refused batch applies nothing, not even its valid items for other spaces.
    auto mixed = m_store->write({ { doc("globex", "g", 1, "x"), 1 }, { doc("acme", "a", 1, "x"), 3 } });
    ASSERT_FALSE(mixed);
    EXPECT_EQ(stats("globex").liveDocs, 0u);
}

TEST_P(ShardStoreTest, ASearchOfASpaceHeldFencedIsRefusedWithTheEpoch)
{
    own("acme", 2);
    own("globex", 1);
    ASSERT_TRUE(
        m_store->write({ { doc("acme", "a", 1, "moving words"), 2 }, { doc("globex", "g", 1, "moving on"), 1 } }));
    own("acme", 3, SpaceRole::Fenced);
    auto refused = m_store->search({ { "globex", "acme" }, "moving", 10, 0, false });
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(refused.error().details.at("space"), "acme");
    EXPECT_EQ(refused.error().details.at("held_epoch"), "3");
    EXPECT_NE(refused.error().message.find("moved off shard"), std::string::npos);
    auto others = m_store->search({ { "globex" }, "moving", 10, 0, false });
    ASSERT_TRUE(others) << others.error().describe();
    EXPECT_EQ(others->hits.size(), 1u) << "spaces the shard still owns are searched as before";
}

TEST_P(ShardStoreTest, OwnershipEpochsNeverGoBackwards)
{
    own("acme", 5, SpaceRole::MigrationTarget);
    auto back = m_store->setOwnership({ "acme", SpaceRole::Owner, 4 });
    ASSERT_FALSE(back);
    EXPECT_EQ(back.error().code, ErrorCode::FailedPrecondition);
    EXPECT_TRUE(m_store->setOwnership({ "acme", SpaceRole::Owner, 5 }));
    EXPECT_FALSE(m_store->setOwnership({ "acme", SpaceRole::None, 6 }));
    EXPECT_FALSE(m_store->setOwnership({ "acme", SpaceRole::Owner, 0 }));
    const auto held = m_store->ownerships("acme");
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].role, SpaceRole::Owner);
    EXPECT_EQ(held[0].epoch, 5u);
}

TEST_P(ShardStoreTest, OwnershipAndDataSurviveReopen)
{
    write({ doc("acme", "a", 7, "persist") });
    const std::string path = m_store->path();
    m_store.reset();
    auto reopened = ShardStore::open(path, engineOptions());
    ASSERT_TRUE(reopened) << reopened.error().describe();
    EXPECT_EQ((*reopened)->ownerships("acme").at(0).epoch, 1u);
    EXPECT_EQ((*reopened)->spaceStats({ "acme" })->front().liveDocs, 1u);
    auto hits = (*reopened)->search({ { "acme" }, "persist", 10, 0, false });
    ASSERT_TRUE(hits);
    EXPECT_EQ(hits->hits.size(), 1u);
}

TEST_P(ShardStoreTest, ConcurrentWritersAreGroupCommittedWithoutLoss)
{
    constexpr int kThreads = 8;
    constexpr int kBatches = 40;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([this, t] {
            for (int b = 0; b < kBatches; ++b) {
                const std::string id = "t" + std::to_string(t) + "-" + std::to_string(b);
                auto result = m_store->write({ { doc("acme", id, 1, "concurrent"), 1 } });
                ASSERT_TRUE(result);
                ASSERT_EQ(result->applied, 1u);
            }
        });
    }
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(stats("acme").liveDocs, static_cast<std::uint64_t>(kThreads * kBatches));
    EXPECT_EQ(stats("acme"), recompute("acme"));
}

TEST_P(ShardStoreTest, OneRefusedBatchInAGroupDoesNotAffectTheOthers)
{
    std::vector<std::thread> threads;
    std::atomic<int> refused { 0 };
    for (int t = 0; t < 6; ++t) {
        threads.emplace_back([&, t] {
            const std::uint64_t epoch = t % 2 == 0 ? 1 : 99; // odd threads send a wrong epoch
            for (int b = 0; b < 20; ++b) {
                auto result = m_store->write(
                    { { doc("acme", "t" + std::to_string(t) + "-" + std::to_string(b), 1, "x"), epoch } });
                if (!result)
                    ++refused;
            }
        });
    }
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(refused.load(), 60);
    EXPECT_EQ(stats("acme").liveDocs, 60u);
}

TEST_P(ShardStoreTest, AClientWriteDoesNotWaitBehindABackfill)
{
    // A migration copies 10,000 documents into globex while a client keeps writing to acme. With
    // no client the copy is one transaction; a client's write ends it after the slice being
    // applied and is committed next, so the client sees the copy half done, never only before or
    // after it as it would behind one large transaction.
    std::vector<WriteItem> copy;
    for (int i = 0; i < 10000; ++i)
        copy.push_back({ doc("globex", "g" + std::to_string(i), 1, "copied"), 1 });
    std::atomic<bool> copying { true };
    std::atomic<int> midCopy { 0 };
    std::thread client([&] {
        for (int n = 0; copying; ++n) {
            auto written = m_store->write({ { doc("acme", "c" + std::to_string(n), 1, "mine"), 1 } });
            ASSERT_TRUE(written) << written.error().describe();
            const auto copied = stats("globex").liveDocs;
            if (copied > 0 && copied < 10000)
                ++midCopy;
        }
    });
    auto copied = m_store->write(std::move(copy), WriteMode::Backfill);
    copying = false;
    client.join();
    ASSERT_TRUE(copied) << copied.error().describe();
    EXPECT_EQ(copied->applied, 10000u);
    EXPECT_EQ(copied->results.size(), 10000u);
    EXPECT_GT(midCopy.load(), 0) << "every client write waited for the whole copy";
    EXPECT_EQ(stats("globex"), recompute("globex"));
    EXPECT_EQ(stats("acme"), recompute("acme"));
}

TEST_P(ShardStoreTest, ABackfillAnswersEveryItemInOrderAndIsFencedLikeAnyWrite)
{
    write({ doc("acme", "k050", 5, "newer"), doc("acme", "k150", 5, "newer") });
    std::vector<WriteItem> copy;
    for (int i = 0; i < 250; ++i) {
        char id[8];
        std::snprintf(id, sizeof id, "k%03d", i);
        copy.push_back({ doc("acme", id, 1, "copied"), 1 });
    }
    copy.push_back({ Document { "acme", "", 1, {}, false }, 1 }); // invalid: no id
    auto copied = m_store->write(copy, WriteMode::Backfill);
    ASSERT_TRUE(copied) << copied.error().describe();
    ASSERT_EQ(copied->results.size(), 251u);
    EXPECT_EQ(copied->applied, 248u);
    EXPECT_EQ(copied->stale, 2u);
    EXPECT_EQ(copied->rejected, 1u);
    EXPECT_EQ(copied->results[50].outcome, WriteOutcome::Stale);
    EXPECT_EQ(copied->results[150].outcome, WriteOutcome::Stale);
    EXPECT_EQ(copied->results[150].storedVersion, 5u);
    EXPECT_EQ(copied->results[250].outcome, WriteOutcome::Rejected);
    EXPECT_EQ(stats("acme").liveDocs, 250u);

    own("acme", 2, SpaceRole::Fenced);
    auto fenced = m_store->write(copy, WriteMode::Backfill);
    ASSERT_FALSE(fenced);
    EXPECT_EQ(fenced.error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(fenced.error().details.at("held_epoch"), "2");
    EXPECT_TRUE(m_store->write({}, WriteMode::Backfill)) << "an empty copy is no error";
}

TEST_P(ShardStoreTest, AMigrationsCopiesAreTheShardsWritesButNotTheSpacesLoad)
{
    std::vector<WriteItem> copy;
    for (int i = 0; i < 120; ++i)
        copy.push_back({ doc("acme", "c" + std::to_string(i), 1, "copied"), 1 });
    ASSERT_TRUE(m_store->write(copy, WriteMode::Backfill));
    std::vector<WriteItem> repair { { doc("acme", "c0", 1, "repaired"), 1 } };
    ASSERT_TRUE(m_store->write(repair, WriteMode::Repair));
    write({ doc("acme", "own", 1, "a client's write"), doc("globex", "g", 1, "another tenant") });

    const ShardActivity activity = m_store->activity();
    EXPECT_EQ(activity.writesApplied, 123u) << "the shard did every write";
    EXPECT_EQ(activity.spaces.at("acme").writes, 1u) << "only the client's write is the tenant's load";
    EXPECT_EQ(activity.spaces.at("globex").writes, 1u);
}

TEST_P(ShardStoreTest, DropSpaceDeletesInBatchesAndLeavesOthers)
{
    std::vector<Document> docs;
    for (int i = 0; i < 95; ++i)
        docs.push_back(doc("acme", "a" + std::to_string(i), 1, "gone"));
    docs.push_back(doc("globex", "g", 1, "gone"));
    write(docs);
    write({ tombstone("acme", "t1", 1) });
    EXPECT_EQ(*m_store->countSpaceRows("acme"), 96u);
    // Only a space fenced at the epoch the caller names is deleted (issue 14).
    auto owned = m_store->dropSpaceBatch("acme", 40, 1);
    ASSERT_FALSE(owned);
    EXPECT_EQ(owned.error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(owned.error().details.at("held_role"), "1");
    own("acme", 2, SpaceRole::Fenced);
    auto wrongEpoch = m_store->dropSpaceBatch("acme", 40, 1);
    ASSERT_FALSE(wrongEpoch);
    EXPECT_EQ(wrongEpoch.error().details.at("held_epoch"), "2");
    EXPECT_EQ(*m_store->countSpaceRows("acme"), 96u) << "a refused drop deleted rows";
    std::uint64_t total = 0;
    int batches = 0;
    while (true) {
        auto deleted = m_store->dropSpaceBatch("acme", 40, 2);
        ASSERT_TRUE(deleted);
        total += *deleted;
        ++batches;
        if (*deleted < 40)
            break;
    }
    EXPECT_EQ(total, 96u);
    EXPECT_EQ(batches, 3);
    EXPECT_EQ(stats("acme"), SpaceStats { "acme" });
    // Searched once it is owned here again (a fenced space's searches are refused): the index kept
    // nothing of it.
    own("acme", 3);
    EXPECT_TRUE(searchIds("gone").empty());
    EXPECT_EQ(searchIds("gone", { "globex" }), std::vector<std::string> { "g" });
}

// Issue 14, defect 3: a drop from a caller that fenced the space stops as soon as the space is
// owned here again (it moved back meanwhile), between two of its batches.
TEST_P(ShardStoreTest, ADropStopsWhenTheSpaceIsOwnedAgainBetweenBatches)
{
    std::vector<Document> docs;
    for (int i = 0; i < 100; ++i)
        docs.push_back(doc("acme", "a" + std::to_string(i), 1, "kept"));
    write(docs);
    own("acme", 2, SpaceRole::Fenced);
    ASSERT_EQ(*m_store->dropSpaceBatch("acme", 30, 2), 30u);
    own("acme", 3, SpaceRole::Owner); // the space moved back to this shard
    auto late = m_store->dropSpaceBatch("acme", 30, 2);
    ASSERT_FALSE(late);
    EXPECT_EQ(late.error().details.at("held_epoch"), "3");
    EXPECT_EQ(*m_store->countSpaceRows("acme"), 70u);
    EXPECT_EQ(recompute("acme"), stats("acme"));
}

TEST_P(ShardStoreTest, FullShardFailsTheWholeBatchAndKeepsEarlierData)
{
    TempDir dir;
    ShardStoreOptions options = engineOptions();
    options.maxBytes = 256 * 1024;
    auto small = ShardStore::create(dir.file("small.db"), "small", options);
    ASSERT_TRUE(small) << small.error().describe();
    ASSERT_TRUE((*small)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    ASSERT_TRUE((*small)->write({ { doc("acme", "first", 1, "kept"), 1 } }));
    std::vector<WriteItem> big;
    for (int i = 0; i < 200; ++i)
        big.push_back({ doc("acme", "big" + std::to_string(i), 1, std::string(4000, 'a' + i % 26) + " word"), 1 });
    auto result = (*small)->write(std::move(big));
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::ResourceExhausted);
    const auto after = (*small)->spaceStats({ "acme" })->front();
    EXPECT_EQ(after.liveDocs, 1u);
    auto hits = (*small)->search({ { "acme" }, "word", 10, 0, false });
    ASSERT_TRUE(hits);
    EXPECT_TRUE(hits->hits.empty());
    // Small writes still fit afterwards.
    EXPECT_TRUE((*small)->write({ { doc("acme", "second", 1, "fits"), 1 } }));
}

TEST(ShardStoreFileTest, CreateRefusesExistingFileAndOpenRefusesGarbage)
{
    TempDir dir;
    ASSERT_TRUE(ShardStore::create(dir.file("a.db"), "a", {}));
    auto again = ShardStore::create(dir.file("a.db"), "a", {});
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, ErrorCode::AlreadyExists);
    {
        std::FILE* garbage = std::fopen(dir.file("junk.db").c_str(), "wb");
        std::string noise(8192, '\x5a');
        std::fwrite(noise.data(), 1, noise.size(), garbage);
        std::fclose(garbage);
    }
    auto junk = ShardStore::open(dir.file("junk.db"), {});
    ASSERT_FALSE(junk);
    EXPECT_NE(junk.error().describe().find("junk.db"), std::string::npos) << junk.error().describe();
    EXPECT_FALSE(ShardStore::open(dir.file("missing.db"), {}));
    ShardStoreOptions badFields;
    badFields.index.fields = { { "Title", true, 1.0 } };
    EXPECT_FALSE(ShardStore::create(dir.file("b.db"), "b", badFields));
    EXPECT_FALSE(std::filesystem::exists(dir.file("b.db")));
}

// Issue 14, defect 9: an ownership change reaches the disk (the write-ahead log is synced) before
// it is acknowledged, even on a shard with synchronous=NORMAL; document writes keep group commit.
TEST(ShardStoreDurability, OwnershipChangesAreSyncedBeforeTheyAreAcknowledged)
{
    shardmap::testing::SyncCountingVfs vfs;
    TempDir dir;
    auto store = ShardStore::create(dir.file("s1.db"), "s1", {});
    ASSERT_TRUE(store) << store.error().describe();
    const int before = vfs.walSyncs();
    ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    EXPECT_GT(vfs.walSyncs(), before) << "the ownership commit was not synced";
    const int owned = vfs.walSyncs();
    ASSERT_TRUE((*store)->write({ { doc("acme", "a", 1, "x"), 1 } }));
    EXPECT_EQ(vfs.walSyncs(), owned) << "document writes stay under synchronous=NORMAL";
    ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Fenced, 2 }));
    EXPECT_GT(vfs.walSyncs(), owned);
}

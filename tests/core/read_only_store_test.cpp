// A store opened read-only (the console's read-only connections): reads and watches pass, every
// write is refused before it reaches the store, with an error that says why, and nothing changes.
#include "core/map/map_editor.h"
#include "core/store/read_only_store.h"
#include "core/store/sqlite_store.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

using namespace shardmap;
using namespace shardmap::core;
using namespace std::chrono_literals;

TEST(ReadOnlyStore, ReadsPassAndEveryWriteIsRefusedWithNothingChanged)
{
    shardmap::testing::TempDir dir;
    auto writable = openStore("sqlite:" + dir.file("map.db"), true);
    ASSERT_TRUE(writable);
    ASSERT_TRUE(MapEditor(**writable).addNode({ "n1", "127.0.0.1:1", {}, false }, { "test", "" }));
    auto granted = (*writable)->acquireLease("executor", "c1#1", 10s);
    ASSERT_TRUE(granted);
    const auto before = (*writable)->currentRevision();
    ASSERT_TRUE(before);

    auto opened = openStore("sqlite:" + dir.file("map.db"), false);
    ASSERT_TRUE(opened);
    auto store = makeReadOnly(std::move(*opened));
    EXPECT_NE(store->describe().find("(read-only)"), std::string::npos);
    auto snapshot = store->snapshot();
    ASSERT_TRUE(snapshot);
    EXPECT_EQ(snapshot->revision, *before);
    EXPECT_TRUE(store->list("nodes/"));
    auto history = store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(history->size(), 1u);
    auto leases = store->liveLeases("executor");
    ASSERT_TRUE(leases);
    EXPECT_EQ(leases->size(), 1u);

    // The map editor's own path: refused, with the read-only reason.
    auto added = MapEditor(*store).addNode({ "n2", "127.0.0.1:2", {}, false }, { "ada", "" });
    ASSERT_FALSE(added);
    EXPECT_TRUE(isReadOnlyRefusal(added.error())) << added.error().describe();
    EXPECT_NE(added.error().message.find("read-only connection"), std::string::npos) << added.error().message;
    auto committed = store->commit({ { { "nodes/x", "{}", 0 } }, std::nullopt, std::nullopt, "ada", "add-node", "" });
    ASSERT_FALSE(committed);
    EXPECT_EQ(committed.error().code, ErrorCode::FailedPrecondition);
    EXPECT_FALSE(store->acquireLease("executor", "console", 10s));
    EXPECT_FALSE(store->renewLease(*granted, 10s));
    EXPECT_FALSE(store->releaseLease(*granted));

    EXPECT_EQ(*(*writable)->currentRevision(), *before) << "nothing was committed";
    auto stillHeld = (*writable)->liveLeases("executor");
    ASSERT_TRUE(stillHeld);
    ASSERT_EQ(stillHeld->size(), 1u);
    EXPECT_EQ((*stillHeld)[0].holder, "c1#1") << "the lease was neither taken nor released";
}

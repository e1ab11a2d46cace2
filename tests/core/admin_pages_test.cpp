// The pages of the Admin API's lists and an identity's count of changes over a window (issue 25),
// on a real SQLite store: a page stays within its budget whatever the store holds, a map read in
// pages is as of one revision or refused, and requests of one identity are counted one at a time.
#include "core/admin/admin_limits.h"
#include "core/admin/admin_pages.h"
#include "core/admin/change_window.h"
#include "core/migration/fleet_facts.h"
#include "core/store/sqlite_store.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

namespace shardmap::core {
namespace {

using testing::TempDir;

class AdminPagesTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = SqliteStore::open(m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
    }

    std::uint64_t put(const std::string& key, const std::string& value)
    {
        auto committed = m_store->commit(
            { { { key, value, std::nullopt } }, std::nullopt, std::nullopt, "tester", "put", "a test record" });
        EXPECT_TRUE(committed) << committed.error().describe();
        return committed ? *committed : 0;
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
};

TEST_F(AdminPagesTest, AMapReadInPagesStaysWithinTheBudgetAndSlicesALargeValue)
{
    for (int i = 0; i < 5; ++i)
        put("bulk/" + std::to_string(i), std::string(1u << 20, 'a'));
    // Multi-byte characters across the slice boundaries: slices stay valid UTF-8.
    std::string large;
    while (large.size() < 9u << 20)
        large += "\xc3\xa9";
    put("bulk/large", large);
    v1::ReadMapRequest request;
    request.set_prefix("bulk/");
    std::map<std::string, std::string> read;
    int pages = 0;
    do {
        v1::ReadMapResponse response;
        ASSERT_TRUE(readMapPage(*m_store, request, response));
        EXPECT_LE(response.ByteSizeLong(), kPageBudgetBytes + 4096);
        for (const auto& record : response.records()) {
            EXPECT_EQ(record.value_offset(), read[record.key()].size());
            read[record.key()] += record.value();
        }
        request.set_page_token(response.next_page_token());
        ++pages;
    } while (!request.page_token().empty());
    EXPECT_GE(pages, 4);
    EXPECT_EQ(read.size(), 6u);
    EXPECT_EQ(read["bulk/large"], large);
    EXPECT_EQ(read["bulk/4"], std::string(1u << 20, 'a'));
}

TEST_F(AdminPagesTest, AKeyTooLongToListIsCutInTheMapAndTheHistoryAndItsPageTokenStaysSmall)
{
    // Keys nothing shardmapd writes has, written straight into the store: two longer than a key
    // is listed (the second shares the first's first 64 KiB) and one of 40 MiB.
    const std::string longKey = "big/k" + std::string(70 * 1024, 'k');
    const std::string hugeKey = "big/z" + std::string(40u << 20, 'Z');
    put("big/a", "whole");
    put(longKey, "v1");
    put(longKey + "2", "v2");
    const std::uint64_t huge = put(hugeKey, "v3");
    put("big/zz-last", "whole");
    v1::ReadMapRequest request;
    request.set_prefix("big/");
    request.set_page_size(1);
    std::vector<v1::StoreRecord> read;
    do {
        v1::ReadMapResponse response;
        ASSERT_TRUE(readMapPage(*m_store, request, response));
        EXPECT_LE(response.ByteSizeLong(), 2 * kMaxListedNameBytes + 1024) << "a cut key and the token naming it";
        EXPECT_LE(response.next_page_token().size(), kMaxListedNameBytes + 100);
        read.insert(read.end(), response.records().begin(), response.records().end());
        request.set_page_token(response.next_page_token());
    } while (!request.page_token().empty() && read.size() < 10);
    ASSERT_EQ(read.size(), 5u);
    EXPECT_EQ(read[0].key(), "big/a");
    EXPECT_EQ(read[0].value(), "whole");
    EXPECT_FALSE(read[0].cut());
    const std::vector<std::string> cut { longKey, longKey + "2", hugeKey };
    for (std::size_t i = 0; i < cut.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_TRUE(read[1 + i].cut());
        EXPECT_EQ(read[1 + i].key(),
            cut[i].substr(0, kMaxListedNameBytes) + " [cut: " + std::to_string(cut[i].size()) + " bytes]");
        EXPECT_EQ(read[1 + i].value(), "") << "its value is left out";
        EXPECT_EQ(read[1 + i].value_size(), 2u);
    }
    EXPECT_EQ(read[4].key(), "big/zz-last");

    // Its audit record, too: the key cut, the record saying so.
    v1::ReadHistoryRequest history;
    history.set_from_revision(huge - 1);
    history.set_limit(1);
    v1::ReadHistoryResponse entries;
    ASSERT_TRUE(readHistoryPage(*m_store, history, entries));
    ASSERT_EQ(entries.records_size(), 1);
    EXPECT_TRUE(entries.records(0).cut());
    EXPECT_EQ(entries.records(0).changes(0).key(),
        hugeKey.substr(0, kMaxListedNameBytes) + " [cut: " + std::to_string(hugeKey.size()) + " bytes]");
    EXPECT_LE(entries.ByteSizeLong(), kMaxItemBytes);
}

TEST_F(AdminPagesTest, ALaterPageIsRefusedWhenARecordNotYetReadChanged)
{
    for (const char* key : { "a/1", "a/2", "a/3" })
        put(key, "v");
    v1::ReadMapRequest request;
    request.set_prefix("a/");
    request.set_page_size(1);
    v1::ReadMapResponse first;
    ASSERT_TRUE(readMapPage(*m_store, request, first));
    ASSERT_EQ(first.records_size(), 1);
    // A change to a record already read, or outside the read, leaves the rest as it was.
    put("a/1", "changed");
    put("b/1", "elsewhere");
    request.set_page_token(first.next_page_token());
    v1::ReadMapResponse second;
    ASSERT_TRUE(readMapPage(*m_store, request, second));
    EXPECT_EQ(second.revision(), first.revision());
    ASSERT_EQ(second.records_size(), 1);
    EXPECT_EQ(second.records(0).key(), "a/2");
    // One not read yet does not.
    put("a/3", "changed");
    request.set_page_token(second.next_page_token());
    v1::ReadMapResponse third;
    auto refused = readMapPage(*m_store, request, third);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::Aborted);
    EXPECT_NE(refused.error().message.find("a/3 changed at revision"), std::string::npos) << refused.error().message;

    request.set_page_token("not a token");
    auto forged = readMapPage(*m_store, request, third);
    ASSERT_FALSE(forged);
    EXPECT_EQ(forged.error().code, ErrorCode::InvalidArgument);
}

TEST_F(AdminPagesTest, HistoryPagesCutOnlyARecordLargerThanAnItemMayBe)
{
    put("k/small", "s");
    put("k/huge", std::string(kMaxItemBytes + 10, 'h'));
    put("k/after", "a");
    v1::ReadHistoryRequest request;
    std::vector<v1::AuditEntry> entries;
    do {
        v1::ReadHistoryResponse response;
        ASSERT_TRUE(readHistoryPage(*m_store, request, response));
        EXPECT_LE(response.ByteSizeLong(), kMaxItemBytes + 4096);
        entries.insert(entries.end(), response.records().begin(), response.records().end());
        request.set_page_token(response.next_page_token());
    } while (!request.page_token().empty());
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_FALSE(entries[0].cut());
    EXPECT_TRUE(entries[1].cut());
    EXPECT_TRUE(entries[1].changes(0).after().ends_with(" [cut: " + std::to_string(kMaxItemBytes + 10) + " bytes]"));
    EXPECT_EQ(entries[2].changes(0).after(), "a");
}

TEST_F(AdminPagesTest, RequestsOfOneIdentityAreCountedOneAfterTheOtherWithTheirChange)
{
    Approvals approvals(*m_store);
    ChangeWindow window(*m_store, approvals);
    const auto keep = std::chrono::minutes(60);
    const AccessPolicy nobody;
    auto first = window.read(requesterOf(nobody, "bob"), std::chrono::hours(24));
    auto second = window.read(requesterOf(nobody, "bob"), std::chrono::hours(24));
    ASSERT_TRUE(first && second);
    ChangeSize one;
    one.spaces = 1;
    one.bytes = 100;
    const CommitRequest change { { { "spaces/acme", "{}", std::nullopt } }, std::nullopt, std::nullopt, "bob",
        "migrate", "a change" };
    CountedCommits counted(*m_store, window.add(*first, ChangeWindow::entryFor(one), keep));
    auto made = counted.commit(change);
    ASSERT_TRUE(made) << made.error().describe();
    auto history = m_store->history(*made - 1, *made, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), 1u) << "one commit, one audit record";
    ASSERT_EQ(history->front().changes.size(), 2u);
    EXPECT_EQ(history->front().changes[1].key, "requesters/bob");

    // The second was read before the first was counted: its change is not made.
    CountedCommits raced(*m_store, window.add(*second, ChangeWindow::entryFor(one), keep));
    auto refused = raced.commit(change);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(raced.countChanged());
    EXPECT_FALSE(raced.commit(change)) << "every later commit of the request fails the same way";
    EXPECT_EQ(*m_store->currentRevision(), *made);

    auto again = window.read(requesterOf(nobody, "bob"), std::chrono::hours(24));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->countedSince(0).spaces, 1u);
    EXPECT_EQ(again->countedSince(nowUnixMs() + 1000).spaces, 0u) << "outside the window";
    // A change that conflicts on its own records leaves the count alone and says so.
    CountedCommits own(*m_store, window.add(*again, ChangeWindow::entryFor(one), keep));
    auto stale = own.commit({ { { "spaces/acme", "{}", 0 } }, std::nullopt, std::nullopt, "bob", "migrate", "" });
    ASSERT_FALSE(stale);
    EXPECT_FALSE(own.countChanged());
    auto olga = window.read(requesterOf(nobody, "olga"), std::chrono::hours(24));
    ASSERT_TRUE(olga);
    EXPECT_EQ(olga->countedSince(0).spaces, 0u);
}

TEST_F(AdminPagesTest, APersonsIdentitiesShareOneCount)
{
    auto policy = AccessPolicy::parse(R"({"version": 1, "people": {"bob": ["bob", "token:bob.ci"]}})", "the policy");
    ASSERT_TRUE(policy) << policy.error().describe();
    const Requester byCertificate = requesterOf(*policy, "bob");
    const Requester byToken = requesterOf(*policy, "token:bob.ci");
    EXPECT_EQ(byCertificate.key, "person:bob");
    EXPECT_EQ(byToken.key, "person:bob");
    EXPECT_EQ(byToken.name, "person bob");
    // A CN bob's DNS namesake is not bob, and an identity no person lists counts alone.
    EXPECT_EQ(requesterOf(*policy, "dns:bob").key, "dns:bob");
    EXPECT_EQ(requesterOf(*policy, "olga").key, "olga");

    Approvals approvals(*m_store);
    ChangeWindow window(*m_store, approvals);
    auto before = window.read(byCertificate, std::chrono::hours(24));
    ASSERT_TRUE(before);
    ChangeSize one;
    one.spaces = 1;
    CountedCommits counted(*m_store, window.add(*before, ChangeWindow::entryFor(one), std::chrono::minutes(60)));
    ASSERT_TRUE(counted.commit(
        { { { "spaces/acme", "{}", std::nullopt } }, std::nullopt, std::nullopt, "bob", "migrate", "" }));
    auto seen = window.read(byToken, std::chrono::hours(24));
    ASSERT_TRUE(seen);
    EXPECT_EQ(seen->countedSince(0).spaces, 1u) << "the token sees what the certificate moved";
    auto listed = m_store->list("requesters/");
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->records.size(), 1u);
    EXPECT_EQ(listed->records.begin()->first, "requesters/person:bob");
}

TEST(AdminLimits, EveryStoredTextOfAChangeIsBounded)
{
    v1::ChangeRequest request;
    request.mutable_change()->mutable_start_operation()->set_kind("drain");
    request.mutable_change()->mutable_start_operation()->set_subject("s1");
    EXPECT_TRUE(checkChangeRequestText(request));
    request.mutable_change()->mutable_start_operation()->set_into(std::string(65, 'i'));
    auto into = checkChangeRequestText(request);
    ASSERT_FALSE(into);
    EXPECT_EQ(into.error().message, "change.start_operation.into is 65 bytes; the Admin API takes at most 64");
    v1::ChangeRequest plan;
    plan.mutable_change()->mutable_apply_plan()->set_plan_json(std::string(kMaxPlanJsonBytes + 1, ' '));
    auto big = checkChangeRequestText(plan);
    ASSERT_FALSE(big);
    EXPECT_NE(big.error().message.find("change.apply_plan.plan_json is"), std::string::npos);
    v1::DecideRequest decide;
    decide.set_id(std::string(100, 'a'));
    EXPECT_EQ(checkDecideRequestText(decide).error().message, "id is 100 bytes; the Admin API takes at most 64");
}

TEST(AdminLimits, EveryTextOfARequestIsUtf8AndTheRefusalNamesTheField)
{
    v1::ChangeRequest request;
    request.mutable_change()->mutable_queue_migration()->set_space("acme");
    request.mutable_change()->mutable_queue_migration()->set_target_shard("s1\xff");
    auto shard = checkChangeRequestText(request);
    ASSERT_FALSE(shard);
    EXPECT_EQ(shard.error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(
        shard.error().message, "change.queue_migration.target_shard is not valid UTF-8; the Admin API takes text only");
    request.mutable_change()->mutable_queue_migration()->set_target_shard("s\u00e91");
    EXPECT_TRUE(checkChangeRequestText(request)) << "UTF-8 beyond ASCII is text";
    request.set_reason("\xc3");
    EXPECT_EQ(
        checkChangeRequestText(request).error().message, "reason is not valid UTF-8; the Admin API takes text only");

    v1::ChangeRequest node;
    (*node.mutable_change()->mutable_add_node()->mutable_labels())["rack\xfe"] = "r1";
    EXPECT_EQ(checkChangeRequestText(node).error().message,
        "change.add_node.labels.key is not valid UTF-8; the Admin API takes text only");
    v1::ChangeRequest shardFields;
    shardFields.mutable_change()->mutable_create_shard()->add_fields("ti\x80tle");
    EXPECT_EQ(checkChangeRequestText(shardFields).error().message,
        "change.create_shard.fields is not valid UTF-8; the Admin API takes text only");
    v1::ChangeRequest policy;
    policy.mutable_change()->mutable_set_access_policy()->set_policy_json("{\"roles\": {\"\xed\xa0\x80\": 1}}");
    EXPECT_EQ(checkChangeRequestText(policy).error().message,
        "change.set_access_policy.policy_json is not valid UTF-8; the Admin API takes text only");
    v1::DecideRequest decide;
    decide.set_id("ap-1");
    decide.set_reason("ok \xff");
    EXPECT_EQ(
        checkDecideRequestText(decide).error().message, "reason is not valid UTF-8; the Admin API takes text only");
}

} // namespace
} // namespace shardmap::core

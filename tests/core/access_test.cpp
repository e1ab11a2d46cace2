// Who may do what through the Admin API (issue 17): the role file, bearer tokens, which role a
// change needs, when it needs a second person, and approvals kept in a real SQLite store.
#include "core/admin/admin_changes.h"
#include "core/admin/approvals.h"
#include "core/auth/access_policy.h"
#include "core/auth/bearer_tokens.h"
#include "core/auth/stored_access_policy.h"
#include "core/client/node_client.h"
#include "core/migration/migration_requests.h"
#include "core/store/sqlite_store.h"
#include "tests/support/test_dir.h"

#include <fstream>
#include <gtest/gtest.h>
#include <latch>
#include <thread>

namespace shardmap::core {
namespace {

using testing::TempDir;

TEST(AccessPolicy, ReadsRolesLimitsAndThresholds)
{
    auto policy = AccessPolicy::parse(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "operator", "vera": "viewer"},
        "default_role": "viewer",
        "operator_limits": {"max_spaces": 5, "max_bytes": 1000},
        "approval": {"max_spaces": 2, "max_bytes": 0, "retire_node": false, "expire_hours": 3}})",
        "access.json");
    ASSERT_TRUE(policy) << policy.error().describe();
    EXPECT_EQ(policy->roleOf("alice"), Role::Admin);
    EXPECT_EQ(policy->roleOf("bob"), Role::Operator);
    EXPECT_EQ(policy->roleOf("someone"), Role::Viewer);
    EXPECT_EQ(policy->roleOf(""), Role::None);
    EXPECT_EQ(policy->operatorLimits, (OperatorLimits { 5, 1000 }));
    EXPECT_EQ(policy->approval.maxSpaces, 2u);
    EXPECT_EQ(policy->approval.maxBytes, 0u);
    EXPECT_FALSE(policy->approval.retireNode);
    EXPECT_TRUE(policy->approval.raiseLimits);
    EXPECT_EQ(policy->approval.expireAfter, std::chrono::hours(3));

    // Unlisted identities have no role unless the file says otherwise.
    auto strict = AccessPolicy::parse(R"({"version": 1, "roles": {"alice": "admin"}})", "access.json");
    ASSERT_TRUE(strict);
    EXPECT_EQ(strict->roleOf("mallory"), Role::None);
}

TEST(AccessPolicy, AMistakeIsAnErrorNamingTheFileAndWhat)
{
    const std::pair<const char*, const char*> bad[] = {
        { R"({"version": 1, "roles": {"alice": "root"}})", "unknown role 'root'" },
        { R"({"version": 1, "rolez": {}})", "unknown key 'rolez'" },
        { R"({"version": 1, "approval": {"max_space": 3}})", "unknown key 'max_space' in approval" },
        { R"({"version": 1, "operator_limits": {"max_spaces": -1}})", "operator_limits.max_spaces" },
        { R"({"version": 2})", "version" },
        { R"({"version": null})", "version" }, // threw a JSON type error: shardmapd answered UNKNOWN
        { R"({"version": "1"})", "version" },
        { R"({"roles": {}})", "version" },
        { R"({"version": 1, "approval": {"expire_hours": 0}})", "expire_hours" },
        { "{not json", "not JSON" },
    };
    for (const auto& [text, expected] : bad) {
        SCOPED_TRACE(text);
        auto policy = AccessPolicy::parse(text, "/etc/shardmap/access.json");
        ASSERT_FALSE(policy);
        EXPECT_EQ(policy.error().code, ErrorCode::InvalidArgument);
        EXPECT_NE(policy.error().message.find("/etc/shardmap/access.json"), std::string::npos);
        EXPECT_NE(policy.error().message.find(expected), std::string::npos) << policy.error().message;
    }
}

TEST(AccessPolicy, NumbersThatCouldOverflowAreRefusedNamingTheKey)
{
    const std::pair<const char*, const char*> bad[] = {
        { R"({"version": 1, "approval": {"expire_hours": 5000000000000000}})",
            "approval.expire_hours must be a whole number from 1 to 8760, not 5000000000000000" },
        { R"({"version": 1, "approval": {"expire_hours": 8761}})", "approval.expire_hours must be" },
        { R"({"version": 1, "approval": {"expire_hours": 1.5}})", "approval.expire_hours must be" },
        { R"({"version": 1, "approval": {"max_bytes": 18446744073709551615}})", "approval.max_bytes must be" },
        { R"({"version": 1, "approval": {"max_spaces": 1e20}})", "approval.max_spaces must be" },
        { R"({"version": 1, "operator_limits": {"max_bytes": 2305843009213693952}})",
            "operator_limits.max_bytes must be a whole number from 0 to 1152921504606846976" },
        { R"({"version": 1, "operator_limits": {"max_spaces": 1000000001}})", "operator_limits.max_spaces must be" },
    };
    for (const auto& [text, expected] : bad) {
        SCOPED_TRACE(text);
        auto policy = AccessPolicy::parse(text, "the policy");
        ASSERT_FALSE(policy);
        EXPECT_EQ(policy.error().code, ErrorCode::InvalidArgument);
        EXPECT_NE(policy.error().message.find(expected), std::string::npos) << policy.error().message;
    }
    auto longest = AccessPolicy::parse(R"({"version": 1, "approval": {"expire_hours": 8760}})", "the policy");
    ASSERT_TRUE(longest) << longest.error().describe();
    EXPECT_EQ(longest->approval.expireAfter, std::chrono::hours(8760));
}

TEST(MigrationSettingsInput, EveryCountIsAWholeNumberInItsRangeNamedWhenNot)
{
    const std::pair<const char*, const char*> bad[] = {
        { R"({"max_concurrent": 4294967296})", "the settings' max_concurrent must be a whole number from 0 to 10000" },
        { R"({"max_per_node": -1})", "max_per_node must be" },
        { R"({"backfill_batch": 0})", "backfill_batch must be a whole number from 1 to 5000, not 0" },
        { R"({"rollback_window_seconds": 18446744073709551615})", "rollback_window_seconds must be" },
        { R"({"cutover_timeout_ms": 10})", "cutover_timeout_ms must be a whole number from 50 to 600000" },
        { R"({"start_retry_seconds": 1e300})", "start_retry_seconds must be" },
        { R"({"default_throttle_docs_per_second": "fast"})", "default_throttle_docs_per_second must be" },
        { R"({"max_target_fill": 0})", "max_target_fill must be above 0 and at most 1, not 0" },
        { R"({"max_target_fill": "0.5"})", "max_target_fill must be" },
        { R"([1, 2])", "the settings are not a JSON object" },
        { "{", "the settings is not JSON" },
    };
    for (const auto& [text, expected] : bad) {
        SCOPED_TRACE(text);
        auto settings = readMigrationSettings(text);
        ASSERT_FALSE(settings);
        EXPECT_EQ(settings.error().code, ErrorCode::InvalidArgument);
        EXPECT_NE(settings.error().message.find(expected), std::string::npos) << settings.error().message;
    }
    auto good = readMigrationSettings(R"({"max_concurrent": 8, "rollback_window_seconds": 2592000})");
    ASSERT_TRUE(good) << good.error().describe();
    EXPECT_EQ(good->maxConcurrent, 8u);
    EXPECT_EQ(good->rollbackWindowSeconds, 2592000u);
    EXPECT_EQ(good->backfillBatch, MigrationSettings {}.backfillBatch) << "a key not given keeps its default";
}

TEST(AccessPolicy, TheFileIsReadAgainWhenItChangesAndABadEditKeepsTheLastGoodOne)
{
    TempDir dir;
    const std::string path = dir.file("access.json");
    std::ofstream(path) << R"({"version": 1, "roles": {"vera": "viewer"}})";
    auto file = AccessPolicyFile::load(path, &AccessPolicy::parse, std::chrono::milliseconds(0));
    ASSERT_TRUE(file) << file.error().describe();
    EXPECT_EQ((*file)->current()->roleOf("vera"), Role::Viewer);

    std::ofstream(path) << R"({"version": 1, "roles": {"vera": "operator", "new": "admin"}})";
    EXPECT_EQ((*file)->current()->roleOf("vera"), Role::Operator);
    EXPECT_EQ((*file)->current()->roleOf("new"), Role::Admin);
    EXPECT_EQ((*file)->loads(), 2u);

    std::ofstream(path) << R"({"version": 1, "roles": {"vera": "superuser"}})";
    EXPECT_EQ((*file)->current()->roleOf("vera"), Role::Operator) << "a broken edit must not lock everyone out";
    EXPECT_NE((*file)->lastError().find("superuser"), std::string::npos) << (*file)->lastError();

    std::ofstream(path) << R"({"version": 1, "roles": {}})";
    EXPECT_EQ((*file)->current()->roleOf("vera"), Role::None);
    EXPECT_EQ((*file)->lastError(), "");

    EXPECT_FALSE(AccessPolicyFile::load(dir.file("missing.json"), &AccessPolicy::parse));
}

TEST(BearerTokens, AFileOfHashesKnowsItsTokensAndNoOthers)
{
    auto ci = newToken("ci-bot");
    auto grafana = newToken("grafana");
    ASSERT_TRUE(ci && grafana);
    EXPECT_EQ(ci->token.size(), 64u);
    EXPECT_NE(ci->token, grafana->token);
    EXPECT_EQ(ci->line.find(ci->token), std::string::npos) << "the file line holds the hash, never the token";

    auto table = TokenTable::parse("# tokens\n" + ci->line + "\n\n" + grafana->line + "  # dashboards\n", "tokens");
    ASSERT_TRUE(table) << table.error().describe();
    EXPECT_EQ(table->identityOf(ci->token), "ci-bot");
    EXPECT_EQ(table->identityOf(grafana->token), "grafana");
    EXPECT_EQ(table->identityOf(ci->token.substr(1)), std::nullopt);
    EXPECT_EQ(table->identityOf(""), std::nullopt);
    EXPECT_EQ(table->identityOf(toHex(sha256(ci->token))), std::nullopt) << "the hash itself is not a token";

    // SHA-256 as everyone computes it.
    EXPECT_EQ(toHex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(tokenFileLine("x", "abc"), "x sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

    EXPECT_TRUE(constantTimeEquals("same", "same"));
    EXPECT_FALSE(constantTimeEquals("same", "sane"));
    EXPECT_FALSE(constantTimeEquals("same", "same!"));
}

TEST(BearerTokens, AMalformedLineIsAnErrorWithItsLineNumber)
{
    const std::string hash = "sha256:" + std::string(64, 'a');
    const std::pair<std::string, std::string> bad[] = {
        { "ci-bot\n", "tokens:1: expected" },
        { "ci-bot " + hash + " extra\n", "tokens:1: expected" },
        { "# x\nci-bot plaintext-token\n", "tokens:2: the hash must be" },
        { "ci-bot sha256:abc\n", "tokens:1: the hash must be" },
        { "a " + hash + "\na " + hash + "\n", "tokens:2: identity 'a' is listed twice" },
    };
    for (const auto& [text, expected] : bad) {
        auto table = TokenTable::parse(text, "tokens");
        ASSERT_FALSE(table) << text;
        EXPECT_NE(table.error().message.find(expected), std::string::npos) << table.error().message;
    }
}

PreparedChange moves(std::uint64_t spaces, std::uint64_t bytes, bool retiresNode = false)
{
    PreparedChange prepared;
    prepared.change.mutable_apply_plan()->set_plan_json("{}");
    prepared.size.spaces = spaces;
    prepared.size.bytes = bytes;
    prepared.size.retiresNode = retiresNode;
    prepared.summary = "move";
    return prepared;
}

TEST(AdminChanges, OperatorsMoveWithinTheirLimitsAndAdminsDoTheRest)
{
    const OperatorLimits limits { 10, 1000 };
    EXPECT_EQ(requiredRole(moves(10, 1000), limits), Role::Operator);
    EXPECT_EQ(requiredRole(moves(11, 10), limits), Role::Admin);
    EXPECT_NE(whyRole(moves(11, 10), limits).find("an operator may move 10"), std::string::npos);
    EXPECT_EQ(requiredRole(moves(1, 1001), limits), Role::Admin);
    EXPECT_EQ(requiredRole(moves(1, 1, true), limits), Role::Admin);
    EXPECT_EQ(requiredRole(moves(500, 1 << 30), OperatorLimits { 0, 0 }), Role::Operator) << "0: no limit";

    PreparedChange steer;
    steer.change.mutable_steer_migration()->set_action(v1::SteerMigration::CANCEL);
    EXPECT_EQ(requiredRole(steer, limits), Role::Operator);
    steer.change.mutable_steer_migration()->set_action(v1::SteerMigration::ABANDON);
    EXPECT_EQ(requiredRole(steer, limits), Role::Admin);

    PreparedChange admin;
    for (auto set :
        { +[](v1::AdminChange& c) { c.mutable_add_node(); }, +[](v1::AdminChange& c) { c.mutable_create_shard(); },
            +[](v1::AdminChange& c) { c.mutable_set_shard_state(); },
            +[](v1::AdminChange& c) { c.mutable_pin_space(); }, +[](v1::AdminChange& c) { c.mutable_reassign_space(); },
            +[](v1::AdminChange& c) { c.mutable_set_settings(); },
            +[](v1::AdminChange& c) { c.mutable_remove_node(); } }) {
        set(admin.change);
        EXPECT_EQ(requiredRole(admin, limits), Role::Admin) << changeKind(admin.change);
    }
}

TEST(AdminChanges, SnapshotsAreAnOperatorsToTakeAndVerifyAndAnAdminsToDelete)
{
    const OperatorLimits limits { 10, 1000 };
    PreparedChange snapshot;
    auto* change = snapshot.change.mutable_change_snapshot();
    change->set_action(v1::ChangeSnapshot::CREATE);
    EXPECT_EQ(requiredRole(snapshot, limits), Role::Operator);
    EXPECT_EQ(changeKind(snapshot.change), "create-snapshot");
    change->set_action(v1::ChangeSnapshot::VERIFY);
    change->set_snapshot("snap-20261207-153236-3d0a");
    EXPECT_EQ(requiredRole(snapshot, limits), Role::Operator);
    EXPECT_EQ(changeKind(snapshot.change), "verify-snapshot");
    change->set_action(v1::ChangeSnapshot::DELETE);
    EXPECT_EQ(requiredRole(snapshot, limits), Role::Admin);
    EXPECT_EQ(changeKind(snapshot.change), "delete-snapshot");
}

TEST(AdminChanges, ARestoreThatReplacesDocumentsIsAnAdminsAndAsksASecondAdminByThePolicy)
{
    const OperatorLimits limits { 10, 1000 };
    PreparedChange restore;
    restore.change.mutable_restore_space()->set_snapshot("snap-20261207-153236-3d0a");
    restore.size.spaces = 1;
    EXPECT_EQ(changeKind(restore.change), "restore-space");
    // Under a new id it adds a space beside the live one: an operator's, no approval.
    EXPECT_EQ(requiredRole(restore, limits), Role::Operator);
    ApprovalThresholds thresholds;
    EXPECT_EQ(approvalNeed(restore, thresholds), "");
    // Under its own id it replaces the space's documents.
    restore.size.replacesData = true;
    EXPECT_EQ(requiredRole(restore, limits), Role::Admin);
    EXPECT_EQ(approvalNeed(restore, thresholds), "it replaces live documents with a snapshot's");
    thresholds.restore = false;
    EXPECT_EQ(approvalNeed(restore, thresholds), "");
    // A lost shard brought back replaces nothing live, but places a shard: an admin's.
    PreparedChange shard;
    shard.change.mutable_restore_lost_shard()->set_shard("s1");
    EXPECT_EQ(changeKind(shard.change), "restore-shard");
    EXPECT_EQ(requiredRole(shard, limits), Role::Admin);
}

TEST(AdminChanges, AChangeMovesSpacesWhenItWasMeasuredToMoveSome)
{
    EXPECT_TRUE(movesSpaces(moves(3, 0)));
    EXPECT_TRUE(movesSpaces(moves(0, 512)));
    EXPECT_FALSE(movesSpaces(moves(0, 0))) << "a plan of no moves is not held to the limits on moves";
    PreparedChange steer;
    steer.change.mutable_steer_migration()->set_action(v1::SteerMigration::CANCEL);
    EXPECT_FALSE(movesSpaces(steer));
    // The reason given for the admin role names what the change moves only when it moves some.
    const OperatorLimits limits { 10, 1000 };
    EXPECT_NE(whyRole(moves(0, 1001), limits).find("an operator may move 1000 B"), std::string::npos);
    PreparedChange settings;
    settings.change.mutable_set_settings();
    EXPECT_EQ(whyRole(settings, limits), "set-settings needs the admin role");
}

TEST(AdminChanges, APlanThatDoesWhatOnlyAnAdminMayNeedsAnAdminWhateverItMoves)
{
    const OperatorLimits limits { 10, 1000 };
    PreparedChange plan = moves(0, 0);
    plan.size.adminEffects = { "it creates shard s9 on node n0 and moves no space into it; creating a shard needs "
                               "the admin role" };
    EXPECT_EQ(requiredRole(plan, limits), Role::Admin);
    EXPECT_EQ(whyRole(plan, limits), plan.size.adminEffects.front());
    plan.size.adminEffects.push_back("it sets shard s0 draining without moving a space off it");
    EXPECT_EQ(
        whyRole(plan, limits), plan.size.adminEffects[0] + "; it sets shard s0 draining without moving a space off it");
    PreparedChange operation = plan;
    operation.change.mutable_start_operation()->set_kind("drain");
    EXPECT_EQ(requiredRole(operation, limits), Role::Admin) << "an operation is judged by the plan it queues";
}

TEST(AdminChanges, BigMovesRetiringANodeAndRaisingLimitsNeedASecondPerson)
{
    ApprovalThresholds thresholds;
    thresholds.maxSpaces = 3;
    thresholds.maxBytes = 1 << 20;
    EXPECT_EQ(approvalNeed(moves(3, 1 << 20), thresholds), "");
    EXPECT_NE(approvalNeed(moves(4, 0), thresholds).find("moves 4 spaces; more than 3"), std::string::npos);
    EXPECT_NE(approvalNeed(moves(1, (1 << 20) + 1), thresholds).find("needs a second person"), std::string::npos);
    EXPECT_EQ(approvalNeed(moves(1, 0, true), thresholds), "it retires a node");
    PreparedChange settings;
    settings.change.mutable_set_settings();
    settings.size.raisedLimits = { "max_concurrent 4 -> 8" };
    EXPECT_EQ(approvalNeed(settings, thresholds), "it raises limits (max_concurrent 4 -> 8)");
    thresholds.raiseLimits = false;
    thresholds.retireNode = false;
    EXPECT_EQ(approvalNeed(settings, thresholds), "");
    EXPECT_EQ(approvalNeed(moves(1, 0, true), thresholds), "");
}

TEST(AdminChanges, RaisedLimitsNamesEachSettingThatGoesUpAndZeroIsNoLimit)
{
    const MigrationSettings before;
    EXPECT_TRUE(raisedLimits(before, before).empty());

    MigrationSettings lower = before;
    lower.maxConcurrent = 2;
    lower.backfillBatch = 100;
    lower.maxTargetFill = 0.5;
    lower.rollbackWindowSeconds = 60;
    EXPECT_TRUE(raisedLimits(before, lower).empty()) << "lowering a limit is no raise";

    MigrationSettings higher = before;
    higher.maxConcurrent = 8;
    higher.maxPerNode = 0;
    higher.defaultThrottleDocsPerSecond = 500; // from 0 (no limit) to a limit: lower
    higher.backfillBatch = 2000;
    higher.maxRepairs = 9;
    higher.maxTargetFill = 0.95;
    EXPECT_EQ(raisedLimits(before, higher),
        (std::vector<std::string> { "max_concurrent 4 -> 8", "max_per_node 2 -> unlimited",
            "backfill_batch 1000 -> 2000", "max_repairs 5 -> 9", "max_target_fill 0.90 -> 0.95" }));

    MigrationSettings throttled = before;
    throttled.defaultThrottleDocsPerSecond = 100;
    throttled.cleanupRowsPerSecond = 0;
    MigrationSettings unthrottled = throttled;
    unthrottled.defaultThrottleDocsPerSecond = 0;
    EXPECT_EQ(raisedLimits(throttled, unthrottled), (std::vector<std::string> { "default_throttle 100 -> unlimited" }));
    unthrottled.cleanupRowsPerSecond = 100;
    EXPECT_EQ(raisedLimits(throttled, unthrottled), (std::vector<std::string> { "default_throttle 100 -> unlimited" }))
        << "from no limit to a limit is no raise";
}

TEST(AccessPolicy, LoosenedAccessNamesEveryRaiseAndATighteningNone)
{
    auto before = AccessPolicy::parse(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "operator", "vera": "viewer"},
        "operator_limits": {"max_spaces": 100, "max_bytes": 1000},
        "approval": {"max_spaces": 10, "max_bytes": 100}})",
        "before");
    ASSERT_TRUE(before) << before.error().describe();
    const std::pair<const char*, std::vector<std::string>> cases[] = {
        { R"({"roles": {"alice": "admin", "bob": "operator", "vera": "viewer"},
              "operator_limits": {"max_spaces": 100, "max_bytes": 1000},
              "approval": {"max_spaces": 10, "max_bytes": 100}})",
            {} },
        // Tightening: fewer roles, lower limits and thresholds, a shorter expiry.
        { R"({"roles": {"alice": "admin", "bob": "viewer"},
              "operator_limits": {"max_spaces": 5, "max_bytes": 10},
              "approval": {"max_spaces": 1, "max_bytes": 1, "expire_hours": 1}})",
            {} },
        { R"({"roles": {"alice": "admin", "bob": "admin", "vera": "viewer", "mallory": "operator"},
              "operator_limits": {"max_spaces": 100, "max_bytes": 1000},
              "approval": {"max_spaces": 10, "max_bytes": 100}})",
            { "bob operator -> admin", "mallory none -> operator" } },
        { R"({"roles": {"alice": "admin", "bob": "operator"}, "default_role": "viewer",
              "operator_limits": {"max_spaces": 100, "max_bytes": 1000},
              "approval": {"max_spaces": 10, "max_bytes": 100}})",
            { "default_role none -> viewer" } },
        // Unlisting vera under a default of operator raises her.
        { R"({"roles": {"alice": "admin", "bob": "operator"}, "default_role": "operator",
              "operator_limits": {"max_spaces": 100, "max_bytes": 1000},
              "approval": {"max_spaces": 10, "max_bytes": 100}})",
            { "vera viewer -> operator", "default_role none -> operator" } },
        { R"({"roles": {"alice": "admin", "bob": "operator", "vera": "viewer"},
              "operator_limits": {"max_spaces": 101, "max_bytes": 0},
              "approval": {"max_spaces": 0, "max_bytes": 200, "retire_node": false, "raise_limits": false,
                           "restore": false}})",
            { "operator_limits.max_spaces 100 -> 101", "operator_limits.max_bytes 1000 -> 0 (off)",
                "approval.max_spaces 10 -> 0 (off)", "approval.max_bytes 100 -> 200", "approval.retire_node on -> off",
                "approval.raise_limits on -> off", "approval.restore on -> off" } },
    };
    for (const auto& [body, expected] : cases) {
        SCOPED_TRACE(body);
        const std::string text = std::string(R"({"version": 1, )") + (body + 1);
        auto after = AccessPolicy::parse(text, "after");
        ASSERT_TRUE(after) << after.error().describe();
        EXPECT_EQ(loosenedAccess(*before, *after), expected);
    }
    // A longer expiry keeps requests open longer: looser.
    AccessPolicy longer = *before;
    longer.approval.expireAfter = std::chrono::hours(48);
    EXPECT_EQ(loosenedAccess(*before, longer), (std::vector<std::string> { "approval.expire_hours 24 -> 48" }));
    // From a threshold that was off, nothing is looser.
    AccessPolicy off = *before;
    off.approval.maxSpaces = 0;
    AccessPolicy on = off;
    on.approval.maxSpaces = 1000;
    EXPECT_TRUE(loosenedAccess(off, on).empty());
}

TEST(AccessPolicy, TheChangesListEverythingThatDiffersLoosenedOrTightened)
{
    auto before = AccessPolicy::parse(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "operator", "dave": "admin", "vera": "viewer"},
        "operator_limits": {"max_spaces": 100, "max_bytes": 1000},
        "approval": {"max_spaces": 10, "max_bytes": 100}})",
        "before");
    auto after = AccessPolicy::parse(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "admin", "dave": "operator", "mallory": "viewer"},
        "default_role": "viewer",
        "operator_limits": {"max_spaces": 5, "max_bytes": 1000},
        "approval": {"max_spaces": 0, "max_bytes": 100, "retire_node": false, "expire_hours": 12}})",
        "after");
    ASSERT_TRUE(before && after);
    EXPECT_EQ(accessPolicyChanges(*before, *after),
        (std::vector<std::string> { "bob operator -> admin", "dave admin -> operator", "mallory none -> viewer",
            "default_role none -> viewer", "operator_limits.max_spaces 100 -> 5", "approval.max_spaces 10 -> 0 (off)",
            "approval.retire_node on -> off", "approval.expire_hours 24 -> 12" }))
        << "vera is a viewer either way (listed, then by default): unchanged";
    EXPECT_TRUE(accessPolicyChanges(*before, *before).empty());
    EXPECT_EQ(accessPolicyChanges(*after, *before).size(), 8u);
}

class ApprovalsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = SqliteStore::open(m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
    }
    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
};

TEST_F(ApprovalsTest, ASecondPersonDecidesAndEveryStepIsAudited)
{
    Approvals approvals(*m_store);
    PreparedChange drain = moves(14, 2 << 20);
    drain.summary = "drain s3: 14 spaces, 2.0 MiB";
    auto asked = approvals.request(drain, "it moves 14 spaces", { "bob", "quarterly cleanup" });
    ASSERT_TRUE(asked) << asked.error().describe();
    EXPECT_EQ(asked->state(), "pending");
    EXPECT_TRUE(asked->id().starts_with("ap-"));

    auto pending = approvals.list(true, std::chrono::hours(24));
    ASSERT_TRUE(pending);
    ASSERT_EQ(pending->size(), 1u);
    EXPECT_EQ(pending->front().summary(), drain.summary);
    EXPECT_TRUE(pending->front().change().has_apply_plan()) << "the change is kept as it was asked";

    // Who may decide.
    const AccessPolicy policy;
    EXPECT_EQ(mayDecide(*asked, "bob", Role::Admin, Role::Operator, policy).error().code, ErrorCode::PermissionDenied);
    EXPECT_NE(
        mayDecide(*asked, "bob", Role::Admin, Role::Operator, policy).error().message.find("a different operator"),
        std::string::npos);
    EXPECT_FALSE(mayDecide(*asked, "vera", Role::Viewer, Role::Operator, policy));
    EXPECT_FALSE(mayDecide(*asked, "olga", Role::Operator, Role::Admin, policy));
    EXPECT_TRUE(mayDecide(*asked, "olga", Role::Operator, Role::Operator, policy));
    EXPECT_TRUE(mayDecide(*asked, "carol", Role::Admin, Role::Admin, policy));

    auto approved = approvals.decide(asked->id(), true, { "carol", "looked at the plan" }, std::chrono::hours(24));
    ASSERT_TRUE(approved) << approved.error().describe();
    EXPECT_EQ(approved->state(), "applying");
    EXPECT_EQ(approved->decided_by(), "carol");
    EXPECT_TRUE(approved->applying_by().starts_with("carol#")) << approved->applying_by();
    auto finished = approvals.finish(*approved, true, "operation op-1 at revision 9");
    ASSERT_TRUE(finished);
    EXPECT_EQ(finished->state(), "applied");

    // Decided once: neither a second approval nor a refusal changes it.
    auto again = approvals.decide(asked->id(), true, { "olga", "" }, std::chrono::hours(24));
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(again.error().message.find("applied already"), std::string::npos) << again.error().message;
    EXPECT_FALSE(approvals.decide(asked->id(), false, { "olga", "" }, std::chrono::hours(24)));

    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    std::vector<std::pair<std::string, std::string>> steps;
    for (const AuditRecord& record : *history)
        steps.emplace_back(record.actor, record.action);
    EXPECT_EQ(steps,
        (std::vector<std::pair<std::string, std::string>> {
            { "bob", "request-approval" }, { "carol", "approve" }, { "carol", "approval-applied" } }));
}

TEST_F(ApprovalsTest, ARefusedOrExpiredRequestIsNeverMade)
{
    Approvals approvals(*m_store);
    auto first = approvals.request(moves(20, 0), "it moves 20 spaces", { "bob", "" });
    ASSERT_TRUE(first);
    auto refused = approvals.decide(first->id(), false, { "alice", "not during the sale" }, std::chrono::hours(24));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->state(), "refused");
    EXPECT_EQ(refused->decision_reason(), "not during the sale");
    // The refusal is audited: alice, "refuse", her reason, and the record as it now stands.
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), 2u);
    const AuditRecord& refusal = history->back();
    EXPECT_EQ(refusal.actor, "alice");
    EXPECT_EQ(refusal.action, "refuse");
    EXPECT_EQ(refusal.reason, first->id() + ": not during the sale");
    ASSERT_EQ(refusal.changes.size(), 1u);
    EXPECT_EQ(refusal.changes[0].key, "approvals/" + first->id());
    ASSERT_TRUE(refusal.changes[0].after);
    auto recorded = decodeApproval(*refusal.changes[0].after);
    ASSERT_TRUE(recorded);
    EXPECT_EQ(recorded->state(), "refused");
    EXPECT_EQ(recorded->decided_by(), "alice");
    auto late = approvals.decide(first->id(), true, { "carol", "" }, std::chrono::hours(24));
    ASSERT_FALSE(late);
    EXPECT_NE(late.error().message.find("refused already (by alice)"), std::string::npos) << late.error().message;

    auto second = approvals.request(moves(20, 0), "it moves 20 spaces", { "bob", "" });
    ASSERT_TRUE(second);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto expired = approvals.decide(second->id(), true, { "carol", "" }, std::chrono::hours(0));
    ASSERT_FALSE(expired);
    EXPECT_NE(expired.error().message.find("expired"), std::string::npos) << expired.error().message;
    auto listed = approvals.get(second->id(), std::chrono::hours(0));
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->state(), "expired");

    EXPECT_EQ(approvals.get("ap-nope", std::chrono::hours(1)).error().code, ErrorCode::NotFound);
    EXPECT_EQ(approvals.get("../migrations/x", std::chrono::hours(1)).error().code, ErrorCode::InvalidArgument);
}

TEST_F(ApprovalsTest, ASecondApprovalWhileTheFirstIsBeingMadeIsRefusedAndTakesOverOnlyAStaleClaim)
{
    Approvals approvals(*m_store);
    auto asked = approvals.request(moves(20, 0), "it moves 20 spaces", { "bob", "" });
    ASSERT_TRUE(asked);
    auto first = approvals.decide(asked->id(), true, { "carol", "" }, std::chrono::hours(24));
    ASSERT_TRUE(first) << first.error().describe();
    EXPECT_EQ(first->state(), "applying");

    // carol is making it: olga's approval (or carol's second click) does not make it again.
    auto second = approvals.decide(asked->id(), true, { "olga", "" }, std::chrono::hours(24));
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(second.error().message.find("is being made by carol"), std::string::npos) << second.error().message;
    EXPECT_FALSE(approvals.decide(asked->id(), false, { "olga", "" }, std::chrono::hours(24)))
        << "a change being made is not refused either";

    // A finish without the claim records nothing; carol's records her outcome.
    v1::ApprovalInfo forged = *first;
    forged.set_applying_by("olga#0000000000000000");
    auto wrongClaim = approvals.finish(forged, false, "node unreachable");
    ASSERT_FALSE(wrongClaim);
    EXPECT_EQ(wrongClaim.error().code, ErrorCode::FailedPrecondition);
    auto done = approvals.finish(*first, true, "operation op-1 at revision 9");
    ASSERT_TRUE(done) << done.error().describe();
    EXPECT_EQ(done->state(), "applied");
    // A second finish of the same claim (a retried call) does not overwrite "applied" with "failed".
    EXPECT_FALSE(approvals.finish(*first, false, "already queued"));
    auto stored = approvals.get(asked->id(), std::chrono::hours(24));
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->state(), "applied");
    EXPECT_EQ(stored->outcome(), "operation op-1 at revision 9");

    // A claim that never finished (shardmapd stopped while making it) is taken over once it is
    // older than the claim timeout; the first claimant's late outcome is then not recorded.
    Approvals impatient(*m_store, std::chrono::milliseconds(0));
    auto again = impatient.request(moves(20, 0), "it moves 20 spaces", { "bob", "" });
    ASSERT_TRUE(again);
    auto stalled = impatient.decide(again->id(), true, { "carol", "" }, std::chrono::hours(24));
    ASSERT_TRUE(stalled);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto takeover = impatient.decide(again->id(), true, { "olga", "" }, std::chrono::hours(24));
    ASSERT_TRUE(takeover) << takeover.error().describe();
    EXPECT_EQ(takeover->decided_by(), "olga");
    EXPECT_NE(takeover->applying_by(), stalled->applying_by());
    auto late = impatient.finish(*stalled, true, "operation op-2");
    ASSERT_FALSE(late);
    EXPECT_NE(late.error().message.find("no longer claimed by carol#"), std::string::npos) << late.error().message;
    auto made = impatient.finish(*takeover, true, "operation op-3");
    ASSERT_TRUE(made) << made.error().describe();
    EXPECT_EQ(made->outcome(), "operation op-3");
}

TEST_F(ApprovalsTest, OfApproversRacingOnTheStoreExactlyOneMakesTheChange)
{
    // Each approver has its own connection to the store, as shardmapd replicas do, and approves
    // again whenever someone else's write came first (a person clicking again after "look again").
    // Whoever gets to make the change finishes only after every approver has had its say: the
    // others all try while the change is still being made.
    constexpr int kRounds = 10;
    constexpr int kApprovers = 3;
    std::vector<std::unique_ptr<MetadataStore>> stores;
    for (int i = 0; i < kApprovers; ++i) {
        auto store = SqliteStore::open(m_dir.file("map.db"), false);
        ASSERT_TRUE(store) << store.error().describe();
        stores.push_back(std::move(*store));
    }
    Approvals requests(*m_store);
    for (int round = 0; round < kRounds; ++round) {
        auto asked = requests.request(moves(20, 0), "it moves 20 spaces", { "bob", "" });
        ASSERT_TRUE(asked);
        std::latch start(kApprovers);
        std::latch tried(kApprovers);
        std::vector<std::thread> approvers;
        for (int i = 0; i < kApprovers; ++i) {
            approvers.emplace_back([&, i] {
                Approvals approvals(*stores[static_cast<std::size_t>(i)]);
                const Actor approver { "approver-" + std::to_string(i), "" };
                start.arrive_and_wait();
                Result<v1::ApprovalInfo> claimed = makeError(ErrorCode::Conflict, "not tried");
                for (int attempt = 0; attempt < 100 && !claimed && claimed.error().code == ErrorCode::Conflict;
                     ++attempt)
                    claimed = approvals.decide(asked->id(), true, approver, std::chrono::hours(24));
                tried.count_down();
                if (!claimed)
                    return;
                // Making the change: a commit of its own, as applyChange's are.
                CommitRequest change;
                change.mutations.push_back(
                    { "made/" + asked->id() + "/" + approver.name, approver.name, std::nullopt });
                change.actor = approver.name;
                change.action = "test-made";
                EXPECT_TRUE(stores[static_cast<std::size_t>(i)]->commit(change));
                tried.wait();
                auto finished = approvals.finish(*claimed, true, "made by " + approver.name);
                EXPECT_TRUE(finished || finished.error().code == ErrorCode::Conflict);
            });
        }
        for (std::thread& approver : approvers)
            approver.join();
        auto made = m_store->list("made/" + asked->id() + "/");
        ASSERT_TRUE(made);
        EXPECT_EQ(made->records.size(), 1u) << "round " << round << ": the change was made more than once";
        auto decided = requests.get(asked->id(), std::chrono::hours(24));
        ASSERT_TRUE(decided);
        EXPECT_EQ(decided->state(), "applied");
        ASSERT_EQ(made->records.size(), 1u);
        EXPECT_EQ(decided->outcome(), "made by " + made->records.begin()->second.value);
    }
}

} // namespace
} // namespace shardmap::core

namespace shardmap::core {
namespace {

TEST_F(ApprovalsTest, ThePolicyInTheStoreIsReadAgainWhenItChangesAndABadOneIsRefused)
{
    AuditChainMonitor audit(*m_store, { std::string(kAccessPolicyKey) });
    auto missing = loadStoredAccessPolicy(*m_store, audit, std::chrono::milliseconds(0));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
    EXPECT_NE(missing.error().message.find("shardmapctl access set FILE"), std::string::npos);

    ASSERT_TRUE(storeAccessPolicy(*m_store, R"({"version": 1, "roles": {"vera": "viewer"}})", { "alice", "" }));
    auto source = loadStoredAccessPolicy(*m_store, audit, std::chrono::milliseconds(0));
    ASSERT_TRUE(source) << source.error().describe();
    EXPECT_EQ((*source)->current()->roleOf("vera"), Role::Viewer);

    ASSERT_TRUE(storeAccessPolicy(*m_store, R"({"version": 1, "roles": {"vera": "operator"}})", { "alice", "" }));
    EXPECT_EQ((*source)->current()->roleOf("vera"), Role::Operator);

    // A policy that does not parse never reaches the store.
    auto bad = storeAccessPolicy(*m_store, R"({"version": 1, "roles": {"vera": "boss"}})", { "alice", "" });
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("unknown role 'boss'"), std::string::npos);
    EXPECT_EQ((*source)->current()->roleOf("vera"), Role::Operator);

    // One written around the check (an old shardmapctl, a hand edit) keeps the last good one.
    ASSERT_TRUE(m_store->commit({ { { std::string(kAccessPolicyKey), "{\"version\": 1, \"roles\": 7}", std::nullopt } },
        std::nullopt, std::nullopt, "mallory", "hand-edit", "" }));
    EXPECT_EQ((*source)->current()->roleOf("vera"), Role::Operator);
    EXPECT_NE((*source)->lastError().find("roles must map"), std::string::npos) << (*source)->lastError();

    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(history->front().action, "set-access-policy");
    EXPECT_EQ(history->front().actor, "alice");
}

TEST_F(ApprovalsTest, APolicyChangeThatLoosensAccessNeedsASecondAdminAndATighteningDoesNot)
{
    NodeClientPool pool;
    FleetAdmin admin(*m_store, pool);
    const ApprovalThresholds noThresholds { 0, 0, false, false, std::chrono::hours(24) };
    auto prepare = [&](const std::string& json) {
        v1::AdminChange change;
        change.mutable_set_access_policy()->set_policy_json(json);
        auto prepared = prepareChange(admin, change);
        EXPECT_TRUE(prepared) << prepared.error().describe();
        return prepared ? *prepared : PreparedChange {};
    };

    // With no policy in the store, it is compared with one that gives no one a role.
    auto first = prepare(R"({"version": 1, "roles": {"alice": "admin", "carol": "admin"}})");
    EXPECT_EQ(requiredRole(first, OperatorLimits {}), Role::Admin);
    EXPECT_EQ(
        approvalNeed(first, noThresholds), "it loosens the access policy (alice none -> admin, carol none -> admin)")
        << "even where the policy's thresholds ask for nothing";
    EXPECT_NE(first.summary.find("alice none -> admin"), std::string::npos) << first.summary;

    ASSERT_TRUE(storeAccessPolicy(*m_store,
        R"({"version": 1, "roles": {"alice": "admin", "bob": "operator", "carol": "admin", "vera": "viewer"}})",
        { "alice", "" }));
    const ApprovalThresholds thresholds;
    EXPECT_EQ(approvalNeed(prepare(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "admin", "carol": "admin", "vera": "viewer"}})"),
                  thresholds),
        "it loosens the access policy (bob operator -> admin)");
    EXPECT_NE(approvalNeed(prepare(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "operator", "carol": "admin", "vera": "viewer"},
        "approval": {"retire_node": false}})"),
                  thresholds)
                  .find("approval.retire_node on -> off"),
        std::string::npos);
    EXPECT_NE(approvalNeed(prepare(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "operator", "carol": "admin", "vera": "viewer"},
        "approval": {"max_spaces": 0}})"),
                  thresholds)
                  .find("approval.max_spaces 10 -> 0 (off)"),
        std::string::npos);
    EXPECT_NE(approvalNeed(prepare(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "operator", "carol": "admin", "vera": "viewer"},
        "operator_limits": {"max_spaces": 1000}})"),
                  thresholds)
                  .find("operator_limits.max_spaces 100 -> 1000"),
        std::string::npos);
    // Demoting bob and lowering the thresholds applies directly.
    auto tightening = prepare(R"({"version": 1,
        "roles": {"alice": "admin", "bob": "viewer", "carol": "admin"},
        "approval": {"max_spaces": 2}})");
    EXPECT_TRUE(tightening.size.loosenedAccess.empty());
    EXPECT_EQ(approvalNeed(tightening, thresholds), "");
}

TEST_F(ApprovalsTest, APolicyChangeIsMadeOnlyOnThePolicyItWasAskedOn)
{
    NodeClientPool pool;
    FleetAdmin admin(*m_store, pool);
    auto stored = storeAccessPolicy(
        *m_store, R"({"version": 1, "roles": {"alice": "admin", "dave": "admin"}})", { "alice", "" });
    ASSERT_TRUE(stored);
    v1::AdminChange raise;
    raise.mutable_set_access_policy()->set_policy_json(
        R"({"version": 1, "roles": {"alice": "admin", "dave": "admin", "bob": "operator"}})");
    auto asked = prepareChange(admin, raise);
    ASSERT_TRUE(asked) << asked.error().describe();
    ASSERT_TRUE(asked->change.set_access_policy().has_policy_revision());
    EXPECT_EQ(asked->change.set_access_policy().policy_revision(), *stored);
    EXPECT_EQ(asked->size.policyChanges, (std::vector<std::string> { "bob none -> operator" }));

    // dave is demoted meanwhile: the old request neither prepares nor applies any more.
    ASSERT_TRUE(storeAccessPolicy(
        *m_store, R"({"version": 1, "roles": {"alice": "admin", "dave": "operator"}})", { "alice", "" }));
    auto again = prepareChange(admin, asked->change);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(again.error().message.find("asked against the policy at revision " + std::to_string(*stored)),
        std::string::npos)
        << again.error().message;
    auto made = applyChange(admin, asked->change, { "alice", "" });
    ASSERT_FALSE(made);
    EXPECT_EQ(made.error().code, ErrorCode::FailedPrecondition);
    auto current = currentStoredAccessPolicy(*m_store);
    ASSERT_TRUE(current);
    EXPECT_EQ(current->roleOf("dave"), Role::Operator) << "the demotion stands";
    EXPECT_EQ(current->roleOf("bob"), Role::None);
}

} // namespace
} // namespace shardmap::core

// What shardmapd's Admin API accepts from a caller and what a change does, end to end (issue 25):
// a real shardmapd with mutual TLS, real nodes, a real SQLite store, real certificates. A plan
// nested 100,000 levels deep is refused and shardmapd keeps serving; a plan needs the role of
// everything it does, whatever it is called; a policy change is made only against the policy it
// was asked on, and its approver sees all of it; numbers that could overflow are refused.
#include "admin_fixture.h"
#include "core/auth/access_policy.h"
#include "core/client/admin_client.h"
#include "core/plan/plan.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

// The roles besides alice's and carol's as the test starts.
constexpr const char* kRoles = R"("bob": "operator", "dave": "admin", "vera": "viewer")";

class AdminInputTest : public AdminFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(makeTestCertificates(m_dir.path()));
        for (const char* name : { "alice", "carol", "bob", "dave", "vera" })
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        startCtlFleet(m_dir, storeUri(), m_nodes);
        for (const auto& [space, shard] : { std::pair { "acme", "s0" }, std::pair { "globex", "s0" } }) {
            ASSERT_EQ(
                runCtl(m_dir, storeUri(), { "write", "--space", space, "--id", "d1", "--field", "title=x" }).code, 0);
            if (map().spaces.at(space).value.shard != shard) {
                ASSERT_EQ(runCtl(m_dir, storeUri(), { "space", "reassign", space, shard }).code, 0);
            }
        }
        // The policy lives in the store, as replicas that share one read it; an operator may
        // move 10 spaces and nothing waits for approval by its size.
        std::ofstream(m_dir.file("access.json")) << policyOf(kRoles);
        ASSERT_EQ(runCtl(m_dir, storeUri(), { "access", "set", m_dir.file("access.json") }).code, 0);
        m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"),
            { "--store", storeUri(), "--id", "c1", "--no-executor", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
                m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy", "store" });
        ASSERT_TRUE(m_controller);
    }

    // alice and carol admins plus `roles`; an operator moves at most 10 spaces; `approval` as given.
    static std::string policyOf(const std::string& roles, const std::string& approval = R"("max_spaces": 100)")
    {
        return R"({"version": 1, "roles": {"alice": "admin", "carol": "admin", )" + roles
            + R"(}, "operator_limits": {"max_spaces": 10}, "approval": {)" + approval + "}}";
    }

    std::unique_ptr<core::AdminClient> client(const std::string& who)
    {
        return adminClient(who, std::chrono::seconds(30));
    }

    core::Result<v1::ChangeResponse> applyPlan(const std::string& who, const std::string& planJson)
    {
        v1::AdminChange change;
        change.mutable_apply_plan()->set_plan_json(planJson);
        return client(who)->change(change, "test");
    }

    core::Result<v1::ChangeResponse> setPolicy(const std::string& who, const std::string& policyJson)
    {
        v1::AdminChange change;
        change.mutable_set_access_policy()->set_policy_json(policyJson);
        return client(who)->change(change, "test");
    }

    // shardmapd is still running and answers a normal call.
    void expectServing()
    {
        EXPECT_FALSE(m_controller->process().wait(std::chrono::milliseconds(0))) << m_controller->stderrText();
        auto who = client("vera")->whoAmI();
        ASSERT_TRUE(who) << who.error().describe();
        EXPECT_EQ(who->identity(), "vera");
        auto read = client("vera")->readMap("shards/");
        ASSERT_TRUE(read) << read.error().describe();
        EXPECT_EQ(read->records.size(), 2u);
    }

    // The shards node n0 holds.
    std::vector<std::string> shardsOnNode0()
    {
        v1::ListShardsResponse response;
        auto context = contextWithDeadline();
        EXPECT_TRUE(m_nodes[0]->stub().ListShards(context.get(), {}, &response).ok());
        std::vector<std::string> ids;
        for (const auto& shard : response.shards())
            ids.push_back(shard.shard_id());
        return ids;
    }

    core::AccessPolicy storedPolicy()
    {
        auto store = core::openStore(storeUri(), false);
        EXPECT_TRUE(store);
        auto records = (*store)->list("access/policy");
        EXPECT_TRUE(records);
        auto parsed = core::AccessPolicy::parse(records->records.at("access/policy").value, "test");
        EXPECT_TRUE(parsed);
        return *parsed;
    }
};

TEST_F(AdminInputTest, APlanNested100000LevelsDeepIsRefusedAndShardmapdKeepsServing)
{
    const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
    const std::string plan = R"({"version": 1, "baseRevision": )" + std::to_string(map().revision)
        + R"(, "kind": "move", "moves": [], "newShards": [)" + deep + "]}";
    ASSERT_GT(plan.size(), 200'000u);
    const auto before = map().revision;

    auto refused = applyPlan("alice", plan);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument) << refused.error().describe();
    EXPECT_NE(
        refused.error().message.find("the plan nests arrays and objects more than 64 levels deep"), std::string::npos)
        << refused.error().message;
    EXPECT_EQ(map().revision, before);

    // The same depth in a policy and in the executor's settings.
    auto policy = setPolicy("alice", R"({"version": 1, "roles": )" + deep + "}");
    ASSERT_FALSE(policy);
    EXPECT_EQ(policy.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_NE(policy.error().message.find("more than 64 levels deep"), std::string::npos) << policy.error().message;
    v1::AdminChange settings;
    settings.mutable_set_settings()->set_settings_json(R"({"max_concurrent": )" + deep + "}");
    auto refusedSettings = client("alice")->change(settings, "");
    ASSERT_FALSE(refusedSettings);
    EXPECT_EQ(refusedSettings.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_EQ(map().revision, before);

    expectServing();
}

TEST_F(AdminInputTest, APlanNeedsTheRoleOfEverythingItDoesWhateverItIsCalled)
{
    const std::string base = std::to_string(map().revision);
    // Only newShards and no moves: CreateShard by another name.
    const std::string create = R"({"version": 1, "baseRevision": )" + base
        + R"(, "kind": "move", "moves": [], "newShards": [{"id": "s9", "node": "n0", "state": "active",
              "capacity_docs": 0, "capacity_bytes": 0}]})";
    // A drain that moves nothing and leaves every space of s0 where it is: SetShardState draining.
    const std::string drain = R"({"version": 1, "baseRevision": )" + base
        + R"(, "kind": "drain", "subject": "s0", "moves": [], "remaining": ["acme", "globex"]})";
    const auto before = map().revision;

    auto created = applyPlan("bob", create);
    ASSERT_FALSE(created);
    EXPECT_EQ(created.error().code, core::ErrorCode::PermissionDenied);
    EXPECT_EQ(created.error().message,
        "bob is an operator; it creates shard s9 on node n0 and moves no space into it; creating a shard needs the "
        "admin role");
    auto drained = applyPlan("bob", drain);
    ASSERT_FALSE(drained);
    EXPECT_EQ(drained.error().code, core::ErrorCode::PermissionDenied);
    EXPECT_EQ(drained.error().message,
        "bob is an operator; it sets shard s0 draining without moving a space off it; setting a shard's state needs "
        "the admin role");

    // Nothing was created or changed, on the node or in the map.
    EXPECT_EQ(map().revision, before);
    EXPECT_EQ(map().shards.count("s9"), 0u);
    EXPECT_EQ(map().shards.at("s0").value.state, core::ShardState::Active);
    const auto onNode = shardsOnNode0();
    EXPECT_EQ(std::count(onNode.begin(), onNode.end(), "s9"), 0) << "the shard was not created on its node";
    expectServing();

    // An operator's own operations still run: a split fills the shard it creates.
    auto split = as("bob", { "split", "s0", "--new-shard", "s8" });
    EXPECT_EQ(split.code, 0) << split.err << split.out;

    // The admin may do both.
    auto adminCreated = applyPlan("alice", create);
    ASSERT_TRUE(adminCreated) << adminCreated.error().describe();
    EXPECT_EQ(map().shards.count("s9"), 1u);
    const auto nowOnNode = shardsOnNode0();
    EXPECT_EQ(std::count(nowOnNode.begin(), nowOnNode.end(), "s9"), 1);
    auto adminDrained = applyPlan("alice",
        R"({"version": 1, "baseRevision": )" + std::to_string(map().revision)
            + R"(, "kind": "drain", "subject": "s1", "moves": [], "remaining": []})");
    ASSERT_TRUE(adminDrained) << adminDrained.error().describe();
    EXPECT_EQ(map().shards.at("s1").value.state, core::ShardState::Draining);
}

TEST_F(AdminInputTest, APlanThatPinsASpaceBeyondWhatAnIsolateMayNeedsAnAdmin)
{
    // An isolate into a shard that exists: PinSpace of acme to s1 by another name.
    core::Plan existing;
    existing.baseRevision = map().revision;
    existing.kind = "isolate";
    existing.subject = "acme";
    existing.into = "s1";
    existing.addMove({ "acme", "s0", "s1" });
    // One that creates its shard but pins a space it moves elsewhere.
    core::Plan elsewhere = existing;
    elsewhere.into = "s9";
    elsewhere.newShards.push_back({ "s9", "n0", core::ShardState::Active, 0, 0 });
    elsewhere.moves.clear();
    elsewhere.addMove({ "acme", "s0", "s9" });
    elsewhere.addMove({ "globex", "s0", "s1" });
    const auto before = map().revision;

    auto intoExisting = applyPlan("bob", existing.encode());
    ASSERT_FALSE(intoExisting);
    EXPECT_EQ(intoExisting.error().code, core::ErrorCode::PermissionDenied);
    EXPECT_EQ(intoExisting.error().message,
        "bob is an operator; it pins space acme to shard s1, a shard it does not create; pinning a space needs the "
        "admin role");
    auto pinnedElsewhere = applyPlan("bob", elsewhere.encode());
    ASSERT_FALSE(pinnedElsewhere);
    EXPECT_EQ(pinnedElsewhere.error().code, core::ErrorCode::PermissionDenied);
    EXPECT_EQ(pinnedElsewhere.error().message,
        "bob is an operator; it pins space globex to shard s9 while moving it to s1; pinning a space needs the admin "
        "role");
    EXPECT_EQ(map().revision, before) << "a refused plan commits nothing";
    EXPECT_EQ(map().spaces.at("acme").value.pin, "");
    EXPECT_EQ(map().spaces.at("acme").value.migrationId, "");
    expectServing();

    // The admin may.
    auto byAdmin = applyPlan("alice", existing.encode());
    ASSERT_TRUE(byAdmin) << byAdmin.error().describe();
    EXPECT_NE(map().spaces.at("acme").value.migrationId, "");
}

TEST_F(AdminInputTest, ApprovingAPolicyChangeAfterThePolicyMovedOnIsRefusedAndTheApproverSeesTheWholeDiff)
{
    // alice asks to make vera an operator; the same request drops bob to a viewer and keeps
    // requests open longer. Raising a role waits for a second admin.
    auto asked = setPolicy("alice",
        policyOf(
            R"("bob": "viewer", "dave": "admin", "vera": "operator")", R"("max_spaces": 100, "expire_hours": 48)"));
    ASSERT_TRUE(asked) << asked.error().describe();
    ASSERT_TRUE(asked->has_awaiting_approval());
    const v1::ApprovalInfo& request = asked->awaiting_approval();
    EXPECT_EQ(request.needs_approval_because(),
        "it loosens the access policy (vera viewer -> operator, approval.expire_hours 24 -> 48)");
    EXPECT_EQ(std::vector<std::string>(request.changes().begin(), request.changes().end()),
        (std::vector<std::string> {
            "bob operator -> viewer", "vera viewer -> operator", "approval.expire_hours 24 -> 48" }));

    // Then alice demotes dave: a tightening, made at once.
    auto demoted = setPolicy("alice", policyOf(R"("bob": "operator", "dave": "operator", "vera": "viewer")"));
    ASSERT_TRUE(demoted) << demoted.error().describe();
    ASSERT_FALSE(demoted->has_awaiting_approval());
    ASSERT_EQ(storedPolicy().roleOf("dave"), core::Role::Operator);

    // The approver sees everything the old request would set, through shardmapctl too.
    auto listed = as("carol", { "approvals", "list", "--pending" });
    ASSERT_EQ(listed.code, 0) << listed.err;
    for (const char* line : { "  changes:\n", "    bob operator -> viewer\n", "    vera viewer -> operator\n",
             "    approval.expire_hours 24 -> 48\n" })
        EXPECT_NE(listed.out.find(line), std::string::npos) << listed.out;

    // Approving it now would promote dave back: refused, and nothing changes.
    const auto before = map().revision;
    auto approved = client("carol")->approve(request.id(), "looks fine");
    ASSERT_FALSE(approved);
    EXPECT_EQ(approved.error().code, core::ErrorCode::FailedPrecondition) << approved.error().describe();
    EXPECT_NE(approved.error().message.find("the access policy changed since this change was asked"), std::string::npos)
        << approved.error().message;
    EXPECT_NE(approved.error().message.find("ask again against the current policy"), std::string::npos);
    EXPECT_EQ(map().revision, before);
    EXPECT_EQ(storedPolicy().roleOf("dave"), core::Role::Operator);
    EXPECT_EQ(storedPolicy().roleOf("vera"), core::Role::Viewer);
    auto cli = as("carol", { "approvals", "approve", request.id() });
    EXPECT_NE(cli.code, 0);
    EXPECT_NE(cli.err.find("ask again"), std::string::npos) << cli.err;

    // Asked again against the current policy, it is approved and keeps dave demoted.
    auto again = setPolicy("alice", policyOf(R"("bob": "operator", "dave": "operator", "vera": "operator")"));
    ASSERT_TRUE(again) << again.error().describe();
    ASSERT_TRUE(again->has_awaiting_approval());
    EXPECT_EQ(std::vector<std::string>(
                  again->awaiting_approval().changes().begin(), again->awaiting_approval().changes().end()),
        (std::vector<std::string> { "vera viewer -> operator" }));
    auto made = client("carol")->approve(again->awaiting_approval().id(), "");
    ASSERT_TRUE(made) << made.error().describe();
    EXPECT_EQ(storedPolicy().roleOf("vera"), core::Role::Operator);
    EXPECT_EQ(storedPolicy().roleOf("dave"), core::Role::Operator);
    expectServing();
}

TEST_F(AdminInputTest, NumbersThatCouldOverflowAreRefusedNamingTheKey)
{
    const auto before = map().revision;
    const std::pair<std::string, std::string> policies[] = {
        { R"("expire_hours": 5000000000000000)", "approval.expire_hours must be a whole number from 1 to 8760" },
        { R"("expire_hours": 8761)", "approval.expire_hours must be a whole number from 1 to 8760" },
        { R"("expire_hours": 0)", "approval.expire_hours must be a whole number from 1 to 8760" },
        { R"("max_bytes": 18446744073709551615)", "approval.max_bytes must be a whole number from 0 to" },
    };
    for (const auto& [approval, says] : policies) {
        SCOPED_TRACE(approval);
        auto refused = setPolicy("alice", policyOf(kRoles, approval));
        ASSERT_FALSE(refused);
        EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument);
        EXPECT_NE(refused.error().message.find(says), std::string::npos) << refused.error().message;
    }
    const std::pair<std::string, std::string> settings[] = {
        { R"({"max_concurrent": 4294967296})", "max_concurrent must be a whole number from 0 to 10000" },
        { R"({"rollback_window_seconds": 18446744073709551615})", "rollback_window_seconds must be" },
        { R"({"cutover_timeout_ms": -1})", "cutover_timeout_ms must be" },
        { R"({"start_retry_seconds": 1e300})", "start_retry_seconds must be" },
        { R"({"max_target_fill": -0.5})", "max_target_fill must be above 0 and at most 1" },
    };
    for (const auto& [json, says] : settings) {
        SCOPED_TRACE(json);
        v1::AdminChange change;
        change.mutable_set_settings()->set_settings_json(json);
        auto refused = client("alice")->change(change, "");
        ASSERT_FALSE(refused);
        EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument);
        EXPECT_NE(refused.error().message.find(says), std::string::npos) << refused.error().message;
    }
    EXPECT_EQ(map().revision, before);
    expectServing();

    // A year is the longest a request may wait; lowering is made at once.
    auto year = setPolicy("alice", policyOf(kRoles, R"("max_spaces": 100, "expire_hours": 12)"));
    ASSERT_TRUE(year) << year.error().describe();
    EXPECT_FALSE(year->has_awaiting_approval());
}

} // namespace

// Every role's allowed and refused calls through shardmapd's Admin API, end to end (issue 17):
// a real shardmapd with mutual TLS and a role file, real nodes, the real shardmapctl with each
// person's certificate. One table, run in order: what an operator may do, what a viewer and an
// operator may not (exit 7, a sentence saying why, nothing committed), what an admin may do, and
// what waits for a second person (retiring a node, raising a setting, moving many bytes).
#include "admin_fixture.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

class AdminRolesTest : public AdminFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(makeTestCertificates(m_dir.path()));
        for (const char* name : { "alice", "carol", "bob", "olga", "vera" })
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        // An operator moves at most 2 spaces at once; no move needs approval by its size, retiring
        // a node and raising a setting do. Each request is judged on its own (window 0): the
        // table is about roles; counting over a window is admin_quotas_test's.
        writePolicy("access.json", R"({"version": 1,
            "roles": {"alice": "admin", "carol": "admin", "bob": "operator", "olga": "operator", "vera": "viewer"},
            "operator_limits": {"max_spaces": 2, "window_minutes": 0},
            "approval": {"max_spaces": 100, "max_bytes": 0}})");
        startCtlFleet(m_dir, storeUri(), m_nodes);
        // A third node with a shard of its own (to retire), and an empty shard s3 on n0.
        m_nodes.push_back(NodeProcess::start(m_dir.file("node2")));
        ASSERT_TRUE(m_nodes.back());
        ASSERT_EQ(runCtl(m_dir, storeUri(), { "node", "add", "n2", m_nodes.back()->address() }).code, 0);
        ASSERT_EQ(runCtl(m_dir, storeUri(), { "shard", "create", "s2", "--node", "n2" }).code, 0);
        ASSERT_EQ(runCtl(m_dir, storeUri(), { "shard", "create", "s3", "--node", "n0" }).code, 0);
        // acme, globex and initech on s0, hooli on s1, umbrella on s2.
        const std::pair<const char*, const char*> placed[]
            = { { "acme", "s0" }, { "globex", "s0" }, { "initech", "s0" }, { "hooli", "s1" }, { "umbrella", "s2" } };
        for (const auto& [space, shard] : placed) {
            ASSERT_EQ(
                runCtl(m_dir, storeUri(), { "write", "--space", space, "--id", "d1", "--field", "title=x" }).code, 0);
            if (map().spaces.at(space).value.shard != shard) {
                ASSERT_EQ(runCtl(m_dir, storeUri(), { "space", "reassign", space, shard }).code, 0);
            }
        }
        // Without an executor, what the calls queue stays as they left it.
        m_controller = startController("c1", "access.json");
        ASSERT_TRUE(m_controller);
    }

    void writePolicy(const std::string& name, const std::string& json) { std::ofstream(m_dir.file(name)) << json; }

    std::unique_ptr<ControllerProcess> startController(const std::string& id, const std::string& policy)
    {
        return ControllerProcess::start(m_dir.file("shardmapd-" + id + ".stderr"),
            { "--store", storeUri(), "--id", id, "--no-executor", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
                m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy", m_dir.file(policy) });
    }

    // Puts a queued migration where a rollback is possible: past cutover, in cleanup, the space
    // on the target and the source still receiving its writes (as the executor leaves it).
    void putInCleanup(const std::string& migrationId)
    {
        const core::MapSnapshot snapshot = map();
        const auto& migration = snapshot.migrations.at(migrationId);
        core::MigrationRecord record = migration.value;
        record.phase = core::MigrationPhase::Cleanup;
        const auto& space = snapshot.spaces.at(record.space);
        core::SpaceRecord moved = space.value;
        moved.shard = record.target;
        moved.target = record.source;
        moved.migrationId = record.id;
        moved.phase = core::MigrationPhase::Cleanup;
        auto store = core::openStore(storeUri(), false);
        ASSERT_TRUE(store);
        ASSERT_TRUE((*store)->commit({ { { core::keys::migration(record.id), encode(record), migration.modRevision },
                                           { core::keys::space(record.space), encode(moved), space.modRevision } },
            std::nullopt, std::nullopt, "tester", "test-fixture", "in cleanup" }));
    }
};

// One call of the table: who runs which shardmapctl command ("{name}" replaced by an id an
// earlier row captured), the exit code, a sentence it must say (stderr when refused, stdout
// otherwise) and, for a change that was made, the audit action recorded under the caller's name.
struct Call {
    std::string who;
    std::vector<std::string> args;
    int code = 0;
    std::string says;
    std::string action;
    // Keeps the id of what it made (the migration, or the approval it awaits) under this name.
    std::string capture;
};

TEST_F(AdminRolesTest, EachRoleMayMakeWhatItsRoleAllowsAndIsRefusedTheRestWithNothingCommitted)
{
    std::ofstream(m_dir.file("plan.json"))
        << runCtl(m_dir, storeUri(), { "--json", "plan", "drain", "s2" }).parsed()["plan"].dump();
    constexpr int kRefused = 7;
    constexpr int kAwaiting = 10;
    const std::string viewer = "vera is a viewer; changing the fleet needs the operator role";
    const std::vector<Call> calls = {
        // An operator: nothing beyond the operator's limits, and nothing only an admin may make.
        { "bob", { "drain", "s0" }, kRefused,
            "bob is an operator; it moves 3 spaces; an operator may move 2 at once, more needs the admin role", "",
            "" },
        { "bob", { "node", "add", "n9", "127.0.0.1:1" }, kRefused, "bob is an operator; add-node needs the admin role",
            "", "" },
        { "bob", { "node", "remove", "n2" }, kRefused, "bob is an operator; remove-node needs the admin role", "", "" },
        { "bob", { "shard", "set-state", "s3", "readonly" }, kRefused,
            "bob is an operator; set-shard-state needs the admin role", "", "" },
        { "bob", { "migrations", "settings", "--max-concurrent", "2" }, kRefused,
            "bob is an operator; set-settings needs the admin role", "", "" },
        { "bob", { "space", "pin", "initech", "s0" }, kRefused, "bob is an operator; pin-space needs the admin role",
            "", "" },
        { "bob", { "space", "reassign", "initech", "s3" }, kRefused,
            "bob is an operator; reassign-space needs the admin role", "", "" },

        // An operator queues and steers migrations and runs a plan within the limits.
        { "bob", { "migrate", "acme", "--to", "s1" }, 0, "migration m-", "migrate", "M1" },
        { "bob", { "migrations", "pause", "{M1}" }, 0, "migration {M1}", "pause-migration", "" },
        { "bob", { "migrations", "throttle", "{M1}", "50" }, 0, "migration {M1}", "throttle-migration", "" },
        { "bob", { "migrations", "resume", "{M1}" }, 0, "migration {M1}", "resume-migration", "" },
        { "bob", { "migrations", "cancel", "{M1}" }, 0, "migration {M1}", "cancel-migration", "" },
        { "bob", { "migrate", "globex", "--to", "s3" }, 0, "migration m-", "migrate", "M2" },
        { "bob", { "plan", "merge", "s1", "--into", "s0", "--apply" }, 0, "operation op-", "merge", "" },
        // (M2 is put in cleanup here, so that it can be rolled back.)
        { "bob", { "migrations", "rollback", "{M2}" }, 0, "migration {M2}", "rollback-migration", "" },
        { "bob", { "migrations", "abandon", "{M2}", "--yes" }, kRefused,
            "bob is an operator; abandon-migration needs the admin role", "", "" },

        // A viewer reads and changes nothing.
        { "vera", { "migrations", "resume", "{M2}" }, kRefused, viewer, "", "" },
        { "vera", { "migrations", "cancel", "{M2}" }, kRefused, viewer, "", "" },
        { "vera", { "migrations", "rollback", "{M2}" }, kRefused, viewer, "", "" },
        { "vera", { "migrations", "abandon", "{M2}", "--yes" }, kRefused, viewer, "", "" },
        { "vera", { "plan", "apply", m_dir.file("plan.json") }, kRefused, viewer, "", "" },
        { "vera", { "plan", "drain", "s2", "--apply" }, kRefused, viewer, "", "" },

        // An admin changes nodes, shards, settings and spaces, and abandons migrations.
        { "alice", { "node", "add", "n9", "127.0.0.1:1" }, 0, "node n9", "add-node", "" },
        { "alice", { "node", "remove", "n9" }, 0, "node", "remove-node", "" },
        { "alice", { "shard", "set-state", "s3", "readonly" }, 0, "shard", "set-shard-state readonly", "" },
        { "alice", { "shard", "set-state", "s3", "active" }, 0, "shard", "set-shard-state active", "" },
        { "alice", { "migrations", "settings", "--max-concurrent", "2" }, 0, "", "set-migration-settings", "" },
        { "alice", { "space", "reassign", "initech", "s3" }, 0, "space", "reassign-space", "" },
        { "alice", { "space", "pin", "initech", "s3" }, 0, "space", "pin-space", "" },
        { "alice", { "migrations", "abandon", "{M2}", "--yes" }, 0, "migration {M2}", "abandon-migration", "" },

        // Retiring a node waits for a second admin: not the asker, not an operator, not a viewer.
        { "alice", { "retire-node", "n2" }, kAwaiting, "awaiting approval as ap-", "request-approval", "RETIRE" },
        { "vera", { "approvals", "refuse", "{RETIRE}" }, kRefused,
            "vera is a viewer; refusing a change needs the operator role", "", "" },
        { "vera", { "approvals", "approve", "{RETIRE}" }, kRefused,
            "vera is a viewer; approving a change needs the operator role", "", "" },
        { "bob", { "approvals", "approve", "{RETIRE}" }, kRefused, "bob is an operator; {RETIRE}", "", "" },
        { "alice", { "approvals", "approve", "{RETIRE}" }, kRefused,
            "alice requested {RETIRE}; a different operator or admin must approve or refuse it", "", "" },
        { "carol", { "approvals", "approve", "{RETIRE}" }, 0, "operation op-", "approval-applied", "" },

        // Raising a setting waits too; lowering one (above) did not.
        { "alice", { "migrations", "settings", "--max-concurrent", "16" }, kAwaiting,
            "it raises limits (max_concurrent 2 -> 16)", "request-approval", "RAISE" },
        { "olga", { "approvals", "approve", "{RAISE}" }, kRefused, "needs an admin's approval", "", "" },
        { "carol", { "approvals", "approve", "{RAISE}" }, 0, "", "approval-applied", "" },
    };

    std::map<std::string, std::string> ids;
    auto resolve = [&](std::string text) {
        for (const auto& [name, id] : ids) {
            for (auto at = text.find("{" + name + "}"); at != std::string::npos; at = text.find("{" + name + "}"))
                text.replace(at, name.size() + 2, id);
        }
        return text;
    };
    for (const Call& call : calls) {
        std::vector<std::string> args;
        for (const std::string& arg : call.args)
            args.push_back(resolve(arg));
        std::string line = call.who;
        for (const std::string& arg : args)
            line += " " + arg;
        SCOPED_TRACE(line);
        if (call.who == "bob" && args[0] == "migrations" && args[1] == "rollback")
            putInCleanup(args[2]);
        const auto revisionBefore = map().revision;
        const auto auditBefore = peopleAudit().size();

        auto run = as(call.who, args);
        EXPECT_EQ(run.code, call.code) << run.err << run.out;
        const std::string& said = call.code == kRefused ? run.err : run.out;
        EXPECT_NE(said.find(resolve(call.says)), std::string::npos) << said;

        if (call.code == kRefused) {
            EXPECT_EQ(map().revision, revisionBefore) << "a refused call commits nothing";
            EXPECT_EQ(peopleAudit().size(), auditBefore) << "a refused call commits nothing";
            continue;
        }
        // Made (or recorded as awaiting approval) under the caller's certificate, whatever
        // --actor claimed.
        const auto records = peopleAudit();
        ASSERT_GT(records.size(), auditBefore);
        EXPECT_EQ(records.back().action, call.action);
        if (call.action == "approval-applied") {
            // approve (the approver), the change (the requester's), then its outcome (the approver's).
            EXPECT_EQ(records.back().actor, call.who);
            EXPECT_EQ(records[auditBefore].action, "approve");
            EXPECT_EQ(records[auditBefore].actor, call.who);
            EXPECT_EQ(records.size(), auditBefore + 3);
        } else {
            EXPECT_EQ(records.back().actor, call.who);
            EXPECT_EQ(records.size(), auditBefore + 1);
        }
        if (!call.capture.empty()) {
            const std::string out = run.out;
            const auto at = out.find(call.code == kAwaiting ? "ap-" : "m-");
            ASSERT_NE(at, std::string::npos) << out;
            ids[call.capture] = out.substr(at, out.find_first_of(" :\n", at) - at);
        }
    }

    // What the approved and the admin's changes made.
    const core::MapSnapshot after = map();
    EXPECT_EQ(after.settings.value.maxConcurrent, 16u);
    EXPECT_EQ(after.nodes.count("n9"), 0u);
    EXPECT_EQ(after.spaces.at("initech").value.shard, "s3");
    EXPECT_EQ(after.spaces.at("initech").value.pin, "s3");
    bool retiring = false;
    for (const auto& [id, operation] : after.operations) {
        if (operation.value.kind == core::OperationKind::RetireNode) {
            retiring = true;
            EXPECT_EQ(operation.value.requestedBy, "alice");
            EXPECT_NE(operation.value.reason.find("approved by carol as " + ids["RETIRE"]), std::string::npos)
                << operation.value.reason;
        }
    }
    EXPECT_TRUE(retiring) << "the approved retire-node was queued";
    EXPECT_TRUE(after.migrations.at(ids["M2"]).value.abandoned);
    EXPECT_EQ(after.migrations.at(ids["M1"]).value.phase, core::MigrationPhase::Cancelled);
}

TEST_F(AdminRolesTest, AMoveOfMoreBytesThanTheThresholdWaitsForASecondPerson)
{
    // A replica whose policy asks for approval above one byte and never by the count of spaces.
    writePolicy("bytes.json", R"({"version": 1,
        "roles": {"alice": "admin", "bob": "operator", "olga": "operator", "vera": "viewer"},
        "approval": {"max_spaces": 0, "max_bytes": 1}})");
    auto replica = startController("c2", "bytes.json");
    ASSERT_TRUE(replica);
    // A space of its own where the allocator put it, so that its node measures its bytes.
    ASSERT_EQ(runCtl(m_dir, storeUri(), { "write", "--space", "wayne", "--id", "d1", "--field", "title=x" }).code, 0);
    const std::string target = map().spaces.at("wayne").value.shard == "s0" ? "s1" : "s0";
    const auto before = map().migrations.size();
    auto asked = as("bob", { "--json", "migrate", "wayne", "--to", target }, replica->address());
    ASSERT_EQ(asked.code, 10) << asked.err << asked.out;
    const json approval = asked.parsed()["awaiting_approval"];
    const std::string because = approval["needs_approval_because"];
    EXPECT_TRUE(because.starts_with("it moves ")) << because;
    EXPECT_NE(because.find("; more than 1 B needs a second person's approval"), std::string::npos) << because;
    EXPECT_EQ(map().migrations.size(), before) << "nothing is queued before the approval";

    // Another operator may approve what an operator may make.
    auto approved = as("olga", { "approvals", "approve", approval["id"].get<std::string>() }, replica->address());
    ASSERT_EQ(approved.code, 0) << approved.err;
    const auto after = map();
    ASSERT_EQ(after.migrations.size(), before + 1);
    EXPECT_EQ(after.migrations.begin()->second.value.space, "wayne");
    EXPECT_EQ(after.migrations.begin()->second.value.requestedBy, "bob");
}

} // namespace

// etcd's own users and roles (docs/SHARD_MAP.md, "etcd users and roles") with the real programs,
// real nodes and a real etcd with authentication on. shardmapctl with a viewer's etcd user shows
// the map; every change it tries fails with exit code 7, a sentence naming the user and the
// prefix, and leaves the map as it was (and no shard behind on a node). shardmapd leads with its
// own user, never with a viewer's. An operator, whose etcd user is a viewer's too, changes the
// fleet only through shardmapd's Admin API, audited under the certificate's identity.
#include "admin_fixture.h"
#include "core/auth/stored_access_policy.h"
#include "core/map/map_editor.h"
#include "core/store/etcd_store.h"
#include "ctl_run.h"
#include "tests/support/controller_process.h"
#include "tests/support/etcd_process.h"
#include "tests/support/etcd_roles.h"

#include <fstream>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

core::MapSnapshot mapOf(const std::string& store)
{
    auto opened = core::openStore(store, false);
    EXPECT_TRUE(opened) << opened.error().describe();
    if (!opened)
        return {};
    auto snapshot = core::MapEditor(**opened).snapshot();
    EXPECT_TRUE(snapshot) << snapshot.error().describe();
    return snapshot ? *snapshot : core::MapSnapshot {};
}

// The shards the node itself says it hosts, by id.
std::vector<std::string> shardsOn(NodeProcess& node)
{
    v1::ListShardsResponse list;
    const auto status = node.stub().ListShards(contextWithDeadline().get(), {}, &list);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::string> out;
    for (const auto& shard : list.shards())
        out.push_back(shard.shard_id());
    return out;
}

// A real etcd with authentication on and the roles SHARD_MAP.md documents; writerUri is shardmapd's
// user, with which the tests set their fleets up as an administrator bootstraps.
class EtcdRolesTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        etcd = EtcdProcess::start(error);
        ASSERT_TRUE(etcd) << error;
        ASSERT_TRUE(enableEtcdRoles(*etcd, error)) << error;
        writerUri = etcdUriAs(*etcd, "shardmap", "shardmapd");
    }

    TempDir dir;
    std::string error;
    std::unique_ptr<EtcdProcess> etcd;
    std::string writerUri;
    std::vector<std::unique_ptr<NodeProcess>> nodes;
};

} // namespace

TEST_F(EtcdRolesTest, AViewersEtcdUserShowsTheMapAndEveryChangeFailsClearly)
{
    ASSERT_NO_FATAL_FAILURE(startCtlFleet(dir, writerUri, nodes));
    {
        auto store = core::openStore(writerUri, false);
        ASSERT_TRUE(store);
        core::SpaceRecord acme;
        acme.id = "acme";
        acme.shard = "s0";
        ASSERT_TRUE((*store)->commit({ { { core::keys::space("acme"), core::encode(acme), 0 } }, std::nullopt,
            std::nullopt, "tester", "create-space", "" }));
    }
    const auto before = mapOf(writerUri);

    // The viewer's password from a file, as the page advises.
    writeSecretFile(dir.file("viewer.password"), etcdPasswordOf("viewer") + "\n");
    const std::string viewer
        = "etcd://" + etcd->endpoint() + "/shardmap?user=viewer&password_file=" + dir.file("viewer.password");
    const std::vector<std::vector<std::string>> reads {
        { "node", "list" },
        { "shard", "list" },
        { "space", "list" },
        { "space", "where", "acme" },
        { "map", "history" },
        { "migrations", "list" },
        { "operations", "list" },
        { "watch", "--once" },
    };
    for (const auto& args : reads) {
        auto run = runCtl(dir, viewer, args);
        EXPECT_EQ(run.code, 0) << args[0] << " " << args[1] << ": " << run.err;
    }
    auto shards = runCtl(dir, viewer, { "--json", "shard", "list" }).parsed();
    ASSERT_TRUE(shards.contains("shards")) << shards.dump();
    EXPECT_EQ(shards["shards"].size(), 2u);
    EXPECT_NE(runCtl(dir, viewer, { "space", "where", "acme" }).out.find("s0"), std::string::npos);

    const std::string refusal
        = "the store refused the change: etcd user 'viewer' may not write under 'shardmap/' (permission denied)";
    const std::vector<std::vector<std::string>> changes {
        { "node", "add", "n9", "127.0.0.1:1" },
        { "shard", "create", "s9", "--node", "n0" },
        { "shard", "set-state", "s1", "draining" },
        { "space", "pin", "acme", "s0" },
        { "migrate", "acme", "--to", "s1" },
    };
    for (const auto& args : changes) {
        auto run = runCtl(dir, viewer, args);
        EXPECT_EQ(run.code, 7) << args[0] << " " << args[1] << ": " << run.err;
        EXPECT_NE(run.err.find(refusal), std::string::npos) << run.err;
    }
    auto denied = runCtl(dir, viewer, { "--json", "space", "reassign", "acme", "s1" });
    EXPECT_EQ(denied.code, 7);
    EXPECT_EQ(denied.parsed()["error"]["code"], "permission denied") << denied.out;

    const auto after = mapOf(writerUri);
    EXPECT_EQ(after.revision, before.revision) << "a refused change moved the map";
    EXPECT_EQ(after.shards.size(), 2u);
    EXPECT_EQ(after.nodes.size(), 2u);
}

// shardmapctl creates the shard on its node before the store refuses the map entry: the create
// takes the node's shard back, or says that it stays and how to remove it when it cannot.
TEST_F(EtcdRolesTest, ARefusedShardCreateLeavesNoShardOnItsNode)
{
    ASSERT_NO_FATAL_FAILURE(startCtlFleet(dir, writerUri, nodes));
    const std::string viewer = etcdUriAs(*etcd, "shardmap", "viewer");
    const std::string refusal
        = "the store refused the change: etcd user 'viewer' may not write under 'shardmap/' (permission denied)";

    auto refused = runCtl(dir, viewer, { "shard", "create", "s9", "--node", "n0" });
    EXPECT_EQ(refused.code, 7) << refused.err;
    EXPECT_NE(refused.err.find(refusal), std::string::npos) << refused.err;
    EXPECT_EQ(refused.err.find("remains"), std::string::npos) << refused.err;
    EXPECT_EQ(shardsOn(*nodes[0]), std::vector<std::string> { "s0" }) << "the refused create left its shard";

    auto stuck = runCtl(dir, viewer, { "shard", "create", "s9", "--node", "n0" },
        { "SHARDMAP_FAILPOINTS=admin.create_shard.drop=error" });
    EXPECT_EQ(stuck.code, 7) << stuck.err;
    EXPECT_NE(stuck.err.find(refusal), std::string::npos) << stuck.err;
    EXPECT_NE(stuck.err.find("shard s9 remains on node n0"), std::string::npos) << stuck.err;
    EXPECT_NE(stuck.err.find("delete shards/s9.db"), std::string::npos) << stuck.err;
    EXPECT_EQ(shardsOn(*nodes[0]), (std::vector<std::string> { "s0", "s9" }));

    // The remedy the error names: a create that the store accepts takes the node's shard as created.
    auto again = runCtl(dir, writerUri, { "shard", "create", "s9", "--node", "n0" });
    EXPECT_EQ(again.code, 0) << again.err;
    EXPECT_TRUE(mapOf(writerUri).shard("s9"));
}

TEST_F(EtcdRolesTest, AnEtcdUserWithoutARoleIsToldItMayNotRead)
{
    ASSERT_EQ(runCtl(dir, writerUri, { "init" }).code, 0);
    auto run = runCtl(dir, "etcd://" + etcd->endpoint() + "/shardmap?user=nobody", { "shard", "list" },
        { std::string(core::kEtcdPasswordVariable) + "=" + etcdPasswordOf("nobody") });
    EXPECT_EQ(run.code, 7) << run.err;
    EXPECT_NE(run.err.find("the store refused the read: etcd user 'nobody' may not read under 'shardmap/' "
                           "(permission denied)"),
        std::string::npos)
        << run.err;

    // health says the store answered and refused, not that it is unreachable.
    auto health = runCtl(dir, "etcd://" + etcd->endpoint() + "/shardmap?user=nobody", { "health", "--json" },
        { std::string(core::kEtcdPasswordVariable) + "=" + etcdPasswordOf("nobody") });
    EXPECT_EQ(health.code, 9) << health.err;
    const auto report = nlohmann::json::parse(health.out, nullptr, false);
    ASSERT_TRUE(report.is_object()) << health.out;
    EXPECT_EQ(report.value("store_reachable", false), true) << health.out;
    EXPECT_EQ(report.value("store_access_denied", false), true) << health.out;
    ASSERT_FALSE(report["alerts"].empty()) << health.out;
    EXPECT_EQ(report["alerts"][0].value("kind", ""), "store-access-denied") << health.out;
}

// shardmapd writes its leases and the executor's commits: with the viewer's user it routes but
// never leads, and says why; with its own user (shardmap-writer) it leads.
TEST_F(EtcdRolesTest, ShardmapdLeadsWithItsOwnUserAndNeverWithAViewers)
{
    ASSERT_EQ(runCtl(dir, writerUri, { "init" }).code, 0);
    const auto uriFor = [&](const std::string& user) {
        writeSecretFile(dir.file(user + ".password"), etcdPasswordOf(user) + "\n");
        return "etcd://" + etcd->endpoint() + "/shardmap?user=" + user
            + "&password_file=" + dir.file(user + ".password");
    };

    auto viewer = ControllerProcess::start(dir.file("viewer.stderr"), { "--store", uriFor("viewer"), "--id", "v" });
    ASSERT_TRUE(viewer);
    const std::string refusal
        = "the store refused the change: etcd user 'viewer' may not write under 'shardmap/' (permission denied)";
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return viewer->stderrText().find("cannot acquire the executor lease") != std::string::npos;
    })) << viewer->stderrText();
    EXPECT_NE(viewer->stderrText().find(refusal), std::string::npos) << viewer->stderrText();
    EXPECT_FALSE(viewer->leads());

    auto controller
        = ControllerProcess::start(dir.file("shardmapd.stderr"), { "--store", uriFor("shardmapd"), "--id", "c" });
    ASSERT_TRUE(controller);
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return controller->leads(); })) << controller->stderrText();
    EXPECT_FALSE(viewer->leads());
}

// docs/SHARD_MAP.md, "etcd users and roles": people, operators too, get a viewer's etcd user, and
// only shardmapd writes. An operator's store access reads the map; a change made straight in the
// store is refused by etcd, and so are the approvals and the access policy, which only shardmapd
// writes; the same change through shardmapd's Admin API (--controller with the operator's
// certificate) is made and audited under the certificate's identity, whatever --actor claims.
TEST_F(EtcdRolesTest, AnOperatorWithAViewersEtcdUserChangesTheFleetOnlyThroughShardmapd)
{
    ASSERT_NO_FATAL_FAILURE(startCtlFleet(dir, writerUri, nodes));
    ASSERT_EQ(runCtl(dir, writerUri, { "write", "--space", "acme", "--id", "d1", "--field", "title=x" }).code, 0);
    ASSERT_TRUE(makeTestCertificates(dir.path()));
    ASSERT_TRUE(makeClientCertificate(dir.path(), "bob"));

    const std::string operatorUri = etcdUriAs(*etcd, "shardmap", "operator");
    const std::string from = mapOf(writerUri).spaces.at("acme").value.shard;
    const std::string to = from == "s0" ? "s1" : "s0";
    const auto before = mapOf(writerUri).revision;
    const std::string refusal
        = "the store refused the change: etcd user 'operator' may not write under 'shardmap/' (permission denied)";
    auto direct = runCtl(dir, operatorUri, { "migrate", "acme", "--to", to });
    EXPECT_EQ(direct.code, 7) << direct.err;
    EXPECT_NE(direct.err.find(refusal), std::string::npos) << direct.err;
    auto reads = runCtl(dir, operatorUri, { "space", "where", "acme" });
    EXPECT_EQ(reads.code, 0) << reads.err;
    EXPECT_NE(reads.out.find(from), std::string::npos) << reads.out;
    // Nor may the operator's user write what only shardmapd should: approvals and the policy.
    {
        auto store = core::openStore(operatorUri, false);
        ASSERT_TRUE(store) << store.error().describe();
        for (const std::string& key : { std::string("approvals/ap-forged"), std::string(core::kAccessPolicyKey) }) {
            auto forged = (*store)->commit(
                { { { key, R"({"forged": true})", std::nullopt } }, std::nullopt, std::nullopt, "bob", "forge", "" });
            ASSERT_FALSE(forged) << key;
            EXPECT_EQ(forged.error().code, core::ErrorCode::PermissionDenied) << forged.error().describe();
        }
    }
    EXPECT_EQ(mapOf(writerUri).revision, before) << "nothing changed in the store";

    // The same operator, the same etcd user, with --controller: the change goes through shardmapd.
    std::ofstream(dir.file("access.json")) << R"({"version": 1, "roles": {"bob": "operator"}})";
    writeSecretFile(dir.file("shardmapd.password"), etcdPasswordOf("shardmapd") + "\n");
    auto controller = ControllerProcess::start(dir.file("shardmapd.stderr"),
        { "--store",
            "etcd://" + etcd->endpoint() + "/shardmap?user=shardmapd&password_file=" + dir.file("shardmapd.password"),
            "--id", "c1", "--tls-cert", dir.file("server.pem"), "--tls-key", dir.file("server.key"), "--tls-ca",
            dir.file("ca.pem"), "--access-policy", dir.file("access.json") });
    ASSERT_TRUE(controller);
    auto viaController = runProgram(dir,
        { SHARDMAP_CTL_BINARY, "--store", operatorUri, "--actor", "mallory", "--controller", controller->address(),
            "--controller-ca", dir.file("ca.pem"), "--controller-cert", dir.file("bob.pem"), "--controller-key",
            dir.file("bob.key"), "migrate", "acme", "--to", to, "--reason", "hot tenant" },
        {}, "ctl-bob");
    ASSERT_EQ(viaController.code, 0) << viaController.err;
    const auto after = mapOf(writerUri);
    EXPECT_GT(after.revision, before);
    ASSERT_EQ(after.migrations.size(), 1u);
    auto store = core::openStore(writerUri, false);
    ASSERT_TRUE(store);
    auto history = (*store)->history(before, 0, 0);
    ASSERT_TRUE(history) << history.error().describe();
    std::vector<core::AuditRecord> people;
    for (const core::AuditRecord& record : *history) {
        if (!record.actor.starts_with("shardmapd/"))
            people.push_back(record);
    }
    ASSERT_EQ(people.size(), 1u);
    EXPECT_EQ(people.front().actor, "bob") << "the certificate's identity, not --actor";
    EXPECT_EQ(people.front().reason, "hot tenant");
}

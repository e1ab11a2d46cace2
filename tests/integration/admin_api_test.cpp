// shardmapd's Admin API end to end (issue 17): a real shardmapd with mutual TLS and a role file,
// real nodes, the real shardmapctl with real certificates and tokens. Every role's allowed and
// refused calls, the audit actor is the authenticated identity whatever --actor claims, a big
// change waits for a second person (and its report names who approved it), and certificates
// that are expired, revoked or signed by another CA are refused with a sentence saying so.
#include "admin_fixture.h"
#include "tests/support/pdf_text.h"

#include <fstream>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

class AdminApiTest : public AdminFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(makeTestCertificates(m_dir.path()));
        ASSERT_TRUE(makeAccessTestCertificates(m_dir.path()));
        for (const char* name : { "alice", "bob", "carol", "vera", "dave" })
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        writePolicy(R"("vera": "viewer")");
        startCtlFleet(m_dir, storeUri(), m_nodes);
        // Both spaces on s0 (the allocator spreads them; a reassignment puts them together).
        for (const char* space : { "acme", "globex" }) {
            ASSERT_EQ(
                runCtl(m_dir, storeUri(), { "write", "--space", space, "--id", "d1", "--field", "title=x" }).code, 0);
            if (map().spaces.at(space).value.shard != "s0") {
                ASSERT_EQ(runCtl(m_dir, storeUri(), { "space", "reassign", space, "s0" }).code, 0);
            }
        }
        m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"),
            { "--store", storeUri(), "--id", "c1", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
                m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--tls-crl", m_dir.file("ca.crl"),
                "--access-policy", m_dir.file("access.json") });
        ASSERT_TRUE(m_controller);
    }

    // The role file: alice admin, bob operator, carol admin, plus `extra` entries; approval
    // above one space.
    void writePolicy(const std::string& extra)
    {
        std::ofstream(m_dir.file("access.json.tmp")) << R"({"version": 1,
            "roles": {"alice": "admin", "bob": "operator", "carol": "admin", )"
                + extra + R"(},
            "approval": {"max_spaces": 1}})";
        std::filesystem::rename(m_dir.file("access.json.tmp"), m_dir.file("access.json"));
    }
};

TEST_F(AdminApiTest, EachRoleMayDoWhatItAllowsAndTheAuditNamesTheCertificate)
{
    auto who = as("vera", { "whoami" });
    EXPECT_EQ(who.code, 0) << who.err;
    EXPECT_EQ(who.out, "vera (viewer, by certificate)\n");

    // A viewer reads through the controller and changes nothing.
    auto shards = as("vera", { "shard", "list" });
    EXPECT_EQ(shards.code, 0) << shards.err;
    EXPECT_NE(shards.out.find("s1"), std::string::npos) << shards.out;
    // The leases too: health through the Admin API names the replica that runs the executor.
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        const json health = as("vera", { "--json", "health" }).parsed();
        return health.is_object() && health["executor"].is_object()
            && health["executor"]["holder"].get<std::string>().starts_with("c1#");
    }));
    const auto before = map().revision;
    auto refused = as("vera", { "migrate", "acme", "--to", "s1" });
    EXPECT_EQ(refused.code, 7) << refused.err;
    EXPECT_NE(refused.err.find("vera is a viewer; changing the fleet needs the operator role"), std::string::npos)
        << refused.err;
    EXPECT_EQ(map().revision, before) << "a refused call commits nothing";
    // Every change shardmapctl can send is refused for a viewer, with the same sentence.
    const std::vector<std::vector<std::string>> changes = {
        { "node", "add", "n9", "127.0.0.1:1" },
        { "node", "remove", "n1" },
        { "shard", "create", "s9", "--node", "n0" },
        { "shard", "set-state", "s1", "readonly" },
        { "space", "pin", "acme", "s0" },
        { "space", "unpin", "acme" },
        { "space", "reassign", "acme", "s1" },
        { "migrations", "pause", "m-1" },
        { "migrations", "throttle", "m-1", "10" },
        { "migrations", "settings", "--max-concurrent", "9" },
        { "drain", "s0" },
        { "split", "s0", "--new-shard", "s9" },
        { "merge", "s0", "--into", "s1" },
        { "isolate", "acme", "--new-shard", "s9" },
        { "retire-node", "n1" },
        { "access", "set", m_dir.file("access.json") },
    };
    for (const auto& change : changes) {
        SCOPED_TRACE(change[0] + " " + change[1]);
        auto run = as("vera", change);
        EXPECT_EQ(run.code, 7) << run.err;
        EXPECT_NE(run.err.find("vera is a viewer"), std::string::npos) << run.err;
    }
    EXPECT_EQ(map().revision, before);

    // An operator queues a migration; the audit names bob, not the --actor claim.
    const std::string from = map().spaces.at("acme").value.shard;
    const std::string to = from == "s0" ? "s1" : "s0";
    auto queued = as("bob", { "migrate", "acme", "--to", to, "--reason", "hot tenant" });
    EXPECT_EQ(queued.code, 0) << queued.err;
    EXPECT_NE(queued.out.find("migration m-"), std::string::npos) << queued.out;
    auto audit = lastAudit();
    EXPECT_EQ(audit.actor, "bob");
    EXPECT_EQ(audit.reason, "hot tenant");
    auto byOperator = as("bob", { "shard", "create", "s2", "--node", "n0" });
    EXPECT_EQ(byOperator.code, 7);
    EXPECT_NE(byOperator.err.find("bob is an operator; create-shard needs the admin role"), std::string::npos)
        << byOperator.err;
    EXPECT_EQ(map().shards.count("s2"), 0u);

    // An admin creates the shard (on its node, then in the map).
    auto created = as("alice", { "shard", "create", "s2", "--node", "n0", "--engine", "xapian" });
    EXPECT_EQ(created.code, 0) << created.err;
    EXPECT_EQ(map().shards.count("s2"), 1u);
    EXPECT_EQ(map().shards.at("s2").value.engine, core::IndexEngine::Xapian) << "the engine it was asked for";
    EXPECT_EQ(lastAudit().actor, "alice");
    auto unknownEngine = as("alice", { "shard", "create", "s3", "--node", "n0", "--engine", "lucene" });
    EXPECT_EQ(unknownEngine.code, 2) << unknownEngine.err;
    EXPECT_NE(unknownEngine.err.find("unknown index engine 'lucene'"), std::string::npos) << unknownEngine.err;
    EXPECT_EQ(map().shards.count("s3"), 0u);
    auto pinned = as("alice", { "space", "pin", "globex", map().spaces.at("globex").value.shard });
    EXPECT_EQ(pinned.code, 0) << pinned.err;

    // A certificate the CA signed for someone the role file does not name may do nothing.
    auto stranger = as("dave", { "shard", "list" });
    EXPECT_EQ(stranger.code, 7);
    EXPECT_NE(stranger.err.find("dave is not given a role"), std::string::npos) << stranger.err;

    // Roles change without a restart: the file is read again when it changes.
    writePolicy(R"("vera": "operator")");
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    auto promoted = as("vera", { "whoami" });
    EXPECT_EQ(promoted.out, "vera (operator, by certificate)\n") << promoted.err;
}

// Issue 31: an index template's next version through shardmapd is an admin's change, audited
// under the certificate's name; an operator is refused with the role it needs.
TEST_F(AdminApiTest, OnlyAnAdminCreatesAnIndexTemplateThroughTheController)
{
    auto refused = as("bob", { "template", "create", "stemmed", "--tokenizer", "porter" });
    EXPECT_EQ(refused.code, 7) << refused.err;
    EXPECT_NE(refused.err.find("needs the admin role"), std::string::npos) << refused.err;
    auto invalid = as("alice", { "template", "create", "stemmed", "--field", "title=500" });
    EXPECT_EQ(invalid.code, 2) << invalid.err;
    EXPECT_NE(invalid.err.find("a weight is from 0.01 to 100"), std::string::npos) << invalid.err;
    auto made = as("alice", { "template", "create", "stemmed", "--tokenizer", "porter", "--reason", "docs site" });
    ASSERT_EQ(made.code, 0) << made.err;
    EXPECT_EQ(lastAudit().action, "create-template");
    EXPECT_EQ(lastAudit().actor, "alice");
    auto listed = as("vera", { "--json", "template", "show", "stemmed" });
    ASSERT_EQ(listed.code, 0) << listed.err;
    EXPECT_EQ(listed.parsed()["settings"]["tokenizer"]["name"], "porter");
}

TEST_F(AdminApiTest, OnlyAnAdminSetsTheBalancersPolicyThroughTheController)
{
    const std::string file = m_dir.file("balancer.json");
    std::ofstream(file) << R"({"mode": "dry-run", "split_above_docs": 1000})";
    auto refused = as("bob", { "balancer", "policy", "--set", file });
    EXPECT_EQ(refused.code, 7) << refused.err;
    EXPECT_NE(refused.err.find("needs the admin role"), std::string::npos) << refused.err;
    std::ofstream(m_dir.file("bad.json")) << R"({"mode": "sometimes"})";
    auto bad = as("alice", { "balancer", "policy", "--set", m_dir.file("bad.json") });
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find("mode is off, dry-run or on"), std::string::npos) << bad.err;
    auto set = as("alice", { "--reason", "nightly", "balancer", "policy", "--set", file });
    ASSERT_EQ(set.code, 0) << set.err;
    EXPECT_EQ(lastAudit().action, "set-balancer-policy");
    EXPECT_EQ(lastAudit().actor, "alice");
    auto enabled = as("alice", { "balancer", "enable" });
    ASSERT_EQ(enabled.code, 0) << enabled.err;
    auto shown = as("vera", { "--json", "balancer", "policy" });
    ASSERT_EQ(shown.code, 0) << shown.err;
    EXPECT_EQ(shown.parsed()["mode"], "on");
    EXPECT_EQ(shown.parsed()["split_above_docs"], 1000);
}

TEST_F(AdminApiTest, AChangeAboveTheThresholdWaitsForADifferentOperatorOrAdmin)
{
    const std::string source = "s0";
    auto asked = as("bob", { "--json", "drain", source, "--reason", "retire the old disk" });
    ASSERT_EQ(asked.code, 10) << asked.err << asked.out;
    const json approval = asked.parsed()["awaiting_approval"];
    const std::string id = approval["id"];
    EXPECT_EQ(approval["state"], "pending");
    EXPECT_EQ(approval["requested_by"], "bob");
    EXPECT_NE(
        approval["needs_approval_because"].get<std::string>().find("moves 2 spaces; more than 1"), std::string::npos);
    EXPECT_TRUE(map().operations.empty()) << "nothing is queued before the approval";

    auto self = as("bob", { "approvals", "approve", id });
    EXPECT_EQ(self.code, 7);
    EXPECT_NE(self.err.find("bob requested " + id + "; a different operator or admin"), std::string::npos) << self.err;
    auto viewer = as("vera", { "approvals", "approve", id });
    EXPECT_EQ(viewer.code, 7);
    EXPECT_TRUE(map().operations.empty());

    auto pending = as("vera", { "approvals", "list", "--pending" });
    EXPECT_EQ(pending.code, 0) << pending.err;
    EXPECT_NE(pending.out.find(id + "  pending  drain " + source), std::string::npos) << pending.out;

    // A refused request is never made, and cannot be approved afterwards.
    auto second = as("bob", { "--json", "drain", source, "--reason", "asked twice" });
    ASSERT_EQ(second.code, 10) << second.err << second.out;
    const std::string secondId = second.parsed()["awaiting_approval"]["id"];
    auto refusal = as("alice", { "approvals", "refuse", secondId, "--reason", "not during the sale" });
    EXPECT_EQ(refusal.code, 0) << refusal.err;
    EXPECT_NE(refusal.out.find("refused by alice"), std::string::npos) << refusal.out;
    // The refusal is audited under the refuser's certificate, with her reason and the record.
    const core::AuditRecord refused = lastAudit();
    EXPECT_EQ(refused.actor, "alice");
    EXPECT_EQ(refused.action, "refuse");
    EXPECT_EQ(refused.reason, secondId + ": not during the sale");
    ASSERT_EQ(refused.changes.size(), 1u);
    EXPECT_EQ(refused.changes[0].key, "approvals/" + secondId);
    ASSERT_TRUE(refused.changes[0].after);
    EXPECT_EQ(json::parse(*refused.changes[0].after)["state"], "refused");
    EXPECT_EQ(json::parse(*refused.changes[0].after)["decided_by"], "alice");
    auto late = as("carol", { "approvals", "approve", secondId });
    EXPECT_EQ(late.code, 5);
    EXPECT_NE(late.err.find("refused already (by alice)"), std::string::npos) << late.err;
    EXPECT_TRUE(map().operations.empty());

    auto approved = as("carol", { "approvals", "approve", id, "--reason", "checked the plan" });
    ASSERT_EQ(approved.code, 0) << approved.err;
    // The approval and its outcome are audited: carol approved (claiming the change), the drain
    // was queued as bob's, and carol's claim recorded it applied.
    std::vector<std::pair<std::string, std::string>> steps;
    for (const core::AuditRecord& record : audit()) {
        if (record.action == "approve" || record.action.starts_with("approval-") || record.action == "drain")
            steps.emplace_back(record.actor, record.action);
    }
    EXPECT_EQ(steps,
        (std::vector<std::pair<std::string, std::string>> {
            { "carol", "approve" }, { "bob", "drain" }, { "carol", "approval-applied" } }));
    // Approving again once it is made is refused, and makes nothing twice.
    auto twice = as("alice", { "approvals", "approve", id });
    EXPECT_EQ(twice.code, 5) << twice.err;
    EXPECT_NE(twice.err.find(id + " is applied already (by carol)"), std::string::npos) << twice.err;
    const auto operations = map().operations;
    ASSERT_EQ(operations.size(), 1u);
    const core::OperationRecord& operation = operations.begin()->second.value;
    EXPECT_EQ(operation.kind, core::OperationKind::Drain);
    EXPECT_EQ(operation.requestedBy, "bob") << "the change is the requester's";
    EXPECT_NE(operation.reason.find("approved by carol as " + id), std::string::npos) << operation.reason;
    ASSERT_FALSE(operation.migrations.empty());
    auto shown = as("vera", { "migrations", "show", operation.migrations.front() });
    EXPECT_EQ(shown.code, 0) << shown.err;
    EXPECT_NE(shown.out.find("carol (" + id + ") at "), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("; asked by bob"), std::string::npos) << shown.out;
    auto decided = as("vera", { "--json", "approvals", "list" });
    ASSERT_EQ(decided.code, 0) << decided.err;
    std::map<std::string, json> byId;
    for (const json& entry : decided.parsed())
        byId[entry["id"]] = entry;
    ASSERT_EQ(byId.size(), 2u);
    EXPECT_EQ(byId[id]["state"], "applied");
    EXPECT_EQ(byId[id]["decided_by"], "carol");
    EXPECT_NE(byId[id]["outcome"].get<std::string>().find("operation"), std::string::npos);
    EXPECT_EQ(byId[secondId]["state"], "refused");
    EXPECT_EQ(byId[secondId]["decision_reason"], "not during the sale");

    // The drain's report names its approver, and the refused drain of the same shard.
    auto report = runCtl(m_dir, storeUri(), { "report", "--operation", operation.id, "--format", "json" });
    ASSERT_EQ(report.code, 0) << report.err;
    const json reported = report.parsed();
    EXPECT_EQ(reported["operations"][0]["approval"]["id"], id);
    EXPECT_EQ(reported["operations"][0]["approval"]["decided_by"], "carol");
    EXPECT_EQ(reported["operations"][0]["approval"]["requested_by"], "bob");
    for (const json& migration : reported["migrations"])
        EXPECT_EQ(migration["approval"]["id"], id) << migration["migration"];
    ASSERT_EQ(reported["refused_requests"].size(), 1u) << reported["refused_requests"].dump();
    EXPECT_EQ(reported["refused_requests"][0]["id"], secondId);
    EXPECT_EQ(reported["refused_requests"][0]["decided_by"], "alice");
    const std::string pdf = m_dir.file("drain.pdf");
    auto printed = runCtl(m_dir, storeUri(), { "report", "--operation", operation.id, "--format", "pdf", "-o", pdf });
    ASSERT_EQ(printed.code, 0) << printed.err;
    const std::string text = pdfText(pdf, m_dir.file("pdftotext.err"));
    for (const std::string& expected : { "Approved by carol (" + id + ")", std::string("asked by bob"),
             std::string("Refused and expired requests"), std::string("not during the sale") })
        EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
}

TEST_F(AdminApiTest, TokensStandForTheirIdentityAndBadCertificatesAreRefusedWithAReason)
{
    // A token made by shardmapctl; shardmapd keeps only its hash.
    auto made = runProgram(m_dir, { SHARDMAP_CTL_BINARY, "--json", "access", "new-token", "ci-bot" });
    ASSERT_EQ(made.code, 0) << made.err;
    const std::string token = made.parsed()["token"];
    writeSecretFile(m_dir.file("tokens"), made.parsed()["token_file_line"].get<std::string>() + "\n");
    std::ofstream(m_dir.file("ci.token")) << token << "\n";
    std::ofstream(m_dir.file("wrong.token")) << std::string(64, '0') << "\n";
    writePolicy(R"("vera": "viewer", "ci-bot": "operator")");
    // A replica with server-only TLS: scripts hold a token, not a certificate.
    auto scripts = ControllerProcess::start(m_dir.file("shardmapd-tokens.stderr"),
        { "--store", storeUri(), "--id", "c2", "--no-executor", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
            m_dir.file("server.key"), "--access-policy", m_dir.file("access.json"), "--tokens", m_dir.file("tokens") });
    ASSERT_TRUE(scripts);
    auto withToken = [&](const std::string& file, std::vector<std::string> args) {
        std::vector<std::string> argv { SHARDMAP_CTL_BINARY, "--controller", scripts->address(), "--controller-ca",
            m_dir.file("ca.pem"), "--token-file", file, "--actor", "mallory" };
        argv.insert(argv.end(), args.begin(), args.end());
        return runProgram(m_dir, argv, {}, "ctl-token");
    };
    auto who = withToken(m_dir.file("ci.token"), { "whoami" });
    EXPECT_EQ(who.out, "token:ci-bot (operator, by token)\n") << who.err;
    const std::string to = map().spaces.at("acme").value.shard == "s0" ? "s1" : "s0";
    auto queued = withToken(m_dir.file("ci.token"), { "migrate", "acme", "--to", to });
    EXPECT_EQ(queued.code, 0) << queued.err;
    EXPECT_EQ(lastAudit().actor, "token:ci-bot");
    auto wrong = withToken(m_dir.file("wrong.token"), { "whoami" });
    EXPECT_EQ(wrong.code, 7);
    EXPECT_NE(wrong.err.find("does not know who you are: the bearer token is not one this controller knows"),
        std::string::npos)
        << wrong.err;
    auto nobody = runProgram(m_dir,
        { SHARDMAP_CTL_BINARY, "--controller", scripts->address(), "--controller-ca", m_dir.file("ca.pem"), "whoami" });
    EXPECT_EQ(nobody.code, 7);
    EXPECT_NE(nobody.err.find("no client certificate and no bearer token"), std::string::npos) << nobody.err;

    // The mutual-TLS replica refuses certificates that expired, were revoked or come from
    // another CA, and says which.
    const std::pair<const char*, const char*> refusedCertificates[] = {
        { "expired", "expired" },
        { "revoked", "refused" },
        { "intruder", "CA" },
    };
    for (const auto& [name, why] : refusedCertificates) {
        SCOPED_TRACE(name);
        auto run = as(name, { "whoami" });
        EXPECT_EQ(run.code, 6);
        EXPECT_NE(run.err.find("shardmapd at " + m_controller->address()), std::string::npos) << run.err;
        EXPECT_NE(run.err.find(why), std::string::npos) << run.err;
    }
}

TEST_F(AdminApiTest, ThePolicyCanLiveInTheStoreWhereOnlyAnAdminChangesIt)
{
    // Bootstrap: straight into the store, then a replica that reads it from there.
    std::ofstream(m_dir.file("policy.json"))
        << R"({"version": 1, "roles": {"alice": "admin", "bob": "operator", "carol": "admin", "vera": "viewer"}})";
    auto stored = runCtl(m_dir, storeUri(), { "access", "set", m_dir.file("policy.json") });
    ASSERT_EQ(stored.code, 0) << stored.err;
    auto replica = ControllerProcess::start(m_dir.file("shardmapd-store.stderr"),
        { "--store", storeUri(), "--id", "c3", "--no-executor", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
            m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy", "store" });
    ASSERT_TRUE(replica);
    EXPECT_EQ(as("vera", { "whoami" }, replica->address()).out, "vera (viewer, by certificate)\n");

    // Promoting vera loosens the policy: one admin asks, a different admin approves.
    std::ofstream(m_dir.file("policy2.json"))
        << R"({"version": 1, "roles": {"alice": "admin", "bob": "operator", "carol": "admin", "vera": "operator"}})";
    auto byOperator = as("bob", { "access", "set", m_dir.file("policy2.json") }, replica->address());
    EXPECT_EQ(byOperator.code, 7);
    EXPECT_NE(byOperator.err.find("set-access-policy needs the admin role"), std::string::npos) << byOperator.err;
    const auto before = peopleAudit().size();
    auto asked = as("alice", { "--json", "access", "set", m_dir.file("policy2.json") }, replica->address());
    ASSERT_EQ(asked.code, 10) << asked.err << asked.out;
    const json approval = asked.parsed()["awaiting_approval"];
    const std::string id = approval["id"];
    EXPECT_EQ(approval["requested_by"], "alice");
    EXPECT_EQ(approval["needs_approval_because"], "it loosens the access policy (vera viewer -> operator)");
    ASSERT_EQ(peopleAudit().size(), before + 1) << "only the request is recorded";
    EXPECT_EQ(lastAudit().action, "request-approval");
    EXPECT_EQ(as("vera", { "whoami" }, replica->address()).out, "vera (viewer, by certificate)\n");
    auto self = as("alice", { "approvals", "approve", id }, replica->address());
    EXPECT_EQ(self.code, 7);
    EXPECT_NE(self.err.find("alice requested " + id + "; a different operator or admin"), std::string::npos)
        << self.err;
    auto operatorApproves = as("bob", { "approvals", "approve", id }, replica->address());
    EXPECT_EQ(operatorApproves.code, 7);
    EXPECT_NE(operatorApproves.err.find("needs an admin's approval"), std::string::npos) << operatorApproves.err;
    EXPECT_EQ(peopleAudit().size(), before + 1) << "refused approvals commit nothing";

    auto approvedByCarol
        = as("carol", { "approvals", "approve", id, "--reason", "vera is on call" }, replica->address());
    EXPECT_EQ(approvedByCarol.code, 0) << approvedByCarol.err;
    EXPECT_TRUE(pollUntil(std::chrono::seconds(5),
        [&] { return as("vera", { "whoami" }, replica->address()).out == "vera (operator, by certificate)\n"; }));
    auto changed = lastAudit();
    EXPECT_EQ(changed.action, "approval-applied");
    EXPECT_EQ(changed.actor, "carol");
    auto shown = as("vera", { "--json", "access", "show" }, replica->address());
    EXPECT_EQ(shown.code, 0) << shown.err;
    EXPECT_EQ(shown.parsed()["roles"]["vera"], "operator");

    // Demoting vera again only tightens: it applies at once.
    auto tightened = as("alice", { "access", "set", m_dir.file("policy.json") }, replica->address());
    EXPECT_EQ(tightened.code, 0) << tightened.err << tightened.out;
    EXPECT_EQ(lastAudit().actor, "alice");
    EXPECT_EQ(lastAudit().action, "set-access-policy");
    EXPECT_TRUE(pollUntil(std::chrono::seconds(5),
        [&] { return as("vera", { "whoami" }, replica->address()).out == "vera (viewer, by certificate)\n"; }));

    // A replica told to read the store's policy where there is none does not start.
    std::filesystem::remove(m_dir.file("empty.db"));
    ASSERT_EQ(runCtl(m_dir, "sqlite:" + m_dir.file("empty.db"), { "init" }).code, 0);
    auto child = ChildProcess::spawn({ controllerBinary(), "--listen", "127.0.0.1:0", "--store",
                                         "sqlite:" + m_dir.file("empty.db"), "--access-policy", "store" },
        m_dir.file("shardmapd-empty.stderr"));
    ASSERT_TRUE(child);
    EXPECT_EQ(child->wait(std::chrono::seconds(20)).value_or(-1), 1);
    EXPECT_NE(
        readWholeFile(m_dir.file("shardmapd-empty.stderr")).find("shardmapctl access set FILE"), std::string::npos);
}

} // namespace

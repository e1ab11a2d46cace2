// What a caller can make shardmapd store and read through the Admin API, end to end (issue 25,
// items 2 and 4): a real shardmapd with mutual TLS and a role file, real nodes, real certificates,
// the real shardmapctl and the real AdminClient. Oversized texts are refused before anything is
// stored, one identity's pending requests are capped, a store larger than gRPC's message limit is
// read whole through the pages, an admin removes a pending request, and limits and approval
// thresholds count an identity's changes over the policy's window, not one request at a time.
#include "admin_fixture.h"
#include "core/admin/approvals.h"
#include "core/auth/bearer_tokens.h"
#include "core/client/admin_client.h"
#include "core/migration/fleet_facts.h"
#include "shardmap/v1/admin.grpc.pb.h"

#include <cstdio>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

constexpr int kRefused = 7;
constexpr int kAwaiting = 10;

class AdminQuotasTest : public AdminFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(makeTestCertificates(m_dir.path()));
        for (const char* name : { "alice", "bob", "olga", "vera" })
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        startCtlFleet(m_dir, storeUri(), m_nodes);
        ASSERT_EQ(runCtl(m_dir, storeUri(), { "shard", "create", "s2", "--node", "n1" }).code, 0);
        // Every space on s0, each with a document (so that moving it moves bytes).
        for (const char* space : { "acme", "globex", "initech", "hooli", "umbrella" }) {
            ASSERT_EQ(
                runCtl(m_dir, storeUri(), { "write", "--space", space, "--id", "d1", "--field", "title=x" }).code, 0);
            if (map().spaces.at(space).value.shard != "s0") {
                ASSERT_EQ(runCtl(m_dir, storeUri(), { "space", "reassign", space, "s0" }).code, 0);
            }
        }
    }

    // alice admin, bob and olga operators, vera viewer; `limits` and `approval` as given. With
    // `people`, also bob's CI token (token:bob.ci, an operator) and that policy entry.
    void start(const std::string& limits, const std::string& approval, const std::string& people = {})
    {
        std::ofstream(m_dir.file("access.json")) << R"({"version": 1,
            "roles": {"alice": "admin", "bob": "operator", "olga": "operator", "vera": "viewer",
                      "token:bob.ci": "operator"},
            "operator_limits": )"
                + limits + R"(, "approval": )" + approval + (people.empty() ? "" : R"(, "people": )" + people) + "}";
        // Without an executor, what the calls queue stays as they left it.
        std::vector<std::string> args { "--store", storeUri(), "--id", "c1", "--no-executor", "--tls-cert",
            m_dir.file("server.pem"), "--tls-key", m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"),
            "--access-policy", m_dir.file("access.json") };
        if (!people.empty()) {
            auto token = core::newToken("bob.ci");
            ASSERT_TRUE(token) << token.error().describe();
            writeSecretFile(m_dir.file("tokens"), token->line + "\n");
            std::ofstream(m_dir.file("bob.ci.token")) << token->token << "\n";
            args.insert(args.end(), { "--tokens", m_dir.file("tokens") });
        }
        m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"), args);
        ASSERT_TRUE(m_controller);
    }

    // shardmapctl through the Admin API with bob's CI token.
    CtlRun asToken(std::vector<std::string> args)
    {
        std::vector<std::string> argv { SHARDMAP_CTL_BINARY, "--controller", m_controller->address(), "--controller-ca",
            m_dir.file("ca.pem"), "--token-file", m_dir.file("bob.ci.token") };
        argv.insert(argv.end(), args.begin(), args.end());
        return runProgram(m_dir, argv, {}, "ctl-bob.ci");
    }

    // The Admin API as `who`, in this process.
    std::unique_ptr<core::AdminClient> client(const std::string& who)
    {
        return adminClient(who, std::chrono::seconds(60));
    }

    static v1::AdminChange migrate(const std::string& space, const std::string& shard)
    {
        v1::AdminChange change;
        change.mutable_queue_migration()->set_space(space);
        change.mutable_queue_migration()->set_target_shard(shard);
        return change;
    }

    // The server answers a normal call after what it refused.
    void expectServing(const std::string& who)
    {
        auto still = as(who, { "whoami" });
        EXPECT_EQ(still.code, 0) << still.err;
        auto shards = as(who, { "shard", "list" });
        EXPECT_EQ(shards.code, 0) << shards.err;
        EXPECT_NE(shards.out.find("s2"), std::string::npos) << shards.out;
    }

    void put(core::MetadataStore& store, const std::string& key, const std::string& value)
    {
        auto committed = store.commit({ { { key, value, std::nullopt } }, std::nullopt, std::nullopt, "tester",
            "test-fixture", "written straight into the store" });
        ASSERT_TRUE(committed) << committed.error().describe();
    }
};

TEST_F(AdminQuotasTest, OversizedTextsAreRefusedBeforeAnythingIsStored)
{
    start(R"({"max_spaces": 100})", R"({"max_spaces": 100, "max_bytes": 1})");
    auto bob = client("bob");
    ASSERT_TRUE(bob);
    const auto before = map().revision;

    // The issue's request: a 30 MiB reason on a change that waits for approval.
    const std::string huge(30u << 20, 'x');
    auto refused = bob->change(migrate("acme", "s1"), huge);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_EQ(refused.error().message, "reason is 31457280 bytes; the Admin API takes at most 4096");
    // Every other caller-supplied text is bounded as well, and the refusal names the field.
    auto longSpace = bob->change(migrate(std::string(100000, 's'), "s1"), "ok");
    ASSERT_FALSE(longSpace);
    EXPECT_EQ(longSpace.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_EQ(
        longSpace.error().message, "change.queue_migration.space is 100000 bytes; the Admin API takes at most 128");
    auto alice = client("alice");
    ASSERT_TRUE(alice);
    v1::AdminChange node;
    node.mutable_add_node()->set_id("n9");
    node.mutable_add_node()->set_address("127.0.0.1:1");
    for (int i = 0; i < 40; ++i)
        (*node.mutable_add_node()->mutable_labels())["l" + std::to_string(i)] = "v";
    auto labels = alice->change(node, "ok");
    ASSERT_FALSE(labels);
    EXPECT_EQ(labels.error().message, "change.add_node.labels is 40 labels; the Admin API takes at most 32");
    EXPECT_EQ(map().revision, before) << "a refused request stores nothing";

    // A decision's reason too: a pending request refused with a 1 MiB reason is refused itself.
    auto asked = bob->change(migrate("acme", "s1"), "hot tenant");
    ASSERT_TRUE(asked) << asked.error().describe();
    ASSERT_TRUE(asked->has_awaiting_approval());
    auto decided = alice->refuse(asked->awaiting_approval().id(), std::string(1 << 20, 'r'));
    ASSERT_FALSE(decided);
    EXPECT_EQ(decided.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_EQ(decided.error().message, "reason is 1048576 bytes; the Admin API takes at most 4096");
    expectServing("vera");
}

TEST_F(AdminQuotasTest, OneIdentitysPendingRequestsAreCappedAndAnAdminRemovesOne)
{
    start(R"({"max_spaces": 100})", R"({"max_spaces": 100, "max_bytes": 1, "max_pending_per_identity": 2})");
    auto first = as("bob", { "migrate", "acme", "--to", "s1" });
    ASSERT_EQ(first.code, kAwaiting) << first.err;
    auto second = as("bob", { "--json", "migrate", "globex", "--to", "s1" });
    ASSERT_EQ(second.code, kAwaiting) << second.err;
    const std::string secondId = second.parsed()["awaiting_approval"]["id"];

    auto third = as("bob", { "migrate", "initech", "--to", "s1" });
    EXPECT_NE(third.code, 0);
    EXPECT_NE(third.err.find("bob has 2 requests awaiting approval, as many as approval.max_pending_per_identity "
                             "allows; wait for a decision or remove one (shardmapctl approvals remove ID)"),
        std::string::npos)
        << third.err;
    // Another identity has a cap of its own.
    auto other = as("olga", { "migrate", "acme", "--to", "s2" });
    EXPECT_EQ(other.code, kAwaiting) << other.out << other.err;

    // An operator may not remove someone else's request; an admin may, with an audit record.
    auto byOperator = as("olga", { "approvals", "remove", secondId });
    EXPECT_EQ(byOperator.code, kRefused) << byOperator.err;
    EXPECT_NE(byOperator.err.find("olga is an operator; only an admin or its requester (bob) may remove " + secondId),
        std::string::npos)
        << byOperator.err;
    auto removed = as("alice", { "approvals", "remove", secondId, "--reason", "asked twice" });
    EXPECT_EQ(removed.code, 0) << removed.err;
    EXPECT_NE(removed.out.find(secondId + "  removed"), std::string::npos) << removed.out;
    EXPECT_NE(removed.out.find("removed by alice"), std::string::npos) << removed.out;
    const core::AuditRecord audit = lastAudit();
    EXPECT_EQ(audit.actor, "alice");
    EXPECT_EQ(audit.action, "remove-approval");
    EXPECT_EQ(audit.reason, secondId + ": asked twice");
    ASSERT_EQ(audit.changes.size(), 1u);
    EXPECT_EQ(audit.changes[0].key, "approvals/" + secondId);
    EXPECT_FALSE(audit.changes[0].after);
    auto again = as("bob", { "approvals", "approve", secondId });
    EXPECT_NE(again.code, 0);
    EXPECT_NE(again.err.find("no approval " + secondId), std::string::npos) << again.err;

    // The cap counts what is pending now: bob asks again, then withdraws a request of his own.
    auto retried = as("bob", { "--json", "migrate", "initech", "--to", "s1" });
    ASSERT_EQ(retried.code, kAwaiting) << retried.err;
    auto withdrawn = as("bob", { "approvals", "remove", retried.parsed()["awaiting_approval"]["id"] });
    EXPECT_EQ(withdrawn.code, 0) << withdrawn.err;
    // A decided request stays: it is part of the record of who approved what.
    const std::string firstId = as("bob", { "--json", "approvals", "list", "--pending" }).parsed()[0]["id"];
    ASSERT_EQ(as("alice", { "approvals", "refuse", firstId }).code, 0);
    auto decided = as("alice", { "approvals", "remove", firstId });
    EXPECT_NE(decided.code, 0);
    EXPECT_NE(
        decided.err.find(firstId + " is refused; only a request not decided yet can be removed"), std::string::npos)
        << decided.err;
    expectServing("vera");
}

TEST_F(AdminQuotasTest, AStoreLargerThanTheMessageLimitIsReadWholeThroughThePages)
{
    start(R"({"max_spaces": 100})", R"({"max_spaces": 100})");
    // Written straight into the store, as an older shardmapd (or an etcd user) could: 70 pending
    // requests with a 1 MiB reason each (70 MiB, beyond the server's 65 MiB message limit), one
    // record of 10 MiB (more than a page holds), and the issue's request with a 30 MiB reason.
    {
        auto store = core::openStore(storeUri(), false);
        ASSERT_TRUE(store);
        for (int i = 0; i < 70; ++i) {
            v1::ApprovalInfo approval;
            approval.set_id("ap-17000000000" + std::to_string(10 + i) + "-0000");
            approval.set_state("pending");
            approval.set_requested_by("bob");
            approval.set_summary("move acme to s1: 1 space, 10 B");
            approval.set_requested_unix_ms(core::nowUnixMs());
            approval.set_reason(std::string(1u << 20, static_cast<char>('a' + i % 26)));
            put(**store, "approvals/" + approval.id(), core::encodeApproval(approval));
        }
        put(**store, "bulk/large", std::string(10u << 20, 'L') + "\xc3\xa9");
        v1::ApprovalInfo legacy;
        legacy.set_id("ap-1800000000000-ffff");
        legacy.set_state("pending");
        legacy.set_requested_by("mallory");
        legacy.set_requested_unix_ms(core::nowUnixMs());
        legacy.set_reason(std::string(30u << 20, 'z'));
        put(**store, "approvals/" + legacy.id(), core::encodeApproval(legacy));
    }
    auto direct = core::openStore(storeUri(), false);
    ASSERT_TRUE(direct);
    auto stored = (*direct)->snapshot();
    ASSERT_TRUE(stored);
    auto vera = client("vera");
    ASSERT_TRUE(vera);

    // The map, every record byte for byte, as of one revision.
    auto read = vera->readMap();
    ASSERT_TRUE(read) << read.error().describe();
    EXPECT_EQ(read->revision, stored->revision);
    ASSERT_EQ(read->records.size(), stored->records.size());
    for (const auto& [key, record] : stored->records) {
        SCOPED_TRACE(key);
        ASSERT_EQ(read->records.count(key), 1u);
        EXPECT_TRUE(read->records.at(key) == record);
    }
    EXPECT_EQ(read->records.at("bulk/large").value.size(), (10u << 20) + 2);

    // The approvals: each whole but the one larger than a response may be, whose reason is cut.
    auto approvals = vera->listApprovals(false);
    ASSERT_TRUE(approvals) << approvals.error().describe();
    ASSERT_EQ(approvals->size(), 71u);
    EXPECT_EQ(approvals->front().id(), "ap-1800000000000-ffff") << "newest first";
    EXPECT_TRUE(approvals->front().reason().ends_with("[cut: 31457280 bytes]"));
    EXPECT_LT(approvals->front().reason().size(), 70000u);
    for (std::size_t i = 1; i < approvals->size(); ++i) {
        EXPECT_EQ((*approvals)[i].reason().size(), 1u << 20) << (*approvals)[i].id();
        EXPECT_EQ((*approvals)[i].reason(), std::string(1u << 20, static_cast<char>('a' + (70 - i) % 26)));
    }

    // The audit history: every record, the same as the store's, but the oversized one cut.
    auto history = vera->readHistory(0, 0);
    ASSERT_TRUE(history) << history.error().describe();
    auto storedHistory = (*direct)->history(0, 0, 0);
    ASSERT_TRUE(storedHistory);
    ASSERT_EQ(history->size(), storedHistory->size());
    for (std::size_t i = 0; i + 1 < history->size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ((*history)[i].revision, (*storedHistory)[i].revision);
        EXPECT_TRUE((*history)[i].changes == (*storedHistory)[i].changes);
    }
    const core::AuditRecord& last = history->back();
    ASSERT_EQ(last.changes.size(), 1u);
    EXPECT_TRUE(last.changes[0].after->ends_with(" bytes]")) << "cut, and says so";

    // And shardmapctl reads the same through the Admin API.
    auto listed = as("vera", { "--json", "approvals", "list", "--pending" });
    EXPECT_EQ(listed.code, 0) << listed.err;
    EXPECT_EQ(listed.parsed().size(), 71u);
    expectServing("vera");
}

TEST_F(AdminQuotasTest, LeasesComeInPagesAndOneTooLargeForAResponseIsCut)
{
    start(R"({"max_spaces": 100})", R"({"max_spaces": 100})");
    // Written straight into the store: more leases than a page holds, leases whose holders (60
    // KiB each) fill a page's budget, two names longer than a name is listed (the second shares
    // the first's first 64 KiB) and one lease whose name and holder are 40 MiB each, more than a
    // response may carry with the token that names it.
    const std::string longName = "test/c-" + std::string(70 * 1024, 'n');
    const std::string hugeName = "test/d-" + std::string(40u << 20, 'N');
    std::vector<std::string> names;
    {
        auto store = core::openStore(storeUri(), false);
        ASSERT_TRUE(store);
        const auto lease = [&](const std::string& name, const std::string& holder) {
            auto granted = (*store)->acquireLease(name, holder, std::chrono::hours(1));
            ASSERT_TRUE(granted) << granted.error().describe();
            names.push_back(name);
        };
        for (int i = 0; i < 1500; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "test/a-%04d", i);
            lease(name, "holder");
        }
        for (int i = 0; i < 100; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "test/b-%03d", i);
            lease(name, std::string(60 * 1024, static_cast<char>('a' + i % 26)));
        }
        lease(longName, "holder");
        lease(longName + "2", "holder");
        lease(hugeName, std::string(40u << 20, 'H'));
        lease("test/e-last", "holder");
    }

    // Page by page, as the Admin API gives them: each well below the message limit.
    core::NodeClientOptions tls;
    tls.caFile = m_dir.file("ca.pem");
    tls.certFile = m_dir.file("vera.pem");
    tls.keyFile = m_dir.file("vera.key");
    auto credentials = core::clientChannelCredentials(tls);
    ASSERT_TRUE(credentials);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 * 1024 * 1024);
    auto stub = v1::Admin::NewStub(grpc::CreateCustomChannel(m_controller->address(), *credentials, args));
    int pages = 0;
    const auto readPages = [&](v1::ReadLeasesRequest request) {
        std::vector<v1::Lease> read;
        pages = 0;
        do {
            grpc::ClientContext context;
            context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
            v1::ReadLeasesResponse page;
            const grpc::Status status = stub->ReadLeases(&context, request, &page);
            EXPECT_TRUE(status.ok()) << "page " << pages << ": " << status.error_message();
            EXPECT_LT(page.ByteSizeLong(), 8u << 20) << "page " << pages;
            EXPECT_LE(page.next_page_token().size(), 64u * 1024 + 65) << "page " << pages;
            read.insert(read.end(), page.leases().begin(), page.leases().end());
            request.set_page_token(page.next_page_token());
            ++pages;
        } while (!request.page_token().empty() && pages < 100);
        return read;
    };
    v1::ReadLeasesRequest request;
    request.set_prefix("test/");
    const std::vector<v1::Lease> listed = readPages(request);
    EXPECT_GE(pages, 3) << "1000 leases a page, and no more than 4 MiB past a page's first";

    // Every lease once, in order; the long ones cut and saying so, the rest whole.
    ASSERT_EQ(listed.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        SCOPED_TRACE(i);
        const v1::Lease& lease = listed[i];
        if (names[i].size() <= 64 * 1024) {
            EXPECT_EQ(lease.name(), names[i]);
            EXPECT_FALSE(lease.cut());
            continue;
        }
        EXPECT_TRUE(lease.cut());
        EXPECT_EQ(
            lease.name(), names[i].substr(0, 64 * 1024) + " [cut: " + std::to_string(names[i].size()) + " bytes]");
    }
    EXPECT_EQ(listed[1599].holder(), std::string(60 * 1024, 'v')) << "a holder of 60 KiB is whole";
    EXPECT_EQ(listed[1602].holder(), std::string(64 * 1024, 'H') + " [cut: 41943040 bytes]");

    // One lease a page from test/b-099 on: a page that ends at a cut name goes on after it.
    request.set_page_token("test/b-099");
    request.set_page_size(1);
    const std::vector<v1::Lease> tail = readPages(request);
    ASSERT_EQ(tail.size(), 4u);
    for (std::size_t i = 0; i < tail.size(); ++i)
        EXPECT_EQ(tail[i].name(), listed[1600 + i].name()) << i;

    // The real client reads them whole through the pages, as shardmapctl and the console do.
    auto vera = client("vera");
    ASSERT_TRUE(vera);
    auto leases = vera->readLeases("test/");
    ASSERT_TRUE(leases) << leases.error().describe();
    EXPECT_EQ(leases->size(), names.size());
    expectServing("vera");
}

TEST_F(AdminQuotasTest, LimitsAndThresholdsCountAnIdentitysChangesOverTheWindow)
{
    // The issue's case: an operator may move 3 spaces, more than 2 need a second person.
    start(R"({"max_spaces": 3})", R"({"max_spaces": 2, "max_bytes": 0})");
    const auto made = [&](const std::string& space, const std::string& to) {
        auto run = as("bob", { "migrate", space, "--to", to });
        EXPECT_EQ(run.code, 0) << run.err;
        EXPECT_NE(run.out.find("migration m-"), std::string::npos) << run.out;
    };
    made("acme", "s1");
    made("globex", "s2");
    auto third = as("bob", { "migrate", "initech", "--to", "s1" });
    EXPECT_EQ(third.code, kAwaiting) << third.err;
    EXPECT_NE(third.out.find("it moves 3 spaces; more than 2 need a second person's approval (with the 2 spaces, "),
        std::string::npos)
        << third.out;
    EXPECT_NE(third.out.find(" bob moved or asked for in the last 60 minutes)"), std::string::npos) << third.out;
    const auto before = map().revision;
    auto fourth = as("bob", { "migrate", "hooli", "--to", "s2" });
    EXPECT_EQ(fourth.code, kRefused) << fourth.err;
    EXPECT_NE(fourth.err.find("bob is an operator; it moves 4 spaces; an operator may move 3 at once, more needs the "
                              "admin role (with the 3 spaces, "),
        std::string::npos)
        << fourth.err;
    EXPECT_EQ(map().revision, before) << "a refused request commits nothing";
    EXPECT_EQ(map().spaces.at("hooli").value.migrationId, "");

    // Another identity is not affected: olga moves a space at once.
    auto olga = as("olga", { "migrate", "hooli", "--to", "s1" });
    EXPECT_EQ(olga.code, 0) << olga.err;
    // Approving bob's third request makes it; it was counted while pending and still is.
    const std::string pending = as("olga", { "--json", "approvals", "list", "--pending" }).parsed()[0]["id"];
    auto approved = as("alice", { "approvals", "approve", pending });
    EXPECT_EQ(approved.code, 0) << approved.err;
    EXPECT_EQ(as("bob", { "migrate", "umbrella", "--to", "s2" }).code, kRefused);
    expectServing("bob");
}

TEST_F(AdminQuotasTest, APersonsCertificateAndTokenCountTogether)
{
    // bob's certificate and bob's CI token are one person: 4 spaces at most, more than 2 need a
    // second person, 1 request pending at a time. Each identity alone stays within all three.
    start(R"({"max_spaces": 4})", R"({"max_spaces": 2, "max_bytes": 0, "max_pending_per_identity": 1})",
        R"({"bob": ["bob", "token:bob.ci"]})");
    auto byCertificate = as("bob", { "migrate", "acme", "--to", "s1" });
    EXPECT_EQ(byCertificate.code, 0) << byCertificate.err;
    auto byToken = asToken({ "migrate", "globex", "--to", "s2" });
    EXPECT_EQ(byToken.code, 0) << byToken.err;

    // The token's second space is the person's third: above the approval threshold.
    auto third = asToken({ "--json", "migrate", "initech", "--to", "s1" });
    ASSERT_EQ(third.code, kAwaiting) << third.out << third.err;
    EXPECT_NE(third.out.find("it moves 3 spaces; more than 2 need a second person's approval (with the 2 spaces, "),
        std::string::npos)
        << third.out;
    EXPECT_NE(third.out.find(" person bob moved or asked for in the last 60 minutes)"), std::string::npos) << third.out;
    const std::string thirdId = third.parsed()["awaiting_approval"]["id"];
    EXPECT_EQ(third.parsed()["awaiting_approval"]["requested_by"], "token:bob.ci") << third.out;

    // The certificate may not ask for a second approval while the token's is pending.
    const auto before = map().revision;
    auto capped = as("bob", { "migrate", "hooli", "--to", "s2" });
    EXPECT_NE(capped.code, 0) << capped.out;
    EXPECT_NE(capped.err.find("person bob has 1 request awaiting approval, as many as "
                              "approval.max_pending_per_identity allows"),
        std::string::npos)
        << capped.err;
    EXPECT_EQ(map().revision, before) << "a refused request commits nothing";

    // Approved, the third counts as made; the token's next request is the person's fourth space.
    ASSERT_EQ(as("alice", { "approvals", "approve", thirdId }).code, 0);
    auto fourth = asToken({ "migrate", "hooli", "--to", "s2" });
    EXPECT_EQ(fourth.code, kAwaiting) << fourth.out << fourth.err;
    // A fifth is above the operator limit, whichever identity asks.
    auto fifth = as("bob", { "migrate", "umbrella", "--to", "s1" });
    EXPECT_EQ(fifth.code, kRefused) << fifth.out << fifth.err;
    EXPECT_NE(fifth.err.find("bob is an operator; it moves 5 spaces; an operator may move 4 at once, more needs the "
                             "admin role (with the 4 spaces, "),
        std::string::npos)
        << fifth.err;
    EXPECT_NE(fifth.err.find(" person bob moved or asked for in the last 60 minutes)"), std::string::npos) << fifth.err;
    EXPECT_EQ(map().spaces.at("umbrella").value.migrationId, "");

    // Another person counts only their own.
    auto olga = as("olga", { "migrate", "umbrella", "--to", "s1" });
    EXPECT_EQ(olga.code, 0) << olga.err;
    expectServing("vera");
}

TEST_F(AdminQuotasTest, ASpaceIsMeasuredOnItsNodeAndOneThatCannotBeIsRefused)
{
    // An operator may move 1 byte; more than 1 byte needs a second person.
    start(R"({"max_spaces": 100, "max_bytes": 1})", R"({"max_spaces": 100, "max_bytes": 1})");
    // A one-document space moved right after its write: no metrics sample has it yet.
    ASSERT_EQ(runCtl(m_dir, storeUri(), { "write", "--space", "wayne", "--id", "d1", "--field", "title=x" }).code, 0);
    const std::string home = map().spaces.at("wayne").value.shard;
    const std::string other = home == "s2" ? "s1" : "s2";
    auto byOperator = as("bob", { "migrate", "wayne", "--to", other });
    EXPECT_EQ(byOperator.code, kRefused) << byOperator.out << byOperator.err;
    EXPECT_NE(byOperator.err.find("bob is an operator; it moves "), std::string::npos) << byOperator.err;
    EXPECT_NE(byOperator.err.find("; an operator may move 1 B at once"), std::string::npos) << byOperator.err;
    auto byAdmin = as("alice", { "migrate", "wayne", "--to", other });
    EXPECT_EQ(byAdmin.code, kAwaiting) << byAdmin.out << byAdmin.err;
    EXPECT_NE(byAdmin.out.find(" needs a second person's approval"), std::string::npos) << byAdmin.out;

    // Its node down, the space cannot be measured: it counts as nothing known, not as empty.
    const std::string node = map().shards.at(home).value.node;
    ASSERT_EQ(m_nodes.at(node == "n0" ? 0 : 1)->stop(), 0);
    const auto before = map().revision;
    auto unmeasured = as("bob", { "migrate", "wayne", "--to", other });
    EXPECT_NE(unmeasured.code, 0) << unmeasured.out;
    EXPECT_NE(unmeasured.err.find("cannot measure space wayne on shard " + home + ": node " + node + " at "),
        std::string::npos)
        << unmeasured.err;
    auto alice = client("alice");
    ASSERT_TRUE(alice);
    v1::AdminChange moves;
    auto* move = moves.mutable_move_spaces()->add_moves();
    move->set_space("wayne");
    move->set_target_shard(other);
    auto moved = alice->change(moves, "rebalance");
    ASSERT_FALSE(moved);
    EXPECT_EQ(moved.error().code, core::ErrorCode::Unavailable);
    EXPECT_NE(moved.error().message.find("a change that moves a space is judged by its size, so try again when the "
                                         "node answers"),
        std::string::npos)
        << moved.error().message;
    EXPECT_EQ(map().revision, before) << "nothing is queued or asked for";
    EXPECT_EQ(map().spaces.at("wayne").value.migrationId, "");
    expectServing("vera");
}

} // namespace

// A fuzz test of shardmapd's Admin API (issue 25): random and mutated messages against a real
// shardmapd as an admin, an operator and a viewer, bounded in count and time. Changes with random
// fields and random or mutated JSON in plan_json, settings_json and policy_json go through the
// real client; random bytes and damaged requests of each method's own type go to every method the
// service descriptor lists (a method added later is fuzzed too) through grpc::GenericStub, below
// the generated code. shardmapd must never crash, must answer no message with INTERNAL (a
// caller's bad request is INVALID_ARGUMENT, a string that is not UTF-8 too), must let the viewer
// change nothing and must still serve a normal call afterwards. Each seed is printed;
// SHARDMAP_FUZZ_SEED=N runs that one seed again.
#include "admin_fixture.h"
#include "core/client/admin_client.h"
#include "core/plan/plan.h"
#include "shardmap/v1/admin.grpc.pb.h"

#include <cstdlib>
#include <fstream>
#include <future>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <grpcpp/generic/generic_stub.h>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

constexpr int kMessagesPerSeed = 400;
constexpr auto kTimePerSeed = std::chrono::seconds(3);
constexpr std::uint64_t kSeeds[] = { 1, 2, 3 };

// The callers, one of each role that may call at all.
const char* const kCallers[] = { "alice", "olga", "vera" };

// Every method of the Admin service, as the proto declares it.
std::vector<const google::protobuf::MethodDescriptor*> adminMethods()
{
    const auto* service
        = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(v1::Admin::service_full_name());
    std::vector<const google::protobuf::MethodDescriptor*> methods;
    for (int i = 0; service && i < service->method_count(); ++i)
        methods.push_back(service->method(i));
    return methods;
}

std::string pathOf(const google::protobuf::MethodDescriptor& method)
{
    return "/" + method.service()->full_name() + "/" + method.name();
}

// Ids and addresses that exist, nearly exist or are tricks; addresses stay on loopback so that
// no call waits on a name lookup.
const char* const kWords[] = { "", "s0", "s1", "n0", "n1", "acme", "globex", "s9", "../s0", "s0/../../x", "ap-1",
    "ap-0000000000000-0000", "m-1", "op-1", "drain", "split", "merge", "isolate", "retire-node", "move", "draining",
    "active", "retired", "readonly", "127.0.0.1:1", "alice", "title", "\xff\xfe" };
const char* const kKeys[] = { "version", "baseRevision", "moves", "newShards", "remaining", "kind", "subject", "into",
    "space", "from", "to", "id", "node", "state", "capacity_docs", "capacity_bytes", "roles", "default_role",
    "operator_limits", "approval", "max_spaces", "max_bytes", "expire_hours", "retire_node", "raise_limits",
    "max_concurrent", "max_per_node", "backfill_batch", "max_target_fill", "rollback_window_seconds",
    "cutover_timeout_ms", "start_retry_seconds", "alice" };
const char* const kNumbers[] = { "0", "1", "-1", "2", "64", "8760", "8761", "4294967296", "5000000000000000",
    "18446744073709551615", "18446744073709551616", "-9223372036854775808", "1e308", "-1e308", "0.5", "1.5", "1e-300" };

class Fuzzer {
public:
    // `ids`: ids that exist in the store now (pending approvals), picked beside kWords.
    Fuzzer(std::uint64_t seed, std::vector<std::string> ids)
        : m_random(seed)
        , m_ids(std::move(ids))
    {
    }

    std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(m_random); }
    bool chance(int percent) { return below(100) < static_cast<std::size_t>(percent); }
    template <typename T, std::size_t N> const T& pick(const T (&items)[N]) { return items[below(N)]; }

    std::string bytes(std::size_t most)
    {
        std::string out(below(most + 1), '\0');
        for (char& c : out)
            c = static_cast<char>(below(256));
        return out;
    }

    std::string text()
    {
        if (!m_ids.empty() && chance(15))
            return m_ids[below(m_ids.size())];
        return chance(70) ? std::string(pick(kWords)) : bytes(40);
    }

    // A JSON value: scalars, containers of plausible keys, and runs of nesting up to 100,000 deep.
    json value(int depth = 0)
    {
        switch (below(depth > 3 ? 4 : 7)) {
        case 0: return nullptr;
        case 1: return json::parse(pick(kNumbers));
        case 2: return chance(50);
        case 3: return text();
        case 4: {
            json object = json::object();
            for (std::size_t i = below(5); i > 0; --i)
                object[pick(kKeys)] = value(depth + 1);
            return object;
        }
        case 5: {
            json array = json::array();
            for (std::size_t i = below(5); i > 0; --i)
                array.push_back(value(depth + 1));
            return array;
        }
        default: return json::array();
        }
    }

    std::string dump(const json& doc) { return doc.dump(-1, ' ', false, json::error_handler_t::replace); }

    // A document shardmapd reads, with some of its values replaced.
    std::string perturbed(json doc)
    {
        for (std::size_t i = below(3) + 1; i > 0; --i) {
            json* at = &doc;
            while (at->is_structured() && !at->empty() && chance(50)) {
                auto it = at->begin();
                std::advance(it, static_cast<std::ptrdiff_t>(below(at->size())));
                at = &*it;
            }
            if (at->is_object() && chance(50))
                (*at)[pick(kKeys)] = value();
            else
                *at = value();
        }
        return dump(doc);
    }

    std::string deep(const std::string& inside)
    {
        const std::size_t levels = chance(50) ? 60 + below(10) : 1 + below(100'000);
        const std::string open = chance(50) ? "[" : "{\"a\":";
        std::string out;
        out.reserve(levels * (open.size() + 1) + inside.size());
        for (std::size_t i = 0; i < levels; ++i)
            out += open;
        out += inside;
        for (std::size_t i = 0; i < levels && chance(95); ++i)
            out += open == "[" ? ']' : '}';
        return out;
    }

    // Byte-level damage: flips, insertions, deletions, truncation, a deep run spliced in.
    std::string mutated(std::string text)
    {
        for (std::size_t i = below(4) + 1; i > 0; --i) {
            const std::size_t at = text.empty() ? 0 : below(text.size());
            switch (below(5)) {
            case 0:
                if (!text.empty())
                    text[at] = static_cast<char>(below(256));
                break;
            case 1: text.insert(at, bytes(8)); break;
            case 2: text.erase(at, below(16)); break;
            case 3: text.resize(at); break;
            default: text.insert(at, deep("1")); break;
            }
        }
        return text;
    }

    // Random JSON, a valid document, one with values replaced, one damaged, or a deep one.
    std::string jsonField(const json& valid)
    {
        switch (below(5)) {
        case 0: return dump(value());
        case 1: return dump(valid);
        case 2: return perturbed(valid);
        case 3: return mutated(dump(valid));
        default: return deep(dump(value()));
        }
    }

    v1::AdminChange change(const json& plan, const json& settings, const json& policy)
    {
        v1::AdminChange change;
        switch (below(14)) {
        case 0: {
            auto& queue = *change.mutable_queue_migration();
            queue.set_space(text());
            queue.set_target_shard(text());
            queue.set_throttle(m_random());
            break;
        }
        case 1: {
            auto& steer = *change.mutable_steer_migration();
            steer.set_migration(text());
            steer.set_action(static_cast<v1::SteerMigration::Action>(below(7)));
            break;
        }
        case 2:
            change.mutable_set_throttle()->set_migration(text());
            change.mutable_set_throttle()->set_docs_per_second(m_random());
            break;
        case 3: change.mutable_set_settings()->set_settings_json(jsonField(settings)); break;
        case 4: change.mutable_apply_plan()->set_plan_json(jsonField(plan)); break;
        case 5: {
            auto& operation = *change.mutable_start_operation();
            operation.set_kind(text());
            operation.set_subject(text());
            operation.set_into(text());
            operation.set_node(text());
            break;
        }
        case 6:
            for (std::size_t i = below(4); i > 0; --i) {
                auto* move = change.mutable_move_spaces()->add_moves();
                move->set_space(text());
                move->set_target_shard(text());
            }
            change.mutable_move_spaces();
            break;
        case 7:
            change.mutable_add_node()->set_id(text());
            change.mutable_add_node()->set_address(pick(kWords));
            (*change.mutable_add_node()->mutable_labels())[text()] = text();
            break;
        case 8: change.mutable_remove_node()->set_id(text()); break;
        case 9: {
            auto& shard = *change.mutable_create_shard();
            shard.set_id(text());
            shard.set_node(text());
            shard.add_fields(text());
            shard.set_capacity_docs(m_random());
            shard.set_capacity_bytes(m_random());
            break;
        }
        case 10:
            change.mutable_set_shard_state()->set_shard(text());
            change.mutable_set_shard_state()->set_state(text());
            break;
        case 11:
            change.mutable_pin_space()->set_space(text());
            change.mutable_pin_space()->set_shard(text());
            break;
        case 12:
            change.mutable_reassign_space()->set_space(text());
            change.mutable_reassign_space()->set_shard(text());
            break;
        default:
            change.mutable_set_access_policy()->set_policy_json(jsonField(policy));
            if (chance(50))
                change.mutable_set_access_policy()->set_policy_revision(m_random() % 1000);
            break;
        }
        return change;
    }

    // The bytes of a request to the method: random, or a request of its own type, damaged or
    // (sometimes) whole.
    std::string payload(const google::protobuf::MethodDescriptor& method, const v1::AdminChange& change)
    {
        if (chance(30))
            return bytes(256);
        std::unique_ptr<google::protobuf::Message> request(
            google::protobuf::MessageFactory::generated_factory()->GetPrototype(method.input_type())->New());
        fill(*request, change);
        return chance(20) ? request->SerializeAsString() : mutated(request->SerializeAsString());
    }

private:
    // Sets most of a message's singular fields by reflection, whatever its type: words and ids
    // for strings, random numbers, the fuzzed change for an AdminChange.
    void fill(google::protobuf::Message& message, const v1::AdminChange& change)
    {
        using Field = google::protobuf::FieldDescriptor;
        const auto* reflection = message.GetReflection();
        const auto* type = message.GetDescriptor();
        for (int i = 0; i < type->field_count(); ++i) {
            const Field* field = type->field(i);
            if (field->is_repeated() || chance(20))
                continue;
            switch (field->cpp_type()) {
            case Field::CPPTYPE_STRING: reflection->SetString(&message, field, text()); break;
            case Field::CPPTYPE_BOOL: reflection->SetBool(&message, field, chance(50)); break;
            case Field::CPPTYPE_UINT32:
                reflection->SetUInt32(&message, field, static_cast<std::uint32_t>(m_random()));
                break;
            case Field::CPPTYPE_UINT64: reflection->SetUInt64(&message, field, m_random()); break;
            case Field::CPPTYPE_INT32:
                reflection->SetInt32(&message, field, static_cast<std::int32_t>(m_random()));
                break;
            case Field::CPPTYPE_INT64:
                reflection->SetInt64(&message, field, static_cast<std::int64_t>(m_random()));
                break;
            case Field::CPPTYPE_ENUM: reflection->SetEnumValue(&message, field, static_cast<int>(below(8))); break;
            case Field::CPPTYPE_MESSAGE:
                if (field->message_type() == v1::AdminChange::descriptor())
                    reflection->MutableMessage(&message, field)->CopyFrom(change);
                break;
            default: break;
            }
        }
    }

    std::mt19937_64 m_random;
    std::vector<std::string> m_ids;
};

class AdminFuzzTest : public AdminFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(makeTestCertificates(m_dir.path()));
        for (const char* name : kCallers)
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        startCtlFleet(m_dir, storeUri(), m_nodes);
        ASSERT_EQ(
            runCtl(m_dir, storeUri(), { "write", "--space", "acme", "--id", "d1", "--field", "title=x" }).code, 0);
        // A policy file, so that a fuzzed SetAccessPolicy (which writes the store's) cannot lock
        // the test out; no executor, so that what the calls queue stays queued.
        std::ofstream(m_dir.file("access.json")) << R"({"version": 1,
            "roles": {"alice": "admin", "olga": "operator", "vera": "viewer"},
            "approval": {"max_spaces": 1, "max_bytes": 1}})";
        m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"),
            { "--store", storeUri(), "--id", "c1", "--no-executor", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
                m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy",
                m_dir.file("access.json") });
        ASSERT_TRUE(m_controller);
    }

    std::unique_ptr<core::AdminClient> client(const std::string& who)
    {
        return adminClient(who, std::chrono::seconds(5));
    }

    std::shared_ptr<grpc::Channel> channel(const std::string& who)
    {
        core::NodeClientOptions tls;
        tls.caFile = m_dir.file("ca.pem");
        tls.certFile = m_dir.file(who + ".pem");
        tls.keyFile = m_dir.file(who + ".key");
        auto credentials = core::clientChannelCredentials(tls);
        EXPECT_TRUE(credentials);
        grpc::ChannelArguments args;
        args.SetMaxSendMessageSize(64 * 1024 * 1024);
        return grpc::CreateCustomChannel(m_controller->address(), *credentials, args);
    }

    // Valid documents of each kind, for the fuzzer to start from.
    json validPlan()
    {
        core::Plan plan;
        plan.baseRevision = map().revision;
        plan.kind = "split";
        plan.subject = map().spaces.at("acme").value.shard;
        plan.newShards.push_back({ "s9", "n0", core::ShardState::Active, 0, 0 });
        plan.addMove({ "acme", plan.subject, "s9" });
        return json::parse(plan.encode());
    }
};

grpc::StatusCode rawCall(grpc::GenericStub& stub, const std::string& method, const std::string& bytes)
{
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
        [&done](grpc::Status status) { done.set_value(std::move(status)); });
    return done.get_future().get().error_code();
}

TEST_F(AdminFuzzTest, RandomAndMutatedMessagesNeverCrashShardmapdAndItKeepsServing)
{
    const json plan = validPlan();
    const json settings = json::parse(core::encode(core::MigrationSettings {}));
    const json policy = json::parse(R"({"version": 1, "roles": {"alice": "admin", "bob": "operator"},
        "default_role": "none", "operator_limits": {"max_spaces": 2, "max_bytes": 1000},
        "approval": {"max_spaces": 1, "max_bytes": 10, "retire_node": true, "raise_limits": true, "expire_hours": 24}})");
    std::vector<std::uint64_t> seeds(std::begin(kSeeds), std::end(kSeeds));
    if (const char* seed = std::getenv("SHARDMAP_FUZZ_SEED"))
        seeds = { std::stoull(seed) };

    const auto methods = adminMethods();
    ASSERT_GE(methods.size(), 9u) << "the Admin service as the descriptor pool has it";
    std::map<std::string, std::unique_ptr<core::AdminClient>> clients;
    std::map<std::string, std::unique_ptr<grpc::GenericStub>> stubs;
    for (const char* who : kCallers) {
        clients[who] = client(who);
        ASSERT_TRUE(clients[who]);
        stubs[who] = std::make_unique<grpc::GenericStub>(channel(who));
    }
    // Pending requests, so that deciding and removing find something to act on.
    std::vector<std::string> ids;
    for (const char* who : { "olga", "alice" }) {
        v1::AdminChange migrate;
        migrate.mutable_queue_migration()->set_space("acme");
        migrate.mutable_queue_migration()->set_target_shard(map().spaces.at("acme").value.shard == "s0" ? "s1" : "s0");
        auto asked = clients[who]->change(migrate, "fuzz");
        ASSERT_TRUE(asked) << asked.error().describe();
        ASSERT_TRUE(asked->has_awaiting_approval()) << who;
        ids.push_back(asked->awaiting_approval().id());
    }
    for (const std::uint64_t seed : seeds) {
        SCOPED_TRACE("SHARDMAP_FUZZ_SEED=" + std::to_string(seed));
        Fuzzer fuzzer(seed, ids);
        std::map<std::string, int> answers;
        // A caller's bad request is INVALID_ARGUMENT (or another refusal), never a server fault.
        int internal = 0;
        std::string firstInternal;
        const auto until = std::chrono::steady_clock::now() + kTimePerSeed;
        int sent = 0;
        for (; sent < kMessagesPerSeed && std::chrono::steady_clock::now() < until; ++sent) {
            const v1::AdminChange change = fuzzer.change(plan, settings, policy);
            const std::string who = fuzzer.pick(kCallers);
            if (fuzzer.chance(50)) {
                auto made = clients[who]->change(change, fuzzer.text());
                ++answers[who + " Change " + (made ? "OK" : core::errorCodeName(made.error().code))];
                if (!made && made.error().code == core::ErrorCode::Internal && internal++ == 0)
                    firstInternal = "message " + std::to_string(sent) + " as " + who + ": " + made.error().describe();
            } else {
                const auto& method = *methods[fuzzer.below(methods.size())];
                const grpc::StatusCode code = rawCall(*stubs[who], pathOf(method), fuzzer.payload(method, change));
                ++answers[who + " " + method.name() + " " + std::to_string(static_cast<int>(code))];
                if (code == grpc::StatusCode::INTERNAL && internal++ == 0)
                    firstInternal = "message " + std::to_string(sent) + " to " + pathOf(method) + " as " + who;
            }
            ASSERT_FALSE(m_controller->process().wait(std::chrono::milliseconds(0)))
                << "shardmapd exited at message " << sent << " of seed " << seed << ":\n"
                << m_controller->stderrText();
        }
        std::string summary;
        for (const auto& [answer, count] : answers)
            summary += " " + answer + "=" + std::to_string(count);
        std::cout << "admin fuzz seed " << seed << ": " << sent << " messages;" << summary << "\n";
        EXPECT_EQ(internal, 0) << "the first at " << firstInternal << "; answers:" << summary;
    }

    // The viewer changed nothing and asked for nothing: no audit record is theirs.
    for (const core::AuditRecord& record : audit())
        EXPECT_NE(record.actor, "vera") << record.action << " at revision " << record.revision;

    // A normal call as another caller still works.
    auto who = client("vera")->whoAmI();
    ASSERT_TRUE(who) << who.error().describe();
    EXPECT_EQ(who->identity(), "vera");
    auto read = client("vera")->readMap();
    ASSERT_TRUE(read) << read.error().describe();
    EXPECT_GT(read->records.size(), 0u);
}

TEST_F(AdminFuzzTest, TextThatIsNotUtf8IsInvalidArgumentNamingTheFieldNeverInternal)
{
    // Through the real client, as shardmapctl and the console call: refused before it is sent,
    // naming the field.
    auto admin = client("alice");
    ASSERT_TRUE(admin);
    v1::AdminChange change;
    change.mutable_queue_migration()->set_space("acme");
    change.mutable_queue_migration()->set_target_shard("s\xff");
    auto made = admin->change(change, "rebalance");
    ASSERT_FALSE(made);
    EXPECT_EQ(made.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_EQ(
        made.error().message, "change.queue_migration.target_shard is not valid UTF-8; the Admin API takes text only");
    auto refused = admin->refuse("ap-1", "no \xed\xa0\x80");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().message, "reason is not valid UTF-8; the Admin API takes text only");
    auto ctl = as("alice", { "migrate", "acme\xc3", "--to", "s1" });
    EXPECT_NE(ctl.code, 0);
    EXPECT_NE(ctl.err.find("change.queue_migration.space is not valid UTF-8"), std::string::npos) << ctl.err;

    // Sent anyway, below the generated code: shardmapd says it is the request, not a fault.
    v1::ChangeRequest request;
    *request.mutable_change() = change;
    grpc::GenericStub raw(channel("alice"));
    for (const char* method : { "/shardmap.v1.Admin/Change", "/shardmap.v1.Admin/Approve" })
        EXPECT_EQ(rawCall(raw, method, request.SerializeAsString()), grpc::StatusCode::INVALID_ARGUMENT) << method;
    EXPECT_EQ(map().spaces.at("acme").value.migrationId, "");
    auto who = client("vera")->whoAmI();
    ASSERT_TRUE(who) << who.error().describe();
}

} // namespace

// Issue 25: the node's request decoding under random and mutated input. Every method of
// shardmap.v1.Node of a real shardmap-node gets valid protobufs with random field values, the same
// with bytes flipped, inserted or cut, and random bytes, through grpc::GenericStub; bounded in
// count and time, from fixed seeds (printed, so a failure is reproducible). The node must answer
// each call with a status (any code: refusing is its right), never crash, and serve normally after.
#include "core/util/validation.h"
#include "node_test_helpers.h"
#include "tests/support/controller_process.h"

#include <condition_variable>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/logging.h>
#include <grpcpp/generic/generic_stub.h>
#include <iostream>
#include <limits>
#include <mutex>
#include <random>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr int kCallsPerSeed = 600;
constexpr auto kTimePerSeed = std::chrono::seconds(8);
// A stream's first answer shows the request was decoded; the rest would only take time.
constexpr int kMaxReadsPerCall = 1;

// Values that reach the node's checks: the shard and space the test made, ids at and past their
// limits, paths, invalid UTF-8, control characters and query syntax.
std::vector<std::string> interestingTexts()
{
    return { "", "s1", "s2", "fz", "acme", "beta", "d1", "title", "body", "tags", std::string(64, 's'),
        std::string(65, 's'), std::string(129, 'a'), std::string(513, 'd'), std::string(5000, 'q'), "../../etc/passwd",
        ".hidden", "s1/../s2", std::string("s1\0x", 4), "\xff\xfe\xfd", "\x01\x02\x1f", "caf\xc3\xa9", "\"unterminated",
        "((((((((((", "a AND (b OR NOT c)", "title:x*", "*", "NOT", "NEAR(a b, 2)", "a:b:c" };
}

std::vector<std::uint64_t> interestingNumbers()
{
    constexpr auto kMax64 = std::numeric_limits<std::uint64_t>::max();
    return { 0, 1, 2, 3, 5, 100, 199, 200, 1000, 5000, 5001, 10000, 10001, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
        core::kMaxEpoch - 1, core::kMaxEpoch, core::kMaxEpoch + 1, std::uint64_t { 1 } << 63, kMax64 - 1, kMax64 };
}

// Random protobuf messages of any type, through reflection, and raw byte mutations of them.
class MessageFuzzer final {
public:
    explicit MessageFuzzer(std::uint64_t seed)
        : m_random(seed)
    {
    }

    void fill(Message& message, int depth)
    {
        const auto* descriptor = message.GetDescriptor();
        for (int i = 0; i < descriptor->field_count(); ++i) {
            const FieldDescriptor* field = descriptor->field(i);
            if (below(3) == 0)
                continue;
            const int count = field->is_repeated() ? static_cast<int>(below(depth > 1 ? 3 : 8)) : 1;
            for (int n = 0; n < count; ++n)
                setField(message, field, depth);
        }
    }

    std::string mutate(std::string bytes)
    {
        const int edits = 1 + static_cast<int>(below(4));
        for (int i = 0; i < edits; ++i) {
            const auto at = bytes.empty() ? 0 : below(bytes.size());
            switch (below(4)) {
            case 0:
                if (!bytes.empty())
                    bytes[at] = static_cast<char>(below(256));
                break;
            case 1: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(below(256))); break;
            case 2:
                if (!bytes.empty())
                    bytes.erase(at, 1 + below(8));
                break;
            default: bytes.resize(at); break;
            }
        }
        return bytes;
    }

    std::string randomBytes()
    {
        std::string bytes(below(512), '\0');
        for (auto& byte : bytes)
            byte = static_cast<char>(below(256));
        return bytes;
    }

    std::uint64_t below(std::uint64_t bound) { return bound == 0 ? 0 : m_random() % bound; }

private:
    std::string text()
    {
        static const auto texts = interestingTexts();
        if (below(4) != 0)
            return texts[below(texts.size())];
        std::string random(below(40), ' ');
        for (auto& c : random)
            c = static_cast<char>(32 + below(95));
        return random;
    }

    std::uint64_t number()
    {
        static const auto numbers = interestingNumbers();
        return below(4) != 0 ? numbers[below(numbers.size())] : m_random();
    }

    void setField(Message& message, const FieldDescriptor* field, int depth)
    {
        const auto* reflection = message.GetReflection();
        const bool repeated = field->is_repeated();
        switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_STRING:
            repeated ? reflection->AddString(&message, field, text()) : reflection->SetString(&message, field, text());
            break;
        case FieldDescriptor::CPPTYPE_INT32: {
            const auto value = static_cast<std::int32_t>(number());
            repeated ? reflection->AddInt32(&message, field, value) : reflection->SetInt32(&message, field, value);
            break;
        }
        case FieldDescriptor::CPPTYPE_INT64: {
            const auto value = static_cast<std::int64_t>(number());
            repeated ? reflection->AddInt64(&message, field, value) : reflection->SetInt64(&message, field, value);
            break;
        }
        case FieldDescriptor::CPPTYPE_UINT32: {
            const auto value = static_cast<std::uint32_t>(number());
            repeated ? reflection->AddUInt32(&message, field, value) : reflection->SetUInt32(&message, field, value);
            break;
        }
        case FieldDescriptor::CPPTYPE_UINT64: {
            const auto value = number();
            repeated ? reflection->AddUInt64(&message, field, value) : reflection->SetUInt64(&message, field, value);
            break;
        }
        case FieldDescriptor::CPPTYPE_DOUBLE:
        case FieldDescriptor::CPPTYPE_FLOAT: setFloating(message, field); break;
        case FieldDescriptor::CPPTYPE_BOOL:
            repeated ? reflection->AddBool(&message, field, below(2) == 1)
                     : reflection->SetBool(&message, field, below(2) == 1);
            break;
        case FieldDescriptor::CPPTYPE_ENUM: {
            // Proto3 enums are open: values no name has reach the node too.
            const int value = static_cast<int>(below(6)) - 1;
            repeated ? reflection->AddEnumValue(&message, field, value)
                     : reflection->SetEnumValue(&message, field, value);
            break;
        }
        case FieldDescriptor::CPPTYPE_MESSAGE:
            if (depth < 4)
                fill(repeated ? *reflection->AddMessage(&message, field) : *reflection->MutableMessage(&message, field),
                    depth + 1);
            break;
        }
    }

    void setFloating(Message& message, const FieldDescriptor* field)
    {
        static const double values[]
            = { 0.0, -1.0, 1e308, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity() };
        const double value = values[below(std::size(values))];
        const auto* reflection = message.GetReflection();
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE)
            field->is_repeated() ? reflection->AddDouble(&message, field, value)
                                 : reflection->SetDouble(&message, field, value);
        else
            field->is_repeated() ? reflection->AddFloat(&message, field, static_cast<float>(value))
                                 : reflection->SetFloat(&message, field, static_cast<float>(value));
    }

    std::mt19937_64 m_random;
};

// One call of a Node method with a raw payload, framed as the wire has it whatever the method's
// kind: one message and the half-close, then up to kMaxReadsPerCall answers (a stream is cancelled
// after them).
class RawCall final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
public:
    RawCall(grpc::GenericStub& stub, const std::string& method, const std::string& payload)
    {
        m_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
        grpc::Slice slice(payload);
        m_request = grpc::ByteBuffer(&slice, 1);
        stub.PrepareBidiStreamingCall(&m_context, method, grpc::StubOptions(), this);
        StartWriteLast(&m_request, grpc::WriteOptions());
        StartRead(&m_response);
        StartCall();
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return;
        if (++m_reads >= kMaxReadsPerCall) {
            m_context.TryCancel();
            return;
        }
        StartRead(&m_response);
    }

    void OnDone(const grpc::Status& status) override
    {
        std::lock_guard lock(m_mutex);
        m_status = status;
        m_done = true;
        m_finished.notify_all();
    }

    grpc::Status await()
    {
        std::unique_lock lock(m_mutex);
        m_finished.wait(lock, [this] { return m_done; });
        return m_status;
    }

private:
    grpc::ClientContext m_context;
    grpc::ByteBuffer m_request;
    grpc::ByteBuffer m_response;
    int m_reads = 0;
    std::mutex m_mutex;
    std::condition_variable m_finished;
    bool m_done = false;
    grpc::Status m_status;
};

struct Method {
    std::string path;
    const google::protobuf::Descriptor* input;
};

std::vector<Method> nodeMethods()
{
    const auto* service
        = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(v1::Node::service_full_name());
    std::vector<Method> methods;
    for (int i = 0; service && i < service->method_count(); ++i) {
        const auto* method = service->method(i);
        methods.push_back({ "/" + service->full_name() + "/" + method->name(), method->input_type() });
    }
    return methods;
}

bool stillRunning(NodeProcess& node)
{
    return !node.process().wait(std::chrono::milliseconds(0)).has_value();
}

class NodeFuzzTest : public ::testing::TestWithParam<std::uint64_t> { };

} // namespace

TEST_P(NodeFuzzTest, RandomAndMutatedRequestsToEveryMethodLeaveTheNodeServing)
{
    const std::uint64_t seed = GetParam();
    std::cout << "node fuzz seed " << seed << " (rerun: --gtest_filter='*NodeFuzz*/" << seed - 1 << "')" << std::endl;
    TempDir dir;
    auto node = NodeProcess::start(dir.file("data"), { "--metrics-tick-ms", "200" });
    ASSERT_TRUE(node);
    ASSERT_TRUE(createShard(node->stub(), "s1").ok());
    ASSERT_TRUE(setOwner(node->stub(), "s1", "acme", 1).ok());
    v1::BulkWriteResponse written;
    ASSERT_TRUE(bulkWrite(node->stub(), "s1", { makeDoc("acme", "d1", 1, "before the fuzz") }, 1, &written).ok());

    const auto methods = nodeMethods();
    ASSERT_EQ(methods.size(), 17u) << "every method of shardmap.v1.Node";
    MessageFuzzer fuzzer(seed);
    grpc::GenericStub generic(node->channel());
    std::map<std::string, std::map<grpc::StatusCode, int>> answers;
    const auto deadline = std::chrono::steady_clock::now() + kTimePerSeed;
    int calls = 0;
    // Strings with invalid UTF-8 are what the node must refuse; protobuf need not say so for each.
    const google::protobuf::LogSilencer quiet;
    for (; calls < kCallsPerSeed && std::chrono::steady_clock::now() < deadline; ++calls) {
        const Method& method = methods[static_cast<std::size_t>(calls) % methods.size()];
        std::unique_ptr<Message> message(
            google::protobuf::MessageFactory::generated_factory()->GetPrototype(method.input)->New());
        fuzzer.fill(*message, 0);
        std::string payload = message->SerializeAsString();
        const auto kind = fuzzer.below(3);
        if (kind == 1)
            payload = fuzzer.mutate(std::move(payload));
        else if (kind == 2)
            payload = fuzzer.randomBytes();
        RawCall call(generic, method.path, payload);
        const auto status = call.await();
        ++answers[method.path][status.error_code()];
        ASSERT_NE(status.error_code(), grpc::StatusCode::UNAVAILABLE)
            << "seed " << seed << ", call " << calls << " (" << method.path << ", payload kind " << kind
            << "): " << status.error_message() << "\n"
            << node->stderrText();
        ASSERT_TRUE(stillRunning(*node)) << "seed " << seed << ", call " << calls << " (" << method.path << ")\n"
                                         << node->stderrText();
        // Damaged bytes are the caller's bad request, never a fault of the node.
        EXPECT_NE(status.error_code(), grpc::StatusCode::INTERNAL)
            << "seed " << seed << ", call " << calls << " (" << method.path << ", payload kind " << kind
            << "): " << status.error_message();
    }
    std::cout << "node fuzz seed " << seed << ": " << calls << " calls" << std::endl;
    for (const auto& [path, codes] : answers) {
        std::cout << "  " << path << ":";
        for (const auto& [code, count] : codes)
            std::cout << " " << static_cast<int>(code) << "x" << count;
        std::cout << std::endl;
    }

    // Whatever the fuzz did to s1 (dropped it, fenced it), a new shard takes writes and searches.
    ASSERT_TRUE(stillRunning(*node)) << node->stderrText();
    ASSERT_TRUE(createShard(node->stub(), "after").ok());
    ASSERT_TRUE(setOwner(node->stub(), "after", "fresh", 1).ok());
    ASSERT_TRUE(
        bulkWrite(node->stub(), "after", { makeDoc("fresh", "d1", 1, "served after the fuzz") }, 1, &written).ok());
    EXPECT_EQ(written.applied(), 1u);
    v1::SearchResponse found;
    ASSERT_TRUE(search(node->stub(), "after", { "fresh" }, "fuzz", &found).ok());
    EXPECT_EQ(found.hits_size(), 1);
    EXPECT_EQ(node->stop(), 0) << node->stderrText();
}

INSTANTIATE_TEST_SUITE_P(Seeds, NodeFuzzTest, ::testing::Values(1, 2, 3));

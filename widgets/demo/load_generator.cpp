// LoadGenerator's implementation: one thread writing batches and searching through the Router service,
// with a deadline on every call.
#include "widgets/demo/load_generator.h"

#include "shardmap/v1/router.grpc.pb.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <grpcpp/grpcpp.h>

namespace shardmap::widgets {

namespace {

constexpr auto kTick = std::chrono::milliseconds(100);
constexpr int kTicksPerSecond = 10;
constexpr auto kCallDeadline = std::chrono::seconds(3);

constexpr std::array<const char*, 24> kWords { "quarterly", "report", "revenue", "north", "south", "update", "upgrade",
    "release", "notes", "meeting", "plan", "budget", "invoice", "contract", "design", "review", "search", "index",
    "shard", "tenant", "migration", "backup", "restore", "roadmap" };

std::unique_ptr<grpc::ClientContext> callContext()
{
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    return context;
}

} // namespace

struct LoadGenerator::Router {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Router::Stub> stub;
};

LoadGenerator::LoadGenerator(Options options)
    : m_options(std::move(options))
    , m_random(m_options.seed * 0x9E3779B97F4A7C15ULL + 1)
{
    m_options.spaces = std::max(1, m_options.spaces);
    // Zipf: the space of rank r gets a share proportional to 1 / r^s.
    double total = 0;
    for (int rank = 1; rank <= m_options.spaces; ++rank) {
        total += 1.0 / std::pow(rank, m_options.zipfExponent);
        m_cumulative.push_back(total);
    }
    for (double& value : m_cumulative)
        value /= total;
    m_nextId.assign(static_cast<std::size_t>(m_options.spaces), 0);
}

LoadGenerator::~LoadGenerator()
{
    stop();
}

std::string LoadGenerator::spaceName(int rank)
{
    char name[32];
    std::snprintf(name, sizeof name, "tenant-%02d", rank);
    return name;
}

void LoadGenerator::start()
{
    if (m_thread.joinable())
        return;
    m_router = std::make_unique<Router>();
    m_router->channel = grpc::CreateChannel(m_options.routerAddress, grpc::InsecureChannelCredentials());
    m_router->stub = v1::Router::NewStub(m_router->channel);
    m_stopRequested = false;
    m_thread = std::thread([this] { run(); });
}

void LoadGenerator::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopRequested = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

std::string LoadGenerator::lastError() const
{
    std::lock_guard lock(m_errorMutex);
    return m_lastError;
}

void LoadGenerator::run()
{
    const int docsPerTick = std::max(1, m_options.docsPerSecond / kTicksPerSecond);
    const int ticksPerSearch
        = m_options.searchesPerSecond > 0 ? std::max(1, kTicksPerSecond / m_options.searchesPerSecond) : 0;
    auto next = std::chrono::steady_clock::now();
    for (std::uint64_t tick = 0;; ++tick) {
        {
            std::unique_lock lock(m_mutex);
            if (m_wake.wait_until(lock, next, [this] { return m_stopRequested; }))
                return;
        }
        next += kTick;
        writeBatch(docsPerTick);
        if (ticksPerSearch > 0 && tick % static_cast<std::uint64_t>(ticksPerSearch) == 0)
            searchOnce();
    }
}

int LoadGenerator::pickRank()
{
    // xorshift64*: cheap, deterministic for a seed, good enough to pick spaces and words.
    m_random ^= m_random >> 12;
    m_random ^= m_random << 25;
    m_random ^= m_random >> 27;
    const double unit = static_cast<double>((m_random * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
    const auto found = std::lower_bound(m_cumulative.begin(), m_cumulative.end(), unit);
    return static_cast<int>(std::min<std::ptrdiff_t>(found - m_cumulative.begin(), m_options.spaces - 1)) + 1;
}

void LoadGenerator::writeBatch(int count)
{
    v1::RouterWriteRequest request;
    for (int i = 0; i < count; ++i) {
        const int rank = pickRank();
        const std::uint64_t item = ++m_nextId[static_cast<std::size_t>(rank - 1)];
        const char* first = kWords[(item * 7 + static_cast<std::uint64_t>(rank)) % kWords.size()];
        const char* second = kWords[(item * 13) % kWords.size()];
        const char* third = kWords[(item * 3 + static_cast<std::uint64_t>(rank)) % kWords.size()];
        char id[32];
        std::snprintf(id, sizeof id, "doc-%06llu", static_cast<unsigned long long>(item));
        auto& doc = *request.add_docs();
        doc.set_space(spaceName(rank));
        doc.set_id(id);
        doc.set_version(1);
        auto& fields = *doc.mutable_fields();
        fields["title"] = std::string(first) + " " + second;
        fields["body"]
            = std::string("the ") + third + " " + first + " of " + doc.space() + ", item " + std::to_string(item);
        fields["tags"] = "demo";
    }
    v1::RouterWriteResponse response;
    const auto status = m_router->stub->BulkWrite(callContext().get(), request, &response);
    if (!status.ok()) {
        recordError("write: " + status.error_message());
        return;
    }
    m_writes += response.applied();
    if (response.rejected() > 0) {
        m_errors += response.rejected();
        for (const auto& result : response.results()) {
            if (!result.reason().empty()) {
                std::lock_guard lock(m_errorMutex);
                m_lastError = "write rejected: " + result.reason();
                break;
            }
        }
    }
}

void LoadGenerator::searchOnce()
{
    int rank = pickRank();
    if (m_nextId[static_cast<std::size_t>(rank - 1)] == 0)
        rank = 1; // Only spaces that exist; the largest does after the first writes.
    if (m_nextId[static_cast<std::size_t>(rank - 1)] == 0)
        return;
    v1::RouterSearchRequest request;
    request.add_spaces(spaceName(rank));
    request.set_query(kWords[m_random % kWords.size()]);
    request.set_limit(10);
    request.set_snippets(true);
    v1::RouterSearchResponse response;
    const auto status = m_router->stub->Search(callContext().get(), request, &response);
    if (!status.ok()) {
        recordError("search: " + status.error_message());
        return;
    }
    ++m_searches;
}

void LoadGenerator::recordError(const std::string& error)
{
    ++m_errors;
    std::lock_guard lock(m_errorMutex);
    m_lastError = error;
}

} // namespace shardmap::widgets

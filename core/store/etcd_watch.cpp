#include "core/store/etcd_watch.h"

// EtcdWatch's implementation: the read that catches up, the etcd watch stream that follows, and
// the start-over after a gap, a compaction or a lost stream.

#include "core/store/etcd_client.h"
#include "core/store/etcd_store_codec.h"

#include <condition_variable>

namespace shardmap::core {

using namespace etcd_codec;

namespace {

// Audit records read per Range while catching up.
constexpr std::int64_t kCatchUpBatch = 256;
constexpr std::chrono::milliseconds kFirstPause { 50 };
constexpr std::chrono::milliseconds kLongestPause { 1000 };

bool isTransient(const Error& error)
{
    return error.code == ErrorCode::Unavailable || error.code == ErrorCode::DeadlineExceeded;
}

} // namespace

struct EtcdWatchRegistry::Entry {
    virtual ~Entry() = default;
    virtual void closeByStore() = 0;
};

void EtcdWatchRegistry::close()
{
    std::vector<std::shared_ptr<Entry>> live;
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        for (const auto& entry : m_entries) {
            if (auto alive = entry.lock())
                live.push_back(std::move(alive));
        }
        m_entries.clear();
    }
    for (const auto& entry : live)
        entry->closeByStore();
}

// Shared between the handle and the thread, so that a callback may destroy its own handle (the
// thread is then detached and ends after the callback returns).
struct EtcdWatch::State final : EtcdWatchRegistry::Entry {
    State(std::shared_ptr<EtcdClient> etcd, std::string keyRoot, std::uint64_t from, WatchCallback recordCallback,
        WatchErrorCallback errorCallback, std::chrono::milliseconds retry)
        : client(std::move(etcd))
        , root(std::move(keyRoot))
        , last(from)
        , onRecord(std::move(recordCallback))
        , onError(std::move(errorCallback))
        , retryFor(retry)
    {
    }

    void closeByStore() override { end(closed); }
    void stop() { end(stopping); }
    void end(bool& flag);
    bool ended();
    bool pause(std::chrono::milliseconds duration);

    void run();
    Result<std::int64_t> catchUp();
    Status follow(std::int64_t fromEtcdRevision);
    Status followStream(EtcdClient::WatchStream& stream, std::int64_t fromEtcdRevision, bool& relist);
    bool deliver(const AuditRecord& record);
    void fail(const Error& error);

    const std::shared_ptr<EtcdClient> client;
    const std::string root;
    std::uint64_t last; // only the watch thread touches it
    const WatchCallback onRecord;
    const WatchErrorCallback onError;
    const std::chrono::milliseconds retryFor;

    std::mutex mutex;
    std::condition_variable wake;
    bool stopping = false; // the handle was destroyed
    bool closed = false; // the store was destroyed
    grpc::ClientContext* context = nullptr; // of the open stream, cancelled to end a blocked Read
};

void EtcdWatch::State::end(bool& flag)
{
    std::lock_guard lock(mutex);
    flag = true;
    if (context)
        context->TryCancel();
    wake.notify_all();
}

bool EtcdWatch::State::ended()
{
    std::lock_guard lock(mutex);
    return stopping || closed;
}

// Waits for duration; false when the watch ended meanwhile.
bool EtcdWatch::State::pause(std::chrono::milliseconds duration)
{
    std::unique_lock lock(mutex);
    return !wake.wait_for(lock, duration, [this] { return stopping || closed; });
}

void EtcdWatch::State::run()
{
    auto lastRead = std::chrono::steady_clock::now();
    auto delay = kFirstPause;
    while (!ended()) {
        auto seen = catchUp();
        if (ended())
            break;
        if (!seen) {
            if (!isTransient(seen.error()) || std::chrono::steady_clock::now() - lastRead > retryFor) {
                fail(seen.error());
                return;
            }
            pause(delay);
            delay = std::min(delay * 2, kLongestPause);
            continue;
        }
        lastRead = std::chrono::steady_clock::now();
        delay = kFirstPause;
        auto followed = follow(*seen + 1);
        if (!followed && !isTransient(followed.error()) && !ended()) {
            fail(followed.error());
            return;
        }
        if (!followed)
            pause(delay);
    }
    bool byStore = false;
    {
        std::lock_guard lock(mutex);
        byStore = closed && !stopping;
    }
    if (byStore)
        fail(makeError(ErrorCode::Unavailable, "the store was closed"));
}

// Delivers the audit records after `last` that exist now; returns the etcd revision they were
// read at, from which the stream continues.
Result<std::int64_t> EtcdWatch::State::catchUp()
{
    while (true) {
        etcdserverpb::RangeRequest request;
        request.set_key(auditKey(root, last + 1));
        request.set_range_end(rangeEnd(auditPrefix(root)));
        request.set_limit(kCatchUpBatch);
        auto response = client->range(request);
        if (!response)
            return response.error();
        for (const auto& kv : response->kvs()) {
            auto record = decodeAudit(kv.value());
            if (!record)
                return record.error();
            if (record->revision != last + 1)
                return makeError(ErrorCode::FailedPrecondition,
                    "audit record " + std::to_string(last + 1) + " is gone; the watch cannot continue");
            if (!deliver(*record))
                return response->header().revision();
        }
        if (!response->more())
            return response->header().revision();
    }
}

Status EtcdWatch::State::follow(std::int64_t fromEtcdRevision)
{
    grpc::ClientContext streamContext;
    {
        std::lock_guard lock(mutex);
        if (stopping || closed)
            return {};
        context = &streamContext;
    }
    const auto forget = [this] {
        std::lock_guard lock(mutex);
        context = nullptr;
    };
    const std::size_t endpoint = client->currentEndpoint();
    auto stream = client->openWatch(streamContext);
    if (!stream) {
        forget();
        return stream.error();
    }
    bool relist = false;
    auto& open = *stream;
    auto followed = followStream(*open.stream, fromEtcdRevision, relist);
    // Reads until the stream ends, so that Finish may be called.
    streamContext.TryCancel();
    etcdserverpb::WatchResponse ignored;
    while (open.stream->Read(&ignored)) { }
    const grpc::Status status = open.stream->Finish();
    forget();
    if (!followed)
        return followed;
    if (relist || ended() || status.ok())
        return {};
    client->endpointFailed(endpoint);
    return makeError(ErrorCode::Unavailable, "the etcd watch stream ended: " + status.error_message());
}

// Delivers what the stream brings until it ends, or (relist) until the watch must start over
// with a read: etcd cancelled it (compaction) or a revision would be skipped.
Status EtcdWatch::State::followStream(EtcdClient::WatchStream& stream, std::int64_t fromEtcdRevision, bool& relist)
{
    etcdserverpb::WatchRequest request;
    auto* create = request.mutable_create_request();
    create->set_key(auditPrefix(root));
    create->set_range_end(rangeEnd(auditPrefix(root)));
    create->set_start_revision(fromEtcdRevision);
    if (!stream.Write(request))
        return {};
    etcdserverpb::WatchResponse response;
    while (stream.Read(&response)) {
        if (response.canceled() || response.compact_revision() != 0) {
            relist = true;
            return {};
        }
        for (const auto& event : response.events()) {
            if (event.type() != mvccpb::Event::PUT)
                continue;
            auto record = decodeAudit(event.kv().value());
            if (!record)
                return record.error();
            if (record->revision <= last)
                continue;
            if (record->revision != last + 1 || !deliver(*record)) {
                relist = true;
                return {};
            }
        }
    }
    return {};
}

bool EtcdWatch::State::deliver(const AuditRecord& record)
{
    if (ended())
        return false;
    onRecord(record);
    last = record.revision;
    return true;
}

void EtcdWatch::State::fail(const Error& error)
{
    if (onError)
        onError(error);
}

std::unique_ptr<WatchHandle> EtcdWatch::start(std::shared_ptr<EtcdClient> client, std::string root,
    std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError, std::chrono::milliseconds retryFor,
    const std::shared_ptr<EtcdWatchRegistry>& registry)
{
    auto state = std::make_shared<State>(
        std::move(client), std::move(root), fromRevision, std::move(onRecord), std::move(onError), retryFor);
    {
        std::lock_guard lock(registry->m_mutex);
        std::erase_if(registry->m_entries, [](const auto& entry) { return entry.expired(); });
        if (registry->m_closed)
            state->closed = true;
        else
            registry->m_entries.push_back(state);
    }
    return std::unique_ptr<WatchHandle>(new EtcdWatch(std::move(state)));
}

EtcdWatch::EtcdWatch(std::shared_ptr<State> state)
    : m_state(std::move(state))
    , m_thread([state = m_state] { state->run(); })
{
}

EtcdWatch::~EtcdWatch()
{
    m_state->stop();
    if (m_thread.get_id() == std::this_thread::get_id())
        m_thread.detach(); // destroyed from its own callback: it cannot wait for itself
    else
        m_thread.join();
}

} // namespace shardmap::core

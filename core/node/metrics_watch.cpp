#include "core/node/metrics_watch.h"

// MetricsWatchers' implementation: each stream's states on the completion queue (a call, a write,
// an alarm until the next sample, the finish, the call's end), the per-peer count of streams, and
// stopping them all at shutdown.

#include <algorithm>
#include <array>
#include <grpcpp/alarm.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/proto_buffer_reader.h>
#include <grpcpp/support/proto_buffer_writer.h>

namespace shardmap::core {

namespace {

std::chrono::milliseconds watchInterval(const v1::WatchMetricsRequest& request)
{
    return std::chrono::milliseconds(
        request.interval_ms() == 0 ? 1000 : std::max<std::uint32_t>(request.interval_ms(), 200));
}

} // namespace

// One stream. At most one of its operations (the call awaited, a write, an alarm, the finish) is
// pending at a time, besides the call's end (AsyncNotifyWhenDone), which gRPC delivers only for a
// call that started. The queue's thread runs every step; stop() may come from another thread, so
// the state is under m_mutex. The stream is deleted once its finish and its end both came back.
class MetricsWatchers::Stream final {
public:
    enum class Op { Call, Write, Alarm, Finish, Done, None };
    struct Tag {
        Stream* stream = nullptr;
        Op op = Op::Call;
    };

    explicit Stream(MetricsWatchers& owner)
        : m_owner(owner)
        , m_writer(&m_context)
    {
        for (std::size_t i = 0; i < m_tags.size(); ++i)
            m_tags[i] = Tag { this, static_cast<Op>(i) };
    }

    void await(Service& service, grpc::ServerCompletionQueue& queue)
    {
        m_queue = &queue;
        std::lock_guard lock(m_mutex);
        m_pending = Op::Call;
        m_context.AsyncNotifyWhenDone(tag(Op::Done));
        service.RequestWatchMetrics(&m_context, &m_received, &m_writer, &queue, &queue, tag(Op::Call));
    }

    const std::string& peer() const { return m_peer; }
    bool admitted() const { return m_admitted; }

    // Ends the stream at the next chance: a wait is cut short, a write in flight completes first.
    void stop()
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        if (m_pending == Op::Alarm && m_alarm)
            m_alarm->Cancel();
    }

    // One completion; true when the stream is over and may be deleted.
    bool step(Op op, bool ok)
    {
        std::unique_lock lock(m_mutex);
        switch (op) {
        case Op::Call: return started(ok, lock);
        case Op::Write: return ok && !m_stop ? armAlarm() : finish(grpc::Status::OK);
        case Op::Alarm: return ok && !m_stop ? writeSample() : finish(grpc::Status::OK);
        case Op::Finish:
            m_pending = Op::None;
            m_finished = true;
            return m_done;
        case Op::Done:
            m_done = true;
            if (m_pending == Op::Alarm && m_alarm)
                m_alarm->Cancel(); // the client went away: end now rather than at the next sample
            return m_finished;
        case Op::None: break;
        }
        return false;
    }

private:
    void* tag(Op op) { return &m_tags[static_cast<std::size_t>(op)]; }

    bool started(bool ok, std::unique_lock<std::mutex>& lock)
    {
        if (!ok)
            return true; // the server is shutting down: the call never started, nor will its end come
        m_peer = peerHost(m_context.peer());
        if (!grpc::SerializationTraits<v1::WatchMetricsRequest>::Deserialize(&m_received, &m_request).ok()) {
            lock.unlock();
            m_owner.awaitCall();
            lock.lock();
            return finish(m_owner.m_refuse(&m_context,
                makeError(ErrorCode::InvalidArgument,
                    "the request to /shardmap.v1.Node/WatchMetrics is not a message of its type: damaged, or a string "
                    "field is not valid UTF-8")));
        }
        m_interval = watchInterval(m_request);
        m_next = std::chrono::steady_clock::now();
        lock.unlock();
        m_owner.awaitCall();
        auto admitted = m_owner.admit(*this);
        lock.lock();
        if (!admitted)
            return finish(m_owner.m_refuse(&m_context, admitted.error()));
        m_admitted = true;
        return m_stop ? finish(grpc::Status::OK) : writeSample();
    }

    bool writeSample()
    {
        bool owned = false;
        m_sample.Clear();
        if (!grpc::SerializationTraits<v1::NodeMetrics>::Serialize(
                m_owner.m_metrics.current(m_request.include_spaces()), &m_sample, &owned)
                 .ok())
            return finish(grpc::Status(grpc::StatusCode::INTERNAL, "the metrics sample did not serialize"));
        m_pending = Op::Write;
        m_writer.Write(m_sample, tag(Op::Write));
        return false;
    }

    bool armAlarm()
    {
        m_next += m_interval;
        // The alarm takes the system clock; the schedule keeps to the steady one.
        const auto due = std::chrono::system_clock::now()
            + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                std::max(m_next - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero()));
        m_pending = Op::Alarm;
        m_alarm = std::make_unique<grpc::Alarm>();
        m_alarm->Set(m_queue, due, tag(Op::Alarm));
        return false;
    }

    bool finish(grpc::Status status)
    {
        m_pending = Op::Finish;
        m_writer.Finish(status, tag(Op::Finish));
        return false;
    }

    MetricsWatchers& m_owner;
    grpc::ServerContext m_context;
    grpc::ByteBuffer m_received;
    v1::WatchMetricsRequest m_request;
    grpc::ServerAsyncWriter<grpc::ByteBuffer> m_writer;
    grpc::ServerCompletionQueue* m_queue = nullptr;
    std::array<Tag, 5> m_tags {}; // one per Op but None
    std::string m_peer;
    std::chrono::milliseconds m_interval { 1000 };
    std::chrono::steady_clock::time_point m_next;
    grpc::ByteBuffer m_sample;
    std::unique_ptr<grpc::Alarm> m_alarm;
    std::mutex m_mutex;
    Op m_pending = Op::None;
    bool m_admitted = false;
    bool m_stop = false;
    bool m_finished = false;
    bool m_done = false;
};

MetricsWatchers::MetricsWatchers(NodeMetricsSampler& metrics, std::size_t maxPerPeer)
    : m_metrics(metrics)
    , m_maxPerPeer(maxPerPeer)
{
}

MetricsWatchers::~MetricsWatchers()
{
    close();
}

void MetricsWatchers::attach(grpc::ServerBuilder& builder, Service& service, Refuse refuse)
{
    m_service = &service;
    m_refuse = std::move(refuse);
    m_queue = builder.AddCompletionQueue();
}

void MetricsWatchers::start()
{
    if (!m_queue || m_thread.joinable())
        return;
    awaitCall();
    m_thread = std::thread([this] { run(); });
}

void MetricsWatchers::awaitCall()
{
    std::unique_ptr<Stream> stream;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        stream = std::make_unique<Stream>(*this);
        m_streams.insert(stream.get());
    }
    stream.release()->await(*m_service, *m_queue);
}

void MetricsWatchers::run()
{
    void* tag = nullptr;
    bool ok = false;
    while (m_queue->Next(&tag, &ok)) {
        const auto* done = static_cast<const Stream::Tag*>(tag);
        Stream* stream = done->stream;
        if (stream->step(done->op, ok)) {
            release(*stream);
            delete stream;
        }
    }
}

Status MetricsWatchers::admit(Stream& stream)
{
    std::lock_guard lock(m_mutex);
    if (m_stopping)
        return makeError(ErrorCode::Unavailable, "the node is shutting down");
    std::size_t& held = m_perPeer[stream.peer()];
    if (held >= m_maxPerPeer)
        return makeError(ErrorCode::ResourceExhausted,
            stream.peer() + " has " + std::to_string(held) + " metrics streams open, the most one peer may hold "
                + "(--max-watch-streams-per-peer); close one first: one stream per node is enough for a console");
    ++held;
    return {};
}

void MetricsWatchers::stopAll()
{
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    for (Stream* stream : m_streams)
        stream->stop();
}

void MetricsWatchers::close()
{
    if (!m_queue)
        return;
    stopAll();
    m_queue->Shutdown();
    if (m_thread.joinable())
        m_thread.join();
    else
        run(); // never started: the calls awaited come back refused
    m_queue.reset();
}

void MetricsWatchers::release(Stream& stream)
{
    std::lock_guard lock(m_mutex);
    m_streams.erase(&stream);
    if (!stream.admitted())
        return;
    const auto found = m_perPeer.find(stream.peer());
    if (found != m_perPeer.end() && --found->second == 0)
        m_perPeer.erase(found);
}

std::string peerHost(const std::string& peer)
{
    const auto scheme = peer.find(':');
    const auto port = peer.rfind(':');
    return scheme == std::string::npos || port == scheme ? peer : peer.substr(0, port);
}

} // namespace shardmap::core

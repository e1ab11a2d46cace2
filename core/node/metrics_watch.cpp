#include "core/node/metrics_watch.h"

// MetricsWatchers' implementation: each stream's reactor and alarm, the per-peer count of streams,
// and stopping them all at shutdown.

#include <algorithm>
#include <grpcpp/alarm.h>
#include <memory>

namespace shardmap::core {

namespace {

class Finished final : public grpc::ServerWriteReactor<v1::NodeMetrics> {
public:
    explicit Finished(grpc::Status status) { Finish(std::move(status)); }
    void OnDone() override { delete this; }
};

std::chrono::milliseconds watchInterval(const v1::WatchMetricsRequest& request)
{
    return std::chrono::milliseconds(
        request.interval_ms() == 0 ? 1000 : std::max<std::uint32_t>(request.interval_ms(), 200));
}

} // namespace

// One stream: a write, then an alarm until the next sample is due, then a write, and so on. At
// most one of them is pending, and the stream finishes only from the completion of that one (a
// write that failed, an alarm cancelled, or either after stop()), so OnDone, which deletes the
// stream, never runs while an alarm could still call it. gRPC is never called under m_mutex
// except to arm or cancel the alarm, whose callback runs on another thread.
class MetricsWatchers::Stream final : public grpc::ServerWriteReactor<v1::NodeMetrics> {
public:
    Stream(MetricsWatchers& owner, std::string peer, const v1::WatchMetricsRequest& request)
        : m_owner(owner)
        , m_peer(std::move(peer))
        , m_interval(watchInterval(request))
        , m_includeSpaces(request.include_spaces())
        , m_next(std::chrono::steady_clock::now())
    {
    }

    const std::string& peer() const { return m_peer; }

    void start()
    {
        {
            std::lock_guard lock(m_mutex);
            m_pending = Pending::Write;
        }
        writeSample();
    }

    // Ends the stream at the next chance: a wait is cut short, a write in flight completes first.
    void stop()
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        if (m_pending == Pending::Alarm)
            m_alarm->Cancel();
    }

    void OnWriteDone(bool ok) override
    {
        std::unique_lock lock(m_mutex);
        if (!ok || m_stop)
            return finish(lock);
        m_next += m_interval;
        // The alarm takes the system clock; the schedule keeps to the steady one.
        const auto due = std::chrono::system_clock::now()
            + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                std::max(m_next - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero()));
        m_pending = Pending::Alarm;
        // A new alarm each time: the previous one's callback may still be returning.
        m_alarm = std::make_unique<grpc::Alarm>();
        m_alarm->Set(due, [this](bool fired) { onAlarm(fired); });
    }

    void OnCancel() override { stop(); }

    void OnDone() override
    {
        m_owner.release(this);
        delete this;
    }

private:
    enum class Pending { None, Write, Alarm };

    void onAlarm(bool fired)
    {
        std::unique_lock lock(m_mutex);
        if (!fired || m_stop)
            return finish(lock);
        m_pending = Pending::Write;
        lock.unlock();
        writeSample();
    }

    void writeSample()
    {
        m_sample = m_owner.m_metrics.current(m_includeSpaces);
        StartWrite(&m_sample);
    }

    // The last thing this stream does: OnDone may delete it as soon as Finish is called.
    void finish(std::unique_lock<std::mutex>& lock)
    {
        m_pending = Pending::None;
        lock.unlock();
        Finish(grpc::Status::OK);
    }

    MetricsWatchers& m_owner;
    const std::string m_peer;
    const std::chrono::milliseconds m_interval;
    const bool m_includeSpaces;
    std::chrono::steady_clock::time_point m_next;
    v1::NodeMetrics m_sample;
    std::mutex m_mutex;
    Pending m_pending = Pending::None;
    bool m_stop = false;
    std::unique_ptr<grpc::Alarm> m_alarm;
};

MetricsWatchers::MetricsWatchers(NodeMetricsSampler& metrics, std::size_t maxPerPeer)
    : m_metrics(metrics)
    , m_maxPerPeer(maxPerPeer)
{
}

Result<grpc::ServerWriteReactor<v1::NodeMetrics>*> MetricsWatchers::watch(
    grpc::CallbackServerContext* context, const v1::WatchMetricsRequest& request)
{
    std::string peer = peerHost(context->peer());
    Stream* stream = nullptr;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return makeError(ErrorCode::Unavailable, "the node is shutting down");
        std::size_t& held = m_perPeer[peer];
        if (held >= m_maxPerPeer)
            return makeError(ErrorCode::ResourceExhausted,
                peer + " has " + std::to_string(held) + " metrics streams open, the most one peer may hold "
                    + "(--max-watch-streams-per-peer); close one first: one stream per node is enough for a console");
        ++held;
        stream = new Stream(*this, std::move(peer), request);
        m_streams.insert(stream);
    }
    stream->start();
    return static_cast<grpc::ServerWriteReactor<v1::NodeMetrics>*>(stream);
}

void MetricsWatchers::stopAll()
{
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    for (Stream* stream : m_streams)
        stream->stop();
}

void MetricsWatchers::release(Stream* stream)
{
    std::lock_guard lock(m_mutex);
    m_streams.erase(stream);
    const auto found = m_perPeer.find(stream->peer());
    if (found != m_perPeer.end() && --found->second == 0)
        m_perPeer.erase(found);
}

grpc::ServerWriteReactor<v1::NodeMetrics>* finishedStream(grpc::Status status)
{
    return new Finished(std::move(status));
}

std::string peerHost(const std::string& peer)
{
    const auto scheme = peer.find(':');
    const auto port = peer.rfind(':');
    return scheme == std::string::npos || port == scheme ? peer : peer.substr(0, port);
}

} // namespace shardmap::core

#pragma once

// Watches on an etcd store's audit, and the registry that ends them with the store.

#include "core/store/metadata_store.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shardmap::core {

class EtcdClient;
class EtcdWatch;

// The live watches of one EtcdStore, so that destroying the store ends them.
class EtcdWatchRegistry final {
public:
    // Ends every live watch with Unavailable "the store was closed"; later watches start closed.
    void close();

    struct Entry;

private:
    friend class EtcdWatch;
    std::mutex m_mutex;
    bool m_closed = false;
    std::vector<std::weak_ptr<Entry>> m_entries;
};

// A watch on an EtcdStore's audit records (internal to core/store), run by one thread: it reads the
// audit keys after the last delivered revision, then streams an etcd Watch on the audit prefix from
// the etcd revision of that read. A cancelled or compacted etcd watch, a revision gap or a lost
// stream start over with a read, moving to the next endpoint after a failure; it gives up with
// onError when no read succeeds for retryFor.
class EtcdWatch final : public WatchHandle {
public:
    static std::unique_ptr<WatchHandle> start(std::shared_ptr<EtcdClient> client, std::string root,
        std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError,
        std::chrono::milliseconds retryFor, const std::shared_ptr<EtcdWatchRegistry>& registry);
    ~EtcdWatch() override;

    EtcdWatch(const EtcdWatch&) = delete;
    EtcdWatch& operator=(const EtcdWatch&) = delete;

    struct State;

private:
    explicit EtcdWatch(std::shared_ptr<State> state);

    std::shared_ptr<State> m_state;
    std::thread m_thread;
};

} // namespace shardmap::core

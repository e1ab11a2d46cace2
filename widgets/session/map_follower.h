#pragma once

// The shard map as the connected store moves it: a whole read first, then one watch whose commits
// are applied on the pool to the map shown (a whole read again when they cannot be), refreshes
// one at a time and coalesced, and every retired map freed on the pool.

#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "widgets/bridge/background.h"

#include <QObject>
#include <QThreadPool>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shardmap::widgets {

using MapPtr = std::shared_ptr<const core::MapSnapshot>;
using NodeRecords = std::map<std::string, core::NodeRecord>;

class MapFollower : public QObject {
    Q_OBJECT
public:
    // pool and generation belong to the owner (the connection) and outlive this object: an
    // answer that arrives after the owner's generation moved on is dropped.
    MapFollower(QThreadPool& pool, const Generation& generation, QObject* parent = nullptr);
    ~MapFollower() override;

    // Follows store from a whole read (compared with the map shown, if any).
    void follow(std::shared_ptr<core::MetadataStore> store);
    // Stops following (the watch ends, commits not taken yet are dropped); the map stays shown.
    void stop();
    // stop(), and the map forgotten.
    void clear();

    // The newest map (nullptr before the first one arrived).
    MapPtr map() const { return m_map; }

signals:
    // A first read found these node records, before the whole map decoded: the node streams need
    // only them, and their first samples then come with the map.
    void nodesListed(const shardmap::widgets::NodeRecords& nodes);
    // A map arrived; changed: it is a new revision, map() now.
    void mapArrived(bool changed);
    // A read or the watch failed, in the owner's generation `generation`.
    void failed(std::uint64_t generation, const shardmap::core::Error& error);

private:
    // The commits the watch delivered that no refresh has taken yet, in revision order. The
    // watch appends on the store's thread; each watch has its own, so an old watch's late
    // records never reach a newer map.
    struct WatchedCommits {
        std::mutex mutex;
        std::vector<core::AuditRecord> records;
    };

    // Reads the map anew (the watched commits applied to the shown one, or a whole read). A
    // retired map is freed on the pool first.
    void refresh(MapPtr retired = {});
    std::vector<core::AuditRecord> takeWatchedCommits();
    void mapRead(std::uint64_t generation, core::Result<core::MapSnapshot> map);
    void startWatch(std::uint64_t generation, std::uint64_t fromRevision);
    void releaseOnPool(MapPtr map);
    static void releaseMap(MapPtr& map);

    QThreadPool& m_pool;
    const Generation& m_generation;
    std::shared_ptr<core::MetadataStore> m_store;
    std::shared_ptr<core::WatchHandle> m_watch;
    bool m_watchStarted = false;
    std::shared_ptr<WatchedCommits> m_watched;
    bool m_refreshRunning = false;
    bool m_refreshPending = false;
    MapPtr m_map;
};

} // namespace shardmap::widgets

// MapFollower's implementation: the pool's side of a refresh (commits applied, or a whole read
// decoded, indexed and diffed) and the UI thread's (one refresh at a time, the watch started
// after the first map, the map not shown freed on the pool).
#include "widgets/session/map_follower.h"

#include "core/map/map_commits.h"
#include "widgets/session/pool_disposal.h"

#include <QPointer>
#include <functional>
#include <utility>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace shardmap::widgets {

namespace {

// The node records of a store snapshot, without decoding the rest of it.
NodeRecords nodeRecordsOf(const core::StoreSnapshot& snapshot)
{
    NodeRecords nodes;
    const std::string prefix(core::keys::kNodes);
    for (auto it = snapshot.records.lower_bound(prefix); it != snapshot.records.end() && it->first.starts_with(prefix);
         ++it) {
        if (auto node = core::decodeNode(it->second.value)) {
            nodes.emplace(node->id, std::move(*node));
        }
    }
    return nodes;
}

using ListNodes = std::function<void(std::shared_ptr<const NodeRecords>)>;

// On the pool: the whole map read and decoded, indexed, and compared with previous. Without a
// previous map the node records are listed first: a large fleet's first map takes seconds to
// decode.
core::Result<core::MapSnapshot> readWholeMap(core::MetadataStore& store, MapPtr previous, const ListNodes& listNodes)
{
    auto snapshot = store.snapshot();
    if (!snapshot) {
        return snapshot.error();
    }
    if (!previous) {
        listNodes(std::make_shared<const NodeRecords>(nodeRecordsOf(*snapshot)));
    }
    auto map = core::MapSnapshot::decode(std::move(*snapshot));
    if (!map) {
        return map;
    }
#ifdef __GLIBC__
    // The raw records were read on this thread and freed while other threads decoded
    // (their arenas hold the map now): a million spaces' JSON stays in this thread's
    // arena, counted in the console's RSS, unless given back.
    ::malloc_trim(0);
#endif
    // Every view asks which spaces a shard holds and what changed: answered here, once.
    map->buildIndex();
    if (previous && previous->revision != map->revision) {
        map->changes = std::make_shared<const core::MapChanges>(core::diffMaps(*previous, *map));
    }
    return map;
}

// On the pool: the watched commits on top of the map shown, or else the whole map. previous is
// released here, on the pool, not by the UI thread when the job's closure goes there.
core::Result<core::MapSnapshot> readNextMap(core::MetadataStore& store, MapPtr previous,
    const std::vector<core::AuditRecord>& commits, const ListNodes& listNodes)
{
    if (previous && !commits.empty()) {
        // Only what the commits name is decoded: at a million spaces a whole read and decode is
        // seconds per commit.
        auto applied = core::applyCommits(*previous, commits);
        if (applied) {
            return applied;
        }
        // A missing commit or a record that does not decode: the whole map says what is
        // true (or fails with the record's error, as it would have anyway).
    }
    return readWholeMap(store, std::move(previous), listNodes);
}

} // namespace

MapFollower::MapFollower(QThreadPool& pool, const Generation& generation, QObject* parent)
    : QObject(parent)
    , m_pool(pool)
    , m_generation(generation)
{
}

MapFollower::~MapFollower()
{
    clear();
}

void MapFollower::follow(std::shared_ptr<core::MetadataStore> store)
{
    m_store = std::move(store);
    m_watchStarted = false;
    refresh();
}

void MapFollower::stop()
{
    disposeOnPool(m_pool, std::move(m_watch));
    m_watchStarted = false;
    m_watched.reset();
    m_store.reset();
    m_refreshRunning = false;
    m_refreshPending = false;
}

void MapFollower::clear()
{
    stop();
    m_map.reset();
}

std::vector<core::AuditRecord> MapFollower::takeWatchedCommits()
{
    std::vector<core::AuditRecord> commits;
    if (m_watched) {
        std::lock_guard lock(m_watched->mutex);
        commits.swap(m_watched->records);
    }
    return commits;
}

void MapFollower::refresh(MapPtr retired)
{
    if (!m_store || m_refreshRunning) {
        m_refreshPending = m_refreshPending || (m_store && m_refreshRunning);
        releaseOnPool(std::move(retired));
        return;
    }
    std::vector<core::AuditRecord> commits = takeWatchedCommits();
    if (m_map && m_watchStarted && commits.empty()) {
        m_refreshPending = false;
        releaseOnPool(std::move(retired));
        return; // an earlier refresh took this commit already
    }
    m_refreshRunning = true;
    m_refreshPending = false;
    const std::uint64_t generation = m_generation.current();
    QPointer<MapFollower> self(this);
    ListNodes listNodes = [self, generation](std::shared_ptr<const NodeRecords> nodes) {
        postTo(self.data(), [self, generation, nodes] {
            if (self->m_generation.isCurrent(generation) && !self->m_map) {
                emit self->nodesListed(*nodes);
            }
        });
    };
    // Read while the pool decodes: only mapRead (this thread) replaces m_map, and refreshes
    // run one at a time, so this is the map the new one is compared with.
    runInBackground(
        m_pool, this,
        [store = m_store, previous = m_map, commits = std::move(commits), retired = std::move(retired),
            listNodes = std::move(listNodes)]() mutable -> core::Result<core::MapSnapshot> {
            releaseMap(retired);
            return readNextMap(*store, std::move(previous), commits, listNodes);
        },
        [this, generation](core::Result<core::MapSnapshot> map) { mapRead(generation, std::move(map)); });
}

void MapFollower::mapRead(std::uint64_t generation, core::Result<core::MapSnapshot> map)
{
    if (!m_generation.isCurrent(generation)) {
        return; // closed, reopened or failed meanwhile
    }
    m_refreshRunning = false;
    if (!map) {
        emit failed(generation, map.error());
        return;
    }
    const std::uint64_t revision = map->revision;
    const bool changed = !m_map || m_map->revision != revision;
    auto arrived = std::make_shared<const core::MapSnapshot>(std::move(*map));
    // The one not shown (the old map, or a refresh that found the same revision) is freed on the
    // pool: a million spaces take the UI thread hundreds of ms to free.
    MapPtr previous = changed ? std::exchange(m_map, std::move(arrived)) : std::move(arrived);
    if (!m_watchStarted) {
        m_watchStarted = true;
        startWatch(generation, revision);
    }
    emit mapArrived(changed);
    // Every view has the new map now; freeing the old one (100k spaces: tens of ms) is pool work.
    // When a refresh waits, that refresh frees it before it copies the map, so that a million
    // spaces are never held three times (shown, old, new copy) in a burst of commits.
    if (m_refreshPending) {
        refresh(std::move(previous));
    } else {
        releaseOnPool(std::move(previous));
    }
}

void MapFollower::releaseOnPool(MapPtr map)
{
    if (map) {
        m_pool.start([map = std::move(map)]() mutable { releaseMap(map); });
    }
}

void MapFollower::releaseMap(MapPtr& map)
{
    if (!map) {
        return;
    }
    map.reset();
#ifdef __GLIBC__
    // The pool's malloc arenas keep a freed map's pages otherwise: the console's RSS would
    // count two or three maps of a million spaces instead of the one it shows.
    ::malloc_trim(0);
#endif
}

void MapFollower::startWatch(std::uint64_t generation, std::uint64_t fromRevision)
{
    // Every commit after the snapshot is kept and marks the map dirty; refreshes are coalesced,
    // so a burst of commits costs one copy of the map with their records applied, not one each.
    // The watch opens on the pool (the store may do IO there).
    auto store = m_store;
    auto watched = std::make_shared<WatchedCommits>();
    m_watched = watched;
    QPointer<MapFollower> self(this);
    runInBackground(
        m_pool, this,
        [store, fromRevision, self, generation, watched]() -> core::Result<std::shared_ptr<core::WatchHandle>> {
            auto handle = store->watch(
                fromRevision,
                [self, watched](const core::AuditRecord& record) {
                    {
                        std::lock_guard lock(watched->mutex);
                        watched->records.push_back(record);
                    }
                    postTo(self.data(), [self] { self->refresh(); });
                },
                [self, generation](const core::Error& error) {
                    postTo(self.data(), [self, generation, error] { emit self->failed(generation, error); });
                });
            if (!handle) {
                return handle.error();
            }
            return std::shared_ptr<core::WatchHandle>(std::move(*handle));
        },
        [this, generation](core::Result<std::shared_ptr<core::WatchHandle>> handle) {
            if (!handle) {
                emit failed(generation, handle.error());
                return;
            }
            if (!m_generation.isCurrent(generation)) {
                disposeOnPool(m_pool, std::move(*handle)); // the connection moved on meanwhile
                return;
            }
            m_watch = std::move(*handle);
        });
}

} // namespace shardmap::widgets

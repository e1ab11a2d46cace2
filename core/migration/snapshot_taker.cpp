// SnapshotTaker's implementation: the round's steps, a snapshot taken shard by shard with its
// progress in the map, the manifest last, then verification; failures marked before any cleaning.
#include "core/migration/snapshot_taker.h"

#include "core/map/index_templates.h"
#include "core/migration/migration_records.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

namespace shardmap::core {

namespace {

// Checksum calls in flight at once before an incremental snapshot's shards are taken.
constexpr std::size_t kChecksumCallsAtOnce = 8;

// How often the record's progress is committed while shards are only referenced.
constexpr std::chrono::milliseconds kProgressEvery { 500 };

} // namespace

// What one snapshot being taken carries from step to step.
struct SnapshotTaker::Taking {
    SnapshotRecord record;
    MigrationSettings settings;
    LeaseGrant grant;
    StoreSnapshot stored;
    MapSnapshot map;
    // The newest usable snapshot's manifest: shards whose content did not change reference its files.
    std::optional<SnapshotManifest> previous;
    SnapshotManifest manifest;
    // With a previous snapshot: each shard's content checksum as its node answered, asked of every
    // node at once before the shards are taken one by one (an incremental snapshot of a fleet that
    // barely changed is mostly these calls).
    std::map<std::string, Result<std::uint64_t>> liveChecksums = {};
    // What the shards taken since the last progress commit added (counts and bytes).
    SnapshotRecord unrecorded = {};
};

SnapshotTaker::SnapshotTaker(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, Options options)
    : m_store(store)
    , m_nodes(nodes)
    , m_fence(std::move(fence))
    , m_options(std::move(options))
    , m_requests(store)
{
}

void SnapshotTaker::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, message);
}

SnapshotTaker::Figures SnapshotTaker::figures() const
{
    std::lock_guard lock(m_mutex);
    return m_figures;
}

Result<MigrationSettings> SnapshotTaker::readSettings()
{
    auto read
        = readVersioned<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
    if (!read)
        return read.error();
    return *read ? (*read)->value : MigrationSettings {};
}

void SnapshotTaker::round()
{
    auto grant = m_fence();
    auto settings = readSettings();
    auto records = m_requests.list();
    if (!grant || !settings || !records)
        return;
    noteFigures(*records, *settings);
    failStale(*records, *grant, *settings);
    carryOutRequests(*records, *settings);
    if (auto next = nextToTake(*records, *settings))
        take(std::move(*next), *settings, *records);
    if (auto after = m_requests.list()) {
        retire(*after, *settings);
        noteFigures(*after, *settings);
    }
}

void SnapshotTaker::noteFigures(const Records& records, const MigrationSettings& settings)
{
    Figures figures;
    figures.intervalSeconds = settings.snapshotIntervalSeconds;
    for (const auto& [record, revision] : records) {
        if (!usable(record.state))
            continue;
        ++figures.usable;
        if (figures.anyUsable && record.finishedUnixMs < figures.lastGoodFinishedUnixMs)
            continue;
        figures.anyUsable = true;
        figures.lastGoodFinishedUnixMs = record.finishedUnixMs;
        figures.lastGoodDurationMs = record.finishedUnixMs - record.startedUnixMs;
        figures.lastGoodBytes = record.bytes;
    }
    std::lock_guard lock(m_mutex);
    m_figures = figures;
}

Result<SnapshotRecord> SnapshotTaker::commit(const std::string& id, const std::string& action,
    const std::string& reason, const std::function<void(SnapshotRecord&)>& edit)
{
    auto found = m_requests.find(id);
    if (!found)
        return found.error();
    auto grant = m_fence();
    if (!grant)
        return grant.error();
    SnapshotRecord record = found->value;
    edit(record);
    CommitRequest request { { { keys::snapshot(id), encode(record), found->modRevision } }, std::nullopt, *grant,
        m_options.actor, action, reason };
    if (auto committed = m_store.commit(request); !committed)
        return committed.error();
    return record;
}

// ---- failures, requests, retention ------------------------------------------------------------

void SnapshotTaker::fail(const std::string& id, const std::string& repository, const std::string& why)
{
    auto failed = commit(id, "snapshot-failed", why, [&](SnapshotRecord& record) {
        record.state = SnapshotState::Failed;
        record.error = why;
        record.finishedUnixMs = nowUnixMs();
    });
    if (!failed) {
        log(LogLevel::Warn, "snapshot " + id + ": cannot mark it failed (" + why + "): " + failed.error().describe());
        return;
    }
    log(LogLevel::Warn, "snapshot " + id + " failed: " + why);
    if (repository.empty())
        return;
    if (auto removed = removeSnapshotFolder(repository, id); !removed)
        log(LogLevel::Warn, "snapshot " + id + ": cannot remove its folder: " + removed.error().describe());
}

void SnapshotTaker::remove(const SnapshotRecord& record, const std::string& repository, const std::string& why)
{
    if (!repository.empty()) {
        if (auto removed = removeSnapshotFolder(repository, record.id); !removed) {
            log(LogLevel::Warn, "snapshot " + record.id + ": cannot remove its folder: " + removed.error().describe());
            return;
        }
    }
    auto found = m_requests.find(record.id);
    auto grant = m_fence();
    if (!found || !grant)
        return;
    CommitRequest request { { { keys::snapshot(record.id), std::nullopt, found->modRevision } }, std::nullopt, *grant,
        m_options.actor, "snapshot-removed", why };
    if (auto committed = m_store.commit(request); !committed)
        log(LogLevel::Warn, "snapshot " + record.id + ": cannot remove its record: " + committed.error().describe());
    else
        log(LogLevel::Info, "snapshot " + record.id + " removed: " + why);
}

void SnapshotTaker::failStale(const Records& records, const LeaseGrant& grant, const MigrationSettings& settings)
{
    for (const auto& [record, revision] : records) {
        if (record.state != SnapshotState::Running || record.leaderToken == grant.token)
            continue;
        fail(record.id, settings.snapshotRepository,
            "interrupted: its leader " + record.leader + " (lease token " + std::to_string(record.leaderToken)
                + ") stopped before it ended");
    }
}

void SnapshotTaker::carryOutRequests(const Records& records, const MigrationSettings& settings)
{
    for (const auto& [record, revision] : records) {
        if (record.deleteRequested && record.state != SnapshotState::Running) {
            remove(record, settings.snapshotRepository, "deleted as asked");
            continue;
        }
        if (!record.verifyRequested)
            continue;
        auto manifest = readManifest(settings.snapshotRepository, record.id);
        if (!manifest) {
            (void)commit(record.id, "snapshot-verified", "verify as asked", [&](SnapshotRecord& r) {
                r.verifyRequested = false;
                r.state = SnapshotState::Corrupt;
                r.badFile = record.id + "/" + kManifestName;
                r.error = manifest.error().describe();
                r.verifiedUnixMs = nowUnixMs();
            });
            continue;
        }
        verify(record, *manifest, settings.snapshotRepository);
    }
}

std::optional<Versioned<SnapshotRecord>> SnapshotTaker::nextToTake(
    const Records& records, const MigrationSettings& settings)
{
    std::int64_t lastCreated = 0;
    for (const auto& entry : records) {
        const SnapshotRecord& record = entry.value;
        if (record.state == SnapshotState::Requested && !record.deleteRequested)
            return entry;
        if (record.state == SnapshotState::Running)
            return std::nullopt;
        lastCreated = std::max(lastCreated, record.createdUnixMs);
    }
    const auto interval = static_cast<std::int64_t>(settings.snapshotIntervalSeconds) * 1000;
    if (interval == 0 || settings.snapshotRepository.empty() || nowUnixMs() - lastCreated < interval)
        return std::nullopt;
    auto grant = m_fence();
    if (!grant)
        return std::nullopt;
    SnapshotRecord record;
    record.createdUnixMs = nowUnixMs();
    record.id = newSnapshotId(record.createdUnixMs);
    record.requestedBy = m_options.actor;
    record.scheduled = true;
    record.reason = "scheduled every " + std::to_string(settings.snapshotIntervalSeconds) + " s";
    CommitRequest request { { { keys::snapshot(record.id), encode(record), 0 } }, std::nullopt, *grant, m_options.actor,
        "create-snapshot", record.reason };
    if (auto committed = m_store.commit(request); !committed) {
        log(LogLevel::Warn, "cannot schedule a snapshot: " + committed.error().describe());
        return std::nullopt;
    }
    auto found = m_requests.find(record.id);
    return found ? std::optional(*found) : std::nullopt;
}

void SnapshotTaker::retire(const Records& records, const MigrationSettings& settings)
{
    std::vector<const SnapshotRecord*> finished;
    std::vector<const SnapshotRecord*> failed;
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
        const SnapshotRecord& record = it->value;
        if (usable(record.state) || record.state == SnapshotState::Corrupt)
            finished.push_back(&record);
        else if (record.state == SnapshotState::Failed)
            failed.push_back(&record);
    }
    const std::int64_t oldest = settings.snapshotMaxAgeSeconds == 0
        ? 0
        : nowUnixMs() - static_cast<std::int64_t>(settings.snapshotMaxAgeSeconds) * 1000;
    bool keptUsable = false;
    for (std::size_t i = 0; i < finished.size(); ++i) {
        const SnapshotRecord& record = *finished[i];
        const bool lastUsable = usable(record.state) && !keptUsable;
        keptUsable = keptUsable || usable(record.state);
        if (lastUsable)
            continue; // the newest usable snapshot stays, whatever its age
        if (settings.snapshotKeep != 0 && i >= settings.snapshotKeep)
            remove(
                record, settings.snapshotRepository, "retention: more than " + std::to_string(settings.snapshotKeep));
        else if (record.finishedUnixMs < oldest)
            remove(record, settings.snapshotRepository, "retention: older than the maximum age");
    }
    for (std::size_t i = settings.snapshotKeep; settings.snapshotKeep != 0 && i < failed.size(); ++i)
        remove(*failed[i], settings.snapshotRepository, "retention: failed snapshots beyond the count kept");
}

// ---- taking one ---------------------------------------------------------------------------------

void SnapshotTaker::take(Versioned<SnapshotRecord> record, const MigrationSettings& settings, const Records& records)
{
    Taking taking { std::move(record.value), settings, {}, {}, {}, std::nullopt, {} };
    for (auto it = records.rbegin(); it != records.rend() && !taking.previous; ++it) {
        if (usable(it->value.state) && it->value.id != taking.record.id) {
            if (auto manifest = readManifest(settings.snapshotRepository, it->value.id))
                taking.previous = std::move(*manifest);
        }
    }
    const std::string id = taking.record.id;
    if (settings.snapshotRepository.empty())
        return fail(id, "", "no snapshot repository is set (shardmapctl migrations settings --snapshot-repository)");
    if (auto started = start(taking); !started)
        return fail(id, settings.snapshotRepository, started.error().describe());
    log(LogLevel::Info,
        "snapshot " + id + ": taking " + std::to_string(taking.record.shardsTotal) + " shards at map revision "
            + std::to_string(taking.record.mapRevision));
    if (taking.previous)
        askChecksums(taking);
    if (auto copied = copyShards(taking); !copied)
        return fail(id, settings.snapshotRepository, copied.error().describe());
    if (auto finished = finish(taking); !finished)
        return fail(id, settings.snapshotRepository, finished.error().describe());
    verify(taking.record, taking.manifest, settings.snapshotRepository);
}

Status SnapshotTaker::start(Taking& taking)
{
    auto grant = m_fence();
    if (!grant)
        return grant.error();
    taking.grant = *grant;
    const std::string& repository = taking.settings.snapshotRepository;
    if (auto folder = createSnapshotFolder(repository, taking.record.id); !folder)
        return folder.error();
    auto stored = m_store.snapshot();
    if (!stored)
        return stored.error();
    auto map = MapSnapshot::decode(*stored);
    if (!map)
        return map.error();
    taking.stored = std::move(*stored);
    taking.map = std::move(*map);
    std::uint32_t shards = 0;
    for (const auto& [shardId, shard] : taking.map.shards)
        shards += shard.value.state == ShardState::Retired ? 0 : 1;
    auto running = commit(taking.record.id, "snapshot-start", taking.record.reason, [&](SnapshotRecord& r) {
        r.state = SnapshotState::Running;
        r.leader = taking.grant.holder;
        r.leaderToken = taking.grant.token;
        r.startedUnixMs = nowUnixMs();
        r.mapRevision = taking.map.revision;
        r.shardsTotal = shards;
    });
    if (!running)
        return running.error();
    taking.record = *running;
    return {};
}

// The record's progress is committed at most every kProgressEvery (each commit is a sync of the
// map's store: an incremental snapshot that copies one shard of a hundred would otherwise be mostly
// commits); what the last stretch did goes into the record with its completion (finish).
Status SnapshotTaker::copyShards(Taking& taking)
{
    SnapshotRecord& pending = taking.unrecorded;
    auto committedAt = std::chrono::steady_clock::now();
    std::size_t left = taking.record.shardsTotal;
    for (const auto& [shardId, shard] : taking.map.shards) {
        if (shard.value.state == ShardState::Retired)
            continue;
        if (auto point = failpoint("snapshot.between_shards"); !point)
            return point.error();
        auto entry = copyShard(taking, shard.value);
        if (!entry)
            return makeError(entry.error().code, "shard " + shardId + ": " + entry.error().message);
        const bool copied = entry->copiedIn == taking.record.id;
        ++pending.shardsDone;
        pending.shardsCopied += copied ? 1 : 0;
        pending.bytes += entry->bytes;
        pending.bytesCopied += copied ? entry->bytes : 0;
        taking.manifest.shards.push_back(std::move(*entry));
        const auto now = std::chrono::steady_clock::now();
        left -= left > 0 ? 1 : 0;
        if (left == 0 || now - committedAt < kProgressEvery)
            continue;
        auto progress = commit(taking.record.id, "snapshot-progress", "shard " + shardId, [&](SnapshotRecord& r) {
            r.shardsDone += pending.shardsDone;
            r.shardsCopied += pending.shardsCopied;
            r.bytes += pending.bytes;
            r.bytesCopied += pending.bytesCopied;
        });
        if (!progress)
            return progress.error();
        taking.record = *progress;
        pending = {};
        committedAt = now;
    }
    return {};
}

// Up to kChecksumCallsAtOnce calls at a time over the shards that are not retired.
void SnapshotTaker::askChecksums(Taking& taking)
{
    std::vector<std::pair<std::string, std::string>> asks;
    for (const auto& [shardId, shard] : taking.map.shards) {
        const NodeRecord* node = taking.map.node(shard.value.node);
        if (shard.value.state != ShardState::Retired && node)
            asks.emplace_back(shardId, node->address);
    }
    std::vector<std::optional<Result<std::uint64_t>>> answers(asks.size());
    std::atomic<std::size_t> next { 0 };
    const auto work = [&] {
        for (std::size_t i = next++; i < asks.size(); i = next++) {
            auto client = m_nodes.get(asks[i].second);
            auto live
                = client ? (*client)->spaceStats(asks[i].first, {}) : Result<std::vector<SpaceStats>>(client.error());
            answers[i]
                = live ? Result<std::uint64_t>(shardContentChecksum(*live)) : Result<std::uint64_t>(live.error());
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < std::min(asks.size(), kChecksumCallsAtOnce); ++t)
        threads.emplace_back(work);
    for (std::thread& thread : threads)
        thread.join();
    for (std::size_t i = 0; i < asks.size(); ++i)
        taking.liveChecksums.emplace(asks[i].first, std::move(*answers[i]));
}

Result<ShardFileEntry> SnapshotTaker::copyShard(Taking& taking, const ShardRecord& shard)
{
    const NodeRecord* node = taking.map.node(shard.node);
    if (!node)
        return makeError(ErrorCode::NotFound, "its node " + shard.node + " is not in the map");
    if (auto grant = m_fence(); !grant)
        return grant.error();
    auto client = m_nodes.get(node->address);
    if (!client)
        return client.error();
    const TemplateRef made = templateOf(shard);
    ShardFileEntry entry { shard.id, shard.node, made.name, made.version, shard.engine, {}, {}, 0, {}, 0, {} };
    if (taking.previous) {
        // A shard whose checksum was not asked or not answered is copied.
        const auto live = taking.liveChecksums.find(shard.id);
        entry.contentChecksum = live != taking.liveChecksums.end() && live->second ? *live->second : 0;
        for (const ShardFileEntry& before : taking.previous->shards) {
            if (before.shard == shard.id && entry.contentChecksum != 0
                && before.contentChecksum == entry.contentChecksum && before.engine == entry.engine) {
                entry = before;
                entry.node = shard.node;
                return entry;
            }
        }
    }
    entry.file = shardFileName(taking.record.id, shard.id);
    entry.copiedIn = taking.record.id;
    auto copy = (*client)->snapshotShard(
        { shard.id, taking.settings.snapshotRepository, entry.file, taking.settings.snapshotPauseMs });
    if (!copy)
        return makeError(copy.error().code, "on node " + node->id + ": " + copy.error().message);
    entry.bytes = copy->digest.bytes;
    entry.xxh3_128 = copy->digest.xxh3_128;
    entry.spaces = copy->spaces;
    entry.contentChecksum = shardContentChecksum(copy->spaces);
    return entry;
}

Status SnapshotTaker::finish(Taking& taking)
{
    SnapshotManifest& manifest = taking.manifest;
    manifest.id = taking.record.id;
    manifest.requestedBy = taking.record.requestedBy;
    manifest.reason = taking.record.reason;
    manifest.scheduled = taking.record.scheduled;
    manifest.startedUnixMs = taking.record.startedUnixMs;
    manifest.finishedUnixMs = nowUnixMs();
    manifest.mapRevision = taking.stored.revision;
    for (const auto& [key, stored] : taking.stored.records) {
        if (keptInManifest(key))
            manifest.mapRecords[key] = stored.value;
    }
    if (auto grant = m_fence(); !grant)
        return grant.error();
    if (auto written = writeManifest(taking.settings.snapshotRepository, manifest); !written)
        return written.error();
    auto complete = commit(taking.record.id, "snapshot-complete", taking.record.reason, [&](SnapshotRecord& r) {
        r.shardsDone += taking.unrecorded.shardsDone;
        r.shardsCopied += taking.unrecorded.shardsCopied;
        r.bytesCopied += taking.unrecorded.bytesCopied;
        r.state = SnapshotState::Complete;
        r.finishedUnixMs = manifest.finishedUnixMs;
        r.bytes = manifest.bytes();
    });
    if (!complete)
        return complete.error();
    taking.record = *complete;
    log(LogLevel::Info,
        "snapshot " + manifest.id + " complete: " + std::to_string(taking.record.shardsCopied) + " of "
            + std::to_string(taking.record.shardsTotal) + " shards copied, " + std::to_string(manifest.bytes())
            + " bytes");
    return {};
}

void SnapshotTaker::verify(SnapshotRecord record, const SnapshotManifest& manifest, const std::string& repository)
{
    const SnapshotCheck check = verifySnapshot(repository, manifest);
    auto verified = commit(
        record.id, "snapshot-verified", check.ok ? "every file read back" : check.problem, [&](SnapshotRecord& r) {
            r.verifyRequested = false;
            r.state = check.ok ? SnapshotState::Verified : SnapshotState::Corrupt;
            r.badFile = check.badFile;
            r.error = check.ok ? std::string() : check.problem;
            r.verifiedUnixMs = nowUnixMs();
        });
    if (!verified)
        log(LogLevel::Warn,
            "snapshot " + record.id + ": cannot record its verification: " + verified.error().describe());
    else if (!check.ok)
        log(LogLevel::Error, "snapshot " + record.id + " is corrupt: " + check.badFile + ": " + check.problem);
}

} // namespace shardmap::core

// MigrationHistory's implementation: a record's change folded in as phase spans, events and
// samples, its JSON form, and a migration's changes read from the audit history.
#include "core/migration/migration_history.h"

#include "core/util/json_input.h"

#include <algorithm>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace shardmap::core {

namespace {

std::string finalText(const MigrationRecord& migration)
{
    if (!migration.error.empty())
        return migration.error;
    return migration.status;
}

json sideJson(const SideFigures& side)
{
    return { { "live_docs", side.liveDocs }, { "tombstones", side.tombstones }, { "checksum", side.checksum } };
}

SideFigures sideFrom(const json& doc)
{
    return { doc.value("live_docs", std::uint64_t { 0 }), doc.value("tombstones", std::uint64_t { 0 }),
        doc.value("checksum", std::uint64_t { 0 }) };
}

} // namespace

MigrationHistory MigrationHistory::start(const MigrationRecord& migration)
{
    MigrationHistory history;
    history.migration = migration.id;
    history.space = migration.space;
    // A record first seen after a rollback has its direction swapped back.
    history.requestedSource = askedSource(migration);
    history.requestedTarget = askedTarget(migration);
    const std::int64_t created = migration.createdUnixMs ? migration.createdUnixMs : migration.updatedUnixMs;
    // Requests made before the executor first wrote the history are found by the first observe.
    history.phases.push_back({ MigrationPhase::Queued, created, 0 });
    if (migration.phase != MigrationPhase::Queued) {
        history.phases.back().endedUnixMs = migration.startedUnixMs ? migration.startedUnixMs : created;
        history.phases.push_back({ migration.phase, history.phases.back().endedUnixMs, 0 });
    }
    return history;
}

void MigrationHistory::addEvent(std::int64_t unixMs, std::string kind, std::string text)
{
    if (events.size() >= kMostEvents)
        events.erase(events.begin() + static_cast<std::ptrdiff_t>(kMostEvents / 2));
    events.push_back({ unixMs, std::move(kind), std::move(text), 1, 0 });
}

void MigrationHistory::addRetry(std::int64_t unixMs, const std::string& error)
{
    // The record's error that the same failure set ("error: ... (retrying in N ms)") says no more
    // than the retry does.
    const auto sameError = [&](const MigrationEvent& e) { return e.kind == "error" && e.text.starts_with(error); };
    auto last = events.end();
    while (last != events.begin() && sameError(*std::prev(last)))
        --last;
    events.erase(last, events.end());
    if (!events.empty() && events.back().kind == "retry" && events.back().text == error) {
        events.back().count += 1;
        events.back().lastUnixMs = unixMs;
        return;
    }
    addEvent(unixMs, "retry", error);
    events.back().lastUnixMs = unixMs;
}

void MigrationHistory::addSample(const ProgressSample& sample)
{
    if (samples.size() >= kMostSamples) {
        // Every other sample goes; the first and the newest stay, so the chart keeps its span.
        std::vector<ProgressSample> thinned;
        for (std::size_t i = 0; i < samples.size(); i += 2)
            thinned.push_back(samples[i]);
        samples = std::move(thinned);
    }
    samples.push_back(sample);
}

namespace {

// The parts of MigrationHistory::observe, each true when it changed the history: the phase
// spans, trouble (errors, aborted cutovers, repairs), the administrator's requests, the turn
// back, the samples.
bool observePhase(
    MigrationHistory& history, const MigrationRecord& before, const MigrationRecord& after, std::int64_t now)
{
    if (after.phase == before.phase)
        return false;
    if (!history.phases.empty() && history.phases.back().endedUnixMs == 0)
        history.phases.back().endedUnixMs = now;
    history.phases.push_back({ after.phase, now, isFinal(after.phase) ? now : 0 });
    if (isFinal(after.phase))
        history.addEvent(now, migrationPhaseName(after.phase), finalText(after));
    return true;
}

bool observeTrouble(
    MigrationHistory& history, const MigrationRecord& before, const MigrationRecord& after, std::int64_t now)
{
    bool changed = false;
    if (!after.error.empty() && after.error != before.error && !isFinal(after.phase)) {
        history.addEvent(now, "error", after.error + (after.status.empty() ? "" : " (" + after.status + ")"));
        changed = true;
    }
    if (after.cutoverAborts > before.cutoverAborts) {
        history.cutoverAborts += after.cutoverAborts - before.cutoverAborts;
        history.addEvent(now, "cutover-aborted", after.status.empty() ? after.error : after.status);
        changed = true;
    }
    if (after.repairs > before.repairs) {
        history.addEvent(
            now, "repair", "repaired " + std::to_string(after.repairedDocs - before.repairedDocs) + " document(s)");
        changed = true;
    }
    return changed;
}

bool observeRequests(MigrationHistory& history, const MigrationRecord& after, std::int64_t now)
{
    bool changed = false;
    if (after.paused != history.seenPaused) {
        history.seenPaused = after.paused;
        history.addEvent(now, after.paused ? "paused" : "resumed", {});
        changed = true;
    }
    if (after.cancelRequested != history.seenCancelRequested) {
        history.seenCancelRequested = after.cancelRequested;
        if (after.cancelRequested) {
            history.addEvent(now, "cancel-requested", after.status);
            changed = true;
        }
    }
    if (after.rollbackRequested != history.seenRollbackRequested) {
        history.seenRollbackRequested = after.rollbackRequested;
        if (after.rollbackRequested) {
            history.addEvent(now, "rollback-requested", after.status);
            changed = true;
        }
    }
    return changed;
}

bool observeRollback(
    MigrationHistory& history, const MigrationRecord& before, const MigrationRecord& after, std::int64_t now)
{
    if (!after.rolledBack || before.rolledBack)
        return false;
    // The executor may take the request in the same step as it turns back.
    if (!history.seenRollbackRequested)
        history.addEvent(now, "rollback-requested", {});
    history.seenRollbackRequested = after.rollbackRequested;
    history.addEvent(now, "rolled-back", "the space goes back to " + after.target);
    return true;
}

bool observeProgress(
    MigrationHistory& history, const MigrationRecord& before, const MigrationRecord& after, std::int64_t now)
{
    const bool moved = after.progress.docsDone != before.progress.docsDone;
    const bool due = history.samples.empty() || now - history.samples.back().unixMs >= MigrationHistory::kSampleEveryMs
        || after.backfilled != before.backfilled;
    if (!moved || !due)
        return false;
    history.addSample({ now, after.progress.docsDone, after.progress.bytesDone });
    return true;
}

} // namespace

bool MigrationHistory::observe(const MigrationRecord& before, const MigrationRecord& after, std::int64_t now)
{
    bool changed = observePhase(*this, before, after, now);
    changed = observeTrouble(*this, before, after, now) || changed;
    changed = observeRequests(*this, after, now) || changed;
    changed = observeRollback(*this, before, after, now) || changed;
    return observeProgress(*this, before, after, now) || changed;
}

std::string encode(const MigrationHistory& history)
{
    json phases = json::array();
    for (const auto& span : history.phases)
        phases.push_back({ { "phase", migrationPhaseName(span.phase) }, { "started_unix_ms", span.startedUnixMs },
            { "ended_unix_ms", span.endedUnixMs } });
    json events = json::array();
    for (const auto& e : history.events) {
        json event = { { "unix_ms", e.unixMs }, { "kind", e.kind }, { "text", e.text } };
        if (e.lastUnixMs != 0) {
            event["count"] = e.count;
            event["last_unix_ms"] = e.lastUnixMs;
        }
        events.push_back(std::move(event));
    }
    json samples = json::array();
    for (const auto& s : history.samples)
        samples.push_back({ s.unixMs, s.docsDone, s.bytesDone });
    json doc = { { "migration", history.migration }, { "space", history.space },
        { "requested_source", history.requestedSource }, { "requested_target", history.requestedTarget },
        { "phases", phases }, { "events", events }, { "samples", samples }, { "write_hold_ms", history.writeHoldMs },
        { "cutover_aborts", history.cutoverAborts },
        { "seen",
            { { "paused", history.seenPaused }, { "cancel_requested", history.seenCancelRequested },
                { "rollback_requested", history.seenRollbackRequested } } } };
    if (history.verification) {
        const auto& v = *history.verification;
        doc["verification"]
            = { { "unix_ms", v.unixMs }, { "source", sideJson(v.source) }, { "target", sideJson(v.target) },
                  { "rounds", v.rounds }, { "repaired_docs", v.repairedDocs }, { "equal", v.equal } };
    }
    return doc.dump();
}

Result<MigrationHistory> decodeMigrationHistory(const std::string& text)
{
    auto parsed = readJsonInput(text, "a migration history");
    if (!parsed)
        return parsed.error();
    const json& doc = *parsed;
    if (!doc.is_object())
        return makeError(ErrorCode::InvalidArgument, "a migration history is not a JSON object");
    try {
        MigrationHistory history;
        history.migration = doc.at("migration").get<std::string>();
        history.space = doc.value("space", "");
        history.requestedSource = doc.value("requested_source", "");
        history.requestedTarget = doc.value("requested_target", "");
        for (const json& span : doc.value("phases", json::array())) {
            const auto phase = parseMigrationPhase(span.at("phase").get<std::string>());
            if (!phase)
                return makeError(ErrorCode::InvalidArgument, "unknown phase " + span.at("phase").dump());
            history.phases.push_back({ *phase, span.value("started_unix_ms", std::int64_t { 0 }),
                span.value("ended_unix_ms", std::int64_t { 0 }) });
        }
        for (const json& e : doc.value("events", json::array()))
            history.events.push_back({ e.value("unix_ms", std::int64_t { 0 }), e.value("kind", ""), e.value("text", ""),
                e.value("count", std::uint32_t { 1 }), e.value("last_unix_ms", std::int64_t { 0 }) });
        for (const json& s : doc.value("samples", json::array()))
            history.samples.push_back(
                { s.at(0).get<std::int64_t>(), s.at(1).get<std::uint64_t>(), s.at(2).get<std::uint64_t>() });
        history.writeHoldMs = doc.value("write_hold_ms", -1.0);
        // Histories written before the counter: the aborted cutovers their events kept.
        history.cutoverAborts = doc.contains("cutover_aborts")
            ? doc.at("cutover_aborts").get<std::uint32_t>()
            : static_cast<std::uint32_t>(std::count_if(history.events.begin(), history.events.end(),
                [](const MigrationEvent& e) { return e.kind == "cutover-aborted"; }));
        const json seen = doc.value("seen", json::object());
        history.seenPaused = seen.value("paused", false);
        history.seenCancelRequested = seen.value("cancel_requested", false);
        history.seenRollbackRequested = seen.value("rollback_requested", false);
        if (doc.contains("verification")) {
            const json& v = doc.at("verification");
            history.verification = VerificationFigures { v.value("unix_ms", std::int64_t { 0 }),
                sideFrom(v.value("source", json::object())), sideFrom(v.value("target", json::object())),
                v.value("rounds", std::uint32_t { 0 }), v.value("repaired_docs", std::uint64_t { 0 }),
                v.value("equal", false) };
        }
        return history;
    } catch (const json::exception& error) {
        return makeError(ErrorCode::InvalidArgument, std::string("a migration history is malformed: ") + error.what());
    }
}

Result<std::optional<MigrationHistory>> readMigrationHistory(MetadataStore& store, const std::string& migrationId)
{
    const std::string key = keys::migrationHistory(migrationId);
    // By prefix: the exact key is picked out (m-1 is a prefix of m-10).
    auto listed = store.list(key);
    if (!listed)
        return listed.error();
    const auto found = listed->records.find(key);
    if (found == listed->records.end())
        return std::optional<MigrationHistory> {};
    auto history = decodeMigrationHistory(found->second.value);
    if (!history)
        return history.error();
    return std::optional<MigrationHistory>(std::move(*history));
}

std::vector<std::string> changedFields(
    const std::optional<std::string>& before, const std::optional<std::string>& after)
{
    if (!before)
        return { "created" };
    if (!after)
        return { "removed" };
    // Compared and printed recursively below: bounded first, as any record someone could write.
    const auto parsedBefore = readJsonInput(*before, "the record before");
    const auto parsedAfter = readJsonInput(*after, "the record after");
    if (!parsedBefore || !parsedAfter || !parsedBefore->is_object() || !parsedAfter->is_object())
        return { "changed" };
    const json& a = *parsedBefore;
    const json& b = *parsedAfter;
    std::vector<std::string> out;
    for (const auto& [key, value] : b.items()) {
        if (a.contains(key) && a.at(key) == value)
            continue;
        if (value.is_primitive() && a.contains(key))
            out.push_back(key + " " + a.at(key).dump() + " -> " + value.dump());
        else
            out.push_back(key);
    }
    return out;
}

Result<std::vector<MigrationChange>> migrationChanges(MetadataStore& store, const std::string& migrationId)
{
    const std::string key = keys::migration(migrationId);
    auto listed = store.list(key);
    if (!listed)
        return listed.error();
    const auto record = listed->records.find(key);
    const std::uint64_t from = record == listed->records.end() ? 0 : record->second.createRevision - 1;
    auto audit = store.history(from, 0, 0);
    if (!audit)
        return audit.error();
    std::vector<MigrationChange> out;
    for (const auto& entry : *audit) {
        for (const auto& change : entry.changes) {
            if (change.key == key)
                out.push_back({ entry.revision, entry.unixMs, entry.actor, entry.action, entry.reason,
                    changedFields(change.before, change.after) });
        }
    }
    return out;
}

} // namespace shardmap::core

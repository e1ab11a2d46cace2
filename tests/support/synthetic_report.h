#pragma once

// A migration report of n migrations as the executor would have recorded them, for the report
// renderer's tests and benchmark: every outcome (done with a repair, failed, cancelled, rolled
// back), phases with times, progress samples, events, two operations with measured shards.
// Built through core::buildReport from a map snapshot and histories, like the real thing.
// windowMs is each cut-over migration's cleanup phase (its rollback window).

#include "core/report/migration_report.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace shardmap::testing {

inline core::MigrationReport syntheticReport(
    std::size_t n, std::int64_t start = 1'796'000'000'000, std::int64_t windowMs = 300)
{
    using core::MigrationPhase;
    core::MapSnapshot map;
    map.revision = 42;
    std::map<std::string, core::MigrationHistory> histories;
    core::OperationRecord drain;
    drain.id = "op-drain";
    drain.kind = core::OperationKind::Drain;
    drain.subject = "s3";
    drain.state = shardmap::core::OperationState::Done;
    drain.requestedBy = "ann@console";
    drain.reason = "retire rack 3";
    drain.createdUnixMs = start;
    drain.shardsBefore = { { "s3", 900'000, 4'000'000'000, 40, true }, { "s4", 100'000, 500'000'000, 5, true },
        { "s5", 0, 0, 0, false } };
    for (std::size_t i = 0; i < n; ++i) {
        char id[48];
        std::snprintf(id, sizeof id, "m-%013lld-%04zx", static_cast<long long>(start + i * 1000), i);
        core::MigrationRecord m;
        m.id = id;
        m.space = "tenant-" + std::to_string(i);
        m.source = i % 2 ? "s3" : "s1";
        m.target = i % 2 ? "s4" : "s2";
        m.createdUnixMs = start + static_cast<std::int64_t>(i) * 1000;
        m.startedUnixMs = m.createdUnixMs + 200;
        m.requestedBy = i % 3 ? "ann@console" : "ops-cron";
        m.reason = i % 3 ? "retire rack 3" : "nightly rebalance, \"hot\" tenants";
        m.progress.docsTotal = 10'000 + i * 37;
        m.progress.bytesTotal = m.progress.docsTotal * 900;
        const std::size_t kind = i % 10;
        m.phase = kind == 7 ? MigrationPhase::Failed : kind == 8 ? MigrationPhase::Cancelled : MigrationPhase::Done;
        m.rolledBack = kind == 9;
        if (m.rolledBack) {
            m.phase = MigrationPhase::Cancelled;
            std::swap(m.source, m.target);
        }
        m.progress.docsDone = kind == 8 ? m.progress.docsTotal / 3 : kind == 7 ? 0 : m.progress.docsTotal;
        m.progress.bytesDone = m.progress.docsDone * 900;
        // Failed and cancelled ones end before a cutover; the others after their window.
        const std::int64_t window = kind == 7 || kind == 8 ? 300 : windowMs;
        m.finishedUnixMs = m.startedUnixMs + 7700 + window + static_cast<std::int64_t>(i % 13) * 700;
        if (kind == 7)
            m.error = "preflight at start: shard s4 is readonly; only an active shard can receive a space";
        if (kind == 3) {
            m.repairs = 1;
            m.repairedDocs = 17;
        }
        if (i % 2)
            m.operation = drain.id;
        if (i % 2)
            drain.migrations.push_back(m.id);
        map.migrations[m.id] = { m, 1 };

        core::MigrationHistory h = core::MigrationHistory::start(m);
        h.requestedSource = m.rolledBack ? m.target : m.source;
        h.requestedTarget = m.rolledBack ? m.source : m.target;
        std::int64_t t = m.startedUnixMs;
        h.phases.front().endedUnixMs = t;
        for (const auto phase : { MigrationPhase::DualWrite, MigrationPhase::Backfill, MigrationPhase::Verify,
                 MigrationPhase::Cutover, MigrationPhase::Cleanup }) {
            const std::int64_t length = phase == MigrationPhase::Backfill ? 6000
                : phase == MigrationPhase::Cleanup                        ? windowMs
                                                                          : 300;
            h.phases.push_back({ phase, t, t + length });
            t += length;
            if (kind == 7 || (kind == 8 && phase == MigrationPhase::Backfill))
                break;
        }
        h.phases.push_back({ m.phase, m.finishedUnixMs, m.finishedUnixMs });
        for (int s = 0; s <= 30; ++s)
            h.addSample({ m.startedUnixMs + 300 + s * 200, m.progress.docsDone * static_cast<std::uint64_t>(s) / 30,
                m.progress.bytesDone * static_cast<std::uint64_t>(s) / 30 });
        if (kind != 7 && kind != 8) {
            h.writeHoldMs = 0.5 + static_cast<double>(i % 17) * 0.25;
            h.verification = core::VerificationFigures { m.finishedUnixMs - 600, { m.progress.docsDone, 3, 77 },
                { m.progress.docsDone, 3, 77 }, 2, m.repairedDocs, true };
        }
        if (kind == 3)
            h.addEvent(m.finishedUnixMs - 900, "repair", "repaired 17 document(s)");
        if (kind == 7)
            h.addEvent(m.finishedUnixMs, "failed", m.error);
        if (kind == 8)
            h.addEvent(m.finishedUnixMs - 100, "cancel-requested", "copying");
        if (kind == 9)
            h.addEvent(m.finishedUnixMs - 100, "rolled-back", "the space goes back to " + h.requestedSource);
        histories[m.id] = std::move(h);
    }
    map.operations[drain.id] = { drain, 1 };
    core::ReportScope scope;
    scope.sinceUnixMs = start;
    auto report = core::buildReport(map, histories, scope, start + static_cast<std::int64_t>(n) * 1000 + 60'000);
    return std::move(*report);
}

} // namespace shardmap::testing

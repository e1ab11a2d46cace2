#pragma once

// The shard map's migrations as a table model, fed by map snapshots, with their rollback countdowns.

#include "widgets/session/fleet_connection.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QString>
#include <QTimer>
#include <vector>

namespace shardmap::widgets {

// The migrations of the shard map (queued, running and finished) as a table, one row per
// migration record. Fed by whole map snapshots: a new migration inserts a row, a vanished one
// removes it, and a changed record emits dataChanged for its row with explicit roles, merged
// over adjacent rows. The model never resets on a map change. The countdown of a migration in its
// rollback window ("done, rollback possible until 17:45 (9 min left)") follows the clock: one
// timer, waiting for the next change of any row's text, repaints the phase of those rows only,
// and is idle while no migration is in its window.
class MigrationsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        SpaceColumn,
        RouteColumn,
        PhaseColumn,
        ProgressColumn,
        DocsColumn,
        BytesColumn,
        RateColumn,
        EtaColumn,
        StartedColumn,
        FinishedColumn,
        RequestedByColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    enum Role {
        // The raw value for sorting: ids as QString, numbers and times as numbers.
        SortRole = Qt::UserRole,
        // The same in every column of a row:
        MigrationIdRole,
        SpaceRole,
        SourceRole,
        TargetRole,
        // int(core::MigrationPhase)
        PhaseRole,
        // A StateCategory (queued, running, finished ...) as int.
        StateRole,
        // Creation time, ms since the epoch (what the time filter looks at).
        CreatedRole,
        // Docs done / total as 0..1, or -1 while the total is unknown.
        ProgressRole,
        // The executor's status line, or the error of a failed migration.
        StatusRole,
        // The operation (drain, split, a wizard's plan ...) that queued it, or empty.
        OperationRole,
    };
    Q_ENUM(Role)

    // How the page groups phases for filtering and actions.
    enum class StateCategory { Queued, Running, Done, Failed, Cancelled };
    Q_ENUM(StateCategory)

    explicit MigrationsModel(QObject* parent = nullptr);

    void setMap(const MapPtr& map);

    // The row of a migration, -1 if there is none.
    int rowOf(const QString& migrationId) const;
    // The record of a row (for actions and tooltips); nullptr out of range.
    const core::MigrationRecord* record(int row) const;
    const core::MigrationRecord* record(const QString& migrationId) const;

    static StateCategory categoryOf(const core::MigrationRecord& record);
    // Whether a row shows an ETA: only while its copy runs. Past the backfill it would say "0 s"
    // through the verify, the cutover and the rollback window.
    static bool showsEta(const core::MigrationRecord& record);
    // The rollback windows' countdown timer (for tests: idle without a window open).
    const QTimer& countdownTimer() const { return m_countdown; }
    // In its rollback window (rollbackUntilUnixMs, core::rollbackWindowEnd()): formatRollbackWindow().
    static QString phaseText(const core::MigrationRecord& record, std::int64_t rollbackUntilUnixMs = 0);
    // "s0 → s1" as the migration was asked to move, also after a rollback ("s0 → s1, rolled back").
    static QString routeText(const core::MigrationRecord& record);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // A migration this model saw active became final (done, failed or cancelled). reason: the
    // error of a failure, otherwise the executor's last status.
    void migrationFinished(
        const QString& migrationId, shardmap::widgets::MigrationsModel::StateCategory state, const QString& reason);

private:
    QVariant displayValue(const core::MigrationRecord& record, int column) const;
    QVariant sortValue(const core::MigrationRecord& record, int column) const;
    void removeMissing(const MapPtr& map);
    void updateExisting(const MapPtr& map);
    void insertNew(const MapPtr& map);
    void emitChanged(const std::vector<int>& rows, int firstColumn, int lastColumn, const QList<int>& roles);
    void reindex();
    void scheduleCountdown();
    void countDown();

    std::vector<core::MigrationRecord> m_rows;
    core::MigrationSettings m_settings;
    QHash<QString, int> m_rowOf;
    QTimer m_countdown;
    // When the countdown last repainted: a row whose window closed since then is repainted once.
    std::int64_t m_countedDownMs = 0;
};

} // namespace shardmap::widgets

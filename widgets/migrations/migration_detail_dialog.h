#pragma once

// One migration in detail: its state, phases, throughput over time and events.

#include "core/report/migration_report.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QDialog>
#include <QTimer>
#include <map>
#include <optional>

QT_BEGIN_NAMESPACE
class QFormLayout;
class QGroupBox;
class QLabel;
class QTreeWidget;
QT_END_NAMESPACE

namespace shardmap::widgets {

class InlineMessage;

class PhaseTimeline;
class TimeSeriesChart;

// One migration in detail (opened from the migrations page, non-modal): what was asked (the
// requested direction survives a rollback) and its state, its phases as a timeline, its backfill's
// documents per second over time, its events and the cutover's verification figures.
//
// The figures are the report's (core::buildReport over the migration and the history the
// executor keeps under keys::migrationHistory), read on the connection's pool. While the
// migration changes in the map they are read again, at most once per refresh interval. In the
// rollback window the phase's countdown follows the clock without reading anything again.
class MigrationDetailDialog : public QDialog {
    Q_OBJECT
public:
    enum class Field {
        Space,
        RequestedDirection,
        CurrentDirection,
        Phase,
        Status,
        Error,
        Throttle,
        Progress,
        RequestedBy,
        Reason,
        Operation,
        Created,
        Started,
        Finished,
        Verification,
        WriteHold,
    };
    Q_ENUM(Field)

    static constexpr int kRefreshMs = 1000;

    MigrationDetailDialog(FleetConnection* connection, const QString& migrationId, QWidget* parent = nullptr);
    ~MigrationDetailDialog() override;

    QString migrationId() const { return m_migrationId; }
    // The migration as last read (nullopt before the first answer or when it could not be read).
    const std::optional<core::ReportRow>& row() const { return m_row; }
    QString fieldText(Field field) const;
    // What the message line says (why it could not be read, no history yet); empty: hidden.
    QString messageText() const;

    PhaseTimeline* timeline() const { return m_timeline; }
    TimeSeriesChart* throughputChart() const { return m_chart; }
    QTreeWidget* eventsView() const { return m_events; }
    // The throughput chart's series.
    static QString throughputKey() { return QStringLiteral("docs-per-second"); }
    // What the throughput note says when no two samples make a rate: nothing copied yet, or
    // what a backfill too quick for the samples copied.
    static QString backfillWithoutSamplesText(const core::MigrationRecord& record);

public slots:
    // Reads the migration and its history again (now, or after the one in flight).
    void refresh();

signals:
    // An answer was applied (row() and the views show it).
    void loaded();

private:
    struct Loaded {
        std::optional<core::ReportRow> row;
        QString error;
    };

    // On a pool thread: the history from the store and the report's row of the one migration.
    static Loaded read(
        core::MetadataStore& store, const core::MapSnapshot& map, const std::string& id, std::int64_t nowUnixMs);
    void buildUi();
    QGroupBox* buildThroughput();
    QGroupBox* buildEvents();
    QWidget* buildFields();
    void addField(QFormLayout* form, Field field, const QString& label);
    void mapArrived(const MapPtr& map);
    void arrived(std::uint64_t ticket, const Loaded& answer);
    void apply(const core::ReportRow& row);
    void applyFields(const core::ReportRow& row);
    void applyThroughput(const core::ReportRow& row);
    void applyEvents(const core::ReportRow& row);
    void setField(Field field, const QString& text);
    void showMessage(const QString& text);
    std::int64_t rollbackUntilUnixMs(const core::MigrationRecord& record) const;
    void showPhase();

    FleetConnection* m_connection;
    QString m_migrationId;
    std::optional<core::ReportRow> m_row;
    Generation m_generation;
    bool m_reading = false;
    bool m_readAgain = false;
    QTimer m_refreshTimer;
    // Fires when the phase's rollback countdown next reads differently.
    QTimer m_countdown;

    QLabel* m_title = nullptr;
    InlineMessage* m_message = nullptr;
    std::map<Field, QLabel*> m_fields;
    PhaseTimeline* m_timeline = nullptr;
    TimeSeriesChart* m_chart = nullptr;
    QLabel* m_throughputNote = nullptr;
    QTreeWidget* m_events = nullptr;
};

} // namespace shardmap::widgets

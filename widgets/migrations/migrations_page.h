#pragma once

// The migrations page: the fleet's migrations, their history, and the actions taken on them.

#include "core/map/map_editor.h"
#include "core/report/migration_report.h"
#include "widgets/bridge/background.h"
#include "widgets/migrations/migrations_model.h"
#include "widgets/session/fleet_connection.h"

#include <QHash>
#include <QPointer>
#include <QWidget>
#include <functional>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QSystemTrayIcon;
class QTableView;
QT_END_NAMESPACE

namespace shardmap::widgets {

class InlineMessage;

class MigrationDetailDialog;
class MigrationsFilterProxy;
class ReportExportDialog;

// The migrations of the fleet: queued, running and finished ones with their progress, a history
// filterable by time, space, shard and state, and the administrator's actions on them (pause,
// resume, cancel, rollback, throttle, the executor's concurrency). Every action is confirmed with
// a reason and goes through the connection's one change seam (FleetConnection::submitChange):
// recorded as "<OS user>@console" on a store connection, as the authenticated identity through
// shardmapd. A refused action is reported inline with the store's or shardmapd's reason; one that
// awaits a second person's approval says so. A migration that finishes or fails while the page watches raises a desktop
// notification (or an inline message where there is no system tray).
class MigrationsPage : public QWidget {
    Q_OBJECT
public:
    enum class Action { Pause, Resume, Cancel, Rollback, Throttle };
    Q_ENUM(Action)

    explicit MigrationsPage(FleetConnection* connection, QWidget* parent = nullptr);
    ~MigrationsPage() override;

    MigrationsModel* model() const { return m_model; }
    MigrationsFilterProxy* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }

    // The inline message line (errors of actions, notifications without a tray); empty: hidden.
    QString messageText() const;
    bool messageIsError() const { return m_messageIsError; }
    // "<OS user>@console": the actor of every request made from the console.
    static QString actorName();

    // The one selected migration (empty when none or several are selected: actions take one).
    QString selectedMigration() const;
    QStringList selectedMigrations() const;
    // Clears the other filters and shows only the migrations of one operation (a wizard's plan,
    // a drain ...).
    void showOperation(const QString& operationId);
    void selectMigration(const QString& migrationId);
    // Why the console's map says the action cannot apply to the migration (empty: it may). The
    // store decides in the end; this only greys out buttons and explains why in their tooltips.
    QString refusal(Action action, const QString& migrationId) const;

public slots:
    // "Details…" (and double-click or Enter on a row): the migration's detail view, non-modal,
    // one per migration (opening it again raises it). nullptr for an empty id.
    MigrationDetailDialog* openDetail(const QString& migrationId);
    void openSelectedDetail();

    // "Export report…": the selected migrations, else the operation of the operation filter,
    // else the migrations the filters show (none: every migration). Opens the export dialog
    // (non-modal) and returns it, or nullptr when the filters show nothing.
    ReportExportDialog* exportReport();
    ReportExportDialog* exportOperationReport(const QString& operationId);

    // Send the request at once with the given reason (no dialog); actionFinished reports the outcome.
    void pause(const QString& migrationId, const QString& reason);
    void resume(const QString& migrationId, const QString& reason);
    void cancel(const QString& migrationId, const QString& reason);
    void rollback(const QString& migrationId, const QString& reason);
    // docs/s for one migration; 0: the executor's default.
    void setThrottle(const QString& migrationId, quint64 docsPerSecond, const QString& reason);
    // The executor's fleet-wide limit of concurrent migrations (0: no limit).
    void setMaxConcurrent(quint32 maxConcurrent, const QString& reason);

    // The same on the selected migration (and the spin boxes' values), after a confirmation
    // dialog that asks for the reason.
    void pauseSelected();
    void resumeSelected();
    void cancelSelected();
    void rollbackSelected();
    void throttleSelected();
    void changeMaxConcurrent();

signals:
    // migrationId is empty for settings changes; message says what happened or why it was refused.
    void actionFinished(const QString& migrationId, bool ok, const QString& message);
    // A migration finished, failed or was cancelled while the page watched (the notification text).
    void migrationNotified(const QString& migrationId, const QString& text);

private:
    struct Outcome {
        bool ok = false;
        QString message;
    };

    void buildUi();
    QWidget* buildFilters();
    QWidget* buildActions();
    void mapArrived(const MapPtr& map);
    void send(const QString& migrationId, const QString& reason, const v1::AdminChange& change, const QString& done);
    void migrationAction(Action action, const QString& migrationId, const QString& reason);
    void confirmAndRun(Action action);
    void finished(const QString& migrationId, const Outcome& outcome);
    void notifyFinished(const QString& migrationId, MigrationsModel::StateCategory state, const QString& reason);
    void showMessage(const QString& text, bool error);
    void updateActions();
    void applyTimeFilter(int index);
    void showContextMenu(const QPoint& at);
    ReportExportDialog* openExport(const core::ReportScope& scope, const QString& scopeText);
    QString filterText() const;

    FleetConnection* m_connection;
    MapPtr m_map;
    MigrationsModel* m_model = nullptr;
    MigrationsFilterProxy* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    InlineMessage* m_message = nullptr;
    bool m_messageIsError = false;
    QComboBox* m_stateBox = nullptr;
    QComboBox* m_timeBox = nullptr;
    QLineEdit* m_spaceEdit = nullptr;
    QLineEdit* m_shardEdit = nullptr;
    QLineEdit* m_operationEdit = nullptr;
    QPushButton* m_pauseButton = nullptr;
    QPushButton* m_resumeButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPushButton* m_rollbackButton = nullptr;
    QSpinBox* m_throttleBox = nullptr;
    QPushButton* m_throttleButton = nullptr;
    QSpinBox* m_concurrentBox = nullptr;
    QPushButton* m_concurrentButton = nullptr;
    QPushButton* m_exportButton = nullptr;
    QPushButton* m_detailButton = nullptr;
    QHash<QString, QPointer<MigrationDetailDialog>> m_details;
    QSystemTrayIcon* m_tray = nullptr;
};

} // namespace shardmap::widgets

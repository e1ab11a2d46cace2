#pragma once

// The console's main window: the shell that stacks the pages and wires them to the connection.

#include "core/fleet/alerts.h"
#include "widgets/session/fleet_connection.h"

#include <QMainWindow>
#include <QPointer>
#include <QTimer>

class QAction;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QStackedWidget;

class QSystemTrayIcon;

namespace shardmap::widgets {

class AlertMonitor;
class AlertsPage;
class ApprovalsPage;
class AuditPage;
class OverviewPage;
class DetailPage;
class FleetPage;
class InlineMessage;
class MapPage;
class MigrationsPage;
class PlanWizard;
class RecentConnections;
class WhatIfPage;
class IndexSettingsPage;
class BackupsPage;
class BalancerPage;

// The console's shell: pages (Fleet, Shard detail; later Map, Migrations, Plans, Audit) in a
// stack with a navigation list, menus with shortcuts, a find-space box, a banner for a lost
// connection and a status bar with the connection, the map revision and the age of the newest
// metrics. It only wires: data comes from FleetConnection, views from the pages.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    FleetConnection* connection() const { return m_connection; }
    OverviewPage* overviewPage() const { return m_overviewPage; }
    AlertsPage* alertsPage() const { return m_alertsPage; }
    AlertMonitor* alertMonitor() const { return m_alertMonitor; }
    ApprovalsPage* approvalsPage() const { return m_approvalsPage; }
    FleetPage* fleetPage() const { return m_fleetPage; }
    DetailPage* detailPage() const { return m_detailPage; }
    MapPage* mapPage() const { return m_mapPage; }
    MigrationsPage* migrationsPage() const { return m_migrationsPage; }
    AuditPage* auditPage() const { return m_auditPage; }
    WhatIfPage* whatIfPage() const { return m_whatIfPage; }
    IndexSettingsPage* indexSettingsPage() const { return m_indexSettingsPage; }
    BackupsPage* backupsPage() const { return m_backupsPage; }
    BalancerPage* balancerPage() const { return m_balancerPage; }
    RecentConnections* recentConnections() const { return m_recent; }

    // Adds a page to the navigation; later issues add theirs the same way. Returns its index.
    int addPage(QWidget* page, const QString& title, const QIcon& icon);
    void showPage(QWidget* page);
    QWidget* currentPage() const;

    // Connects without the dialog (`shardmap --store URI`).
    void connectTo(const ConnectionSpec& spec);
    // Connects to a remembered connection, with its password from the keyring if it has one.
    void openRecentConnection(const ConnectionSpec& spec) { openRecent(spec); }
    // Opens the wizard of a planner scenario (int(core::Scenario)) for a shard, node or space;
    // a queued plan opens the migrations page filtered to its operation, "Edit in plan mode"
    // the shard map page with the plan.
    PlanWizard* openWizard(int scenario, const QString& subject = {});

    // Opens the detail page where the space lives; false (and says so) if the map has no such space.
    bool findSpace(const QString& spaceId);

    // The status bar's texts, for tests and screenshots.
    QString connectionText() const;
    QString revisionText() const;
    QString metricsAgeText() const;
    QString bannerText() const;
    // The environment badge of the status bar ("PRODUCTION · READ-ONLY"; empty when hidden) and
    // its colour (invalid when none).
    QString environmentText() const;
    QColor environmentColour() const;
    // Another window with its own connection (File ▸ New window), deleted when closed.
    static MainWindow* openNewWindow();
    // The last alert notification ("Node unreachable: Node n1 cannot be reached"), for tests.
    QString lastNotification() const { return m_lastNotification; }
    // The navigation entry of the alerts page ("Alerts (2)").
    QString alertsNavigationText() const;
    // The navigation entry of the approvals page ("Approvals (1)").
    QString approvalsNavigationText() const;
    // "bob (operator)" on a controller connection, empty otherwise.
    QString identityText() const;

signals:
    // A desktop notification of fired alerts was shown (or would have been, without a tray).
    void alertNotified(const QString& title, const QString& text);

public slots:
    void openConnectDialog();
    void disconnectFromFleet();
    void focusFindSpace();
    void exportChart();
    void openPreferences();
    void editHealthThresholds();
    void about();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    // The File menu's actions the toolbar shows too.
    struct FileActions {
        QAction* connect = nullptr;
        QAction* exportChart = nullptr;
    };

    // The constructor's steps.
    void createPages();
    void connectOverview();
    void connectPages();
    void layOutCentralWidget();
    void followConnection();
    void restoreWindowGeometry();
    void buildMenus();
    FileActions buildFileMenu();
    void buildViewMenu();
    void buildPlanMenu();
    void buildSettingsMenu();
    void buildToolbar(const FileActions& file);
    void fitNavigation();
    void buildStatusBar();
    void openRecent(const ConnectionSpec& spec);
    void connectionStateChanged(FleetConnection::State state, const QString& detail);
    void updateRevision();
    void updateMetricsAge();
    void showDetail(const QString& nodeId, const QString& shardId);
    void showAlertSubject(int kind, const QString& subject);
    void updateEnvironment(FleetConnection::State state);
    void updateChangeActions();
    void updateAlertBadge();
    void updateApprovalsBadge(int pending);
    void notifyAlerts(const std::vector<core::Alert>& alerts);

    FleetConnection* m_connection = nullptr;
    RecentConnections* m_recent = nullptr;
    QListWidget* m_navigation = nullptr;
    QStackedWidget* m_pages = nullptr;
    AlertMonitor* m_alertMonitor = nullptr;
    OverviewPage* m_overviewPage = nullptr;
    AlertsPage* m_alertsPage = nullptr;
    int m_alertsPageIndex = -1;
    ApprovalsPage* m_approvalsPage = nullptr;
    int m_approvalsPageIndex = -1;
    QSystemTrayIcon* m_tray = nullptr;
    QString m_lastNotification;
    FleetPage* m_fleetPage = nullptr;
    DetailPage* m_detailPage = nullptr;
    MapPage* m_mapPage = nullptr;
    MigrationsPage* m_migrationsPage = nullptr;
    AuditPage* m_auditPage = nullptr;
    WhatIfPage* m_whatIfPage = nullptr;
    IndexSettingsPage* m_indexSettingsPage = nullptr;
    BackupsPage* m_backupsPage = nullptr;
    BalancerPage* m_balancerPage = nullptr;
    InlineMessage* m_banner = nullptr;
    QLineEdit* m_findSpace = nullptr;
    QLabel* m_environmentLabel = nullptr;
    QLabel* m_connectionLabel = nullptr;
    QLabel* m_identityLabel = nullptr;
    QLabel* m_revisionLabel = nullptr;
    QLabel* m_metricsAgeLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_disconnectAction = nullptr;
    QList<QAction*> m_wizardActions;
    QTimer m_ageTimer;
};

} // namespace shardmap::widgets

// MainWindow's implementation: the pages and their wiring, the menus and toolbar, the status bar,
// connecting and disconnecting, alerts in the tray, and the window's remembered state.

#include "widgets/console/main_window.h"

#include "widgets/alerts/alert_monitor.h"
#include "widgets/alerts/alerts_model.h"
#include "widgets/alerts/alerts_page.h"
#include "widgets/approvals/approvals_page.h"
#include "widgets/audit/audit_page.h"
#include "widgets/backups/backups_page.h"
#include "widgets/balancer/balancer_page.h"
#include "widgets/connect/connect_dialog.h"
#include "widgets/connect/recent_connections.h"
#include "widgets/detail/detail_page.h"
#include "widgets/fleet/fleet_page.h"
#include "widgets/map/map_page.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/overview/overview_page.h"
#include "widgets/style/change_action.h"
#include "widgets/style/icons.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/preferences_dialog.h"
#include "widgets/style/view_state.h"
#include "widgets/templates/index_settings_page.h"
#include "widgets/whatif/whatif_page.h"
#include "widgets/wizards/plan_wizard.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QToolBar>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

QIcon resourceIcon(const char* name)
{
    return QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(name)));
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_connection(new FleetConnection(this))
    , m_recent(new RecentConnections(this))
{
    setWindowTitle(tr("Shardmap"));
    setWindowIcon(QIcon(QStringLiteral(":/shardmap.svg")));

    m_banner = new InlineMessage(this);
    m_banner->setObjectName(QStringLiteral("connectionBanner"));
    m_navigation = new QListWidget(this);
    m_navigation->setObjectName(QStringLiteral("navigation"));
    m_navigation->setIconSize(QSize(20, 20));
    m_pages = new QStackedWidget(this);
    connect(m_navigation, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);

    createPages();
    connectOverview();
    connectPages();
    fitNavigation();
    layOutCentralWidget();
    buildMenus();
    buildStatusBar();
    followConnection();
    restoreWindowGeometry();
}

void MainWindow::createPages()
{
    m_alertMonitor = new AlertMonitor(m_connection, this);
    m_overviewPage = new OverviewPage(m_connection, m_alertMonitor, this);
    addPage(m_overviewPage, tr("Overview"), icon(IconId::Overview));
    m_fleetPage = new FleetPage(m_connection, this);
    m_detailPage = new DetailPage(m_connection, this);
    addPage(m_fleetPage, tr("Fleet"), icon(IconId::Node));
    addPage(m_detailPage, tr("Shard detail"), icon(IconId::Shard));
    m_mapPage = new MapPage(m_connection, this);
    addPage(m_mapPage, tr("Shard map"), icon(IconId::Shard));
    m_migrationsPage = new MigrationsPage(m_connection, this);
    addPage(m_migrationsPage, tr("Migrations"), icon(IconId::Refresh));
    m_auditPage = new AuditPage(m_connection, this);
    addPage(m_auditPage, tr("Audit"), icon(IconId::Audit));
    m_whatIfPage = new WhatIfPage(m_connection, this);
    addPage(m_whatIfPage, tr("What-if"), icon(IconId::Settings));
    m_alertsPage = new AlertsPage(m_alertMonitor, this);
    m_alertsPageIndex = addPage(m_alertsPage, tr("Alerts"), icon(IconId::Alerts));
    m_approvalsPage = new ApprovalsPage(m_connection, this);
    m_approvalsPageIndex = addPage(m_approvalsPage, tr("Approvals"), icon(IconId::Approvals));
    // After the pages with shortcuts (Ctrl+1 to Ctrl+9), which keep theirs.
    m_indexSettingsPage = new IndexSettingsPage(m_connection, this);
    addPage(m_indexSettingsPage, tr("Index settings"), icon(IconId::Settings));
    m_backupsPage = new BackupsPage(m_connection, this);
    addPage(m_backupsPage, tr("Backups"), icon(IconId::Export));
    m_balancerPage = new BalancerPage(m_connection, this);
    addPage(m_balancerPage, tr("Balancer"), icon(IconId::Refresh));
}

// Every figure of the overview is a click away from its page.
void MainWindow::connectOverview()
{
    connect(m_overviewPage, &OverviewPage::pageRequested, this, [this](OverviewPage::Target target) {
        switch (target) {
        case OverviewPage::Target::Fleet: showPage(m_fleetPage); break;
        case OverviewPage::Target::Map: showPage(m_mapPage); break;
        case OverviewPage::Target::Migrations: showPage(m_migrationsPage); break;
        case OverviewPage::Target::Alerts: showPage(m_alertsPage); break;
        case OverviewPage::Target::Audit: showPage(m_auditPage); break;
        case OverviewPage::Target::Balancer: showPage(m_balancerPage); break;
        }
    });
    connect(m_overviewPage, &OverviewPage::detailRequested, this, &MainWindow::showDetail);
    connect(m_overviewPage, &OverviewPage::spaceRequested, this, &MainWindow::findSpace);
    connect(m_overviewPage, &OverviewPage::alertRequested, this, &MainWindow::showAlertSubject);
    connect(m_balancerPage, &BalancerPage::statusShown, m_overviewPage, &OverviewPage::setBalancerStatus);
    connect(m_balancerPage, &BalancerPage::operationRequested, this, [this](const QString& operationId) {
        showPage(m_migrationsPage);
        m_migrationsPage->showOperation(operationId);
    });
}

void MainWindow::connectPages()
{
    connect(m_approvalsPage, &ApprovalsPage::pendingCountChanged, this, &MainWindow::updateApprovalsBadge);
    connect(m_alertsPage, &AlertsPage::subjectRequested, this, &MainWindow::showAlertSubject);
    connect(m_alertsPage, &AlertsPage::healthThresholdsRequested, this, &MainWindow::editHealthThresholds);
    connect(m_fleetPage, &FleetPage::thresholdsChanged, this, [this] {
        QSettings settings;
        m_alertMonitor->setThresholds(loadAlertThresholds(settings));
    });
    connect(m_alertMonitor, &AlertMonitor::alertsChanged, this, &MainWindow::updateAlertBadge);
    connect(m_alertMonitor, &AlertMonitor::alertsFired, this, &MainWindow::notifyAlerts);
    connect(m_fleetPage, &FleetPage::detailRequested, this, &MainWindow::showDetail);
    connect(m_fleetPage, &FleetPage::wizardRequested, this, &MainWindow::openWizard);
    connect(m_mapPage, &MapPage::wizardRequested, this, &MainWindow::openWizard);
    connect(m_indexSettingsPage, &IndexSettingsPage::reindexRequested, this, [this](const QString& label) {
        if (PlanWizard* wizard = openWizard(static_cast<int>(core::Scenario::Reindex), QStringLiteral("all")))
            wizard->setTemplate(label);
    });
}

void MainWindow::layOutCentralWidget()
{
    auto* splitter = new QSplitter(this);
    splitter->addWidget(m_navigation);
    splitter->addWidget(m_pages);
    splitter->setStretchFactor(1, 1);
    splitter->setObjectName(QStringLiteral("mainSplitter"));
    rememberState(splitter, QStringLiteral("main/splitter"));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_banner);
    layout->addWidget(splitter, 1);
    setCentralWidget(central);
}

void MainWindow::followConnection()
{
    connect(m_connection, &FleetConnection::stateChanged, this, &MainWindow::connectionStateChanged);
    connect(m_connection, &FleetConnection::mapChanged, this, &MainWindow::updateRevision);
    connect(m_connection, &FleetConnection::nodeSample, this, &MainWindow::updateMetricsAge);
    connect(&m_ageTimer, &QTimer::timeout, this, &MainWindow::updateMetricsAge);
    m_ageTimer.start(1000);
    connectionStateChanged(m_connection->state(), QString());
}

void MainWindow::restoreWindowGeometry()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    if (!settings.contains(QStringLiteral("window/geometry"))) {
        resize(1280, 800);
    }
}

MainWindow::~MainWindow()
{
    // The connection outlives the pages that hold it, and says nothing to a half-destroyed window.
    disconnect(m_connection, nullptr, this, nullptr);
    delete m_pages;
    m_pages = nullptr;
    // The connection says it disconnects as it closes, and the alert monitor answers by emitting
    // to this window: both go while it is still whole (as children they would go after ~MainWindow).
    delete m_alertMonitor;
    m_alertMonitor = nullptr;
    delete m_connection;
    m_connection = nullptr;
}

int MainWindow::addPage(QWidget* page, const QString& title, const QIcon& icon)
{
    const int index = m_pages->addWidget(page);
    auto* item = new QListWidgetItem(icon, title, m_navigation);
    item->setToolTip(tr("%1 (Ctrl+%2)").arg(title).arg(index + 1));
    if (index < 9) {
        auto* shortcut = new QAction(title, this);
        shortcut->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + index)));
        connect(shortcut, &QAction::triggered, this, [this, page] { showPage(page); });
        addAction(shortcut);
    }
    if (m_navigation->currentRow() < 0) {
        m_navigation->setCurrentRow(0);
    }
    return index;
}

void MainWindow::fitNavigation()
{
    // As wide as the widest label in the language shown (German ones are longer), never cut: a
    // remembered splitter position narrower than that gives way.
    const int scrollBar = m_navigation->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_navigation);
    const int width = m_navigation->sizeHintForColumn(0) + 2 * m_navigation->frameWidth() + scrollBar;
    m_navigation->setMinimumWidth(width);
}

void MainWindow::showPage(QWidget* page)
{
    const int index = m_pages->indexOf(page);
    if (index >= 0) {
        m_navigation->setCurrentRow(index);
    }
}

QWidget* MainWindow::currentPage() const
{
    return m_pages->currentWidget();
}

void MainWindow::buildMenus()
{
    const FileActions file = buildFileMenu();
    buildViewMenu();
    buildPlanMenu();
    buildSettingsMenu();
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Shardmap"), this, &MainWindow::about);
    buildToolbar(file);
}

MainWindow::FileActions MainWindow::buildFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* connectAction
        = file->addAction(resourceIcon("connect"), tr("&Connect…"), this, &MainWindow::openConnectDialog);
    connectAction->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("&Recent connections"));
    m_recent->bindMenu(m_recentMenu);
    connect(m_recent, &RecentConnections::connectionRequested, this, &MainWindow::openRecent);
    m_disconnectAction
        = file->addAction(resourceIcon("disconnect"), tr("&Disconnect"), this, &MainWindow::disconnectFromFleet);
    QAction* newWindow = file->addAction(tr("&New window"), this, [] {
        MainWindow* window = openNewWindow();
        window->openConnectDialog();
    });
    newWindow->setShortcut(QKeySequence::New);
    file->addSeparator();
    QAction* exportAction
        = file->addAction(resourceIcon("export"), tr("&Export chart…"), this, &MainWindow::exportChart);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    return { connectAction, exportAction };
}

void MainWindow::buildViewMenu()
{
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* find = view->addAction(resourceIcon("find"), tr("&Find space…"), this, &MainWindow::focusFindSpace);
    find->setShortcut(QKeySequence::Find);
    view->addAction(tr("&Fleet"), this, [this] { showPage(m_fleetPage); });
    view->addAction(tr("Shard &detail"), this, [this] { showPage(m_detailPage); });
    view->addAction(tr("Shard &map"), this, [this] { showPage(m_mapPage); });
    view->addAction(tr("&Migrations"), this, [this] { showPage(m_migrationsPage); });
    view->addAction(tr("&Audit"), this, [this] { showPage(m_auditPage); });
}

void MainWindow::buildPlanMenu()
{
    QMenu* plan = menuBar()->addMenu(tr("&Plan"));
    plan->setToolTipsVisible(true);
    for (const auto& [scenario, text] : PlanWizard::entries())
        m_wizardActions.push_back(
            plan->addAction(text, this, [this, scenario = scenario] { openWizard(static_cast<int>(scenario)); }));
    plan->addSeparator();
    plan->addAction(tr("&What-if simulator"), this, [this] { showPage(m_whatIfPage); });
}

void MainWindow::buildSettingsMenu()
{
    QMenu* settingsMenu = menuBar()->addMenu(tr("&Settings"));
    settingsMenu->addAction(tr("&Health thresholds…"), this, &MainWindow::editHealthThresholds);
    QAction* preferences
        = settingsMenu->addAction(resourceIcon("settings"), tr("&Preferences…"), this, &MainWindow::openPreferences);
    preferences->setShortcut(QKeySequence::Preferences);
}

void MainWindow::buildToolbar(const FileActions& file)
{
    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setMovable(false);
    toolbar->addAction(file.connect);
    toolbar->addAction(file.exportChart);
    toolbar->addSeparator();
    m_findSpace = new QLineEdit(toolbar);
    m_findSpace->setObjectName(QStringLiteral("findSpace"));
    m_findSpace->setPlaceholderText(tr("Find space by id (Ctrl+F)"));
    m_findSpace->setClearButtonEnabled(true);
    m_findSpace->setMaximumWidth(280);
    connect(m_findSpace, &QLineEdit::returnPressed, this, [this] { findSpace(m_findSpace->text().trimmed()); });
    toolbar->addWidget(m_findSpace);
}

void MainWindow::buildStatusBar()
{
    // The profile's environment ("production" on red) and read-only, where no one can miss them.
    m_environmentLabel = new QLabel(this);
    m_environmentLabel->setObjectName(QStringLiteral("environmentBadge"));
    m_environmentLabel->setMargin(2);
    m_environmentLabel->hide();
    statusBar()->addPermanentWidget(m_environmentLabel);
    m_connectionLabel = new QLabel(this);
    // Who shardmapd says this console is, on a controller connection: "bob (operator)".
    m_identityLabel = new QLabel(this);
    m_identityLabel->setObjectName(QStringLiteral("identity"));
    m_identityLabel->hide();
    connect(m_connection, &FleetConnection::identityChanged, this, [this] {
        updateEnvironment(m_connection->state());
        updateChangeActions();
        m_identityLabel->setText(m_connection->identityText());
        m_identityLabel->setToolTip(m_connection->readOnlyReason());
        m_identityLabel->setVisible(!m_identityLabel->text().isEmpty());
    });
    m_revisionLabel = new QLabel(this);
    m_metricsAgeLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_connectionLabel, 1);
    statusBar()->addPermanentWidget(m_identityLabel);
    statusBar()->addPermanentWidget(m_revisionLabel);
    statusBar()->addPermanentWidget(m_metricsAgeLabel);
    updateRevision();
    updateMetricsAge();
}

void MainWindow::openRecent(const ConnectionSpec& spec)
{
    if (!m_recent->hasSavedPassword(spec.key())) {
        connectTo(spec);
        return;
    }
    // The password comes from the keyring asynchronously; without it the store says what is missing.
    m_recent->loadPassword(spec.key(), this, [this, spec](const QString& password, const QString& error) {
        if (!error.isEmpty()) {
            statusBar()->showMessage(error, 8000);
        }
        ConnectionSpec withSecret = spec;
        withSecret.password = password;
        connectTo(withSecret);
    });
}

void MainWindow::openConnectDialog()
{
    auto* dialog = new ConnectDialog(m_recent, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (m_connection->state() != FleetConnection::State::Disconnected) {
        dialog->setSpec(m_connection->spec());
    }
    connect(dialog, &QDialog::accepted, this, [this, dialog] { connectTo(dialog->spec()); });
    dialog->open();
}

void MainWindow::connectTo(const ConnectionSpec& spec)
{
    m_connection->open(spec);
}

void MainWindow::disconnectFromFleet()
{
    m_connection->close();
}

void MainWindow::focusFindSpace()
{
    m_findSpace->setFocus(Qt::ShortcutFocusReason);
    m_findSpace->selectAll();
}

bool MainWindow::findSpace(const QString& spaceId)
{
    if (spaceId.isEmpty()) {
        return false;
    }
    if (!m_connection->map()) {
        statusBar()->showMessage(tr("Not connected: connect to a fleet to find spaces"), 5000);
        return false;
    }
    // On the shard map the tile is what the administrator looks for; elsewhere, the detail page.
    if (currentPage() == m_mapPage && m_mapPage->findSpace(spaceId)) {
        return true;
    }
    if (!m_detailPage->showSpace(spaceId)) {
        statusBar()->showMessage(tr("No space \"%1\" in the shard map").arg(spaceId), 5000);
        return false;
    }
    showPage(m_detailPage);
    return true;
}

void MainWindow::showDetail(const QString& nodeId, const QString& shardId)
{
    if (shardId.isEmpty()) {
        m_detailPage->showNode(nodeId);
    } else {
        m_detailPage->showShard(shardId);
    }
    showPage(m_detailPage);
}

void MainWindow::updateEnvironment(FleetConnection::State state)
{
    const ConnectionSpec& spec = m_connection->spec();
    const bool connected = state != FleetConnection::State::Disconnected;
    setWindowTitle(connected ? tr("%1 — Shardmap").arg(spec.title()) : tr("Shardmap"));
    QStringList tags;
    if (connected && !spec.environment.trimmed().isEmpty())
        tags << spec.environment.trimmed().toUpper();
    if (connected && spec.readOnly)
        tags << tr("READ-ONLY");
    else if (connected && m_connection->viaController() && m_connection->readOnly())
        tags << tr("VIEWER");
    m_environmentLabel->setText(tags.join(QStringLiteral(" · ")));
    m_environmentLabel->setAccessibleName(tr("Environment: %1").arg(tags.join(QStringLiteral(", "))));
    m_environmentLabel->setVisible(!tags.isEmpty());
    const QColor colour = connected ? spec.environmentColour() : QColor();
    m_environmentLabel->setStyleSheet(colour.isValid()
            ? QStringLiteral("QLabel { background: %1; color: white; font-weight: bold; padding: 1px 6px; }")
                  .arg(colour.name())
            : QStringLiteral("QLabel { font-weight: bold; padding: 1px 6px; }"));
}

QString MainWindow::environmentText() const
{
    return m_environmentLabel->isHidden() ? QString() : m_environmentLabel->text();
}

QColor MainWindow::environmentColour() const
{
    return !m_environmentLabel->isHidden() && m_connection->state() != FleetConnection::State::Disconnected
        ? m_connection->spec().environmentColour()
        : QColor();
}

MainWindow* MainWindow::openNewWindow()
{
    auto* window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->show();
    return window;
}

void MainWindow::showAlertSubject(int kind, const QString& subject)
{
    const MapPtr map = m_connection->map();
    switch (static_cast<core::AlertKind>(kind)) {
    case core::AlertKind::NodeUnreachable:
    case core::AlertKind::DiskFull:
    case core::AlertKind::CpuHigh:
    case core::AlertKind::MemoryHigh: showDetail(subject, {}); return;
    case core::AlertKind::ShardOverCapacity:
    case core::AlertKind::ShardUnderReplicated:
    case core::AlertKind::ShardWithoutCopy:
    case core::AlertKind::ShardFailedOver: {
        const core::ShardRecord* shard = map ? map->shard(subject.toStdString()) : nullptr;
        showDetail(shard ? QString::fromStdString(shard->node) : QString(), subject);
        return;
    }
    case core::AlertKind::MigrationFailed:
    case core::AlertKind::MigrationStalled:
    case core::AlertKind::EtaGrowing:
        showPage(m_migrationsPage);
        m_migrationsPage->selectMigration(subject);
        return;
    case core::AlertKind::StoreUnreachable:
    case core::AlertKind::StoreAccessDenied:
    case core::AlertKind::AuditChainBroken:
    case core::AlertKind::SnapshotTooOld:
    case core::AlertKind::NoExecutor: showPage(m_alertsPage); return;
    }
}

QString MainWindow::alertsNavigationText() const
{
    return m_navigation->item(m_alertsPageIndex)->text();
}

void MainWindow::updateAlertBadge()
{
    const int open = static_cast<int>(m_alertMonitor->log().unacknowledgedCount());
    const int firing = static_cast<int>(m_alertMonitor->log().activeCount());
    QListWidgetItem* item = m_navigation->item(m_alertsPageIndex);
    item->setText(firing == 0 ? tr("Alerts") : tr("Alerts (%1)").arg(firing));
    fitNavigation();
    item->setData(Qt::AccessibleTextRole,
        firing == 0 ? tr("Alerts, none firing")
                    : tr("Alerts, %n firing", nullptr, firing) + QStringLiteral(", ")
                + tr("%n not acknowledged", nullptr, open));
    QFont font = item->font();
    font.setBold(open > 0);
    item->setFont(font);
}

void MainWindow::notifyAlerts(const std::vector<core::Alert>& alerts)
{
    if (alerts.empty())
        return;
    const core::Alert& first = alerts.front();
    const QString title = alerts.size() == 1 ? AlertsModel::kindName(first.kind)
                                             : tr("%n alerts fired", nullptr, static_cast<int>(alerts.size()));
    const QString text = AlertsModel::describe(first);
    m_lastNotification = title + QStringLiteral(": ") + text;
    // A desktop notification where the desktop has a tray; the window asks for attention anyway.
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(windowIcon(), this);
            connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] {
                showPage(m_alertsPage);
                raise();
                activateWindow();
            });
            m_tray->show();
        }
        m_tray->showMessage(title, text,
            first.severity == core::AlertSeverity::Critical ? QSystemTrayIcon::Critical : QSystemTrayIcon::Warning);
    }
    QApplication::alert(this);
    statusBar()->showMessage(m_lastNotification, 15000);
    emit alertNotified(title, text);
}

void MainWindow::exportChart()
{
    showPage(m_detailPage);
    m_detailPage->exportChartInteractive();
}

void MainWindow::openPreferences()
{
    auto* dialog = new PreferencesDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::editHealthThresholds()
{
    m_fleetPage->editThresholds();
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About Shardmap"),
        tr("<h3>Shardmap %1</h3><p>The control plane and console of a sharded full-text search fleet.</p>")
            .arg(QApplication::applicationVersion()));
}

void MainWindow::connectionStateChanged(FleetConnection::State state, const QString& detail)
{
    const QString store = m_connection->spec().endpoint();
    switch (state) {
    case FleetConnection::State::Disconnected:
        m_connectionLabel->setText(tr("Not connected"));
        m_banner->show(
            tr("Not connected. Use File ▸ Connect… (Ctrl+O) to open a fleet's shard map."), InlineMessage::Kind::Info);
        break;
    case FleetConnection::State::Connecting:
        m_connectionLabel->setText(tr("Connecting to %1…").arg(store));
        if (detail.isEmpty() || m_connection->lastError().isEmpty()) {
            m_banner->clear();
        } else {
            m_banner->show(detail, InlineMessage::Kind::Warning);
        }
        break;
    case FleetConnection::State::Connected:
        m_connectionLabel->setText(tr("Connected: %1").arg(store));
        m_banner->clear();
        break;
    case FleetConnection::State::Reconnecting:
        m_connectionLabel->setText(tr("Reconnecting to %1…").arg(store));
        m_banner->show(detail, InlineMessage::Kind::Warning);
        break;
    }
    m_disconnectAction->setEnabled(state != FleetConnection::State::Disconnected);
    updateEnvironment(state);
    updateChangeActions();
    updateRevision();
    updateMetricsAge();
}

void MainWindow::updateChangeActions()
{
    // The wizards queue migrations: a read-only connection offers none, and says why.
    for (QAction* wizard : std::as_const(m_wizardActions))
        enableChange(wizard, m_connection);
}

void MainWindow::updateRevision()
{
    const MapPtr map = m_connection->map();
    m_revisionLabel->setText(map ? tr("Map revision %1").arg(map->revision) : QString());
}

void MainWindow::updateMetricsAge()
{
    const qint64 newest = m_connection->newestSampleArrivalMs();
    if (newest == 0) {
        m_metricsAgeLabel->setText(m_connection->map() ? tr("No metrics yet") : QString());
        return;
    }
    const qint64 age = std::max<qint64>(0, (QDateTime::currentMSecsSinceEpoch() - newest) / 1000);
    m_metricsAgeLabel->setText(tr("Metrics %1 s old").arg(age));
}

QString MainWindow::connectionText() const
{
    return m_connectionLabel->text();
}

QString MainWindow::identityText() const
{
    return m_identityLabel->isHidden() ? QString() : m_identityLabel->text();
}

QString MainWindow::approvalsNavigationText() const
{
    return m_navigation->item(m_approvalsPageIndex)->text();
}

void MainWindow::updateApprovalsBadge(int pending)
{
    QListWidgetItem* item = m_navigation->item(m_approvalsPageIndex);
    item->setText(pending == 0 ? tr("Approvals") : tr("Approvals (%1)").arg(pending));
    fitNavigation();
    item->setData(Qt::AccessibleTextRole,
        pending == 0 ? tr("Approvals, none pending") : tr("Approvals, %n pending", nullptr, pending));
    QFont font = item->font();
    font.setBold(pending > 0);
    item->setFont(font);
}

QString MainWindow::revisionText() const
{
    return m_revisionLabel->text();
}

QString MainWindow::metricsAgeText() const
{
    return m_metricsAgeLabel->text();
}

QString MainWindow::bannerText() const
{
    return m_banner->shownText();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    m_connection->close();
    event->accept();
}

PlanWizard* MainWindow::openWizard(int scenario, const QString& subject)
{
    if (m_connection->readOnly()) {
        // Wizards queue migrations; a read-only connection queues nothing.
        statusBar()->showMessage(m_connection->readOnlyReason(), 10000);
        return nullptr;
    }
    auto* wizard = new PlanWizard(m_connection, static_cast<core::Scenario>(scenario), subject, this);
    wizard->setAttribute(Qt::WA_DeleteOnClose);
    connect(wizard, &PlanWizard::operationQueued, this, [this](const QString& operationId) {
        m_migrationsPage->showOperation(operationId);
        showPage(m_migrationsPage);
    });
    connect(wizard, &PlanWizard::approvalRequested, this, [this](const QString& approvalId, const QString& text) {
        m_approvalsPage->refresh();
        m_approvalsPage->message()->show(text, InlineMessage::Kind::Info);
        m_approvalsPage->selectApproval(approvalId);
        showPage(m_approvalsPage);
    });
    connect(wizard, &PlanWizard::editInPlanModeRequested, this, [this, wizard] {
        if (!wizard->result())
            return;
        m_mapPage->editPlan(wizard->result()->plan);
        showPage(m_mapPage);
        wizard->close();
    });
    wizard->show();
    return wizard;
}

} // namespace shardmap::widgets

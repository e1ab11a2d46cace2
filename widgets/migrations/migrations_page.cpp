// MigrationsPage's implementation: filters, actions confirmed with a reason and submitted through the
// connection, reports exported, and notifications when migrations end.
#include "widgets/migrations/migrations_page.h"

#include "widgets/migrations/migration_detail_dialog.h"
#include "widgets/migrations/migrations_filter_proxy.h"
#include "widgets/migrations/progress_delegate.h"
#include "widgets/report/report_export_dialog.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/reason_dialog.h"
#include "widgets/style/view_state.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QVBoxLayout>

namespace shardmap::widgets {
namespace {

QString actionVerb(MigrationsPage::Action action)
{
    switch (action) {
    case MigrationsPage::Action::Pause: return MigrationsPage::tr("Pause");
    case MigrationsPage::Action::Resume: return MigrationsPage::tr("Resume");
    case MigrationsPage::Action::Cancel: return MigrationsPage::tr("Cancel");
    case MigrationsPage::Action::Rollback: return MigrationsPage::tr("Roll back");
    case MigrationsPage::Action::Throttle: return MigrationsPage::tr("Throttle");
    }
    return {};
}

QString doneText(MigrationsPage::Action action, const QString& id)
{
    switch (action) {
    case MigrationsPage::Action::Pause: return MigrationsPage::tr("Paused %1.").arg(id);
    case MigrationsPage::Action::Resume: return MigrationsPage::tr("Resumed %1.").arg(id);
    case MigrationsPage::Action::Cancel: return MigrationsPage::tr("Asked to cancel %1.").arg(id);
    case MigrationsPage::Action::Rollback: return MigrationsPage::tr("Asked to roll back %1.").arg(id);
    case MigrationsPage::Action::Throttle: return MigrationsPage::tr("Changed the throttle of %1.").arg(id);
    }
    return {};
}

} // namespace

MigrationsPage::MigrationsPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
{
    buildUi();
    connect(m_connection, &FleetConnection::mapChanged, this, &MigrationsPage::mapArrived);
    connect(m_connection, &FleetConnection::stateChanged, this, &MigrationsPage::updateActions);
    connect(m_connection, &FleetConnection::identityChanged, this, &MigrationsPage::updateActions);
    connect(m_model, &MigrationsModel::migrationFinished, this, &MigrationsPage::notifyFinished);
    if (m_connection->map())
        mapArrived(m_connection->map());
    updateActions();
}

MigrationsPage::~MigrationsPage() = default;

void MigrationsPage::buildUi()
{
    m_model = new MigrationsModel(this);
    m_proxy = new MigrationsFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_view = new QTableView(this);
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Several rows make a report's selection; actions take exactly one.
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &MigrationsPage::showContextMenu);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(MigrationsModel::IdColumn, Qt::DescendingOrder);
    m_view->setItemDelegateForColumn(MigrationsModel::ProgressColumn, new ProgressDelegate(m_view));
    m_view->horizontalHeader()->setStretchLastSection(true);
    // Ids share their first digits (the time they were made): shortened in the middle, so that
    // the distinguishing tail stays readable, and the id column as wide as the ids.
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->horizontalHeader()->setSectionResizeMode(MigrationsModel::IdColumn, QHeaderView::ResizeToContents);
    rememberState(m_view->horizontalHeader(), QStringLiteral("migrations/columns"));
    m_view->verticalHeader()->hide();
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MigrationsPage::updateActions);
    // activated covers double-click and Enter (single click where the platform activates so).
    connect(m_view, &QTableView::activated, this,
        [this](const QModelIndex& index) { openDetail(index.data(MigrationsModel::MigrationIdRole).toString()); });

    m_message = new InlineMessage(this);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildFilters());
    layout->addWidget(buildActions());
    layout->addWidget(m_message);
    layout->addWidget(m_view, 1);
}

QWidget* MigrationsPage::buildFilters()
{
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_stateBox = new QComboBox(bar);
    m_stateBox->addItem(tr("All states"));
    m_stateBox->addItem(tr("Queued"), static_cast<int>(MigrationsModel::StateCategory::Queued));
    m_stateBox->addItem(tr("Running"), static_cast<int>(MigrationsModel::StateCategory::Running));
    m_stateBox->addItem(tr("Done"), static_cast<int>(MigrationsModel::StateCategory::Done));
    m_stateBox->addItem(tr("Failed"), static_cast<int>(MigrationsModel::StateCategory::Failed));
    m_stateBox->addItem(tr("Cancelled"), static_cast<int>(MigrationsModel::StateCategory::Cancelled));
    connect(m_stateBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QVariant state = m_stateBox->itemData(index);
        m_proxy->setStateFilter(
            state.isValid() ? std::optional(static_cast<MigrationsModel::StateCategory>(state.toInt())) : std::nullopt);
    });
    m_timeBox = new QComboBox(bar);
    m_timeBox->addItem(tr("Any time"), qint64(0));
    m_timeBox->addItem(tr("Last hour"), qint64(3600) * 1000);
    m_timeBox->addItem(tr("Last 24 hours"), qint64(24 * 3600) * 1000);
    m_timeBox->addItem(tr("Last 7 days"), qint64(7 * 24 * 3600) * 1000);
    connect(m_timeBox, &QComboBox::currentIndexChanged, this, &MigrationsPage::applyTimeFilter);
    m_spaceEdit = new QLineEdit(bar);
    m_spaceEdit->setPlaceholderText(tr("Space"));
    m_spaceEdit->setClearButtonEnabled(true);
    connect(m_spaceEdit, &QLineEdit::textChanged, m_proxy, &MigrationsFilterProxy::setSpaceFilter);
    m_shardEdit = new QLineEdit(bar);
    m_shardEdit->setPlaceholderText(tr("Shard (source or target)"));
    m_shardEdit->setClearButtonEnabled(true);
    connect(m_shardEdit, &QLineEdit::textChanged, m_proxy, &MigrationsFilterProxy::setShardFilter);
    m_operationEdit = new QLineEdit(bar);
    m_operationEdit->setPlaceholderText(tr("Operation"));
    m_operationEdit->setClearButtonEnabled(true);
    connect(m_operationEdit, &QLineEdit::textChanged, m_proxy, &MigrationsFilterProxy::setOperationFilter);
    row->addWidget(m_stateBox);
    row->addWidget(m_timeBox);
    row->addWidget(m_spaceEdit, 1);
    row->addWidget(m_shardEdit, 1);
    row->addWidget(m_operationEdit, 1);
    return bar;
}

QWidget* MigrationsPage::buildActions()
{
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    const auto button = [&](const QString& text, void (MigrationsPage::*slot)()) {
        auto* created = new QPushButton(text, bar);
        connect(created, &QPushButton::clicked, this, slot);
        row->addWidget(created);
        return created;
    };
    m_detailButton = button(tr("Details…"), &MigrationsPage::openSelectedDetail);
    row->addSpacing(16);
    m_pauseButton = button(tr("Pause…"), &MigrationsPage::pauseSelected);
    m_resumeButton = button(tr("Resume…"), &MigrationsPage::resumeSelected);
    m_cancelButton = button(tr("Cancel…"), &MigrationsPage::cancelSelected);
    m_rollbackButton = button(tr("Roll back…"), &MigrationsPage::rollbackSelected);
    row->addSpacing(16);
    m_throttleBox = new QSpinBox(bar);
    m_throttleBox->setRange(0, 100000000);
    m_throttleBox->setSuffix(tr(" docs/s"));
    m_throttleBox->setSpecialValueText(tr("default rate"));
    row->addWidget(m_throttleBox);
    m_throttleButton = button(tr("Set throttle…"), &MigrationsPage::throttleSelected);
    row->addSpacing(16);
    row->addWidget(new QLabel(tr("Concurrent migrations:"), bar));
    m_concurrentBox = new QSpinBox(bar);
    m_concurrentBox->setRange(0, 1000);
    m_concurrentBox->setSpecialValueText(tr("no limit"));
    row->addWidget(m_concurrentBox);
    m_concurrentButton = button(tr("Apply…"), &MigrationsPage::changeMaxConcurrent);
    row->addStretch(1);
    m_exportButton = new QPushButton(tr("Export report…"), bar);
    m_exportButton->setToolTip(
        tr("A PDF, CSV or JSON report of the selected migrations, or of those the filters show"));
    connect(m_exportButton, &QPushButton::clicked, this, [this] { exportReport(); });
    row->addWidget(m_exportButton);
    return bar;
}

void MigrationsPage::mapArrived(const MapPtr& map)
{
    m_map = map;
    m_model->setMap(map);
    if (map && !m_concurrentBox->hasFocus())
        m_concurrentBox->setValue(static_cast<int>(map->settings.value.maxConcurrent));
    updateActions();
}

void MigrationsPage::applyTimeFilter(int index)
{
    const qint64 span = m_timeBox->itemData(index).toLongLong();
    m_proxy->setCreatedSince(span > 0 ? QDateTime::currentMSecsSinceEpoch() - span : 0);
}

QString MigrationsPage::actorName()
{
    return FleetConnection::localActorName();
}

QString MigrationsPage::selectedMigration() const
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    return rows.size() != 1 ? QString() : rows.first().data(MigrationsModel::MigrationIdRole).toString();
}

QStringList MigrationsPage::selectedMigrations() const
{
    QStringList ids;
    for (const QModelIndex& row : m_view->selectionModel()->selectedRows())
        ids << row.data(MigrationsModel::MigrationIdRole).toString();
    return ids;
}

QString MigrationsPage::filterText() const
{
    QStringList parts;
    if (m_stateBox->currentIndex() > 0)
        parts << m_stateBox->currentText();
    if (m_timeBox->currentIndex() > 0)
        parts << m_timeBox->currentText();
    if (!m_proxy->spaceFilter().isEmpty())
        parts << tr("space contains \"%1\"").arg(m_proxy->spaceFilter());
    if (!m_proxy->shardFilter().isEmpty())
        parts << tr("shard %1").arg(m_proxy->shardFilter());
    if (!m_proxy->operationFilter().isEmpty())
        parts << tr("operation %1").arg(m_proxy->operationFilter());
    return parts.join(QStringLiteral(", "));
}

ReportExportDialog* MigrationsPage::exportReport()
{
    core::ReportScope scope;
    const QStringList selected = selectedMigrations();
    if (!selected.isEmpty()) {
        for (const QString& id : selected)
            scope.migrations.push_back(id.toStdString());
        return openExport(scope, tr("%n selected migration(s)", nullptr, static_cast<int>(selected.size())));
    }
    const QString filters = filterText();
    const QString operation = m_proxy->operationFilter();
    if (!operation.isEmpty() && filters == tr("operation %1").arg(operation) && m_map
        && m_map->operations.contains(operation.toStdString()))
        return exportOperationReport(operation);
    if (filters.isEmpty())
        return openExport(scope, tr("All migrations"));
    for (int row = 0; row < m_proxy->rowCount(); ++row)
        scope.migrations.push_back(
            m_proxy->index(row, 0).data(MigrationsModel::MigrationIdRole).toString().toStdString());
    if (scope.migrations.empty()) {
        showMessage(tr("The filters show no migrations to report."), true);
        return nullptr;
    }
    return openExport(scope, tr("Migrations shown with the filter: %1").arg(filters));
}

ReportExportDialog* MigrationsPage::exportOperationReport(const QString& operationId)
{
    core::ReportScope scope;
    scope.operation = operationId.toStdString();
    return openExport(scope, tr("Operation %1").arg(operationId));
}

ReportExportDialog* MigrationsPage::openExport(const core::ReportScope& scope, const QString& scopeText)
{
    auto* dialog = new ReportExportDialog(m_connection, scope, scopeText, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void MigrationsPage::showContextMenu(const QPoint& at)
{
    QMenu menu(this);
    const QModelIndex index = m_view->indexAt(at);
    const core::MigrationRecord* record
        = index.isValid() ? m_model->record(index.data(MigrationsModel::MigrationIdRole).toString()) : nullptr;
    if (record) {
        const QString id = qs(record->id);
        menu.addAction(tr("Details of %1…").arg(id), this, [this, id] { openDetail(id); });
    }
    menu.addAction(tr("Export report…"), this, [this] { exportReport(); });
    if (record && !record->operation.empty()) {
        const QString operation = qs(record->operation);
        menu.addAction(tr("Export report of operation %1…").arg(operation), this,
            [this, operation] { exportOperationReport(operation); });
        menu.addAction(
            tr("Show only operation %1").arg(operation), this, [this, operation] { showOperation(operation); });
    }
    menu.exec(m_view->viewport()->mapToGlobal(at));
}

MigrationDetailDialog* MigrationsPage::openDetail(const QString& migrationId)
{
    if (migrationId.isEmpty())
        return nullptr;
    QPointer<MigrationDetailDialog>& dialog = m_details[migrationId];
    if (!dialog) {
        dialog = new MigrationDetailDialog(m_connection, migrationId, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

void MigrationsPage::openSelectedDetail()
{
    const QString id = selectedMigration();
    if (id.isEmpty())
        showMessage(tr("Select one migration to see its details."), true);
    else
        openDetail(id);
}

void MigrationsPage::selectMigration(const QString& migrationId)
{
    const int row = m_model->rowOf(migrationId);
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (!index.isValid()) {
        m_view->clearSelection();
        return;
    }
    m_view->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

QString MigrationsPage::refusal(Action action, const QString& migrationId) const
{
    if (m_connection->readOnly())
        return m_connection->readOnlyReason();
    const core::MigrationRecord* record = m_model->record(migrationId);
    if (!record)
        return tr("There is no migration %1 in the map.").arg(migrationId);
    const QString phase = migrationPhaseText(record->phase);
    if (!record->active())
        return tr("Migration %1 is %2 already.").arg(migrationId, phase);
    switch (action) {
    case Action::Pause: return record->paused ? tr("Migration %1 is paused already.").arg(migrationId) : QString();
    case Action::Resume: return record->paused ? QString() : tr("Migration %1 is not paused.").arg(migrationId);
    case Action::Cancel:
        if (record->phase == core::MigrationPhase::Cutover || record->phase == core::MigrationPhase::Cleanup)
            return tr("Migration %1 is past its cutover; roll it back instead.").arg(migrationId);
        return record->cancelRequested ? tr("Migration %1 is being cancelled already.").arg(migrationId) : QString();
    case Action::Rollback:
        if (record->phase != core::MigrationPhase::Cleanup)
            return tr("A rollback is possible after the cutover, while the rollback window is open; migration %1 "
                      "is in phase %2.")
                .arg(migrationId, phase);
        return record->rollbackRequested ? tr("Migration %1 is being rolled back already.").arg(migrationId)
                                         : QString();
    case Action::Throttle: return {};
    }
    return {};
}

void MigrationsPage::updateActions()
{
    const QString id = selectedMigration();
    const bool several = selectedMigrations().size() > 1;
    const auto update = [&](QPushButton* button, Action action) {
        const QString why = several ? tr("Select one migration: actions take one at a time.")
            : id.isEmpty()          ? tr("Select a migration first.")
                                    : refusal(action, id);
        button->setEnabled(why.isEmpty());
        button->setToolTip(why);
    };
    update(m_pauseButton, Action::Pause);
    update(m_resumeButton, Action::Resume);
    update(m_cancelButton, Action::Cancel);
    update(m_rollbackButton, Action::Rollback);
    update(m_throttleButton, Action::Throttle);
    m_detailButton->setEnabled(!id.isEmpty());
    m_detailButton->setToolTip(several ? tr("Select one migration to see its details.")
            : id.isEmpty()             ? tr("Select a migration first.")
                                       : tr("Phases, throughput and events of %1").arg(id));
    m_concurrentButton->setEnabled(!m_connection->readOnly());
    m_concurrentButton->setToolTip(m_connection->readOnlyReason());
    if (const auto* record = m_model->record(id); record && !m_throttleBox->hasFocus())
        m_throttleBox->setValue(static_cast<int>(std::min<std::uint64_t>(record->throttleDocsPerSecond, 100000000)));
}

void MigrationsPage::pause(const QString& migrationId, const QString& reason)
{
    migrationAction(Action::Pause, migrationId, reason);
}

void MigrationsPage::resume(const QString& migrationId, const QString& reason)
{
    migrationAction(Action::Resume, migrationId, reason);
}

void MigrationsPage::cancel(const QString& migrationId, const QString& reason)
{
    migrationAction(Action::Cancel, migrationId, reason);
}

void MigrationsPage::rollback(const QString& migrationId, const QString& reason)
{
    migrationAction(Action::Rollback, migrationId, reason);
}

void MigrationsPage::setThrottle(const QString& migrationId, quint64 docsPerSecond, const QString& reason)
{
    v1::AdminChange change;
    change.mutable_set_throttle()->set_migration(migrationId.toStdString());
    change.mutable_set_throttle()->set_docs_per_second(docsPerSecond);
    send(migrationId, reason, change, doneText(Action::Throttle, migrationId));
}

void MigrationsPage::setMaxConcurrent(quint32 maxConcurrent, const QString& reason)
{
    const MapPtr map = m_connection->map();
    if (!map) {
        finished({}, { false, tr("Not connected to a fleet.") });
        return;
    }
    core::MigrationSettings settings = map->settings.value;
    settings.maxConcurrent = maxConcurrent;
    v1::AdminChange change;
    change.mutable_set_settings()->set_settings_json(core::encode(settings));
    send({}, reason, change, tr("At most %1 migrations run at once now.").arg(maxConcurrent));
}

void MigrationsPage::migrationAction(Action action, const QString& migrationId, const QString& reason)
{
    v1::AdminChange change;
    v1::SteerMigration* steer = change.mutable_steer_migration();
    steer->set_migration(migrationId.toStdString());
    switch (action) {
    case Action::Pause: steer->set_action(v1::SteerMigration::PAUSE); break;
    case Action::Resume: steer->set_action(v1::SteerMigration::RESUME); break;
    case Action::Cancel: steer->set_action(v1::SteerMigration::CANCEL); break;
    case Action::Rollback:
    case Action::Throttle: steer->set_action(v1::SteerMigration::ROLLBACK); break;
    }
    send(migrationId, reason, change, doneText(action, migrationId));
}

void MigrationsPage::send(
    const QString& migrationId, const QString& reason, const v1::AdminChange& change, const QString& done)
{
    m_connection->submitChange(change, reason, this, [this, migrationId, done](ChangeResult made) {
        if (!made) {
            finished(migrationId, { false, FleetConnection::refusalText(made.error()) });
        } else if (made->has_awaiting_approval()) {
            // Not refused: recorded, and made when a second person approves it.
            const QString text = FleetConnection::awaitingApprovalText(made->awaiting_approval());
            showMessage(text, false);
            emit actionFinished(migrationId, true, text);
        } else {
            finished(migrationId, { true, done });
        }
    });
}

void MigrationsPage::finished(const QString& migrationId, const Outcome& outcome)
{
    const QString text = outcome.ok || migrationId.isEmpty() ? outcome.message
                                                             : tr("Migration %1: %2").arg(migrationId, outcome.message);
    showMessage(outcome.ok ? text : tr("Refused: %1").arg(text), !outcome.ok);
    emit actionFinished(migrationId, outcome.ok, outcome.message);
}

void MigrationsPage::confirmAndRun(Action action)
{
    const QString id = selectedMigration();
    const QString why = id.isEmpty() ? tr("Select a migration first.") : refusal(action, id);
    if (!why.isEmpty()) {
        showMessage(why, true);
        return;
    }
    const auto* record = m_model->record(id);
    const QString what = tr("%1 migration %2 of space %3 (%4 → %5)?")
                             .arg(actionVerb(action), id, qs(record->space), qs(record->source), qs(record->target));
    QString reason;
    if (!askChangeReason(this, actionVerb(action), what, &reason))
        return;
    if (action == Action::Throttle)
        setThrottle(id, static_cast<quint64>(m_throttleBox->value()), reason);
    else
        migrationAction(action, id, reason);
}

void MigrationsPage::pauseSelected()
{
    confirmAndRun(Action::Pause);
}

void MigrationsPage::resumeSelected()
{
    confirmAndRun(Action::Resume);
}

void MigrationsPage::cancelSelected()
{
    confirmAndRun(Action::Cancel);
}

void MigrationsPage::rollbackSelected()
{
    confirmAndRun(Action::Rollback);
}

void MigrationsPage::throttleSelected()
{
    confirmAndRun(Action::Throttle);
}

void MigrationsPage::changeMaxConcurrent()
{
    const auto value = static_cast<quint32>(m_concurrentBox->value());
    const QString question = value == 0 ? tr("Let the executor run any number of migrations at once?")
                                        : tr("Let the executor run at most %1 migrations at once?").arg(value);
    QString reason;
    if (askChangeReason(this, tr("Concurrent migrations"), question, &reason))
        setMaxConcurrent(value, reason);
}

void MigrationsPage::notifyFinished(
    const QString& migrationId, MigrationsModel::StateCategory state, const QString& reason)
{
    const auto* record = m_model->record(migrationId);
    const QString space = record ? qs(record->space) : QString();
    QString text;
    switch (state) {
    case MigrationsModel::StateCategory::Done:
        text = tr("Migration %1 of space %2 finished.").arg(migrationId, space);
        break;
    case MigrationsModel::StateCategory::Failed:
        text = tr("Migration %1 of space %2 failed: %3").arg(migrationId, space, reason);
        break;
    default:
        text = reason.isEmpty() ? tr("Migration %1 of space %2 was cancelled.").arg(migrationId, space)
                                : tr("Migration %1 of space %2 was cancelled: %3").arg(migrationId, space, reason);
        break;
    }
    const bool failed = state != MigrationsModel::StateCategory::Done;
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(QIcon(QStringLiteral(":/shardmap.svg")), this);
            m_tray->show();
        }
        m_tray->showMessage(
            tr("Shardmap migrations"), text, failed ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information);
    } else {
        showMessage(text, state == MigrationsModel::StateCategory::Failed);
    }
    emit migrationNotified(migrationId, text);
}

void MigrationsPage::showMessage(const QString& text, bool error)
{
    m_messageIsError = error;
    m_message->show(text, error ? InlineMessage::Kind::Warning : InlineMessage::Kind::Info);
}

QString MigrationsPage::messageText() const
{
    return m_message->text();
}

void MigrationsPage::showOperation(const QString& operationId)
{
    m_stateBox->setCurrentIndex(0);
    m_timeBox->setCurrentIndex(0);
    m_spaceEdit->clear();
    m_shardEdit->clear();
    m_operationEdit->setText(operationId);
}

} // namespace shardmap::widgets

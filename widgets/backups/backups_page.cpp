// BackupsPage's implementation: the repository line from the map's settings, the snapshot table
// read off the UI thread, and the three requests sent through the connection's change seam.
#include "widgets/backups/backups_page.h"

#include "core/admin/change_kinds.h"
#include "core/snapshot/snapshot_requests.h"
#include "widgets/backups/restore_shard_dialog.h"
#include "widgets/backups/restore_space_dialog.h"
#include "widgets/style/change_action.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/reason_dialog.h"
#include "widgets/style/record_table.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace shardmap::widgets {

namespace {

enum Column { IdColumn, StateColumn, StartedColumn, TookColumn, SizeColumn, ShardsColumn, ByColumn, ColumnCount };
enum Action { Take, Verify, Delete };

constexpr int kPollMs = 2000;

QString stateText(const core::SnapshotRecord& record)
{
    const QString state = QString::fromLatin1(core::snapshotStateName(record.state));
    if (record.state == core::SnapshotState::Running)
        return BackupsPage::tr("running (%1 of %2 shards)").arg(record.shardsDone).arg(record.shardsTotal);
    if (record.state == core::SnapshotState::Verified && record.verifiedUnixMs > 0)
        return BackupsPage::tr("verified %1").arg(formatDateTime(record.verifiedUnixMs));
    if (record.state == core::SnapshotState::Corrupt)
        return BackupsPage::tr("corrupt: %1").arg(qs(record.badFile));
    return state;
}

QString scheduleText(const core::MigrationSettings& settings)
{
    QStringList parts;
    parts << (settings.snapshotIntervalSeconds == 0
            ? BackupsPage::tr("on demand only")
            : BackupsPage::tr("every %1")
                  .arg(formatDuration(static_cast<std::int64_t>(settings.snapshotIntervalSeconds))));
    parts << (settings.snapshotKeep == 0 ? BackupsPage::tr("all kept")
                                         : BackupsPage::tr("the newest %1 kept").arg(settings.snapshotKeep));
    if (settings.snapshotMaxAgeSeconds > 0)
        parts << BackupsPage::tr("none older than %1")
                     .arg(formatDuration(static_cast<std::int64_t>(settings.snapshotMaxAgeSeconds)));
    return parts.join(QStringLiteral(", "));
}

} // namespace

BackupsPage::BackupsPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
{
    auto* layout = new QVBoxLayout(this);
    m_repository = newDetailLabel(this);
    m_table = newRecordTable(
        { tr("Snapshot"), tr("State"), tr("Started"), tr("Took"), tr("Size"), tr("Shards copied"), tr("Asked by") },
        StateColumn, this);
    m_detail = newDetailLabel(this);
    m_message = new InlineMessage(this);
    m_take = new QPushButton(tr("&Take a snapshot now…"), this);
    m_verify = new QPushButton(tr("&Verify…"), this);
    m_delete = new QPushButton(tr("&Delete…"), this);
    m_restore = new QPushButton(tr("&Restore a space…"), this);
    m_restoreShard = new QPushButton(tr("Restore a s&hard…"), this);
    for (QWidget* widget : std::initializer_list<QWidget*> { m_repository, m_table, m_detail, m_message })
        layout->addWidget(widget);
    layout->addLayout(newButtonRow({ m_take, m_verify, m_delete, m_restore, m_restoreShard }));
    m_poll = new QTimer(this);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, &BackupsPage::refresh);
    connect(m_take, &QPushButton::clicked, this, [this] { ask(Take); });
    connect(m_verify, &QPushButton::clicked, this, [this] { ask(Verify); });
    connect(m_delete, &QPushButton::clicked, this, [this] { ask(Delete); });
    connect(m_restore, &QPushButton::clicked, this, &BackupsPage::askRestore);
    connect(m_restoreShard, &QPushButton::clicked, this, &BackupsPage::askRestoreShard);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &BackupsPage::updateButtons);
    connect(m_connection, &FleetConnection::mapChanged, this, &BackupsPage::showMap);
    connect(m_connection, &FleetConnection::stateChanged, this, &BackupsPage::updateButtons);
    connect(m_connection, &FleetConnection::identityChanged, this, &BackupsPage::updateButtons);
    showMap(m_connection->map());
    refresh();
}

void BackupsPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
    m_poll->start();
}

void BackupsPage::hideEvent(QHideEvent* event)
{
    m_poll->stop();
    QWidget::hideEvent(event);
}

void BackupsPage::showMap(const MapPtr& map)
{
    const core::MigrationSettings settings = map ? map->settings.value : core::MigrationSettings {};
    m_repository->setText(settings.snapshotRepository.empty()
            ? tr("No snapshot repository is set: name one in the fleet's settings (shardmapctl migrations "
                 "settings --snapshot-repository DIR) to take snapshots.")
            : tr("Repository: %1 — %2.").arg(qs(settings.snapshotRepository), scheduleText(settings)));
    updateButtons();
}

QString BackupsPage::repositoryText() const
{
    return m_repository->text();
}

// The records, read on a pool thread; an answer to an older read is dropped.
void BackupsPage::refresh()
{
    auto store = m_connection->store();
    if (!store)
        return;
    readInBackground(
        m_connection->pool(), this, m_reads,
        [store]() -> core::Result<std::vector<core::SnapshotRecord>> {
            auto listed = core::SnapshotRequests(*store).list();
            if (!listed)
                return listed.error();
            std::vector<core::SnapshotRecord> out;
            for (auto& versioned : *listed)
                out.push_back(std::move(versioned.value));
            std::reverse(out.begin(), out.end());
            return out;
        },
        [this](const std::vector<core::SnapshotRecord>& snapshots) { showSnapshots(snapshots); },
        [this](const core::Error& error) {
            m_message->show(tr("Cannot read the snapshots: %1").arg(qs(error.describe())), InlineMessage::Kind::Error);
        });
}

void BackupsPage::showSnapshots(const std::vector<core::SnapshotRecord>& snapshots)
{
    m_snapshots = snapshots;
    const QString selected = selectedId();
    const QSignalBlocker block(m_table);
    m_table->setRowCount(static_cast<int>(snapshots.size()));
    for (int row = 0; row < static_cast<int>(snapshots.size()); ++row) {
        const core::SnapshotRecord& s = snapshots[static_cast<std::size_t>(row)];
        const bool ended = s.finishedUnixMs > 0 && s.startedUnixMs > 0;
        const QStringList cells { qs(s.id), stateText(s), s.startedUnixMs ? formatDateTime(s.startedUnixMs) : QString(),
            ended ? formatDurationMs(s.finishedUnixMs - s.startedUnixMs) : QString(), formatBytes(s.bytes),
            tr("%1 of %2").arg(s.shardsCopied).arg(s.shardsTotal), s.scheduled ? tr("schedule") : qs(s.requestedBy) };
        for (int column = 0; column < cells.size(); ++column)
            m_table->setItem(row, column, new QTableWidgetItem(cells[column]));
        if (qs(s.id) == selected)
            m_table->selectRow(row);
    }
    updateButtons();
    emit snapshotsShown();
}

QString BackupsPage::selectedId() const
{
    const auto rows = m_table->selectionModel() ? m_table->selectionModel()->selectedRows() : QModelIndexList {};
    return rows.isEmpty() || !m_table->item(rows.front().row(), IdColumn)
        ? QString()
        : m_table->item(rows.front().row(), IdColumn)->text();
}

// Take needs a repository; verify a usable snapshot; delete one that does not run and an admin.
void BackupsPage::updateButtons()
{
    const MapPtr map = m_connection->map();
    const bool repository = map && !map->settings.value.snapshotRepository.empty();
    const auto found = std::find_if(m_snapshots.begin(), m_snapshots.end(),
        [id = selectedId().toStdString()](const core::SnapshotRecord& s) { return s.id == id; });
    const bool selected = found != m_snapshots.end();
    enableChange(m_take, m_connection, repository);
    enableChange(m_verify, m_connection, selected && core::usable(found->state));
    enableChange(m_restore, m_connection, selected && core::usable(found->state));
    const bool admin = !m_connection->viaController() || m_connection->role() >= core::Role::Admin;
    enableChange(m_restoreShard, m_connection, admin && selected && core::usable(found->state));
    enableChange(m_delete, m_connection,
        admin && selected && found->state != core::SnapshotState::Running
            && found->state != core::SnapshotState::Requested);
    if (m_connection->readOnlyReason().isEmpty() && !admin) {
        m_delete->setToolTip(tr("Deleting a snapshot is an admin's change"));
        m_restoreShard->setToolTip(tr("Restoring a shard is an admin's change"));
    }
    m_detail->setText(!selected ? QString()
            : found->error.empty()
            ? tr("%1, asked by %2: %3").arg(qs(found->id), qs(found->requestedBy), qs(found->reason))
            : tr("%1: %2").arg(qs(found->id), qs(found->error)));
}

void BackupsPage::ask(int action)
{
    const QString id = selectedId();
    const QString titles[] = { tr("Take a snapshot"), tr("Verify snapshot"), tr("Delete snapshot") };
    const QString questions[] = { tr("Copy every shard and the map into the repository now?"),
        tr("Read every file of snapshot %1 back and check its hash?").arg(id),
        tr("Delete snapshot %1? Its files go, except those later snapshots reference.").arg(id) };
    QString reason;
    if (!askChangeReason(this, titles[action], questions[action], &reason))
        return;
    if (action == Take)
        takeSnapshot(reason);
    else if (action == Verify)
        verifySnapshot(id, reason);
    else
        deleteSnapshot(id, reason);
}

void BackupsPage::takeSnapshot(const QString& reason)
{
    v1::AdminChange change;
    change.mutable_change_snapshot()->set_action(v1::ChangeSnapshot::CREATE);
    send(change, reason, tr("Snapshot requested: the executor's leader takes it now."));
}

void BackupsPage::verifySnapshot(const QString& id, const QString& reason)
{
    v1::AdminChange change;
    change.mutable_change_snapshot()->set_action(v1::ChangeSnapshot::VERIFY);
    change.mutable_change_snapshot()->set_snapshot(id.toStdString());
    send(change, reason, tr("Verification of %1 requested.").arg(id));
}

void BackupsPage::deleteSnapshot(const QString& id, const QString& reason)
{
    v1::AdminChange change;
    change.mutable_change_snapshot()->set_action(v1::ChangeSnapshot::DELETE);
    change.mutable_change_snapshot()->set_snapshot(id.toStdString());
    send(change, reason, tr("Deletion of %1 requested.").arg(id));
}

void BackupsPage::askRestore()
{
    RestoreSpaceDialog dialog(m_connection, selectedId(), this);
    if (dialog.exec() == QDialog::Accepted)
        restoreSpace(dialog.request(), dialog.reason());
}

void BackupsPage::restoreSpace(const core::SpaceRestoreRequest& request, const QString& reason)
{
    send(core::restoreSpaceChange(request), reason,
        tr("Restore of %1 queued: follow it on the Migrations page.").arg(qs(request.space)));
}

void BackupsPage::askRestoreShard()
{
    RestoreShardDialog dialog(m_connection, selectedId(), this);
    if (dialog.exec() == QDialog::Accepted)
        restoreShard(dialog.request(), dialog.reason());
}

void BackupsPage::restoreShard(const core::ShardRestoreRequest& request, const QString& reason)
{
    send(core::restoreShardChange(request), reason,
        tr("Shard %1 restored on %2; writes after the snapshot are lost.").arg(qs(request.shard), qs(request.node)));
}

void BackupsPage::send(const v1::AdminChange& change, const QString& reason, const QString& done)
{
    m_connection->submitChange(change, reason, this, [this, done](ChangeResult made) {
        const auto [ok, text] = showChangeOutcome(m_message, made, done);
        emit actionFinished(ok, text);
        refresh();
    });
}

} // namespace shardmap::widgets

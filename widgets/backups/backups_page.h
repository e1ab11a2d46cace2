#pragma once

// The console's Backups page (issue 32): the snapshot repository and its schedule, the snapshots
// with their state, size and verification, and the requests an administrator makes of them (take
// one now, verify one, delete one, restore a space or a lost shard from one), each carried out by
// shardmapd (the executor's leader, or the Admin API for a shard).

#include "core/migration/restore_requests.h"
#include "core/migration/shard_restore.h"
#include "core/snapshot/snapshot_records.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QWidget>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;
class QTimer;

namespace shardmap::widgets {

class InlineMessage;

// The snapshot records (snapshots/ in the map) are read off the UI thread when the page opens,
// every two seconds while it is shown, and after each request; newest first. Every request asks
// for a reason (the audit's) and goes through the connection's one change seam
// (FleetConnection::submitChange): taking and verifying are an operator's, deleting an admin's
// (and may need a second admin by the access policy: the page then says it awaits approval). A
// read-only connection disables all three and says why.
class BackupsPage : public QWidget {
    Q_OBJECT
public:
    explicit BackupsPage(FleetConnection* connection, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QString repositoryText() const;
    QPushButton* takeButton() const { return m_take; }
    QPushButton* verifyButton() const { return m_verify; }
    QPushButton* deleteButton() const { return m_delete; }
    QPushButton* restoreButton() const { return m_restore; }
    QPushButton* restoreShardButton() const { return m_restoreShard; }
    // The selected snapshot's id (empty: none).
    QString selectedId() const;

    // Reads the records again now (the answer arrives as snapshotsShown).
    void refresh();
    // Send the request at once with the given reason (no dialog); actionFinished reports it.
    void takeSnapshot(const QString& reason);
    void verifySnapshot(const QString& id, const QString& reason);
    void deleteSnapshot(const QString& id, const QString& reason);
    // Queues the restore (the Admin API change restore-space; RestoreSpaceDialog asks for it).
    void restoreSpace(const core::SpaceRestoreRequest& request, const QString& reason);
    // Restores a lost shard (the Admin API change restore-shard; RestoreShardDialog asks for it).
    void restoreShard(const core::ShardRestoreRequest& request, const QString& reason);

signals:
    void snapshotsShown();
    void actionFinished(bool ok, const QString& text);

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void showMap(const MapPtr& map);
    void showSnapshots(const std::vector<core::SnapshotRecord>& snapshots);
    void updateButtons();
    void ask(int action);
    void askRestore();
    void askRestoreShard();
    void send(const v1::AdminChange& change, const QString& reason, const QString& done);

    FleetConnection* m_connection;
    std::vector<core::SnapshotRecord> m_snapshots;
    Generation m_reads;
    QLabel* m_repository = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_detail = nullptr;
    QPushButton* m_take = nullptr;
    QPushButton* m_verify = nullptr;
    QPushButton* m_delete = nullptr;
    QPushButton* m_restore = nullptr;
    QPushButton* m_restoreShard = nullptr;
    InlineMessage* m_message = nullptr;
    QTimer* m_poll = nullptr;
};

} // namespace shardmap::widgets

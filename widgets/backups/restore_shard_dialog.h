#pragma once

// The Backups page's "Restore a shard…" dialog (issue 32): which shard whose every copy is lost,
// onto which node, what comes back (its spaces as the snapshot held them, those that come back
// empty) and why. The list and the preview are core's (everyCopyLost, previewShardRestore), so the
// dialog and `shardmapctl restore shard` offer and refuse the same shards.

#include "core/migration/shard_restore.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace shardmap::widgets {

// The preview is read off the UI thread after each choice; Restore stays disabled until it says
// yes and a reason is typed, and on a controller connection below the admin role (placing a shard
// is an admin's change).
class RestoreShardDialog : public QDialog {
    Q_OBJECT
public:
    RestoreShardDialog(FleetConnection* connection, const QString& snapshot, QWidget* parent = nullptr);

    QComboBox* shardBox() const { return m_shard; }
    QComboBox* nodeBox() const { return m_node; }
    QLineEdit* reasonEdit() const { return m_reason; }
    QLabel* previewLabel() const { return m_preview; }
    QPushButton* restoreButton() const { return m_restore; }

    core::ShardRestoreRequest request() const;
    QString reason() const;

signals:
    void previewShown();

private:
    void readPreview();
    void updateButton();

    FleetConnection* m_connection;
    QString m_snapshot;
    Generation m_previews;
    bool m_previewOk = false;
    QComboBox* m_shard = nullptr;
    QComboBox* m_node = nullptr;
    QLineEdit* m_reason = nullptr;
    QLabel* m_preview = nullptr;
    QPushButton* m_restore = nullptr;
};

} // namespace shardmap::widgets

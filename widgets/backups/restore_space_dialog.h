#pragma once

// The Backups page's "Restore a space…" dialog (issue 32): which space of the snapshot, into which
// shard, under its own id or a new one, what that does (its documents then and now, whether they
// are replaced) and why. The preview is core's (RestoreRequests::previewSpace), so the dialog and
// `shardmapctl restore space` say and refuse the same things.

#include "core/migration/restore_requests.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;

namespace shardmap::widgets {

// The spaces come from the snapshot's manifest and the preview from the map and the live space's
// node, both read off the UI thread; the preview is read again a moment after each edit. Restore
// stays disabled until the preview says yes and a reason is typed; when the restore replaces a
// space's documents it says so, and on a controller connection below the admin role it stays
// disabled saying that replacing documents is an admin's change.
class RestoreSpaceDialog : public QDialog {
    Q_OBJECT
public:
    RestoreSpaceDialog(FleetConnection* connection, const QString& snapshot, QWidget* parent = nullptr);

    QComboBox* spaceBox() const { return m_space; }
    QComboBox* shardBox() const { return m_shard; }
    QLineEdit* newIdEdit() const { return m_newId; }
    QLineEdit* reasonEdit() const { return m_reason; }
    QLabel* previewLabel() const { return m_preview; }
    QPushButton* restoreButton() const { return m_restore; }

    core::SpaceRestoreRequest request() const;
    QString reason() const;

signals:
    // The snapshot's spaces are in the list (or why not is shown).
    void spacesShown();
    // A preview (or its refusal) is shown for the request as it is now.
    void previewShown();

private:
    void loadSpaces();
    void schedulePreview();
    void readPreview();
    void showPreview(const core::Result<core::SpaceRestorePreview>& preview);
    void updateButton();

    FleetConnection* m_connection;
    QString m_snapshot;
    Generation m_previews;
    bool m_previewOk = false;
    bool m_replaces = false;
    QComboBox* m_space = nullptr;
    QComboBox* m_shard = nullptr;
    QLineEdit* m_newId = nullptr;
    QLineEdit* m_reason = nullptr;
    QLabel* m_preview = nullptr;
    QPushButton* m_restore = nullptr;
    QTimer* m_debounce = nullptr;
};

} // namespace shardmap::widgets

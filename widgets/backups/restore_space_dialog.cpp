// RestoreSpaceDialog's implementation: the snapshot's spaces from its manifest, the map's shards,
// and core's preview of the restore, each read on the connection's pool.
#include "widgets/backups/restore_space_dialog.h"

#include "core/snapshot/snapshot_repository.h"
#include "widgets/style/conversions.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>

namespace shardmap::widgets {

namespace {

constexpr int kPreviewDelayMs = 300;

} // namespace

RestoreSpaceDialog::RestoreSpaceDialog(FleetConnection* connection, const QString& snapshot, QWidget* parent)
    : QDialog(parent)
    , m_connection(connection)
    , m_snapshot(snapshot)
{
    setWindowTitle(tr("Restore a space from %1").arg(snapshot));
    auto* form = new QFormLayout(this);
    m_space = new QComboBox(this);
    m_shard = new QComboBox(this);
    m_newId = new QLineEdit(this);
    m_newId->setPlaceholderText(tr("empty: its own id, replacing its documents"));
    m_reason = new QLineEdit(this);
    m_reason->setPlaceholderText(tr("Why (recorded in the audit log)"));
    m_preview = new QLabel(this);
    m_preview->setWordWrap(true);
    form->addRow(tr("&Space:"), m_space);
    form->addRow(tr("&Into shard:"), m_shard);
    form->addRow(tr("As &new id:"), m_newId);
    form->addRow(m_preview);
    form->addRow(tr("&Reason:"), m_reason);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_restore = buttons->addButton(tr("Res&tore"), QDialogButtonBox::AcceptRole);
    form->addRow(buttons);
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kPreviewDelayMs);
    connect(m_debounce, &QTimer::timeout, this, &RestoreSpaceDialog::readPreview);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_space, &QComboBox::currentTextChanged, this, &RestoreSpaceDialog::schedulePreview);
    connect(m_shard, &QComboBox::currentTextChanged, this, &RestoreSpaceDialog::schedulePreview);
    connect(m_newId, &QLineEdit::textChanged, this, &RestoreSpaceDialog::schedulePreview);
    connect(m_reason, &QLineEdit::textChanged, this, &RestoreSpaceDialog::updateButton);
    if (const MapPtr map = m_connection->map()) {
        for (const auto& [id, shard] : map->shards)
            m_shard->addItem(qs(id));
    }
    updateButton();
    loadSpaces();
}

core::SpaceRestoreRequest RestoreSpaceDialog::request() const
{
    return { m_snapshot.toStdString(), m_space->currentText().toStdString(), m_shard->currentText().toStdString(),
        m_newId->text().trimmed().toStdString() };
}

QString RestoreSpaceDialog::reason() const
{
    return m_reason->text().trimmed();
}

// The manifest is read where the console runs: the repository must be mounted there too.
void RestoreSpaceDialog::loadSpaces()
{
    const MapPtr map = m_connection->map();
    const std::string repository = map ? map->settings.value.snapshotRepository : std::string();
    runInBackground(
        m_connection->pool(), this,
        [repository, id = m_snapshot.toStdString()] { return core::readManifest(repository, id); },
        [this](const core::Result<core::SnapshotManifest>& manifest) {
            if (!manifest) {
                m_preview->setText(tr("Cannot read the snapshot's manifest: %1").arg(qs(manifest.error().message)));
            } else {
                for (const auto& entry : manifest->shards) {
                    for (const auto& space : entry.spaces)
                        m_space->addItem(qs(space.space));
                }
                m_space->model()->sort(0);
            }
            emit spacesShown();
            readPreview();
        });
}

void RestoreSpaceDialog::schedulePreview()
{
    m_previewOk = false;
    m_previews.invalidate();
    updateButton();
    m_debounce->start();
}

void RestoreSpaceDialog::readPreview()
{
    auto store = m_connection->store();
    if (!store || m_space->currentText().isEmpty() || m_shard->currentText().isEmpty())
        return;
    auto nodes = m_connection->requestNodes();
    const auto ticket = m_previews.next();
    runInBackground(
        m_connection->pool(), this,
        [store, nodes, request = request()] { return core::RestoreRequests(*store, *nodes).previewSpace(request); },
        [this, ticket](const core::Result<core::SpaceRestorePreview>& preview) {
            if (m_previews.isCurrent(ticket))
                showPreview(preview);
        });
}

void RestoreSpaceDialog::showPreview(const core::Result<core::SpaceRestorePreview>& preview)
{
    m_previewOk = static_cast<bool>(preview);
    m_replaces = preview && preview->replaces;
    if (!preview) {
        m_preview->setText(tr("Refused: %1").arg(qs(preview.error().message)));
    } else if (preview->replaces) {
        m_preview->setText(tr("%1 documents then, %2 now on %3: they are replaced at the cutover onto %4. Writes "
                              "since the snapshot are lost; until the cutover the space serves as it is.")
                               .arg(preview->then.liveDocs)
                               .arg(preview->now ? QString::number(preview->now->liveDocs) : tr("unknown"))
                               .arg(qs(preview->nowShard), qs(preview->intoShard)));
    } else {
        m_preview->setText(tr("%1 documents then; made as space %2 on %3, beside the live space.")
                               .arg(preview->then.liveDocs)
                               .arg(qs(preview->intoSpace), qs(preview->intoShard)));
    }
    if (preview && !preview->templateNote.empty())
        m_preview->setText(m_preview->text() + QLatin1Char(' ') + qs(preview->templateNote) + QLatin1Char('.'));
    updateButton();
    emit previewShown();
}

void RestoreSpaceDialog::updateButton()
{
    const bool admin = !m_connection->viaController() || m_connection->role() >= core::Role::Admin;
    const bool allowed = !m_replaces || admin;
    m_restore->setEnabled(m_previewOk && allowed && !reason().isEmpty());
    m_restore->setToolTip(allowed ? QString() : tr("Replacing a space's documents is an admin's change"));
}

} // namespace shardmap::widgets

// RestoreShardDialog's implementation: the map's lost shards and live nodes, and core's preview of
// the restore read on the connection's pool.
#include "widgets/backups/restore_shard_dialog.h"

#include "widgets/style/conversions.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace shardmap::widgets {

RestoreShardDialog::RestoreShardDialog(FleetConnection* connection, const QString& snapshot, QWidget* parent)
    : QDialog(parent)
    , m_connection(connection)
    , m_snapshot(snapshot)
{
    setWindowTitle(tr("Restore a shard from %1").arg(snapshot));
    auto* form = new QFormLayout(this);
    m_shard = new QComboBox(this);
    m_node = new QComboBox(this);
    m_reason = new QLineEdit(this);
    m_reason->setPlaceholderText(tr("Why (recorded in the audit log)"));
    m_preview = new QLabel(this);
    m_preview->setWordWrap(true);
    form->addRow(tr("&Shard:"), m_shard);
    form->addRow(tr("Onto &node:"), m_node);
    form->addRow(m_preview);
    form->addRow(tr("&Reason:"), m_reason);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_restore = buttons->addButton(tr("Res&tore"), QDialogButtonBox::AcceptRole);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    if (const MapPtr map = m_connection->map()) {
        for (const auto& [id, shard] : map->shards) {
            if (core::everyCopyLost(*map, shard.value))
                m_shard->addItem(qs(id));
        }
        for (const auto& [id, node] : map->nodes) {
            if (!node.value.lost && !node.value.retired)
                m_node->addItem(qs(id));
        }
    }
    if (m_shard->count() == 0)
        m_preview->setText(tr("No shard has lost every copy: a shard with a live copy is promoted, not restored, "
                              "and a single space comes back with Restore a space."));
    connect(m_shard, &QComboBox::currentTextChanged, this, &RestoreShardDialog::readPreview);
    connect(m_node, &QComboBox::currentTextChanged, this, &RestoreShardDialog::readPreview);
    connect(m_reason, &QLineEdit::textChanged, this, &RestoreShardDialog::updateButton);
    updateButton();
    readPreview();
}

core::ShardRestoreRequest RestoreShardDialog::request() const
{
    return { m_snapshot.toStdString(), m_shard->currentText().toStdString(), m_node->currentText().toStdString() };
}

QString RestoreShardDialog::reason() const
{
    return m_reason->text().trimmed();
}

void RestoreShardDialog::readPreview()
{
    m_previewOk = false;
    updateButton();
    auto store = m_connection->store();
    if (!store || m_shard->currentText().isEmpty() || m_node->currentText().isEmpty())
        return;
    const auto ticket = m_previews.next();
    runInBackground(
        m_connection->pool(), this, [store, request = request()] { return core::previewShardRestore(*store, request); },
        [this, ticket](const core::Result<core::ShardRestorePreview>& preview) {
            if (!m_previews.isCurrent(ticket))
                return;
            m_previewOk = static_cast<bool>(preview);
            m_preview->setText(preview ? qs(preview->sentence()) : tr("Refused: %1").arg(qs(preview.error().message)));
            updateButton();
            emit previewShown();
        });
}

void RestoreShardDialog::updateButton()
{
    const bool admin = !m_connection->viaController() || m_connection->role() >= core::Role::Admin;
    m_restore->setEnabled(m_previewOk && admin && !reason().isEmpty());
    m_restore->setToolTip(admin ? QString() : tr("Placing a shard is an admin's change"));
}

} // namespace shardmap::widgets

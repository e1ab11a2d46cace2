// CopiesPanel: the shown shard's (or node's) copies, their health line, and the copy changes sent
// through FleetConnection::submitChange after a reason is given.
#include "widgets/detail/copies_panel.h"

#include "core/map/copy_placement.h"
#include "widgets/detail/copies_model.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/reason_dialog.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

QString qs(const std::string& text)
{
    return QString::fromStdString(text);
}

v1::AdminChange copyChange(CopiesPanel::Action action, const std::string& shard, const CopiesPanel::Request& request)
{
    v1::AdminChange change;
    if (action == CopiesPanel::Action::SetReplicationFactor) {
        change.mutable_set_replication()->set_shard(shard);
        change.mutable_set_replication()->set_factor(request.factor);
        return change;
    }
    v1::ChangeReplica* replica = change.mutable_change_replica();
    replica->set_shard(shard);
    replica->set_node(request.node.toStdString());
    replica->set_action(action == CopiesPanel::Action::AddReplica ? v1::ChangeReplica::ADD
            : action == CopiesPanel::Action::RemoveReplica        ? v1::ChangeReplica::REMOVE
                                                                  : v1::ChangeReplica::PROMOTE);
    return change;
}

} // namespace

CopiesPanel::CopiesPanel(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
{
    m_summary = new InlineMessage(this);
    m_message = new InlineMessage(this);
    m_model = new CopiesModel(this);
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);

    auto* bar = new QHBoxLayout;
    const std::pair<Action, QString> actions[]
        = { { Action::AddReplica, tr("Add replica…") }, { Action::RemoveReplica, tr("Remove replica…") },
              { Action::Promote, tr("Promote…") }, { Action::SetReplicationFactor, tr("Replication factor…") } };
    for (const auto& [action, text] : actions) {
        auto* button = new QPushButton(text, this);
        connect(button, &QPushButton::clicked, this, [this, action = action] { run(action); });
        bar->addWidget(button);
        m_buttons.push_back(button);
    }
    bar->addStretch(1);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { updateButtons(); });
    connect(connection, &FleetConnection::identityChanged, this, [this] { updateButtons(); });
    connect(connection, &FleetConnection::stateChanged, this, [this] { updateButtons(); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addLayout(bar);
    layout->addWidget(m_message);
    layout->addWidget(m_view, 1);
    clear();
}

QPushButton* CopiesPanel::button(Action action) const
{
    return m_buttons.at(static_cast<std::size_t>(action));
}

void CopiesPanel::showShard(const MapPtr& map, const QString& shardId)
{
    m_map = map;
    m_shard = shardId;
    m_node.clear();
    const core::ShardRecord* shard = map ? map->shard(shardId.toStdString()) : nullptr;
    m_model->setRows(shard ? core::copyRowsOf(*shard) : std::vector<core::CopyRow> {}, map.get());
    m_view->setColumnHidden(CopiesModel::ShardColumn, true);
    m_view->setColumnHidden(CopiesModel::NodeColumn, false);
    updateSummary();
    updateButtons();
}

void CopiesPanel::showNode(const MapPtr& map, const QString& nodeId)
{
    m_map = map;
    m_shard.clear();
    m_node = nodeId;
    m_model->setRows(map ? core::copyRowsOn(*map, nodeId.toStdString()) : std::vector<core::CopyRow> {}, map.get());
    m_view->setColumnHidden(CopiesModel::ShardColumn, false);
    m_view->setColumnHidden(CopiesModel::NodeColumn, true);
    updateSummary();
    updateButtons();
}

void CopiesPanel::clear()
{
    m_shard.clear();
    m_node.clear();
    m_model->setRows({}, nullptr);
    updateSummary();
    updateButtons();
}

void CopiesPanel::updateSummary()
{
    const core::ShardRecord* shard = m_map && !m_shard.isEmpty() ? m_map->shard(m_shard.toStdString()) : nullptr;
    if (!shard) {
        const int held = m_model->rowCount();
        m_summary->show(m_node.isEmpty() ? QString() : tr("Node %1 holds %n copy(s).", nullptr, held).arg(m_node),
            InlineMessage::Kind::Info);
        return;
    }
    const core::ShardCopiesHealth health = core::evaluateCopies(*m_map, *shard);
    const auto kind = health.health == core::CopyHealth::Green ? InlineMessage::Kind::Success
        : health.health == core::CopyHealth::Yellow            ? InlineMessage::Kind::Warning
                                                               : InlineMessage::Kind::Error;
    m_summary->show(tr("Shard %1: %2").arg(m_shard, qs(core::describeCopies(health))), kind);
}

QString CopiesPanel::selectedReplica() const
{
    const auto rows = m_view->selectionModel()->selectedRows();
    const core::CopyRow* row = rows.isEmpty() ? nullptr : m_model->row(rows.first().row());
    return row && !row->primary ? qs(row->node) : QString();
}

QStringList CopiesPanel::placeableNodes() const
{
    QStringList nodes;
    const core::ShardRecord* shard = m_map && !m_shard.isEmpty() ? m_map->shard(m_shard.toStdString()) : nullptr;
    if (!shard)
        return nodes;
    for (const auto& [id, node] : m_map->nodes) {
        if (core::checkCopyPlacement(*m_map, *shard, id))
            nodes.append(qs(id));
    }
    return nodes;
}

QString CopiesPanel::refusal(Action action) const
{
    if (m_connection->readOnly())
        return m_connection->readOnlyReason();
    if (m_shard.isEmpty())
        return tr("Choose a shard to change its copies.");
    if (action == Action::AddReplica && placeableNodes().isEmpty())
        return tr("No node may hold another copy of shard %1 (each node holds one already, or is lost, retired or "
                  "in the zone of a copy).")
            .arg(m_shard);
    if (action != Action::RemoveReplica && action != Action::Promote)
        return {};
    const QString node = selectedReplica();
    if (node.isEmpty())
        return tr("Select a replica of shard %1 first.").arg(m_shard);
    const core::ShardRecord* shard = m_map->shard(m_shard.toStdString());
    const core::ShardCopy* copy = shard ? shard->replicaOn(node.toStdString()) : nullptr;
    if (action == Action::Promote && (!copy || copy->state != core::CopyState::InSync))
        return tr("Only an in-sync replica can become the primary: the copy on %1 is %2.")
            .arg(node, copy ? CopiesModel::stateText(copy->state) : tr("gone"));
    return {};
}

void CopiesPanel::updateButtons()
{
    for (Action action : { Action::AddReplica, Action::RemoveReplica, Action::Promote, Action::SetReplicationFactor }) {
        const QString why = refusal(action);
        button(action)->setEnabled(why.isEmpty());
        button(action)->setToolTip(why);
    }
}

void CopiesPanel::run(Action action)
{
    if (const QString why = refusal(action); !why.isEmpty()) {
        finish(false, why);
        return;
    }
    Request request;
    if (action == Action::RemoveReplica || action == Action::Promote)
        request.node = selectedReplica();
    if (action == Action::SetReplicationFactor) {
        const core::ShardRecord* shard = m_map->shard(m_shard.toStdString());
        request.factor = shard ? shard->replicationFactor : 0;
    }
    const bool asked = m_asker ? m_asker(action, request) : askInteractively(action, request);
    if (asked)
        requestChange(action, request);
}

bool CopiesPanel::askInteractively(Action action, Request& request)
{
    bool ok = true;
    QString question;
    switch (action) {
    case Action::AddReplica:
        request.node = QInputDialog::getItem(this, tr("Add replica"),
            tr("Node for a new copy of shard %1:").arg(m_shard), placeableNodes(), 0, false, &ok);
        question = tr("Add a replica of shard %1 on node %2? It catches up from the primary, then serves.")
                       .arg(m_shard, request.node);
        break;
    case Action::RemoveReplica:
        question = tr("Remove shard %1's replica on node %2? Its documents on that node are dropped.")
                       .arg(m_shard, request.node);
        break;
    case Action::Promote:
        question = tr("Make node %2's copy the primary of shard %1? Every space's epoch moves on and the old "
                      "primary is fenced; it catches up as a replica.")
                       .arg(m_shard, request.node);
        break;
    case Action::SetReplicationFactor:
        request.factor = static_cast<quint32>(QInputDialog::getInt(this, tr("Replication factor"),
            tr("Copies shard %1 wants, the primary included (0: the fleet's):").arg(m_shard),
            static_cast<int>(request.factor), 0, 16, 1, &ok));
        question = tr("Shard %1 wants %2 copies from now on?").arg(m_shard).arg(request.factor);
        break;
    }
    return ok && askChangeReason(this, button(action)->text().remove(QChar(0x2026)), question, &request.reason);
}

void CopiesPanel::requestChange(Action action, const Request& request)
{
    const v1::AdminChange change = copyChange(action, m_shard.toStdString(), request);
    const QString shard = m_shard;
    QString done;
    switch (action) {
    case Action::AddReplica:
        done = tr("Replica of shard %1 on node %2 added: it catches up.").arg(shard, request.node);
        break;
    case Action::RemoveReplica: done = tr("Replica of shard %1 on node %2 removed.").arg(shard, request.node); break;
    case Action::Promote: done = tr("Node %2 holds shard %1's primary now.").arg(shard, request.node); break;
    case Action::SetReplicationFactor: done = tr("Shard %1 wants %2 copies now.").arg(shard).arg(request.factor); break;
    }
    m_connection->submitChange(change, request.reason, this, [this, done](ChangeResult made) {
        if (!made)
            finish(false, FleetConnection::refusalText(made.error()));
        else if (made->has_awaiting_approval())
            finish(true, FleetConnection::awaitingApprovalText(made->awaiting_approval()));
        else
            finish(true, done);
    });
}

void CopiesPanel::finish(bool ok, const QString& text)
{
    m_message->show(
        ok ? text : tr("Refused: %1").arg(text), ok ? InlineMessage::Kind::Success : InlineMessage::Kind::Error);
    emit changeFinished(ok, text);
}

} // namespace shardmap::widgets

// PlanMovesModel's implementation: a plan's moves as cells, their reasons in words.
#include "widgets/wizards/plan_moves_model.h"

#include "widgets/style/format.h"
#include "widgets/style/plan_note_text.h"

#include <QLocale>

namespace shardmap::widgets {

void PlanMovesModel::setMoves(std::vector<core::PlannedMove> moves, std::map<std::string, core::PlanNote> notes,
    std::map<std::string, std::vector<std::string>> nodesByShard)
{
    beginResetModel();
    m_moves = std::move(moves);
    m_notes = std::move(notes);
    m_nodesByShard = std::move(nodesByShard);
    endResetModel();
}

QString PlanMovesModel::nodesText(const std::string& shard) const
{
    const auto found = m_nodesByShard.find(shard);
    if (found == m_nodesByShard.end())
        return {};
    QStringList nodes;
    for (const std::string& node : found->second)
        nodes << QString::fromStdString(node);
    return nodes.join(QStringLiteral(" + "));
}

QString PlanMovesModel::reasonText(const core::PlannedMove& move) const
{
    const auto note = m_notes.find(move.space);
    return note != m_notes.end() ? planNoteText(note->second) : QString::fromStdString(move.reason);
}

int PlanMovesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_moves.size());
}

int PlanMovesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlanMovesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::PlannedMove& move = m_moves[static_cast<std::size_t>(index.row())];
    const auto text = [](const std::string& value) { return QString::fromStdString(value); };
    if (role == ValueRole) {
        switch (index.column()) {
        case DocsColumn: return QVariant::fromValue<qulonglong>(move.docs);
        case BytesColumn: return QVariant::fromValue<qulonglong>(move.bytes);
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole && (index.column() == DocsColumn || index.column() == BytesColumn))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    const QLocale locale;
    switch (index.column()) {
    case SpaceColumn: return text(move.space);
    case FromColumn: return text(move.from);
    case ToColumn: return text(move.to);
    case NodesColumn: return nodesText(move.to);
    case DocsColumn: return locale.toString(qulonglong(move.docs));
    case BytesColumn: return formatBytes(move.bytes);
    case ReasonColumn: return reasonText(move);
    default: return {};
    }
}

QVariant PlanMovesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SpaceColumn: return tr("Space");
    case FromColumn: return tr("From");
    case ToColumn: return tr("To");
    case NodesColumn: return tr("On nodes");
    case DocsColumn: return tr("Docs");
    case BytesColumn: return tr("Bytes");
    case ReasonColumn: return tr("Reason");
    default: return {};
    }
}

} // namespace shardmap::widgets

#pragma once

// A plan's moves as a table model, for the wizard's preview.

#include "core/plan/move_rules.h"
#include "core/plan/plan_note.h"

#include <QAbstractTableModel>
#include <map>
#include <string>
#include <vector>

namespace shardmap::widgets {

// The moves of a plan as a table: space, from, to, the nodes the space lands on (the target's
// primary and its replicas, issue 30), docs, bytes, reason. A new plan replaces
// the rows (a plan is a new answer, not an update of the old one).
class PlanMovesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SpaceColumn, FromColumn, ToColumn, NodesColumn, DocsColumn, BytesColumn, ReasonColumn, ColumnCount };
    // Raw numbers for sorting and tests (docs, bytes); DisplayRole is formatted.
    static constexpr int ValueRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    // notes: why each space moves, as the planner said it (PlanResult::moveNotes), shown in the
    // console's language; a move without one shows its recorded reason.
    // nodesByShard: the nodes holding a copy of each target shard, its primary's first (a target
    // missing from it shows no nodes).
    void setMoves(std::vector<core::PlannedMove> moves, std::map<std::string, core::PlanNote> notes = {},
        std::map<std::string, std::vector<std::string>> nodesByShard = {});
    const std::vector<core::PlannedMove>& moves() const { return m_moves; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString reasonText(const core::PlannedMove& move) const;
    QString nodesText(const std::string& shard) const;

    std::vector<core::PlannedMove> m_moves;
    std::map<std::string, core::PlanNote> m_notes;
    std::map<std::string, std::vector<std::string>> m_nodesByShard;
};

} // namespace shardmap::widgets

#pragma once

// The what-if simulation's results as a table: one row per placement strategy.

#include "core/plan/simulator.h"

#include <QAbstractTableModel>

namespace shardmap::widgets {

// The what-if simulator's strategies side by side, one row each: how even the shards are, the
// hottest shard, and the data that moves when shards are added or removed. A new simulation
// replaces the rows.
class SimulationModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        StrategyColumn,
        MaxOverMeanColumn,
        SpreadColumn,
        HottestColumn,
        MovedOnAddColumn,
        MovedOnRemoveColumn,
        FromCurrentColumn,
        ColumnCount
    };
    // The raw number behind a figure column (ratios, bytes); DisplayRole is formatted.
    static constexpr int ValueRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    void setResult(core::SimulationResult result);
    const core::SimulationResult& result() const { return m_result; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant value(const core::StrategyOutcome& outcome, int column) const;
    QString text(const core::StrategyOutcome& outcome, int column) const;

    core::SimulationResult m_result;
};

} // namespace shardmap::widgets

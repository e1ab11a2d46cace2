// SimulationModel's implementation: each strategy's figures as cells, their moved data in words.
#include "widgets/whatif/simulation_model.h"

#include "widgets/style/format.h"

#include <QLocale>

namespace shardmap::widgets {

namespace {

QString movedText(const core::DataMoved& moved)
{
    if (!moved.known)
        return SimulationModel::tr("n/a");
    const QLocale locale;
    return SimulationModel::tr("%1 (%2 %)")
        .arg(formatBytes(moved.bytes))
        .arg(locale.toString(moved.shareOfBytes * 100, 'f', 1));
}

} // namespace

void SimulationModel::setResult(core::SimulationResult result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

int SimulationModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_result.strategies.size());
}

int SimulationModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SimulationModel::value(const core::StrategyOutcome& outcome, int column) const
{
    switch (column) {
    case MaxOverMeanColumn: return outcome.bytes.maxOverMean;
    case SpreadColumn: return outcome.bytes.stddevOverMean;
    case HottestColumn: return outcome.queries.maxOverMean;
    case MovedOnAddColumn: return outcome.onAdd.bytes;
    case MovedOnRemoveColumn: return outcome.onRemove.bytes;
    case FromCurrentColumn: return outcome.fromCurrent.bytes;
    default: return QString::fromStdString(outcome.name);
    }
}

QString SimulationModel::text(const core::StrategyOutcome& outcome, int column) const
{
    const QLocale locale;
    switch (column) {
    case StrategyColumn: return QString::fromStdString(outcome.name);
    case MaxOverMeanColumn: return locale.toString(outcome.bytes.maxOverMean, 'f', 2);
    case SpreadColumn: return locale.toString(outcome.bytes.stddevOverMean, 'f', 3);
    case HottestColumn:
        return outcome.hottestShard.empty() ? QStringLiteral("-")
                                            : tr("%1× (%2)")
                                                  .arg(locale.toString(outcome.queries.maxOverMean, 'f', 2),
                                                      QString::fromStdString(outcome.hottestShard));
    case MovedOnAddColumn: return movedText(outcome.onAdd);
    case MovedOnRemoveColumn: return movedText(outcome.onRemove);
    case FromCurrentColumn: return movedText(outcome.fromCurrent);
    default: return {};
    }
}

QVariant SimulationModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::StrategyOutcome& outcome = m_result.strategies[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return text(outcome, index.column());
    case ValueRole: return value(outcome, index.column());
    case Qt::ToolTipRole: return QString::fromUtf8(core::simulatedStrategyExplanation(outcome.strategy));
    case Qt::TextAlignmentRole:
        return index.column() == StrategyColumn ? QVariant() : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

QVariant SimulationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const int added = static_cast<int>(m_result.addedShards.size());
    const int removed = static_cast<int>(m_result.removedShards.size());
    switch (section) {
    case StrategyColumn: return tr("Strategy");
    case MaxOverMeanColumn: return tr("Max/mean bytes");
    case SpreadColumn: return tr("Stddev/mean");
    case HottestColumn: return tr("Hottest shard (queries/s × mean)");
    case MovedOnAddColumn: return tr("Moved adding %n shard(s)", nullptr, added);
    case MovedOnRemoveColumn: return tr("Moved removing %n shard(s)", nullptr, removed);
    case FromCurrentColumn: return tr("Moved from today's map");
    default: return {};
    }
}

} // namespace shardmap::widgets

#pragma once

// The fleet page's filter and sort over FleetModel (text, "only problems", natural id order).

#include <QCollator>
#include <QSortFilterProxyModel>

namespace shardmap::widgets {

// Filters and sorts FleetModel. A row passes when the filter text occurs in its node's id or
// address or its shard's id (so a node's name keeps all its shards), and, with "only problems",
// when its health is amber or red. Filtering is recursive: a shard that passes shows its node.
// Sorting uses FleetModel::SortRole (numbers as numbers, ids in natural order: node-2 < node-10).
class FleetFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit FleetFilterProxy(QObject* parent = nullptr);

    void setFilterText(const QString& text);
    QString filterText() const { return m_text; }
    void setOnlyProblems(bool onlyProblems);
    bool onlyProblems() const { return m_onlyProblems; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    bool textMatches(const QModelIndex& index) const;

    QString m_text;
    bool m_onlyProblems = false;
    QCollator m_collator;
};

} // namespace shardmap::widgets

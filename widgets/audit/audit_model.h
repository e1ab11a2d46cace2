#pragma once

// The audit log as a table model: the shard map's revisions, newest first, loaded a page at a time.

#include "core/store/metadata_store.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <deque>
#include <vector>

namespace shardmap::widgets {

// The map's revisions (audit records), newest first. Loaded in pages: newer records are
// inserted at the top as the map changes, older ones appended at the bottom on request; the
// model never resets except by clear() (another store).
class AuditModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RevisionColumn, TimeColumn, ActorColumn, ActionColumn, ReasonColumn, ChangesColumn, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        // Raw values for sorting (revision, ms since the epoch, text, number of changed keys).
        SortRole = Qt::UserRole,
        // The revision (qulonglong), in every column.
        RevisionRole,
    };
    Q_ENUM(Role)

    struct Entry {
        quint64 revision = 0;
        qint64 unixMs = 0;
        QString actor;
        QString action;
        QString reason;
        // The keys the commit changed ("spaces/acme", "migrations/m-...").
        QStringList keys;
    };

    explicit AuditModel(QObject* parent = nullptr);

    static Entry fromRecord(const core::AuditRecord& record);
    // Records oldest first (as MetadataStore::history returns them). addNewer keeps those newer
    // than the newest row, addOlder those older than the oldest one.
    void addNewer(const std::vector<Entry>& entries);
    void addOlder(const std::vector<Entry>& entries);
    void clear();

    // 0 while empty.
    quint64 newestRevision() const;
    quint64 oldestRevision() const;
    int rowOf(quint64 revision) const;
    const Entry* entry(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant displayValue(const Entry& entry, int column) const;
    QVariant sortValue(const Entry& entry, int column) const;

    std::deque<Entry> m_rows;
};

} // namespace shardmap::widgets

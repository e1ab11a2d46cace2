#pragma once

// The audit page: every revision of the shard map, and what changed between two of them.

#include "core/map/shard_map.h"
#include "widgets/audit/audit_model.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
QT_END_NAMESPACE

namespace shardmap::widgets {

class InlineMessage;

class AuditModel;

// Every revision of the shard map with its time, actor, action and reason, newest first: the
// newest pageSize() records first, older ones on "Load older" or when scrolled to the bottom, and
// new ones as the map changes. Selecting two revisions shows what changed between them (spaces
// moved, shards and nodes changed), computed by core::diffRevisions on the connection's pool.
class AuditPage : public QWidget {
    Q_OBJECT
public:
    explicit AuditPage(FleetConnection* connection, QWidget* parent = nullptr);
    ~AuditPage() override;

    AuditModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }

    // Records per load (default 500).
    void setPageSize(int records);
    int pageSize() const { return m_pageSize; }
    bool canLoadOlder() const;
    bool isLoading() const { return m_newerRunning || m_olderRunning; }
    // The inline error line (empty: hidden), and the text of the last diff shown.
    QString errorText() const;
    QString diffText() const;
    // A diff for people: one line per moved space, shard and node change.
    static QString describeDiff(const core::MapDiff& diff);
    // One space's move (created, removed, moved, a new epoch) in words.
    static QString spaceMoveText(const core::SpaceMove& move);

public slots:
    void loadOlder();
    // The diff between the map as of revisions a and b (any order).
    void showDiff(quint64 a, quint64 b);

signals:
    // New records arrived (newer: at the top, otherwise at the bottom).
    void historyLoaded(int records, bool newer);
    void diffReady(quint64 from, quint64 to, const QString& text);
    void diffFailed(quint64 from, quint64 to, const QString& error);

private:
    // Rows made on the pool: a bulk commit can carry thousands of keys (a map's seeding, 5,000
    // spaces a commit), and reading and converting them took the UI thread 100 ms and more.
    using Records = core::Result<std::vector<AuditModel::Entry>>;

    void buildUi();
    void mapArrived(const MapPtr& map);
    void loadNewer();
    void newerArrived(std::uint64_t ticket, const Records& records);
    void olderArrived(std::uint64_t ticket, const Records& records);
    void selectionChanged();
    void setError(const QString& text);
    void updateLoadButton();

    FleetConnection* m_connection;
    AuditModel* m_model = nullptr;
    QTableView* m_view = nullptr;
    InlineMessage* m_error = nullptr;
    QPushButton* m_loadOlderButton = nullptr;
    QLabel* m_diffLabel = nullptr;
    QPlainTextEdit* m_diffView = nullptr;
    int m_pageSize = 500;
    std::uint64_t m_mapRevision = 0;
    bool m_newerRunning = false;
    bool m_newerPending = false;
    bool m_olderRunning = false;
    bool m_noOlder = false;
    // Loads answer for one store; a new store makes older answers stale.
    Generation m_loads;
    Generation m_diffs;
};

} // namespace shardmap::widgets

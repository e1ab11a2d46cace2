#pragma once

// The copies part of the detail page (issue 30): a shard's health from its copies in one coloured
// line ("1 of 2 copies in sync (yellow)"), its copies with state, catch-up progress and why, or the
// copies a node holds; and the changes an administrator makes to a shard's copies (add a replica,
// remove one, promote an in-sync one, the replication factor), each confirmed with a reason and
// sent through the connection's one change seam, so the server's role checks and approval policy
// apply as for every other change.

#include "widgets/session/fleet_connection.h"

#include <QString>
#include <QWidget>
#include <functional>

QT_BEGIN_NAMESPACE
class QPushButton;
class QTableView;
QT_END_NAMESPACE

namespace shardmap::widgets {

class CopiesModel;
class InlineMessage;

class CopiesPanel : public QWidget {
    Q_OBJECT
public:
    enum class Action { AddReplica, RemoveReplica, Promote, SetReplicationFactor };
    Q_ENUM(Action)

    // Asks what an action needs: the node (add: one the placement rule allows; remove/promote: the
    // selected replica's), the factor, and the reason. Tests replace it; false cancels.
    struct Request {
        QString node;
        quint32 factor = 0;
        QString reason;
    };
    using Asker = std::function<bool(Action action, Request& request)>;

    explicit CopiesPanel(FleetConnection* connection, QWidget* parent = nullptr);

    void showShard(const MapPtr& map, const QString& shardId);
    void showNode(const MapPtr& map, const QString& nodeId);
    void clear();

    // Sends the change as asked (no question); the outcome shows in message() and changeFinished.
    void requestChange(Action action, const Request& request);
    // Asks (asker or dialogs), then requestChange. Remove and promote act on the selected replica.
    void run(Action action);
    void setAsker(Asker asker) { m_asker = std::move(asker); }

    // The nodes the placement rule allows a new copy of the shown shard on.
    QStringList placeableNodes() const;
    // Why an action cannot run now (nothing shown, read-only, no replica selected, ...); empty if it can.
    QString refusal(Action action) const;

    CopiesModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    InlineMessage* summary() const { return m_summary; }
    InlineMessage* message() const { return m_message; }
    QPushButton* button(Action action) const;

signals:
    void changeFinished(bool ok, const QString& message);

private:
    bool askInteractively(Action action, Request& request);
    QString selectedReplica() const;
    void updateSummary();
    void updateButtons();
    void finish(bool ok, const QString& text);

    FleetConnection* m_connection;
    MapPtr m_map;
    QString m_shard;
    QString m_node;
    CopiesModel* m_model = nullptr;
    QTableView* m_view = nullptr;
    InlineMessage* m_summary = nullptr;
    InlineMessage* m_message = nullptr;
    std::vector<QPushButton*> m_buttons;
    Asker m_asker;
};

} // namespace shardmap::widgets

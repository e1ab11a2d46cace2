#pragma once

// The approvals page: changes awaiting a second person, approved or refused here with a reason.

#include "core/util/result.h"
#include "shardmap/v1/admin.pb.h"
#include "widgets/bridge/background.h"

#include <QTimer>
#include <QWidget>
#include <memory>
#include <vector>

class QPushButton;
class QTreeWidget;

namespace shardmap::core {
class AdminClient;
}

namespace shardmap::widgets {

class FleetConnection;
class InlineMessage;

// Changes awaiting a second person's approval, as shardmapd keeps them (ListApprovals, read on
// the connection's pool every few seconds and on every map change), and the decided ones of the
// last days. Operators and admins approve or refuse (with a reason) what someone else asked
// for; a viewer and the requester see why they cannot. Only a controller connection has them.
class ApprovalsPage : public QWidget {
    Q_OBJECT
public:
    explicit ApprovalsPage(FleetConnection* connection, QWidget* parent = nullptr);

    QTreeWidget* list() const { return m_list; }
    QPushButton* approveButton() const { return m_approve; }
    QPushButton* refuseButton() const { return m_refuse; }
    InlineMessage* message() const { return m_message; }
    int pendingCount() const { return m_pending; }
    const std::vector<v1::ApprovalInfo>& approvals() const { return m_approvals; }
    // Why the approval cannot be decided by this console; empty when it can.
    QString decisionRefusal(const QString& approvalId) const;
    void selectApproval(const QString& approvalId);

public slots:
    void refresh();
    // Decide without asking (tests, and the buttons after asking for the reason).
    void approve(const QString& approvalId, const QString& reason);
    void refuse(const QString& approvalId, const QString& reason);

signals:
    void pendingCountChanged(int pending);
    // A list arrived (after refresh()) or a decision came back.
    void refreshed();
    void decided(const QString& approvalId, bool ok, const QString& message);

private:
    void listArrived(std::uint64_t ticket, core::Result<std::vector<v1::ApprovalInfo>> approvals);
    void showApprovals();
    void updateActions();
    QString selectedId() const;
    const v1::ApprovalInfo* find(const QString& approvalId) const;
    void askAndDecide(bool approving);
    // A decision in flight: the buttons wait; null when the connection has no Admin API client.
    std::shared_ptr<core::AdminClient> startDecision();
    void finishDecision(const QString& approvalId, bool done, const QString& text);

    FleetConnection* m_connection = nullptr;
    QTreeWidget* m_list = nullptr;
    QPushButton* m_approve = nullptr;
    QPushButton* m_refuse = nullptr;
    QPushButton* m_refreshButton = nullptr;
    InlineMessage* m_message = nullptr;
    QTimer m_timer;
    Generation m_generation;
    bool m_refreshing = false;
    bool m_deciding = false;
    std::vector<v1::ApprovalInfo> m_approvals;
    QString m_wantedSelection;
    int m_pending = 0;
};

} // namespace shardmap::widgets

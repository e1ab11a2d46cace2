#pragma once

// The console's Balancer page (issue 33): the balancer's mode and its state in one sentence ("idle:
// within limits", "waiting for the window at Mon 01:00 UTC", "held: node n4 did not answer"), the
// window and the budget the window has spent and has left, its policy, the approval it waits for,
// and its last decisions with their reasons; a decision that queued an operation opens it on the
// Migrations page. "Change policy…" sets the policy through the connection's change seam (an
// admin's change: set-balancer-policy).

#include "core/balancer/balancer_status.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QWidget>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;
class QTimer;

namespace shardmap::widgets {

class InlineMessage;

// The status and the newest kDecisions decisions are read off the UI thread (core's
// readBalancerStatus, the one reading `shardmapctl balancer status` makes) when the page is made
// and every kPollMs after, shown or not, so that the overview's tile stays current (statusShown).
class BalancerPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kPollMs = 3000;
    static constexpr std::size_t kDecisions = 50;

    explicit BalancerPage(FleetConnection* connection, QWidget* parent = nullptr);

    QString stateText() const;
    QString windowText() const;
    QString budgetText() const;
    QTableWidget* decisions() const { return m_decisions; }
    QPushButton* policyButton() const { return m_policy; }

    // Reads the records again now (the answer arrives as statusShown).
    void refresh();
    // Sends the policy at once with the given reason (no dialog); actionFinished reports it.
    void setPolicy(const core::BalancerPolicy& policy, const QString& reason);

signals:
    // mode ("off", "dry-run", "on"), the state's sentence, and whether it is held by a guard.
    void statusShown(const QString& mode, const QString& sentence, bool held);
    void operationRequested(const QString& operationId);
    void actionFinished(bool ok, const QString& text);

private:
    struct Read {
        core::BalancerStatus status;
        std::vector<core::BalancerDecision> decisions;
    };
    void show(const Read& read);
    void showDecisions(const std::vector<core::BalancerDecision>& decisions);
    void updateButtons();
    void askPolicy();

    FleetConnection* m_connection;
    Generation m_reads;
    std::optional<core::BalancerStatus> m_status;
    std::vector<core::BalancerDecision> m_shown;
    QLabel* m_state = nullptr;
    QLabel* m_window = nullptr;
    QLabel* m_budget = nullptr;
    QLabel* m_policyText = nullptr;
    QTableWidget* m_decisions = nullptr;
    QPushButton* m_policy = nullptr;
    InlineMessage* m_message = nullptr;
    QTimer* m_poll = nullptr;
};

} // namespace shardmap::widgets

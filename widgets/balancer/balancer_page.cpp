// BalancerPage's implementation: the status and decisions read on the pool, the labels and the
// table, and the policy sent through the connection's change seam.
#include "widgets/balancer/balancer_page.h"

#include "core/admin/change_kinds.h"
#include "core/util/clock.h"
#include "widgets/balancer/balancer_policy_dialog.h"
#include "widgets/style/change_action.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/record_table.h"

#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

// The decisions table's reason column, the one that stretches.
constexpr int kBalancerReasonColumn = 3;

QString balancerSpentOf(std::uint64_t spent, std::uint64_t budget, bool bytes)
{
    const auto text = [bytes](std::uint64_t value) { return bytes ? formatBytes(value) : formatCount(value); };
    return budget == 0 ? BalancerPage::tr("%1 (no limit)").arg(text(spent))
                       : BalancerPage::tr("%1 of %2").arg(text(spent), text(budget));
}

} // namespace

BalancerPage::BalancerPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
{
    auto* layout = new QVBoxLayout(this);
    m_state = newDetailLabel(this);
    m_state->setObjectName(QStringLiteral("balancerState"));
    m_window = newDetailLabel(this);
    m_budget = newDetailLabel(this);
    m_policyText = newDetailLabel(this);
    m_decisions = newRecordTable({ tr("When"), tr("Outcome"), tr("Action"), tr("Reason"), tr("Operation or approval") },
        kBalancerReasonColumn, this);
    m_message = new InlineMessage(this);
    m_policy = new QPushButton(tr("&Change policy…"), this);
    for (QWidget* widget :
        std::initializer_list<QWidget*> { m_state, m_window, m_budget, m_policyText, m_decisions, m_message })
        layout->addWidget(widget);
    layout->addLayout(newButtonRow({ m_policy }));
    m_poll = new QTimer(this);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, &BalancerPage::refresh);
    connect(m_policy, &QPushButton::clicked, this, &BalancerPage::askPolicy);
    connect(m_decisions, &QTableWidget::cellActivated, this, [this](int row, int) {
        if (row >= 0 && static_cast<std::size_t>(row) < m_shown.size()
            && !m_shown[static_cast<std::size_t>(row)].operationId.empty())
            emit operationRequested(qs(m_shown[static_cast<std::size_t>(row)].operationId));
    });
    connect(m_connection, &FleetConnection::stateChanged, this, &BalancerPage::updateButtons);
    connect(m_connection, &FleetConnection::identityChanged, this, &BalancerPage::updateButtons);
    m_poll->start();
    refresh();
    updateButtons();
}

QString BalancerPage::stateText() const
{
    return m_state->text();
}

QString BalancerPage::windowText() const
{
    return m_window->text();
}

QString BalancerPage::budgetText() const
{
    return m_budget->text();
}

// The status and the newest decisions, read on a pool thread; an answer to an older read is dropped.
void BalancerPage::refresh()
{
    auto store = m_connection->store();
    if (!store)
        return;
    readInBackground(
        m_connection->pool(), this, m_reads,
        [store]() -> core::Result<Read> {
            auto status = core::readBalancerStatus(*store, core::nowUnixMs());
            if (!status)
                return status.error();
            auto decisions = core::readBalancerDecisions(*store);
            if (!decisions)
                return decisions.error();
            Read read { std::move(*status), {} };
            for (auto it = decisions->rbegin(); it != decisions->rend() && read.decisions.size() < kDecisions; ++it)
                read.decisions.push_back(std::move(it->value));
            return read;
        },
        [this](const Read& read) { show(read); },
        [this](const core::Error& error) {
            m_message->show(
                tr("Cannot read the balancer's records: %1").arg(qs(error.describe())), InlineMessage::Kind::Error);
        });
}

void BalancerPage::show(const Read& read)
{
    const core::BalancerStatus& status = read.status;
    m_status = status;
    const QString mode = QLatin1String(core::balancerModeName(status.policy.mode));
    m_state->setText(tr("Balancer %1: %2").arg(mode, qs(status.sentence)));
    m_window->setText(!status.policy.window ? tr("Window: any time.")
            : status.insideWindow           ? tr("Window: open now.")
                                            : tr("Window: opens %1.").arg(qs(status.nextWindow)));
    const core::BalancerSpent& spent = status.state.spent;
    const core::BalancerBudget& budget = status.policy.budget;
    m_budget->setText(
        tr("Spent in this window: %1 moves, %2.")
            .arg(balancerSpentOf(spent.moves, budget.moves, false), balancerSpentOf(spent.bytes, budget.bytes, true)));
    m_policyText->setText(status.state.pendingApproval.empty()
            ? tr("Hysteresis %1; at most %2 operations at once.")
                  .arg(formatDuration(static_cast<std::int64_t>(status.policy.hysteresisSeconds)))
                  .arg(status.policy.maxConcurrent)
            : tr("Waiting for approval %1 (the Approvals page).").arg(qs(status.state.pendingApproval)));
    showDecisions(read.decisions);
    updateButtons();
    emit statusShown(mode, qs(status.sentence), status.sentence.find("held:") != std::string::npos);
}

void BalancerPage::showDecisions(const std::vector<core::BalancerDecision>& decisions)
{
    m_shown = decisions;
    const QSignalBlocker block(m_decisions);
    m_decisions->setRowCount(static_cast<int>(decisions.size()));
    for (int row = 0; row < static_cast<int>(decisions.size()); ++row) {
        const core::BalancerDecision& d = decisions[static_cast<std::size_t>(row)];
        QString reason = qs(d.reason);
        if (d.evaluations > 1)
            reason = tr("%1 (%2 evaluations, the last %3)")
                         .arg(reason)
                         .arg(d.evaluations)
                         .arg(formatDateTime(d.lastUnixMs));
        const QStringList cells { formatDateTime(d.atUnixMs), QLatin1String(core::decisionOutcomeName(d.outcome)),
            qs(d.action), reason, qs(d.operationId.empty() ? d.approvalId : d.operationId) };
        for (int column = 0; column < cells.size(); ++column)
            m_decisions->setItem(row, column, new QTableWidgetItem(cells[column]));
    }
}

// Setting the policy is an admin's change.
void BalancerPage::updateButtons()
{
    const bool admin = !m_connection->viaController() || m_connection->role() >= core::Role::Admin;
    enableChange(m_policy, m_connection, admin && m_status.has_value());
    if (m_connection->readOnlyReason().isEmpty() && !admin)
        m_policy->setToolTip(tr("Changing the balancer's policy is an admin's change"));
}

void BalancerPage::askPolicy()
{
    if (!m_status)
        return;
    const MapPtr map = m_connection->map();
    BalancerPolicyDialog dialog(m_status->policy, map ? map->settings.value.maxConcurrent : 0, this);
    if (dialog.exec() == QDialog::Accepted && dialog.policy())
        setPolicy(*dialog.policy(), dialog.reason());
}

void BalancerPage::setPolicy(const core::BalancerPolicy& policy, const QString& reason)
{
    m_connection->submitChange(core::balancerPolicyChange(policy), reason, this, [this](ChangeResult made) {
        const auto [ok, text] = showChangeOutcome(m_message, made, tr("The balancer's policy is set."));
        emit actionFinished(ok, text);
        refresh();
    });
}

} // namespace shardmap::widgets

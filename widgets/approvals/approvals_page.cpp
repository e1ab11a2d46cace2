// ApprovalsPage's implementation: the list read from shardmapd every few seconds and on map changes,
// and the decisions sent to it, the buttons' after asking for a reason.
#include "widgets/approvals/approvals_page.h"

#include "core/admin/admin_changes.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

constexpr int kRefreshMs = 3000;

// In the locale's format, as the rest of the console (issue 26, point 12).
QString approvalTime(std::int64_t unixMs)
{
    return unixMs > 0 ? formatDateTime(unixMs) : QString();
}

} // namespace

ApprovalsPage::ApprovalsPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
    , m_list(new QTreeWidget(this))
    , m_approve(new QPushButton(tr("&Approve…"), this))
    , m_refuse(new QPushButton(tr("Re&fuse…"), this))
    , m_refreshButton(new QPushButton(tr("Refresh"), this))
    , m_message(new InlineMessage(this))
{
    m_list->setObjectName(QStringLiteral("approvalsList"));
    m_list->setRootIsDecorated(false);
    m_list->setAccessibleName(tr("Changes awaiting approval"));
    m_list->setHeaderLabels({ tr("Id"), tr("State"), tr("Change"), tr("Requested by"), tr("Reason"),
        tr("Needs approval because"), tr("Requested"), tr("Decided by"), tr("Outcome") });
    m_list->header()->setStretchLastSection(true);
    m_approve->setObjectName(QStringLiteral("approveButton"));
    m_refuse->setObjectName(QStringLiteral("refuseButton"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_approve);
    buttons->addWidget(m_refuse);
    buttons->addStretch(1);
    buttons->addWidget(m_refreshButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addLayout(buttons);
    layout->addWidget(m_list, 1);

    connect(m_approve, &QPushButton::clicked, this, [this] { askAndDecide(true); });
    connect(m_refuse, &QPushButton::clicked, this, [this] { askAndDecide(false); });
    connect(m_refreshButton, &QPushButton::clicked, this, &ApprovalsPage::refresh);
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, &ApprovalsPage::updateActions);
    connect(m_connection, &FleetConnection::mapChanged, this, &ApprovalsPage::refresh);
    connect(m_connection, &FleetConnection::stateChanged, this, [this](FleetConnection::State state) {
        if (state == FleetConnection::State::Disconnected) {
            m_generation.invalidate();
            m_refreshing = false;
            m_approvals.clear();
            showApprovals();
        }
        updateActions();
    });
    connect(m_connection, &FleetConnection::identityChanged, this, &ApprovalsPage::updateActions);
    m_timer.setInterval(kRefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &ApprovalsPage::refresh);
    m_timer.start();
    updateActions();
}

void ApprovalsPage::refresh()
{
    auto client = m_connection->adminClient();
    if (!client || m_refreshing)
        return;
    m_refreshing = true;
    const std::uint64_t ticket = m_generation.next();
    runInBackground(
        m_connection->pool(), this, [client] { return client->listApprovals(false); },
        [this, ticket](
            core::Result<std::vector<v1::ApprovalInfo>> approvals) { listArrived(ticket, std::move(approvals)); });
}

void ApprovalsPage::listArrived(std::uint64_t ticket, core::Result<std::vector<v1::ApprovalInfo>> approvals)
{
    if (!m_generation.isCurrent(ticket))
        return;
    m_refreshing = false;
    if (!approvals) {
        m_message->show(tr("Could not read the approvals: %1").arg(FleetConnection::refusalText(approvals.error())),
            InlineMessage::Kind::Error);
        return;
    }
    m_approvals = std::move(*approvals);
    showApprovals();
    emit refreshed();
}

void ApprovalsPage::showApprovals()
{
    const QString selected = m_wantedSelection.isEmpty() ? selectedId() : m_wantedSelection;
    m_list->clear();
    int pending = 0;
    for (const v1::ApprovalInfo& approval : m_approvals) {
        pending += approval.state() == "pending" ? 1 : 0;
        auto* item = new QTreeWidgetItem(m_list,
            { qs(approval.id()), qs(approval.state()), qs(approval.summary()), qs(approval.requested_by()),
                qs(approval.reason()), qs(approval.needs_approval_because()),
                approvalTime(approval.requested_unix_ms()), qs(approval.decided_by()),
                approval.decision_reason().empty() ? qs(approval.outcome())
                                                   : qs(approval.decision_reason() + " " + approval.outcome()) });
        item->setToolTip(2, qs(core::changeKind(approval.change())));
        if (approval.id() == selected.toStdString()) {
            item->setSelected(true);
            m_wantedSelection.clear();
        }
    }
    if (pending != m_pending) {
        m_pending = pending;
        emit pendingCountChanged(pending);
    }
    updateActions();
}

QString ApprovalsPage::selectedId() const
{
    const auto items = m_list->selectedItems();
    return items.isEmpty() ? QString() : items.first()->text(0);
}

void ApprovalsPage::selectApproval(const QString& approvalId)
{
    // One not listed yet (just asked for) is selected when the list arrives with it.
    m_wantedSelection = approvalId;
    for (int row = 0; row < m_list->topLevelItemCount(); ++row) {
        QTreeWidgetItem* item = m_list->topLevelItem(row);
        item->setSelected(item->text(0) == approvalId);
        if (item->text(0) == approvalId)
            m_wantedSelection.clear();
    }
}

const v1::ApprovalInfo* ApprovalsPage::find(const QString& approvalId) const
{
    for (const v1::ApprovalInfo& approval : m_approvals) {
        if (approval.id() == approvalId.toStdString())
            return &approval;
    }
    return nullptr;
}

QString ApprovalsPage::decisionRefusal(const QString& approvalId) const
{
    if (m_connection->readOnly())
        return m_connection->readOnlyReason();
    if (!m_connection->viaController())
        return tr("Approvals are kept by shardmapd: connect through a controller to decide them.");
    if (approvalId.isEmpty())
        return tr("Select an approval first.");
    const v1::ApprovalInfo* approval = find(approvalId);
    if (!approval)
        return tr("There is no approval %1.").arg(approvalId);
    if (approval->state() != "pending")
        return tr("%1 is %2 already.").arg(approvalId, qs(approval->state()));
    if (qs(approval->requested_by()) == m_connection->identity())
        return tr("You requested %1: a different operator or admin decides it.").arg(approvalId);
    return {};
}

void ApprovalsPage::updateActions()
{
    const QString why = m_deciding ? tr("A decision is on its way.") : decisionRefusal(selectedId());
    for (QPushButton* button : { m_approve, m_refuse }) {
        button->setEnabled(why.isEmpty());
        button->setToolTip(why);
    }
    m_refreshButton->setEnabled(m_connection->viaController());
    const QString storeOnly = tr("Approvals are kept by shardmapd: connect through a controller to see them.");
    if (!m_connection->viaController() && m_connection->state() != FleetConnection::State::Disconnected)
        m_message->show(storeOnly, InlineMessage::Kind::Info);
    else if (m_message->shownText() == storeOnly)
        m_message->clear();
}

void ApprovalsPage::askAndDecide(bool approving)
{
    const QString id = selectedId();
    bool ok = false;
    const QString reason = QInputDialog::getText(this, approving ? tr("Approve %1").arg(id) : tr("Refuse %1").arg(id),
        approving ? tr("Why (optional, recorded in the audit log):") : tr("Why (recorded and shown to the requester):"),
        QLineEdit::Normal, {}, &ok);
    if (!ok || (!approving && reason.trimmed().isEmpty()))
        return;
    if (approving)
        approve(id, reason.trimmed());
    else
        refuse(id, reason.trimmed());
}

void ApprovalsPage::approve(const QString& approvalId, const QString& reason)
{
    auto client = startDecision();
    if (!client)
        return;
    runInBackground(
        m_connection->pool(), this,
        [client, id = approvalId.toStdString(), why = reason.toStdString()] { return client->approve(id, why); },
        [this, approvalId](ChangeResult made) {
            finishDecision(approvalId, static_cast<bool>(made),
                made ? tr("Approved %1: %2").arg(approvalId, qs(core::describeOutcome(*made)))
                     : tr("Could not approve %1: %2").arg(approvalId, FleetConnection::refusalText(made.error())));
        });
}

void ApprovalsPage::refuse(const QString& approvalId, const QString& reason)
{
    auto client = startDecision();
    if (!client)
        return;
    runInBackground(
        m_connection->pool(), this,
        [client, id = approvalId.toStdString(), why = reason.toStdString()] { return client->refuse(id, why); },
        [this, approvalId](core::Result<v1::ApprovalInfo> refused) {
            finishDecision(approvalId, static_cast<bool>(refused),
                refused ? tr("Refused %1.").arg(approvalId)
                        : tr("Could not refuse %1: %2").arg(approvalId, FleetConnection::refusalText(refused.error())));
        });
}

std::shared_ptr<core::AdminClient> ApprovalsPage::startDecision()
{
    auto client = m_connection->adminClient();
    if (client) {
        m_deciding = true;
        updateActions();
    }
    return client;
}

void ApprovalsPage::finishDecision(const QString& approvalId, bool done, const QString& text)
{
    m_deciding = false;
    m_message->show(text, done ? InlineMessage::Kind::Success : InlineMessage::Kind::Error);
    emit decided(approvalId, done, text);
    refresh();
}

} // namespace shardmap::widgets

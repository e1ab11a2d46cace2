#pragma once

// Enabling the console's fleet-changing actions only on a writable connection, saying why not;
// and saying how a change sent through the connection's seam ended.

#include "widgets/session/fleet_connection.h"
#include "widgets/style/inline_message.h"

#include <QAbstractButton>
#include <QAction>
#include <QCoreApplication>
#include <utility>

namespace shardmap::widgets {

// An action that changes the fleet (opens a wizard, queues, moves) is disabled on a read-only
// connection (a read-only profile, or a viewer through shardmapd), with the reason as its tooltip
// and status tip, so that a viewer's window offers nothing it would only refuse. `otherwise` is
// whether the action is enabled on a writable connection.
inline void enableChange(QAction* action, const FleetConnection* connection, bool otherwise = true)
{
    const QString why = connection ? connection->readOnlyReason() : QString();
    action->setEnabled(otherwise && why.isEmpty());
    action->setToolTip(why);
    action->setStatusTip(why);
}

inline void enableChange(QAbstractButton* button, const FleetConnection* connection, bool otherwise = true)
{
    const QString why = connection ? connection->readOnlyReason() : QString();
    button->setEnabled(otherwise && why.isEmpty());
    button->setToolTip(why);
    button->setStatusTip(why);
}

// How a change ended, shown in the page's message: refused (why), waiting for a second person's
// approval, or made (`done`). Whether it went through, and the text, for the page's signal.
inline std::pair<bool, QString> showChangeOutcome(InlineMessage* message, const ChangeResult& made, const QString& done)
{
    if (!made) {
        const QString why = FleetConnection::refusalText(made.error());
        message->show(QCoreApplication::translate("shardmap::widgets::ChangeOutcome", "Refused: %1").arg(why),
            InlineMessage::Kind::Error);
        return { false, why };
    }
    if (made->has_awaiting_approval()) {
        const QString text = FleetConnection::awaitingApprovalText(made->awaiting_approval());
        message->show(text, InlineMessage::Kind::Info);
        return { true, text };
    }
    message->show(done, InlineMessage::Kind::Success);
    return { true, done };
}

} // namespace shardmap::widgets

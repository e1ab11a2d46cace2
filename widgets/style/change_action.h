#pragma once

// Enabling the console's fleet-changing actions only on a writable connection, saying why not.

#include "widgets/session/fleet_connection.h"

#include <QAbstractButton>
#include <QAction>

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

} // namespace shardmap::widgets

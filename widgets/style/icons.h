#pragma once

// The console's icons by name: line icons drawn in the current theme's colour.

#include <QIcon>
#include <QList>
#include <QString>

namespace shardmap::widgets {

enum class IconId {
    Application,
    Connect,
    Disconnect,
    Refresh,
    Export,
    Find,
    Node,
    Shard,
    Settings,
    HealthOk,
    HealthWarning,
    HealthCritical,
    Overview,
    Audit,
    Alerts,
    Approvals,
};

// The console's own SVG icons (resources/icons, embedded in shardmap_widgets). Line icons are
// drawn in a dark grey and repainted light while the dark theme is on; badges keep their colours.
QIcon icon(IconId id);
QString iconPath(IconId id); // ":/icons/connect.svg", ...
QList<IconId> allIconIds();

} // namespace shardmap::widgets

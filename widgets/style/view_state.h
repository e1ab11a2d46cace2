#pragma once

// Header and splitter layouts remembered across runs.

#include <QString>

class QHeaderView;
class QSplitter;

namespace shardmap::widgets {

// Remembers how the administrator arranged a header (column widths, order, hidden columns,
// sorting) or a splitter across runs: restores the state saved under key in the settings
// ("viewState/<key>") now, and saves it again half a second after each change. Call once the
// view has its model (a header restores its sections only then).
void rememberState(QHeaderView* header, const QString& key);
void rememberState(QSplitter* splitter, const QString& key);

} // namespace shardmap::widgets

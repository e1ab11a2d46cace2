#pragma once

// Where the console's file dialogs open.

#include <QString>

namespace shardmap::widgets {

// Where the console's file dialogs start: fileName (or a path) as given when it names a folder,
// otherwise in the user's documents folder (XDG_DOCUMENTS_DIR, else the home folder).
QString inDocuments(const QString& fileName = {});

} // namespace shardmap::widgets

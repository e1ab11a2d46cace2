#pragma once

// The console's resources and translations, installed at start.

#include <QString>
#include <QStringList>

class QCoreApplication;

namespace shardmap::widgets {

// Registers the resources embedded in the static shardmap_widgets library (icons, the
// application icon, translations). With CMake's Qt targets they are linked as object files and
// register themselves; this is the explicit, idempotent form for other ways of linking.
void initWidgetsResources();

// Installs the console's translation (:/i18n/shardmap_<lang>.qm) and Qt's own (qtbase_<lang>.qm
// from Qt's translations directory, if present). override "en", "de", ... picks the language (one
// the console does not ship means English), "system" follows QLocale::system(), and an empty
// override reads QSettings "ui/language" (default "system").
// Numbers, sizes and dates (QLocale's default) follow the language chosen. Calling it again
// replaces what an earlier call installed. Returns the language chosen.
QString installTranslations(QCoreApplication& app, const QString& override = QString());
// Removes what installTranslations installed (English again).
void removeTranslations(QCoreApplication& app);

// Language codes the console ships ("en" is the source language, always present).
QStringList availableLanguages();
// QSettings "ui/language": "system" (default), "en", "de", ...
QString storedLanguage();
void storeLanguage(const QString& language);

} // namespace shardmap::widgets

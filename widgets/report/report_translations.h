#pragma once

// The application's translations for programs without the console (shardmapctl's PDF reports):
// the embedded :/i18n/shardmap_<lang>.qm for the locale's language, if the project ships it.

#include <QLocale>
#include <QString>

QT_BEGIN_NAMESPACE
class QCoreApplication;
QT_END_NAMESPACE

namespace shardmap::widgets {

// Returns the language installed ("en" when the locale's is not shipped: the source language).
QString installReportTranslations(QCoreApplication& app, const QLocale& locale);

} // namespace shardmap::widgets

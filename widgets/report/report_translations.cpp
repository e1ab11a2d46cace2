#include "widgets/report/report_translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QTranslator>

// Outside any namespace, as Q_INIT_RESOURCE requires (the name qt_add_translations derives).
static void initReportTranslations()
{
    Q_INIT_RESOURCE(shardmap_report_translations);
}

namespace shardmap::widgets {

QString installReportTranslations(QCoreApplication& app, const QLocale& locale)
{
    if (!QDir(QStringLiteral(":/i18n")).exists())
        initReportTranslations();
    // Owned by the application from here on: they live as long as the translation is used.
    // English plural forms first ("1 migration"), then the locale's language over them.
    auto* english = new QTranslator(&app);
    if (!english->load(QStringLiteral("shardmap_en"), QStringLiteral(":/i18n")) || !app.installTranslator(english))
        delete english;
    auto* translator = new QTranslator(&app);
    if (translator->load(locale, QStringLiteral("shardmap"), QStringLiteral("_"), QStringLiteral(":/i18n"))
        && translator->language() != QLatin1String("en") && app.installTranslator(translator))
        return translator->language().section(QLatin1Char('_'), 0, 0);
    delete translator;
    return QStringLiteral("en");
}

} // namespace shardmap::widgets

#include "widgets/style/i18n.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>
#include <memory>
#include <vector>

// Outside any namespace, as Q_INIT_RESOURCE requires. The names are those given to
// qt_add_resources and the one qt_add_translations (Qt 6.4) derives from the target (the
// translations live in shardmap_report, which shardmapctl links too).
static void initShardmapResources()
{
    Q_INIT_RESOURCE(shardmap_resources);
}

static void initShardmapTranslations()
{
    Q_INIT_RESOURCE(shardmap_report_translations);
}

namespace shardmap::widgets {

namespace {

const auto kLanguageKey = QStringLiteral("ui/language");
const auto kSystem = QStringLiteral("system");

std::vector<std::unique_ptr<QTranslator>>& installed()
{
    static std::vector<std::unique_ptr<QTranslator>> translators;
    return translators;
}

QString systemLanguage(const QStringList& available)
{
    for (const QString& name : QLocale::system().uiLanguages()) {
        const QString language = QLocale(name).name().section(QLatin1Char('_'), 0, 0);
        if (available.contains(language)) {
            return language;
        }
    }
    return QStringLiteral("en");
}

// Numbers, sizes and dates follow the language shown (German: 433.410, 34,2 MiB, 03.12.26): the
// system's own conventions when it speaks that language (de_AT stays Austrian), else the
// language's.
void applyLocale(const QString& language)
{
    const QLocale system = QLocale::system();
    const bool systemSpeaksIt = system.name().section(QLatin1Char('_'), 0, 0) == language;
    QLocale::setDefault(language == QLatin1String("en") || systemSpeaksIt ? system : QLocale(language));
}

void installFile(QCoreApplication& app, const QString& baseName, const QString& directory)
{
    auto translator = std::make_unique<QTranslator>();
    if (translator->load(baseName, directory) && app.installTranslator(translator.get())) {
        installed().push_back(std::move(translator));
    }
}

} // namespace

void initWidgetsResources()
{
    // The generated resource initialisers register themselves when linked; only add ours if the
    // embedded files are missing (registering twice would be harmless but wasteful).
    if (!QFile::exists(QStringLiteral(":/shardmap.svg"))) {
        initShardmapResources();
    }
    if (!QDir(QStringLiteral(":/i18n")).exists()) {
        initShardmapTranslations();
    }
}

QStringList availableLanguages()
{
    initWidgetsResources();
    QStringList languages { QStringLiteral("en") };
    const QStringList files = QDir(QStringLiteral(":/i18n")).entryList({ QStringLiteral("shardmap_*.qm") });
    for (const QString& file : files) {
        const QString language = file.mid(9).chopped(3); // "shardmap_" ... ".qm"
        if (!languages.contains(language)) {
            languages << language;
        }
    }
    return languages;
}

QString storedLanguage()
{
    return QSettings().value(kLanguageKey, kSystem).toString();
}

void storeLanguage(const QString& language)
{
    QSettings().setValue(kLanguageKey, language);
}

QString installTranslations(QCoreApplication& app, const QString& override)
{
    removeTranslations(app);
    const QStringList available = availableLanguages();
    QString language = override.isEmpty() ? storedLanguage() : override;
    if (language.isEmpty() || language == kSystem) {
        language = systemLanguage(available);
    } else if (!available.contains(language)) {
        language = QStringLiteral("en"); // a language we do not ship: the source text
    }
    // English plural forms under every language (the source text says "migration(s)"); a
    // translation installed after it takes precedence.
    installFile(app, QStringLiteral("shardmap_en"), QStringLiteral(":/i18n"));
    applyLocale(language);
    if (language == QLatin1String("en")) {
        return language; // the source language: no other translator, also not Qt's
    }
    installFile(app, QStringLiteral("shardmap_") + language, QStringLiteral(":/i18n"));
    installFile(app, QStringLiteral("qtbase_") + language, QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    return language;
}

void removeTranslations(QCoreApplication& app)
{
    for (const auto& translator : installed()) {
        app.removeTranslator(translator.get());
    }
    installed().clear();
}

} // namespace shardmap::widgets

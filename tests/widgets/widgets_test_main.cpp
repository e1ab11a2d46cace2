// GoogleTest main for the console tests: a QApplication on the offscreen platform, settings in a
// throwaway directory (never the user's), XDG_RUNTIME_DIR set as Qt wants it, and English.
#include "widgets/style/i18n.h"

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <gtest/gtest.h>

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QTemporaryDir runtimeDir;
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        qputenv("XDG_RUNTIME_DIR", runtimeDir.path().toUtf8());
    }
    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("ShardmapTests"));
    QApplication::setApplicationName(QStringLiteral("shardmap-widgets-tests"));
    // As the console starts: English (with its plural forms), whatever the machine's locale.
    shardmap::widgets::installTranslations(app, QStringLiteral("en"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// shardmap: the console. Parses the command line, applies language and theme, opens the main
// window and, with --store, connects it.
#include "widgets/console/main_window.h"
#include "widgets/session/connection_spec.h"
#include "widgets/style/i18n.h"
#include "widgets/style/theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Shardmap"));
    QApplication::setApplicationName(QStringLiteral("shardmap"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDMAP_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/shardmap.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Shardmap console: the fleet, its shard map and its metrics."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption storeOption(QStringLiteral("store"),
        QStringLiteral("Connect to this shard map store (sqlite:PATH or etcd://HOST:PORT/PREFIX)."),
        QStringLiteral("uri"));
    const QCommandLineOption languageOption(QStringLiteral("language"),
        QStringLiteral("Language of this run (en, de), overriding settings and the system locale."),
        QStringLiteral("code"));
    const QCommandLineOption intervalOption(QStringLiteral("metrics-interval-ms"),
        QStringLiteral("How often nodes send live metrics (default 1000)."), QStringLiteral("ms"),
        QStringLiteral("1000"));
    parser.addOption(storeOption);
    parser.addOption(languageOption);
    parser.addOption(intervalOption);
    parser.process(app);

    shardmap::widgets::installTranslations(app, parser.value(languageOption));
    shardmap::widgets::ThemeManager theme;

    shardmap::widgets::MainWindow window;
    window.show();
    if (parser.isSet(storeOption)) {
        shardmap::widgets::ConnectionSpec spec;
        spec.storeUri = shardmap::widgets::stripPassword(parser.value(storeOption), &spec.password);
        spec.metricsIntervalMs = std::max(200, parser.value(intervalOption).toInt());
        window.connectTo(spec);
    } else {
        QTimer::singleShot(0, &window, &shardmap::widgets::MainWindow::openConnectDialog);
    }
    return QApplication::exec();
}

// shardmap: the console. Parses the command line, applies language and theme, opens the main
// window and, with --store, connects it; with --demo, starts a loopback fleet with a load
// generator first (widgets/demo) and connects to that.
#include "widgets/connect/recent_connections.h"
#include "widgets/console/main_window.h"
#include "widgets/demo/demo_fleet.h"
#include "widgets/demo/load_generator.h"
#include "widgets/session/connection_spec.h"
#include "widgets/style/i18n.h"
#include "widgets/style/theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QSocketNotifier>
#include <QStatusBar>
#include <QTimer>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sys/socket.h>
#include <unistd.h>

namespace {

int g_signalSocket[2] = { -1, -1 };

// SIGTERM and SIGINT quit the event loop, so that the demo's children are stopped and its
// files removed as on a normal quit (a SIGKILL is covered by the children's death signal).
void quitOnStopSignals(QCoreApplication& app)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalSocket) != 0)
        return;
    auto* notifier = new QSocketNotifier(g_signalSocket[1], QSocketNotifier::Read, &app);
    QObject::connect(notifier, &QSocketNotifier::activated, &app, [notifier] {
        notifier->setEnabled(false);
        char byte = 0;
        [[maybe_unused]] const auto got = ::read(g_signalSocket[1], &byte, 1);
        QCoreApplication::quit();
    });
    struct sigaction action = {};
    action.sa_handler = [](int) {
        const char byte = 1;
        [[maybe_unused]] const auto sent = ::write(g_signalSocket[0], &byte, 1);
    };
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
}

void showDemoStatus(shardmap::widgets::MainWindow& window, const QString& text, int timeoutMs = 0)
{
    window.statusBar()->showMessage(text, timeoutMs);
    std::fprintf(stderr, "shardmap: %s\n", qPrintable(text));
}

// --demo: the fleet, then the console connected to it and the load generator writing to it.
// Both are stopped (load first) before the window goes away.
void startDemo(QApplication& app, shardmap::widgets::MainWindow& window, shardmap::widgets::DemoFleet& fleet,
    std::unique_ptr<shardmap::widgets::LoadGenerator>& load, int metricsIntervalMs)
{
    using shardmap::widgets::DemoFleet;
    QObject::connect(
        &fleet, &DemoFleet::progress, &window, [&window](const QString& text) { showDemoStatus(window, text); });
    QObject::connect(&fleet, &DemoFleet::failed, &window, [&window, &load](const QString& error) {
        if (load)
            load->stop();
        showDemoStatus(window, QCoreApplication::translate("DemoMode", "Demo failed: %1").arg(error));
    });
    auto* ticker = new QTimer(&window);
    QObject::connect(ticker, &QTimer::timeout, &window, [&window, &load] {
        if (!load)
            return;
        QString text = QCoreApplication::translate(
            "DemoMode", "Demo: %1 documents written, %2 searches, %3 errors through the router")
                           .arg(load->writes())
                           .arg(load->searches())
                           .arg(load->errors());
        if (const auto error = load->lastError(); !error.empty())
            text += QCoreApplication::translate("DemoMode", " (last error: %1)").arg(QString::fromStdString(error));
        window.statusBar()->showMessage(text);
    });
    QObject::connect(&fleet, &DemoFleet::ready, &window,
        [&window, &fleet, &load, ticker, metricsIntervalMs](shardmap::widgets::ConnectionSpec spec) {
            spec.metricsIntervalMs = metricsIntervalMs;
            window.connectTo(spec);
            shardmap::widgets::LoadGenerator::Options options;
            options.routerAddress = fleet.routerAddress().toStdString();
            load = std::make_unique<shardmap::widgets::LoadGenerator>(options);
            load->start();
            ticker->start(1000);
        });
    QObject::connect(&app, &QCoreApplication::aboutToQuit, &fleet, [&fleet, &load, ticker] {
        ticker->stop();
        if (load)
            load->stop();
        fleet.stop();
    });
    fleet.start();
}

// The command line; parsed once without a display for --help, --version and usage errors (which
// print and exit), then again by the real application. Its help is translated like the window.
struct ConsoleOptions {
    Q_DECLARE_TR_FUNCTIONS(ConsoleOptions)

public:
    QCommandLineOption store { QStringLiteral("store"),
        tr("Connect to this shard map store (sqlite:PATH or etcd://HOST:PORT/PREFIX; default: "
           "$SHARDMAP_STORE)."),
        QStringLiteral("uri") };
    QCommandLineOption profile { QStringLiteral("profile"),
        tr("Connect with this saved connection profile (File > Connect names them)."), QStringLiteral("name") };
    QCommandLineOption readOnly { QStringLiteral("read-only"),
        tr("Open the store read-only: look, never change (every action is disabled).") };
    QCommandLineOption environment { QStringLiteral("environment"),
        tr("The environment shown in the title and status bar (production shows red)."), QStringLiteral("name") };
    QCommandLineOption language { QStringLiteral("language"),
        tr("Language of this run (en, de), overriding settings and the system locale."), QStringLiteral("code") };
    QCommandLineOption interval { QStringLiteral("metrics-interval-ms"),
        tr("How often nodes send live metrics (default 1000)."), QStringLiteral("ms"), QStringLiteral("1000") };
    QCommandLineOption controller { QStringLiteral("controller"),
        tr("Connect through shardmapd's Admin API at HOST:PORT instead of the store: every change is "
           "checked against your role there and audited under your identity."),
        QStringLiteral("host:port") };
    QCommandLineOption controllerCa { QStringLiteral("controller-ca"),
        tr("CA certificate (PEM) that signed shardmapd's certificate."), QStringLiteral("file") };
    QCommandLineOption controllerCert { QStringLiteral("controller-cert"),
        tr("Client certificate (PEM) naming you to shardmapd (mutual TLS)."), QStringLiteral("file") };
    QCommandLineOption controllerKey { QStringLiteral("controller-key"), tr("Key of the client certificate."),
        QStringLiteral("file") };
    QCommandLineOption tokenFile { QStringLiteral("token-file"),
        tr("A file holding a bearer token for shardmapd, instead of a client certificate."), QStringLiteral("file") };
    QCommandLineOption demo { QStringLiteral("demo"),
        tr("Start a demo fleet on loopback (3 shard nodes, shardmapd, a shard map in a temporary "
           "directory, a load generator) and connect to it; quitting stops it.") };

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription(tr("Shardmap console: the fleet, its shard map and its metrics."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOption(store);
        parser.addOption(profile);
        parser.addOption(readOnly);
        parser.addOption(environment);
        parser.addOption(language);
        parser.addOption(interval);
        parser.addOption(demo);
        for (const QCommandLineOption* option :
            { &controller, &controllerCa, &controllerCert, &controllerKey, &tokenFile })
            parser.addOption(*option);
    }

    // The connection through shardmapd that --controller and its files describe.
    shardmap::widgets::ConnectionSpec controllerSpec(const QCommandLineParser& parser) const
    {
        shardmap::widgets::ConnectionSpec spec;
        spec.controllerAddress = parser.value(controller);
        spec.controllerCaFile = parser.value(controllerCa);
        spec.controllerCertFile = parser.value(controllerCert);
        spec.controllerKeyFile = parser.value(controllerKey);
        spec.controllerTokenFile = parser.value(tokenFile);
        spec.metricsIntervalMs = std::max(200, parser.value(interval).toInt());
        spec.readOnly = parser.isSet(readOnly);
        spec.environment = parser.value(environment);
        return spec;
    }

    // The connection to the store at uri (--store or $SHARDMAP_STORE), its password taken out.
    shardmap::widgets::ConnectionSpec storeSpec(const QCommandLineParser& parser, const QString& uri) const
    {
        shardmap::widgets::ConnectionSpec spec;
        spec.storeUri = shardmap::widgets::stripPassword(uri, &spec.password);
        spec.metricsIntervalMs = std::max(200, parser.value(interval).toInt());
        spec.readOnly = parser.isSet(readOnly);
        spec.environment = parser.value(environment);
        return spec;
    }
};

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Shardmap"));
    QCoreApplication::setApplicationName(QStringLiteral("shardmap"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SHARDMAP_VERSION));
}

QStringList argumentsOf(int argc, char** argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    return arguments;
}

// --help, --version and usage errors answered by a QCoreApplication, in the language the window
// would speak: a QApplication would abort first when no display is reachable. A usage error exits
// 2 with the usage, as shardmapctl's do.
void answerWithoutDisplay(int argc, char** argv)
{
    QCommandLineParser probe;
    ConsoleOptions untranslated;
    untranslated.addTo(probe);
    const bool parsed = probe.parse(argumentsOf(argc, argv));
    if (parsed && !probe.isSet(QStringLiteral("help")) && !probe.isSet(QStringLiteral("help-all"))
        && !probe.isSet(QStringLiteral("version")))
        return;
    QCoreApplication core(argc, argv);
    setApplicationNames();
    shardmap::widgets::installTranslations(core, parsed ? probe.value(untranslated.language) : QString());
    QCommandLineParser parser;
    ConsoleOptions options;
    options.addTo(parser);
    if (parser.parse(QCoreApplication::arguments())) {
        parser.process(core); // prints and exits
        return;
    }
    std::fprintf(stderr, "shardmap: %s\n\n%s", qPrintable(parser.errorText()), qPrintable(parser.helpText()));
    std::exit(2);
}

// What the command line asks the window to connect to: the demo, a saved profile, shardmapd, a
// store, or nothing yet (the connect dialog then). False when the profile named is not saved.
bool connectAsAsked(QApplication& app, const QCommandLineParser& parser, const ConsoleOptions& options,
    shardmap::widgets::MainWindow& window, shardmap::widgets::DemoFleet& fleet,
    std::unique_ptr<shardmap::widgets::LoadGenerator>& load)
{
    if (parser.isSet(options.demo)) {
        startDemo(app, window, fleet, load, std::max(200, parser.value(options.interval).toInt()));
    } else if (parser.isSet(options.profile)) {
        const auto saved = window.recentConnections()->profile(parser.value(options.profile));
        if (!saved) {
            std::fprintf(stderr, "shardmap: no saved connection profile named '%s'\n",
                qPrintable(parser.value(options.profile)));
            return false;
        }
        shardmap::widgets::ConnectionSpec spec = *saved;
        spec.readOnly = spec.readOnly || parser.isSet(options.readOnly);
        window.openRecentConnection(spec);
    } else if (parser.isSet(options.controller)) {
        const shardmap::widgets::ConnectionSpec spec = options.controllerSpec(parser);
        std::printf("shardmap: connecting through shardmapd at %s%s\n", qPrintable(spec.controllerAddress),
            spec.readOnly ? ", read-only" : "");
        std::fflush(stdout);
        window.connectTo(spec);
    } else if (const QString uri
               = parser.isSet(options.store) ? parser.value(options.store) : qEnvironmentVariable("SHARDMAP_STORE");
               !uri.isEmpty()) {
        const shardmap::widgets::ConnectionSpec spec = options.storeSpec(parser, uri);
        std::printf("shardmap: connecting to %s%s%s\n", qPrintable(spec.storeUri),
            parser.isSet(options.store) ? "" : " (from $SHARDMAP_STORE)", spec.readOnly ? ", read-only" : "");
        std::fflush(stdout);
        window.connectTo(spec);
    } else {
        QTimer::singleShot(0, &window, &shardmap::widgets::MainWindow::openConnectDialog);
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    answerWithoutDisplay(argc, argv);
    QApplication app(argc, argv);
    setApplicationNames();
    // The .desktop file's id: Wayland's app_id and the portals match the window to it by this.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.shardmap.Console"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/shardmap.svg")));

    QCommandLineParser parser;
    ConsoleOptions options;
    options.addTo(parser);
    parser.process(app);
    quitOnStopSignals(app);

    shardmap::widgets::installTranslations(app, parser.value(options.language));
    shardmap::widgets::ThemeManager theme;

    // Declared before the window so that they outlive it; the fleet stops its children on quit.
    shardmap::widgets::DemoFleet fleet;
    std::unique_ptr<shardmap::widgets::LoadGenerator> load;
    shardmap::widgets::MainWindow window;
    window.show();
    if (!connectAsAsked(app, parser, options, window, fleet, load))
        return 2;
    return QApplication::exec();
}

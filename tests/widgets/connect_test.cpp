// The console shell's connect dialog, recent connections (settings and keyring), translations,
// icons and theme. A system keyring is not required: where one exists the password goes there,
// where none does (CI) the tests check that the loss is reported and nothing leaks to settings.
#include "tests/widgets/wait_for.h"
#include "widgets/connect/connect_dialog.h"
#include "widgets/connect/recent_connections.h"
#include "widgets/style/i18n.h"
#include "widgets/style/icons.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/preferences_dialog.h"
#include "widgets/style/theme.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLibraryInfo>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

const auto kTestService = QStringLiteral("shardmap-tests");

using testing::waitFor;

// Each test keeps its recent connections in a group of its own and leaves nothing behind.
class RecentFixture {
public:
    explicit RecentFixture(const QString& name)
        : m_group(QStringLiteral("tests/") + name)
        , recent(m_group, kTestService)
    {
        QSettings().remove(m_group);
    }
    ~RecentFixture()
    {
        recent.clear();
        QSettings().remove(m_group);
    }

private:
    QString m_group;

public:
    RecentConnections recent;
};

template <typename T> T* child(QWidget& parent, const char* name)
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    EXPECT_NE(found, nullptr) << name;
    return found;
}

void setText(QWidget& dialog, const char* name, const QString& text)
{
    if (auto* edit = child<QLineEdit>(dialog, name)) {
        edit->setText(text);
    }
}

void chooseEtcd(ConnectDialog& dialog)
{
    child<QComboBox>(dialog, "storeKind")->setCurrentIndex(1);
}

void clickConnect(ConnectDialog& dialog)
{
    child<QDialogButtonBox>(dialog, "buttons")->button(QDialogButtonBox::Ok)->click();
}

// The dialog's error, shown as an error message (empty while none is shown).
QString errorText(ConnectDialog& dialog)
{
    auto* message = child<InlineMessage>(dialog, "errorLabel");
    if (!message || message->shownText().isEmpty())
        return {};
    EXPECT_EQ(message->kind(), InlineMessage::Kind::Error);
    return message->shownText();
}

ConnectionSpec sqliteSpec(int n)
{
    ConnectionSpec spec;
    spec.storeUri = QStringLiteral("sqlite:/srv/maps/map-%1.db").arg(n);
    return spec;
}

QByteArray settingsFileContents()
{
    QSettings settings;
    settings.sync();
    QFile file(settings.fileName());
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << settings.fileName().toStdString();
    return file.readAll();
}

// ---- connect dialog ----------------------------------------------------------------------------

TEST(ConnectDialog, BuildsSqliteSpec)
{
    RecentFixture fixture(QStringLiteral("sqlite-spec"));
    ConnectDialog dialog(&fixture.recent);
    setText(dialog, "sqlitePath", QStringLiteral("/srv/maps/fleet.db"));
    setText(dialog, "nodeCa", QStringLiteral("/etc/shardmap/ca.pem"));
    setText(dialog, "nodeCert", QStringLiteral("/etc/shardmap/console.pem"));
    setText(dialog, "nodeKey", QStringLiteral("/etc/shardmap/console.key"));
    child<QSpinBox>(dialog, "metricsInterval")->setValue(2000);

    const ConnectionSpec spec = dialog.spec();
    EXPECT_EQ(spec.storeUri, QStringLiteral("sqlite:/srv/maps/fleet.db"));
    EXPECT_TRUE(spec.password.isEmpty());
    EXPECT_EQ(spec.nodeCaFile, QStringLiteral("/etc/shardmap/ca.pem"));
    EXPECT_EQ(spec.nodeCertFile, QStringLiteral("/etc/shardmap/console.pem"));
    EXPECT_EQ(spec.nodeKeyFile, QStringLiteral("/etc/shardmap/console.key"));
    EXPECT_EQ(spec.metricsIntervalMs, 2000);
    EXPECT_EQ(dialog.validationError(), QString());
}

// The dialog shows a certificate's path whole and is as tall as the store page shown: sized by
// the etcd page, the SQLite page had an empty gap under its one line.
TEST(ConnectDialog, FitsThePageShownAndShowsPathsWhole)
{
    RecentFixture fixture(QStringLiteral("fits"));
    ConnectDialog dialog(&fixture.recent);
    setText(dialog, "nodeCert", QStringLiteral("/etc/shardmap/tls/console-operator.pem"));
    dialog.show();
    QApplication::processEvents();
    auto* cert = child<QLineEdit>(dialog, "nodeCert");
    EXPECT_LE(cert->fontMetrics().horizontalAdvance(cert->text()), cert->contentsRect().width()) << cert->width();

    auto* pages = dialog.findChild<QStackedWidget*>();
    ASSERT_NE(pages, nullptr);
    const int sqliteHeight = dialog.height();
    EXPECT_LE(pages->height(), pages->widget(0)->sizeHint().height() + 4) << "no gap under the SQLite page";
    child<QComboBox>(dialog, "storeKind")->setCurrentIndex(1);
    QApplication::processEvents();
    EXPECT_TRUE(child<QLineEdit>(dialog, "etcdEndpoints")->isVisible());
    EXPECT_GT(dialog.height(), sqliteHeight) << "the etcd page has more rows";
    EXPECT_GE(pages->height(), pages->widget(1)->sizeHint().height());
}

TEST(ConnectDialog, BuildsEtcdSpecWithTlsAndUserKeepingThePasswordOutOfTheUri)
{
    RecentFixture fixture(QStringLiteral("etcd-spec"));
    ConnectDialog dialog(&fixture.recent);
    chooseEtcd(dialog);
    setText(dialog, "etcdEndpoints", QStringLiteral(" 10.0.0.1:2379,  etcd-2.example:2379 "));
    setText(dialog, "etcdPrefix", QStringLiteral("/fleet/"));
    setText(dialog, "etcdUser", QStringLiteral("ops"));
    setText(dialog, "etcdPassword", QStringLiteral("p@ss w&rd"));
    setText(dialog, "etcdCa", QStringLiteral("/etc/etcd/ca.pem"));
    setText(dialog, "etcdCert", QStringLiteral("/etc/etcd/my client.pem"));
    setText(dialog, "etcdKey", QStringLiteral("/etc/etcd/client.key"));

    const ConnectionSpec spec = dialog.spec();
    EXPECT_EQ(spec.storeUri,
        QStringLiteral("etcd://10.0.0.1:2379,etcd-2.example:2379/fleet?user=ops&ca=/etc/etcd/ca.pem"
                       "&cert=/etc/etcd/my%20client.pem&key=/etc/etcd/client.key"));
    EXPECT_FALSE(spec.storeUri.contains(QStringLiteral("password")));
    EXPECT_FALSE(spec.storeUri.contains(QStringLiteral("p@ss")));
    EXPECT_EQ(spec.password, QStringLiteral("p@ss w&rd"));
    EXPECT_EQ(spec.storeUriWithSecret(), spec.storeUri.toStdString() + "&password=p%40ss%20w%26rd");
    EXPECT_EQ(dialog.validationError(), QString());

    // What the dialog builds it reads back.
    ConnectDialog again(&fixture.recent);
    again.setSpec(spec);
    EXPECT_EQ(again.spec(), spec);
}

TEST(ConnectDialog, SetSpecTakesAPastedPasswordOutOfTheUri)
{
    ConnectDialog dialog(nullptr);
    ConnectionSpec pasted;
    pasted.storeUri = QStringLiteral("etcd://127.0.0.1:2379/maps?user=root&password=s%26cret");
    dialog.setSpec(pasted);
    EXPECT_EQ(dialog.spec().storeUri, QStringLiteral("etcd://127.0.0.1:2379/maps?user=root"));
    EXPECT_EQ(dialog.spec().password, QStringLiteral("s&cret"));
}

TEST(ConnectDialog, ShowsValidationErrorsInlineAndRefusesConnect)
{
    RecentFixture fixture(QStringLiteral("validation"));
    ConnectDialog dialog(&fixture.recent);
    dialog.show();

    clickConnect(dialog);
    EXPECT_TRUE(dialog.isVisible());
    EXPECT_NE(dialog.result(), QDialog::Accepted);
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("SQLite file"))) << errorText(dialog).toStdString();

    chooseEtcd(dialog);
    setText(dialog, "etcdEndpoints", QStringLiteral("10.0.0.1:2379, etcd1"));
    setText(dialog, "etcdPrefix", QStringLiteral("fleet"));
    clickConnect(dialog);
    EXPECT_TRUE(dialog.isVisible());
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("“etcd1”"))) << errorText(dialog).toStdString();
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("host:port")));

    setText(dialog, "etcdEndpoints", QStringLiteral("10.0.0.1:70000"));
    clickConnect(dialog);
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("“10.0.0.1:70000”")));

    setText(dialog, "etcdEndpoints", QStringLiteral("10.0.0.1:2379"));
    setText(dialog, "etcdCert", QStringLiteral("/etc/etcd/client.pem"));
    clickConnect(dialog);
    EXPECT_TRUE(dialog.isVisible());
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("key file"))) << errorText(dialog).toStdString();

    setText(dialog, "etcdCert", QString());
    setText(dialog, "nodeCert", QStringLiteral("/etc/shardmap/console.pem"));
    clickConnect(dialog);
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("node client certificate")));
    EXPECT_TRUE(fixture.recent.list().isEmpty()); // nothing remembered while refused

    setText(dialog, "nodeKey", QStringLiteral("/etc/shardmap/console.key"));
    clickConnect(dialog);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
    EXPECT_EQ(errorText(dialog), QString());
}

TEST(ConnectDialog, BuildsAControllerSpecChecksItAndRemembersIt)
{
    RecentFixture fixture(QStringLiteral("controller"));
    ConnectDialog dialog(&fixture.recent);
    dialog.show();
    child<QComboBox>(dialog, "storeKind")->setCurrentIndex(2);
    setText(dialog, "controllerAddress", QStringLiteral("ctl.example"));
    clickConnect(dialog);
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("host:port"))) << errorText(dialog).toStdString();

    setText(dialog, "controllerAddress", QStringLiteral("ctl.example:7500"));
    setText(dialog, "controllerCa", QStringLiteral("/etc/shardmap/ca.pem"));
    setText(dialog, "controllerCert", QStringLiteral("/home/alice/alice.pem"));
    clickConnect(dialog);
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("controller client certificate needs its key")))
        << errorText(dialog).toStdString();
    setText(dialog, "controllerKey", QStringLiteral("/home/alice/alice.key"));
    setText(dialog, "controllerToken", QStringLiteral("/home/alice/token"));
    clickConnect(dialog);
    EXPECT_TRUE(errorText(dialog).contains(QStringLiteral("not both"))) << errorText(dialog).toStdString();
    setText(dialog, "controllerToken", QString());

    const ConnectionSpec spec = dialog.spec();
    EXPECT_TRUE(spec.viaController());
    EXPECT_EQ(spec.controllerAddress, QStringLiteral("ctl.example:7500"));
    EXPECT_EQ(spec.controllerKeyFile, QStringLiteral("/home/alice/alice.key"));
    EXPECT_TRUE(spec.storeUri.isEmpty());
    EXPECT_EQ(spec.title(), QStringLiteral("ctl.example:7500"));
    clickConnect(dialog);
    ASSERT_EQ(dialog.result(), QDialog::Accepted);
    ASSERT_EQ(fixture.recent.list().size(), 1);
    EXPECT_EQ(fixture.recent.list().front(), spec);
    EXPECT_EQ(RecentConnections::displayName(spec), QStringLiteral("ctl.example:7500"));

    ConnectDialog again(&fixture.recent);
    again.setSpec(spec);
    EXPECT_EQ(again.spec(), spec);
}

TEST(ConnectDialog, ConnectRemembersTheConnection)
{
    RecentFixture fixture(QStringLiteral("accept"));
    ConnectDialog dialog(&fixture.recent);
    setText(dialog, "sqlitePath", QStringLiteral("/srv/maps/fleet.db"));
    clickConnect(dialog);
    ASSERT_EQ(dialog.result(), QDialog::Accepted);
    ASSERT_EQ(fixture.recent.list().size(), 1);
    EXPECT_EQ(fixture.recent.list().front(), dialog.spec());

    // A new dialog offers it and fills the fields from it.
    ConnectDialog next(&fixture.recent);
    auto* recentCombo = child<QComboBox>(next, "recentCombo");
    ASSERT_EQ(recentCombo->count(), 1);
    recentCombo->setCurrentIndex(0);
    Q_EMIT recentCombo->activated(0);
    EXPECT_EQ(child<QLineEdit>(next, "sqlitePath")->text(), QStringLiteral("/srv/maps/fleet.db"));
}

TEST(ConnectDialog, SaysInlineWhenThePasswordWasNotSaved)
{
    RecentFixture fixture(QStringLiteral("password-dialog"));
    QSignalSpy saved(&fixture.recent, &RecentConnections::passwordSaved);
    QSignalSpy notSaved(&fixture.recent, &RecentConnections::passwordNotSaved);
    ConnectDialog dialog(&fixture.recent);
    dialog.show();
    chooseEtcd(dialog);
    setText(dialog, "etcdEndpoints", QStringLiteral("127.0.0.1:2379"));
    setText(dialog, "etcdPrefix", QStringLiteral("fleet"));
    setText(dialog, "etcdUser", QStringLiteral("ops"));
    setText(dialog, "etcdPassword", QStringLiteral("dialog-secret-4711"));
    clickConnect(dialog);
    // The keyring answers later: the dialog has not closed on its own meanwhile.
    EXPECT_NE(dialog.result(), QDialog::Accepted);
    ASSERT_TRUE(waitFor([&] { return saved.count() + notSaved.count() > 0; }));
    EXPECT_FALSE(settingsFileContents().contains("dialog-secret-4711"));

    if (!notSaved.isEmpty()) {
        auto* note = child<InlineMessage>(dialog, "passwordNote");
        EXPECT_TRUE(dialog.isVisible());
        EXPECT_TRUE(note->isVisibleTo(&dialog));
        EXPECT_EQ(note->kind(), InlineMessage::Kind::Warning);
        EXPECT_TRUE(note->text().startsWith(QStringLiteral("The password was not saved: ")))
            << note->text().toStdString();
        EXPECT_FALSE(fixture.recent.hasSavedPassword(dialog.spec().key()));
        clickConnect(dialog); // read it, connect anyway
        EXPECT_EQ(dialog.result(), QDialog::Accepted);
    } else {
        EXPECT_EQ(dialog.result(), QDialog::Accepted);
        EXPECT_TRUE(fixture.recent.hasSavedPassword(dialog.spec().key()));
    }
    ASSERT_EQ(fixture.recent.list().size(), 1);
    EXPECT_TRUE(fixture.recent.list().front().password.isEmpty());
}

// ---- recent connections ------------------------------------------------------------------------

TEST(RecentConnections, MostRecentFirstAtMostTenWithoutDuplicates)
{
    RecentFixture fixture(QStringLiteral("order"));
    QSignalSpy changed(&fixture.recent, &RecentConnections::changed);
    for (int i = 0; i < 12; ++i) {
        fixture.recent.remember(sqliteSpec(i));
    }
    EXPECT_EQ(changed.count(), 12);
    QList<ConnectionSpec> list = fixture.recent.list();
    ASSERT_EQ(list.size(), RecentConnections::kMaxEntries);
    EXPECT_EQ(list.front(), sqliteSpec(11));
    EXPECT_EQ(list.back(), sqliteSpec(2));

    fixture.recent.remember(sqliteSpec(5));
    list = fixture.recent.list();
    ASSERT_EQ(list.size(), RecentConnections::kMaxEntries);
    EXPECT_EQ(list.front(), sqliteSpec(5));
    EXPECT_EQ(list.count(sqliteSpec(5)), 1);
    EXPECT_EQ(list.at(1), sqliteSpec(11));

    // Another instance (the next start) reads the same list.
    EXPECT_EQ(RecentConnections(QStringLiteral("tests/order"), kTestService).list(), list);
}

TEST(RecentConnections, ForgetRemovesOneEntry)
{
    RecentFixture fixture(QStringLiteral("forget"));
    for (int i = 0; i < 3; ++i) {
        fixture.recent.remember(sqliteSpec(i));
    }
    QSignalSpy changed(&fixture.recent, &RecentConnections::changed);
    fixture.recent.forget(sqliteSpec(1).key());
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(fixture.recent.list(), (QList<ConnectionSpec> { sqliteSpec(2), sqliteSpec(0) }));
    fixture.recent.forget(QStringLiteral("sqlite:/not/there.db"));
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(fixture.recent.list().size(), 2);
}

TEST(RecentConnections, PasswordNeverReachesTheSettingsFile)
{
    RecentFixture fixture(QStringLiteral("secret"));
    QSignalSpy saved(&fixture.recent, &RecentConnections::passwordSaved);
    QSignalSpy notSaved(&fixture.recent, &RecentConnections::passwordNotSaved);
    ConnectionSpec spec;
    spec.storeUri = QStringLiteral("etcd://127.0.0.1:2379/fleet?user=ops");
    spec.password = QStringLiteral("Very$ecret-Pa55word");
    fixture.recent.remember(spec);
    // Also a URI pasted with the password inside.
    ConnectionSpec pasted;
    pasted.storeUri = QStringLiteral("etcd://127.0.0.2:2379/fleet?user=ops&password=Other%24ecret-77");
    fixture.recent.remember(pasted);
    ASSERT_TRUE(waitFor([&] { return saved.count() + notSaved.count() == 2; }));

    const QByteArray contents = settingsFileContents();
    EXPECT_TRUE(contents.contains("127.0.0.1:2379")); // the right file
    for (const char* secret :
        { "Very$ecret-Pa55word", "Very%24ecret", "Pa55word", "Other%24ecret", "Other$ecret", "password=" }) {
        EXPECT_FALSE(contents.contains(secret)) << secret;
    }
    for (const ConnectionSpec& entry : fixture.recent.list()) {
        EXPECT_TRUE(entry.password.isEmpty());
        EXPECT_FALSE(entry.storeUri.contains(QStringLiteral("password")));
    }
}

TEST(RecentConnections, PasswordGoesToTheKeyringOrIsReportedNotSaved)
{
    RecentFixture fixture(QStringLiteral("keyring"));
    QSignalSpy saved(&fixture.recent, &RecentConnections::passwordSaved);
    QSignalSpy notSaved(&fixture.recent, &RecentConnections::passwordNotSaved);
    ConnectionSpec spec;
    spec.storeUri = QStringLiteral("etcd://127.0.0.1:2379/keyring-test?user=ops");
    spec.password = QStringLiteral("keyring-secret");
    fixture.recent.remember(spec);
    EXPECT_EQ(saved.count() + notSaved.count(), 0); // asynchronous
    ASSERT_TRUE(waitFor([&] { return saved.count() + notSaved.count() > 0; }));

    QString loaded;
    QString error;
    bool done = false;
    fixture.recent.loadPassword(spec.key(), &fixture.recent, [&](QString password, QString message) {
        loaded = password;
        error = message;
        done = true;
    });
    EXPECT_FALSE(done); // asynchronous
    ASSERT_TRUE(waitFor([&] { return done; }));

    if (!notSaved.isEmpty()) {
        EXPECT_EQ(notSaved.front().at(0).toString(), spec.key());
        const QString message = notSaved.front().at(1).toString();
        EXPECT_TRUE(message.startsWith(QStringLiteral("The password was not saved: "))) << message.toStdString();
        if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS")) {
            EXPECT_TRUE(message.contains(QStringLiteral("no system keyring"))) << message.toStdString();
        }
        EXPECT_FALSE(fixture.recent.hasSavedPassword(spec.key()));
        EXPECT_TRUE(loaded.isEmpty());
        EXPECT_FALSE(error.isEmpty());
    } else {
        EXPECT_TRUE(fixture.recent.hasSavedPassword(spec.key()));
        EXPECT_EQ(loaded, spec.password);
        EXPECT_TRUE(error.isEmpty());
    }
}

TEST(RecentConnections, BoundMenuListsConnectionsAndRequestsThem)
{
    RecentFixture fixture(QStringLiteral("menu"));
    QMenu menu;
    fixture.recent.bindMenu(&menu);
    ASSERT_EQ(menu.actions().size(), 1);
    EXPECT_FALSE(menu.actions().front()->isEnabled()); // "No recent connections"

    fixture.recent.remember(sqliteSpec(1));
    ConnectionSpec etcd;
    etcd.storeUri = QStringLiteral("etcd://10.0.0.1:2379/fleet?user=ops&ca=/etc/ca.pem");
    fixture.recent.remember(etcd);
    const QList<QAction*> actions = menu.actions();
    ASSERT_EQ(actions.size(), 4); // two connections, separator, clear
    EXPECT_EQ(actions.at(0)->text(), QStringLiteral("etcd://10.0.0.1:2379/fleet"));
    EXPECT_EQ(actions.at(1)->text(), QStringLiteral("sqlite:/srv/maps/map-1.db"));

    QSignalSpy requested(&fixture.recent, &RecentConnections::connectionRequested);
    actions.at(1)->trigger();
    ASSERT_EQ(requested.count(), 1);
    EXPECT_EQ(requested.front().at(0).value<ConnectionSpec>(), sqliteSpec(1));

    actions.at(3)->trigger(); // Clear
    EXPECT_TRUE(fixture.recent.list().isEmpty());
    EXPECT_EQ(menu.actions().size(), 1);
}

// ---- translations ------------------------------------------------------------------------------

// Leaves the application in English for the tests that follow, also when a check fails.
// Back to what widgets_test_main installs (English with its plural forms), so that tests run
// after these in the same process do not see "migration(s)".
struct TranslationGuard {
    ~TranslationGuard() { installTranslations(*QCoreApplication::instance(), QStringLiteral("en")); }
};

TEST(I18n, GermanTranslationIsEmbeddedAndListed)
{
    EXPECT_TRUE(QFile::exists(QStringLiteral(":/i18n/shardmap_de.qm")));
    EXPECT_TRUE(availableLanguages().contains(QStringLiteral("de")));
    EXPECT_TRUE(availableLanguages().contains(QStringLiteral("en")));
}

TEST(I18n, OverrideSwitchesTheDialogBetweenGermanAndEnglish)
{
    TranslationGuard guard;
    ASSERT_EQ(installTranslations(*QCoreApplication::instance(), QStringLiteral("de")), QStringLiteral("de"));
    {
        ConnectDialog dialog(nullptr);
        EXPECT_EQ(dialog.windowTitle(), QStringLiteral("Mit einer Flotte verbinden"));
        EXPECT_EQ(child<QPushButton>(dialog, "sqlitePathBrowse")->text(), QStringLiteral("Durchsuchen…"));
    }
    EXPECT_EQ(RecentConnections::tr("No recent connections"), QStringLiteral("Keine zuletzt verwendeten Verbindungen"));

    EXPECT_EQ(installTranslations(*QCoreApplication::instance(), QStringLiteral("en")), QStringLiteral("en"));
    ConnectDialog dialog(nullptr);
    EXPECT_EQ(dialog.windowTitle(), QStringLiteral("Connect to a Fleet"));
    EXPECT_EQ(installTranslations(*QCoreApplication::instance(), QStringLiteral("fr")), QStringLiteral("en"));
    EXPECT_EQ(ConnectDialog(nullptr).windowTitle(), QStringLiteral("Connect to a Fleet"));
}

TEST(I18n, QtsOwnGermanTranslationLoadsWhenInstalled)
{
    QFile qtbase(QLibraryInfo::path(QLibraryInfo::TranslationsPath) + QStringLiteral("/qtbase_de.qm"));
    if (!qtbase.exists()) {
        GTEST_SKIP() << "qtbase_de.qm is not installed (package qt6-translations-l10n)";
    }
    TranslationGuard guard;
    installTranslations(*QCoreApplication::instance(), QStringLiteral("de"));
    QDialogButtonBox buttons(QDialogButtonBox::Cancel);
    EXPECT_EQ(buttons.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("Abbrechen"));
}

TEST(I18n, LanguageSettingIsTheDefaultOverride)
{
    TranslationGuard guard;
    const QString before = storedLanguage();
    storeLanguage(QStringLiteral("de"));
    EXPECT_EQ(installTranslations(*QCoreApplication::instance()), QStringLiteral("de"));
    EXPECT_EQ(ConnectDialog(nullptr).windowTitle(), QStringLiteral("Mit einer Flotte verbinden"));
    storeLanguage(before);
}

// ---- icons -------------------------------------------------------------------------------------

bool hasVisiblePixels(const QImage& image)
{
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            if (qAlpha(image.pixel(x, y)) > 0) {
                return true;
            }
        }
    }
    return false;
}

TEST(Icons, EveryIconLoadsAndRendersSomething)
{
    for (const IconId id : allIconIds()) {
        SCOPED_TRACE(iconPath(id).toStdString());
        EXPECT_TRUE(QFile::exists(iconPath(id)));
        const QIcon loaded = icon(id);
        ASSERT_FALSE(loaded.isNull());
        for (const int size : { 16, 24, 48 }) {
            const QPixmap pixmap = loaded.pixmap(size, size);
            ASSERT_FALSE(pixmap.isNull());
            EXPECT_EQ(pixmap.size(), QSize(size, size));
            EXPECT_TRUE(hasVisiblePixels(pixmap.toImage()));
        }
    }
}

// ---- theme -------------------------------------------------------------------------------------

// Puts back the palette and the stored choice, so later tests see what they saw before.
struct ThemeGuard {
    QPalette palette = QGuiApplication::palette();
    QVariant stored = QSettings().value(QStringLiteral("ui/theme"));
    ~ThemeGuard()
    {
        QApplication::setPalette(palette);
        if (stored.isValid()) {
            QSettings().setValue(QStringLiteral("ui/theme"), stored);
        } else {
            QSettings().remove(QStringLiteral("ui/theme"));
        }
    }
};

TEST(Theme, DarkAndLightPalettesAreAppliedAndStored)
{
    ThemeGuard guard;
    ThemeManager manager;
    EXPECT_EQ(ThemeManager::instance(), &manager);
    QSignalSpy applied(&manager, &ThemeManager::applied);

    manager.setTheme(Theme::Dark);
    EXPECT_TRUE(manager.isDark());
    EXPECT_LT(QGuiApplication::palette().color(QPalette::Window).lightness(), 80);
    EXPECT_GT(QGuiApplication::palette().color(QPalette::WindowText).lightness(), 180);
    EXPECT_EQ(QSettings().value(QStringLiteral("ui/theme")).toString(), QStringLiteral("dark"));
    EXPECT_EQ(ThemeManager::storedTheme(), Theme::Dark);

    manager.setTheme(Theme::Light);
    EXPECT_FALSE(manager.isDark());
    EXPECT_GT(QGuiApplication::palette().color(QPalette::Window).lightness(), 200);
    EXPECT_LT(QGuiApplication::palette().color(QPalette::WindowText).lightness(), 80);
    EXPECT_EQ(ThemeManager::storedTheme(), Theme::Light);
    EXPECT_EQ(applied.count(), 2);
    EXPECT_EQ(QApplication::style()->name(), QStringLiteral("fusion"));
}

TEST(Theme, SystemFollowsThePlatformPaletteAgain)
{
    ThemeGuard guard;
    const bool platformDark = isDarkPalette(guard.palette);
    ThemeManager manager;
    manager.setTheme(platformDark ? Theme::Light : Theme::Dark);
    ASSERT_NE(manager.isDark(), platformDark);
    manager.setTheme(Theme::System);
    EXPECT_EQ(manager.isDark(), platformDark);
    EXPECT_EQ(isDarkPalette(QGuiApplication::palette()), platformDark);

    // A platform theme change while on System is followed (once, however many windows got it).
    QSignalSpy applied(&manager, &ThemeManager::applied);
    QEvent themeChange(QEvent::ThemeChange);
    QWidget window;
    QCoreApplication::sendEvent(&window, &themeChange);
    QCoreApplication::sendEvent(&window, &themeChange);
    ASSERT_TRUE(waitFor([&] { return applied.count() > 0; }));
    QTest::qWait(20);
    EXPECT_EQ(applied.count(), 1);
    EXPECT_EQ(manager.isDark(), platformDark);
}

double luminance(const QColor& color)
{
    const auto channel
        = [](double value) { return value <= 0.03928 ? value / 12.92 : std::pow((value + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF());
}

double contrast(const QColor& a, const QColor& b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

TEST(Theme, SemanticColoursReadOnBothPalettes)
{
    for (const bool dark : { false, true }) {
        const QPalette palette = dark ? darkPalette() : lightPalette();
        EXPECT_EQ(isDarkPalette(palette), dark);
        for (const auto role :
            { HealthColorRole::Ok, HealthColorRole::Warning, HealthColorRole::Critical, HealthColorRole::Unknown }) {
            EXPECT_GE(contrast(healthColor(role, dark), palette.color(QPalette::Base)), 3.0)
                << "role " << int(role) << " dark " << dark;
        }
        for (int i = 0; i < 8; ++i) {
            EXPECT_GE(contrast(seriesColor(i, dark), palette.color(QPalette::Base)), 3.0)
                << "series " << i << " dark " << dark;
            EXPECT_NE(seriesColor(i, dark), seriesColor(i + 1, dark));
        }
    }
}

TEST(Theme, LineIconsTurnLightOnTheDarkTheme)
{
    ThemeGuard guard;
    ThemeManager manager;
    const auto averageLightness = [](const QImage& image) {
        double sum = 0;
        int count = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                if (qAlpha(image.pixel(x, y)) > 128) {
                    sum += QColor::fromRgba(image.pixel(x, y)).lightness();
                    ++count;
                }
            }
        }
        return count ? sum / count : -1.0;
    };
    const QIcon find = icon(IconId::Find);
    manager.setTheme(Theme::Light);
    const double onLight = averageLightness(find.pixmap(48, 48).toImage());
    manager.setTheme(Theme::Dark);
    const double onDark = averageLightness(find.pixmap(48, 48).toImage());
    EXPECT_LT(onLight, 110);
    EXPECT_GT(onDark, 170);
}

// ---- preferences -------------------------------------------------------------------------------

TEST(Preferences, StoresLanguageAndAppliesTheTheme)
{
    ThemeGuard guard;
    const QString languageBefore = storedLanguage();
    ThemeManager manager;
    manager.setTheme(Theme::Light);
    PreferencesDialog dialog;
    auto* language = child<QComboBox>(dialog, "language");
    auto* theme = child<QComboBox>(dialog, "theme");
    EXPECT_TRUE(child<QLabel>(dialog, "languageNote")->text().contains(QStringLiteral("next start")));
    language->setCurrentIndex(language->findData(QStringLiteral("de")));
    theme->setCurrentIndex(theme->findData(int(Theme::Dark)));
    dialog.accept();
    EXPECT_EQ(storedLanguage(), QStringLiteral("de"));
    EXPECT_EQ(manager.theme(), Theme::Dark);
    EXPECT_TRUE(manager.isDark());
    storeLanguage(languageBefore);
}

} // namespace
} // namespace shardmap::widgets

// RecentConnections' implementation: a QSettings array of specs without passwords, the passwords
// through the keyring wrapper, and the menus kept filled.
#include "widgets/connect/recent_connections.h"

#include "widgets/connect/keyring.h"

#include <QAction>
#include <QMenu>
#include <QSettings>
#include <algorithm>

namespace shardmap::widgets {

namespace {

const auto kDefaultGroup = QStringLiteral("connections/recent");
const auto kDefaultService = QStringLiteral("shardmap");

QString keyringMessage(const keyring::Result& result)
{
    if (result.status == keyring::Status::NoKeyring) {
        return RecentConnections::tr("no system keyring (%1)").arg(result.detail);
    }
    return RecentConnections::tr("the system keyring refused it (%1)").arg(result.detail);
}

} // namespace

RecentConnections::RecentConnections(QObject* parent)
    : RecentConnections(kDefaultGroup, kDefaultService, parent)
{
}

RecentConnections::RecentConnections(const QString& settingsGroup, const QString& keyringService, QObject* parent)
    : QObject(parent)
    , m_group(settingsGroup)
    , m_service(keyringService)
{
}

QList<RecentConnections::Entry> RecentConnections::entries() const
{
    QSettings settings;
    QList<Entry> result;
    const int size = settings.beginReadArray(m_group);
    for (int i = 0; i < size && result.size() < kMaxEntries; ++i) {
        settings.setArrayIndex(i);
        Entry entry;
        entry.spec.storeUri = stripPassword(settings.value(QStringLiteral("storeUri")).toString());
        entry.spec.nodeCaFile = settings.value(QStringLiteral("nodeCaFile")).toString();
        entry.spec.nodeCertFile = settings.value(QStringLiteral("nodeCertFile")).toString();
        entry.spec.nodeKeyFile = settings.value(QStringLiteral("nodeKeyFile")).toString();
        entry.spec.metricsIntervalMs
            = settings.value(QStringLiteral("metricsIntervalMs"), entry.spec.metricsIntervalMs).toInt();
        entry.spec.profileName = settings.value(QStringLiteral("profileName")).toString();
        entry.spec.environment = settings.value(QStringLiteral("environment")).toString();
        entry.spec.colour = settings.value(QStringLiteral("colour")).toString();
        entry.spec.readOnly = settings.value(QStringLiteral("readOnly"), false).toBool();
        entry.spec.controllerAddress = settings.value(QStringLiteral("controllerAddress")).toString();
        entry.spec.controllerCaFile = settings.value(QStringLiteral("controllerCaFile")).toString();
        entry.spec.controllerCertFile = settings.value(QStringLiteral("controllerCertFile")).toString();
        entry.spec.controllerKeyFile = settings.value(QStringLiteral("controllerKeyFile")).toString();
        entry.spec.controllerTokenFile = settings.value(QStringLiteral("controllerTokenFile")).toString();
        entry.hasPassword = settings.value(QStringLiteral("passwordInKeyring"), false).toBool();
        if (!entry.spec.endpoint().isEmpty()) {
            result << entry;
        }
    }
    settings.endArray();
    return result;
}

void RecentConnections::store(const QList<Entry>& entries)
{
    QSettings settings;
    settings.remove(m_group);
    settings.beginWriteArray(m_group, int(entries.size()));
    for (int i = 0; i < entries.size(); ++i) {
        const Entry& entry = entries.at(i);
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("storeUri"), entry.spec.storeUri);
        settings.setValue(QStringLiteral("nodeCaFile"), entry.spec.nodeCaFile);
        settings.setValue(QStringLiteral("nodeCertFile"), entry.spec.nodeCertFile);
        settings.setValue(QStringLiteral("nodeKeyFile"), entry.spec.nodeKeyFile);
        settings.setValue(QStringLiteral("metricsIntervalMs"), entry.spec.metricsIntervalMs);
        settings.setValue(QStringLiteral("profileName"), entry.spec.profileName);
        settings.setValue(QStringLiteral("environment"), entry.spec.environment);
        settings.setValue(QStringLiteral("colour"), entry.spec.colour);
        settings.setValue(QStringLiteral("readOnly"), entry.spec.readOnly);
        // The token file's path, never the token.
        settings.setValue(QStringLiteral("controllerAddress"), entry.spec.controllerAddress);
        settings.setValue(QStringLiteral("controllerCaFile"), entry.spec.controllerCaFile);
        settings.setValue(QStringLiteral("controllerCertFile"), entry.spec.controllerCertFile);
        settings.setValue(QStringLiteral("controllerKeyFile"), entry.spec.controllerKeyFile);
        settings.setValue(QStringLiteral("controllerTokenFile"), entry.spec.controllerTokenFile);
        // Only whether the keyring holds a password, never the password.
        settings.setValue(QStringLiteral("passwordInKeyring"), entry.hasPassword);
    }
    settings.endArray();
    settings.sync();
    Q_EMIT changed();
}

QList<ConnectionSpec> RecentConnections::list() const
{
    QList<ConnectionSpec> result;
    for (const Entry& entry : entries()) {
        result << entry.spec;
    }
    return result;
}

bool RecentConnections::hasSavedPassword(const QString& key) const
{
    const QList<Entry> all = entries();
    return std::any_of(
        all.begin(), all.end(), [&key](const Entry& entry) { return entry.spec.key() == key && entry.hasPassword; });
}

void RecentConnections::remember(const ConnectionSpec& spec)
{
    Entry entry;
    entry.spec = spec;
    // A URI pasted with password=... must not carry it into the settings.
    entry.spec.storeUri = stripPassword(spec.storeUri, entry.spec.password.isEmpty() ? &entry.spec.password : nullptr);
    const QString password = entry.spec.password;
    entry.spec.password.clear();
    if (entry.spec.endpoint().isEmpty()) {
        return;
    }
    const QString key = entry.spec.key();
    QList<Entry> all = entries();
    const bool hadPassword = hasSavedPassword(key);
    all.removeIf([&key](const Entry& old) { return old.spec.key() == key; });
    // Marked only once the keyring confirms (storePassword); keep an earlier mark meanwhile.
    entry.hasPassword = hadPassword && !password.isEmpty();
    all.prepend(entry);
    while (all.size() > kMaxEntries) {
        const Entry dropped = all.takeLast();
        if (dropped.hasPassword) {
            keyring::deleteSecret(m_service, dropped.spec.key(), this, [](const keyring::Result&) {});
        }
    }
    store(all);
    if (!password.isEmpty()) {
        storePassword(key, password);
    } else if (hadPassword) {
        keyring::deleteSecret(m_service, key, this, [](const keyring::Result&) {});
    }
}

void RecentConnections::storePassword(const QString& key, const QString& password)
{
    keyring::writeSecret(m_service, key, password, this, [this, key](const keyring::Result& result) {
        QList<Entry> all = entries();
        const auto found
            = std::find_if(all.begin(), all.end(), [&key](const Entry& entry) { return entry.spec.key() == key; });
        if (result.status != keyring::Status::Ok) {
            if (found != all.end() && found->hasPassword) {
                found->hasPassword = false;
                store(all);
            }
            Q_EMIT passwordNotSaved(key, tr("The password was not saved: %1.").arg(keyringMessage(result)));
            return;
        }
        if (found != all.end() && !found->hasPassword) {
            found->hasPassword = true;
            store(all);
        }
        Q_EMIT passwordSaved(key);
    });
}

void RecentConnections::forget(const QString& key)
{
    QList<Entry> all = entries();
    const bool hadPassword = hasSavedPassword(key);
    if (all.removeIf([&key](const Entry& entry) { return entry.spec.key() == key; }) == 0) {
        return;
    }
    store(all);
    if (hadPassword) {
        keyring::deleteSecret(m_service, key, this, [](const keyring::Result&) {});
    }
}

void RecentConnections::clear()
{
    for (const Entry& entry : entries()) {
        if (entry.hasPassword) {
            keyring::deleteSecret(m_service, entry.spec.key(), this, [](const keyring::Result&) {});
        }
    }
    store({});
}

void RecentConnections::loadPassword(
    const QString& key, QObject* context, std::function<void(QString password, QString error)> done) const
{
    keyring::readSecret(m_service, key, context, [done = std::move(done)](const keyring::Result& result) {
        if (result.status == keyring::Status::Ok) {
            done(result.value, QString());
        } else if (result.status == keyring::Status::NotFound) {
            done(QString(), tr("No password is saved for this connection."));
        } else {
            done(QString(), tr("The password could not be read: %1.").arg(keyringMessage(result)));
        }
    });
}

std::optional<ConnectionSpec> RecentConnections::profile(const QString& name) const
{
    for (const Entry& entry : entries()) {
        if (!name.isEmpty() && entry.spec.profileName == name)
            return entry.spec;
    }
    return std::nullopt;
}

QString RecentConnections::displayName(const ConnectionSpec& spec)
{
    if (!spec.profileName.isEmpty())
        return spec.title();
    if (spec.viaController())
        return spec.controllerAddress;
    const QString uri = stripPassword(spec.storeUri);
    if (spec.isEtcd()) {
        // Endpoints and prefix; the query (user, TLS files) would make menu entries unreadable.
        return uri.section(QLatin1Char('?'), 0, 0);
    }
    return uri;
}

void RecentConnections::bindMenu(QMenu* menu)
{
    fillMenu(menu);
    connect(this, &RecentConnections::changed, menu, [this, menu]() { fillMenu(menu); });
}

void RecentConnections::fillMenu(QMenu* menu)
{
    menu->clear();
    const QList<ConnectionSpec> specs = list();
    if (specs.isEmpty()) {
        menu->addAction(tr("No recent connections"))->setEnabled(false);
        return;
    }
    for (const ConnectionSpec& spec : specs) {
        QAction* action = menu->addAction(displayName(spec));
        action->setToolTip(spec.endpoint());
        connect(action, &QAction::triggered, this, [this, spec]() { Q_EMIT connectionRequested(spec); });
    }
    menu->addSeparator();
    connect(menu->addAction(tr("Clear Recent Connections")), &QAction::triggered, this, &RecentConnections::clear);
}

} // namespace shardmap::widgets

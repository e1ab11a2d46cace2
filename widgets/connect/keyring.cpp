// The keyring wrapper's implementation: QtKeychain jobs when built with it, and a look on D-Bus for a
// secret service to say why there is no keyring.
#include "widgets/connect/keyring.h"

#include <QCoreApplication>
#include <QTimer>
#include <algorithm>
#include <utility>

#if defined(SHARDMAP_HAVE_KEYCHAIN)
#include <qt6keychain/keychain.h>
#endif
#if defined(SHARDMAP_KEYRING_OVER_DBUS)
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#endif

namespace shardmap::widgets::keyring {

namespace {

// Delivers on the next event-loop turn, so callers see the same asynchronous contract as with
// a keyring job.
[[maybe_unused]] void deliverLater(QObject* context, Callback done, Result result)
{
    QTimer::singleShot(0, context, [done = std::move(done), result = std::move(result)]() { done(result); });
}

[[maybe_unused]] Result noKeyring(const char* why)
{
    return Result { Status::NoKeyring, QString(), QCoreApplication::translate("shardmap::widgets::keyring", why) };
}

#if defined(SHARDMAP_HAVE_KEYCHAIN)
Result resultOf(const QKeychain::Job& job)
{
    Result result;
    result.detail = job.errorString();
    switch (job.error()) {
    case QKeychain::NoError: result.status = Status::Ok; break;
    case QKeychain::EntryNotFound: result.status = Status::NotFound; break;
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented: result.status = Status::NoKeyring; break;
    default: result.status = Status::Failed; break;
    }
    if (const auto* read = qobject_cast<const QKeychain::ReadPasswordJob*>(&job); read && !job.error()) {
        result.value = read->textData();
    }
    return result;
}

#if defined(SHARDMAP_KEYRING_OVER_DBUS)
bool namesAKeyring(const QStringList& names)
{
    static const QStringList services { QStringLiteral("org.freedesktop.secrets"), QStringLiteral("org.kde.kwalletd6"),
        QStringLiteral("org.kde.kwalletd5"), QStringLiteral("org.kde.kwalletd") };
    return std::any_of(
        services.begin(), services.end(), [&names](const QString& name) { return names.contains(name); });
}

// Calls a bus daemon method returning names, without waiting; then(names) runs while context lives.
void askBus(const QString& method, QObject* context, std::function<void(const QStringList&)> then)
{
    const QDBusPendingCall call = QDBusConnection::sessionBus().interface()->asyncCall(method);
    auto* watcher = new QDBusPendingCallWatcher(call, context);
    QObject::connect(watcher, &QDBusPendingCallWatcher::finished, context,
        [then = std::move(then)](QDBusPendingCallWatcher* finished) {
            finished->deleteLater();
            const QDBusPendingReply<QStringList> reply = *finished;
            then(reply.isError() ? QStringList() : reply.value());
        });
}

// On a session bus without any keyring service QtKeychain says only OtherError "Unknown error".
// Ask the bus whether a keyring runs or can be started; if neither, it is "no keyring".
void explainFailure(QObject* context, Callback done, Result result)
{
    askBus(QStringLiteral("ListNames"), context, [context, done, result](const QStringList& running) {
        if (namesAKeyring(running)) {
            done(result);
            return;
        }
        askBus(QStringLiteral("ListActivatableNames"), context, [done, result](const QStringList& activatable) {
            if (namesAKeyring(activatable)) {
                done(result);
                return;
            }
            done(noKeyring(QT_TRANSLATE_NOOP("shardmap::widgets::keyring", "no keyring service on the session bus")));
        });
    });
}
#endif

// The job deletes itself after finished(); the connection to context drops if context dies first.
void run(QKeychain::Job* job, const QString& key, QObject* context, Callback done)
{
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    QObject::connect(
        job, &QKeychain::Job::finished, context, [context, done = std::move(done)](QKeychain::Job* finished) {
            Result result = resultOf(*finished);
#if defined(SHARDMAP_KEYRING_OVER_DBUS)
            if (result.status == Status::Failed) {
                explainFailure(context, done, std::move(result));
                return;
            }
#else
            Q_UNUSED(context)
#endif
            done(result);
        });
    job->start();
}
#endif

// Every Linux keyring (Secret Service, KWallet) is reached over the D-Bus session bus. Without
// one QtKeychain reports only "Unknown error"; say what is missing instead, without starting a job.
bool available(QObject* context, const Callback& done)
{
#if !defined(SHARDMAP_HAVE_KEYCHAIN)
    deliverLater(context, done, noKeyring(QT_TRANSLATE_NOOP("shardmap::widgets::keyring", "built without QtKeychain")));
    return false;
#elif defined(SHARDMAP_KEYRING_OVER_DBUS)
    if (!QDBusConnection::sessionBus().isConnected()) {
        deliverLater(context, done, noKeyring(QT_TRANSLATE_NOOP("shardmap::widgets::keyring", "no D-Bus session bus")));
        return false;
    }
    return true;
#else
    Q_UNUSED(context)
    Q_UNUSED(done)
    return true;
#endif
}

} // namespace

bool compiledIn()
{
#if defined(SHARDMAP_HAVE_KEYCHAIN)
    return true;
#else
    return false;
#endif
}

void readSecret(const QString& service, const QString& key, QObject* context, Callback done)
{
    if (!available(context, done)) {
        return;
    }
#if defined(SHARDMAP_HAVE_KEYCHAIN)
    run(new QKeychain::ReadPasswordJob(service), key, context, std::move(done));
#else
    Q_UNUSED(service)
    Q_UNUSED(key)
#endif
}

void writeSecret(const QString& service, const QString& key, const QString& secret, QObject* context, Callback done)
{
    if (!available(context, done)) {
        return;
    }
#if defined(SHARDMAP_HAVE_KEYCHAIN)
    auto* job = new QKeychain::WritePasswordJob(service);
    job->setTextData(secret);
    run(job, key, context, std::move(done));
#else
    Q_UNUSED(service)
    Q_UNUSED(key)
    Q_UNUSED(secret)
#endif
}

void deleteSecret(const QString& service, const QString& key, QObject* context, Callback done)
{
    if (!available(context, done)) {
        return;
    }
#if defined(SHARDMAP_HAVE_KEYCHAIN)
    run(new QKeychain::DeletePasswordJob(service), key, context, std::move(done));
#else
    Q_UNUSED(service)
    Q_UNUSED(key)
#endif
}

} // namespace shardmap::widgets::keyring

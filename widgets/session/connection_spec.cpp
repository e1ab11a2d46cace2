// ConnectionSpec's implementation: the password added to an etcd URI percent-encoded, the
// environments' colours, the title, and a pasted URI's password taken out.
#include "widgets/session/connection_spec.h"

#include <QCoreApplication>
#include <QStringList>
#include <QUrl>

namespace shardmap::widgets {

std::string ConnectionSpec::storeUriWithSecret() const
{
    if (password.isEmpty() || !isEtcd()) {
        return storeUri.toStdString();
    }
    const QString separator = storeUri.contains(QLatin1Char('?')) ? QStringLiteral("&") : QStringLiteral("?");
    const QByteArray encoded = QUrl::toPercentEncoding(password);
    return (storeUri + separator + QStringLiteral("password=") + QString::fromLatin1(encoded)).toStdString();
}

core::NodeClientOptions ConnectionSpec::nodeOptions() const
{
    core::NodeClientOptions options;
    options.caFile = nodeCaFile.toStdString();
    options.certFile = nodeCertFile.toStdString();
    options.keyFile = nodeKeyFile.toStdString();
    return options;
}

QColor ConnectionSpec::environmentColour() const
{
    if (QColor own(colour); !colour.isEmpty() && own.isValid())
        return own;
    const QString env = environment.trimmed().toLower();
    if (env.startsWith(QLatin1String("prod")))
        return QColor(0xc6, 0x28, 0x28);
    if (env.startsWith(QLatin1String("stag")))
        return QColor(0xef, 0x6c, 0x00);
    if (env.startsWith(QLatin1String("dev")))
        return QColor(0x2e, 0x7d, 0x32);
    if (env.startsWith(QLatin1String("test")) || env == QLatin1String("qa"))
        return QColor(0x15, 0x65, 0xc0);
    return {};
}

QString ConnectionSpec::title() const
{
    const QString name
        = profileName.isEmpty() ? stripPassword(endpoint()).section(QLatin1Char('?'), 0, 0) : profileName;
    QStringList tags;
    if (!environment.trimmed().isEmpty())
        tags << environment.trimmed();
    if (readOnly)
        tags << QCoreApplication::translate("shardmap::widgets::ConnectionSpec", "read-only");
    return tags.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, tags.join(QStringLiteral(", ")));
}

QString readOnlyRefusal()
{
    return QCoreApplication::translate("shardmap::widgets::ConnectionSpec",
        "This connection is read-only: nothing can be changed from it. Connect without read-only to act.");
}

QString viewerRefusal()
{
    return QCoreApplication::translate("shardmap::widgets::ConnectionSpec",
        "You are a viewer: nothing can be changed from this connection. An operator or admin can act.");
}

QString stripPassword(const QString& uri, QString* password)
{
    const qsizetype question = uri.indexOf(QLatin1Char('?'));
    if (question < 0) {
        return uri;
    }
    QStringList kept;
    const QStringList items = uri.mid(question + 1).split(QLatin1Char('&'), Qt::SkipEmptyParts);
    for (const QString& item : items) {
        if (item.startsWith(QLatin1String("password="))) {
            if (password) {
                *password = QUrl::fromPercentEncoding(item.mid(9).toUtf8());
            }
            continue;
        }
        kept << item;
    }
    return kept.isEmpty() ? uri.left(question) : uri.left(question + 1) + kept.join(QLatin1Char('&'));
}

} // namespace shardmap::widgets

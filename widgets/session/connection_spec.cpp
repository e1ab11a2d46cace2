#include "widgets/session/connection_spec.h"

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

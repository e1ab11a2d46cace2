#pragma once

// The two conversions every page needs between core's types and Qt's, written once.

#include <QDateTime>
#include <QString>
#include <string>

namespace shardmap::widgets {

// core's UTF-8 text as Qt's.
inline QString qs(const std::string& text)
{
    return QString::fromStdString(text);
}

// The wall clock in milliseconds since the Unix epoch, as Qt counts it.
inline qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace shardmap::widgets

// The file dialogs' start folder: a given folder, else the documents folder, else home.

#include "widgets/style/file_dialogs.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace shardmap::widgets {

QString inDocuments(const QString& fileName)
{
    if (!fileName.isEmpty() && (QFileInfo(fileName).isAbsolute() || fileName.contains(QLatin1Char('/'))))
        return fileName;
    QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (folder.isEmpty())
        folder = QDir::homePath();
    return fileName.isEmpty() ? folder : QDir(folder).filePath(fileName);
}

} // namespace shardmap::widgets

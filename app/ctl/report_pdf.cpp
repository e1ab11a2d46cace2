// The PDF of `shardmapctl report`: the console's renderer (widgets/report) on Qt's offscreen
// platform, so that it needs no display; translated and paper-sized by the locale (LANG).
#include "app/ctl/commands.h"
#include "widgets/report/report_document.h"
#include "widgets/report/report_translations.h"

#include <QGuiApplication>

namespace shardmap::app {

core::Status writeReportPdf(const core::MigrationReport& report, const std::string& path, const std::string& paper)
{
    // A command-line tool never reaches for a display, whatever DISPLAY says.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "shardmapctl";
    static char* argv[] = { name, nullptr };
    QGuiApplication app(argc, argv);
    const QLocale locale = QLocale::system();
    QLocale::setDefault(locale);
    widgets::installReportTranslations(app, locale);
    widgets::ReportFormat format;
    format.locale = locale;
    format.pageSize = QPageSize(paper == "letter" ? QPageSize::Letter
            : paper == "a4"                       ? QPageSize::A4
                                                  : widgets::defaultPageSize(locale));
    const widgets::ReportDocument document(report, format);
    return document.writePdf(QString::fromStdString(path));
}

} // namespace shardmap::app

// The PDF of `shardmapctl report`: the console's renderer (widgets/report) on Qt's offscreen
// platform, so that it needs no display; translated and paper-sized by the locale (LANG).
#include "app/ctl/commands.h"
#include "widgets/report/report_document.h"
#include "widgets/report/report_translations.h"

#include <QGuiApplication>
#include <cstdlib>
#include <filesystem>

namespace shardmap::app {

namespace {

// Qt Gui asks for the runtime directory as it starts and, when XDG_RUNTIME_DIR is unset (cron, su,
// ssh without a session), warns on standard error and makes /tmp/runtime-USER. A private one that
// lives only as long as the rendering keeps a script's standard error clean and leaves nothing.
class RuntimeDirectory {
public:
    RuntimeDirectory()
    {
        if (const char* set = std::getenv("XDG_RUNTIME_DIR"); set && *set)
            return;
        std::string pattern = (std::filesystem::temp_directory_path() / "shardmapctl-runtime-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            return;
        m_path = pattern;
        ::setenv("XDG_RUNTIME_DIR", m_path.c_str(), 1);
    }
    ~RuntimeDirectory()
    {
        if (m_path.empty())
            return;
        ::unsetenv("XDG_RUNTIME_DIR");
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    RuntimeDirectory(const RuntimeDirectory&) = delete;
    RuntimeDirectory& operator=(const RuntimeDirectory&) = delete;

private:
    std::string m_path;
};

} // namespace

core::Status writeReportPdf(const core::MigrationReport& report, const std::string& path, const std::string& paper)
{
    // A command-line tool never reaches for a display, whatever DISPLAY says.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "shardmapctl";
    static char* argv[] = { name, nullptr };
    const RuntimeDirectory runtime;
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

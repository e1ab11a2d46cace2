// ReportExportDialog's implementation: the report read on the pool once, the file written in the
// chosen format (PDF on the report thread), errors shown inline.

#include "widgets/report/report_export_dialog.h"

#include "widgets/report/report_preview_dialog.h"
#include "widgets/report/report_thread.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/style/inline_message.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

QString suffixOf(ReportExportDialog::Format format)
{
    switch (format) {
    case ReportExportDialog::Format::Pdf: return QStringLiteral("pdf");
    case ReportExportDialog::Format::Csv: return QStringLiteral("csv");
    case ReportExportDialog::Format::Json: return QStringLiteral("json");
    }
    return {};
}

std::int64_t nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

ReportExportDialog::ReportExportDialog(
    FleetConnection* connection, core::ReportScope scope, QString scopeText, QWidget* parent)
    : QDialog(parent)
    , m_connection(connection)
    , m_scopeText(std::move(scopeText))
{
    setWindowTitle(tr("Export migration report"));
    buildUi();
    read(std::move(scope));
}

ReportExportDialog::~ReportExportDialog() = default;

void ReportExportDialog::buildUi()
{
    m_summary = new QLabel(tr("Reading the migrations…"), this);
    m_summary->setWordWrap(true);
    m_format = new QComboBox(this);
    m_format->addItem(tr("PDF document"), static_cast<int>(Format::Pdf));
    m_format->addItem(tr("CSV (one row per migration)"), static_cast<int>(Format::Csv));
    m_format->addItem(tr("JSON (docs/REPORTS.md)"), static_cast<int>(Format::Json));
    m_paper = new QComboBox(this);
    m_paper->addItem(tr("A4"), static_cast<int>(QPageSize::A4));
    m_paper->addItem(tr("US Letter"), static_cast<int>(QPageSize::Letter));
    setPageSize(defaultPageSize(QLocale()));
    m_path = new QLineEdit(this);
    m_path->setAccessibleName(tr("File"));
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    m_path->setText(
        QDir(folder).filePath(QStringLiteral("migration-report-%1.pdf")
                                  .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmm")))));
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(m_path, 1);
    fileRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Format:"), m_format);
    form->addRow(tr("Paper:"), m_paper);
    form->addRow(tr("File:"), fileRow);
    m_message = new InlineMessage(this);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_preview = buttons->addButton(tr("Preview…"), QDialogButtonBox::ActionRole);
    m_export = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addStretch(1);
    layout->addWidget(buttons);
    resize(560, sizeHint().height());

    connect(m_format, &QComboBox::currentIndexChanged, this, &ReportExportDialog::formatChanged);
    connect(browse, &QPushButton::clicked, this, &ReportExportDialog::browse);
    connect(m_path, &QLineEdit::textChanged, this, &ReportExportDialog::updateButtons);
    connect(m_preview, &QPushButton::clicked, this, &ReportExportDialog::preview);
    // Export keeps the dialog open: another format of the same report is one click away.
    disconnect(buttons, &QDialogButtonBox::accepted, nullptr, nullptr);
    connect(m_export, &QPushButton::clicked, this, &ReportExportDialog::exportReport);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateButtons();
}

void ReportExportDialog::read(core::ReportScope scope)
{
    auto store = m_connection ? m_connection->store() : nullptr;
    if (!store) {
        m_summary->setText(m_scopeText);
        showMessage(tr("Not connected to a shard map."), true);
        emit loaded(false);
        return;
    }
    m_busy = true;
    updateButtons();
    runInBackground(
        m_connection->pool(), this,
        [store, scope = std::move(scope)] { return core::readReport(*store, scope, nowMs()); },
        [this](core::Result<core::MigrationReport> report) {
            m_busy = false;
            if (!report) {
                m_summary->setText(m_scopeText);
                showMessage(
                    tr("The report cannot be read: %1").arg(QString::fromStdString(report.error().message)), true);
                updateButtons();
                emit loaded(false);
                return;
            }
            m_report = std::make_shared<const core::MigrationReport>(std::move(*report));
            m_summary->setText(tr("%1: %n migration(s), as of %2.", nullptr, static_cast<int>(m_report->rows.size()))
                                   .arg(m_scopeText,
                                       QDateTime::fromMSecsSinceEpoch(m_report->generatedUnixMs)
                                           .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
            updateButtons();
            emit loaded(true);
        });
}

ReportExportDialog::Format ReportExportDialog::format() const
{
    return static_cast<Format>(m_format->currentData().toInt());
}

void ReportExportDialog::setFormat(Format format)
{
    m_format->setCurrentIndex(m_format->findData(static_cast<int>(format)));
}

QString ReportExportDialog::path() const
{
    return m_path->text().trimmed();
}

void ReportExportDialog::setPath(const QString& path)
{
    m_path->setText(path);
}

QPageSize::PageSizeId ReportExportDialog::pageSize() const
{
    return static_cast<QPageSize::PageSizeId>(m_paper->currentData().toInt());
}

void ReportExportDialog::setPageSize(QPageSize::PageSizeId pageSize)
{
    m_paper->setCurrentIndex(std::max(0, m_paper->findData(static_cast<int>(pageSize))));
}

QString ReportExportDialog::messageText() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

void ReportExportDialog::formatChanged()
{
    // The file follows the format's suffix; the paper only matters for PDF.
    const QFileInfo file(path());
    if (!path().isEmpty())
        m_path->setText(QDir(file.path()).filePath(file.completeBaseName() + QLatin1Char('.') + suffixOf(format())));
    updateButtons();
}

void ReportExportDialog::browse()
{
    const QString filter = format() == Format::Pdf ? tr("PDF (*.pdf)")
        : format() == Format::Csv                  ? tr("CSV (*.csv)")
                                                   : tr("JSON (*.json)");
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export the report to"), path(), filter);
    if (!chosen.isEmpty())
        m_path->setText(chosen);
}

void ReportExportDialog::updateButtons()
{
    const bool ready = m_report && !m_busy;
    m_paper->setEnabled(format() == Format::Pdf);
    m_preview->setEnabled(ready && format() == Format::Pdf);
    m_export->setEnabled(ready && !path().isEmpty());
}

void ReportExportDialog::showMessage(const QString& text, bool error)
{
    m_messageIsError = error;
    m_message->show(text, error ? InlineMessage::Kind::Error : InlineMessage::Kind::Success);
}

ReportFormat ReportExportDialog::reportFormat() const
{
    ReportFormat format;
    format.pageSize = QPageSize(pageSize());
    format.locale = QLocale();
    format.scopeText = m_scopeText;
    return format;
}

ReportPreviewDialog* ReportExportDialog::preview()
{
    if (!m_report)
        return nullptr;
    auto* dialog = new ReportPreviewDialog(m_report, reportFormat(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void ReportExportDialog::exportReport()
{
    if (!m_report || m_busy || path().isEmpty())
        return;
    m_busy = true;
    updateButtons();
    const QString target = path();
    showMessage(tr("Writing %1…").arg(target), false);
    const auto done = [this, target, count = m_report->rows.size()](core::Status status) {
        m_busy = false;
        updateButtons();
        const QString message = status
            ? tr("Wrote the report of %n migration(s) to %1.", nullptr, static_cast<int>(count)).arg(target)
            : tr("The report was not written: %1").arg(QString::fromStdString(status.error().message));
        showMessage(message, !status);
        emit exported(static_cast<bool>(status), message);
    };
    if (format() == Format::Pdf) {
        runInBackground(
            reportThread(), this,
            [report = m_report, format = reportFormat(), target] {
                const ReportDocument document(*report, format);
                return document.writePdf(target);
            },
            done);
        return;
    }
    runInBackground(
        m_connection->pool(), this,
        [report = m_report, suffix = suffixOf(format()).toStdString(), file = target.toStdString()] {
            return core::writeReportFile(*report, suffix, file);
        },
        done);
}

} // namespace shardmap::widgets

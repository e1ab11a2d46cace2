// ReportPreviewDialog's implementation: pages painted as images on the report thread at the
// width shown, printing and saving there too, the dialog showing what arrives.

#include "widgets/report/report_preview_dialog.h"

#include "widgets/report/report_thread.h"
#include "widgets/style/inline_message.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPrintDialog>
#include <QPrinter>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>

namespace shardmap::widgets {

// The document, touched only by tasks on the report thread (built, painted, printed and destroyed
// there); the dialog only holds it.
struct ReportPreviewDialog::Shared {
    std::unique_ptr<ReportDocument> document;
};

ReportPreviewDialog::ReportPreviewDialog(
    std::shared_ptr<const core::MigrationReport> report, const ReportFormat& format, QWidget* parent)
    : QDialog(parent)
    , m_shared(std::make_shared<Shared>())
    , m_format(format)
{
    setWindowTitle(tr("Report preview"));
    buildUi();
    setStatus(tr("Laying out the report of %n migration(s)…", nullptr, static_cast<int>(report->rows.size())));
    runInBackground(
        reportThread(), this,
        [shared = m_shared, report = std::move(report), format] {
            shared->document = std::make_unique<ReportDocument>(*report, format);
            return shared->document->pageCount();
        },
        [this](int pages) {
            m_pageCount = pages;
            m_pageBox->setRange(1, std::max(pages, 1));
            m_ofPages->setText(tr("of %1").arg(pages));
            m_print->setEnabled(true);
            m_save->setEnabled(true);
            setStatus(tr("%n page(s).", nullptr, pages));
            emit laidOut(pages);
            showPage(0);
        });
}

ReportPreviewDialog::~ReportPreviewDialog()
{
    // After whatever is queued for this document, on the thread that built it.
    reportThread().start([shared = std::move(m_shared)] { shared->document.reset(); });
}

void ReportPreviewDialog::buildUi()
{
    QHBoxLayout* bar = buildPageBar();
    m_image = new QLabel(this);
    m_image->setAlignment(Qt::AlignCenter);
    m_image->setAccessibleName(tr("Report page"));
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_image);
    m_scroll->setWidgetResizable(true);
    m_scroll->setBackgroundRole(QPalette::Dark);
    m_status = new InlineMessage(this);
    m_status->setObjectName(QStringLiteral("reportStatus"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(860, 900);
    connectPageBar();
    followResizes();
}

// Previous and next, the page number, the zoom, print and save.
QHBoxLayout* ReportPreviewDialog::buildPageBar()
{
    auto* bar = new QHBoxLayout;
    m_previous = new QPushButton(tr("Previous"), this);
    m_next = new QPushButton(tr("Next"), this);
    m_pageBox = new QSpinBox(this);
    m_pageBox->setRange(1, 1);
    m_pageBox->setAccessibleName(tr("Page"));
    m_ofPages = new QLabel(this);
    m_zoom = new QComboBox(this);
    m_zoom->setAccessibleName(tr("Zoom"));
    m_zoom->addItem(tr("Fit width"), 0);
    for (const int percent : { 50, 75, 100, 150, 200 })
        m_zoom->addItem(tr("%1 %").arg(percent), percent);
    m_print = new QPushButton(tr("Print…"), this);
    m_save = new QPushButton(tr("Save as PDF…"), this);
    m_print->setEnabled(false);
    m_save->setEnabled(false);
    bar->addWidget(m_previous);
    bar->addWidget(m_next);
    bar->addWidget(m_pageBox);
    bar->addWidget(m_ofPages);
    bar->addSpacing(12);
    bar->addWidget(m_zoom);
    bar->addStretch(1);
    bar->addWidget(m_print);
    bar->addWidget(m_save);
    return bar;
}

void ReportPreviewDialog::connectPageBar()
{
    connect(m_previous, &QPushButton::clicked, this, [this] { showPage(m_page - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { showPage(m_page + 1); });
    connect(m_pageBox, &QSpinBox::valueChanged, this, [this](int value) { showPage(value - 1); });
    connect(m_zoom, &QComboBox::currentIndexChanged, this, [this] { requestPage(); });
    connect(m_print, &QPushButton::clicked, this, &ReportPreviewDialog::choosePrinter);
    connect(m_save, &QPushButton::clicked, this, &ReportPreviewDialog::chooseFile);
}

// A resized window shows the page again at its new width, once the resizing settles.
void ReportPreviewDialog::followResizes()
{
    auto* resized = new QTimer(this);
    resized->setSingleShot(true);
    resized->setInterval(150);
    connect(resized, &QTimer::timeout, this, [this] {
        if (m_zoom->currentData().toInt() == 0)
            requestPage();
    });
    m_scroll->viewport()->installEventFilter(this);
    m_resized = resized;
}

bool ReportPreviewDialog::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize && m_pageCount > 0)
        m_resized->start();
    return QDialog::eventFilter(watched, event);
}

QPixmap ReportPreviewDialog::shownPage() const
{
    return m_image->pixmap();
}

QString ReportPreviewDialog::statusText() const
{
    return m_status->text();
}

void ReportPreviewDialog::setStatus(const QString& text, bool error)
{
    m_status->show(text, error ? InlineMessage::Kind::Error : InlineMessage::Kind::Info);
}

int ReportPreviewDialog::pageWidth() const
{
    const int percent = m_zoom->currentData().toInt();
    if (percent == 0)
        return std::max(200, m_scroll->viewport()->width() - 24);
    const qreal inches = m_format.pageSize.sizePoints().width() / 72.0;
    return qRound(inches * logicalDpiX() * percent / 100.0);
}

void ReportPreviewDialog::showPage(int page)
{
    if (m_pageCount == 0)
        return;
    page = std::clamp(page, 0, m_pageCount - 1);
    m_page = page;
    m_previous->setEnabled(page > 0);
    m_next->setEnabled(page + 1 < m_pageCount);
    if (m_pageBox->value() != page + 1) {
        const QSignalBlocker blocker(m_pageBox);
        m_pageBox->setValue(page + 1);
    }
    requestPage();
}

void ReportPreviewDialog::requestPage()
{
    if (m_pageCount == 0)
        return;
    const std::uint64_t ticket = m_pages.next();
    const int page = m_page;
    const qreal ratio = devicePixelRatioF();
    const int width = qRound(pageWidth() * ratio);
    runInBackground(
        reportThread(), this,
        [shared = m_shared, page, width] {
            return shared->document ? shared->document->pageImage(page, width) : QImage();
        },
        [this, ticket, page, ratio](QImage image) {
            if (!m_pages.isCurrent(ticket))
                return;
            QPixmap pixmap = QPixmap::fromImage(std::move(image));
            pixmap.setDevicePixelRatio(ratio);
            m_image->setPixmap(pixmap);
            emit pageShown(page);
        });
}

void ReportPreviewDialog::choosePrinter()
{
    auto printer = std::make_shared<QPrinter>(QPrinter::HighResolution);
    printer->setPageSize(m_format.pageSize);
    printer->setDocName(windowTitle());
    auto* dialog = new QPrintDialog(printer.get(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, printer] { printTo(printer); });
    dialog->open();
}

void ReportPreviewDialog::printTo(std::shared_ptr<QPrinter> printer)
{
    printer->setResolution(ReportDocument::kResolution);
    printer->setFullPage(true);
    m_print->setEnabled(false);
    setStatus(tr("Printing…"));
    runInBackground(
        reportThread(), this,
        [shared = m_shared, printer] {
            return shared->document ? shared->document->print(*printer)
                                    : core::Status(core::makeError(core::ErrorCode::Unavailable, "no report"));
        },
        [this](core::Status status) {
            m_print->setEnabled(true);
            const QString message = status
                ? tr("Sent %n page(s) to the printer.", nullptr, m_pageCount)
                : tr("Printing failed: %1").arg(QString::fromStdString(status.error().message));
            setStatus(message, !status);
            emit printed(static_cast<bool>(status), message);
        });
}

void ReportPreviewDialog::chooseFile()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString suggested
        = QDir(folder).filePath(QStringLiteral("migration-report-%1.pdf")
                                    .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmm"))));
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the report as PDF"), suggested, tr("PDF (*.pdf)"));
    if (!path.isEmpty())
        savePdf(path);
}

void ReportPreviewDialog::savePdf(const QString& path)
{
    m_save->setEnabled(false);
    setStatus(tr("Writing %1…").arg(path));
    runInBackground(
        reportThread(), this,
        [shared = m_shared, path] {
            return shared->document ? shared->document->writePdf(path)
                                    : core::Status(core::makeError(core::ErrorCode::Unavailable, "no report"));
        },
        [this, path](core::Status status) {
            m_save->setEnabled(true);
            const QString message = status
                ? tr("Saved %1.").arg(path)
                : tr("Saving failed: %1").arg(QString::fromStdString(status.error().message));
            setStatus(message, !status);
            emit printed(static_cast<bool>(status), message);
        });
}

} // namespace shardmap::widgets

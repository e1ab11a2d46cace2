#pragma once

// The report's print preview dialog, its pages painted on the report thread.

#include "core/report/migration_report.h"
#include "widgets/bridge/background.h"
#include "widgets/report/report_document.h"

#include <QDialog>
#include <memory>

QT_BEGIN_NAMESPACE
class QComboBox;
class QHBoxLayout;
class QLabel;
class QPrinter;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QTimer;
QT_END_NAMESPACE

namespace shardmap::widgets {

class InlineMessage;

// The print preview of a migration report: its pages one at a time (previous/next, page number,
// zoom), then Print… (the system's print dialog) or Save as PDF…. The report is laid out, its
// pages painted and printed on the report thread (widgets/report/report_thread.h); the window
// shows what has arrived and stays responsive however long the report.
class ReportPreviewDialog : public QDialog {
    Q_OBJECT
public:
    ReportPreviewDialog(
        std::shared_ptr<const core::MigrationReport> report, const ReportFormat& format, QWidget* parent = nullptr);
    ~ReportPreviewDialog() override;

    // 0 until the report is laid out.
    int pageCount() const { return m_pageCount; }
    int currentPage() const { return m_page; }
    // The page shown (null until it arrived).
    QPixmap shownPage() const;
    QString statusText() const;

public slots:
    void showPage(int page);
    // Paints every page on the printer (set up by the caller or the print dialog) on the report
    // thread; printed() reports the outcome.
    void printTo(std::shared_ptr<QPrinter> printer);
    void savePdf(const QString& path);

signals:
    void laidOut(int pages);
    void pageShown(int page);
    void printed(bool ok, const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Shared;

    void buildUi();
    QHBoxLayout* buildPageBar();
    void connectPageBar();
    void followResizes();
    void requestPage();
    void choosePrinter();
    void chooseFile();
    void setStatus(const QString& text, bool error = false);
    int pageWidth() const;

    std::shared_ptr<Shared> m_shared;
    ReportFormat m_format;
    Generation m_pages;
    int m_pageCount = 0;
    int m_page = 0;
    QLabel* m_image = nullptr;
    QScrollArea* m_scroll = nullptr;
    InlineMessage* m_status = nullptr;
    QSpinBox* m_pageBox = nullptr;
    QLabel* m_ofPages = nullptr;
    QComboBox* m_zoom = nullptr;
    QPushButton* m_previous = nullptr;
    QPushButton* m_next = nullptr;
    QPushButton* m_print = nullptr;
    QPushButton* m_save = nullptr;
    QTimer* m_resized = nullptr;
};

} // namespace shardmap::widgets

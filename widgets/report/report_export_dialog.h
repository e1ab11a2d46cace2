#pragma once

// The "Export report" dialog: a scope's migration report as PDF, CSV or JSON, with a preview.

#include "core/report/migration_report.h"
#include "widgets/bridge/background.h"
#include "widgets/report/report_document.h"

#include <QDialog>
#include <memory>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
QT_END_NAMESPACE

namespace shardmap::widgets {

class InlineMessage;

class FleetConnection;
class ReportPreviewDialog;

// "Export report…": the report of a scope (the migrations page's selection or filter, an
// operation) as PDF, CSV or JSON, with a print preview. The report is read from the store once,
// when the dialog opens, so that the preview and every file exported from it agree; reading runs
// on the connection's pool, PDF layout on the report thread (report_thread.h), and a failure
// (no store, unknown ids, a file that cannot be written) is shown inline.
class ReportExportDialog : public QDialog {
    Q_OBJECT
public:
    enum class Format { Pdf, Csv, Json };
    Q_ENUM(Format)

    // scopeText says in words how the scope was chosen (the PDF's subtitle).
    ReportExportDialog(
        FleetConnection* connection, core::ReportScope scope, QString scopeText, QWidget* parent = nullptr);
    ~ReportExportDialog() override;

    bool isLoaded() const { return m_report != nullptr; }
    std::shared_ptr<const core::MigrationReport> report() const { return m_report; }
    Format format() const;
    void setFormat(Format format);
    QString path() const;
    void setPath(const QString& path);
    QPageSize::PageSizeId pageSize() const;
    void setPageSize(QPageSize::PageSizeId pageSize);
    QString messageText() const;
    bool messageIsError() const { return m_messageIsError; }

public slots:
    void exportReport();
    // Opens the print preview (PDF) of the report read; returns it (nullptr before the report).
    ReportPreviewDialog* preview();

signals:
    void loaded(bool ok);
    void exported(bool ok, const QString& message);

private:
    void buildUi();
    void read(core::ReportScope scope);
    void browse();
    void formatChanged();
    void showMessage(const QString& text, bool error);
    void updateButtons();
    ReportFormat reportFormat() const;

    FleetConnection* m_connection;
    QString m_scopeText;
    std::shared_ptr<const core::MigrationReport> m_report;
    bool m_busy = false;
    bool m_messageIsError = false;
    QLabel* m_summary = nullptr;
    QComboBox* m_format = nullptr;
    QComboBox* m_paper = nullptr;
    QLineEdit* m_path = nullptr;
    InlineMessage* m_message = nullptr;
    QPushButton* m_preview = nullptr;
    QPushButton* m_export = nullptr;
};

} // namespace shardmap::widgets

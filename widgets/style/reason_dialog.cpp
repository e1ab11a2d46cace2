// The confirm-with-a-reason dialog every page that changes the fleet asks with.
#include "widgets/style/reason_dialog.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace shardmap::widgets {

bool askChangeReason(QWidget* parent, const QString& title, const QString& question, QString* reason)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(title);
    auto* form = new QFormLayout(&dialog);
    auto* text = new QLabel(question, &dialog);
    text->setWordWrap(true);
    form->addRow(text);
    auto* reasonEdit = new QLineEdit(&dialog);
    reasonEdit->setPlaceholderText(
        QCoreApplication::translate("shardmap::widgets::ReasonDialog", "Why (recorded in the audit log)"));
    form->addRow(QCoreApplication::translate("shardmap::widgets::ReasonDialog", "Reason:"), reasonEdit);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    QObject::connect(reasonEdit, &QLineEdit::textChanged, buttons, [buttons](const QString& value) {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(!value.trimmed().isEmpty());
    });
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    *reason = reasonEdit->text().trimmed();
    return true;
}

} // namespace shardmap::widgets

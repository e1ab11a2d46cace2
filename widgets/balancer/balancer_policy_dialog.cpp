// BalancerPolicyDialog's implementation: the JSON editor, core's check on every edit, the reason.
#include "widgets/balancer/balancer_policy_dialog.h"

#include "widgets/style/conversions.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

namespace shardmap::widgets {

BalancerPolicyDialog::BalancerPolicyDialog(
    const core::BalancerPolicy& current, std::uint32_t executorMaxConcurrent, QWidget* parent)
    : QDialog(parent)
    , m_executorMaxConcurrent(executorMaxConcurrent)
{
    setWindowTitle(tr("Change the balancer's policy"));
    auto* layout = new QVBoxLayout(this);
    m_editor = new QPlainTextEdit(this);
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlainText(qs(nlohmann::json::parse(core::encode(current)).dump(2)));
    m_editor->setAccessibleName(tr("Policy"));
    m_check = new QLabel(this);
    m_check->setWordWrap(true);
    m_reason = new QLineEdit(this);
    m_reason->setPlaceholderText(tr("Why (recorded in the audit log)"));
    auto* form = new QFormLayout;
    form->addRow(tr("&Reason:"), m_reason);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_save = buttons->addButton(tr("&Save"), QDialogButtonBox::AcceptRole);
    layout->addWidget(m_editor);
    layout->addWidget(m_check);
    layout->addLayout(form);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &BalancerPolicyDialog::check);
    connect(m_reason, &QLineEdit::textChanged, this, &BalancerPolicyDialog::check);
    resize(560, 520);
    check();
}

QString BalancerPolicyDialog::reason() const
{
    return m_reason->text().trimmed();
}

void BalancerPolicyDialog::check()
{
    auto decoded = core::decodeBalancerPolicy(m_editor->toPlainText().toStdString());
    core::Status valid
        = decoded ? core::validateBalancerPolicy(*decoded, m_executorMaxConcurrent) : core::Status(decoded.error());
    if (valid) {
        m_policy = *decoded;
        m_check->setText(tr("A valid policy: mode %1.").arg(QLatin1String(core::balancerModeName(decoded->mode))));
    } else {
        m_policy.reset();
        m_check->setText(tr("Not a valid policy: %1").arg(qs(valid.error().message)));
    }
    m_save->setEnabled(m_policy.has_value() && !reason().isEmpty());
}

} // namespace shardmap::widgets

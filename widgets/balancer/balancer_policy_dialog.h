#pragma once

// The Balancer page's "Change policy…" dialog (issue 33): the policy as its JSON (the form
// docs/BALANCER.md describes), checked as it is typed by core's one check
// (validateBalancerPolicy, against the executor's max_concurrent of the map the console holds),
// so that the dialog, shardmapctl and shardmapd refuse the same policies with the same words.

#include "core/balancer/balancer_policy.h"

#include <QDialog>
#include <optional>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace shardmap::widgets {

// Save stays disabled while the text is not a valid policy or no reason is typed; the label under
// the text says what is wrong (the field and why) or what the policy does in one line.
class BalancerPolicyDialog : public QDialog {
    Q_OBJECT
public:
    BalancerPolicyDialog(
        const core::BalancerPolicy& current, std::uint32_t executorMaxConcurrent, QWidget* parent = nullptr);

    QPlainTextEdit* editor() const { return m_editor; }
    QLineEdit* reasonEdit() const { return m_reason; }
    QLabel* checkLabel() const { return m_check; }
    QPushButton* saveButton() const { return m_save; }

    // The policy as typed, once it is valid.
    std::optional<core::BalancerPolicy> policy() const { return m_policy; }
    QString reason() const;

private:
    void check();

    std::uint32_t m_executorMaxConcurrent;
    std::optional<core::BalancerPolicy> m_policy;
    QPlainTextEdit* m_editor = nullptr;
    QLineEdit* m_reason = nullptr;
    QLabel* m_check = nullptr;
    QPushButton* m_save = nullptr;
};

} // namespace shardmap::widgets

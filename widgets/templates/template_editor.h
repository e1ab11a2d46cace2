#pragma once

// The index template editor (issue 31): a template's next version, checked as it is typed.

#include "core/util/index_settings.h"
#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QDialog>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace shardmap::widgets {

class InlineMessage;

// Fields (name, indexed or stored only, weight) with add and remove, the tokenizer and its
// options, the prefix lengths, a description and the reason for the audit. Every edit is checked
// by core::validateIndexSettings (its sentences shown, Create disabled while any holds) and
// compared with the template it starts from by core::diffIndexSettings (a removed field says
// what becomes of its values, and the spaces that hold documents in it are named). Create submits create-template
// through the connection; the store's or shardmapd's refusal is shown and the dialog stays open.
class TemplateEditor : public QDialog {
    Q_OBJECT
public:
    // name: the template's (fixed), or empty for a new one to name; base: the settings it starts
    // from, and what the changes are listed against.
    TemplateEditor(
        FleetConnection* connection, const QString& name, const core::IndexSettings& base, QWidget* parent = nullptr);

    // What the form says now (nullopt when a weight or a prefix is not a number).
    std::optional<core::IndexSettings> settings() const;
    QString problemsText() const;
    QString changesText() const;
    // Which spaces hold documents in the fields this version drops (core/fleet/field_usage.h),
    // asked of the nodes off the UI thread whenever the dropped fields change; empty when none.
    QString fieldsInUseText() const;
    bool canCreate() const;

    // For tests and keyboard users alike: the form's parts.
    QLineEdit* nameEdit() const { return m_name; }
    QTableWidget* fieldsTable() const { return m_fields; }
    QComboBox* tokenizerBox() const { return m_tokenizer; }
    QLineEdit* prefixesEdit() const { return m_prefixes; }
    QLineEdit* reasonEdit() const { return m_reason; }
    void addField(const QString& name, bool indexed, double weight);
    void create();

signals:
    // The version made ("NAME:VERSION"), after the change was made.
    void created(const QString& templateLabel);
    // The nodes answered which spaces hold documents in the dropped fields (tests wait on it).
    void fieldsInUseChecked();

private:
    QWidget* buildFieldsBox();
    QWidget* buildTokenizerBox();
    void check();
    void checkFieldsInUse(const std::vector<std::string>& removed);

    FleetConnection* m_connection;
    core::IndexSettings m_base;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_description = nullptr;
    QTableWidget* m_fields = nullptr;
    QComboBox* m_tokenizer = nullptr;
    QSpinBox* m_diacritics = nullptr;
    QLineEdit* m_tokenChars = nullptr;
    QCheckBox* m_caseSensitive = nullptr;
    QLineEdit* m_prefixes = nullptr;
    QLineEdit* m_reason = nullptr;
    QLabel* m_problems = nullptr;
    QLabel* m_changes = nullptr;
    QLabel* m_inUse = nullptr;
    std::vector<std::string> m_askedRemoved;
    Generation m_inUseGeneration;
    QPushButton* m_create = nullptr;
    InlineMessage* m_message = nullptr;
    bool m_submitting = false;
};

} // namespace shardmap::widgets

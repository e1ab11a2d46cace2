// TemplateEditor's implementation: the form, its check on every edit, and the create-template
// change submitted through the connection.
#include "widgets/templates/template_editor.h"

#include "core/fleet/field_usage.h"
#include "core/map/index_templates.h"
#include "widgets/style/conversions.h"
#include "widgets/style/inline_message.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

enum FieldColumn { NameColumn, IndexedColumn, WeightColumn };

QString prefixText(const std::vector<std::uint32_t>& prefixes)
{
    QStringList parts;
    for (std::uint32_t length : prefixes)
        parts << QString::number(length);
    return parts.join(QStringLiteral(", "));
}

} // namespace

TemplateEditor::TemplateEditor(
    FleetConnection* connection, const QString& name, const core::IndexSettings& base, QWidget* parent)
    : QDialog(parent)
    , m_connection(connection)
    , m_base(base)
{
    setWindowTitle(name.isEmpty() ? tr("New index template") : tr("New version of template %1").arg(name));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_name = new QLineEdit(name, this);
    m_name->setReadOnly(!name.isEmpty());
    m_description = new QLineEdit(this);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Description:"), m_description);
    layout->addLayout(form);
    layout->addWidget(buildFieldsBox());
    layout->addWidget(buildTokenizerBox());
    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    m_changes = new QLabel(this);
    m_changes->setWordWrap(true);
    m_inUse = new QLabel(this);
    m_inUse->setWordWrap(true);
    m_inUse->setVisible(false);
    m_message = new InlineMessage(this);
    auto* reasonForm = new QFormLayout;
    m_reason = new QLineEdit(this);
    reasonForm->addRow(tr("&Reason (for the audit):"), m_reason);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_create = buttons->addButton(tr("&Create"), QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_create, &QPushButton::clicked, this, &TemplateEditor::create);
    for (QWidget* widget : std::initializer_list<QWidget*> { m_problems, m_changes, m_inUse, m_message })
        layout->addWidget(widget);
    layout->addLayout(reasonForm);
    layout->addWidget(buttons);
    for (const core::IndexField& field : base.fields)
        addField(qs(field.name), field.indexed, field.weight);
    connect(m_name, &QLineEdit::textChanged, this, &TemplateEditor::check);
    connect(m_reason, &QLineEdit::textChanged, this, &TemplateEditor::check);
    check();
}

QWidget* TemplateEditor::buildFieldsBox()
{
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    m_fields = new QTableWidget(0, 3, box);
    m_fields->setHorizontalHeaderLabels({ tr("Field"), tr("Indexed"), tr("Weight") });
    m_fields->horizontalHeader()->setStretchLastSection(true);
    m_fields->verticalHeader()->hide();
    connect(m_fields, &QTableWidget::itemChanged, this, &TemplateEditor::check);
    auto* row = new QHBoxLayout;
    auto* add = new QPushButton(tr("&Add field"), box);
    auto* remove = new QPushButton(tr("Remo&ve field"), box);
    connect(add, &QPushButton::clicked, this, [this] { addField(QStringLiteral("field"), true, 1.0); });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_fields->currentRow() >= 0)
            m_fields->removeRow(m_fields->currentRow());
        check();
    });
    row->addWidget(add);
    row->addWidget(remove);
    row->addStretch();
    layout->addWidget(m_fields);
    layout->addLayout(row);
    return box;
}

QWidget* TemplateEditor::buildTokenizerBox()
{
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    m_tokenizer = new QComboBox(box);
    for (core::Tokenizer t : { core::Tokenizer::Unicode61, core::Tokenizer::Porter, core::Tokenizer::Trigram })
        m_tokenizer->addItem(QString::fromLatin1(core::tokenizerName(t)), static_cast<int>(t));
    m_tokenizer->setCurrentIndex(m_tokenizer->findData(static_cast<int>(m_base.tokenizer)));
    m_diacritics = new QSpinBox(box);
    m_diacritics->setRange(0, 2);
    m_diacritics->setValue(m_base.removeDiacritics);
    m_tokenChars = new QLineEdit(qs(m_base.tokenChars), box);
    m_caseSensitive = new QCheckBox(tr("Case counts (trigram)"), box);
    m_caseSensitive->setChecked(m_base.caseSensitive);
    m_prefixes = new QLineEdit(prefixText(m_base.prefixes), box);
    m_prefixes->setPlaceholderText(tr("e.g. 2, 3 (empty: none)"));
    form->addRow(tr("&Tokenizer:"), m_tokenizer);
    form->addRow(tr("Remove diacr&itics:"), m_diacritics);
    form->addRow(tr("Toke&n characters:"), m_tokenChars);
    form->addRow(QString(), m_caseSensitive);
    form->addRow(tr("&Prefix indexes:"), m_prefixes);
    connect(m_tokenizer, &QComboBox::currentIndexChanged, this, &TemplateEditor::check);
    connect(m_diacritics, &QSpinBox::valueChanged, this, &TemplateEditor::check);
    connect(m_caseSensitive, &QCheckBox::toggled, this, &TemplateEditor::check);
    for (QLineEdit* edit : { m_tokenChars, m_prefixes })
        connect(edit, &QLineEdit::textChanged, this, &TemplateEditor::check);
    return box;
}

void TemplateEditor::addField(const QString& name, bool indexed, double weight)
{
    const QSignalBlocker block(m_fields);
    const int row = m_fields->rowCount();
    m_fields->insertRow(row);
    m_fields->setItem(row, NameColumn, new QTableWidgetItem(name));
    auto* check = new QTableWidgetItem;
    check->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    check->setCheckState(indexed ? Qt::Checked : Qt::Unchecked);
    m_fields->setItem(row, IndexedColumn, check);
    m_fields->setItem(row, WeightColumn, new QTableWidgetItem(QString::number(weight)));
    this->check();
}

std::optional<core::IndexSettings> TemplateEditor::settings() const
{
    core::IndexSettings out;
    for (int row = 0; row < m_fields->rowCount(); ++row) {
        bool number = false;
        const double weight = m_fields->item(row, WeightColumn)->text().toDouble(&number);
        if (!number)
            return std::nullopt;
        const bool indexed = m_fields->item(row, IndexedColumn)->checkState() == Qt::Checked;
        out.fields.push_back(
            { m_fields->item(row, NameColumn)->text().trimmed().toStdString(), indexed, indexed ? weight : 1.0 });
    }
    out.tokenizer = static_cast<core::Tokenizer>(m_tokenizer->currentData().toInt());
    const bool trigram = out.tokenizer == core::Tokenizer::Trigram;
    out.removeDiacritics = trigram ? 2 : m_diacritics->value();
    out.tokenChars = trigram ? std::string() : m_tokenChars->text().toStdString();
    out.caseSensitive = trigram && m_caseSensitive->isChecked();
    for (const QString& part : m_prefixes->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool number = false;
        const uint length = part.trimmed().toUInt(&number);
        if (!number)
            return std::nullopt;
        out.prefixes.push_back(length);
    }
    return out;
}

QString TemplateEditor::problemsText() const
{
    return m_problems->text();
}

QString TemplateEditor::changesText() const
{
    return m_changes->text();
}

bool TemplateEditor::canCreate() const
{
    return m_create->isEnabled();
}

// Every edit: the settings checked (each sentence shown) and compared with the base.
void TemplateEditor::check()
{
    const auto current = settings();
    QStringList problems;
    if (!current)
        problems << tr("A weight or a prefix length is not a number.");
    else if (auto valid = core::validateIndexSettings(*current); !valid)
        problems << qs(valid.error().message);
    if (auto named = core::validateTemplateName(m_name->text().toStdString()); !named)
        problems << qs(named.error().message);
    if (m_reason->text().trimmed().isEmpty())
        problems << tr("Say why, for the audit.");
    QStringList changes;
    if (current) {
        for (const std::string& line : core::diffIndexSettings(m_base, *current))
            changes << qs(line);
    }
    m_problems->setText(problems.join(QLatin1Char('\n')));
    m_problems->setVisible(!problems.isEmpty());
    m_changes->setText(changes.isEmpty() ? tr("No change from the template it starts from.")
                                         : tr("Changes:\n%1").arg(changes.join(QLatin1Char('\n'))));
    m_create->setEnabled(problems.isEmpty() && !changes.isEmpty() && !m_submitting && !m_connection->readOnly());
    checkFieldsInUse(current ? core::removedFields(m_base, *current) : m_askedRemoved);
}

// A new version of a named template that drops fields: its shards' nodes are asked which spaces
// hold documents in them, once per set of dropped fields, and the answer shown under the changes.
void TemplateEditor::checkFieldsInUse(const std::vector<std::string>& removed)
{
    const MapPtr map = m_connection->map();
    if (removed == m_askedRemoved || !map || !m_name->isReadOnly())
        return;
    m_askedRemoved = removed;
    const auto ticket = m_inUseGeneration.next();
    m_inUse->setVisible(!removed.empty());
    if (removed.empty())
        return m_inUse->clear();
    m_inUse->setText(tr("Asking the nodes which spaces hold documents in the removed fields…"));
    runInBackground(
        m_connection->pool(), this,
        [nodes = m_connection->requestNodes(), map, name = m_name->text().toStdString(), removed]() {
            return core::describeRemovedFieldsInUse(core::findRemovedFieldsInUse(*nodes, *map, name, removed));
        },
        [this, ticket](const std::vector<std::string>& lines) {
            if (!m_inUseGeneration.isCurrent(ticket))
                return;
            QStringList text;
            for (const std::string& line : lines)
                text << qs(line);
            m_inUse->setText(tr("Documents in the removed fields:\n%1").arg(text.join(QLatin1Char('\n'))));
            emit fieldsInUseChecked();
        });
}

QString TemplateEditor::fieldsInUseText() const
{
    return m_inUse->isHidden() ? QString() : m_inUse->text();
}

void TemplateEditor::create()
{
    const auto current = settings();
    if (!current || !canCreate())
        return;
    v1::AdminChange change;
    auto* made = change.mutable_create_template();
    made->set_name(m_name->text().toStdString());
    made->set_settings_json(core::encodeIndexSettings(*current));
    made->set_description(m_description->text().toStdString());
    m_submitting = true;
    check();
    m_connection->submitChange(change, m_reason->text().trimmed(), this, [this](ChangeResult result) {
        m_submitting = false;
        check();
        if (!result) {
            m_message->show(
                tr("Refused: %1").arg(FleetConnection::refusalText(result.error())), InlineMessage::Kind::Error);
            return;
        }
        if (result->has_awaiting_approval()) {
            m_message->show(
                FleetConnection::awaitingApprovalText(result->awaiting_approval()), InlineMessage::Kind::Info);
            return;
        }
        auto record = core::decodeIndexTemplate(result->record_json());
        emit created(record ? qs(core::templateLabel(record->name, record->version)) : m_name->text());
        accept();
    });
}

} // namespace shardmap::widgets

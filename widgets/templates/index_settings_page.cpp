// IndexSettingsPage's implementation: the templates table filled from each map, the selected
// template's detail, and the editor and wizard it opens.
#include "widgets/templates/index_settings_page.h"

#include "core/map/index_templates.h"
#include "widgets/style/conversions.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/record_table.h"
#include "widgets/templates/template_editor.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

QString fieldsOf(const core::IndexSettings& settings)
{
    QStringList parts;
    for (const core::IndexField& field : settings.fields) {
        if (!field.indexed)
            parts << IndexSettingsPage::tr("%1 (stored only)").arg(qs(field.name));
        else if (field.weight != 1.0)
            parts << QStringLiteral("%1 ×%2").arg(qs(field.name)).arg(field.weight);
        else
            parts << qs(field.name);
    }
    return parts.join(QStringLiteral(", "));
}

QString prefixesOf(const core::IndexSettings& settings)
{
    QStringList parts;
    for (std::uint32_t length : settings.prefixes)
        parts << QString::number(length);
    return parts.isEmpty() ? IndexSettingsPage::tr("none") : parts.join(QStringLiteral(", "));
}

} // namespace

IndexSettingsPage::IndexSettingsPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
{
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Index templates say what shards' indexes are built with. A template is never "
                                "changed in place: a change is its next version, and shards take it when they "
                                "are rebuilt (Change index settings)."),
        this);
    intro->setWordWrap(true);
    m_table = newRecordTable({ tr("Template"), tr("Tokenizer"), tr("Fields"), tr("Prefixes"), tr("Shards") }, 2, this);
    m_detail = newDetailLabel(this);
    m_message = new InlineMessage(this);
    m_newVersion = new QPushButton(tr("New &version…"), this);
    m_newTemplate = new QPushButton(tr("New &template…"), this);
    m_rebuild = new QPushButton(tr("&Rebuild shards with it…"), this);
    for (QWidget* widget : std::initializer_list<QWidget*> { intro, m_table, m_detail, m_message })
        layout->addWidget(widget);
    layout->addLayout(newButtonRow({ m_newVersion, m_newTemplate, m_rebuild }));
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &IndexSettingsPage::showSelected);
    connect(m_newVersion, &QPushButton::clicked, this, [this] { openEditor(false); });
    connect(m_newTemplate, &QPushButton::clicked, this, [this] { openEditor(true); });
    connect(m_rebuild, &QPushButton::clicked, this, [this] { emit reindexRequested(selectedLabel()); });
    connect(m_connection, &FleetConnection::mapChanged, this, &IndexSettingsPage::showMap);
    connect(m_connection, &FleetConnection::stateChanged, this, &IndexSettingsPage::showSelected);
    connect(m_connection, &FleetConnection::identityChanged, this, &IndexSettingsPage::showSelected);
    showMap(m_connection->map());
}

void IndexSettingsPage::showMap(const MapPtr& map)
{
    m_map = map;
    const QString selected = selectedLabel();
    const auto templates = map ? core::templatesOf(*map) : std::vector<core::IndexTemplateRecord> {};
    const QSignalBlocker block(m_table);
    m_table->setRowCount(static_cast<int>(templates.size()));
    int row = 0;
    for (const core::IndexTemplateRecord& record : templates) {
        const QString label = qs(core::templateLabel(record.name, record.version));
        const QStringList cells { label, QString::fromLatin1(core::tokenizerName(record.settings.tokenizer)),
            fieldsOf(record.settings), prefixesOf(record.settings),
            QString::number(core::shardsBuiltWith(*map, record.name, record.version).size()) };
        for (int column = 0; column < cells.size(); ++column)
            m_table->setItem(row, column, new QTableWidgetItem(cells[column]));
        if (label == selected)
            m_table->selectRow(row);
        ++row;
    }
    if (m_table->selectedItems().isEmpty() && row > 0)
        m_table->selectRow(0);
    showSelected();
}

QString IndexSettingsPage::selectedLabel() const
{
    const auto rows = m_table->selectionModel() ? m_table->selectionModel()->selectedRows() : QModelIndexList {};
    return rows.isEmpty() || !m_table->item(rows.front().row(), 0) ? QString()
                                                                   : m_table->item(rows.front().row(), 0)->text();
}

void IndexSettingsPage::showSelected()
{
    const QString label = selectedLabel();
    auto ref = core::parseTemplateRef(label.toStdString());
    auto found
        = ref && m_map ? core::findTemplate(*m_map, *ref) : core::Result<core::IndexTemplateRecord>(core::Error {});
    const bool readOnly = m_connection->readOnly();
    m_newVersion->setEnabled(found && !readOnly && found->name != core::kDefaultTemplateName);
    m_newTemplate->setEnabled(!readOnly && m_map);
    m_rebuild->setEnabled(found && !readOnly);
    const QString why = readOnly ? m_connection->readOnlyReason() : QString();
    m_newVersion->setToolTip(readOnly                            ? why
            : found && found->name == core::kDefaultTemplateName ? tr("default is built in: make a new template")
                                                                 : QString());
    m_newTemplate->setToolTip(why);
    m_rebuild->setToolTip(why);
    if (!found) {
        m_detail->clear();
        return;
    }
    QStringList shards;
    for (const std::string& id : core::shardsBuiltWith(*m_map, found->name, found->version))
        shards << qs(id);
    m_detail->setText(tr("%1: %2\nShards built with it: %3")
                          .arg(label, found->description.empty() ? tr("no description") : qs(found->description),
                              shards.isEmpty() ? tr("none") : shards.join(QStringLiteral(", "))));
}

QString IndexSettingsPage::detailText() const
{
    return m_detail->text();
}

TemplateEditor* IndexSettingsPage::openEditor(bool newTemplate)
{
    auto ref = core::parseTemplateRef(selectedLabel().toStdString());
    auto found = ref && m_map && !newTemplate ? core::findTemplate(*m_map, *ref)
                                              : core::Result<core::IndexTemplateRecord>(core::defaultIndexTemplate());
    if (!found)
        return nullptr;
    auto* editor = new TemplateEditor(m_connection, newTemplate ? QString() : qs(found->name), found->settings, this);
    editor->setAttribute(Qt::WA_DeleteOnClose);
    connect(editor, &TemplateEditor::created, this, [this](const QString& label) {
        m_message->show(tr("Index template %1 created.").arg(label), InlineMessage::Kind::Success);
    });
    editor->show();
    return editor;
}

} // namespace shardmap::widgets

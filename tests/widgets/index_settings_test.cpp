// The Index settings page and the template editor (issue 31) against a real store and a real
// node: the templates with their shards, the editor's checks as it is edited, and a new version
// made through the connection's change seam with its audit record.
#include "core/admin/fleet_admin.h"
#include "core/map/index_templates.h"
#include "core/map/map_editor.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/templates/index_settings_page.h"
#include "widgets/templates/template_editor.h"

#include <QComboBox>
#include <QLineEdit>
#include <QTableWidget>
#include <gtest/gtest.h>

using namespace shardmap;
using namespace shardmap::widgets;
using shardmap::testing::waitFor;

namespace {

class IndexSettingsPageTest : public shardmap::testing::FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(1);
        core::IndexSettings stemmed = core::defaultIndexSettings();
        stemmed.tokenizer = core::Tokenizer::Porter;
        core::MapEditor editor(*m_store);
        ASSERT_TRUE(editor.createTemplate("stemmed", stemmed, "English stemming", m_actor));
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        m_connection.open(spec);
        ASSERT_TRUE(waitFor([&] { return m_connection.map() && m_connection.map()->shard("s0"); }));
    }

    static QString cell(const QTableWidget& table, int row, int column)
    {
        return table.item(row, column) ? table.item(row, column)->text() : QString();
    }

    FleetConnection m_connection;
};

} // namespace

TEST_F(IndexSettingsPageTest, ListsTheTemplatesWithTheirShardsAndMakesANewVersion)
{
    IndexSettingsPage page(&m_connection);
    QTableWidget& table = *page.table();
    ASSERT_EQ(table.rowCount(), 2);
    EXPECT_EQ(cell(table, 0, 0), QStringLiteral("default:1"));
    EXPECT_EQ(cell(table, 0, 4), QStringLiteral("1")) << "s0 is built with the default";
    EXPECT_EQ(cell(table, 1, 0), QStringLiteral("stemmed:1"));
    EXPECT_EQ(cell(table, 1, 1), QStringLiteral("porter"));
    EXPECT_EQ(cell(table, 1, 4), QStringLiteral("0"));
    table.selectRow(1);
    EXPECT_TRUE(page.detailText().contains(QStringLiteral("English stemming"))) << page.detailText().toStdString();

    TemplateEditor* editor = page.openEditor(false);
    ASSERT_TRUE(editor);
    EXPECT_EQ(editor->nameEdit()->text(), QStringLiteral("stemmed"));
    EXPECT_FALSE(editor->canCreate()) << "nothing changed yet";
    editor->addField(QStringLiteral("title"), true, 1.0);
    EXPECT_TRUE(editor->problemsText().contains(QStringLiteral("field title is named twice")))
        << editor->problemsText().toStdString();
    EXPECT_FALSE(editor->canCreate());
    editor->fieldsTable()->removeRow(editor->fieldsTable()->rowCount() - 1);
    editor->addField(QStringLiteral("raw"), false, 1.0);
    editor->tokenizerBox()->setCurrentIndex(editor->tokenizerBox()->findText(QStringLiteral("trigram")));
    EXPECT_TRUE(editor->problemsText().contains(QStringLiteral("prefix indexes do not apply to trigram")))
        << editor->problemsText().toStdString();
    editor->prefixesEdit()->clear();
    EXPECT_TRUE(editor->problemsText().contains(QStringLiteral("Say why"))) << editor->problemsText().toStdString();
    editor->reasonEdit()->setText(QStringLiteral("code search"));
    ASSERT_TRUE(editor->canCreate()) << editor->problemsText().toStdString();
    EXPECT_TRUE(editor->changesText().contains(QStringLiteral("field raw added (stored only)")))
        << editor->changesText().toStdString();
    EXPECT_TRUE(editor->changesText().contains(QStringLiteral("-> trigram"))) << editor->changesText().toStdString();
    editor->create();

    ASSERT_TRUE(waitFor([&] { return table.rowCount() == 3; })) << "the page follows the map";
    EXPECT_EQ(cell(table, 2, 0), QStringLiteral("stemmed:2"));
    EXPECT_EQ(cell(table, 2, 1), QStringLiteral("trigram"));
    auto map = core::MapSnapshot::decode(*m_store->snapshot());
    auto made = core::findTemplate(*map, { "stemmed", 2 });
    ASSERT_TRUE(made) << made.error().describe();
    EXPECT_EQ(made->settings.tokenizer, core::Tokenizer::Trigram);
    EXPECT_FALSE(made->settings.field("raw")->indexed);
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(history->back().action, "create-template");
    EXPECT_EQ(history->back().reason, "code search");
}

TEST_F(IndexSettingsPageTest, TheDefaultTakesNoNewVersionAndANewTemplateNeedsAName)
{
    IndexSettingsPage page(&m_connection);
    page.table()->selectRow(0);
    TemplateEditor* editor = page.openEditor(true);
    ASSERT_TRUE(editor);
    EXPECT_TRUE(editor->nameEdit()->text().isEmpty());
    editor->reasonEdit()->setText(QStringLiteral("weights"));
    editor->fieldsTable()->item(0, 2)->setText(QStringLiteral("3"));
    EXPECT_TRUE(editor->problemsText().contains(QStringLiteral("template name ''")))
        << editor->problemsText().toStdString();
    EXPECT_FALSE(editor->canCreate());
    editor->nameEdit()->setText(QStringLiteral("heavy-titles"));
    EXPECT_TRUE(editor->canCreate()) << editor->problemsText().toStdString();
    EXPECT_TRUE(editor->changesText().contains(QStringLiteral("field title weight 1 -> 3")));
    editor->fieldsTable()->item(0, 2)->setText(QStringLiteral("heavy"));
    EXPECT_TRUE(editor->problemsText().contains(QStringLiteral("not a number")));
    EXPECT_FALSE(editor->canCreate());
}

// Removing a field from a template whose shard holds documents in it: the editor asks the node off
// the UI thread and names the space, how many documents and what becomes of their values.
TEST_F(IndexSettingsPageTest, RemovingAFieldNamesTheSpacesWithDocumentsInIt)
{
    core::FleetAdmin admin(*m_store, m_pool);
    core::NewShard shard { "s1", "n0" };
    shard.templateName = "stemmed";
    shard.templateVersion = 1;
    shard.index = core::findTemplate(map(), { "stemmed", 1 })->settings;
    auto created = admin.createShard(shard, m_actor);
    ASSERT_TRUE(created) << created.error().describe();
    auto node = *m_pool.get(m_nodes[0]->address());
    ASSERT_TRUE(node->setOwnership("s1", { "tagged", core::SpaceRole::Owner, 1 }));
    core::Document doc { "tagged", "d1", 1, { { "title", "t" }, { "body", "b" }, { "tags", "red" } } };
    ASSERT_TRUE(node->bulkWrite("s1", { { doc, 1 } }));
    ASSERT_TRUE(waitFor([&] { return m_connection.map()->shard("s1") != nullptr; }));

    IndexSettingsPage page(&m_connection);
    page.table()->selectRow(1);
    TemplateEditor* editor = page.openEditor(false);
    ASSERT_TRUE(editor);
    EXPECT_TRUE(editor->fieldsInUseText().isEmpty()) << "no field removed yet";
    QTableWidget& fields = *editor->fieldsTable();
    ASSERT_EQ(fields.item(2, 0)->text(), QStringLiteral("tags"));
    fields.removeRow(2);
    editor->reasonEdit()->setText(QStringLiteral("no more tags"));
    ASSERT_TRUE(waitFor([&] { return editor->fieldsInUseText().contains(QStringLiteral("space tagged")); }))
        << editor->fieldsInUseText().toStdString();
    EXPECT_TRUE(editor->fieldsInUseText().contains(QStringLiteral(
        "space tagged has 1 document with field tags (shard s1): after the reindex their values are searched as "
        "other text, no longer by tags:term")))
        << editor->fieldsInUseText().toStdString();
    editor->addField(QStringLiteral("tags"), true, 1.0);
    EXPECT_TRUE(editor->fieldsInUseText().isEmpty()) << "the field is back";
}

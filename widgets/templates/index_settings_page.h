#pragma once

// The console's Index settings page (issue 31): the map's index templates with their versions and
// the shards built with each, and the editor that makes a template's next version.

#include "widgets/session/fleet_connection.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace shardmap::widgets {

class InlineMessage;
class TemplateEditor;

// Every template version (the built-in default first): tokenizer, fields with their weights,
// prefixes and how many shards were built with it; the selected one's description and shards
// below. "New version…" opens the editor on the selected template's settings, "New template…"
// on the default's under a name to give; "Rebuild shards…" asks for the Change index settings
// wizard with the selected template (reindexRequested). Changes are made by the editor through
// the connection (create-template, an admin's change); a read-only connection says why not.
class IndexSettingsPage : public QWidget {
    Q_OBJECT
public:
    explicit IndexSettingsPage(FleetConnection* connection, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QString detailText() const;
    // Opens the editor on the selected template (newTemplate: on the default, a name to give);
    // the dialog, shown, not yet closed.
    TemplateEditor* openEditor(bool newTemplate);

signals:
    // "NAME:VERSION": rebuild shards with it (MainWindow opens the plan wizard's reindex).
    void reindexRequested(const QString& templateLabel);

private:
    void showMap(const MapPtr& map);
    void showSelected();
    QString selectedLabel() const;

    FleetConnection* m_connection;
    MapPtr m_map;
    QTableWidget* m_table = nullptr;
    QLabel* m_detail = nullptr;
    QPushButton* m_newVersion = nullptr;
    QPushButton* m_newTemplate = nullptr;
    QPushButton* m_rebuild = nullptr;
    InlineMessage* m_message = nullptr;
};

} // namespace shardmap::widgets

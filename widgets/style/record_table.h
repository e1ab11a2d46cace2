#pragma once

// The parts of the console's list pages (Index settings, Backups): a read-only table of records
// with one selectable row, the selected record's words below it, and a row of action buttons.

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QTableWidget>
#include <initializer_list>

namespace shardmap::widgets {

// headers: the columns; stretchColumn takes the width left.
inline QTableWidget* newRecordTable(const QStringList& headers, int stretchColumn, QWidget* parent)
{
    auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    table->verticalHeader()->hide();
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    return table;
}

// Wrapped, selectable with the mouse.
inline QLabel* newDetailLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// The buttons left to right, the rest of the row empty.
inline QHBoxLayout* newButtonRow(std::initializer_list<QPushButton*> buttons)
{
    auto* row = new QHBoxLayout;
    for (QPushButton* button : buttons)
        row->addWidget(button);
    row->addStretch();
    return row;
}

} // namespace shardmap::widgets

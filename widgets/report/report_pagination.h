#pragma once

// Pagination the report's QTextDocument does not do itself (widgets/report/report_document.cpp).

#include <QtGlobal>

QT_BEGIN_NAMESPACE
class QTextDocument;
QT_END_NAMESPACE

namespace shardmap::widgets {

// QTextDocument has no "keep with next": a heading the layout leaves at the foot of a page, its
// table, chart or text beginning on the next one, gets a page break before it, and so does a
// chart that would be cut by a page's end. Moving one can move a heading after it, so this
// repeats until none is left alone (bounded: each pass only ever adds breaks).
void keepHeadingsWithTheirContent(QTextDocument& doc);

} // namespace shardmap::widgets

// Keeps a report's headings on the page of what they introduce (a page break before the heading).

#include "widgets/report/report_pagination.h"

#include <QAbstractTextDocumentLayout>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextTable>

namespace shardmap::widgets {

namespace {

// What a heading introduces: the block after it or, when that starts a table with a header row,
// the table's first row below the header (a header row alone under a heading is no better).
QTextBlock introduced(const QTextBlock& heading)
{
    const auto tableOf = [](const QTextBlock& block) {
        return qobject_cast<QTextTable*>(block.document()->frameAt(block.position()));
    };
    // Past the empty block each part starts with.
    QTextBlock next = heading.next();
    while (next.isValid() && next.text().isEmpty() && !tableOf(next))
        next = next.next();
    auto* table = next.isValid() ? tableOf(next) : nullptr;
    if (!table)
        return next;
    const int header = table->format().headerRowCount();
    return table->rows() > header ? table->cellAt(header, 0).firstCursorPosition().block() : next;
}

} // namespace

void keepHeadingsWithTheirContent(QTextDocument& doc)
{
    QAbstractTextDocumentLayout& layout = *doc.documentLayout();
    const qreal pageHeight = doc.pageSize().height();
    const auto pageOf
        = [&](const QTextBlock& block) { return static_cast<int>(layout.blockBoundingRect(block).top() / pageHeight); };
    const auto lastPageOf = [&](const QTextBlock& block) {
        return static_cast<int>((layout.blockBoundingRect(block).bottom() - 1) / pageHeight);
    };
    for (int pass = 0; pass < 8; ++pass) {
        bool moved = false;
        for (QTextBlock block = doc.begin(); block.isValid(); block = block.next()) {
            QTextBlockFormat format = block.blockFormat();
            if (format.pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore)
                continue;
            // A chart is one line the layout does not split: it starts a page when it would
            // straddle two. A heading goes with what it introduces.
            const bool chart = block.text() == QString(QChar::ObjectReplacementCharacter);
            const bool straddles = chart && lastPageOf(block) != pageOf(block);
            const QTextBlock content = format.headingLevel() > 0 ? introduced(block) : QTextBlock();
            if (!straddles && (!content.isValid() || pageOf(content) == pageOf(block)))
                continue;
            format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
            QTextCursor(block).setBlockFormat(format);
            moved = true;
        }
        if (!moved)
            return;
    }
}

} // namespace shardmap::widgets

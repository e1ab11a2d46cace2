// InlineMessage's implementation: one style sheet per kind, hidden while empty.

#include "widgets/style/inline_message.h"

#include <QAccessible>

namespace shardmap::widgets {

namespace {

// Background, text and border of each kind: readable in light and dark themes alike.
const char* styleOf(InlineMessage::Kind kind)
{
    switch (kind) {
    case InlineMessage::Kind::Info:
        return "QLabel { background: #e8f1fb; color: #173a5e; border: 1px solid #9cc0e6; border-radius: 3px; "
               "padding: 5px; }";
    case InlineMessage::Kind::Success:
        return "QLabel { background: #d1e7dd; color: #0a3622; border: 1px solid #8fc7a8; border-radius: 3px; "
               "padding: 5px; }";
    case InlineMessage::Kind::Warning:
        return "QLabel { background: #fff4ce; color: #5c4400; border: 1px solid #e0c060; border-radius: 3px; "
               "padding: 5px; }";
    case InlineMessage::Kind::Error:
        return "QLabel { background: #f8d7da; color: #58151c; border: 1px solid #e2a3a9; border-radius: 3px; "
               "padding: 5px; }";
    }
    return "";
}

} // namespace

InlineMessage::InlineMessage(QWidget* parent)
    : QLabel(parent)
{
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setAccessibleName(tr("Message"));
    hide();
}

void InlineMessage::show(const QString& text, Kind kind)
{
    m_kind = kind;
    setStyleSheet(QString::fromLatin1(styleOf(kind)));
    setText(text);
    setVisible(!text.isEmpty());
    if (!text.isEmpty()) {
        // Screen readers announce it as an alert.
        QAccessibleEvent event(this, QAccessible::Alert);
        QAccessible::updateAccessibility(&event);
    }
}

void InlineMessage::clear()
{
    setText({});
    hide();
}

} // namespace shardmap::widgets

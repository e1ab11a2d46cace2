#pragma once

// The console's inline message line (info, success, warning, error).

#include <QLabel>

namespace shardmap::widgets {

// The console's one way to say something inline, above a page's content or in a dialog: a
// coloured, word-wrapped, selectable line (info blue, success green, warning amber, error red)
// that hides itself when empty. Pages call show(); they never style labels by hand.
class InlineMessage : public QLabel {
    Q_OBJECT
public:
    enum class Kind { Info, Success, Warning, Error };
    Q_ENUM(Kind)

    explicit InlineMessage(QWidget* parent = nullptr);

    // Shows text in the kind's colours; empty text hides the message.
    void show(const QString& text, Kind kind);
    void clear();
    Kind kind() const { return m_kind; }
    // The text while shown, empty while hidden.
    QString shownText() const { return isHidden() ? QString() : text(); }

private:
    Kind m_kind = Kind::Info;
};

} // namespace shardmap::widgets

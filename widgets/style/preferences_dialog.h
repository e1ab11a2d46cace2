#pragma once

// The preferences dialog: the console's language and theme.

#include <QDialog>

class QComboBox;
class QLabel;

namespace shardmap::widgets {

// Language and theme. On accept both are stored (QSettings "ui/language", "ui/theme"); the theme
// applies at once through ThemeManager::instance(), the language at the next start.
class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(QWidget* parent = nullptr);

    void accept() override;

private:
    void updateLanguageNote();

    QComboBox* m_language = nullptr;
    QComboBox* m_theme = nullptr;
    QLabel* m_languageNote = nullptr;
    QString m_startLanguage;
};

} // namespace shardmap::widgets

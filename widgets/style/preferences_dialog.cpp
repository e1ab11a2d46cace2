// PreferencesDialog's implementation: the choices read from and stored in QSettings, the theme
// applied at once.

#include "widgets/style/preferences_dialog.h"

#include "widgets/style/i18n.h"
#include "widgets/style/theme.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace shardmap::widgets {

PreferencesDialog::PreferencesDialog(QWidget* parent)
    : QDialog(parent)
    , m_startLanguage(storedLanguage())
{
    setWindowTitle(tr("Preferences"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;

    m_language = new QComboBox(this);
    m_language->setObjectName(QStringLiteral("language"));
    m_language->addItem(tr("System"), QStringLiteral("system"));
    // Language names in their own language, so a user can find theirs whatever is shown now.
    m_language->addItem(QStringLiteral("English"), QStringLiteral("en"));
    m_language->addItem(QStringLiteral("Deutsch"), QStringLiteral("de"));
    m_language->setCurrentIndex(std::max(0, m_language->findData(m_startLanguage)));
    form->addRow(tr("&Language:"), m_language);

    m_languageNote = new QLabel(tr("The language changes at the next start of Shardmap."), this);
    m_languageNote->setObjectName(QStringLiteral("languageNote"));
    m_languageNote->setWordWrap(true);
    form->addRow(QString(), m_languageNote);

    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("theme"));
    m_theme->addItem(tr("System"), int(Theme::System));
    m_theme->addItem(tr("Light"), int(Theme::Light));
    m_theme->addItem(tr("Dark"), int(Theme::Dark));
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(int(ThemeManager::storedTheme()))));
    form->addRow(tr("&Theme:"), m_theme);
    layout->addLayout(form);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &PreferencesDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &PreferencesDialog::reject);
    layout->addWidget(buttons);

    connect(m_language, &QComboBox::currentIndexChanged, this, &PreferencesDialog::updateLanguageNote);
    updateLanguageNote();
}

void PreferencesDialog::updateLanguageNote()
{
    // Emphasise the note once a different language is chosen; it is always there to read.
    QFont font = m_languageNote->font();
    font.setBold(m_language->currentData().toString() != m_startLanguage);
    m_languageNote->setFont(font);
}

void PreferencesDialog::accept()
{
    storeLanguage(m_language->currentData().toString());
    const auto theme = static_cast<Theme>(m_theme->currentData().toInt());
    if (ThemeManager* manager = ThemeManager::instance()) {
        manager->setTheme(theme);
    } else {
        ThemeManager::storeTheme(theme);
    }
    QDialog::accept();
}

} // namespace shardmap::widgets

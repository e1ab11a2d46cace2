// The theme's implementation: Fusion with a light or dark palette, the system's choice followed
// as it changes, health and series colours per palette.

#include "widgets/style/theme.h"

#include <QApplication>
#include <QEvent>
#include <QSettings>
#include <QStyleFactory>
#include <QTimer>
#include <array>

namespace shardmap::widgets {

namespace {

const auto kThemeKey = QStringLiteral("ui/theme");
ThemeManager* s_instance = nullptr;

void setGroupColors(QPalette& palette, QPalette::ColorGroup group, const QColor& window, const QColor& text,
    const QColor& base, const QColor& alternate, const QColor& button, const QColor& highlight)
{
    palette.setColor(group, QPalette::Window, window);
    palette.setColor(group, QPalette::WindowText, text);
    palette.setColor(group, QPalette::Base, base);
    palette.setColor(group, QPalette::AlternateBase, alternate);
    palette.setColor(group, QPalette::ToolTipBase, base);
    palette.setColor(group, QPalette::ToolTipText, text);
    palette.setColor(group, QPalette::PlaceholderText, text.lighter(base.lightness() > 128 ? 250 : 60));
    palette.setColor(group, QPalette::Text, text);
    palette.setColor(group, QPalette::Button, button);
    palette.setColor(group, QPalette::ButtonText, text);
    palette.setColor(group, QPalette::BrightText, Qt::white);
    palette.setColor(group, QPalette::Highlight, highlight);
    palette.setColor(group, QPalette::HighlightedText, Qt::white);
    palette.setColor(group, QPalette::Light, button.lighter(150));
    palette.setColor(group, QPalette::Midlight, button.lighter(125));
    palette.setColor(group, QPalette::Mid, button.darker(130));
    palette.setColor(group, QPalette::Dark, button.darker(160));
    palette.setColor(group, QPalette::Shadow, QColor(0, 0, 0));
}

QPalette makePalette(const QColor& window, const QColor& text, const QColor& base, const QColor& alternate,
    const QColor& button, const QColor& highlight, const QColor& disabledText, const QColor& link)
{
    QPalette palette;
    for (const auto group : { QPalette::Active, QPalette::Inactive, QPalette::Disabled }) {
        setGroupColors(palette, group, window, text, base, alternate, button, highlight);
        palette.setColor(group, QPalette::Link, link);
        palette.setColor(group, QPalette::LinkVisited, link.darker(120));
    }
    for (const auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText }) {
        palette.setColor(QPalette::Disabled, role, disabledText);
    }
    palette.setColor(QPalette::Disabled, QPalette::Highlight, disabledText);
    return palette;
}

Theme themeFromString(const QString& text)
{
    if (text == QLatin1String("light")) {
        return Theme::Light;
    }
    if (text == QLatin1String("dark")) {
        return Theme::Dark;
    }
    return Theme::System;
}

QString themeToString(Theme theme)
{
    switch (theme) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

} // namespace

QPalette lightPalette()
{
    return makePalette(QColor(0xef, 0xf0, 0xf1), QColor(0x23, 0x26, 0x29), Qt::white, QColor(0xf5, 0xf6, 0xf7),
        QColor(0xe3, 0xe5, 0xe7), QColor(0x2f, 0x6f, 0xc0), QColor(0xa0, 0xa4, 0xa8), QColor(0x1d, 0x5f, 0xb0));
}

QPalette darkPalette()
{
    return makePalette(QColor(0x2a, 0x2e, 0x32), QColor(0xe6, 0xe8, 0xea), QColor(0x1e, 0x21, 0x24),
        QColor(0x26, 0x2a, 0x2e), QColor(0x35, 0x3a, 0x3f), QColor(0x3d, 0x7e, 0xd0), QColor(0x70, 0x76, 0x7c),
        QColor(0x6c, 0xaa, 0xf0));
}

bool isDarkPalette(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

bool currentThemeIsDark()
{
    if (s_instance) {
        return s_instance->isDark();
    }
    return isDarkPalette(QGuiApplication::palette());
}

QColor healthColor(HealthColorRole role, bool dark)
{
    // Light: darker, saturated tones that hold contrast on white; dark: brighter ones.
    switch (role) {
    case HealthColorRole::Ok: return dark ? QColor(0x4c, 0xc3, 0x6b) : QColor(0x1e, 0x8e, 0x3e);
    case HealthColorRole::Warning: return dark ? QColor(0xf2, 0xb1, 0x34) : QColor(0xb2, 0x6a, 0x00);
    case HealthColorRole::Critical: return dark ? QColor(0xff, 0x6b, 0x5f) : QColor(0xc5, 0x22, 0x1f);
    case HealthColorRole::Unknown: break;
    }
    return dark ? QColor(0x9a, 0xa0, 0xa6) : QColor(0x6b, 0x72, 0x79);
}

QColor healthColor(HealthColorRole role)
{
    return healthColor(role, currentThemeIsDark());
}

QColor seriesColor(int index, bool dark)
{
    // Okabe-Ito inspired (colour-blind friendly), lightened for dark backgrounds.
    static const std::array<QColor, 8> light { QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00),
        QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7), QColor(0x8a, 0x6d, 0x00), QColor(0x56, 0x77, 0xa8),
        QColor(0x99, 0x44, 0x55), QColor(0x33, 0x33, 0x33) };
    static const std::array<QColor, 8> darkColors { QColor(0x56, 0xb4, 0xe9), QColor(0xe6, 0x9f, 0x00),
        QColor(0x3d, 0xd6, 0xa3), QColor(0xee, 0x99, 0xcc), QColor(0xf0, 0xe4, 0x42), QColor(0xa0, 0xb8, 0xf0),
        QColor(0xff, 0x8a, 0x80), QColor(0xdd, 0xdd, 0xdd) };
    const auto& colors = dark ? darkColors : light;
    const auto count = static_cast<int>(colors.size());
    return colors.at(static_cast<std::size_t>(((index % count) + count) % count));
}

QColor seriesColor(int index)
{
    return seriesColor(index, currentThemeIsDark());
}

ThemeManager::ThemeManager(QObject* parent)
    : QObject(parent)
    , m_theme(storedTheme())
{
    s_instance = this;
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    qApp->installEventFilter(this);
    apply();
}

ThemeManager::~ThemeManager()
{
    if (s_instance == this) {
        s_instance = nullptr;
    }
}

ThemeManager* ThemeManager::instance()
{
    return s_instance;
}

Theme ThemeManager::storedTheme()
{
    return themeFromString(QSettings().value(kThemeKey).toString());
}

void ThemeManager::storeTheme(Theme theme)
{
    QSettings().setValue(kThemeKey, themeToString(theme));
}

void ThemeManager::setTheme(Theme theme)
{
    storeTheme(theme);
    m_theme = theme;
    apply();
}

QPalette ThemeManager::platformPalette()
{
    // An application palette without any role set resolves to the platform theme's palette; there
    // is no public accessor for that palette once our own is set.
    QApplication::setPalette(QPalette());
    return QGuiApplication::palette();
}

void ThemeManager::apply()
{
    m_applying = true;
    const bool dark = m_theme == Theme::System ? isDarkPalette(platformPalette()) : m_theme == Theme::Dark;
    QApplication::setPalette(dark ? darkPalette() : lightPalette());
    m_applying = false;
    m_dark = dark;
    Q_EMIT applied(dark);
}

bool ThemeManager::eventFilter(QObject* watched, QEvent* event)
{
    // ThemeChange goes to every window and ApplicationPaletteChange to every widget: react once.
    // Our own palette changes are recognised by the palette still being the one applied.
    const bool systemChange = event->type() == QEvent::ThemeChange
        || (event->type() == QEvent::ApplicationPaletteChange && watched == qApp
            && QGuiApplication::palette() != (m_dark ? darkPalette() : lightPalette()));
    if (systemChange && !m_applying && m_theme == Theme::System) {
        scheduleFollowSystem();
    }
    return QObject::eventFilter(watched, event);
}

void ThemeManager::scheduleFollowSystem()
{
    if (m_followPending) {
        return;
    }
    m_followPending = true;
    QTimer::singleShot(0, this, [this]() {
        m_followPending = false;
        if (m_theme == Theme::System) {
            apply();
        }
    });
}

} // namespace shardmap::widgets

#pragma once

// The console's themes (system, light, dark) and the colours that carry a meaning in each.

#include <QColor>
#include <QObject>
#include <QPalette>

namespace shardmap::widgets {

enum class Theme { System, Light, Dark };

// Colours with a meaning, chosen to read on both the light and the dark palette.
enum class HealthColorRole { Ok, Warning, Critical, Unknown };

// Applies the Fusion style with a light or dark palette to the application. Theme::System picks
// light or dark from the platform's palette (Qt 6.4 has no QStyleHints::colorScheme, so the
// window colour's lightness decides) and follows it when the platform's theme changes. The
// choice is kept in QSettings "ui/theme". Create one, after the QApplication.
class ThemeManager final : public QObject {
    Q_OBJECT
public:
    explicit ThemeManager(QObject* parent = nullptr); // applies the stored choice
    ~ThemeManager() override;

    static ThemeManager* instance(); // the live one, or nullptr

    Theme theme() const { return m_theme; }
    void setTheme(Theme theme); // applies and stores it
    bool isDark() const { return m_dark; }

    static Theme storedTheme();
    static void storeTheme(Theme theme);

Q_SIGNALS:
    void applied(bool dark);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void apply();
    void scheduleFollowSystem();
    QPalette platformPalette();

    Theme m_theme = Theme::System;
    bool m_dark = false;
    bool m_applying = false;
    bool m_followPending = false;
};

QPalette lightPalette();
QPalette darkPalette();
bool isDarkPalette(const QPalette& palette);
// Whether the console shows dark now (the ThemeManager's view, else the application palette).
bool currentThemeIsDark();

QColor healthColor(HealthColorRole role, bool dark);
QColor healthColor(HealthColorRole role); // for the current theme
// Distinct colours for chart series; index wraps around.
QColor seriesColor(int index, bool dark);
QColor seriesColor(int index);

} // namespace shardmap::widgets

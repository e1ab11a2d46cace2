// The icons' implementation: an icon engine that renders the SVG in the theme's stroke colour.

#include "widgets/style/icons.h"

#include "widgets/style/i18n.h"
#include "widgets/style/theme.h"

#include <QFile>
#include <QIconEngine>
#include <QPainter>
#include <QPixmapCache>
#include <QSvgRenderer>
#include <utility>

namespace shardmap::widgets {

namespace {

// The stroke colour every line icon is drawn with (resources/icons/*.svg), and its dark-theme stand-in.
constexpr char kLineColor[] = "#3c4650";
constexpr char kLineColorOnDark[] = "#d5dae0";

// Renders the SVG itself (no image plugin needed) and picks the line colour for the theme that is
// current when painting, so icons created before a theme switch follow it.
class ThemedSvgIconEngine final : public QIconEngine {
public:
    explicit ThemedSvgIconEngine(QString path)
        : m_path(std::move(path))
    {
        QFile file(m_path);
        if (file.open(QIODevice::ReadOnly)) {
            m_light = file.readAll();
            m_dark = QByteArray(m_light).replace(kLineColor, kLineColorOnDark);
        }
    }

    void paint(QPainter* painter, const QRect& rect, QIcon::Mode mode, QIcon::State) override
    {
        QSvgRenderer renderer(currentThemeIsDark() ? m_dark : m_light);
        painter->save();
        if (mode == QIcon::Disabled) {
            painter->setOpacity(painter->opacity() * 0.4);
        }
        renderer.render(painter, rect);
        painter->restore();
    }

    QPixmap pixmap(const QSize& size, QIcon::Mode mode, QIcon::State state) override
    {
        return scaledPixmap(size, mode, state, 1.0);
    }

    QPixmap scaledPixmap(const QSize& size, QIcon::Mode mode, QIcon::State state, qreal scale) override
    {
        const QSize pixels = size * scale;
        const QString cacheKey = QStringLiteral("shardmap-icon:%1:%2x%3:%4:%5")
                                     .arg(m_path)
                                     .arg(pixels.width())
                                     .arg(pixels.height())
                                     .arg(int(mode))
                                     .arg(currentThemeIsDark() ? 1 : 0);
        QPixmap result;
        if (!QPixmapCache::find(cacheKey, &result)) {
            result = QPixmap(pixels);
            result.fill(Qt::transparent);
            QPainter painter(&result);
            paint(&painter, QRect(QPoint(0, 0), pixels), mode, state);
            painter.end();
            QPixmapCache::insert(cacheKey, result);
        }
        result.setDevicePixelRatio(scale);
        return result;
    }

    QSize actualSize(const QSize& size, QIcon::Mode, QIcon::State) override { return size; }
    QIconEngine* clone() const override { return new ThemedSvgIconEngine(*this); }
    QString key() const override { return QStringLiteral("ShardmapThemedSvg"); }
    bool isNull() override { return m_light.isEmpty(); }

private:
    QString m_path;
    QByteArray m_light;
    QByteArray m_dark;
};

} // namespace

QString iconPath(IconId id)
{
    switch (id) {
    case IconId::Application: return QStringLiteral(":/shardmap.svg");
    case IconId::Connect: return QStringLiteral(":/icons/connect.svg");
    case IconId::Disconnect: return QStringLiteral(":/icons/disconnect.svg");
    case IconId::Refresh: return QStringLiteral(":/icons/refresh.svg");
    case IconId::Export: return QStringLiteral(":/icons/export.svg");
    case IconId::Find: return QStringLiteral(":/icons/find.svg");
    case IconId::Node: return QStringLiteral(":/icons/node.svg");
    case IconId::Shard: return QStringLiteral(":/icons/shard.svg");
    case IconId::Settings: return QStringLiteral(":/icons/settings.svg");
    case IconId::HealthOk: return QStringLiteral(":/icons/health-ok.svg");
    case IconId::HealthWarning: return QStringLiteral(":/icons/health-warning.svg");
    case IconId::HealthCritical: return QStringLiteral(":/icons/health-critical.svg");
    case IconId::Overview: return QStringLiteral(":/icons/overview.svg");
    case IconId::Audit: return QStringLiteral(":/icons/audit.svg");
    case IconId::Alerts: return QStringLiteral(":/icons/alerts.svg");
    case IconId::Approvals: return QStringLiteral(":/icons/approvals.svg");
    }
    return {};
}

QList<IconId> allIconIds()
{
    return { IconId::Application, IconId::Connect, IconId::Disconnect, IconId::Refresh, IconId::Export, IconId::Find,
        IconId::Node, IconId::Shard, IconId::Settings, IconId::HealthOk, IconId::HealthWarning, IconId::HealthCritical,
        IconId::Overview, IconId::Audit, IconId::Alerts, IconId::Approvals };
}

QIcon icon(IconId id)
{
    initWidgetsResources();
    return QIcon(new ThemedSvgIconEngine(iconPath(id)));
}

} // namespace shardmap::widgets

#pragma once

// A fleet row's sparkline history: the last FleetModel::kHistoryLength points of every sparkline
// metric, oldest first, in one ring per row.

#include "widgets/fleet/fleet_model.h"

#include <QList>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace shardmap::widgets {

// A point is NaN where the row has no such figure.
class SparklineHistory {
public:
    using Point = std::array<float, FleetModel::kMetricCount>;

    // Returns the point that fell out (all NaN while the ring is not full).
    Point push(const Point& point)
    {
        Point dropped;
        dropped.fill(std::numeric_limits<float>::quiet_NaN());
        if (m_points.size() < FleetModel::kHistoryLength) {
            m_points.push_back(point);
            return dropped;
        }
        dropped = m_points[m_head];
        m_points[m_head] = point;
        m_head = (m_head + 1) % m_points.size();
        return dropped;
    }

    QList<qreal> series(int metric) const
    {
        QList<qreal> out;
        out.reserve(static_cast<qsizetype>(m_points.size()));
        for (std::size_t i = 0; i < m_points.size(); ++i) {
            const float value = m_points[(m_head + i) % m_points.size()][static_cast<std::size_t>(metric)];
            if (!std::isnan(value)) {
                out.push_back(value);
            }
        }
        return out;
    }

private:
    std::vector<Point> m_points;
    std::size_t m_head = 0;
};

} // namespace shardmap::widgets

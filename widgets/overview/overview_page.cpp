// OverviewPage's implementation: core's fleet totals shown as tiles every kRefreshMs, the hottest
// shards and spaces as tables, and the fleet's 24 hours charted from the nodes' histories.

#include "widgets/overview/overview_page.h"

#include "widgets/alerts/alert_monitor.h"
#include "widgets/alerts/alerts_model.h"
#include "widgets/charts/time_series_chart.h"
#include "widgets/overview/migrations_summary.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/theme.h"

#include <QDateTime>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace shardmap::widgets {

namespace {

constexpr qint64 kDayMs = core::ShardGrowth::kWindowMs;
constexpr qint64 kBucketMs = 60 * 1000;
constexpr int kChartRebuildMs = 250;

enum ItemRole { NodeRole = Qt::UserRole + 1, ShardRole, SpaceRole, KindRole, SubjectRole };

QString number(double value, int decimals = 1)
{
    return QLocale().toString(value, 'f', decimals);
}

QString count(std::uint64_t value)
{
    return QLocale().toString(static_cast<qulonglong>(value));
}

QStandardItem* item(const QString& text, bool numeric = false)
{
    auto* out = new QStandardItem(text);
    out->setEditable(false);
    if (numeric)
        out->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return out;
}

QTableView* smallTable(QStandardItemModel* model, const QString& name, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setWordWrap(false);
    return view;
}

} // namespace

// ---- OverviewTile ------------------------------------------------------------------------------

OverviewTile::OverviewTile(const QString& title, QWidget* parent)
    : QFrame(parent)
    , m_title(title)
    , m_titleLabel(new QLabel(title, this))
    , m_valueLabel(new QLabel(this))
    , m_detailLabel(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    setFocusPolicy(Qt::StrongFocus);
    setCursor(Qt::PointingHandCursor);
    setMinimumWidth(150);
    for (QLabel* label : { m_titleLabel, m_valueLabel, m_detailLabel }) {
        label->setWordWrap(false);
        label->setTextFormat(Qt::PlainText);
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    }
    QFont big = m_valueLabel->font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    big.setBold(true);
    m_valueLabel->setFont(big);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->setSpacing(2);
    layout->addWidget(m_titleLabel);
    layout->addWidget(m_valueLabel);
    layout->addWidget(m_detailLabel);
    setAccessibleName(title);
}

void OverviewTile::setValue(const QString& value, const QString& detail)
{
    if (value == m_valueText && detail == m_detailText)
        return;
    m_valueText = value;
    m_detailText = detail;
    setAccessibleDescription(detail.isEmpty() ? value : value + QStringLiteral(", ") + detail);
    setToolTip(detail.isEmpty() ? value : value + QLatin1Char('\n') + detail);
    elide();
}

void OverviewTile::setWarning(bool warning)
{
    if (warning == m_warning)
        return;
    m_warning = warning;
    setStyleSheet(warning ? QStringLiteral("shardmap--widgets--OverviewTile { border: 2px solid %1; }")
                                .arg(healthColor(HealthColorRole::Warning).name())
                          : QString());
}

void OverviewTile::elide()
{
    const auto fit = [](QLabel* label, const QString& text) {
        label->setText(label->fontMetrics().elidedText(text, Qt::ElideRight, std::max(20, label->width())));
    };
    fit(m_titleLabel, m_title);
    fit(m_valueLabel, m_valueText);
    fit(m_detailLabel, m_detailText);
}

void OverviewTile::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    elide();
}

void OverviewTile::mouseReleaseEvent(QMouseEvent* event)
{
    QFrame::mouseReleaseEvent(event);
    emit activated();
}

void OverviewTile::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter || event->key() == Qt::Key_Space) {
        emit activated();
        return;
    }
    QFrame::keyPressEvent(event);
}

// ---- OverviewPage ------------------------------------------------------------------------------

OverviewPage::OverviewPage(FleetConnection* connection, AlertMonitor* monitor, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
    , m_monitor(monitor)
    , m_attention(new QListWidget(this))
    , m_shards(new QStandardItemModel(0, 5, this))
    , m_shardsView(smallTable(m_shards, QStringLiteral("hottestShards"), this))
    , m_spaces(new QStandardItemModel(0, 5, this))
    , m_spacesView(smallTable(m_spaces, QStringLiteral("hottestSpaces"), this))
    , m_rates(new TimeSeriesChart(this))
    , m_disk(new TimeSeriesChart(this))
{
    setObjectName(QStringLiteral("overviewPage"));
    QGridLayout* tiles = buildTiles();
    setUpAttention();
    setUpHottestTables();
    setUpCharts();
    layOut(tiles);
    declareSeries();
    followFleet();
    startTimers();
    refresh();
    updateAttention();
}

QGridLayout* OverviewPage::buildTiles()
{
    auto* tiles = new QGridLayout;
    tiles->setSpacing(8);
    const std::pair<const char*, Target> targets[] = { { "nodes", Target::Fleet }, { "shards", Target::Fleet },
        { "spaces", Target::Map }, { "documents", Target::Fleet }, { "size", Target::Fleet }, { "disk", Target::Fleet },
        { "migrations", Target::Migrations }, { "executor", Target::Alerts }, { "store", Target::Audit },
        { "balancer", Target::Balancer } };
    const QString titles[] = { tr("Nodes up"), tr("Shards"), tr("Spaces"), tr("Documents"), tr("Size"),
        tr("Fullest disk"), tr("Migrations"), tr("Executor"), tr("Store"), tr("Balancer") };
    constexpr int kColumns = 5;
    for (std::size_t i = 0; i < std::size(targets); ++i) {
        OverviewTile* tile = addTile(QLatin1String(targets[i].first), titles[i], targets[i].second);
        tiles->addWidget(tile, static_cast<int>(i) / kColumns, static_cast<int>(i) % kColumns);
    }
    return tiles;
}

void OverviewPage::setUpAttention()
{
    m_attention->setObjectName(QStringLiteral("attention"));
    m_attention->setAccessibleName(tr("Needs attention"));
    m_attention->setWordWrap(false);
    m_attention->setTextElideMode(Qt::ElideRight);
    connect(m_attention, &QListWidget::itemActivated, this, [this](QListWidgetItem* entry) {
        if (entry->data(KindRole).isValid())
            emit alertRequested(entry->data(KindRole).toInt(), entry->data(SubjectRole).toString());
    });
}

void OverviewPage::setUpHottestTables()
{
    m_shards->setHorizontalHeaderLabels(
        { tr("Shard"), tr("Node"), tr("Queries/s"), tr("Writes/s"), tr("Growth 24 h") });
    m_shardsView->setAccessibleName(tr("Hottest shards"));
    connect(m_shardsView, &QTableView::activated, this, [this](const QModelIndex& index) {
        const QModelIndex first = index.siblingAtColumn(0);
        emit detailRequested(first.data(NodeRole).toString(), first.data(ShardRole).toString());
    });
    m_spaces->setHorizontalHeaderLabels({ tr("Space"), tr("Shard"), tr("Queries/s"), tr("Writes/s"), tr("Size") });
    m_spacesView->setAccessibleName(tr("Hottest spaces"));
    connect(m_spacesView, &QTableView::activated, this,
        [this](const QModelIndex& index) { emit spaceRequested(index.siblingAtColumn(0).data(SpaceRole).toString()); });
}

void OverviewPage::setUpCharts()
{
    m_rates->setObjectName(QStringLiteral("fleetRates"));
    m_rates->setUnit(TimeSeriesChart::Unit::PerSecond);
    m_rates->setValueTitle(tr("Fleet writes and searches"));
    m_rates->setSlidingWindow(kDayMs);
    m_rates->setMinimumHeight(160);
    m_rates->setAccessibleName(tr("Fleet write and search rates over 24 hours"));
    m_disk->setObjectName(QStringLiteral("fleetDisk"));
    m_disk->setUnit(TimeSeriesChart::Unit::Bytes);
    m_disk->setValueTitle(tr("Disk used"));
    m_disk->setSlidingWindow(kDayMs);
    m_disk->setMinimumHeight(160);
    m_disk->setAccessibleName(tr("Fleet disk use over 24 hours"));
}

void OverviewPage::layOut(QGridLayout* tiles)
{
    auto box = [this](const QString& title, QWidget* content) {
        auto* group = new QGroupBox(title, this);
        auto* layout = new QVBoxLayout(group);
        layout->setContentsMargins(4, 4, 4, 4);
        layout->addWidget(content);
        return group;
    };
    auto* middle = new QGridLayout;
    middle->addWidget(box(tr("Needs attention"), m_attention), 0, 0);
    middle->addWidget(box(tr("Hottest shards"), m_shardsView), 0, 1);
    middle->addWidget(box(tr("Hottest spaces"), m_spacesView), 0, 2);
    middle->addWidget(box(tr("Writes and searches, 24 h"), m_rates), 1, 0, 1, 2);
    middle->addWidget(box(tr("Disk used, 24 h"), m_disk), 1, 2);
    middle->setRowStretch(0, 1);
    middle->setRowStretch(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(tiles);
    layout->addLayout(middle, 1);
}

void OverviewPage::followFleet()
{
    connect(m_connection, &FleetConnection::mapChanged, this, &OverviewPage::mapChanged);
    connect(m_connection, &FleetConnection::nodeLinkChanged, this, [this](const QString& nodeId, bool reachable) {
        if (reachable && m_seeded)
            seedNodeHistory(nodeId);
    });
    connect(m_connection, &FleetConnection::stateChanged, this, [this](FleetConnection::State state) {
        if (state == FleetConnection::State::Disconnected)
            forgetConnection();
        refresh();
    });
    connect(m_monitor, &AlertMonitor::alertsChanged, this, &OverviewPage::updateAttention);
    connect(m_monitor, &AlertMonitor::leasesChanged, this, &OverviewPage::refresh);
}

void OverviewPage::startTimers()
{
    m_chartRebuild.setSingleShot(true);
    m_chartRebuild.setInterval(kChartRebuildMs);
    connect(&m_chartRebuild, &QTimer::timeout, this, &OverviewPage::rebuildHistoryCharts);
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, &OverviewPage::refresh);
    m_refresh.start();
    m_spacesTimer.setInterval(kSpacesMs);
    connect(&m_spacesTimer, &QTimer::timeout, this, &OverviewPage::refreshSpaces);
    m_spacesTimer.start();
}

// A closed connection's figures and the answers still on their way are the old fleet's.
void OverviewPage::forgetConnection()
{
    m_generation.invalidate();
    m_seeded = false;
    m_spacesRunning = false;
    m_growth.clear();
    m_historyBuckets.clear();
    m_chartRebuild.stop();
    m_rates->clear();
    m_disk->clear();
    declareSeries();
    m_historySeeded.clear();
    m_historyAsked.clear();
    m_spaces->removeRows(0, m_spaces->rowCount());
}

OverviewTile* OverviewPage::addTile(const QString& name, const QString& title, Target target)
{
    auto* tile = new OverviewTile(title, this);
    tile->setObjectName(QStringLiteral("tile-") + name);
    connect(tile, &OverviewTile::activated, this, [this, target] { emit pageRequested(target); });
    m_tiles.insert(name, tile);
    m_tileOrder << name;
    return tile;
}

void OverviewPage::setBalancerStatus(const QString& mode, const QString& sentence, bool held)
{
    tile(QStringLiteral("balancer"))->setValue(mode, sentence);
    tile(QStringLiteral("balancer"))->setWarning(held);
}

OverviewTile* OverviewPage::tile(const QString& name) const
{
    return m_tiles.value(name);
}

QStringList OverviewPage::tileNames() const
{
    return m_tileOrder;
}

void OverviewPage::mapChanged(const MapPtr& map)
{
    if (map && !m_seeded) {
        m_seeded = true;
        seedHistory(map);
        refreshSpaces();
    }
}

void OverviewPage::seedHistory(const MapPtr& map)
{
    for (const auto& [id, node] : map->nodes) {
        if (!node.value.retired)
            seedNodeHistory(QString::fromStdString(id));
    }
}

// A node's last 24 hours, once per connection; a node that did not answer is asked again when
// its link comes up (as the detail page reloads its history), not left out of the charts.
void OverviewPage::seedNodeHistory(const QString& nodeId)
{
    if (m_historySeeded.contains(nodeId) || m_historyAsked.contains(nodeId))
        return;
    m_historyAsked.insert(nodeId);
    const std::uint64_t ticket = m_generation.current();
    m_connection->fetchHistoryDigest(
        nodeId, nowMs() - kDayMs, kBucketMs, this, [this, nodeId, ticket](core::Result<core::HistoryDigest> history) {
            if (!m_generation.isCurrent(ticket))
                return;
            m_historyAsked.remove(nodeId);
            if (!history)
                return;
            m_historySeeded.insert(nodeId);
            addHistory(nodeId, *history);
        });
}

void OverviewPage::declareSeries()
{
    // Named before the first point: a live point that arrives before the history has its
    // readable legend too.
    m_rates->setSeries(QStringLiteral("writes"), tr("Writes/s"), {});
    m_rates->setSeries(QStringLiteral("searches"), tr("Searches/s"), {});
    m_disk->setSeries(QStringLiteral("disk"), tr("Disk used"), {});
}

void OverviewPage::addHistory(const QString& nodeId, const core::HistoryDigest& history)
{
    for (const auto& bucket : history.buckets)
        m_historyBuckets[bucket.startMs][nodeId]
            = { bucket.writesPerSecond, bucket.searchesPerSecond, bucket.diskUsedBytes };
    for (const auto& shard : history.oldestBytes)
        m_growth.addOldest(shard.shard, shard.unixMs, shard.bytes);
    if (!m_chartRebuild.isActive())
        m_chartRebuild.start();
}

void OverviewPage::rebuildHistoryCharts()
{
    TimeSeriesChart::Points writes;
    TimeSeriesChart::Points searches;
    TimeSeriesChart::Points disk;
    for (const auto& [bucket, nodes] : m_historyBuckets) {
        core::FleetLoadPoint sum;
        for (const auto& [node, point] : nodes) {
            sum.writes += point.writes;
            sum.searches += point.searches;
            sum.diskUsed += point.diskUsed;
        }
        writes.emplace_back(bucket, sum.writes);
        searches.emplace_back(bucket, sum.searches);
        disk.emplace_back(bucket, sum.diskUsed);
    }
    m_rates->setSeries(QStringLiteral("writes"), tr("Writes/s"), writes);
    m_rates->setSeries(QStringLiteral("searches"), tr("Searches/s"), searches);
    m_disk->setSeries(QStringLiteral("disk"), tr("Disk used"), disk);
}

void OverviewPage::appendChartPoint(qint64 now, const core::FleetLoadPoint& load)
{
    m_rates->appendPoints(QStringLiteral("writes"), { { now, load.writes } });
    m_rates->appendPoints(QStringLiteral("searches"), { { now, load.searches } });
    m_disk->appendPoints(QStringLiteral("disk"), { { now, load.diskUsed } });
}

core::NodeReader OverviewPage::nodeReader() const
{
    return [this](const std::string& id) {
        const QString nodeId = QString::fromStdString(id);
        return core::NodeReading { m_connection->nodeLink(nodeId).reachable, m_connection->latestSample(nodeId) };
    };
}

void OverviewPage::refresh()
{
    const MapPtr map = m_connection->map();
    if (!map) {
        showNoFleet();
        return;
    }
    const qint64 now = nowMs();
    const core::NodeReader read = nodeReader();
    const core::FleetTotals totals = core::fleetTotals(*map, read);
    showNodesAndShards(*map, totals);
    showDisk(totals);
    // Migrations: those copying apart from the moves done that can still be rolled back.
    const MigrationsSummary migrations = summarizeMigrations(*map, now);
    tile(QStringLiteral("migrations"))->setValue(migrations.value, migrations.detail);
    showExecutor(migrations.open);
    tile(QStringLiteral("store"))->setValue(tr("revision %1").arg(count(map->revision)), m_connection->spec().storeUri);
    tile(QStringLiteral("store"))->setWarning(m_connection->state() != FleetConnection::State::Connected);

    m_growth.renew(*map, read, now);
    showHottestShards(core::hottestShards(*map, read, kHottest), now);
    if (totals.load)
        appendChartPoint(now, *totals.load);
}

void OverviewPage::showNoFleet()
{
    for (OverviewTile* each : std::as_const(m_tiles)) {
        each->setValue(QStringLiteral("–"),
            m_connection->state() == FleetConnection::State::Disconnected ? tr("Not connected") : tr("Connecting…"));
        each->setWarning(false);
    }
}

void OverviewPage::showNodesAndShards(const core::MapSnapshot& map, const core::FleetTotals& totals)
{
    const int up = totals.nodesUp;
    const int active = totals.nodesActive;
    tile(QStringLiteral("nodes"))
        ->setValue(tr("%1 of %2").arg(up).arg(active),
            up == active ? tr("all reachable") : tr("%n unreachable", nullptr, active - up));
    tile(QStringLiteral("nodes"))->setWarning(up < active);

    QStringList states;
    for (const auto& [state, n] : totals.shardsByState)
        states << tr("%1 %2", "count, shard state").arg(QLocale().toString(n), shardStateText(state));
    // Copies (issue 30): how many shards are under-replicated (yellow) or have no copy serving (red).
    const auto byHealth = [&](core::CopyHealth health) {
        const auto found = totals.shardsByCopyHealth.find(health);
        return found == totals.shardsByCopyHealth.end() ? 0 : found->second;
    };
    const int yellow = byHealth(core::CopyHealth::Yellow);
    const int red = byHealth(core::CopyHealth::Red);
    if (yellow > 0)
        states << tr("%n under-replicated (yellow)", nullptr, yellow);
    if (red > 0)
        states << tr("%n without a serving copy (red)", nullptr, red);
    tile(QStringLiteral("shards"))->setValue(count(map.shards.size()), states.join(QStringLiteral(", ")));
    tile(QStringLiteral("shards"))->setWarning(yellow + red > 0);
    tile(QStringLiteral("spaces"))->setValue(count(map.spaces.size()), tr("tenants in the map"));
    tile(QStringLiteral("documents"))->setValue(count(totals.docs), tr("live, on reachable nodes"));
    tile(QStringLiteral("size"))->setValue(formatBytes(totals.bytes), tr("estimated, on reachable nodes"));
}

void OverviewPage::showDisk(const core::FleetTotals& totals)
{
    OverviewTile* disk = tile(QStringLiteral("disk"));
    if (!totals.fullestDisk) {
        disk->setValue(QStringLiteral("–"), tr("no figures yet"));
        return;
    }
    const core::FullestDisk& fullest = *totals.fullestDisk;
    disk->setValue(QStringLiteral("%1 %").arg(number(fullest.usedPercent)),
        tr("%1, %2 free").arg(QString::fromStdString(fullest.node), formatBytes(fullest.freeBytes)));
    disk->setWarning(fullest.usedPercent >= m_monitor->thresholds().health.diskUsedWarningPercent);
}

// The executor: who holds the lease, which replicas are alive; none holding it is a warning.
void OverviewPage::showExecutor(int openMigrations)
{
    OverviewTile* executor = tile(QStringLiteral("executor"));
    if (!m_monitor->leasesKnown()) {
        executor->setValue(QStringLiteral("–"), tr("reading the leases…"));
        executor->setWarning(false);
        return;
    }
    QStringList alive;
    for (const auto& replica : m_monitor->replicas())
        alive << QString::fromStdString(replica.holder);
    const QString replicaText = alive.isEmpty()
        ? tr("no replica alive")
        : tr("%n replica(s) alive: ", nullptr, static_cast<int>(alive.size())) + alive.join(QStringLiteral(", "));
    if (const auto& lease = m_monitor->executor()) {
        executor->setValue(QString::fromStdString(lease->holder).section(QLatin1Char('#'), 0, 0), replicaText);
        executor->setWarning(false);
    } else {
        executor->setValue(tr("none"),
            openMigrations > 0 ? tr("%n migration(s) wait for an executor", nullptr, openMigrations)
                               : tr("queued migrations would wait"));
        executor->setWarning(true);
    }
}

void OverviewPage::showHottestShards(const std::vector<core::HotShard>& hot, qint64 now)
{
    m_shards->setRowCount(static_cast<int>(hot.size()));
    for (std::size_t i = 0; i < hot.size(); ++i) {
        const core::HotShard& entry = hot[i];
        const double growth = m_growth.growth(entry.shard, entry.bytesEstimate, now);
        const QString growthText = growth >= 0 ? QStringLiteral("+") + formatBytes(static_cast<std::uint64_t>(growth))
                                               : QStringLiteral("−") + formatBytes(static_cast<std::uint64_t>(-growth));
        const QString shard = QString::fromStdString(entry.shard);
        const QString node = QString::fromStdString(entry.node);
        const QList<QStandardItem*> cells { item(shard), item(node), item(number(entry.queriesPerSecond), true),
            item(number(entry.writesPerSecond), true), item(growthText, true) };
        cells[0]->setData(node, NodeRole);
        cells[0]->setData(shard, ShardRole);
        for (int column = 0; column < cells.size(); ++column)
            m_shards->setItem(static_cast<int>(i), column, cells[column]);
    }
}

void OverviewPage::refreshSpaces()
{
    const MapPtr map = m_connection->map();
    if (!map || m_spacesRunning)
        return;
    m_spacesRunning = true;
    std::vector<std::string> addresses;
    for (const auto& [id, node] : map->nodes) {
        if (!node.value.retired)
            addresses.push_back(node.value.address);
    }
    runInBackground(
        m_connection->pool(), this,
        [nodes = m_connection->requestNodes(), addresses, map]() {
            core::HottestSpaces hot(kHottest);
            for (const std::string& address : addresses) {
                auto client = nodes->get(address);
                auto sample = client ? (*client)->metrics(true) : core::Result<core::NodeMetricsValue>(client.error());
                if (sample)
                    hot.add(*map, std::move(*sample));
            }
            return hot.take();
        },
        [this, generation = m_generation.current(), spaces = map->spaces.size()](std::vector<core::HotSpace> hot) {
            if (!m_generation.isCurrent(generation))
                return;
            m_spacesRunning = false;
            // A node reports its spaces from its next one-second sample on: a fleet seeded just
            // before the console started has none yet. Read again soon rather than in kSpacesMs.
            if (hot.empty() && spaces > 0)
                QTimer::singleShot(kRefreshMs, this, &OverviewPage::refreshSpaces);
            showHottestSpaces(hot);
        });
}

void OverviewPage::showHottestSpaces(const std::vector<core::HotSpace>& hot)
{
    m_spaces->setRowCount(static_cast<int>(hot.size()));
    for (std::size_t i = 0; i < hot.size(); ++i) {
        const auto& entry = hot[i];
        const int row = static_cast<int>(i);
        QStandardItem* id = item(QString::fromStdString(entry.space.space));
        id->setData(QString::fromStdString(entry.space.space), SpaceRole);
        m_spaces->setItem(row, 0, id);
        m_spaces->setItem(row, 1, item(QString::fromStdString(entry.shard)));
        m_spaces->setItem(row, 2, item(number(entry.space.queriesPerSecond), true));
        m_spaces->setItem(row, 3, item(number(entry.space.writesPerSecond), true));
        m_spaces->setItem(row, 4, item(formatBytes(entry.space.bytesEstimate), true));
    }
}

void OverviewPage::updateAttention()
{
    m_attention->clear();
    const auto& firing = m_monitor->firing();
    if (firing.empty()) {
        auto* quiet = new QListWidgetItem(tr("Nothing needs attention."), m_attention);
        quiet->setFlags(Qt::ItemIsEnabled);
        return;
    }
    for (const core::Alert& alert : firing) {
        const bool critical = alert.severity == core::AlertSeverity::Critical;
        auto* entry = new QListWidgetItem(AlertsModel::describe(alert), m_attention);
        entry->setData(KindRole, static_cast<int>(alert.kind));
        entry->setData(SubjectRole, QString::fromStdString(alert.subject));
        entry->setToolTip(AlertsModel::describe(alert));
        entry->setForeground(healthColor(critical ? HealthColorRole::Critical : HealthColorRole::Warning));
        entry->setData(
            Qt::AccessibleTextRole, (critical ? tr("Critical: ") : tr("Warning: ")) + AlertsModel::describe(alert));
    }
}

} // namespace shardmap::widgets

// DetailPage's implementation: what to chart from the map and the choice, the history fetched per
// node on the pool (stale answers dropped), live samples appended, and the spaces table fed.

#include "widgets/detail/detail_page.h"

#include "widgets/charts/time_series_chart.h"
#include "widgets/detail/copies_panel.h"
#include "widgets/detail/shard_picker_model.h"
#include "widgets/detail/spaces_model.h"
#include "widgets/style/inline_message.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QCompleter>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

namespace shardmap::widgets {

namespace {

constexpr qint64 kMinuteMs = 60 * 1000;

bool isNodeMetric(DetailPage::Metric metric)
{
    using M = DetailPage::Metric;
    return metric == M::Rss || metric == M::DiskFree || metric == M::Cpu || metric == M::IoWait;
}

const DetailPage::Metric kMetrics[] = { DetailPage::Metric::Docs, DetailPage::Metric::Bytes,
    DetailPage::Metric::QueriesPerSecond, DetailPage::Metric::P99Latency, DetailPage::Metric::IndexingRate,
    DetailPage::Metric::Rss, DetailPage::Metric::DiskFree, DetailPage::Metric::Cpu, DetailPage::Metric::IoWait };

QString metricName(DetailPage::Metric metric)
{
    using M = DetailPage::Metric;
    switch (metric) {
    case M::Docs: return DetailPage::tr("Documents");
    case M::Bytes: return DetailPage::tr("Bytes on disk");
    case M::QueriesPerSecond: return DetailPage::tr("Queries per second");
    case M::P99Latency: return DetailPage::tr("Query latency (p99)");
    case M::IndexingRate: return DetailPage::tr("Indexing rate (docs/s)");
    case M::Rss: return DetailPage::tr("Node memory (RSS)");
    case M::DiskFree: return DetailPage::tr("Node disk free");
    case M::Cpu: return DetailPage::tr("Node CPU");
    case M::IoWait: return DetailPage::tr("Node IO wait");
    }
    return {};
}

TimeSeriesChart::Unit unitOf(DetailPage::Metric metric)
{
    using M = DetailPage::Metric;
    using U = TimeSeriesChart::Unit;
    switch (metric) {
    case M::Docs: return U::Count;
    case M::Bytes:
    case M::Rss:
    case M::DiskFree: return U::Bytes;
    case M::QueriesPerSecond:
    case M::IndexingRate: return U::PerSecond;
    case M::P99Latency: return U::Milliseconds;
    case M::Cpu:
    case M::IoWait: return U::Percent;
    }
    return U::Count;
}

std::optional<double> shardValue(
    const core::NodeMetricsValue& sample, const std::string& shard, DetailPage::Metric metric)
{
    auto it = std::find_if(sample.shards.begin(), sample.shards.end(),
        [&](const core::ShardMetricsValue& value) { return value.shard == shard; });
    if (it == sample.shards.end())
        return std::nullopt;
    using M = DetailPage::Metric;
    switch (metric) {
    case M::Docs: return static_cast<double>(it->liveDocs);
    case M::Bytes: return static_cast<double>(it->bytesOnDisk);
    case M::QueriesPerSecond: return it->queriesPerSecond;
    case M::P99Latency: return it->queryP99Ms;
    case M::IndexingRate: return it->docsIndexedPerSecond;
    default: return std::nullopt;
    }
}

double nodeValue(const core::NodeMetricsValue& sample, DetailPage::Metric metric)
{
    using M = DetailPage::Metric;
    switch (metric) {
    case M::Rss: return static_cast<double>(sample.rssBytes);
    case M::DiskFree: return static_cast<double>(sample.diskFreeBytes);
    case M::Cpu: return sample.cpuPercent;
    case M::IoWait: return sample.iowaitPercent;
    default: return 0;
    }
}

QString historyErrorText(const QString& nodeId, const core::Error& error)
{
    const QString message = QString::fromStdString(error.message);
    // FleetConnection already words the nodes it cannot reach ("node n3 is unreachable: ...").
    if (message.contains(nodeId))
        return message;
    if (error.code == core::ErrorCode::Unavailable || error.code == core::ErrorCode::DeadlineExceeded)
        return DetailPage::tr("node %1 is unreachable: %2").arg(nodeId, message);
    return DetailPage::tr("the history of node %1 could not be read: %2").arg(nodeId, message);
}

} // namespace

DetailPage::DetailPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
    , m_map(connection->map())
{
    m_fetchHistory = [connection](const QString& nodeId, qint64 since, QObject* context,
                         std::function<void(core::Result<core::MetricsHistoryValue>)> done) {
        connection->fetchHistory(nodeId, since, context, std::move(done));
    };
    buildUi();
    m_pickerModel->setMap(m_map);
    connect(connection, &FleetConnection::mapChanged, this, &DetailPage::mapArrived);
    connect(connection, &FleetConnection::nodeSample, this, &DetailPage::sampleArrived);
    connect(connection, &FleetConnection::nodeLinkChanged, this, &DetailPage::linkChanged);
    updateTitle();
}

DetailPage::~DetailPage()
{
    setSpaceDetailNode({});
}

void DetailPage::buildUi()
{
    m_header = new QLabel(this);
    QFont headerFont = m_header->font();
    headerFont.setBold(true);
    headerFont.setPointSizeF(headerFont.pointSizeF() * 1.2);
    m_header->setFont(headerFont);
    m_warning = new InlineMessage(this);
    m_content = buildContent();
    m_emptyHint = new QLabel(tr("Choose a shard or a node in the box above: type part of its id and pick it from "
                                "the list. A double-click on the Fleet page opens one too, and Ctrl+F opens the "
                                "shard of a space."),
        this);
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setContentsMargins(24, 24, 24, 24);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(buildToolbar());
    layout->addWidget(m_warning);
    layout->addWidget(m_emptyHint, 1);
    layout->addWidget(m_content, 1);
}

// The chart above the spaces table, in a splitter.
QWidget* DetailPage::buildContent()
{
    m_chart = new TimeSeriesChart(this);
    m_chart->setSlidingWindow(rangeMs());
    m_chart->setMinimumHeight(220);

    m_spacesModel = new SpacesModel(this);
    m_spacesProxy = new QSortFilterProxyModel(this);
    m_spacesProxy->setSortRole(SpacesModel::SortRole);
    m_spacesProxy->setSourceModel(m_spacesModel);
    m_spacesView = new QTableView(this);
    m_spacesView->setModel(m_spacesProxy);
    m_spacesView->setSortingEnabled(true);
    m_spacesView->sortByColumn(SpacesModel::DocsColumn, Qt::DescendingOrder);
    m_spacesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_spacesView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_spacesView->verticalHeader()->hide();
    m_spacesView->horizontalHeader()->setStretchLastSection(true);
    m_spacesLabel = new QLabel(this);

    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(m_spacesLabel);
    lowerLayout->addWidget(m_spacesView);
    m_copies = new CopiesPanel(m_connection, this);
    m_lowerTabs = new QTabWidget(this);
    m_lowerTabs->addTab(lower, tr("Spaces"));
    m_lowerTabs->addTab(m_copies, tr("Copies"));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(m_lowerTabs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    return splitter;
}

QWidget* DetailPage::buildToolbar()
{
    auto* bar = new QWidget(this);
    auto* layout = new QHBoxLayout(bar);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildPicker(bar), 1);

    m_metricBox = new QComboBox(bar);
    for (Metric metric : kMetrics)
        m_metricBox->addItem(metricName(metric), QVariant::fromValue(metric));
    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
        [this](int index) { setMetric(m_metricBox->itemData(index).value<Metric>()); });
    layout->addWidget(m_metricBox);

    m_rangeButtons = new QButtonGroup(bar);
    const std::pair<Range, QString> ranges[]
        = { { Range::FiveMinutes, tr("5 min") }, { Range::OneHour, tr("1 h") }, { Range::OneDay, tr("24 h") } };
    for (const auto& [range, label] : ranges) {
        auto* button = new QToolButton(bar);
        button->setText(label);
        button->setCheckable(true);
        button->setChecked(range == m_range);
        m_rangeButtons->addButton(button, static_cast<int>(range));
        layout->addWidget(button);
    }
    connect(m_rangeButtons, &QButtonGroup::idClicked, this, [this](int id) { setRange(static_cast<Range>(id)); });

    m_compareMenu = new QMenu(bar);
    m_compareButton = new QToolButton(bar);
    m_compareButton->setText(tr("Compare with…"));
    m_compareButton->setToolTip(tr("Draw other shards beside this one"));
    m_compareButton->setMenu(m_compareMenu);
    connect(m_compareMenu, &QMenu::aboutToShow, this, &DetailPage::fillCompareMenu);
    m_compareButton->setPopupMode(QToolButton::InstantPopup);
    layout->addWidget(m_compareButton);
    layout->addStretch(1);

    auto* exportButton = new QToolButton(bar);
    exportButton->setText(tr("Export…"));
    exportButton->setToolTip(tr("Save the chart as a PNG image or a PDF document"));
    connect(exportButton, &QToolButton::clicked, this, &DetailPage::exportChartInteractive);
    layout->addWidget(exportButton);
    return bar;
}

QWidget* DetailPage::buildPicker(QWidget* parent)
{
    m_pickerModel = new ShardPickerModel(this);
    m_picker = new QComboBox(parent);
    m_picker->setEditable(true);
    m_picker->setInsertPolicy(QComboBox::NoInsert);
    // Sizing to the contents would measure every row: 10,000 at 10,000 shards.
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setMinimumContentsLength(18);
    m_picker->setModel(m_pickerModel);
    if (auto* list = qobject_cast<QListView*>(m_picker->view()))
        list->setUniformItemSizes(true);
    m_picker->setCurrentIndex(-1);
    m_picker->lineEdit()->setPlaceholderText(tr("Shard or node…"));
    m_picker->setAccessibleName(tr("Shard or node"));
    m_picker->setAccessibleDescription(tr("Type part of a shard or node id and pick it to show its detail"));
    m_picker->setToolTip(tr("The shard or node shown: type part of its id and pick it from the list"));
    auto* completer = new QCompleter(m_pickerModel, m_picker);
    completer->setFilterMode(Qt::MatchContains);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setCompletionMode(QCompleter::PopupCompletion);
    completer->setMaxVisibleItems(15);
    m_picker->setCompleter(completer);
    connect(m_picker, &QComboBox::activated, this, &DetailPage::pickRow);
    connect(completer, qOverload<const QModelIndex&>(&QCompleter::activated), this, [this](const QModelIndex& index) {
        if (index.model() == m_pickerModel)
            pickRow(index.row());
    });
    connect(m_picker->lineEdit(), &QLineEdit::returnPressed, this, &DetailPage::pickTyped);

    auto* label = new QLabel(tr("&Show:"), parent);
    label->setBuddy(m_picker);
    auto* box = new QWidget(parent);
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(label);
    layout->addWidget(m_picker, 1);
    return box;
}

void DetailPage::pickRow(int row)
{
    const QModelIndex index = m_pickerModel->index(row, 0);
    if (!index.isValid())
        return;
    const QString id = index.data(ShardPickerModel::IdRole).toString();
    const auto kind = static_cast<ShardPickerModel::Kind>(index.data(ShardPickerModel::KindRole).toInt());
    m_pickError.clear();
    updateErrors();
    // The box and its completer may both report one choice.
    if (kind == ShardPickerModel::Kind::Node && m_nodeView != id)
        showNode(id);
    else if (kind == ShardPickerModel::Kind::Shard && (!m_nodeView.isEmpty() || m_primaryShard != id))
        showShard(id);
}

void DetailPage::pickTyped()
{
    QString text = m_picker->currentText().trimmed();
    if (text.isEmpty())
        return;
    const int row = m_picker->findText(text, Qt::MatchFixedString | Qt::MatchCaseSensitive);
    if (row >= 0) {
        pickRow(row);
        return;
    }
    // A bare id: a shard first, then a node.
    for (const auto kind : { ShardPickerModel::Kind::Shard, ShardPickerModel::Kind::Node }) {
        if (const int found = m_pickerModel->rowOf(kind, text); found >= 0) {
            pickRow(found);
            return;
        }
    }
    m_pickError = tr("The map has no shard or node \"%1\".").arg(text);
    updateErrors();
}

void DetailPage::syncPicker()
{
    const int row = !m_nodeView.isEmpty() ? m_pickerModel->rowOf(ShardPickerModel::Kind::Node, m_nodeView)
                                          : m_pickerModel->rowOf(ShardPickerModel::Kind::Shard, m_primaryShard);
    // Only when it differs: setting it again would overwrite what someone is typing. Nothing
    // chosen stays -1 (the box picks its first row when the model fills).
    if (row != m_picker->currentIndex()) {
        const QSignalBlocker blocker(m_picker);
        m_picker->setCurrentIndex(row);
    }
}

void DetailPage::setHistoryFetcher(HistoryFetcher fetcher)
{
    m_fetchHistory = std::move(fetcher);
}

QString DetailPage::shardSeriesKey(const QString& shardId)
{
    return QStringLiteral("shard:") + shardId;
}

QString DetailPage::nodeSeriesKey(const QString& nodeId)
{
    return QStringLiteral("node:") + nodeId;
}

qint64 DetailPage::rangeMs() const
{
    switch (m_range) {
    case Range::FiveMinutes: return 5 * kMinuteMs;
    case Range::OneHour: return 60 * kMinuteMs;
    case Range::OneDay: return 24 * 60 * kMinuteMs;
    }
    return 5 * kMinuteMs;
}

void DetailPage::showNode(const QString& nodeId)
{
    m_nodeView = nodeId;
    m_primaryShard.clear();
    reload(true);
}

void DetailPage::showShard(const QString& shardId)
{
    m_nodeView.clear();
    m_primaryShard = shardId;
    m_compared.removeAll(shardId);
    reload(true);
}

bool DetailPage::showSpace(const QString& spaceId)
{
    const core::SpaceRecord* space = m_map ? m_map->space(spaceId.toStdString()) : nullptr;
    if (!space)
        return false;
    const QString shard = QString::fromStdString(space->shard);
    if (!m_nodeView.isEmpty() || shard != m_primaryShard)
        showShard(shard);
    const int row = m_spacesModel->rowOf(spaceId);
    if (row < 0)
        return true;
    const QModelIndex index = m_spacesProxy->mapFromSource(m_spacesModel->index(row, SpacesModel::SpaceColumn));
    m_spacesView->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_spacesView->scrollTo(index);
    return true;
}

void DetailPage::setMetric(Metric metric)
{
    if (metric == m_metric)
        return;
    m_metric = metric;
    m_metricBox->setCurrentIndex(m_metricBox->findData(QVariant::fromValue(metric)));
    // Every sample carries every metric: no refetch, the series are drawn anew from memory.
    rebuildChart();
}

void DetailPage::setRange(Range range)
{
    if (range == m_range)
        return;
    m_range = range;
    if (auto* button = m_rangeButtons->button(static_cast<int>(range)))
        button->setChecked(true);
    m_chart->setSlidingWindow(rangeMs());
    reload(true);
}

void DetailPage::setComparedShards(const QStringList& shardIds)
{
    QStringList compared = shardIds;
    compared.removeAll(m_primaryShard);
    compared.removeDuplicates();
    if (compared == m_compared)
        return;
    m_compared = compared;
    reload(true);
}

QStringList DetailPage::shownShards() const
{
    return m_shards;
}

void DetailPage::mapArrived(const MapPtr& map)
{
    m_map = map;
    m_pickerModel->setMap(map);
    reload(false);
}

void DetailPage::reload(bool refetch)
{
    const QStringList shards = shardsToChart();
    const QStringList nodes = nodesToChart(shards);
    const bool changed = shards != m_shards || nodes != m_nodes;
    m_shards = shards;
    m_nodes = nodes;
    showSpaces();
    if (!m_nodeView.isEmpty())
        m_copies->showNode(m_map, m_nodeView);
    else if (!m_primaryShard.isEmpty())
        m_copies->showShard(m_map, m_primaryShard);
    updateCompareMenu();
    updateTitle();
    if (!refetch && !changed)
        return;
    refetchHistories();
}

QStringList DetailPage::sortedShardsOfNodeView() const
{
    QStringList shards;
    for (const core::ShardRecord* shard : m_map->shardsOn(m_nodeView.toStdString()))
        shards.append(QString::fromStdString(shard->id));
    std::sort(shards.begin(), shards.end());
    return shards;
}

// A node's view charts all its shards (the first is the primary one), a shard's view that shard;
// the shards compared come after.
QStringList DetailPage::shardsToChart()
{
    QStringList shards;
    if (m_map && !m_nodeView.isEmpty()) {
        shards = sortedShardsOfNodeView();
        m_primaryShard = shards.value(0);
    } else if (!m_primaryShard.isEmpty()) {
        shards.append(m_primaryShard);
    }
    for (const QString& compared : std::as_const(m_compared)) {
        if (!shards.contains(compared))
            shards.append(compared);
    }
    return shards;
}

QStringList DetailPage::nodesToChart(const QStringList& shards) const
{
    QStringList nodes;
    if (!m_nodeView.isEmpty())
        nodes.append(m_nodeView);
    for (const QString& shard : shards) {
        const core::ShardRecord* record = m_map ? m_map->shard(shard.toStdString()) : nullptr;
        if (record && !nodes.contains(QString::fromStdString(record->node)))
            nodes.append(QString::fromStdString(record->node));
    }
    return nodes;
}

void DetailPage::showSpaces()
{
    const core::ShardRecord* primary = m_map ? m_map->shard(m_primaryShard.toStdString()) : nullptr;
    const QString primaryNode = primary ? QString::fromStdString(primary->node) : QString();
    // A node's view lists the spaces of all its shards (its busiest space may be on any of them).
    QStringList listed;
    if (!m_nodeView.isEmpty() && m_map)
        listed = sortedShardsOfNodeView();
    else if (!m_primaryShard.isEmpty())
        listed.append(m_primaryShard);
    const bool shardChanged = m_spacesModel->shardIds() != listed;
    m_spacesModel->setShards(m_map, listed);
    setSpaceDetailNode(primaryNode);
    if (shardChanged && !primaryNode.isEmpty())
        m_spacesModel->applySample(m_connection->latestSample(primaryNode));
}

// A new question: answers still on their way for the old one are dropped when they arrive.
void DetailPage::refetchHistories()
{
    m_ticket = m_generation.next();
    for (auto it = m_data.begin(); it != m_data.end();)
        it = m_nodes.contains(it.key()) ? std::next(it) : m_data.erase(it);
    for (NodeData& entry : m_data)
        entry.historyLoaded = false;
    rebuildChart();
    for (const QString& node : std::as_const(m_nodes))
        fetchHistory(node);
    updateErrors();
}

void DetailPage::fetchHistory(const QString& nodeId)
{
    const qint64 since = QDateTime::currentMSecsSinceEpoch() - rangeMs();
    const std::uint64_t ticket = m_ticket;
    m_data[nodeId].historyPending = true;
    m_fetchHistory(nodeId, since, this, [this, ticket, nodeId](core::Result<core::MetricsHistoryValue> history) {
        historyArrived(ticket, nodeId, history);
    });
}

void DetailPage::historyArrived(
    std::uint64_t ticket, const QString& nodeId, const core::Result<core::MetricsHistoryValue>& history)
{
    if (!m_generation.isCurrent(ticket) || !m_nodes.contains(nodeId))
        return;
    NodeData& entry = m_data[nodeId];
    entry.historyPending = false;
    if (!history) {
        entry.historyError = historyErrorText(nodeId, history.error());
        updateErrors();
        return;
    }
    entry.historyError.clear();
    entry.historyLoaded = true;
    // History first, then the live samples that are newer than its last one.
    std::deque<SamplePtr> merged;
    for (const auto& sample : history->samples)
        merged.push_back(std::make_shared<const core::NodeMetricsValue>(sample));
    const std::int64_t last = merged.empty() ? 0 : merged.back()->unixMs;
    std::copy_if(entry.samples.begin(), entry.samples.end(), std::back_inserter(merged),
        [last](const SamplePtr& sample) { return sample->unixMs > last; });
    entry.samples = std::move(merged);
    updateErrors();
    rebuildChart();
    emit historyLoaded(nodeId, static_cast<int>(history->samples.size()));
}

void DetailPage::sampleArrived(const QString& nodeId, const SamplePtr& sample)
{
    if (!sample)
        return;
    if (nodeId == m_spaceDetailNode)
        m_spacesModel->applySample(sample);
    if (!m_nodes.contains(nodeId))
        return;
    NodeData& entry = m_data[nodeId];
    if (!entry.samples.empty() && sample->unixMs <= entry.samples.back()->unixMs)
        return;
    entry.samples.push_back(sample);
    const std::int64_t oldest = sample->unixMs - rangeMs();
    while (entry.samples.size() > 1 && entry.samples[1]->unixMs < oldest)
        entry.samples.pop_front();
    // Only the new point goes to the chart; it repaints in batches.
    for (const SeriesSpec& spec : seriesSpecs()) {
        if (spec.nodeId != nodeId)
            continue;
        const std::optional<double> value = spec.shardId.empty() ? std::optional<double>(nodeValue(*sample, m_metric))
                                                                 : shardValue(*sample, spec.shardId, m_metric);
        if (value)
            m_chart->appendPoints(spec.key, { { sample->unixMs, *value } });
    }
}

void DetailPage::linkChanged(const QString& nodeId, bool reachable, const QString& error)
{
    if (!m_nodes.contains(nodeId))
        return;
    NodeData& entry = m_data[nodeId];
    entry.linkError = reachable ? QString() : tr("node %1 is unreachable: %2").arg(nodeId, error);
    // History that failed while the node was away is asked for again once it is back.
    if (reachable && !entry.historyLoaded && !entry.historyPending)
        fetchHistory(nodeId);
    updateErrors();
}

std::vector<DetailPage::SeriesSpec> DetailPage::seriesSpecs() const
{
    std::vector<SeriesSpec> specs;
    if (isNodeMetric(m_metric)) {
        for (const QString& node : m_nodes)
            specs.push_back({ nodeSeriesKey(node), tr("node %1").arg(node), node, {} });
        return specs;
    }
    for (const QString& shard : m_shards) {
        const core::ShardRecord* record = m_map ? m_map->shard(shard.toStdString()) : nullptr;
        if (record)
            specs.push_back({ shardSeriesKey(shard), tr("shard %1").arg(shard), QString::fromStdString(record->node),
                shard.toStdString() });
    }
    return specs;
}

void DetailPage::rebuildChart()
{
    m_chart->setValueTitle(metricName(m_metric));
    m_chart->setUnit(unitOf(m_metric));
    const std::vector<SeriesSpec> specs = seriesSpecs();
    for (const QString& key : m_chart->seriesKeys()) {
        if (std::none_of(specs.begin(), specs.end(), [&](const SeriesSpec& spec) { return spec.key == key; }))
            m_chart->removeSeries(key);
    }
    for (const SeriesSpec& spec : specs) {
        TimeSeriesChart::Points points;
        const auto found = m_data.constFind(spec.nodeId);
        if (found != m_data.constEnd()) {
            points.reserve(found->samples.size());
            for (const SamplePtr& sample : found->samples) {
                const std::optional<double> value = spec.shardId.empty()
                    ? std::optional<double>(nodeValue(*sample, m_metric))
                    : shardValue(*sample, spec.shardId, m_metric);
                if (value)
                    points.emplace_back(sample->unixMs, *value);
            }
        }
        m_chart->setSeries(spec.key, spec.label, points);
    }
}

void DetailPage::setSpaceDetailNode(const QString& nodeId)
{
    if (nodeId == m_spaceDetailNode)
        return;
    if (!m_spaceDetailNode.isEmpty())
        m_connection->releaseSpaceDetail(m_spaceDetailNode);
    m_spaceDetailNode = nodeId;
    if (!m_spaceDetailNode.isEmpty())
        m_connection->acquireSpaceDetail(m_spaceDetailNode);
}

void DetailPage::updateTitle()
{
    QString title;
    if (!m_nodeView.isEmpty()) {
        title = tr("Node %1").arg(m_nodeView);
    } else if (!m_primaryShard.isEmpty()) {
        const core::ShardRecord* record = m_map ? m_map->shard(m_primaryShard.toStdString()) : nullptr;
        title = record ? tr("Shard %1 on node %2, %3 index")
                             .arg(m_primaryShard, QString::fromStdString(record->node),
                                 QString::fromLatin1(core::indexEngineName(record->engine)))
                       : tr("Shard %1 (not in the map)").arg(m_primaryShard);
    } else {
        title = tr("No shard selected");
    }
    if (!m_compared.isEmpty())
        title = tr("%1, compared with %2").arg(title, m_compared.join(QStringLiteral(", ")));
    if (!m_nodeView.isEmpty())
        m_spacesLabel->setText(
            tr("Spaces on node %1 (shards %2)").arg(m_nodeView, m_spacesModel->shardIds().join(QStringLiteral(", "))));
    else
        m_spacesLabel->setText(m_primaryShard.isEmpty() ? QString() : tr("Spaces on shard %1").arg(m_primaryShard));
    const bool chosen = !m_nodeView.isEmpty() || !m_primaryShard.isEmpty();
    m_emptyHint->setVisible(!chosen);
    m_content->setVisible(chosen);
    syncPicker();
    if (title == m_title)
        return;
    m_title = title;
    m_header->setText(title);
    emit titleChanged(title);
}

QString DetailPage::errorText() const
{
    QStringList lines;
    for (const QString& node : m_nodes) {
        const auto found = m_data.constFind(node);
        if (found == m_data.constEnd())
            continue;
        // Both say the node is unreachable; the link's word is the newer one.
        if (!found->linkError.isEmpty())
            lines.append(found->linkError);
        else if (!found->historyError.isEmpty())
            lines.append(found->historyError);
    }
    if (!m_exportError.isEmpty())
        lines.append(m_exportError);
    if (!m_pickError.isEmpty())
        lines.append(m_pickError);
    return lines.join(QLatin1Char('\n'));
}

void DetailPage::updateErrors()
{
    const QString text = errorText();
    m_warning->show(text, InlineMessage::Kind::Warning);
}

void DetailPage::updateCompareMenu()
{
    // The menu lists every other shard: filled when it opens, not per map change (10,000 actions
    // twice a second were most of a map change's UI time at 10,000 shards).
    m_compareMenu->clear();
    std::size_t others = 0;
    if (m_map) {
        const std::string node = m_nodeView.toStdString();
        others = m_nodeView.isEmpty() ? m_map->shards.size() : m_map->shards.size() - m_map->shardsOn(node).size();
        others -= m_map->shard(m_primaryShard.toStdString()) && m_nodeView.isEmpty() ? 1 : 0;
    }
    m_compareButton->setEnabled(others > 0);
}

void DetailPage::fillCompareMenu()
{
    m_compareMenu->clear();
    if (!m_map)
        return;
    for (const auto& [id, shard] : m_map->shards) {
        const QString shardId = QString::fromStdString(id);
        if (shardId == m_primaryShard || (!m_nodeView.isEmpty() && shard.value.node == m_nodeView.toStdString()))
            continue;
        QAction* action
            = m_compareMenu->addAction(tr("%1 (node %2)").arg(shardId, QString::fromStdString(shard.value.node)));
        action->setCheckable(true);
        action->setChecked(m_compared.contains(shardId));
        connect(action, &QAction::toggled, this, [this, shardId](bool checked) {
            QStringList compared = m_compared;
            if (checked)
                compared.append(shardId);
            else
                compared.removeAll(shardId);
            setComparedShards(compared);
        });
    }
}

bool DetailPage::exportChart(const QString& path, QString* error)
{
    return m_chart->exportTo(path, error);
}

void DetailPage::exportChartInteractive()
{
    const QString pngFilter = tr("PNG image (*.png)");
    const QString pdfFilter = tr("PDF document (*.pdf)");
    QString filter = pngFilter;
    const QString suggested = (m_primaryShard.isEmpty() ? m_nodeView : m_primaryShard) + QStringLiteral(".png");
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export chart"), suggested, pngFilter + QStringLiteral(";;") + pdfFilter, &filter);
    if (path.isEmpty())
        return;
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("pdf"))
        path += filter == pdfFilter ? QStringLiteral(".pdf") : QStringLiteral(".png");
    QString error;
    m_exportError = exportChart(path, &error) ? QString() : error;
    updateErrors();
}

} // namespace shardmap::widgets

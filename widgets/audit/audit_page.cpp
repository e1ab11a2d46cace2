// AuditPage's implementation: pages of history and revision diffs read on the connection's pool,
// and the diffs told in words.
#include "widgets/audit/audit_page.h"

#include "widgets/audit/audit_model.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/view_state.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace shardmap::widgets {
namespace {

// A page of history as rows, read and converted on the pool.
core::Result<std::vector<AuditModel::Entry>> readEntries(
    core::MetadataStore& store, std::uint64_t from, std::uint64_t to)
{
    auto records = store.history(from, to, 0);
    if (!records)
        return records.error();
    std::vector<AuditModel::Entry> entries;
    entries.reserve(records->size());
    for (const auto& record : *records)
        entries.push_back(AuditModel::fromRecord(record));
    return entries;
}

QString stateName(const std::optional<core::ShardState>& state)
{
    return state ? shardStateText(*state) : QString();
}

} // namespace

AuditPage::AuditPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
{
    buildUi();
    connect(m_connection, &FleetConnection::mapChanged, this, &AuditPage::mapArrived);
    if (m_connection->map())
        mapArrived(m_connection->map());
}

AuditPage::~AuditPage() = default;

void AuditPage::buildUi()
{
    m_model = new AuditModel(this);
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // Actor and reason as wide as their text (a page is at most 500 rows), the changes take the rest.
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    rememberState(m_view->horizontalHeader(), QStringLiteral("audit/columns"));
    m_view->verticalHeader()->hide();
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &AuditPage::selectionChanged);
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (value > 0 && value == m_view->verticalScrollBar()->maximum() && canLoadOlder())
            loadOlder();
    });

    m_error = new InlineMessage(this);
    m_loadOlderButton = new QPushButton(tr("Load older"), this);
    connect(m_loadOlderButton, &QPushButton::clicked, this, &AuditPage::loadOlder);
    m_diffLabel = new QLabel(tr("Select two revisions to see what changed between them."), this);
    m_diffView = new QPlainTextEdit(this);
    m_diffView->setReadOnly(true);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_view, 1);
    topLayout->addWidget(m_loadOlderButton, 0, Qt::AlignLeft);
    auto* bottom = new QWidget(this);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(m_diffLabel);
    bottomLayout->addWidget(m_diffView, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(bottom);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_error);
    layout->addWidget(splitter, 1);
    updateLoadButton();
}

void AuditPage::setPageSize(int records)
{
    m_pageSize = std::max(1, records);
}

bool AuditPage::canLoadOlder() const
{
    return !m_olderRunning && !m_noOlder && m_model->oldestRevision() > 1;
}

QString AuditPage::errorText() const
{
    return m_error->text();
}

QString AuditPage::diffText() const
{
    return m_diffView->toPlainText();
}

void AuditPage::mapArrived(const MapPtr& map)
{
    if (!map)
        return;
    if (map->revision < m_model->newestRevision()) {
        // Another store (the connection was reopened elsewhere): start over.
        m_loads.invalidate();
        m_newerRunning = m_olderRunning = m_newerPending = m_noOlder = false;
        m_model->clear();
    }
    m_mapRevision = map->revision;
    if (m_mapRevision > m_model->newestRevision())
        loadNewer();
}

void AuditPage::loadNewer()
{
    auto store = m_connection->store();
    if (!store)
        return;
    if (m_newerRunning) {
        m_newerPending = true;
        return;
    }
    m_newerRunning = true;
    const std::uint64_t newest = m_model->newestRevision();
    const std::uint64_t pageSize = static_cast<std::uint64_t>(m_pageSize);
    // The first load takes the newest page only; later ones everything since the newest row.
    const std::uint64_t from = newest > 0 ? newest : (m_mapRevision > pageSize ? m_mapRevision - pageSize : 0);
    const std::uint64_t ticket = m_loads.current();
    runInBackground(
        m_connection->pool(), this, [store, from] { return readEntries(*store, from, 0); },
        [this, ticket](const Records& records) { newerArrived(ticket, records); });
}

void AuditPage::newerArrived(std::uint64_t ticket, const Records& records)
{
    if (!m_loads.isCurrent(ticket))
        return;
    m_newerRunning = false;
    if (!records) {
        setError(tr("Could not read the map's history: %1").arg(qs(records.error().message)));
    } else {
        setError({});
        const int before = m_model->rowCount();
        m_model->addNewer(*records);
        emit historyLoaded(m_model->rowCount() - before, true);
    }
    updateLoadButton();
    if (std::exchange(m_newerPending, false) || (records && m_mapRevision > m_model->newestRevision()))
        loadNewer();
}

void AuditPage::loadOlder()
{
    auto store = m_connection->store();
    if (!store || !canLoadOlder())
        return;
    m_olderRunning = true;
    updateLoadButton();
    const std::uint64_t to = m_model->oldestRevision() - 1;
    const std::uint64_t pageSize = static_cast<std::uint64_t>(m_pageSize);
    const std::uint64_t from = to > pageSize ? to - pageSize : 0;
    const std::uint64_t ticket = m_loads.current();
    runInBackground(
        m_connection->pool(), this, [store, from, to] { return readEntries(*store, from, to); },
        [this, ticket](const Records& records) { olderArrived(ticket, records); });
}

void AuditPage::olderArrived(std::uint64_t ticket, const Records& records)
{
    if (!m_loads.isCurrent(ticket))
        return;
    m_olderRunning = false;
    if (!records) {
        setError(tr("Could not read older revisions: %1").arg(qs(records.error().message)));
    } else {
        setError({});
        // A pruned history has no records before its first revision.
        m_noOlder = records->empty();
        const int before = m_model->rowCount();
        m_model->addOlder(*records);
        emit historyLoaded(m_model->rowCount() - before, false);
    }
    updateLoadButton();
}

void AuditPage::updateLoadButton()
{
    m_loadOlderButton->setEnabled(canLoadOlder());
    m_loadOlderButton->setToolTip(
        m_model->oldestRevision() == 1 || m_noOlder ? tr("The oldest revision is shown.") : QString());
}

void AuditPage::selectionChanged()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.size() != 2)
        return;
    showDiff(
        rows[0].data(AuditModel::RevisionRole).toULongLong(), rows[1].data(AuditModel::RevisionRole).toULongLong());
}

void AuditPage::showDiff(quint64 a, quint64 b)
{
    auto store = m_connection->store();
    if (!store) {
        setError(tr("Not connected to a fleet."));
        return;
    }
    const quint64 from = std::min(a, b);
    const quint64 to = std::max(a, b);
    m_diffLabel->setText(tr("Changes from revision %1 to %2 (computing…)").arg(from).arg(to));
    const std::uint64_t ticket = m_diffs.next();
    runInBackground(
        m_connection->pool(), this, [store, from, to] { return core::diffRevisions(*store, from, to); },
        [this, ticket, from, to](const core::Result<core::MapDiff>& diff) {
            if (!m_diffs.isCurrent(ticket))
                return;
            if (!diff) {
                const QString error = qs(diff.error().message);
                m_diffLabel->setText(tr("Changes from revision %1 to %2").arg(from).arg(to));
                m_diffView->clear();
                setError(tr("Could not compare revisions %1 and %2: %3").arg(from).arg(to).arg(error));
                emit diffFailed(from, to, error);
                return;
            }
            const QString text = describeDiff(*diff);
            m_diffLabel->setText(
                tr("Changes from revision %1 to %2 (%n commit(s))", nullptr, int(diff->commits)).arg(from).arg(to));
            m_diffView->setPlainText(text);
            emit diffReady(from, to, text);
        });
}

QString AuditPage::spaceMoveText(const core::SpaceMove& move)
{
    if (move.fromShard.empty())
        return tr("Space %1 created on %2").arg(qs(move.space), qs(move.toShard));
    if (move.toShard.empty())
        return tr("Space %1 removed from %2").arg(qs(move.space), qs(move.fromShard));
    if (move.fromShard == move.toShard)
        return tr("Space %1 stayed on %2 (epoch %3 → %4)")
            .arg(qs(move.space), qs(move.toShard))
            .arg(move.fromEpoch)
            .arg(move.toEpoch);
    return tr("Space %1 moved %2 → %3 (epoch %4 → %5)")
        .arg(qs(move.space), qs(move.fromShard), qs(move.toShard))
        .arg(move.fromEpoch)
        .arg(move.toEpoch);
}

QString AuditPage::describeDiff(const core::MapDiff& diff)
{
    QStringList lines;
    for (const auto& move : diff.spaces) {
        if (move.fromShard != move.toShard || move.fromEpoch != move.toEpoch)
            lines << spaceMoveText(move);
        if (move.toPin != move.fromPin && !move.toPin.empty())
            lines << tr("Space %1 pinned to %2").arg(qs(move.space), qs(move.toPin));
        else if (move.toPin != move.fromPin && !move.toShard.empty())
            lines << tr("Space %1 unpinned (was pinned to %2)").arg(qs(move.space), qs(move.fromPin));
    }
    for (const auto& change : diff.shards) {
        if (!change.before)
            lines << tr("Shard %1 created (%2)").arg(qs(change.shard), stateName(change.after));
        else if (!change.after)
            lines << tr("Shard %1 removed").arg(qs(change.shard));
        else if (change.before != change.after)
            lines << tr("Shard %1: %2 → %3").arg(qs(change.shard), stateName(change.before), stateName(change.after));
        if (change.before && change.after && change.fromCopies != change.toCopies)
            lines << tr("Shard %1 copies: %2 → %3").arg(qs(change.shard), qs(change.fromCopies), qs(change.toCopies));
    }
    for (const auto& node : diff.nodes) {
        if (node.added)
            lines << tr("Node %1 added").arg(qs(node.node));
        else if (node.removed)
            lines << tr("Node %1 removed").arg(qs(node.node));
        else if (node.lost)
            lines << tr("Node %1 marked lost").arg(qs(node.node));
        else
            lines << tr("Node %1 changed").arg(qs(node.node));
    }
    for (const auto& label : diff.templatesAdded)
        lines << tr("Index template %1 created").arg(qs(label));
    for (const auto& label : diff.templatesRemoved)
        lines << tr("Index template %1 removed").arg(qs(label));
    if (lines.isEmpty())
        lines << tr("No spaces, shards or nodes changed.");
    return lines.join(QLatin1Char('\n'));
}

void AuditPage::setError(const QString& text)
{
    m_error->show(text, InlineMessage::Kind::Warning);
}

} // namespace shardmap::widgets

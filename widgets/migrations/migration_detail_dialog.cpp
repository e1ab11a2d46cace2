// MigrationDetailDialog's implementation: the report read on the pool, shown field by field, and
// read again as the migration changes in the map.
#include "widgets/migrations/migration_detail_dialog.h"

#include "core/map/space_placement.h"
#include "widgets/charts/time_series_chart.h"
#include "widgets/migrations/migrations_model.h"
#include "widgets/migrations/phase_timeline.h"
#include "widgets/report/report_events.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace shardmap::widgets {
namespace {

QString dash()
{
    return QStringLiteral("—");
}

// In the locale's own format (issue 26, point 12): "14.03.24 17:45:02" in German.
QString detailTime(std::int64_t unixMs)
{
    if (unixMs <= 0)
        return dash();
    return formatDateTime(unixMs);
}

QString orDash(const std::string& text)
{
    return text.empty() ? dash() : qs(text);
}

QString count(std::uint64_t n)
{
    return QLocale().toString(static_cast<qulonglong>(n));
}

QString route(const std::string& source, const std::string& target)
{
    return MigrationDetailDialog::tr("%1 → %2").arg(qs(source), qs(target));
}

// The event's details; for retries of the same error, how often and when the last one was.
QString eventText(const core::MigrationEvent& event)
{
    if (event.count <= 1)
        return qs(event.text);
    return MigrationDetailDialog::tr("%1 (%n time(s), the last at %2)", nullptr, static_cast<int>(event.count))
        .arg(qs(event.text), detailTime(event.lastUnixMs));
}

QString sideText(const core::SideFigures& side)
{
    return MigrationDetailDialog::tr("%1 live documents, %2 tombstones, checksum %3")
        .arg(count(side.liveDocs), count(side.tombstones), QString::number(side.checksum, 16));
}

QString verificationText(const core::ReportRow& row)
{
    if (!row.history || !row.history->verification)
        return MigrationDetailDialog::tr("— (not compared yet)");
    const core::VerificationFigures& v = *row.history->verification;
    const QString verdict = v.equal ? MigrationDetailDialog::tr("source and target equal")
                                    : MigrationDetailDialog::tr("source and target apart");
    return MigrationDetailDialog::tr(
               "%1 at %2 after %n comparison(s), %3 documents repaired", nullptr, static_cast<int>(v.rounds))
               .arg(verdict, detailTime(v.unixMs), count(v.repairedDocs))
        + QLatin1Char('\n') + MigrationDetailDialog::tr("Source: %1").arg(sideText(v.source)) + QLatin1Char('\n')
        + MigrationDetailDialog::tr("Target: %1").arg(sideText(v.target));
}

QString throttleText(const core::MigrationRecord& record, const MapPtr& map)
{
    if (record.throttleDocsPerSecond > 0)
        return MigrationDetailDialog::tr("%1 docs/s").arg(count(record.throttleDocsPerSecond));
    const std::uint64_t fallback = map ? map->settings.value.defaultThrottleDocsPerSecond : 0;
    return fallback > 0 ? MigrationDetailDialog::tr("the executor's default, %1 docs/s").arg(count(fallback))
                        : MigrationDetailDialog::tr("none (as fast as the nodes go)");
}

QString progressText(const core::MigrationRecord& record)
{
    const core::MigrationProgress& p = record.progress;
    QString text = MigrationDetailDialog::tr("%1 of %2 documents, %3 of %4")
                       .arg(count(p.docsDone), count(p.docsTotal), formatBytes(p.bytesDone), formatBytes(p.bytesTotal));
    // The copy's rate and time left while it copies; past it the executor's ETA says 0 s.
    if (MigrationsModel::showsEta(record) && p.docsPerSecond > 0)
        text += MigrationDetailDialog::tr(", %1 docs/s, %2 left")
                    .arg(QLocale().toString(p.docsPerSecond, 'f', 0), formatDuration(p.etaSeconds));
    return text;
}

} // namespace

MigrationDetailDialog::MigrationDetailDialog(FleetConnection* connection, const QString& migrationId, QWidget* parent)
    : QDialog(parent)
    , m_connection(connection)
    , m_migrationId(migrationId)
{
    setWindowTitle(tr("Migration %1").arg(migrationId));
    buildUi();
    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(kRefreshMs);
    connect(&m_refreshTimer, &QTimer::timeout, this, &MigrationDetailDialog::refresh);
    m_countdown.setSingleShot(true);
    m_countdown.setTimerType(Qt::PreciseTimer);
    connect(&m_countdown, &QTimer::timeout, this, &MigrationDetailDialog::showPhase);
    connect(connection, &FleetConnection::mapChanged, this, &MigrationDetailDialog::mapArrived);
    refresh();
}

MigrationDetailDialog::~MigrationDetailDialog() = default;

void MigrationDetailDialog::buildUi()
{
    m_title = new QLabel(tr("Migration %1").arg(m_migrationId), this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    m_message = new InlineMessage(this);

    auto* phases = new QGroupBox(tr("Phases"), this);
    m_timeline = new PhaseTimeline(phases);
    (new QVBoxLayout(phases))->addWidget(m_timeline);

    QGroupBox* throughput = buildThroughput();
    QGroupBox* events = buildEvents();
    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->addWidget(throughput);
    lower->addWidget(events);
    lower->setStretchFactor(0, 3);
    lower->setStretchFactor(1, 2);
    lower->setSizes({ 600, 400 });

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_message);
    layout->addWidget(buildFields());
    layout->addWidget(phases);
    layout->addWidget(lower, 1);
    layout->addWidget(buttons);
    resize(1000, 780);
}

QGroupBox* MigrationDetailDialog::buildThroughput()
{
    auto* throughput = new QGroupBox(tr("Throughput"), this);
    m_chart = new TimeSeriesChart(throughput);
    m_chart->setUnit(TimeSeriesChart::Unit::PerSecond);
    m_chart->setValueTitle(tr("docs/s"));
    m_chart->setMinimumHeight(200);
    m_chart->setAccessibleName(tr("Documents copied per second over time"));
    m_throughputNote = new QLabel(throughput);
    m_throughputNote->setWordWrap(true);
    auto* throughputLayout = new QVBoxLayout(throughput);
    throughputLayout->addWidget(m_throughputNote);
    throughputLayout->addWidget(m_chart, 1);
    return throughput;
}

QGroupBox* MigrationDetailDialog::buildEvents()
{
    auto* events = new QGroupBox(tr("Events"), this);
    m_events = new QTreeWidget(events);
    m_events->setRootIsDecorated(false);
    m_events->setHeaderLabels({ tr("Time"), tr("Event"), tr("Details") });
    m_events->setAccessibleName(tr("Events of the migration"));
    m_events->header()->setStretchLastSection(true);
    (new QVBoxLayout(events))->addWidget(m_events);
    return events;
}

QWidget* MigrationDetailDialog::buildFields()
{
    auto* box = new QWidget(this);
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    auto* left = new QFormLayout;
    auto* right = new QFormLayout;
    addField(left, Field::Space, tr("Space:"));
    addField(left, Field::RequestedDirection, tr("Requested:"));
    addField(left, Field::CurrentDirection, tr("Moving now:"));
    addField(left, Field::Phase, tr("Phase:"));
    addField(left, Field::Status, tr("Status:"));
    addField(left, Field::Error, tr("Error:"));
    addField(left, Field::Throttle, tr("Throttle:"));
    addField(left, Field::Progress, tr("Progress:"));
    addField(right, Field::RequestedBy, tr("Requested by:"));
    addField(right, Field::Reason, tr("Reason:"));
    addField(right, Field::Operation, tr("Operation:"));
    addField(right, Field::Created, tr("Queued:"));
    addField(right, Field::Started, tr("Started:"));
    addField(right, Field::Finished, tr("Ended:"));
    addField(right, Field::Verification, tr("Verification:"));
    addField(right, Field::WriteHold, tr("Write hold:"));
    row->addLayout(left, 1);
    row->addSpacing(16);
    row->addLayout(right, 1);
    return box;
}

void MigrationDetailDialog::addField(QFormLayout* form, Field field, const QString& label)
{
    auto* value = new QLabel(dash(), this);
    value->setWordWrap(true);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Read by screen readers with the field's name.
    QString name = label;
    name.chop(1);
    value->setAccessibleName(name);
    form->addRow(label, value);
    m_fields[field] = value;
}

QString MigrationDetailDialog::fieldText(Field field) const
{
    const auto found = m_fields.find(field);
    return found == m_fields.end() ? QString() : found->second->text();
}

QString MigrationDetailDialog::messageText() const
{
    return m_message->shownText();
}

void MigrationDetailDialog::showMessage(const QString& text)
{
    m_message->show(text, InlineMessage::Kind::Warning);
}

void MigrationDetailDialog::refresh()
{
    if (m_reading) {
        m_readAgain = true;
        return;
    }
    auto store = m_connection->store();
    const MapPtr map = m_connection->map();
    if (!store || !map) {
        showMessage(tr("Not connected to a fleet."));
        return;
    }
    m_reading = true;
    const std::uint64_t ticket = m_generation.next();
    const std::string id = m_migrationId.toStdString();
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    runInBackground(
        m_connection->pool(), this, [store, map, id, now] { return read(*store, *map, id, now); },
        [this, ticket](const Loaded& answer) { arrived(ticket, answer); });
}

MigrationDetailDialog::Loaded MigrationDetailDialog::read(
    core::MetadataStore& store, const core::MapSnapshot& map, const std::string& id, std::int64_t nowUnixMs)
{
    Loaded result;
    std::map<std::string, core::MigrationHistory> histories;
    auto history = core::readMigrationHistory(store, id);
    if (!history)
        result.error = tr("The history of migration %1 could not be read: %2").arg(qs(id), qs(history.error().message));
    else if (*history)
        histories[id] = std::move(**history);
    core::ReportScope scope;
    scope.migrations = { id };
    auto report = core::buildReport(map, histories, scope, nowUnixMs);
    if (!report)
        result.error = qs(report.error().message);
    else if (!report->rows.empty())
        result.row = std::move(report->rows.front());
    return result;
}

void MigrationDetailDialog::mapArrived(const MapPtr& map)
{
    if (!map)
        return;
    const auto found = map->migrations.find(m_migrationId.toStdString());
    const bool inMap = found != map->migrations.end();
    const bool changed = m_row ? !inMap || !(found->second.value == m_row->record) : inMap;
    // Rate-limited: a running migration changes its record with every batch.
    if (changed && !m_refreshTimer.isActive())
        m_refreshTimer.start();
}

void MigrationDetailDialog::arrived(std::uint64_t ticket, const Loaded& answer)
{
    m_reading = false;
    if (m_generation.isCurrent(ticket)) {
        if (answer.row)
            apply(*answer.row);
        if (!answer.error.isEmpty())
            showMessage(answer.error);
        else if (answer.row && !answer.row->history)
            showMessage(tr("The executor has kept no history of this migration (cancelled before it started): "
                           "no phases, throughput or events to show."));
        else
            showMessage({});
        emit loaded();
    }
    if (m_readAgain) {
        m_readAgain = false;
        if (!m_refreshTimer.isActive())
            m_refreshTimer.start();
    }
}

void MigrationDetailDialog::apply(const core::ReportRow& row)
{
    m_row = row;
    m_title->setText(tr("Migration %1 of space %2").arg(m_migrationId, qs(row.record.space)));
    applyFields(row);
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    m_timeline->setPhases(row.history ? row.history->phases : std::vector<core::PhaseSpan> {}, now);
    applyThroughput(row);
    applyEvents(row);
}

void MigrationDetailDialog::setField(Field field, const QString& text)
{
    m_fields.at(field)->setText(text);
}

void MigrationDetailDialog::applyFields(const core::ReportRow& row)
{
    const core::MigrationRecord& r = row.record;
    setField(Field::Space, qs(r.space));
    setField(Field::RequestedDirection, route(row.requestedSource, row.requestedTarget));
    setField(Field::CurrentDirection,
        r.rolledBack ? tr("%1 (rolled back: the space went back)").arg(route(r.source, r.target))
                     : route(r.source, r.target));
    showPhase();
    setField(Field::Status, orDash(r.status));
    setField(Field::Error, orDash(r.error));
    setField(Field::Throttle, throttleText(r, m_connection->map()));
    setField(Field::Progress, progressText(r));
    setField(Field::RequestedBy, orDash(r.requestedBy));
    setField(Field::Reason, orDash(r.reason));
    setField(Field::Operation, orDash(r.operation));
    setField(Field::Created, detailTime(r.createdUnixMs));
    setField(Field::Started, detailTime(row.startedUnixMs));
    setField(Field::Finished,
        row.endedUnixMs
            ? tr("%1 (%2 after it started)").arg(detailTime(row.endedUnixMs), formatDuration(row.durationMs / 1000))
            : dash());
    setField(Field::Verification, verificationText(row));
    setField(Field::WriteHold,
        row.writeHoldMs >= 0 ? tr("%1 ms").arg(QLocale().toString(row.writeHoldMs, 'f', 1)) : tr("— (not cut over)"));
}

std::int64_t MigrationDetailDialog::rollbackUntilUnixMs(const core::MigrationRecord& record) const
{
    const MapPtr map = m_connection->map();
    return map ? core::rollbackWindowEnd(record, map->settings.value) : 0;
}

void MigrationDetailDialog::showPhase()
{
    if (!m_row)
        return;
    const std::int64_t until = rollbackUntilUnixMs(m_row->record);
    setField(Field::Phase, MigrationsModel::phaseText(m_row->record, until));
    const std::int64_t next = rollbackWindowTextChangesInMs(until, QDateTime::currentMSecsSinceEpoch());
    if (next < 0)
        m_countdown.stop();
    else
        m_countdown.start(static_cast<int>(std::min<std::int64_t>(next + 1, 3'600'000)));
}

// A backfill that ended before a second sample was kept has no rate to draw: say what it did.
QString MigrationDetailDialog::backfillWithoutSamplesText(const core::MigrationRecord& record)
{
    const QString sampling = formatDuration(core::MigrationHistory::kSampleEveryMs / 1000);
    const bool copying = record.phase == core::MigrationPhase::Queued || record.phase == core::MigrationPhase::DualWrite
        || record.phase == core::MigrationPhase::Backfill;
    if (copying || record.phase == core::MigrationPhase::Failed || record.phase == core::MigrationPhase::Cancelled)
        return tr("No backfill progress recorded yet: the executor keeps a sample every %1 while it copies.")
            .arg(sampling);
    if (record.progress.docsPerSecond > 0)
        return tr("The backfill copied %1 documents at %2 docs/s, too quickly for a chart (the executor keeps a "
                  "sample every %3).")
            .arg(count(record.progress.docsDone), QLocale().toString(record.progress.docsPerSecond, 'f', 0), sampling);
    return tr("The backfill copied %1 documents, too quickly for a chart (the executor keeps a sample every %2).")
        .arg(count(record.progress.docsDone), sampling);
}

void MigrationDetailDialog::applyThroughput(const core::ReportRow& row)
{
    const std::vector<core::CopyInterval> intervals
        = row.history ? core::copyIntervals(row.history->samples) : std::vector<core::CopyInterval> {};
    if (intervals.empty()) {
        m_chart->removeSeries(throughputKey());
        m_throughputNote->setText(backfillWithoutSamplesText(row.record));
        return;
    }
    TimeSeriesChart::Points points;
    std::uint64_t docs = 0;
    for (const core::CopyInterval& interval : intervals) {
        // Steps: the rate holds over its interval.
        points.emplace_back(interval.fromUnixMs, interval.docsPerSecond);
        points.emplace_back(interval.toUnixMs, interval.docsPerSecond);
        docs += interval.docs;
    }
    const std::int64_t from = intervals.front().fromUnixMs;
    const std::int64_t to = intervals.back().toUnixMs;
    m_chart->setTimeRange(from, to);
    m_chart->setSeries(throughputKey(), tr("documents/s"), points);
    const double seconds = static_cast<double>(to - from) / 1000;
    m_throughputNote->setText(tr("%1 documents copied in %2, %3 docs/s on average.")
                                  .arg(count(docs), formatDuration((to - from + 500) / 1000),
                                      QLocale().toString(static_cast<double>(docs) / seconds, 'f', 0)));
}

void MigrationDetailDialog::applyEvents(const core::ReportRow& row)
{
    m_events->clear();
    if (!row.history)
        return;
    QList<QTreeWidgetItem*> items;
    for (const core::MigrationEvent& event : row.history->events)
        items.append(
            new QTreeWidgetItem({ detailTime(event.unixMs), MigrationEventText::kind(event.kind), eventText(event) }));
    m_events->addTopLevelItems(items);
    m_events->resizeColumnToContents(0);
    m_events->resizeColumnToContents(1);
}

} // namespace shardmap::widgets

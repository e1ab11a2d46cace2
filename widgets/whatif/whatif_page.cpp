// WhatIfPage's implementation: the growth and shard changes asked for, the figures read and the
// simulation run on the pool, and its answer shown.
#include "widgets/whatif/whatif_page.h"

#include "core/admin/fleet_admin.h"
#include "core/migration/migration_requests.h"
#include "widgets/charts/comparison_chart.h"
#include "widgets/style/format.h"
#include "widgets/style/inline_message.h"
#include "widgets/whatif/simulation_model.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

QDoubleSpinBox* factorBox(QWidget* parent)
{
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(0.1, 100);
    box->setDecimals(2);
    box->setValue(1);
    box->setPrefix(QStringLiteral("× "));
    return box;
}

QSpinBox* countBox(QWidget* parent, int most)
{
    auto* box = new QSpinBox(parent);
    box->setRange(0, most);
    return box;
}

} // namespace

WhatIfPage::WhatIfPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
    , m_model(new SimulationModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildControls());
    m_message = new InlineMessage(this);
    m_message->setObjectName(QStringLiteral("whatIfMessage"));
    layout->addWidget(m_message);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_table = new QTableView(split);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* charts = new QWidget(split);
    auto* row = new QHBoxLayout(charts);
    row->setContentsMargins(0, 0, 0, 0);
    m_evenness = new ComparisonChart(charts);
    m_moved = new ComparisonChart(charts);
    row->addWidget(m_evenness);
    row->addWidget(m_moved);
    layout->addWidget(split, 1);
}

WhatIfPage::~WhatIfPage() = default;

QWidget* WhatIfPage::buildControls()
{
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    m_growAll = factorBox(box);
    m_topN = countBox(box, 1000000);
    m_topFactor = factorBox(box);
    m_newSpaces = countBox(box, 10000000);
    m_add = countBox(box, 1000);
    m_add->setValue(1);
    m_remove = countBox(box, 1000);
    m_remove->setValue(1);
    m_run = new QPushButton(tr("&Simulate"), box);
    m_run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    connect(m_run, &QPushButton::clicked, this, &WhatIfPage::run);
    const auto line = [&](const QString& text, std::initializer_list<QWidget*> fields) {
        auto* row = new QHBoxLayout;
        for (QWidget* field : fields)
            row->addWidget(field);
        row->addStretch(1);
        auto* label = new QLabel(text, box);
        label->setBuddy(*fields.begin());
        form->addRow(label, row);
    };
    auto* topLabel = new QLabel(tr("of them grow"), box);
    line(tr("&Every space grows:"), { m_growAll });
    line(tr("The &largest:"), { m_topN, topLabel, m_topFactor });
    line(tr("&New spaces like today's:"), { m_newSpaces });
    auto* removeLabel = new QLabel(tr("remove"), box);
    line(tr("Shards to &add:"), { m_add, removeLabel, m_remove, m_run });
    return box;
}

void WhatIfPage::setGrowth(const core::Growth& growth)
{
    m_growAll->setValue(growth.allFactor);
    m_topN->setValue(static_cast<int>(growth.topN));
    m_topFactor->setValue(growth.topFactor);
    m_newSpaces->setValue(static_cast<int>(growth.newSpaces));
}

void WhatIfPage::setShardChanges(int add, int remove)
{
    m_add->setValue(add);
    m_remove->setValue(remove);
}

core::SimulationOptions WhatIfPage::options() const
{
    core::SimulationOptions options;
    options.growth.allFactor = m_growAll->value();
    options.growth.topN = static_cast<std::size_t>(m_topN->value());
    options.growth.topFactor = m_topFactor->value();
    options.growth.newSpaces = static_cast<std::size_t>(m_newSpaces->value());
    options.addShards = m_add->value();
    options.removeShards = m_remove->value();
    return options;
}

QString WhatIfPage::messageText() const
{
    return m_message->text();
}

void WhatIfPage::run()
{
    auto store = m_connection->store();
    if (!store) {
        m_message->show(tr("Not connected to a shard map"), InlineMessage::Kind::Warning);
        emit finished();
        return;
    }
    const std::uint64_t ticket = m_generation.next();
    m_running = true;
    m_run->setEnabled(false);
    m_message->show(tr("Reading the fleet's figures and simulating…"), InlineMessage::Kind::Info);
    auto nodes = m_connection->requestNodes();
    runInBackground(
        m_connection->pool(), this,
        [store, nodes, options = options()]() -> core::Result<core::SimulationResult> {
            core::FleetAdmin admin(*store, *nodes);
            core::MigrationRequests& requests = admin.migrations();
            auto input = requests.plannerInput();
            if (!input)
                return input.error();
            return core::simulate(*input, options);
        },
        [this, ticket](core::Result<core::SimulationResult> result) {
            if (!m_generation.isCurrent(ticket))
                return;
            show(std::move(result));
        });
}

void WhatIfPage::show(core::Result<core::SimulationResult> result)
{
    m_running = false;
    m_run->setEnabled(true);
    if (!result) {
        m_message->show(tr("The simulation failed: %1").arg(QString::fromStdString(result.error().describe())),
            InlineMessage::Kind::Error);
        emit finished();
        return;
    }
    const QLocale locale;
    m_message->show(tr("%n space(s), %1 on %2 shard(s); adding shards moves at least %3 for an even share. "
                       "Dynamic lookup (current, planner, load-aware) moves only what has to move; the hashes "
                       "move every space whose computed shard changes.",
                        nullptr, static_cast<int>(result->spaces))
                        .arg(formatBytes(result->total.bytes))
                        .arg(result->shards.size())
                        .arg(formatBytes(result->minimumMovedOnAdd)),
        InlineMessage::Kind::Info);
    QStringList names;
    QList<double> maxOverMean;
    QList<double> onAdd;
    QList<double> onRemove;
    for (const core::StrategyOutcome& outcome : result->strategies) {
        names << QString::fromStdString(outcome.name);
        maxOverMean << outcome.bytes.maxOverMean;
        onAdd << outcome.onAdd.shareOfBytes * 100;
        onRemove << outcome.onRemove.shareOfBytes * 100;
    }
    m_evenness->setBars(
        tr("Largest shard over the mean (bytes)"), names, { { tr("max/mean"), maxOverMean } }, tr("× mean"));
    m_moved->setBars(tr("Data moved when shards change"), names,
        { { tr("adding %n shard(s)", nullptr, static_cast<int>(result->addedShards.size())), onAdd },
            { tr("removing %n shard(s)", nullptr, static_cast<int>(result->removedShards.size())), onRemove } },
        tr("% of bytes"));
    m_model->setResult(std::move(*result));
    emit finished();
}

} // namespace shardmap::widgets

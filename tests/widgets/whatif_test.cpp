// The what-if page against a real fleet (shardmap-node processes and an SQLite shard map): the
// fleet's own spaces laid out by every strategy, read and simulated off the UI thread, shown as
// a table and two charts.
#include "tests/support/fleet_test.h"
#include "tests/support/seed_spaces.h"
#include "tests/widgets/wait_for.h"
#include "widgets/charts/comparison_chart.h"
#include "widgets/style/inline_message.h"
#include "widgets/whatif/simulation_model.h"
#include "widgets/whatif/whatif_page.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QValueAxis>
#include <cmath>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

class WhatIfTest : public testing::FleetTest<::testing::Test> { };

// The texts a chart's scene draws (axis labels, titles, legend).
QStringList drawnTexts(QChartView& view)
{
    QStringList texts;
    for (QGraphicsItem* item : view.scene()->items()) {
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item))
            texts << text->toPlainText();
        else if (auto* simple = dynamic_cast<QGraphicsSimpleTextItem*>(item))
            texts << simple->text();
    }
    return texts;
}

int rowOf(const SimulationModel& model, const QString& name)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.index(row, SimulationModel::StrategyColumn).data().toString() == name)
            return row;
    }
    return -1;
}

TEST_F(WhatIfTest, EveryStrategyOnTheFleetsOwnSpacesSideBySide)
{
    startFleet(4);
    std::vector<std::string> spaces;
    for (int i = 0; i < 30; ++i)
        spaces.push_back("t" + std::to_string(i));
    testing::seedSpaces(*m_store, *nodeOf("s0"), "s0", spaces, { 30, 12, 6, 3 });
    testing::seedSpaces(*m_store, *nodeOf("s1"), "s1", { "u0", "u1" }, { 8 });

    FleetConnection connection;
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri());
    connection.open(spec);
    ASSERT_TRUE(waitFor([&] { return connection.map() != nullptr; }));
    WhatIfPage page(&connection);
    QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    page.setShardChanges(2, 1);
    page.run();
    EXPECT_TRUE(page.running()) << "the simulation runs off the UI thread";
    ASSERT_TRUE(waitFor([&] { return !page.running(); }));
    const SimulationModel& model = *page.model();
    ASSERT_EQ(model.rowCount(), 7) << page.messageText().toStdString();
    auto* message = page.findChild<InlineMessage*>(QStringLiteral("whatIfMessage"));
    ASSERT_NE(message, nullptr);
    EXPECT_EQ(message->kind(), InlineMessage::Kind::Info);
    EXPECT_TRUE(message->shownText().contains(QStringLiteral("32 space"))) << message->shownText().toStdString();
    for (const char* name : { "current", "planner", "load-aware", "jump", "rendezvous", "mod-n", "bounded-load" })
        EXPECT_GE(rowOf(model, QString::fromLatin1(name)), 0) << name;
    const auto value = [&](const char* name, int column) {
        return model.index(rowOf(model, QString::fromLatin1(name)), column).data(SimulationModel::ValueRole).toDouble();
    };
    EXPECT_GT(value("current", SimulationModel::MaxOverMeanColumn), 3.0) << "nearly everything is on s0";
    EXPECT_LT(
        value("planner", SimulationModel::MaxOverMeanColumn), value("current", SimulationModel::MaxOverMeanColumn));
    EXPECT_GT(
        value("mod-n", SimulationModel::MovedOnAddColumn), value("rendezvous", SimulationModel::MovedOnAddColumn));
    EXPECT_EQ(model.result().addedShards.size(), 2u);
    EXPECT_EQ(model.result().removedShards.size(), 1u);
    EXPECT_EQ(model.result().spaces, 32u);
    EXPECT_EQ(page.evennessChart()->categories().size(), 7);
    EXPECT_TRUE(
        model.headerData(SimulationModel::MovedOnAddColumn, Qt::Horizontal).toString().contains(QLatin1Char('2')));
    EXPECT_FALSE(model.index(0, SimulationModel::StrategyColumn).data(Qt::ToolTipRole).toString().isEmpty());

    // At the console's size every strategy's name is drawn whole (under the bars they were cut
    // to "plann..." and "rend..." with room to spare), and the values' ticks are round.
    page.resize(1140, 760);
    static_cast<QWidget&>(page).show();
    QCoreApplication::processEvents();
    for (ComparisonChart* chart : { page.evennessChart(), page.movedChart() }) {
        const QStringList drawn = drawnTexts(*chart);
        for (const QString& name : chart->categories())
            EXPECT_TRUE(drawn.contains(name))
                << name.toStdString() << " in " << drawn.join(QLatin1Char('|')).toStdString();
        auto* values = qobject_cast<QValueAxis*>(chart->chart()->axes(Qt::Horizontal).value(0));
        ASSERT_NE(values, nullptr);
        const double step = (values->max() - values->min()) / (values->tickCount() - 1);
        const double power = std::pow(10.0, std::floor(std::log10(step)));
        const double factor = step / power;
        EXPECT_TRUE(std::abs(factor - std::round(factor)) < 1e-9 || std::abs(factor - 2.5) < 1e-9) << step;
    }

    // Growth: every space twice as big doubles the simulated bytes.
    const double bytes = model.result().total.bytes;
    page.setGrowth({ 2.0, 0, 1.0, 0, 1 });
    page.run();
    ASSERT_TRUE(waitFor([&] { return !page.running(); }));
    EXPECT_NEAR(model.result().total.bytes, 2 * bytes, 1.0);
}

TEST_F(WhatIfTest, WithoutAConnectionItSaysSo)
{
    FleetConnection connection;
    WhatIfPage page(&connection);
    page.run();
    EXPECT_FALSE(page.running());
    EXPECT_TRUE(page.messageText().contains(QStringLiteral("Not connected")));
    auto* message = page.findChild<InlineMessage*>(QStringLiteral("whatIfMessage"));
    ASSERT_NE(message, nullptr);
    EXPECT_EQ(message->kind(), InlineMessage::Kind::Warning);
    EXPECT_EQ(page.model()->rowCount(), 0);
}

} // namespace
} // namespace shardmap::widgets

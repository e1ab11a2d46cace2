// What the shard map page says (issue 26): a refused drop says why, the drop's confirmation
// names the shard the spaces leave and the planner's estimate, an outcome ("Queued …", "Plan
// saved …") goes at the next action, lanes say "after moves" only when a move changes them, and
// the legend shows the tiles' own colours.
#include "tests/support/test_dir.h"
#include "tests/widgets/map_fixtures.h"
#include "tests/widgets/wait_for.h"
#include "widgets/map/map_legend.h"
#include "widgets/map/map_page.h"
#include "widgets/map/shard_map_view.h"
#include "widgets/wizards/plan_wizard.h"

#include <QApplication>
#include <QDialog>
#include <QDragEnterEvent>
#include <QLabel>
#include <QTimer>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

class MapPageWordsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        page = std::make_unique<MapPage>(&connection);
        page->resize(1000, 600);
        page->show();
        page->model()->setMap(makeMap());
        feed(*page->model());
    }

    void drop(const QStringList& spaces, const QString& shard)
    {
        ShardMapView* view = page->view();
        const auto drag = dragOf(*page->model(), spaces);
        const QPoint lane = view->laneRect(shard).center();
        QDragEnterEvent enter(lane, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(view->viewport(), &enter);
        QDropEvent dropped(QPointF(lane), Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(view->viewport(), &dropped);
    }

    FleetConnection connection;
    std::unique_ptr<MapPage> page;
};

TEST_F(MapPageWordsTest, ARefusedDropSaysWhy)
{
    drop({ QStringLiteral("a") }, QStringLiteral("s0"));
    EXPECT_EQ(page->messageText(), QStringLiteral("Space a is already on shard s0"));
    auto draining = std::make_shared<core::MapSnapshot>(*makeMap(2));
    draining->shards["s2"].value.state = core::ShardState::Draining;
    page->model()->setMap(draining);
    drop({ QStringLiteral("a") }, QStringLiteral("s2"));
    EXPECT_EQ(page->messageText(), QStringLiteral("Shard s2 is draining"));
}

TEST_F(MapPageWordsTest, TheDropConfirmationNamesTheSourceAndThePlannersEstimate)
{
    QStringList shown;
    QTimer::singleShot(0, page.get(), [&] {
        ASSERT_TRUE(testing::waitFor([] { return QApplication::activeModalWidget() != nullptr; }, 10000));
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        ASSERT_NE(dialog, nullptr);
        for (const QLabel* label : dialog->findChildren<QLabel*>())
            shown << label->text();
        dialog->reject();
    });
    EXPECT_FALSE(page->requestMoves({ QStringLiteral("a") }, QStringLiteral("s1")));
    const MoveEstimate estimate = page->estimate({ QStringLiteral("a") }, QStringLiteral("s1"));
    EXPECT_TRUE(shown.contains(QStringLiteral("From shard:"))) << shown.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(shown.contains(QStringLiteral("s0"))) << shown.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(shown.contains(MapPage::durationText(estimate))) << shown.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(MapPage::durationText(estimate).startsWith(QStringLiteral("about ")));
    EXPECT_TRUE(MapPage::durationText(estimate).contains(QStringLiteral("100 docs/s per migration")));
    EXPECT_TRUE(MapPage::durationText(estimate).contains(PlanWizard::rateSourceText("throttle")));

    // Unthrottled and nothing measured: the planner's assumed rate, said as such.
    auto unthrottled = std::make_shared<core::MapSnapshot>(*makeMap(2));
    unthrottled->settings.value.defaultThrottleDocsPerSecond = 0;
    page->model()->setMap(unthrottled);
    const MoveEstimate assumed = page->estimate({ QStringLiteral("a") }, QStringLiteral("s1"));
    EXPECT_EQ(assumed.rateSource, QStringLiteral("assumed"));
    EXPECT_GT(assumed.seconds, 0);
    EXPECT_TRUE(MapPage::durationText(assumed).contains(PlanWizard::rateSourceText("assumed")));
}

TEST_F(MapPageWordsTest, AnOutcomeGoesAtTheNextAction)
{
    testing::TempDir dir;
    page->setPlanMode(true);
    ASSERT_TRUE(page->requestMoves({ QStringLiteral("a") }, QStringLiteral("s1")));
    ASSERT_TRUE(page->savePlan(QString::fromStdString(dir.file("plan.json"))));
    EXPECT_TRUE(page->messageText().startsWith(QStringLiteral("Plan saved to")));
    const auto drag = dragOf(*page->model(), { QStringLiteral("b") });
    QDragEnterEvent enter(page->view()->laneRect(QStringLiteral("s2")).center(), Qt::MoveAction, drag.get(),
        Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(page->view()->viewport(), &enter);
    EXPECT_EQ(page->messageText(), QString()) << "a new drag is the next action";

    ASSERT_TRUE(page->savePlan(QString::fromStdString(dir.file("plan.json"))));
    EXPECT_TRUE(testing::waitFor([&] { return page->messageText().isEmpty(); }, 4 * MapPage::kOutcomeShownMs));
}

TEST_F(MapPageWordsTest, LanesSayAfterMovesOnlyWhenAMoveChangesThem)
{
    ShardMapView* view = page->view();
    ShardMapModel& model = *page->model();
    EXPECT_EQ(view->fillText(model.laneIndex(QStringLiteral("s1"))), QStringLiteral("10 docs"));
    EXPECT_EQ(view->fillText(model.laneIndex(QStringLiteral("s2"))), QStringLiteral("0 docs"));
    page->setPlanMode(true);
    ASSERT_TRUE(page->requestMoves({ QStringLiteral("a") }, QStringLiteral("s1")));
    model.flushProjections();
    EXPECT_EQ(
        view->fillText(model.laneIndex(QStringLiteral("s1"))), QStringLiteral("10 docs now, 110 docs after moves"));
    EXPECT_EQ(
        view->fillText(model.laneIndex(QStringLiteral("s0"))), QStringLiteral("150 docs now, 50 docs after moves"));
    EXPECT_EQ(view->fillText(model.laneIndex(QStringLiteral("s2"))), QStringLiteral("0 docs"));

    auto limited = std::make_shared<core::MapSnapshot>(*makeMap(2));
    limited->shards["s2"].value.capacityDocs = 200;
    model.setMap(limited);
    model.flushProjections();
    EXPECT_EQ(view->fillText(model.laneIndex(QStringLiteral("s2"))), QStringLiteral("0% full"));
}

TEST_F(MapPageWordsTest, TheLegendShowsTheTilesColours)
{
    MapLegend* legend = page->legend();
    ASSERT_NE(legend, nullptr);
    ASSERT_TRUE(legend->isVisible());
    EXPECT_GE(legend->width(), legend->sizeHint().width()) << "the legend is not cut at 1000 px";
    const QImage image = legend->grab().toImage();
    const QRect gradient = legend->gradientRect();
    const auto near = [](QColor a, QColor b) {
        return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) <= 24;
    };
    const qreal ratio = image.devicePixelRatio();
    const QColor idle = image.pixelColor(QPoint(gradient.left() + 1, gradient.center().y()) * ratio);
    const QColor busiest = image.pixelColor(QPoint(gradient.right() - 1, gradient.center().y()) * ratio);
    EXPECT_TRUE(near(idle, ShardMapView::loadColour(0))) << idle.name().toStdString();
    EXPECT_TRUE(near(busiest, ShardMapView::loadColour(1))) << busiest.name().toStdString();
    EXPECT_FALSE(near(idle, busiest));
}

} // namespace
} // namespace shardmap::widgets

// The Balancer page (issue 33) against a real store, real nodes and a real shardmapd whose leader
// runs the balancer in dry run: its state sentence, window and decisions as the leader records
// them, a killed node's hold (the signal the overview's tile follows), the policy dialog's check,
// and the policy set from the page.
#include "core/balancer/balancer_policy.h"
#include "core/router/router.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/balancer/balancer_page.h"
#include "widgets/balancer/balancer_policy_dialog.h"
#include "widgets/session/fleet_connection.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <gtest/gtest.h>

using namespace shardmap;
using namespace shardmap::widgets;
using shardmap::testing::waitFor;

namespace {

class BalancerPageTest : public shardmap::testing::FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(2);
        auto router = core::Router::start(*m_store, m_pool, {});
        ASSERT_TRUE(router) << router.error().describe();
        for (const char* space : { "a", "b", "c", "d" }) {
            addSpaceRecord(space, "s0");
            ASSERT_TRUE((*router)->write({ { space, "d1", 1, { { "body", "words" } }, false } }));
        }
    }

    void connect()
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        m_connection.open(spec);
        ASSERT_TRUE(waitFor([&] { return m_connection.map() && m_connection.map()->shard("s1"); }));
    }

    static QString cell(const QTableWidget& table, int row, int column)
    {
        return table.item(row, column) ? table.item(row, column)->text() : QString();
    }

    FleetConnection m_connection;
};

} // namespace

TEST_F(BalancerPageTest, ShowsWhatARealLeaderDecidedAndSetsThePolicy)
{
    core::BalancerPolicy policy;
    policy.mode = core::BalancerMode::DryRun;
    policy.nodeDiskLimit = 0;
    policy.bandBytes = 1.0;
    policy.bandLoad = 1.0;
    policy.evaluateEverySeconds = 1;
    ASSERT_TRUE(core::setBalancerPolicy(*m_store, policy, m_actor));
    auto controller = shardmap::testing::ControllerProcess::start(
        m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(controller);
    connect();

    BalancerPage page(&m_connection);
    QSignalSpy shown(&page, &BalancerPage::statusShown);
    QTableWidget& decisions = *page.decisions();
    ASSERT_TRUE(waitFor(
        [&] {
            page.refresh();
            return decisions.rowCount() >= 1 && cell(decisions, 0, 1) == QStringLiteral("dry-run");
        },
        30000))
        << page.stateText().toStdString() << "\n"
        << controller->stderrText();
    EXPECT_EQ(page.stateText(), QStringLiteral("Balancer dry-run: dry run: empty shards to fill: s1 on n1"));
    EXPECT_EQ(page.windowText(), QStringLiteral("Window: any time."));
    EXPECT_EQ(cell(decisions, 0, 2), QStringLiteral("fill"));

    m_nodes[1]->kill9();
    ASSERT_TRUE(waitFor(
        [&] {
            page.refresh();
            return page.stateText().contains(QStringLiteral("held: node n1 did not answer"));
        },
        30000))
        << page.stateText().toStdString();
    ASSERT_TRUE(waitFor([&] { return !shown.isEmpty() && shown.back().at(2).toBool(); }));
    EXPECT_EQ(shown.back().at(0).toString(), QStringLiteral("dry-run"));

    // The dialog checks with core's words; Save waits for a valid policy and a reason.
    BalancerPolicyDialog dialog(policy, 4);
    dialog.editor()->setPlainText(QStringLiteral(R"({"mode": "sometimes"})"));
    dialog.reasonEdit()->setText(QStringLiteral("go"));
    EXPECT_TRUE(dialog.checkLabel()->text().contains(QStringLiteral("mode is off, dry-run or on")))
        << dialog.checkLabel()->text().toStdString();
    EXPECT_FALSE(dialog.saveButton()->isEnabled());
    dialog.editor()->setPlainText(QStringLiteral(R"({"mode": "on", "max_concurrent": 4})"));
    EXPECT_TRUE(dialog.checkLabel()->text().contains(QStringLiteral("must stay below the executor's 4")));
    dialog.editor()->setPlainText(QStringLiteral(R"({"mode": "on", "node_disk_limit": 0})"));
    ASSERT_TRUE(dialog.saveButton()->isEnabled()) << dialog.checkLabel()->text().toStdString();
    ASSERT_TRUE(dialog.policy());

    ASSERT_TRUE(page.policyButton()->isEnabled());
    QSignalSpy finished(&page, &BalancerPage::actionFinished);
    page.setPolicy(*dialog.policy(), dialog.reason());
    ASSERT_TRUE(waitFor([&] { return finished.count() == 1; }));
    EXPECT_TRUE(finished.front().at(0).toBool()) << finished.front().at(1).toString().toStdString();
    auto stored = core::readBalancerPolicy(*m_store);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->value.mode, core::BalancerMode::On);
}

// The planner's wizards offscreen against a real fleet (shardmap-node processes, an SQLite shard
// map and, end to end, a real shardmapd): the preview shows the moves and the before/after bars
// and re-plans live; Finish queues one operation and the migrations page opens filtered to it;
// the rebalance, add-shard and split wizards' migrations run and leave the fleet as planned; a
// plan whose map moved on is refused and queues nothing; "Edit in plan mode" opens the plan on
// the shard map page; the preview is reachable by keyboard.
#include "core/map/map_editor.h"
#include "core/migration/migration_requests.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/seed_spaces.h"
#include "tests/widgets/wait_for.h"
#include "widgets/charts/load_bars_chart.h"
#include "widgets/console/main_window.h"
#include "widgets/map/map_page.h"
#include "widgets/migrations/migrations_filter_proxy.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/style/format.h"
#include "widgets/style/i18n.h"
#include "widgets/style/inline_message.h"
#include "widgets/wizards/plan_moves_model.h"
#include "widgets/wizards/plan_wizard.h"

#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QLabel>
#include <QMap>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <optional>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

class WizardTest : public testing::FleetTest<::testing::Test> {
protected:
    // 24 spaces of 10-29 documents, all on s0 of a fleet of `shards` nodes with one shard each.
    void startLopsidedFleet(std::size_t shards)
    {
        startFleet(shards);
        std::vector<std::string> spaces;
        std::vector<int> docs;
        for (int i = 0; i < 24; ++i) {
            spaces.push_back("t" + std::to_string(i));
            docs.push_back(10 + (i * 7) % 20);
        }
        testing::seedSpaces(*m_store, *nodeOf("s0"), "s0", spaces, docs);
    }

    void startController()
    {
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.maxPerShard = 2;
        core::MigrationRequests requests(*m_store, m_pool);
        ASSERT_TRUE(requests.setSettings(settings, m_actor));
        m_controller = testing::ControllerProcess::start(
            m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" });
        ASSERT_TRUE(m_controller);
    }

    ConnectionSpec spec() const
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        spec.metricsIntervalMs = 200;
        return spec;
    }

    void open(FleetConnection& connection)
    {
        connection.setReconnectBackoff(100, 500);
        connection.open(spec());
        ASSERT_TRUE(waitFor([&] { return connection.map() && !connection.map()->spaces.empty(); }));
    }

    void openWindow(MainWindow& window)
    {
        window.resize(1280, 800);
        window.show();
        window.connection()->setReconnectBackoff(100, 500);
        window.connectTo(spec());
        ASSERT_TRUE(waitFor([&] { return window.connection()->map() && !window.connection()->map()->spaces.empty(); }));
    }

    // Next from the scenario page, then waits for the preview's plan.
    static void preview(PlanWizard& wizard)
    {
        wizard.next();
        ASSERT_EQ(wizard.currentId(), PlanWizard::PreviewPageId);
        ASSERT_TRUE(waitFor([&] { return !wizard.planning() && (wizard.result() || !wizard.errorText().isEmpty()); }));
        ASSERT_TRUE(wizard.result()) << wizard.errorText().toStdString();
    }

    // Confirms with a reason and waits until the operation is queued; its id.
    static QString finish(PlanWizard& wizard, const QString& reason)
    {
        QSignalSpy queued(&wizard, &PlanWizard::operationQueued);
        QSignalSpy failed(&wizard, &PlanWizard::applyFailed);
        wizard.next();
        EXPECT_EQ(wizard.currentId(), PlanWizard::ConfirmPageId);
        wizard.setReason(reason);
        wizard.button(QWizard::FinishButton)->click();
        EXPECT_TRUE(waitFor([&] { return queued.count() + failed.count() > 0; }));
        EXPECT_EQ(failed.count(), 0) << (failed.isEmpty() ? "" : failed.front().at(0).toString().toStdString());
        return queued.isEmpty() ? QString() : queued.front().at(0).toString();
    }

    // Waits until every migration of the operation is final and says whether all are done.
    bool operationDone(const QString& operationId)
    {
        const std::string id = operationId.toStdString();
        const bool finished = testing::pollUntil(std::chrono::seconds(120), [&] {
            auto map = core::MapSnapshot::decode(*m_store->snapshot());
            const auto op = map->operations.find(id);
            if (op == map->operations.end())
                return false;
            return std::all_of(op->second.value.migrations.begin(), op->second.value.migrations.end(),
                [&](const std::string& m) { return !map->migrations.at(m).value.active(); });
        });
        if (!finished)
            return false;
        auto map = core::MapSnapshot::decode(*m_store->snapshot());
        for (const std::string& m : map->operations.at(id).value.migrations) {
            if (map->migrations.at(m).value.phase != core::MigrationPhase::Done) {
                ADD_FAILURE() << m << ": " << map->migrations.at(m).value.error;
                return false;
            }
        }
        return true;
    }

    // The records as the executor's cutover leaves them: t0 moved from s0 to s1 a minute ago and
    // s0 keeps its copy until the rollback window (the settings' 600 s) closes; no executor runs.
    // Returns when the window closes.
    std::int64_t cutOverT0()
    {
        const std::int64_t cutover = QDateTime::currentMSecsSinceEpoch() - 60'000;
        const core::MapSnapshot now = map();
        core::MigrationRecord migration;
        migration.id = "m-1700000000000-0001";
        migration.space = "t0";
        migration.source = "s0";
        migration.target = "s1";
        migration.phase = core::MigrationPhase::Cleanup;
        migration.backfilled = true;
        migration.cutoverUnixMs = cutover;
        core::SpaceRecord space = now.spaces.at("t0").value;
        space.shard = "s1";
        space.target = "s0";
        space.migrationId = migration.id;
        space.phase = core::MigrationPhase::Cleanup;
        ++space.epoch;
        auto committed
            = m_store->commit({ { { core::keys::migration(migration.id), core::encode(migration), 0 },
                                    { core::keys::space("t0"), core::encode(space), now.spaces.at("t0").modRevision } },
                std::nullopt, std::nullopt, "executor", "migration-cutover", "" });
        EXPECT_TRUE(committed) << committed.error().describe();
        return cutover + static_cast<std::int64_t>(now.settings.value.rollbackWindowSeconds) * 1000;
    }

    std::unique_ptr<testing::ControllerProcess> m_controller;
};

// A move's target shard with replicas lands the space on every copy's node (issue 30).
TEST(PlanMovesModel, SaysTheNodesEachTargetKeepsACopyOn)
{
    PlanMovesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    core::PlannedMove toB;
    toB.space = "x";
    toB.from = "a";
    toB.to = "b";
    core::PlannedMove toNew = toB;
    toNew.space = "y";
    toNew.to = "c";
    model.setMoves({ toB, toNew }, {}, { { "b", { "n1", "n2" } } });
    EXPECT_EQ(model.index(0, PlanMovesModel::NodesColumn).data().toString(), QStringLiteral("n1 + n2"));
    EXPECT_EQ(model.index(1, PlanMovesModel::NodesColumn).data().toString(), QString());
    EXPECT_EQ(model.headerData(PlanMovesModel::NodesColumn, Qt::Horizontal).toString(), QStringLiteral("On nodes"));
}

TEST_F(WizardTest, ThePreviewShowsMovesAndBarsAndReplansAsTheBudgetChanges)
{
    startLopsidedFleet(3);
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Rebalance);
    QAbstractItemModelTester tester(wizard.movesModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    wizard.show();
    preview(wizard);
    const core::PlanResult first = *wizard.result();
    ASSERT_GE(first.plan.moves.size(), 8u);
    EXPECT_EQ(wizard.movesModel()->rowCount(), static_cast<int>(first.plan.moves.size()));
    for (int row = 0; row < wizard.movesModel()->rowCount(); ++row) {
        EXPECT_EQ(wizard.movesModel()->index(row, PlanMovesModel::FromColumn).data().toString(), QStringLiteral("s0"));
        // The nodes the space lands on: here each target's one copy, on the node of its number.
        const QString to = wizard.movesModel()->index(row, PlanMovesModel::ToColumn).data().toString();
        EXPECT_EQ(wizard.movesModel()->index(row, PlanMovesModel::NodesColumn).data().toString(),
            QStringLiteral("n") + to.mid(1));
        EXPECT_GT(
            wizard.movesModel()->index(row, PlanMovesModel::DocsColumn).data(PlanMovesModel::ValueRole).toULongLong(),
            0u);
        EXPECT_TRUE(wizard.movesModel()
                        ->index(row, PlanMovesModel::ReasonColumn)
                        .data()
                        .toString()
                        .startsWith(QStringLiteral("rebalance: s0 holds")));
    }
    EXPECT_EQ(wizard.chart()->shownShards(),
        (QStringList { QStringLiteral("s0"), QStringLiteral("s1"), QStringLiteral("s2") }));
    const auto [before, after] = wizard.chart()->values(QStringLiteral("s0"));
    EXPECT_GT(before, 2 * after);
    EXPECT_TRUE(wizard.summaryText().contains(QStringLiteral("docs/s per migration")))
        << wizard.summaryText().toStdString();
    EXPECT_TRUE(wizard.summaryText().contains(PlanWizard::rateBasisText(first.summary)))
        << "says on what the estimate is based: " << wizard.summaryText().toStdString();
    EXPECT_TRUE(wizard.button(QWizard::NextButton)->isEnabled());

    wizard.setMaxMoves(2);
    ASSERT_TRUE(
        waitFor([&] { return !wizard.planning() && wizard.result() && wizard.result()->plan.moves.size() == 2; }));
    EXPECT_EQ(wizard.movesModel()->rowCount(), 2);
    EXPECT_TRUE(wizard.warningsText().contains(QStringLiteral("budget"))) << wizard.warningsText().toStdString();
    auto* warnings = wizard.findChild<InlineMessage*>(QStringLiteral("planWarnings"));
    ASSERT_NE(warnings, nullptr);
    EXPECT_EQ(warnings->shownText(), wizard.warningsText()) << "shown as an inline warning";
    EXPECT_EQ(warnings->kind(), InlineMessage::Kind::Warning);
    wizard.setMaxMoves(0);
    wizard.setBand(0.5);
    ASSERT_TRUE(
        waitFor([&] { return !wizard.planning() && wizard.result() && wizard.result()->plan.moves.size() != 2; }));
    EXPECT_LT(wizard.result()->plan.moves.size(), first.plan.moves.size()) << "a wider band asks for fewer moves";

    const QString dir = QStringLiteral(SHARDMAP_TEST_ARTIFACTS) + QStringLiteral("/screenshots");
    ASSERT_TRUE(QDir().mkpath(dir));
    EXPECT_TRUE(wizard.grab().save(dir + QStringLiteral("/wizard-preview.png")));
}

TEST_F(WizardTest, ThePreviewIsReachableByKeyboard)
{
    startLopsidedFleet(2);
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Rebalance);
    wizard.show();
    QApplication::setActiveWindow(&wizard);
    preview(wizard);
    QTest::keyClick(&wizard, Qt::Key_M, Qt::AltModifier);
    EXPECT_EQ(QApplication::focusWidget(), wizard.findChild<QSpinBox*>()) << "Alt+M focuses the move budget";
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
    ASSERT_TRUE(
        waitFor([&] { return !wizard.planning() && wizard.result() && wizard.result()->plan.moves.size() == 1; }));
}

TEST_F(WizardTest, RebalanceQueuesOneOperationTheMigrationsRunAndTheFleetEndsWithinTheBand)
{
    startLopsidedFleet(3);
    startController();
    MainWindow window;
    openWindow(window);
    PlanWizard* wizard = window.openWizard(static_cast<int>(core::Scenario::Rebalance));
    preview(*wizard);
    const std::size_t moves = wizard->result()->plan.moves.size();
    const QString operation = finish(*wizard, QStringLiteral("even out"));
    ASSERT_FALSE(operation.isEmpty());
    EXPECT_EQ(window.currentPage(), window.migrationsPage());
    EXPECT_EQ(window.migrationsPage()->proxy()->operationFilter(), operation);
    EXPECT_TRUE(waitFor([&] { return window.migrationsPage()->proxy()->rowCount() == static_cast<int>(moves); }));
    const auto op = map().operations.at(operation.toStdString()).value;
    EXPECT_EQ(op.kind, core::OperationKind::Move);
    EXPECT_EQ(op.reason, "even out");
    EXPECT_EQ(op.migrations.size(), moves);
    ASSERT_TRUE(operationDone(operation)) << m_controller->stderrText();

    // Write rates are the nodes' last one-second samples: the seeding's burst on s0 is load until
    // a sample passes without it (a migration's copies never are). Docs and bytes hold at once.
    core::MigrationRequests requests(*m_store, m_pool);
    std::optional<core::PlanResult> again;
    testing::pollUntil(std::chrono::seconds(10), [&] {
        auto input = requests.plannerInput();
        auto plan = input ? core::planRebalance(*input) : core::Result<core::PlanResult>(input.error());
        if (plan)
            again = *plan;
        return plan && plan->summary.balancedBefore;
    });
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->summary.balancedBefore) << (again->warnings.empty() ? "" : again->warnings.front());
    EXPECT_TRUE(again->plan.moves.empty());
    EXPECT_LE(again->summary.objectives[0].maxOverMeanBefore, 1.10);
}

TEST_F(WizardTest, AddShardCreatesTheShardAndItsMigrationsFillIt)
{
    startLopsidedFleet(2);
    startController();
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::AddShards, QStringLiteral("s9@n1"));
    wizard.show();
    preview(wizard);
    ASSERT_EQ(wizard.result()->plan.newShards.size(), 1u);
    for (const auto& move : wizard.result()->plan.moves)
        EXPECT_EQ(move.to, "s9");
    const QString operation = finish(wizard, QStringLiteral("more room"));
    ASSERT_FALSE(operation.isEmpty());
    ASSERT_TRUE(operationDone(operation)) << m_controller->stderrText();
    const auto after = map();
    ASSERT_TRUE(after.shards.contains("s9"));
    EXPECT_EQ(after.shards.at("s9").value.node, "n1");
    EXPECT_GE(after.spacesOn("s9").size(), 4u);
}

TEST_F(WizardTest, SplitMovesAboutHalfOfTheShardToTheNewOne)
{
    startLopsidedFleet(2);
    startController();
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Split, QStringLiteral("s0"));
    wizard.setNewShard(QStringLiteral("s0b"), QStringLiteral("n1"));
    wizard.show();
    preview(wizard);
    const QString operation = finish(wizard, QStringLiteral("too big"));
    ASSERT_FALSE(operation.isEmpty());
    ASSERT_TRUE(operationDone(operation)) << m_controller->stderrText();
    core::MigrationRequests requests(*m_store, m_pool);
    auto input = requests.plannerInput();
    ASSERT_TRUE(input);
    double s0 = 0, s0b = 0;
    for (const auto& space : input->spaces) {
        (space.shard == "s0" ? s0 : space.shard == "s0b" ? s0b : s0) += space.load.bytes;
    }
    EXPECT_NEAR(s0b / (s0 + s0b), 0.5, 0.1) << s0 << " and " << s0b;
}

// Issue 31: the "Change index settings" wizard rebuilds a shard with another template, live.
TEST_F(WizardTest, ChangeIndexSettingsRebuildsTheShardWithTheTemplateAndDropsTheOldOne)
{
    startLopsidedFleet(2);
    core::IndexSettings stemmed = core::defaultIndexSettings();
    stemmed.tokenizer = core::Tokenizer::Porter;
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.createTemplate("stemmed", stemmed, "", m_actor));
    startController();
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Reindex, QStringLiteral("s0"));
    wizard.show();
    EXPECT_EQ(wizard.request().toTemplate, "stemmed:1") << "the newest template is offered first";
    EXPECT_EQ(wizard.request().subjects, std::vector<std::string> { "s0" });
    preview(wizard);
    const core::Plan& plan = wizard.result()->plan;
    EXPECT_EQ(plan.kind, "reindex");
    ASSERT_EQ(plan.newShards.size(), 1u);
    EXPECT_EQ(plan.newShards[0].id, "s0-stemmed-v1");
    EXPECT_EQ(plan.newShards[0].node, "n0");
    EXPECT_EQ(plan.moves.size(), 24u);
    const QString operation = finish(wizard, QStringLiteral("stemming for the docs site"));
    ASSERT_FALSE(operation.isEmpty());
    ASSERT_TRUE(operationDone(operation)) << m_controller->stderrText();
    // Retired once emptied, then dropped by the executor (the rollback window is 0 here).
    ASSERT_TRUE(testing::pollUntil(std::chrono::seconds(30), [&] { return !map().shards.contains("s0"); }));
    const auto after = map();
    EXPECT_EQ(after.spacesOn("s0-stemmed-v1").size(), 24u);
    EXPECT_EQ(after.shards.at("s0-stemmed-v1").value.templateName, "stemmed");
}

TEST_F(WizardTest, APlanIsRefusedWhenTheMapMovedOnAndNothingIsQueued)
{
    startLopsidedFleet(2);
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Rebalance);
    wizard.show();
    preview(wizard);
    const std::string moved = wizard.result()->plan.moves.front().space;
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.pinSpace(moved, "s0", m_actor));
    QSignalSpy failed(&wizard, &PlanWizard::applyFailed);
    wizard.next();
    wizard.setReason(QStringLiteral("late"));
    wizard.button(QWizard::FinishButton)->click();
    ASSERT_TRUE(failed.wait(20000) || failed.count() == 1);
    const QString message = failed.front().at(0).toString();
    EXPECT_TRUE(message.contains(QStringLiteral("moved on"))) << message.toStdString();
    EXPECT_TRUE(message.contains(QString::fromStdString("space " + moved + " was pinned"))) << message.toStdString();
    EXPECT_TRUE(wizard.isVisible()) << "the wizard stays open to plan again or cancel";
    auto* shown = wizard.findChild<InlineMessage*>(QStringLiteral("applyMessage"));
    ASSERT_NE(shown, nullptr);
    EXPECT_EQ(shown->shownText(), message);
    EXPECT_EQ(shown->kind(), InlineMessage::Kind::Error);
    EXPECT_TRUE(map().migrations.empty());
    EXPECT_TRUE(map().operations.empty());
}

TEST_F(WizardTest, EditInPlanModeOpensThePlanOnTheShardMapPage)
{
    startLopsidedFleet(2);
    MainWindow window;
    openWindow(window);
    PlanWizard* wizard = window.openWizard(static_cast<int>(core::Scenario::Rebalance));
    preview(*wizard);
    const auto moves = wizard->result()->plan.moves;
    emit wizard->editInPlanModeRequested();
    EXPECT_EQ(window.currentPage(), window.mapPage());
    EXPECT_TRUE(window.mapPage()->planMode());
    EXPECT_EQ(window.mapPage()->plan().moves, moves);
    EXPECT_EQ(window.mapPage()->plan().subject, "rebalance");
}

// The Alt key of a text ("S&hard" -> 'h'), lower case; null when it has none.
QChar mnemonicOf(const QString& text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != QLatin1Char('&'))
            continue;
        if (text[i + 1] != QLatin1Char('&'))
            return text[i + 1].toLower();
        ++i;
    }
    return {};
}

// The Alt keys of what the wizard shows now (its buttons, the labels of its fields), each with
// the texts that claim it.
QMap<QChar, QStringList> shownMnemonics(PlanWizard& wizard)
{
    QMap<QChar, QStringList> keys;
    for (auto* button : wizard.findChildren<QAbstractButton*>()) {
        if (button->isVisibleTo(&wizard) && !mnemonicOf(button->text()).isNull())
            keys[mnemonicOf(button->text())] << button->text();
    }
    for (auto* label : wizard.findChildren<QLabel*>()) {
        if (label->buddy() && label->isVisibleTo(&wizard) && !mnemonicOf(label->text()).isNull())
            keys[mnemonicOf(label->text())] << label->text();
    }
    return keys;
}

std::string clashes(const QMap<QChar, QStringList>& keys)
{
    std::string out;
    for (auto it = keys.begin(); it != keys.end(); ++it) {
        if (it.value().size() > 1)
            out += it.value().join(QStringLiteral(" / ")).toStdString() + "; ";
    }
    return out;
}

// The labels of the scenario page's fields shown now, without their '&'.
QStringList shownFieldLabels(PlanWizard& wizard)
{
    QStringList labels;
    for (auto* label : wizard.page(PlanWizard::ScenarioPageId)->findChildren<QLabel*>()) {
        if (label->buddy() && label->isVisibleTo(&wizard))
            labels << label->text().remove(QLatin1Char('&'));
    }
    return labels;
}

TEST(WizardFields, EveryPageOfEveryScenarioHasUniqueAltKeysAndOneClearFieldPerThingNamed)
{
    FleetConnection connection;
    PlanWizard wizard(&connection, core::Scenario::Rebalance);
    wizard.show();
    const std::map<core::Scenario, QStringList> expected {
        { core::Scenario::Rebalance, { QStringLiteral("Scenario:") } },
        { core::Scenario::AddShards, { QStringLiteral("Scenario:"), QStringLiteral("Shards to fill:") } },
        { core::Scenario::Drain, { QStringLiteral("Scenario:"), QStringLiteral("Shard to drain:") } },
        { core::Scenario::RetireNode, { QStringLiteral("Scenario:"), QStringLiteral("Node to retire:") } },
        { core::Scenario::Split,
            { QStringLiteral("Scenario:"), QStringLiteral("Shard to split:"), QStringLiteral("New shard:"),
                QStringLiteral("Node of the new shard:") } },
        { core::Scenario::Merge,
            { QStringLiteral("Scenario:"), QStringLiteral("Shard to empty:"), QStringLiteral("Into shard:") } },
        { core::Scenario::Isolate,
            { QStringLiteral("Scenario:"), QStringLiteral("Space to isolate:"), QStringLiteral("New shard:"),
                QStringLiteral("Node of the new shard:") } },
    };
    for (const auto& [scenario, labels] : expected) {
        wizard.setScenario(scenario);
        EXPECT_EQ(shownFieldLabels(wizard), labels) << static_cast<int>(scenario);
        EXPECT_EQ(clashes(shownMnemonics(wizard)), "") << "scenario page of " << static_cast<int>(scenario);
    }
    // Unconnected, the preview says so; the pages and their buttons are what they always are.
    wizard.setScenario(core::Scenario::Rebalance);
    wizard.next();
    ASSERT_EQ(wizard.currentId(), PlanWizard::PreviewPageId);
    EXPECT_EQ(clashes(shownMnemonics(wizard)), "") << "preview page";
    EXPECT_TRUE(shownMnemonics(wizard).contains(QLatin1Char('n'))) << "Next has its Alt key";
    wizard.next();
    ASSERT_EQ(wizard.currentId(), PlanWizard::ConfirmPageId);
    EXPECT_EQ(clashes(shownMnemonics(wizard)), "") << "confirmation page";
}

TEST(WizardFields, SwitchingScenarioClearsWhatWasTypedForAnother)
{
    FleetConnection connection;
    PlanWizard wizard(&connection, core::Scenario::AddShards, QStringLiteral("s9@n1, s10@n2"));
    EXPECT_EQ(wizard.request().subjects, (std::vector<std::string> { "s9@n1", "s10@n2" }));
    wizard.setScenario(core::Scenario::Isolate);
    EXPECT_TRUE(wizard.request().subjects.empty()) << "the shards to fill are no space to isolate";
    wizard.setSubject(QStringLiteral("tenant-22"));
    wizard.setNewShard(QStringLiteral("s-own"), QStringLiteral("n1"));
    wizard.setScenario(core::Scenario::Split);
    EXPECT_TRUE(wizard.request().subjects.empty());
    EXPECT_EQ(wizard.request().newShard, "s-own") << "split names a new shard as isolate does";
    wizard.setScenario(core::Scenario::AddShards);
    EXPECT_TRUE(wizard.request().subjects.empty());
    EXPECT_TRUE(wizard.request().newShard.empty());
    wizard.setScenario(core::Scenario::RetireNode);
    wizard.setSubject(QStringLiteral("n1"));
    EXPECT_EQ(wizard.request().subjects, std::vector<std::string> { "n1" });
    wizard.setScenario(core::Scenario::Drain);
    EXPECT_TRUE(wizard.request().subjects.empty()) << "a node is no shard to drain";
    wizard.setSubject(QStringLiteral("s0"));
    wizard.setScenario(core::Scenario::Split);
    EXPECT_EQ(wizard.request().subjects, std::vector<std::string> { "s0" }) << "a shard stays a shard";
}

TEST_F(WizardTest, AFailedPlanClearsThePreviousPlansChart)
{
    startLopsidedFleet(2);
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Rebalance);
    wizard.show();
    preview(wizard);
    ASSERT_FALSE(wizard.chart()->shownShards().isEmpty());
    wizard.back();
    wizard.setScenario(core::Scenario::Drain);
    wizard.setSubject(QStringLiteral("no-such-shard"));
    wizard.next();
    ASSERT_TRUE(waitFor([&] { return !wizard.planning() && !wizard.errorText().isEmpty(); }));
    EXPECT_FALSE(wizard.result());
    EXPECT_TRUE(wizard.chart()->shownShards().isEmpty()) << "the rebalance's bars are gone";
    EXPECT_TRUE(wizard.chart()->chart()->series().isEmpty());
    EXPECT_EQ(wizard.movesModel()->rowCount(), 0);
}

// The estimate says on what it is based (issue 26, point 5): the throttle, the migrations
// measured, or an assumption until enough migrations are measured.
TEST(WizardSummary, TheRateBasisSaysOnWhatTheEstimateIsBased)
{
    core::PlanSummary summary;
    summary.rateSource = "throttle";
    EXPECT_EQ(PlanWizard::rateBasisText(summary), QStringLiteral("the executor's throttle"));
    summary.rateSource = "measured";
    summary.measuredMigrations = 4;
    EXPECT_EQ(PlanWizard::rateBasisText(summary), QStringLiteral("measured: the median of 4 migrations"));
    summary.rateSource = "assumed";
    summary.measuredMigrations = 1;
    summary.migrationsNeeded = 3;
    EXPECT_EQ(PlanWizard::rateBasisText(summary),
        QStringLiteral("assumed until 3 migrations that copied at least 10,000 docs are measured, 1 so far"));
}

// A wizard refused because a space is in its rollback window says when it can run, in the
// console's language and its local time, never UTC (issue 26, point 1).
TEST_F(WizardTest, ARefusedWizardSaysInLocalTimeWhenItCanRun)
{
    startLopsidedFleet(2);
    const std::int64_t until = cutOverT0();
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Drain, QStringLiteral("s1"));
    wizard.show();
    wizard.next();
    ASSERT_TRUE(waitFor([&] { return !wizard.planning() && !wizard.errorText().isEmpty(); }));
    EXPECT_FALSE(wizard.result());
    EXPECT_EQ(wizard.errorText(),
        QStringLiteral("space t0 is in its rollback window after moving to s1 (m-1700000000000-0001) until %1; it can "
                       "move then")
            .arg(formatClock(until)));
    EXPECT_FALSE(wizard.warningsText().contains(QStringLiteral("UTC"))) << wizard.warningsText().toStdString();

    installTranslations(*QCoreApplication::instance(), QStringLiteral("de"));
    wizard.replan();
    ASSERT_TRUE(waitFor([&] { return !wizard.planning() && !wizard.errorText().isEmpty(); }));
    const QString german = wizard.errorText();
    installTranslations(*QCoreApplication::instance(), QStringLiteral("en"));
    EXPECT_TRUE(german.startsWith(QStringLiteral("Space t0 ist nach dem Verschieben nach s1"))) << german.toStdString();
    EXPECT_TRUE(german.contains(QStringLiteral(" bis %1").arg(formatClock(until)))) << german.toStdString();
}

// The old shard keeps the moved space's copy for a rollback, but the space is not on it: a
// drain of it is planned without that space and queued during the window (issue 26).
TEST_F(WizardTest, TheOldShardIsDrainedDuringTheRollbackWindow)
{
    startLopsidedFleet(2);
    cutOverT0();
    FleetConnection connection;
    open(connection);
    PlanWizard wizard(&connection, core::Scenario::Drain, QStringLiteral("s0"));
    wizard.show();
    preview(wizard);
    ASSERT_EQ(wizard.result()->plan.moves.size(), 23u);
    for (const core::PlannedMove& move : wizard.result()->plan.moves)
        EXPECT_NE(move.space, "t0");
    const QString operation = finish(wizard, QStringLiteral("retire the old disk"));
    ASSERT_FALSE(operation.isEmpty());
    const core::MapSnapshot after = map();
    EXPECT_EQ(after.shards.at("s0").value.state, core::ShardState::Draining);
    EXPECT_EQ(after.operations.at(operation.toStdString()).value.migrations.size(), 23u);
    EXPECT_EQ(after.spaces.at("t0").value.phase, core::MigrationPhase::Cleanup) << "the window stays open";
}

} // namespace
} // namespace shardmap::widgets

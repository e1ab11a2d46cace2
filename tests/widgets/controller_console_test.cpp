// The console through shardmapd's Admin API (issue 17), offscreen against real processes: a real
// shardmapd with mutual TLS and a role file, real nodes and real certificates. A viewer's window
// shows the map and offers no action; an operator's move reaches shardmapd and the audit names the
// certificate's identity, not the console's user; an operator's drain above the approval threshold
// awaits approval, and another identity's window refuses or approves requests in the approvals
// page, whose badge counts the pending ones.
#include "core/auth/bearer_tokens.h"
#include "core/migration/migration_requests.h"
#include "tests/support/certificates.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/console_window.h"
#include "tests/widgets/wait_for.h"
#include "widgets/approvals/approvals_page.h"
#include "widgets/console/main_window.h"
#include "widgets/map/map_page.h"
#include "widgets/map/shard_map_view.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/style/format.h"
#include "widgets/style/i18n.h"
#include "widgets/style/inline_message.h"
#include "widgets/wizards/plan_wizard.h"

#include <QAction>
#include <QDropEvent>
#include <QMimeData>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTreeWidget>
#include <filesystem>
#include <fstream>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

// A client certificate with CN name, signed by the test CA in dir (NAME.pem, NAME.key).
bool makeClientCertificate(const std::string& dir, const std::string& name)
{
    const std::string script = "cd '" + dir
        + "' && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + name + ".key -out "
        + name + ".csr -subj /CN=" + name + " 2>/dev/null && openssl x509 -req -in " + name
        + ".csr -CA ca.pem -CAkey ca.key -CAcreateserial -out " + name + ".pem -days 2 2>/dev/null";
    return std::system(script.c_str()) == 0;
}

class ControllerConsoleTest : public testing::FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(testing::makeTestCertificates(m_dir.path()));
        for (const char* name : { "alice", "bob", "vera" })
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        writePolicy("viewer");
        startFleet(2);
        for (const char* space : { "acme", "globex" }) {
            addSpaceRecord(space, "s0");
            ASSERT_TRUE(nodeOf("s0")->setOwnership("s0", { space, core::SpaceRole::Owner, 1 }));
        }
        m_controller = testing::ControllerProcess::start(m_dir.file("shardmapd.stderr"),
            { "--store", storeUri(), "--id", "c1", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
                m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy",
                m_dir.file("access.json") });
        ASSERT_TRUE(m_controller);
    }

    // alice admin, bob operator, vera `veraRole`; more than one space moved needs a second person.
    void writePolicy(const std::string& veraRole)
    {
        std::ofstream(m_dir.file("access.json.tmp")) << R"({"version": 1,
            "roles": {"alice": "admin", "bob": "operator", "ci-bot": "operator", "vera": ")"
                + veraRole + R"("}, "approval": {"max_spaces": 1}})";
        std::filesystem::rename(m_dir.file("access.json.tmp"), m_dir.file("access.json"));
    }

    // A console window connected through shardmapd as `who` (its certificate), with the map shown.
    std::unique_ptr<MainWindow> consoleAs(const std::string& who)
    {
        ConnectionSpec spec;
        spec.controllerAddress = QString::fromStdString(m_controller->address());
        spec.controllerCaFile = QString::fromStdString(m_dir.file("ca.pem"));
        spec.controllerCertFile = QString::fromStdString(m_dir.file(who + ".pem"));
        spec.controllerKeyFile = QString::fromStdString(m_dir.file(who + ".key"));
        return console(spec);
    }

    std::unique_ptr<MainWindow> console(ConnectionSpec spec)
    {
        auto window = std::make_unique<MainWindow>();
        window->connection()->setReconnectBackoff(100, 500);
        spec.metricsIntervalMs = 200;
        window->resize(1280, 800);
        window->show();
        window->connectTo(spec);
        EXPECT_TRUE(waitFor([&] {
            const MapPtr map = window->connection()->map();
            return map && map->spaces.size() == 2;
        })) << window->connectionText().toStdString()
            << " " << window->bannerText().toStdString();
        return window;
    }

    // The newest audit record of a change someone made (not the executor's progress).
    core::AuditRecord lastChange()
    {
        auto history = m_store->history(0, 0, 0);
        EXPECT_TRUE(history);
        for (auto record = history->rbegin(); record != history->rend(); ++record) {
            if (!record->actor.starts_with("shardmapd/"))
                return *record;
        }
        return {};
    }

    std::unique_ptr<testing::ControllerProcess> m_controller;
};

TEST_F(ControllerConsoleTest, AViewersConsoleShowsTheMapAndHasNoEnabledAction)
{
    auto queued = core::MigrationRequests(*m_store, m_pool).queue("globex", "s1", m_actor);
    ASSERT_TRUE(queued) << queued.error().describe();
    auto window = consoleAs("vera");
    ASSERT_TRUE(waitFor([&] { return window->connection()->map()->migrations.size() == 1; }));
    EXPECT_EQ(window->identityText(), QStringLiteral("vera (viewer)"));
    EXPECT_EQ(window->environmentText(), QStringLiteral("VIEWER"));
    EXPECT_TRUE(window->connection()->readOnly());
    // The executor moves the queued migration meanwhile: what counts is that no one else changed.
    const auto lastChanged = lastChange().revision;

    MapPage* mapPage = window->mapPage();
    window->showPage(mapPage);
    EXPECT_TRUE(mapPage->model()->spaceIndex(QStringLiteral("acme")).isValid()) << "the viewer sees the map";
    EXPECT_FALSE(mapPage->view()->viewport()->acceptDrops());
    EXPECT_FALSE(mapPage->requestMoves({ QStringLiteral("acme") }, QStringLiteral("s1"), QStringLiteral("t"), false));
    EXPECT_TRUE(mapPage->messageText().contains(QStringLiteral("You are a viewer")))
        << mapPage->messageText().toStdString();

    MigrationsPage* migrations = window->migrationsPage();
    window->showPage(migrations);
    ASSERT_TRUE(waitFor([&] { return migrations->model()->record(QString::fromStdString(queued->id)) != nullptr; }));
    migrations->selectMigration(QString::fromStdString(queued->id));
    EXPECT_EQ(testing::expectMigrationActionsDisabled(*migrations, QStringLiteral("You are a viewer")), 6);
    // Every action and button of the window that would change the fleet, the context menus too.
    const QStringList swept = testing::expectNoEnabledChange(*window, QStringLiteral("You are a viewer"));
    for (const char* expected : { "Drain s0…", "Retire node n0…", "Rebalance the fleet…", "Wizards", "Move to…",
             "Apply plan", "Pause…", "Apply…", "Approve…", "Refuse…" })
        EXPECT_TRUE(swept.contains(QString::fromUtf8(expected))) << expected << " was not swept";
    EXPECT_EQ(swept.count(QStringLiteral("Drain s0…")), 2) << "the fleet row's and the map lane's";
    EXPECT_EQ(swept.count(QStringLiteral("Drain a shard…")), 2) << "the Plan menu's and the map's wizards";
    EXPECT_EQ(window->openWizard(static_cast<int>(core::Scenario::Drain), QStringLiteral("s0")), nullptr);

    ApprovalsPage* approvals = window->approvalsPage();
    EXPECT_FALSE(approvals->approveButton()->isEnabled());
    EXPECT_FALSE(approvals->refuseButton()->isEnabled());

    // What a page would send anyway is refused by shardmapd with its own sentence.
    v1::AdminChange change;
    change.mutable_steer_migration()->set_migration(queued->id);
    change.mutable_steer_migration()->set_action(v1::SteerMigration::PAUSE);
    std::optional<ChangeResult> answer;
    window->connection()->submitChange(
        change, QStringLiteral("t"), window.get(), [&](ChangeResult made) { answer = made; });
    ASSERT_TRUE(waitFor([&] { return answer.has_value(); }));
    ASSERT_FALSE(*answer);
    EXPECT_EQ(answer->error().code, core::ErrorCode::PermissionDenied);
    EXPECT_NE(FleetConnection::refusalText(answer->error()).toStdString().find("vera is a viewer"), std::string::npos)
        << answer->error().describe();
    EXPECT_EQ(lastChange().revision, lastChanged) << "nothing changed";

    // Roles change without a restart: the window follows shardmapd's role file.
    writePolicy("operator");
    ASSERT_TRUE(waitFor([&] { return window->identityText() == QStringLiteral("vera (operator)"); }, 30000))
        << window->identityText().toStdString();
    EXPECT_FALSE(window->connection()->readOnly());
    EXPECT_TRUE(window->environmentText().isEmpty()) << window->environmentText().toStdString();
    EXPECT_TRUE(mapPage->view()->viewport()->acceptDrops());
    // The wizards follow the role: offered again, in the menus and in the context menus.
    const testing::OnDemandMenus menus(*window, QStringLiteral("n0"), QStringLiteral("s0"));
    int wizards = 0;
    for (const QAction* action : window->findChildren<QAction*>()) {
        const QString text = action->text().remove(QLatin1Char('&'));
        if (text.startsWith(QStringLiteral("Drain")) || text == QStringLiteral("Rebalance the fleet…")) {
            ++wizards;
            EXPECT_TRUE(action->isEnabled()) << text.toStdString();
            EXPECT_FALSE(action->toolTip().contains(QStringLiteral("viewer"))) << action->toolTip().toStdString();
        }
    }
    EXPECT_EQ(wizards, 6) << "the Plan menu's, the map's wizards, the row's, the lane's and the rows' rebalance";
}

TEST_F(ControllerConsoleTest, AnOperatorsMoveReachesShardmapdAndTheAuditNamesTheCertificate)
{
    auto window = consoleAs("bob");
    EXPECT_EQ(window->identityText(), QStringLiteral("bob (operator)"));
    EXPECT_FALSE(window->connection()->readOnly());
    MapPage* mapPage = window->mapPage();
    window->showPage(mapPage);
    EXPECT_TRUE(mapPage->view()->viewport()->acceptDrops());

    // A real drop of acme's tile on s1's lane, confirmed with a reason.
    mapPage->setConfirmer([](const MoveEstimate&, QString& reason) {
        reason = QStringLiteral("hot tenant");
        return true;
    });
    QSignalSpy queued(mapPage, &MapPage::movesQueued);
    ShardMapModel& model = *mapPage->model();
    const std::unique_ptr<QMimeData> drag(model.mimeData({ model.spaceIndex(QStringLiteral("acme")) }));
    ShardMapView* view = mapPage->view();
    const QPoint lane = view->laneRect(QStringLiteral("s1")).center();
    QDragEnterEvent enter(lane, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &enter);
    QDragMoveEvent move(lane, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &move);
    EXPECT_TRUE(move.isAccepted()) << view->laneRefusal(QStringLiteral("s1")).toStdString();
    QDropEvent drop(QPointF(lane), Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &drop);
    EXPECT_TRUE(drop.isAccepted());
    ASSERT_TRUE(queued.wait(20000) || queued.count() == 1) << mapPage->messageText().toStdString();
    const std::string id = queued.front().at(0).toStringList().value(0).toStdString();
    ASSERT_TRUE(map().migrations.contains(id)) << id;
    const core::AuditRecord audit = lastChange();
    EXPECT_EQ(audit.actor, "bob") << "the certificate's identity, not the console's user";
    EXPECT_EQ(audit.reason, "hot tenant");

    // The migrations page acts through shardmapd too.
    MigrationsPage* migrations = window->migrationsPage();
    ASSERT_TRUE(waitFor([&] { return migrations->model()->record(QString::fromStdString(id)) != nullptr; }));
    QSignalSpy finished(migrations, &MigrationsPage::actionFinished);
    migrations->setThrottle(QString::fromStdString(id), 500, QStringLiteral("slow down"));
    ASSERT_TRUE(finished.wait(20000) || finished.count() == 1);
    EXPECT_TRUE(finished.front().at(1).toBool()) << finished.front().at(2).toString().toStdString();
    EXPECT_EQ(lastChange().actor, "bob");
    EXPECT_EQ(lastChange().reason, "slow down");
}

TEST_F(ControllerConsoleTest, ADrainAboveTheThresholdAwaitsApprovalAndAnotherConsoleApprovesIt)
{
    auto bob = consoleAs("bob");
    QPointer<PlanWizard> wizard = bob->openWizard(static_cast<int>(core::Scenario::Drain), QStringLiteral("s0"));
    ASSERT_NE(wizard, nullptr);
    wizard->next();
    ASSERT_EQ(wizard->currentId(), PlanWizard::PreviewPageId);
    ASSERT_TRUE(waitFor([&] { return !wizard->planning() && (wizard->result() || !wizard->errorText().isEmpty()); }));
    ASSERT_TRUE(wizard->result()) << wizard->errorText().toStdString();
    ASSERT_EQ(wizard->result()->plan.moves.size(), 2u);
    QSignalSpy awaiting(wizard, &PlanWizard::approvalRequested);
    QSignalSpy failed(wizard, &PlanWizard::applyFailed);
    wizard->next();
    ASSERT_EQ(wizard->currentId(), PlanWizard::ConfirmPageId);
    wizard->setReason(QStringLiteral("retire the old disk"));
    wizard->button(QWizard::FinishButton)->click();
    ASSERT_TRUE(waitFor([&] { return awaiting.count() + failed.count() > 0; }));
    ASSERT_EQ(failed.count(), 0) << failed.front().at(0).toString().toStdString();
    const QString approvalId = awaiting.front().at(0).toString();
    const QString text = awaiting.front().at(1).toString();
    EXPECT_TRUE(text.startsWith(QStringLiteral("Awaiting approval as ") + approvalId)) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("second person"))) << text.toStdString();
    EXPECT_TRUE(map().operations.empty()) << "nothing is queued before the approval";
    // The wizard closes (Finish again would ask twice); the approvals page says what awaits whom.
    EXPECT_TRUE(waitFor([&] { return wizard.isNull(); }));
    EXPECT_EQ(bob->currentPage(), bob->approvalsPage());
    EXPECT_EQ(bob->approvalsPage()->message()->shownText(), text);

    // The same drain asked once more, through the change seam: a second pending request.
    v1::AdminChange drain;
    drain.mutable_start_operation()->set_kind("drain");
    drain.mutable_start_operation()->set_subject("s0");
    std::optional<ChangeResult> again;
    bob->connection()->submitChange(
        drain, QStringLiteral("asked twice"), bob.get(), [&](ChangeResult made) { again = made; });
    ASSERT_TRUE(waitFor([&] { return again.has_value(); }));
    ASSERT_TRUE(*again) << again->error().describe();
    ASSERT_TRUE((*again)->has_awaiting_approval());
    const QString secondId = QString::fromStdString((*again)->awaiting_approval().id());

    // The requester sees both pending and may not decide them.
    ApprovalsPage* own = bob->approvalsPage();
    ASSERT_TRUE(waitFor([&] { return own->pendingCount() == 2; }));
    EXPECT_EQ(bob->approvalsNavigationText(), QStringLiteral("Approvals (2)"));
    own->selectApproval(approvalId);
    EXPECT_FALSE(own->approveButton()->isEnabled());
    EXPECT_TRUE(own->decisionRefusal(approvalId).startsWith(QStringLiteral("You requested")))
        << own->decisionRefusal(approvalId).toStdString();

    // Another identity's console approves it; the operation appears and the badge clears.
    auto alice = consoleAs("alice");
    EXPECT_EQ(alice->identityText(), QStringLiteral("alice (admin)"));
    ApprovalsPage* approvals = alice->approvalsPage();
    ASSERT_TRUE(waitFor([&] { return approvals->pendingCount() == 2; }));
    EXPECT_EQ(alice->approvalsNavigationText(), QStringLiteral("Approvals (2)"));
    alice->showPage(approvals);
    QSignalSpy refusedSpy(approvals, &ApprovalsPage::decided);
    approvals->refuse(secondId, QStringLiteral("asked twice"));
    ASSERT_TRUE(refusedSpy.wait(20000) || refusedSpy.count() == 1);
    EXPECT_TRUE(refusedSpy.front().at(1).toBool()) << refusedSpy.front().at(2).toString().toStdString();
    ASSERT_TRUE(waitFor([&] { return approvals->pendingCount() == 1; }));
    EXPECT_EQ(alice->approvalsNavigationText(), QStringLiteral("Approvals (1)"));
    EXPECT_TRUE(approvals->decisionRefusal(secondId).contains(QStringLiteral("refused already")))
        << approvals->decisionRefusal(secondId).toStdString();
    EXPECT_TRUE(map().operations.empty()) << "a refused request is never made";
    approvals->selectApproval(approvalId);
    EXPECT_TRUE(approvals->approveButton()->isEnabled()) << approvals->approveButton()->toolTip().toStdString();
    QSignalSpy decided(approvals, &ApprovalsPage::decided);
    approvals->approve(approvalId, QStringLiteral("checked the plan"));
    ASSERT_TRUE(decided.wait(20000) || decided.count() == 1);
    EXPECT_TRUE(decided.front().at(1).toBool()) << decided.front().at(2).toString().toStdString();
    ASSERT_EQ(map().operations.size(), 1u);
    EXPECT_EQ(map().operations.begin()->second.value.migrations.size(), 2u);
    ASSERT_TRUE(waitFor([&] { return approvals->pendingCount() == 0; }));
    EXPECT_EQ(alice->approvalsNavigationText(), QStringLiteral("Approvals"));
    ASSERT_TRUE(waitFor([&] { return own->pendingCount() == 0; })) << "the requester's badge follows";
}

// German (issue 26, point 12): the approvals page writes when a request was made as the locale
// writes dates, not in a fixed ISO format.
TEST_F(ControllerConsoleTest, TheApprovalsPageWritesDatesAsTheLocaleDoes)
{
    auto bob = consoleAs("bob");
    v1::AdminChange drain;
    drain.mutable_start_operation()->set_kind("drain");
    drain.mutable_start_operation()->set_subject("s0");
    std::optional<ChangeResult> asked;
    bob->connection()->submitChange(
        drain, QStringLiteral("retire the old disk"), bob.get(), [&](ChangeResult made) { asked = made; });
    ASSERT_TRUE(waitFor([&] { return asked.has_value(); }));
    ASSERT_TRUE(*asked && (*asked)->has_awaiting_approval()) << (*asked ? "" : asked->error().describe());
    const std::int64_t requested = (*asked)->awaiting_approval().requested_unix_ms();

    installTranslations(*QCoreApplication::instance(), QStringLiteral("de"));
    ApprovalsPage* page = bob->approvalsPage();
    QSignalSpy refreshed(page, &ApprovalsPage::refreshed);
    page->refresh();
    const bool shown = waitFor([&] { return !refreshed.isEmpty() && page->list()->topLevelItemCount() == 1; });
    const QString when = shown ? page->list()->topLevelItem(0)->text(6) : QString();
    const QString expected = formatDateTime(requested);
    installTranslations(*QCoreApplication::instance(), QStringLiteral("en"));
    ASSERT_TRUE(shown);
    EXPECT_EQ(when, expected);
    EXPECT_TRUE(QRegularExpression(QStringLiteral("^\\d{1,2}\\.\\d{1,2}\\.\\d{2,4} \\d{1,2}:\\d\\d:\\d\\d$"))
                    .match(when)
                    .hasMatch())
        << when.toStdString();
}

TEST_F(ControllerConsoleTest, ATokenFileStandsForItsIdentityAndAnUnknownTokenIsRefusedWithAReason)
{
    auto token = core::newToken("ci-bot");
    ASSERT_TRUE(token) << token.error().describe();
    testing::writeSecretFile(m_dir.file("tokens"), token->line + "\n");
    std::ofstream(m_dir.file("ci.token")) << token->token << "\n";
    std::ofstream(m_dir.file("wrong.token")) << std::string(64, '0') << "\n";
    // A replica with mutual TLS and tokens: a console holding a token, not a certificate, is let in.
    auto replica = testing::ControllerProcess::start(m_dir.file("shardmapd-tokens.stderr"),
        { "--store", storeUri(), "--id", "c2", "--no-executor", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
            m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy", m_dir.file("access.json"),
            "--tokens", m_dir.file("tokens") });
    ASSERT_TRUE(replica);
    ConnectionSpec spec;
    spec.controllerAddress = QString::fromStdString(replica->address());
    spec.controllerCaFile = QString::fromStdString(m_dir.file("ca.pem"));
    spec.controllerTokenFile = QString::fromStdString(m_dir.file("ci.token"));
    auto window = console(spec);
    EXPECT_EQ(window->identityText(), QStringLiteral("token:ci-bot (operator)"));
    MapPage* mapPage = window->mapPage();
    QSignalSpy queued(mapPage, &MapPage::movesQueued);
    ASSERT_TRUE(
        mapPage->requestMoves({ QStringLiteral("globex") }, QStringLiteral("s1"), QStringLiteral("nightly"), false))
        << mapPage->messageText().toStdString();
    ASSERT_TRUE(queued.wait(20000) || queued.count() == 1) << mapPage->messageText().toStdString();
    EXPECT_EQ(lastChange().actor, "token:ci-bot");

    MainWindow refused;
    refused.connection()->setReconnectBackoff(100, 500);
    spec.controllerTokenFile = QString::fromStdString(m_dir.file("wrong.token"));
    refused.connectTo(spec);
    ASSERT_TRUE(waitFor([&] { return !refused.connection()->lastError().isEmpty(); }));
    EXPECT_TRUE(
        refused.connection()->lastError().contains(QStringLiteral("bearer token is not one this controller knows")))
        << refused.connection()->lastError().toStdString();
    EXPECT_EQ(refused.connection()->map(), nullptr);
    EXPECT_TRUE(refused.identityText().isEmpty());

    // Without the controller's CA the console sends no token to another host: it says why.
    MainWindow plaintext;
    plaintext.connection()->setReconnectBackoff(100, 500);
    spec.controllerAddress = QStringLiteral("192.0.2.1:7500");
    spec.controllerCaFile.clear();
    spec.controllerTokenFile = QString::fromStdString(m_dir.file("ci.token"));
    plaintext.connectTo(spec);
    ASSERT_TRUE(waitFor([&] { return !plaintext.connection()->lastError().isEmpty(); }));
    EXPECT_TRUE(plaintext.connection()->lastError().contains(
        QStringLiteral("a bearer token is sent to 192.0.2.1:7500 only over TLS")))
        << plaintext.connection()->lastError().toStdString();
}

} // namespace
} // namespace shardmap::widgets

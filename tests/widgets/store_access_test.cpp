// The console's main window offscreen with an etcd user that may not read (no role, on a real etcd
// with authentication on): the banner and the alert say that the store refuses the user, not that
// it is unreachable; it asks again only at the longest backoff, and connects once an
// administrator grants the user a role.
#include "core/store/metadata_store.h"
#include "tests/support/etcd_roles.h"
#include "tests/widgets/wait_for.h"
#include "widgets/alerts/alert_monitor.h"
#include "widgets/alerts/alerts_model.h"
#include "widgets/console/main_window.h"

#include <QSignalSpy>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

std::vector<core::AlertKind> firingKinds(const AlertMonitor& monitor)
{
    std::vector<core::AlertKind> out;
    for (const core::Alert& alert : monitor.firing())
        out.push_back(alert.kind);
    return out;
}

TEST(StoreAccessTest, AnEtcdUserThatMayNotReadIsToldSoAndConnectsOnceGrantedARole)
{
    std::string error;
    auto etcd = testing::EtcdProcess::start(error);
    ASSERT_TRUE(etcd) << error;
    ASSERT_TRUE(testing::enableEtcdRoles(*etcd, error)) << error;
    auto created = core::openStore(testing::etcdUriAs(*etcd, "shardmap", "shardmapd"), true);
    ASSERT_TRUE(created) << created.error().describe();

    MainWindow window;
    window.connection()->setReconnectBackoff(100, 3000);
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(testing::etcdUriAs(*etcd, "shardmap", "nobody"));
    window.show();
    window.connectTo(spec);
    ASSERT_TRUE(waitFor([&] { return !window.connection()->lastError().isEmpty(); }));
    const QString banner = window.bannerText();
    EXPECT_TRUE(banner.startsWith(QStringLiteral("Not allowed to read the store: "))) << banner.toStdString();
    EXPECT_TRUE(banner.contains(QStringLiteral("etcd user 'nobody' may not read under 'shardmap/'")))
        << banner.toStdString();
    EXPECT_TRUE(banner.contains(QStringLiteral("trying again in 3 s"))) << "the longest backoff at once";

    window.alertMonitor()->evaluateNow();
    ASSERT_EQ(firingKinds(*window.alertMonitor()), std::vector<core::AlertKind> { core::AlertKind::StoreAccessDenied });
    const QString alert = AlertsModel::describe(window.alertMonitor()->firing().front());
    EXPECT_TRUE(alert.startsWith(QStringLiteral("Not allowed to read the store: "))) << alert.toStdString();

    // A refused user is not asked again sooner than the longest backoff (timers never fire early).
    QSignalSpy states(window.connection(), &FleetConnection::stateChanged);
    waitFor([] { return false; }, 2000);
    EXPECT_EQ(states.count(), 0) << "asked again before the longest backoff";

    ASSERT_TRUE(etcd->etcdctl(
        { "--user=root:" + testing::etcdPasswordOf("root"), "user", "grant-role", "nobody", "shardmap-viewer" }, error))
        << error;
    ASSERT_TRUE(waitFor([&] { return window.connection()->state() == FleetConnection::State::Connected; }, 20000))
        << window.connection()->lastError().toStdString();
    EXPECT_TRUE(window.connection()->map());
    window.alertMonitor()->evaluateNow();
    for (core::AlertKind kind : firingKinds(*window.alertMonitor()))
        EXPECT_NE(kind, core::AlertKind::StoreAccessDenied);
}

} // namespace
} // namespace shardmap::widgets

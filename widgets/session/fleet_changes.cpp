// FleetChanges' implementation: core::applyChange on a FleetAdmin over the store, or
// AdminClient::change, always on the pool. Its messages keep the connection's translation context.
#include "widgets/session/fleet_changes.h"

#include "core/admin/admin_changes.h"
#include "core/admin/fleet_admin.h"
#include "core/util/login_name.h"
#include "widgets/bridge/background.h"
#include "widgets/style/plan_note_text.h"

#include <QCoreApplication>
#include <utility>

namespace shardmap::widgets {

FleetChanges::FleetChanges(QThreadPool& pool)
    : m_pool(pool)
{
}

void FleetChanges::setTarget(std::shared_ptr<core::MetadataStore> store, std::shared_ptr<core::AdminClient> admin,
    std::shared_ptr<core::NodeClientPool> nodes)
{
    m_store = std::move(store);
    m_admin = std::move(admin);
    m_nodes = std::move(nodes);
}

ChangeMaker FleetChanges::changeMaker() const
{
    if (m_admin) {
        return [client = m_admin](
                   const v1::AdminChange& change, const std::string& reason) { return client->change(change, reason); };
    }
    if (!m_store)
        return {};
    return [store = m_store, nodes = m_nodes, actor = localActorName().toStdString()](
               const v1::AdminChange& change, const std::string& reason) {
        core::FleetAdmin admin(*store, *nodes);
        return core::applyChange(admin, change, core::Actor { actor, reason });
    };
}

void FleetChanges::submitChange(
    const v1::AdminChange& change, const QString& reason, QObject* context, std::function<void(ChangeResult)> done)
{
    ChangeMaker make = changeMaker();
    if (!make) {
        postTo(context, [done] {
            done(core::makeError(core::ErrorCode::Unavailable,
                QCoreApplication::translate("shardmap::widgets::FleetConnection", "Not connected to a fleet.")
                    .toStdString()));
        });
        return;
    }
    runInBackground(
        m_pool, context, [make, change, why = reason.toStdString()] { return make(change, why); }, std::move(done));
}

QString FleetChanges::awaitingApprovalText(const v1::ApprovalInfo& approval)
{
    return QCoreApplication::translate(
        "shardmap::widgets::FleetConnection", "Awaiting approval as %1: %2. It needs a second person because %3.")
        .arg(QString::fromStdString(approval.id()), QString::fromStdString(approval.summary()),
            QString::fromStdString(approval.needs_approval_because()));
}

QString FleetChanges::refusalText(const core::Error& error)
{
    // shardmapd's refusal is a sentence for people ("bob is an operator; ..."): shown as it is.
    if (error.code == core::ErrorCode::PermissionDenied || error.code == core::ErrorCode::Unauthenticated)
        return QString::fromStdString(error.message);
    // A refusal of the planner or the preflight made of notes says when it can run, in the
    // console's language and local time.
    return translatedError(error);
}

QString FleetChanges::localActorName()
{
    const std::string user = core::loginName();
    return (user.empty() ? QStringLiteral("console") : QString::fromStdString(user)) + QStringLiteral("@console");
}

} // namespace shardmap::widgets

// SessionAccess' implementation: WhoAmI on the pool, an answer kept only while the connection's
// generation holds. Its messages keep the connection's translation context.
#include "widgets/session/session_access.h"

#include "widgets/session/connection_spec.h"

#include <QCoreApplication>
#include <utility>

namespace shardmap::widgets {

namespace {

// How often a controller connection asks WhoAmI again: shardmapd reads its role file again when it
// changes, so a promotion or a demotion shows without reconnecting.
constexpr int kWhoAmIMs = 5000;

} // namespace

SessionAccess::SessionAccess(QThreadPool& pool, const Generation& generation, QObject* parent)
    : QObject(parent)
    , m_pool(pool)
    , m_generation(generation)
{
    m_whoAmI.setInterval(kWhoAmIMs);
    connect(&m_whoAmI, &QTimer::timeout, this, &SessionAccess::askWhoAmI);
}

void SessionAccess::setConnection(bool readOnlyChosen, bool viaController)
{
    m_readOnlyChosen = readOnlyChosen;
    m_viaController = viaController;
}

void SessionAccess::start(std::shared_ptr<core::AdminClient> admin, const QString& identity, core::Role role)
{
    m_admin = std::move(admin);
    setIdentity(identity, role);
    if (m_admin)
        m_whoAmI.start();
}

void SessionAccess::clear()
{
    m_whoAmI.stop();
    m_admin.reset();
    if (!m_identity.isEmpty() || m_role != core::Role::None) {
        m_identity.clear();
        m_role = core::Role::None;
        emit identityChanged(m_identity, m_role);
    }
}

void SessionAccess::setIdentity(const QString& identity, core::Role role)
{
    if (m_identity == identity && m_role == role)
        return;
    m_identity = identity;
    m_role = role;
    emit identityChanged(m_identity, m_role);
}

void SessionAccess::askWhoAmI()
{
    if (!m_admin)
        return;
    const std::uint64_t generation = m_generation.current();
    runInBackground(
        m_pool, this, [client = m_admin] { return client->whoAmI(); },
        [this, generation](core::Result<v1::WhoAmIResponse> who) {
            // A failed call changes nothing here: the map's reads say when shardmapd is gone.
            if (who && m_generation.isCurrent(generation))
                setIdentity(QString::fromStdString(who->identity()), static_cast<core::Role>(who->role()));
        });
}

bool SessionAccess::readOnly() const
{
    return m_readOnlyChosen || (m_viaController && m_role < core::Role::Operator);
}

QString SessionAccess::readOnlyReason() const
{
    if (m_readOnlyChosen)
        return readOnlyRefusal();
    if (!readOnly())
        return {};
    return m_role == core::Role::None
        ? QCoreApplication::translate("shardmap::widgets::FleetConnection", "shardmapd has not said yet who you are.")
        : viewerRefusal();
}

QString SessionAccess::identityText() const
{
    if (m_identity.isEmpty())
        return {};
    return QCoreApplication::translate("shardmap::widgets::FleetConnection", "%1 (%2)")
        .arg(m_identity, QString::fromLatin1(core::roleName(m_role)));
}

} // namespace shardmap::widgets

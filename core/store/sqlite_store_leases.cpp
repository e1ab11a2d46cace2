// SqliteStore's leases: acquire, renew, release and list, each in one transaction on rows that are
// never deleted (so a lease's token only grows), and the pruning of lapsed presence leases.

#include "core/store/lease_names.h"
#include "core/store/sqlite_store_internal.h"
#include "core/store/store_rules.h"
#include "core/util/clock.h"

#include <utility>

namespace shardmap::core {

using sqlite_store_internal::fromSqliteInteger;
using sqlite_store_internal::leaseError;
using sqlite_store_internal::toSqliteInteger;
using store_rules::describeLease;
using store_rules::inQuotes;
using store_rules::validateLease;

Error sqlite_store_internal::leaseError(std::string message, const std::string& holder, std::uint64_t token)
{
    Error error = makeError(ErrorCode::FailedPrecondition, std::move(message));
    error.details["holder"] = holder;
    error.details["token"] = std::to_string(token);
    return error;
}

Result<LeaseGrant> SqliteStore::acquireLease(
    const std::string& name, const std::string& holder, std::chrono::milliseconds ttl)
{
    if (auto status = validateLease(name, holder, ttl); !status)
        return status.error();
    return writeTransaction<LeaseGrant>([&] { return acquireLocked(name, holder, ttl); });
}

Result<LeaseGrant> SqliteStore::renewLease(const LeaseGrant& grant, std::chrono::milliseconds ttl)
{
    if (auto status = validateLease(grant.name, grant.holder, ttl); !status)
        return status.error();
    return writeTransaction<LeaseGrant>([&] { return renewLocked(grant, ttl); });
}

Status SqliteStore::releaseLease(const LeaseGrant& grant)
{
    return writeTransaction<void>([&] { return releaseLocked(grant); });
}

Result<std::vector<LeaseGrant>> SqliteStore::liveLeases(const std::string& namePrefix)
{
    return readTransaction<std::vector<LeaseGrant>>([&](SqliteDb& db) -> Result<std::vector<LeaseGrant>> {
        auto stmt = db.prepare("SELECT name, holder, token, expires_unix_ms FROM leases"
                               " WHERE substr(name, 1, length(?1)) = ?1 AND expires_unix_ms > ?2 ORDER BY name");
        if (!stmt)
            return stmt.error();
        stmt->bind(1, namePrefix).bind(2, nowUnixMs());
        std::vector<LeaseGrant> leases;
        while (true) {
            auto row = stmt->step();
            if (!row)
                return row.error();
            if (!*row)
                return leases;
            leases.push_back({ stmt->columnText(0), stmt->columnText(1), fromSqliteInteger(stmt->columnInt(2)),
                stmt->columnInt(3) });
        }
    });
}

Result<std::optional<SqliteStore::LeaseRow>> SqliteStore::readLease(const std::string& name)
{
    auto& stmt = m_stmts->readLease;
    stmt.bind(1, name);
    auto row = stmt.step();
    if (!row)
        return row.error();
    std::optional<LeaseRow> lease;
    if (*row)
        lease = LeaseRow { stmt.columnText(0), fromSqliteInteger(stmt.columnInt(1)), stmt.columnInt(2) };
    stmt.reset();
    return lease;
}

Status SqliteStore::writeLease(const LeaseGrant& grant)
{
    auto& stmt = m_stmts->writeLease;
    stmt.bind(1, grant.name).bind(2, grant.holder).bind(3, toSqliteInteger(grant.token)).bind(4, grant.expiresUnixMs);
    return stmt.run();
}

Result<LeaseGrant> SqliteStore::acquireLocked(
    const std::string& name, const std::string& holder, std::chrono::milliseconds ttl)
{
    auto row = readLease(name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    const auto now = nowUnixMs();
    const bool live = lease && lease->expiresUnixMs > now;
    if (live && lease->holder != holder)
        return leaseError("lease " + inQuotes(name)
                + " is taken: " + describeLease(lease->holder, lease->token, lease->expiresUnixMs, now),
            lease->holder, lease->token);
    // The holder's own live lease is renewed; anything else starts a new grant with a new token.
    const std::uint64_t token = live ? lease->token : (lease ? lease->token + 1 : 1);
    LeaseGrant grant { name, holder, token, now + ttl.count() };
    if (auto status = writeLease(grant); !status)
        return status.error();
    if (store_rules::isPresenceLease(name)) {
        if (auto status = prunePresenceLeases(name, now); !status)
            return status.error();
    }
    return grant;
}

Status SqliteStore::prunePresenceLeases(const std::string& granted, std::int64_t now)
{
    auto& stmt = m_stmts->prunePresence;
    stmt.bind(1, std::string(kReplicaLeasePrefix)).bind(2, now).bind(3, granted);
    return stmt.run();
}

Result<LeaseGrant> SqliteStore::renewLocked(const LeaseGrant& grant, std::chrono::milliseconds ttl)
{
    auto row = readLease(grant.name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    const auto now = nowUnixMs();
    if (!lease || lease->holder != grant.holder || lease->token != grant.token || lease->expiresUnixMs == 0) {
        const std::string state
            = lease ? describeLease(lease->holder, lease->token, lease->expiresUnixMs, now) : "it was never granted";
        return leaseError("lease " + inQuotes(grant.name) + " was lost by " + inQuotes(grant.holder) + ": " + state,
            lease ? lease->holder : std::string(), lease ? lease->token : 0);
    }
    LeaseGrant renewed = grant;
    renewed.expiresUnixMs = now + ttl.count();
    if (auto status = writeLease(renewed); !status)
        return status.error();
    return renewed;
}

Status SqliteStore::releaseLocked(const LeaseGrant& grant)
{
    auto row = readLease(grant.name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    if (!lease || lease->holder != grant.holder || lease->token != grant.token || lease->expiresUnixMs == 0)
        return {}; // already lost or released: nothing to give back
    // The row stays, so the next grant's token follows this one's.
    LeaseGrant released = grant;
    released.expiresUnixMs = 0;
    return writeLease(released);
}

} // namespace shardmap::core

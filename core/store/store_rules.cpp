#include "core/store/store_rules.h"

// The shared store rules' implementation: what a commit and a lease request may hold, the conflict
// a failed expectation gives, and how a lease is described in a refusal.

#include "core/store/lease_names.h"
#include "core/util/validation.h"

#include <algorithm>
#include <set>

namespace shardmap::core::store_rules {

std::string inQuotes(const std::string& text)
{
    return "'" + text + "'";
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator)
{
    std::string out;
    for (const auto& part : parts)
        out += (out.empty() ? "" : std::string(separator)) + part;
    return out;
}

namespace {

Status validateText(const std::string& what, std::string_view text)
{
    if (!isValidUtf8(text))
        return makeError(ErrorCode::InvalidArgument, what + " is not valid UTF-8");
    return {};
}

Status validateMutation(const Mutation& mutation)
{
    if (mutation.key.empty())
        return makeError(ErrorCode::InvalidArgument, "a mutation has an empty key");
    if (auto status = validateText("a key", mutation.key); !status)
        return status;
    if (mutation.value)
        return validateText("the value of " + inQuotes(mutation.key), *mutation.value);
    return {};
}

} // namespace

Status validateCommitRequest(const CommitRequest& request, std::size_t maxMutations)
{
    if (request.mutations.empty())
        return makeError(ErrorCode::InvalidArgument, "a commit needs at least one mutation");
    if (maxMutations > 0 && request.mutations.size() > maxMutations)
        return makeError(ErrorCode::InvalidArgument,
            "this store takes at most " + std::to_string(maxMutations) + " mutations per commit, not "
                + std::to_string(request.mutations.size()));
    std::set<std::string_view> keys;
    for (const auto& mutation : request.mutations) {
        if (auto status = validateMutation(mutation); !status)
            return status;
        if (!keys.insert(mutation.key).second)
            return makeError(
                ErrorCode::InvalidArgument, "key " + inQuotes(mutation.key) + " appears twice in one commit");
    }
    for (const auto* text : { &request.actor, &request.action, &request.reason }) {
        if (auto status = validateText("the actor, action or reason", *text); !status)
            return status;
    }
    return {};
}

Status validateLease(const std::string& name, const std::string& holder, std::chrono::milliseconds ttl)
{
    if (name.empty() || holder.empty())
        return makeError(ErrorCode::InvalidArgument, "a lease needs a name and a holder");
    if (ttl.count() <= 0)
        return makeError(ErrorCode::InvalidArgument, "a lease needs a positive time to live");
    return {};
}

std::optional<std::string> expectationProblem(const Mutation& mutation, const std::optional<StoredRecord>& record)
{
    if (!mutation.expectModRevision)
        return std::nullopt;
    const auto expected = std::to_string(*mutation.expectModRevision);
    if (*mutation.expectModRevision == 0 && record)
        return inQuotes(mutation.key) + " already exists (mod revision " + std::to_string(record->modRevision) + ")";
    if (*mutation.expectModRevision != 0 && !record)
        return inQuotes(mutation.key) + " does not exist (expected mod revision " + expected + ")";
    if (record && record->modRevision != *mutation.expectModRevision)
        return inQuotes(mutation.key) + " changed: mod revision " + std::to_string(record->modRevision) + ", expected "
            + expected;
    return std::nullopt;
}

Error conflictError(const std::vector<std::string>& problems, std::uint64_t current)
{
    Error error = makeError(ErrorCode::Conflict,
        "the map changed (it is at revision " + std::to_string(current) + "): " + joined(problems, "; "));
    error.details["current_revision"] = std::to_string(current);
    return error;
}

std::uint64_t conflictScanFrom(std::uint64_t expected, std::uint64_t current)
{
    return std::max<std::uint64_t>(expected, current - std::min<std::uint64_t>(current, kConflictScanRecords));
}

std::vector<std::string> changedKeysNewestFirst(const std::vector<AuditRecord>& records)
{
    std::vector<std::string> keys;
    for (auto record = records.rbegin(); record != records.rend(); ++record) {
        for (const auto& change : record->changes) {
            if (std::find(keys.begin(), keys.end(), change.key) == keys.end())
                keys.push_back(change.key);
        }
    }
    return keys;
}

std::string changedSinceMessage(std::uint64_t expected, std::vector<std::string> named, bool more)
{
    if (more)
        named.push_back("and more");
    return "expected revision " + std::to_string(expected) + "; changed since: " + joined(named, ", ");
}

std::string describeLease(const std::string& holder, std::uint64_t token, std::int64_t expiresUnixMs, std::int64_t now)
{
    const std::string who = inQuotes(holder) + " (token " + std::to_string(token) + ")";
    if (expiresUnixMs == 0)
        return "it was released by " + who;
    if (expiresUnixMs <= now)
        return "it expired " + std::to_string(now - expiresUnixMs) + " ms ago, last held by " + who;
    return "it is held by " + who + " for another " + std::to_string(expiresUnixMs - now) + " ms";
}

bool isPresenceLease(std::string_view name)
{
    return name.starts_with(kReplicaLeasePrefix);
}

} // namespace shardmap::core::store_rules

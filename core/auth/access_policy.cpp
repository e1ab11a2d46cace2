// AccessPolicy's implementation: the policy file read section by section, every key known and every
// number bounded, and the comparisons that say what a new policy loosens.
#include "core/auth/access_policy.h"

#include "core/util/json_input.h"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace shardmap::core {

const char* roleName(Role role)
{
    switch (role) {
    case Role::None: return "none";
    case Role::Viewer: return "viewer";
    case Role::Operator: return "operator";
    case Role::Admin: return "admin";
    }
    return "none";
}

bool overLimit(std::uint64_t value, std::uint64_t limit)
{
    return limit != 0 && value > limit;
}

std::optional<Role> parseRole(std::string_view name)
{
    for (Role role : { Role::None, Role::Viewer, Role::Operator, Role::Admin }) {
        if (name == roleName(role))
            return role;
    }
    return std::nullopt;
}

namespace {

// The entry of `entries` (keyed by IdentityPattern::text) that names the identity: the one naming
// its kind, else a bare name that matches it.
template <typename Value>
const Value* entryFor(const std::map<std::string, Value>& entries, const PeerIdentity& identity)
{
    const IdentityPattern typed { identity.kind, identity.name };
    if (const auto found = entries.find(typed.text()); found != entries.end())
        return &found->second;
    // A CN that reads "spiffe://x" must not find the entry of that URI SAN: a bare name has no ':'.
    const IdentityPattern bare { std::nullopt, identity.name };
    if (!bare.matches(identity) || identity.name.find(':') != std::string::npos)
        return nullptr;
    const auto found = entries.find(bare.text());
    return found == entries.end() ? nullptr : &found->second;
}

} // namespace

Role AccessPolicy::roleOf(const PeerIdentity& identity) const
{
    if (identity.name.empty())
        return Role::None;
    const Role* role = entryFor(roles, identity);
    return role ? *role : defaultRole;
}

Role AccessPolicy::roleOf(const std::string& identity) const
{
    auto parsed = parseIdentity(identity);
    return parsed ? roleOf(*parsed) : Role::None;
}

std::optional<std::string> AccessPolicy::personOf(const PeerIdentity& identity) const
{
    const std::string* person = entryFor(people, identity);
    return person ? std::optional<std::string>(*person) : std::nullopt;
}

bool AccessPolicy::samePerson(const std::string& identity, const std::string& other) const
{
    if (identity == other)
        return true;
    auto one = parseIdentity(identity);
    auto two = parseIdentity(other);
    if (!one || !two)
        return false;
    const auto person = personOf(*one);
    return person && person == personOf(*two);
}

namespace {

Error policyError(const std::string& source, const std::string& what)
{
    return makeError(ErrorCode::InvalidArgument, source + ": " + what);
}

// Checks that an object has only the keys named, so that a misspelt key is an error rather than
// a limit silently left at its default.
Status onlyKeys(const nlohmann::json& object, std::initializer_list<std::string_view> known, const std::string& source,
    const std::string& where)
{
    if (!object.is_object())
        return policyError(source, where + " must be an object");
    for (const auto& [key, value] : object.items()) {
        bool ok = false;
        for (std::string_view name : known)
            ok = ok || key == name;
        if (!ok)
            return policyError(source, "unknown key '" + key + "' in " + where);
    }
    return {};
}

// The largest count and byte limit a policy may name: far above any fleet, and far enough below
// 2^64 that sums and comparisons over a window of changes cannot overflow.
constexpr std::uint64_t kMaxPolicySpaces = 1'000'000'000;
constexpr std::uint64_t kMaxPolicyBytes = 1ull << 60;
// A request waits at most a year: hours are turned into milliseconds, and 5e15 of them overflow.
constexpr std::uint64_t kMaxExpireHours = 8'760;

Result<std::uint64_t> readCount(const nlohmann::json& object, const char* key, std::uint64_t fallback,
    const std::string& source, const std::string& where, std::uint64_t most, std::uint64_t least = 0)
{
    const auto found = object.find(key);
    if (found == object.end())
        return fallback;
    if (!found->is_number_unsigned() || found->get<std::uint64_t>() < least || found->get<std::uint64_t>() > most)
        return policyError(source,
            where + "." + key + " must be a whole number from " + std::to_string(least) + " to " + std::to_string(most)
                + ", not " + (found->is_number() ? found->dump() : std::string("a ") + found->type_name()));
    return found->get<std::uint64_t>();
}

// window_minutes: at most a week, so that the window's milliseconds never overflow.
Result<std::chrono::minutes> readMinutes(
    const nlohmann::json& object, std::chrono::minutes fallback, const std::string& source, const std::string& where)
{
    constexpr std::uint64_t kMostMinutes = 7 * 24 * 60;
    auto minutes = readCount(object, "window_minutes", static_cast<std::uint64_t>(fallback.count()), source, where,
        std::numeric_limits<std::uint64_t>::max());
    if (!minutes)
        return minutes.error();
    if (*minutes > kMostMinutes)
        return policyError(
            source, where + ".window_minutes must be at most " + std::to_string(kMostMinutes) + " (a week)");
    return std::chrono::minutes(static_cast<std::int64_t>(*minutes));
}

Result<Role> readRole(const nlohmann::json& value, const std::string& source, const std::string& where)
{
    if (!value.is_string())
        return policyError(source, where + " must be a role name (none, viewer, operator, admin)");
    auto role = parseRole(value.get<std::string>());
    if (!role)
        return policyError(
            source, where + ": unknown role '" + value.get<std::string>() + "' (none, viewer, operator, admin)");
    return *role;
}

// An identity as the policy names it (core/auth/peer_identity.h), normalised so that two spellings
// of one identity ("spiffe://x", "uri:spiffe://x") are one key.
Result<std::string> identityKey(const std::string& text, const std::string& source, const std::string& where)
{
    auto pattern = IdentityPattern::parse(text);
    if (!pattern)
        return policyError(source, where + ": " + pattern.error().message);
    return pattern->text();
}

// "people": { "bob": ["bob", "token:bob.ci"] }: each identity under at most one person.
Status readPeople(const nlohmann::json& people, const std::string& source, std::map<std::string, std::string>& personOf)
{
    if (!people.is_object())
        return policyError(source, "people must map each person's name to the identities that are theirs");
    for (const auto& [person, identities] : people.items()) {
        if (person.empty())
            return policyError(source, "people: a person's name may not be empty");
        if (!identities.is_array())
            return policyError(source, "people." + person + " must be a list of identities");
        for (const nlohmann::json& identity : identities) {
            if (!identity.is_string())
                return policyError(source, "people." + person + " must list identities as strings");
            auto key = identityKey(identity.get<std::string>(), source, "people." + person);
            if (!key)
                return key.error();
            const auto [listed, added] = personOf.emplace(*key, person);
            if (!added)
                return policyError(source,
                    "people: " + *key + " is listed under both " + listed->second + " and " + person
                        + "; an identity is one person's");
        }
    }
    return {};
}

// "roles": { "alice": "admin", "uri:spiffe://ci": "operator" }: each identity named once.
Status readRoles(const nlohmann::json& roles, const std::string& source, std::map<std::string, Role>& roleOf)
{
    if (!roles.is_object())
        return policyError(source, "roles must map identities to role names");
    for (const auto& [identity, value] : roles.items()) {
        auto key = identityKey(identity, source, "roles");
        if (!key)
            return key.error();
        auto role = readRole(value, source, "roles." + identity);
        if (!role)
            return role.error();
        if (!roleOf.emplace(*key, *role).second)
            return policyError(source, "roles: '" + identity + "' names " + *key + " a second time");
    }
    return {};
}

// "operator_limits": what an operator may move at once, and the window its changes are counted over.
Status readOperatorLimits(const nlohmann::json& limits, const std::string& source, OperatorLimits& into)
{
    if (auto status = onlyKeys(limits, { "max_spaces", "max_bytes", "window_minutes" }, source, "operator_limits");
        !status)
        return status;
    auto spaces = readCount(limits, "max_spaces", into.maxSpaces, source, "operator_limits", kMaxPolicySpaces);
    auto bytes = readCount(limits, "max_bytes", into.maxBytes, source, "operator_limits", kMaxPolicyBytes);
    auto window = readMinutes(limits, into.window, source, "operator_limits");
    if (!spaces)
        return spaces.error();
    if (!bytes)
        return bytes.error();
    if (!window)
        return window.error();
    into = { *spaces, *bytes, *window };
    return {};
}

// approval's thresholds: how much a change may move, and for how long a request waits.
Status readApprovalSizes(const nlohmann::json& approval, const std::string& source, ApprovalThresholds& into)
{
    auto spaces = readCount(approval, "max_spaces", into.maxSpaces, source, "approval", kMaxPolicySpaces);
    auto bytes = readCount(approval, "max_bytes", into.maxBytes, source, "approval", kMaxPolicyBytes);
    auto hours = readCount(approval, "expire_hours", static_cast<std::uint64_t>(into.expireAfter.count()), source,
        "approval", kMaxExpireHours, 1);
    if (!spaces)
        return spaces.error();
    if (!bytes)
        return bytes.error();
    if (!hours)
        return hours.error();
    into.maxSpaces = *spaces;
    into.maxBytes = *bytes;
    into.expireAfter = std::chrono::hours(*hours);
    return {};
}

// approval's window over which one identity's pending requests are counted, and how many it may have.
Status readApprovalPending(const nlohmann::json& approval, const std::string& source, ApprovalThresholds& into)
{
    auto window = readMinutes(approval, into.window, source, "approval");
    auto pending = readCount(
        approval, "max_pending_per_identity", into.maxPendingPerIdentity, source, "approval", kMaxPolicySpaces);
    if (!window)
        return window.error();
    if (!pending)
        return pending.error();
    into.window = *window;
    into.maxPendingPerIdentity = *pending;
    return {};
}

// "approval": what needs a second person's approval.
Status readApproval(const nlohmann::json& approval, const std::string& source, ApprovalThresholds& into)
{
    if (auto status = onlyKeys(approval,
            { "max_spaces", "max_bytes", "retire_node", "raise_limits", "restore", "expire_hours", "window_minutes",
                "max_pending_per_identity" },
            source, "approval");
        !status)
        return status;
    if (auto status = readApprovalSizes(approval, source, into); !status)
        return status;
    if (auto status = readApprovalPending(approval, source, into); !status)
        return status;
    for (const auto& [key, target] : { std::pair { "retire_node", &into.retireNode },
             { "raise_limits", &into.raiseLimits }, { "restore", &into.restore } }) {
        if (const auto flag = approval.find(key); flag != approval.end()) {
            if (!flag->is_boolean())
                return policyError(source, std::string("approval.") + key + " must be true or false");
            *target = flag->get<bool>();
        }
    }
    return {};
}

} // namespace

Result<AccessPolicy> AccessPolicy::parse(const std::string& text, const std::string& source)
{
    auto parsed = readJsonInput(text, source);
    if (!parsed)
        return parsed.error();
    const nlohmann::json& doc = *parsed;
    if (auto status = onlyKeys(
            doc, { "version", "roles", "default_role", "people", "operator_limits", "approval" }, source, "the policy");
        !status)
        return status.error();
    // Compared as JSON: a version of another type (null, "1") is not 1 and never throws.
    if (const auto version = doc.find("version"); version == doc.end() || *version != nlohmann::json(1))
        return policyError(source, "\"version\": 1 is the only version this shardmapd reads");
    AccessPolicy policy;
    if (const auto roles = doc.find("roles"); roles != doc.end()) {
        if (auto status = readRoles(*roles, source, policy.roles); !status)
            return status.error();
    }
    if (const auto people = doc.find("people"); people != doc.end()) {
        if (auto status = readPeople(*people, source, policy.people); !status)
            return status.error();
    }
    if (const auto fallback = doc.find("default_role"); fallback != doc.end()) {
        auto role = readRole(*fallback, source, "default_role");
        if (!role)
            return role.error();
        policy.defaultRole = *role;
    }
    if (const auto limits = doc.find("operator_limits"); limits != doc.end()) {
        if (auto status = readOperatorLimits(*limits, source, policy.operatorLimits); !status)
            return status.error();
    }
    if (const auto approval = doc.find("approval"); approval != doc.end()) {
        if (auto status = readApproval(*approval, source, policy.approval); !status)
            return status.error();
    }
    return policy;
}

namespace {

// The identities the keys of either policy's `entries` name: a bare name is a CN and a token.
template <typename Value>
std::set<PeerIdentity> namedIdentities(
    const std::map<std::string, Value>& before, const std::map<std::string, Value>& after)
{
    std::set<PeerIdentity> identities;
    for (const auto* entries : { &before, &after }) {
        for (const auto& [key, value] : *entries) {
            auto pattern = IdentityPattern::parse(key);
            if (!pattern)
                continue;
            if (pattern->kind) {
                identities.insert({ *pattern->kind, pattern->name });
            } else {
                identities.insert({ IdentityKind::CommonName, pattern->name });
                identities.insert({ IdentityKind::Token, pattern->name });
            }
        }
    }
    return identities;
}

// "IDENTITY was -> now" for each identity either policy names whose role changed as `counts` says.
// A bare name changed for the certificate and the token alike is said once, as written.
template <typename Counts>
std::vector<std::string> roleChanges(const AccessPolicy& before, const AccessPolicy& after, Counts counts)
{
    std::vector<std::string> changes;
    for (const PeerIdentity& identity : namedIdentities(before.roles, after.roles)) {
        const Role was = before.roleOf(identity);
        const Role now = after.roleOf(identity);
        const PeerIdentity certificate { IdentityKind::CommonName, identity.name };
        const bool saidAsCertificate = identity.kind == IdentityKind::Token && before.roleOf(certificate) == was
            && after.roleOf(certificate) == now;
        if (counts(was, now) && !saidAsCertificate)
            changes.push_back(identity.text() + " " + roleName(was) + " -> " + roleName(now));
    }
    return changes;
}

std::string expireHoursChange(const AccessPolicy& before, const AccessPolicy& after)
{
    return "approval.expire_hours " + std::to_string(before.approval.expireAfter.count()) + " -> "
        + std::to_string(after.approval.expireAfter.count());
}

} // namespace

std::vector<std::string> loosenedAccess(const AccessPolicy& before, const AccessPolicy& after)
{
    std::vector<std::string> loosened = roleChanges(before, after, [](Role was, Role now) { return now > was; });
    // An identity taken from its person may approve that person's requests.
    for (const PeerIdentity& identity : namedIdentities(before.people, after.people)) {
        const auto was = before.personOf(identity);
        if (was && after.personOf(identity) != was)
            loosened.push_back("people: " + identity.text() + " no longer " + *was + "'s");
    }
    if (after.defaultRole > before.defaultRole)
        loosened.push_back(
            std::string("default_role ") + roleName(before.defaultRole) + " -> " + roleName(after.defaultRole));
    // 0 is "no limit" for every count here, so going to 0 is the largest raise.
    auto limit = [&](const char* name, std::uint64_t was, std::uint64_t now) {
        if (was != 0 && (now == 0 || now > was)) {
            auto text = [](std::uint64_t v) { return v == 0 ? std::string("0 (off)") : std::to_string(v); };
            loosened.push_back(std::string(name) + " " + text(was) + " -> " + text(now));
        }
    };
    limit("operator_limits.max_spaces", before.operatorLimits.maxSpaces, after.operatorLimits.maxSpaces);
    limit("operator_limits.max_bytes", before.operatorLimits.maxBytes, after.operatorLimits.maxBytes);
    limit("approval.max_spaces", before.approval.maxSpaces, after.approval.maxSpaces);
    limit("approval.max_bytes", before.approval.maxBytes, after.approval.maxBytes);
    limit("approval.max_pending_per_identity", before.approval.maxPendingPerIdentity,
        after.approval.maxPendingPerIdentity);
    // A shorter window counts less of what an identity made before a request.
    auto window = [&](const char* name, std::chrono::minutes was, std::chrono::minutes now) {
        if (now < was)
            loosened.push_back(
                std::string(name) + " " + std::to_string(was.count()) + " -> " + std::to_string(now.count()));
    };
    window("operator_limits.window_minutes", before.operatorLimits.window, after.operatorLimits.window);
    window("approval.window_minutes", before.approval.window, after.approval.window);
    if (before.approval.retireNode && !after.approval.retireNode)
        loosened.push_back("approval.retire_node on -> off");
    if (before.approval.raiseLimits && !after.approval.raiseLimits)
        loosened.push_back("approval.raise_limits on -> off");
    if (before.approval.restore && !after.approval.restore)
        loosened.push_back("approval.restore on -> off");
    if (after.approval.expireAfter > before.approval.expireAfter)
        loosened.push_back(expireHoursChange(before, after));
    return loosened;
}

std::vector<std::string> accessPolicyChanges(const AccessPolicy& before, const AccessPolicy& after)
{
    std::vector<std::string> changes = roleChanges(before, after, [](Role was, Role now) { return now != was; });
    for (const PeerIdentity& identity : namedIdentities(before.people, after.people)) {
        const auto was = before.personOf(identity);
        const auto now = after.personOf(identity);
        if (was != now)
            changes.push_back("people: " + identity.text() + " " + (was ? *was : std::string("nobody")) + "'s -> "
                + (now ? *now : std::string("nobody")) + "'s");
    }
    if (after.defaultRole != before.defaultRole)
        changes.push_back(
            std::string("default_role ") + roleName(before.defaultRole) + " -> " + roleName(after.defaultRole));
    auto count = [&](const char* name, std::uint64_t was, std::uint64_t now) {
        auto text = [](std::uint64_t v) { return v == 0 ? std::string("0 (off)") : std::to_string(v); };
        if (was != now)
            changes.push_back(std::string(name) + " " + text(was) + " -> " + text(now));
    };
    count("operator_limits.max_spaces", before.operatorLimits.maxSpaces, after.operatorLimits.maxSpaces);
    count("operator_limits.max_bytes", before.operatorLimits.maxBytes, after.operatorLimits.maxBytes);
    count("operator_limits.window_minutes", static_cast<std::uint64_t>(before.operatorLimits.window.count()),
        static_cast<std::uint64_t>(after.operatorLimits.window.count()));
    count("approval.max_spaces", before.approval.maxSpaces, after.approval.maxSpaces);
    count("approval.max_bytes", before.approval.maxBytes, after.approval.maxBytes);
    count("approval.max_pending_per_identity", before.approval.maxPendingPerIdentity,
        after.approval.maxPendingPerIdentity);
    count("approval.window_minutes", static_cast<std::uint64_t>(before.approval.window.count()),
        static_cast<std::uint64_t>(after.approval.window.count()));
    auto flag = [&](const char* name, bool was, bool now) {
        if (was != now)
            changes.push_back(std::string(name) + (was ? " on -> off" : " off -> on"));
    };
    flag("approval.retire_node", before.approval.retireNode, after.approval.retireNode);
    flag("approval.raise_limits", before.approval.raiseLimits, after.approval.raiseLimits);
    flag("approval.restore", before.approval.restore, after.approval.restore);
    if (after.approval.expireAfter != before.approval.expireAfter)
        changes.push_back(expireHoursChange(before, after));
    return changes;
}

Result<std::unique_ptr<AccessPolicyFile>> loadAccessPolicy(const std::filesystem::path& path, LogSink log)
{
    ReloadOptions options;
    options.log = std::move(log);
    return AccessPolicyFile::load(path, &AccessPolicy::parse, std::move(options));
}

namespace {

class FilePolicySource final : public AccessPolicySource {
public:
    explicit FilePolicySource(std::unique_ptr<AccessPolicyFile> file)
        : m_file(std::move(file))
    {
    }
    std::shared_ptr<const AccessPolicy> current() override { return m_file->current(); }
    std::string lastError() override { return m_file->lastError(); }
    std::string describe() const override { return m_file->path().string(); }

private:
    std::unique_ptr<AccessPolicyFile> m_file;
};

} // namespace

std::unique_ptr<AccessPolicySource> accessPolicySource(std::unique_ptr<AccessPolicyFile> file)
{
    return std::make_unique<FilePolicySource>(std::move(file));
}

} // namespace shardmap::core

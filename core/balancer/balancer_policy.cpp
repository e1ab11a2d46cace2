#include "core/balancer/balancer_policy.h"

// The balancer policy's check, its JSON form and its window in a named time zone (Howard
// Hinnant's date library, Debian's libhowardhinnant-date-dev, over the system's tzdata: libstdc++
// 12 has no std::chrono time zones).

#include "core/map/shard_map.h"
#include "core/util/json_input.h"
#include "core/util/validation.h"

#include <cmath>
#include <cstdio>
#include <date/tz.h>
#include <nlohmann/json.hpp>

namespace shardmap::core {

using nlohmann::json;

namespace {

constexpr int kMinutesPerDay = 24 * 60;

Error policyError(const std::string& message)
{
    return makeError(ErrorCode::InvalidArgument, "balancer policy: " + message);
}

bool fraction(double value, bool zeroAllowed)
{
    return std::isfinite(value) && (zeroAllowed ? value >= 0 : value > 0) && value <= 1;
}

Result<const date::time_zone*> zoneNamed(const std::string& name)
{
    try {
        return date::locate_zone(name);
    } catch (const std::exception&) {
        return policyError("unknown time zone \"" + name + "\" (an IANA name such as Europe/Berlin, or UTC)");
    }
}

std::string clockText(int minutes)
{
    char text[8];
    std::snprintf(text, sizeof text, "%02d:%02d", (minutes / 60) % 100, minutes % 60);
    return text;
}

Result<int> parseClock(const std::string& text, const char* field)
{
    int hours = -1;
    int minutes = -1;
    char extra = 0;
    if (std::sscanf(text.c_str(), "%2d:%2d%c", &hours, &minutes, &extra) != 2 || hours < 0 || hours > 23 || minutes < 0
        || minutes > 59)
        return policyError(
            std::string("window.") + field + " must be HH:MM between 00:00 and 23:59, not \"" + text + "\"");
    return hours * 60 + minutes;
}

Status checkSizes(const BalancerPolicy& p)
{
    const auto pair = [](std::uint64_t merge, std::uint64_t split, const char* unit) -> Status {
        if (merge != 0 && split != 0 && merge >= split / 2)
            return policyError(std::string("merge_below_") + unit + " " + std::to_string(merge)
                + " must stay below half of split_above_" + unit + " " + std::to_string(split)
                + ", or two merged shards would be split again");
        return {};
    };
    if (auto status = pair(p.mergeBelowBytes, p.splitAboveBytes, "bytes"); !status)
        return status;
    if (auto status = pair(p.mergeBelowDocs, p.splitAboveDocs, "docs"); !status)
        return status;
    if (!fraction(p.bandBytes, false) || !fraction(p.bandLoad, false))
        return policyError("band_bytes and band_load are fractions above 0 and at most 1");
    if (!fraction(p.nodeDiskLimit, true) || p.nodeDiskLimit == 1)
        return policyError("node_disk_limit is a fraction below 1 (0: off)");
    return {};
}

Status checkWindow(const BalancingWindow& window)
{
    for (int day : window.days) {
        if (day < 0 || day > 6)
            return policyError("window.days are 0 (Sunday) to 6 (Saturday), not " + std::to_string(day));
    }
    if (window.startMinute < 0 || window.startMinute >= kMinutesPerDay || window.endMinute < 0
        || window.endMinute >= kMinutesPerDay)
        return policyError("window.start and window.end are times of day, 00:00 to 23:59");
    if (auto zone = zoneNamed(window.timeZone); !zone)
        return zone.error();
    return {};
}

Status checkLimits(const BalancerPolicy& p, std::uint32_t executorMaxConcurrent)
{
    if (p.maxConcurrent == 0)
        return policyError("max_concurrent must be at least 1");
    if (executorMaxConcurrent != 0 && p.maxConcurrent >= executorMaxConcurrent)
        return policyError("max_concurrent " + std::to_string(p.maxConcurrent) + " must stay below the executor's "
            + std::to_string(executorMaxConcurrent) + ", so that administrators' own moves still run");
    if (!std::isfinite(p.budget.workHours) || p.budget.workHours < 0)
        return policyError("budget.work_hours must be 0 (no limit) or more");
    if (!std::isfinite(p.guardWriteP99Ms) || p.guardWriteP99Ms < 0 || !fraction(p.guardNodeCpu, true))
        return policyError("guard_write_p99_ms is 0 or more, guard_node_cpu a fraction (0: not checked)");
    if (p.keepDecisionsSeconds == 0)
        return policyError("keep_decisions_seconds must be above 0");
    if (p.evaluateEverySeconds == 0 || p.evaluateEverySeconds > 24 * 3600)
        return policyError("evaluate_every_seconds must be 1 to 86400");
    return {};
}

Status checkExclusions(const BalancerPolicy& p)
{
    for (const std::string& space : p.excludedSpaces) {
        if (auto valid = validateSpaceId(space); !valid)
            return policyError("excluded_spaces: " + valid.error().message);
    }
    for (const std::string& shard : p.excludedShards) {
        if (auto valid = validateShardId(shard); !valid)
            return policyError("excluded_shards: " + valid.error().message);
    }
    return {};
}

BalancingWindow readWindow(const json& doc)
{
    BalancingWindow window;
    window.days = doc.value("days", std::set<int> {});
    window.timeZone = doc.value("time_zone", std::string("UTC"));
    auto start = parseClock(doc.value("start", std::string("00:00")), "start");
    auto end = parseClock(doc.value("end", std::string("00:00")), "end");
    if (!start || !end)
        throw json::other_error::create(501, (start ? end.error() : start.error()).message, &doc);
    window.startMinute = *start;
    window.endMinute = *end;
    return window;
}

BalancerPolicy readPolicy(const json& doc)
{
    BalancerPolicy p;
    const auto mode = parseBalancerMode(doc.value("mode", std::string("off")));
    if (!mode)
        throw json::other_error::create(501, "mode is off, dry-run or on", &doc);
    p.mode = *mode;
    p.splitAboveBytes = doc.value("split_above_bytes", p.splitAboveBytes);
    p.splitAboveDocs = doc.value("split_above_docs", p.splitAboveDocs);
    p.mergeBelowBytes = doc.value("merge_below_bytes", p.mergeBelowBytes);
    p.mergeBelowDocs = doc.value("merge_below_docs", p.mergeBelowDocs);
    p.bandBytes = doc.value("band_bytes", p.bandBytes);
    p.bandLoad = doc.value("band_load", p.bandLoad);
    p.nodeDiskLimit = doc.value("node_disk_limit", p.nodeDiskLimit);
    p.excludedSpaces = doc.value("excluded_spaces", p.excludedSpaces);
    p.excludedShards = doc.value("excluded_shards", p.excludedShards);
    if (const auto window = doc.find("window"); window != doc.end() && !window->is_null())
        p.window = readWindow(*window);
    const json budget = doc.value("budget", json::object());
    p.budget = { budget.value("moves", std::uint64_t { 0 }), budget.value("bytes", std::uint64_t { 0 }),
        budget.value("work_hours", 0.0) };
    p.maxConcurrent = doc.value("max_concurrent", p.maxConcurrent);
    p.hysteresisSeconds = doc.value("hysteresis_seconds", p.hysteresisSeconds);
    p.guardWriteP99Ms = doc.value("guard_write_p99_ms", p.guardWriteP99Ms);
    p.guardNodeCpu = doc.value("guard_node_cpu", p.guardNodeCpu);
    p.keepDecisionsSeconds = doc.value("keep_decisions_seconds", p.keepDecisionsSeconds);
    p.evaluateEverySeconds = doc.value("evaluate_every_seconds", p.evaluateEverySeconds);
    return p;
}

const std::set<std::string> kPolicyKeys { "mode", "split_above_bytes", "split_above_docs", "merge_below_bytes",
    "merge_below_docs", "band_bytes", "band_load", "node_disk_limit", "excluded_spaces", "excluded_shards", "window",
    "budget", "max_concurrent", "hysteresis_seconds", "guard_write_p99_ms", "guard_node_cpu", "keep_decisions_seconds",
    "evaluate_every_seconds" };

} // namespace

const char* balancerModeName(BalancerMode mode)
{
    switch (mode) {
    case BalancerMode::DryRun: return "dry-run";
    case BalancerMode::On: return "on";
    default: return "off";
    }
}

std::optional<BalancerMode> parseBalancerMode(std::string_view name)
{
    for (BalancerMode mode : { BalancerMode::Off, BalancerMode::DryRun, BalancerMode::On }) {
        if (name == balancerModeName(mode))
            return mode;
    }
    return std::nullopt;
}

Status validateBalancerPolicy(const BalancerPolicy& policy, std::uint32_t executorMaxConcurrent)
{
    if (auto status = checkSizes(policy); !status)
        return status;
    if (policy.window) {
        if (auto status = checkWindow(*policy.window); !status)
            return status;
    }
    if (auto status = checkLimits(policy, executorMaxConcurrent); !status)
        return status;
    return checkExclusions(policy);
}

std::string encode(const BalancerPolicy& p)
{
    json out { { "mode", balancerModeName(p.mode) }, { "split_above_bytes", p.splitAboveBytes },
        { "split_above_docs", p.splitAboveDocs }, { "merge_below_bytes", p.mergeBelowBytes },
        { "merge_below_docs", p.mergeBelowDocs }, { "band_bytes", p.bandBytes }, { "band_load", p.bandLoad },
        { "node_disk_limit", p.nodeDiskLimit }, { "excluded_spaces", p.excludedSpaces },
        { "excluded_shards", p.excludedShards },
        { "budget",
            { { "moves", p.budget.moves }, { "bytes", p.budget.bytes }, { "work_hours", p.budget.workHours } } },
        { "max_concurrent", p.maxConcurrent }, { "hysteresis_seconds", p.hysteresisSeconds },
        { "guard_write_p99_ms", p.guardWriteP99Ms }, { "guard_node_cpu", p.guardNodeCpu },
        { "keep_decisions_seconds", p.keepDecisionsSeconds }, { "evaluate_every_seconds", p.evaluateEverySeconds } };
    if (p.window)
        out["window"] = { { "days", p.window->days }, { "start", clockText(p.window->startMinute) },
            { "end", clockText(p.window->endMinute) }, { "time_zone", p.window->timeZone } };
    return out.dump();
}

Result<BalancerPolicy> decodeBalancerPolicy(const std::string& text)
{
    auto parsed = readJsonInput(text, "balancer policy");
    if (!parsed)
        return parsed.error();
    if (!parsed->is_object())
        return policyError("not a JSON object");
    for (const auto& [key, value] : parsed->items()) {
        if (!kPolicyKeys.contains(key))
            return policyError("unknown key \"" + key + "\"");
    }
    try {
        return readPolicy(*parsed);
    } catch (const json::exception& error) {
        return policyError(error.what());
    }
}

Result<WindowPlace> placeInWindow(
    const std::optional<BalancingWindow>& window, std::chrono::system_clock::time_point now)
{
    if (!window)
        return WindowPlace { true, now, "now" };
    auto zone = zoneNamed(window->timeZone);
    if (!zone)
        return zone.error();
    const auto local = (*zone)->to_local(std::chrono::floor<std::chrono::seconds>(now));
    const auto today = date::floor<date::days>(local);
    int length = window->endMinute - window->startMinute;
    length += length <= 0 ? kMinutesPerDay : 0;
    // A window that opened yesterday may still be open; the next one opens within a week.
    for (int offset = -1; offset <= 7; ++offset) {
        const auto day = today + date::days(offset);
        if (!window->days.empty() && !window->days.contains(static_cast<int>(date::weekday(day).c_encoding())))
            continue;
        const auto open = day + std::chrono::minutes(window->startMinute);
        if (open <= local && local < open + std::chrono::minutes(length))
            return WindowPlace { true, now, "now" };
        if (open > local)
            return WindowPlace { false, (*zone)->to_sys(open, date::choose::earliest),
                date::format("%a %H:%M ", open) + window->timeZone };
    }
    return policyError("the window lists no day");
}

Result<Versioned<BalancerPolicy>> readBalancerPolicy(MetadataStore& store)
{
    const std::string key(kBalancerPolicyKey);
    auto listed = store.list(key);
    if (!listed)
        return listed.error();
    const auto found = listed->records.find(key);
    if (found == listed->records.end())
        return Versioned<BalancerPolicy> { BalancerPolicy {}, 0 };
    auto policy = decodeBalancerPolicy(found->second.value);
    if (!policy)
        return makeError(ErrorCode::Internal, "stored " + policy.error().message);
    return Versioned<BalancerPolicy> { std::move(*policy), found->second.modRevision };
}

Result<std::uint64_t> setBalancerPolicy(MetadataStore& store, const BalancerPolicy& policy, const Actor& actor)
{
    auto current = readBalancerPolicy(store);
    if (!current)
        return current.error();
    auto settings = store.list(std::string(keys::kMigrationSettings));
    if (!settings)
        return settings.error();
    MigrationSettings executor;
    if (const auto found = settings->records.find(std::string(keys::kMigrationSettings));
        found != settings->records.end()) {
        auto decoded = decodeMigrationSettings(found->second.value);
        if (!decoded)
            return decoded.error();
        executor = *decoded;
    }
    if (auto valid = validateBalancerPolicy(policy, executor.maxConcurrent); !valid)
        return valid.error();
    CommitRequest request { { { std::string(kBalancerPolicyKey), encode(policy), current->modRevision } }, std::nullopt,
        std::nullopt, actor.name, "set-balancer-policy", actor.reason };
    auto committed = store.commit(request);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, "the balancer policy changed meanwhile; read it again");
    return committed;
}

} // namespace shardmap::core

#pragma once

// The balancer's policy (issue 33): what the index manager keeps the fleet within (size limits for
// split and merge, the balance band, a node's disk limit, what it leaves alone), when it may act
// (a weekly window in a named time zone, a budget per window, a concurrency cap), its mode and
// its guards. One record in the map (settings/balancer), changed by compare-and-set with its audit
// like every setting; this file is its one check, its one JSON form and its window arithmetic.

#include "core/map/map_editor.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// off: nothing is evaluated; dry-run: decisions are made and recorded, nothing queued; on.
enum class BalancerMode { Off, DryRun, On };
const char* balancerModeName(BalancerMode mode);
std::optional<BalancerMode> parseBalancerMode(std::string_view name);

// When the balancer may queue work: on the listed days (0 Sunday .. 6 Saturday; none: every day)
// from startMinute to endMinute past local midnight in timeZone (an IANA name such as
// "Europe/Berlin"; "UTC"). endMinute below startMinute crosses midnight into the next day (a
// window that starts on a listed day); equal ones make a window of the whole day.
struct BalancingWindow {
    std::set<int> days;
    int startMinute = 0;
    int endMinute = 0;
    std::string timeZone = "UTC";
    bool operator==(const BalancingWindow&) const = default;
};

// What one window may spend (0: no limit): moves queued, bytes moved, hours of estimated work.
struct BalancerBudget {
    std::uint64_t moves = 0;
    std::uint64_t bytes = 0;
    double workHours = 0;
    bool operator==(const BalancerBudget&) const = default;
};

struct BalancerPolicy {
    BalancerMode mode = BalancerMode::Off;
    // Split a shard above either size, merge shards below both (0: that rule is off). A merge
    // limit must stay below half the split limit, so that a merged pair is not split again.
    std::uint64_t splitAboveBytes = 0;
    std::uint64_t splitAboveDocs = 0;
    std::uint64_t mergeBelowBytes = 0;
    std::uint64_t mergeBelowDocs = 0;
    // The balance band: a shard more than this fraction above the mean (bytes, load) is moved
    // from; 0 < band <= 1.
    double bandBytes = 0.2;
    double bandLoad = 0.3;
    // A node whose disk is fuller than this fraction has its shards' spaces moved off (0: off).
    double nodeDiskLimit = 0.85;
    std::vector<std::string> excludedSpaces;
    std::vector<std::string> excludedShards;
    // No window: any time.
    std::optional<BalancingWindow> window;
    BalancerBudget budget;
    // Operations of the balancer running at once; below the executor's max_concurrent.
    std::uint32_t maxConcurrent = 1;
    // It never undoes its own work younger than this (a split then a merge of the same spaces, a
    // move and its move back).
    std::uint64_t hysteresisSeconds = 6 * 3600;
    // Guards: nothing is queued while a node's write p99 or CPU is above these (0: not checked).
    double guardWriteP99Ms = 0;
    double guardNodeCpu = 0;
    // How long its decisions' records are kept.
    std::uint64_t keepDecisionsSeconds = 7 * 24 * 3600;
    // How often the leader evaluates the policy (and on a map change, at most every 5 s).
    std::uint64_t evaluateEverySeconds = 60;

    bool operator==(const BalancerPolicy&) const = default;
};

// The map's key of the policy record.
inline constexpr std::string_view kBalancerPolicyKey = "settings/balancer";

// Every rule above, InvalidArgument naming the first field that breaks one and why;
// executorMaxConcurrent is the executor's limit the balancer's cap must stay below.
Status validateBalancerPolicy(const BalancerPolicy& policy, std::uint32_t executorMaxConcurrent);

std::string encode(const BalancerPolicy& policy);
// A stored or sent policy (depth- and size-bounded JSON); unknown keys are refused, missing ones
// take the defaults above. Not validated: validateBalancerPolicy says whether it may be set.
Result<BalancerPolicy> decodeBalancerPolicy(const std::string& json);

// Where a moment is in the window: inside it, and when the next window opens (now when inside) as
// a UTC time and in words ("Mon 01:00 Europe/Berlin"). InvalidArgument for an unknown time zone.
struct WindowPlace {
    bool inside = true;
    std::chrono::system_clock::time_point nextOpen;
    std::string nextOpenText;
};
Result<WindowPlace> placeInWindow(
    const std::optional<BalancingWindow>& window, std::chrono::system_clock::time_point now);

// The policy as the map holds it, with its record's revision (0 and the defaults, mode off, when
// the map holds none).
Result<Versioned<BalancerPolicy>> readBalancerPolicy(MetadataStore& store);
// Sets the policy: checked against the executor's max_concurrent of the same read, then one
// compare-and-set on the record as read ("set-balancer-policy", audited with the actor's reason);
// Conflict when it changed meanwhile. The store's revision after it.
Result<std::uint64_t> setBalancerPolicy(MetadataStore& store, const BalancerPolicy& policy, const Actor& actor);

} // namespace shardmap::core

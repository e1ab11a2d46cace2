#pragma once

// The balancer's state as the CLI (`shardmapctl balancer status`) and the console say it: its mode,
// the one sentence ("idle: within limits", "waiting for the window at Mon 01:00 UTC", "held: node
// n4 did not answer"), where the window stands now, the budget spent and left, the approval it
// waits for and its last decision. One reading of the records for both (issue 33).

#include "core/balancer/balancer_policy.h"
#include "core/balancer/balancer_records.h"
#include "core/store/metadata_store.h"

#include <cstdint>
#include <optional>
#include <string>

namespace shardmap::core {

struct BalancerStatus {
    BalancerPolicy policy;
    BalancerState state;
    // "off", "not evaluated yet", or the last evaluation's sentence (prefixed "dry run: " in dry run).
    std::string sentence;
    bool insideWindow = true;
    // When the window opens next ("now" inside it; "" when the window cannot be placed).
    std::string nextWindow;
    std::optional<BalancerDecision> lastDecision;
};

// From the policy and state records, the window placed at nowMs.
BalancerStatus balancerStatus(const BalancerPolicy& policy, const BalancerState& state,
    std::optional<BalancerDecision> lastDecision, std::int64_t nowMs);
// The same, read from the store.
Result<BalancerStatus> readBalancerStatus(MetadataStore& store, std::int64_t nowMs);

} // namespace shardmap::core

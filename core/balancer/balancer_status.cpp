#include "core/balancer/balancer_status.h"

// balancerStatus: the sentence and the window from the records, and their reading from a store.

#include <chrono>

namespace shardmap::core {

BalancerStatus balancerStatus(const BalancerPolicy& policy, const BalancerState& state,
    std::optional<BalancerDecision> lastDecision, std::int64_t nowMs)
{
    BalancerStatus status;
    status.policy = policy;
    status.state = state;
    status.lastDecision = std::move(lastDecision);
    auto place = placeInWindow(policy.window, std::chrono::system_clock::time_point(std::chrono::milliseconds(nowMs)));
    if (place) {
        status.insideWindow = place->inside;
        status.nextWindow = place->nextOpenText;
    }
    if (policy.mode == BalancerMode::Off)
        status.sentence = "off";
    else if (state.sentence.empty())
        status.sentence = "not evaluated yet";
    else
        status.sentence = (policy.mode == BalancerMode::DryRun ? "dry run: " : "") + state.sentence;
    return status;
}

Result<BalancerStatus> readBalancerStatus(MetadataStore& store, std::int64_t nowMs)
{
    auto policy = readBalancerPolicy(store);
    if (!policy)
        return policy.error();
    auto state = readBalancerState(store);
    if (!state)
        return state.error();
    std::optional<BalancerDecision> last;
    if (!state->value.lastDecision.empty()) {
        auto listed = store.list(balancerDecisionKey(state->value.lastDecision));
        if (!listed)
            return listed.error();
        for (const auto& [key, record] : listed->records) {
            if (auto decision = decodeBalancerDecision(record.value);
                decision && decision->id == state->value.lastDecision)
                last = std::move(*decision);
        }
    }
    return balancerStatus(policy->value, state->value, std::move(last), nowMs);
}

} // namespace shardmap::core

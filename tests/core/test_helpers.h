#pragma once

// Helpers several core test files share. They live here, not as file-local copies, so that the
// ci preset's unity sources (several test files compiled as one) see each name once.

#include "core/plan/planner.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace shardmap::testing {

inline constexpr std::uint64_t kGiB = std::uint64_t { 1 } << 30;

// An error as a failed expectation prints it: "conflict: ...".
inline std::string errorText(const core::Error& error)
{
    return std::string(core::errorCodeName(error.code)) + ": " + error.describe();
}

// The planner input's space of that id; throws when there is none.
inline const core::PlannerSpace& spaceOf(const core::PlannerInput& input, const std::string& id)
{
    for (const core::PlannerSpace& space : input.spaces) {
        if (space.id == id)
            return space;
    }
    throw std::runtime_error("no space " + id);
}

} // namespace shardmap::testing

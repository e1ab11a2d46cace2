#pragma once

// What one step of a migration or a catch-up tells the executor's worker to do next.

#include <chrono>

namespace shardmap::core {

// Continue: the next step at once; Wait: the next step after wait; Finished: the record is final.
enum class PhaseNext { Continue, Wait, Finished };

struct PhaseStep {
    PhaseNext next = PhaseNext::Continue;
    std::chrono::milliseconds wait { 0 };
};

} // namespace shardmap::core

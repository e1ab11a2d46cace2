#pragma once

// Failpoints: named places in the code where a test can make the process die, stall or fail,
// switched on by the environment (SHARDMAP_FAILPOINTS) or by setFailpoints() in-process.
//
//   SHARDMAP_FAILPOINTS="migration.cutover.fenced=kill;migration.backfill.batch=sleep(200)@3"
//
// Actions: kill (SIGKILL to this process, as `kill -9` would, at exactly that point),
// sleep(MS), hold(PATH) (waits until the file PATH exists, at most five minutes: the test says
// when the process goes on), error (the code at the point returns an Unavailable error). The
// path may not hold ';' or '@'. "@N" fires on the Nth
// hit only (1-based), "@N+" on the Nth and every later one; without it the action fires every
// time. A point that is not configured costs one relaxed atomic load.

#include "core/util/result.h"

#include <string>
#include <string_view>

namespace shardmap::core {

// Replaces the configuration (the same syntax as the variable); "" switches every point off.
// InvalidArgument for a malformed spec, leaving the previous configuration.
Status setFailpoints(const std::string& spec);

// Runs the point: kills, sleeps, or returns an error when configured to; ok otherwise.
Status failpoint(std::string_view name);

// How often the point was hit since the configuration was set (for tests).
std::uint64_t failpointHits(std::string_view name);

} // namespace shardmap::core

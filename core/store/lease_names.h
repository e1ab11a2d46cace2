#pragma once

// The names of the store leases shardmapd's replicas hold.

#include <string_view>

namespace shardmap::core {

// The store lease whose holder runs the migration executor; one holder across all replicas.
inline constexpr std::string_view kExecutorLease = "executor";
// Every shardmapd replica holds a lease named kReplicaLeasePrefix + its holder name
// ("<id>#<random>"), held by its gRPC address and renewed like the executor lease: the
// replicas alive are the live leases under this prefix (the console's overview and
// `shardmapctl health` read them).
inline constexpr std::string_view kReplicaLeasePrefix = "replicas/";

} // namespace shardmap::core

#pragma once

// The steps several change kinds share (core/admin/change_kinds.cpp and its rooms, such as
// change_kinds_copies.cpp): a malformed change's error, the admin role, and what a made change
// answers. Internal to the change kinds' table.

#include "core/admin/change_kinds.h"

#include <cstdint>
#include <span>
#include <string>

namespace shardmap::core {

namespace change_steps {

Error malformedChange(const std::string& message);
Role adminRole(const PreparedChange& prepared, const OperatorLimits& limits);
// The record a change made, as the store now is.
v1::ChangeResponse recordResponse(MetadataStore& store, const std::string& kind, const std::string& json);
// The map's revision after the change, the kind of record it changed and, when given, the record.
Result<v1::ChangeResponse> revisionResponse(
    const Result<std::uint64_t>& revision, const std::string& kind, const std::string& json = {});

} // namespace change_steps

// The kinds of change of a shard's copies (issue 30): change-replica, lose-node, set-node-zone,
// set-replication.
std::span<const ChangeKind> copyChangeKinds();
// The kind of index templates (issue 31): create-template.
std::span<const ChangeKind> templateChangeKinds();
// The kinds of snapshots (issue 32): change-snapshot (create, verify, delete) and restore-space.
std::span<const ChangeKind> snapshotChangeKinds();
// The kind of the balancer (issue 33): set-balancer-policy.
std::span<const ChangeKind> balancerChangeKinds();

} // namespace shardmap::core

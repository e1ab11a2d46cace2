#pragma once

// A store that cannot change the map, for the console's read-only connections.

#include "core/store/metadata_store.h"

#include <memory>

namespace shardmap::core {

// A store opened read-only: every read and watch goes to the store inside, every write (commit,
// lease grant, renewal or release) is refused with ErrorCode::FailedPrecondition and a message
// that says the connection is read-only, before it reaches the store. The console's read-only
// connections open their store through it, so no page, wizard or plan can change the map
// whatever its own checks do. (Enforcement by the store itself, for a user who could open it
// writable anyway, is etcd's users and roles: a viewer's etcd user, docs/SHARD_MAP.md.)
std::unique_ptr<MetadataStore> makeReadOnly(std::unique_ptr<MetadataStore> store);

// The message of the refusals ("read-only connection: ... was not changed").
bool isReadOnlyRefusal(const Error& error);

} // namespace shardmap::core

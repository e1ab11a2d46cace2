#pragma once

// A map carried forward by the commits that followed it, decoding only the records they name.

#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <span>

namespace shardmap::core {

// The map after the commits that followed it, from their audit records alone: what a reader that
// watches the store does with each commit instead of reading and decoding the whole map again (at
// a million spaces that was seconds per commit). Only the records the commits name are decoded;
// the rest is copied. Records at or before the map's revision are skipped; the rest must follow
// it one by one (FailedPrecondition names the missing revision, so the reader reads the whole map
// instead). A record that does not decode fails the whole call, as MapSnapshot::decode would.
//
// The result is indexed when the map was, and carries `changes` from the map to it, equal to
// diffMaps() of the two but computed from the keys the commits touched.
Result<MapSnapshot> applyCommits(const MapSnapshot& map, std::span<const AuditRecord> commits);

} // namespace shardmap::core

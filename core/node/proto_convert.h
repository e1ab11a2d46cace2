#pragma once

// Protobuf messages to and from core values, one mapping per message.

#include "core/shard/shard_store.h"
#include "shardmap/v1/node.pb.h"

#include <optional>

namespace shardmap::core {

// Conversions between the shardmap.v1 messages and core value types, shared by the node service,
// the node client and the router service so each field is mapped in exactly one place.
Document fromProto(const v1::Document& in);
void toProto(const Document& in, v1::Document& out);
ItemResult fromProto(const v1::ItemResult& in);
void toProto(const ItemResult& in, v1::ItemResult& out);
SearchHit fromProto(const v1::SearchHit& in);
void toProto(const SearchHit& in, v1::SearchHit& out);

// The index settings a CreateShard asks for: its index_settings_json (decoded and checked), else
// today's index over its fields, else none (the node's default). InvalidArgument with the reason
// for bad JSON, invalid settings, or fields that disagree with the settings' fields.
Result<std::optional<IndexSettings>> indexSettingsOf(const v1::CreateShardRequest& request);
// CreateShard's fields and index_settings_json for these settings (none: neither).
void toProto(const std::optional<IndexSettings>& settings, v1::CreateShardRequest& out);

} // namespace shardmap::core

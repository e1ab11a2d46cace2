#pragma once

// Protobuf messages to and from core values, one mapping per message.

#include "core/shard/shard_store.h"
#include "shardmap/v1/node.pb.h"

namespace shardmap::core {

// Conversions between the shardmap.v1 messages and core value types, shared by the node service,
// the node client and the router service so each field is mapped in exactly one place.
Document fromProto(const v1::Document& in);
void toProto(const Document& in, v1::Document& out);
ItemResult fromProto(const v1::ItemResult& in);
void toProto(const ItemResult& in, v1::ItemResult& out);
SearchHit fromProto(const v1::SearchHit& in);
void toProto(const SearchHit& in, v1::SearchHit& out);

} // namespace shardmap::core

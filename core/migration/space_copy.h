#pragma once

// What the backfill copier and the range repair share: reading a space page by page however large
// its documents, and writing in chunks under the node's request limit.

#include "core/client/node_client.h"

#include <cstdint>
#include <memory>
#include <string>

namespace shardmap::core {

// The two ends of a copy of one space (the backfill's, the range repair's): where it is read,
// where it is written, the epoch the writes carry and the page size.
struct SpaceCopyEnds {
    std::shared_ptr<NodeClient> source;
    std::string sourceShard;
    std::shared_ptr<NodeClient> target;
    std::string targetShard;
    std::string space;
    std::uint64_t epoch = 0;
    std::uint32_t batch = 1000;
    // The space's id on the target when it differs from the source's (a restore under a new id,
    // issue 32); empty: the same.
    std::string targetSpace = {};

    const std::string& spaceOnTarget() const { return targetSpace.empty() ? space : targetSpace; }
};

// A replica of a copy's target shard (issue 30): the node it is on, and that node's client. It
// holds the same shard id as the target.
struct CopyReplica {
    std::string node;
    std::shared_ptr<NodeClient> client;
};

// A bulk write to a target stays well under the node's request limit whatever the documents.
inline constexpr std::uint64_t kMaxCopyWriteBytes = 16 * 1024 * 1024;

// A page of the space (tombstones included), halving batch while the documents are too large for
// one message (RESOURCE_EXHAUSTED); batch keeps the size that worked.
Result<ScanPage> scanSized(NodeClient& client, const std::string& shard, const std::string& space,
    const std::string& after, std::uint32_t& batch);

// Where the write chunk starting at begin ends: at least one document, then until the chunk
// reaches kMaxCopyWriteBytes.
template <typename DocOf> std::size_t chunkEnd(std::size_t begin, std::size_t size, DocOf docOf)
{
    std::uint64_t bytes = 0;
    std::size_t end = begin;
    for (; end < size && (end == begin || bytes < kMaxCopyWriteBytes); ++end)
        bytes += documentBytes(docOf(end));
    return end;
}

} // namespace shardmap::core

#pragma once

#include "grpc/health/v1/health.grpc.pb.h"
#include "shardmap/v1/common.pb.h"
#include "tests/support/node_process.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

namespace shardmap::testing {

inline v1::Document makeDoc(const std::string& space, const std::string& id, std::uint64_t version,
    const std::string& body, const std::string& title = "title")
{
    v1::Document doc;
    doc.set_space(space);
    doc.set_id(id);
    doc.set_version(version);
    (*doc.mutable_fields())["title"] = title;
    (*doc.mutable_fields())["body"] = body;
    return doc;
}

inline v1::Document makeTombstone(const std::string& space, const std::string& id, std::uint64_t version)
{
    v1::Document doc;
    doc.set_space(space);
    doc.set_id(id);
    doc.set_version(version);
    doc.set_deleted(true);
    return doc;
}

inline grpc::Status createShard(v1::Node::Stub& stub, const std::string& shard)
{
    v1::CreateShardRequest request;
    request.set_shard_id(shard);
    v1::ShardInfo info;
    return stub.CreateShard(contextWithDeadline().get(), request, &info);
}

inline grpc::Status setOwner(v1::Node::Stub& stub, const std::string& shard, const std::string& space,
    std::uint64_t epoch, v1::SpaceRole role = v1::SPACE_ROLE_OWNER)
{
    v1::SetOwnershipRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    request.set_role(role);
    request.set_epoch(epoch);
    v1::Ownership out;
    return stub.SetOwnership(contextWithDeadline().get(), request, &out);
}

inline grpc::Status bulkWrite(v1::Node::Stub& stub, const std::string& shard, const std::vector<v1::Document>& docs,
    std::uint64_t epoch, v1::BulkWriteResponse* response)
{
    v1::BulkWriteRequest request;
    request.set_shard_id(shard);
    for (const auto& doc : docs) {
        auto* item = request.add_items();
        *item->mutable_doc() = doc;
        item->set_epoch(epoch);
    }
    return stub.BulkWrite(contextWithDeadline().get(), request, response);
}

inline v1::SpaceStats spaceStats(v1::Node::Stub& stub, const std::string& shard, const std::string& space)
{
    v1::GetSpaceStatsRequest request;
    request.set_shard_id(shard);
    request.add_spaces(space);
    v1::GetSpaceStatsResponse response;
    const auto status = stub.GetSpaceStats(contextWithDeadline().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.stats_size() ? response.stats(0) : v1::SpaceStats {};
}

inline std::vector<v1::Document> scanAll(v1::Node::Stub& stub, const std::string& shard, const std::string& space,
    bool tombstones = false, std::uint32_t batch = 100)
{
    v1::ScanRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    request.set_batch_size(batch);
    request.set_include_tombstones(tombstones);
    auto context = contextWithDeadline();
    auto reader = stub.Scan(context.get(), request);
    std::vector<v1::Document> docs;
    v1::ScanBatch page;
    while (reader->Read(&page)) {
        for (const auto& doc : page.docs())
            docs.push_back(doc);
    }
    const auto status = reader->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    return docs;
}

inline grpc::Status search(v1::Node::Stub& stub, const std::string& shard, const std::vector<std::string>& spaces,
    const std::string& query, v1::SearchResponse* response, std::uint32_t limit = 50)
{
    v1::SearchRequest request;
    request.set_shard_id(shard);
    for (const auto& space : spaces)
        request.add_spaces(space);
    request.set_query(query);
    request.set_limit(limit);
    request.set_snippets(true);
    return stub.Search(contextWithDeadline().get(), request, response);
}

} // namespace shardmap::testing

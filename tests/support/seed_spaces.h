#pragma once

// Spaces with documents, made the way an application's first writes would leave them: the space
// records in the map (owned by one shard at epoch 1) and the documents on the shard's node.

#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace shardmap::testing {

// docs[i % docs.size()] documents of ~300 bytes for spaces[i]; the records in chunks of 100 per
// commit (etcd takes at most 126 mutations in one).
inline void seedSpaces(core::MetadataStore& store, core::NodeClient& node, const std::string& shard,
    const std::vector<std::string>& spaces, const std::vector<int>& docs)
{
    std::vector<core::Mutation> mutations;
    for (const auto& space : spaces) {
        core::SpaceRecord record;
        record.id = space;
        record.shard = shard;
        mutations.push_back({ core::keys::space(space), core::encode(record), 0 });
    }
    for (std::size_t first = 0; first < mutations.size(); first += 100) {
        const auto end = std::min(first + 100, mutations.size());
        std::vector<core::Mutation> chunk(mutations.begin() + static_cast<std::ptrdiff_t>(first),
            mutations.begin() + static_cast<std::ptrdiff_t>(end));
        auto committed = store.commit({ chunk, std::nullopt, std::nullopt, "tester", "create-space", "" });
        ASSERT_TRUE(committed) << committed.error().describe();
    }
    std::vector<core::WriteItem> items;
    for (std::size_t s = 0; s < spaces.size(); ++s) {
        ASSERT_TRUE(node.setOwnership(shard, { spaces[s], core::SpaceRole::Owner, 1 }));
        for (int i = 0; i < docs[s % docs.size()]; ++i)
            items.push_back(
                { { spaces[s], "doc-" + std::to_string(i), 1,
                      { { "title", "t" }, { "body", std::string(300, static_cast<char>('a' + i % 26)) } }, false },
                    1 });
    }
    auto written = node.bulkWrite(shard, items);
    ASSERT_TRUE(written) << written.error().describe();
}

} // namespace shardmap::testing

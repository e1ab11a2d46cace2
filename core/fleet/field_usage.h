#pragma once

// Which spaces still hold documents in the fields a template's next version drops (issue 31):
// the nodes of the shards built with the template are asked (a scan of each shard), and the
// answer is said in sentences that the console's template editor and `shardmapctl template diff`
// both show.

#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/util/index_settings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

struct RemovedFieldUse {
    std::string field;
    std::string shard;
    std::string space;
    std::uint64_t documents = 0;
};

struct RemovedFieldsCheck {
    std::vector<std::string> fields; // the fields asked about
    std::vector<RemovedFieldUse> uses;
    // Shards that could not be asked, each with why: they may hold such documents.
    std::vector<std::string> unanswered;
};

// The fields of `from` that `to` does not have, in `from`'s order.
std::vector<std::string> removedFields(const IndexSettings& from, const IndexSettings& to);

// Asks every shard built with any version of `templateName` (retired ones aside) through its
// primary's node. Blocks on the nodes: call it off the UI thread.
RemovedFieldsCheck findRemovedFieldsInUse(NodeClientPool& nodes, const MapSnapshot& map,
    const std::string& templateName, const std::vector<std::string>& fields);

// One sentence per field and space holding it (the largest first, at most `limit` of them, then
// how many more), one per shard not answered; "no space ..." when none holds them.
std::vector<std::string> describeRemovedFieldsInUse(const RemovedFieldsCheck& check, std::size_t limit = 10);

} // namespace shardmap::core

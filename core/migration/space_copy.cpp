// scanSized's implementation: a page asked for again at half the batch while it is too large.
#include "core/migration/space_copy.h"

#include <algorithm>

namespace shardmap::core {

Result<ScanPage> scanSized(NodeClient& client, const std::string& shard, const std::string& space,
    const std::string& after, std::uint32_t& batch)
{
    for (;;) {
        auto page = client.scanPage(shard, space, after, batch, true);
        if (page || page.error().code != ErrorCode::ResourceExhausted || batch <= 1)
            return page;
        batch = std::max<std::uint32_t>(1, batch / 2);
    }
}

} // namespace shardmap::core

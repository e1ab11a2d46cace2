#pragma once

// A node's shards in a sample matched to a model's rows once, reused while the shards and the
// rows stay the same.

#include "core/client/node_client.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::widgets {

// Where each shard of a node's sample sits in a model, kept from the node's last sample. A node
// lists its shards in the same order in every sample, so one pass comparing the ids (short,
// stored side by side) replaces a hash lookup per shard: at 700 shards a node and a sample a
// second from each of 50 nodes, those lookups were a quarter of the console's UI thread.
//
// The model passes the generation of its rows, which it bumps whenever rows come, go or move;
// find maps a shard id to the model's place for it (or a value meaning none).
template <typename Place> class SampleRows {
public:
    template <typename Find>
    const std::vector<Place>& of(const core::NodeMetricsValue& sample, std::uint64_t rowsGeneration, Find find)
    {
        if (!matches(sample, rowsGeneration)) {
            m_generation = rowsGeneration;
            m_ids.clear();
            m_places.clear();
            m_ids.reserve(sample.shards.size());
            m_places.reserve(sample.shards.size());
            for (const core::ShardMetricsValue& shard : sample.shards) {
                m_ids.push_back(shard.shard);
                m_places.push_back(find(shard.shard));
            }
            m_valid = true;
        }
        return m_places;
    }

private:
    bool matches(const core::NodeMetricsValue& sample, std::uint64_t rowsGeneration) const
    {
        if (!m_valid || m_generation != rowsGeneration || m_ids.size() != sample.shards.size()) {
            return false;
        }
        for (std::size_t i = 0; i < m_ids.size(); ++i) {
            if (m_ids[i] != sample.shards[i].shard) {
                return false;
            }
        }
        return true;
    }

    bool m_valid = false;
    std::uint64_t m_generation = 0;
    std::vector<std::string> m_ids;
    std::vector<Place> m_places;
};

} // namespace shardmap::widgets

// The removed-fields check of a template's next version: which fields go, which spaces hold
// documents in them (asked of the shards' nodes), and the sentences that say what becomes of those
// values at the reindex.

#include "core/fleet/field_usage.h"

#include "core/map/index_templates.h"

#include <algorithm>

namespace shardmap::core {

std::vector<std::string> removedFields(const IndexSettings& from, const IndexSettings& to)
{
    std::vector<std::string> out;
    for (const IndexField& field : from.fields) {
        if (!to.field(field.name))
            out.push_back(field.name);
    }
    return out;
}

RemovedFieldsCheck findRemovedFieldsInUse(NodeClientPool& nodes, const MapSnapshot& map,
    const std::string& templateName, const std::vector<std::string>& fields)
{
    RemovedFieldsCheck check { fields, {}, {} };
    if (fields.empty())
        return check;
    for (const auto& [id, entry] : map.shards) {
        const ShardRecord& shard = entry.value;
        if (shard.state == ShardState::Retired || templateOf(shard).name != templateName)
            continue;
        const NodeRecord* node = map.node(shard.node);
        auto client = node ? nodes.get(node->address)
                           : Result<std::shared_ptr<NodeClient>>(
                               makeError(ErrorCode::NotFound, "its node " + shard.node + " is not in the map"));
        auto uses = client ? (*client)->fieldUsage(id, fields) : Result<std::vector<FieldUse>>(client.error());
        if (!uses) {
            check.unanswered.push_back("shard " + id + " (node " + shard.node + "): " + uses.error().message);
            continue;
        }
        for (const FieldUse& use : *uses)
            check.uses.push_back({ use.field, id, use.space, use.documents });
    }
    std::stable_sort(check.uses.begin(), check.uses.end(),
        [](const RemovedFieldUse& a, const RemovedFieldUse& b) { return a.documents > b.documents; });
    return check;
}

std::vector<std::string> describeRemovedFieldsInUse(const RemovedFieldsCheck& check, std::size_t limit)
{
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < check.uses.size() && i < limit; ++i) {
        const RemovedFieldUse& use = check.uses[i];
        lines.push_back("space " + use.space + " has " + std::to_string(use.documents) + " document"
            + (use.documents == 1 ? "" : "s") + " with field " + use.field + " (shard " + use.shard
            + "): after the reindex their values are searched as other text, no longer by " + use.field + ":term");
    }
    if (check.uses.size() > limit)
        lines.push_back("and " + std::to_string(check.uses.size() - limit) + " more space(s) with documents in "
            + (check.fields.size() == 1 ? "that field" : "those fields"));
    for (const std::string& shard : check.unanswered)
        lines.push_back("not known for " + shard + "; it may hold documents with the removed fields");
    if (lines.empty() && !check.fields.empty()) {
        std::string names;
        for (const std::string& field : check.fields)
            names += (names.empty() ? "" : ", ") + field;
        lines.push_back(
            "no space has documents with field" + std::string(check.fields.size() == 1 ? " " : "s ") + names);
    }
    return lines;
}

} // namespace shardmap::core

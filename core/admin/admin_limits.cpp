#include "core/admin/admin_limits.h"

#include "core/util/validation.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

namespace {

// One text of a request and the most bytes it may have.
struct Bounded {
    std::string_view field;
    const std::string& value;
    std::size_t most;
};

Status tooLarge(const std::string& field, std::size_t size, std::size_t most, std::string_view unit = "bytes")
{
    return makeError(ErrorCode::InvalidArgument,
        field + " is " + std::to_string(size) + " " + std::string(unit) + "; the Admin API takes at most "
            + std::to_string(most));
}

Status checkAll(std::string_view prefix, std::initializer_list<Bounded> texts)
{
    for (const Bounded& text : texts) {
        if (text.value.size() > text.most)
            return tooLarge(std::string(prefix) + std::string(text.field), text.value.size(), text.most);
    }
    return {};
}

Status checkLabels(const v1::AddNode& node)
{
    const std::string where = "change.add_node.labels";
    if (static_cast<std::size_t>(node.labels_size()) > kMaxNodeLabels)
        return tooLarge(where, static_cast<std::size_t>(node.labels_size()), kMaxNodeLabels, "labels");
    for (const auto& [key, value] : node.labels()) {
        if (key.size() > kMaxLabelKeyBytes)
            return tooLarge(where + " key", key.size(), kMaxLabelKeyBytes);
        if (auto status = checkAll(where + "[" + key + "]", { { "", value, kMaxLabelValueBytes } }); !status)
            return status;
    }
    return {};
}

Status checkFields(const v1::CreateShard& shard)
{
    const std::string where = "change.create_shard.fields";
    if (static_cast<std::size_t>(shard.fields_size()) > kMaxSchemaFields)
        return tooLarge(where, static_cast<std::size_t>(shard.fields_size()), kMaxSchemaFields, "fields");
    for (const std::string& field : shard.fields()) {
        if (field.size() > kMaxFieldNameLength)
            return tooLarge(where + " entry", field.size(), kMaxFieldNameLength);
    }
    return {};
}

Status checkMoves(const v1::MoveSpaces& moves)
{
    const std::string where = "change.move_spaces.moves";
    if (static_cast<std::size_t>(moves.moves_size()) > kMaxMovesPerRequest)
        return tooLarge(where, static_cast<std::size_t>(moves.moves_size()), kMaxMovesPerRequest, "moves");
    for (const auto& move : moves.moves()) {
        if (auto status = checkAll(where + ".",
                { { "space", move.space(), kMaxSpaceIdLength },
                    { "target_shard", move.target_shard(), kMaxShardIdLength } });
            !status)
            return status;
    }
    return {};
}

Status checkChange(const v1::AdminChange& change)
{
    switch (change.change_case()) {
    case v1::AdminChange::kQueueMigration: {
        const auto& queue = change.queue_migration();
        return checkAll("change.queue_migration.",
            { { "space", queue.space(), kMaxSpaceIdLength },
                { "target_shard", queue.target_shard(), kMaxShardIdLength } });
    }
    case v1::AdminChange::kSteerMigration:
        return checkAll(
            "change.steer_migration.", { { "migration", change.steer_migration().migration(), kMaxNameBytes } });
    case v1::AdminChange::kSetThrottle:
        return checkAll("change.set_throttle.", { { "migration", change.set_throttle().migration(), kMaxNameBytes } });
    case v1::AdminChange::kSetSettings:
        return checkAll("change.set_settings.",
            { { "settings_json", change.set_settings().settings_json(), kMaxSettingsJsonBytes } });
    case v1::AdminChange::kApplyPlan:
        return checkAll("change.apply_plan.", { { "plan_json", change.apply_plan().plan_json(), kMaxPlanJsonBytes } });
    case v1::AdminChange::kStartOperation: {
        const auto& operation = change.start_operation();
        // The subject is a shard, a node or a space: the longest of those ids.
        return checkAll("change.start_operation.",
            { { "kind", operation.kind(), kMaxNameBytes }, { "subject", operation.subject(), kMaxSpaceIdLength },
                { "into", operation.into(), kMaxShardIdLength }, { "node", operation.node(), kMaxShardIdLength } });
    }
    case v1::AdminChange::kMoveSpaces: return checkMoves(change.move_spaces());
    case v1::AdminChange::kAddNode: {
        const auto& node = change.add_node();
        if (auto status = checkAll("change.add_node.",
                { { "id", node.id(), kMaxShardIdLength }, { "address", node.address(), kMaxAddressBytes } });
            !status)
            return status;
        return checkLabels(node);
    }
    case v1::AdminChange::kRemoveNode:
        return checkAll("change.remove_node.", { { "id", change.remove_node().id(), kMaxShardIdLength } });
    case v1::AdminChange::kCreateShard: {
        const auto& shard = change.create_shard();
        if (auto status = checkAll("change.create_shard.",
                { { "id", shard.id(), kMaxShardIdLength }, { "node", shard.node(), kMaxShardIdLength } });
            !status)
            return status;
        return checkFields(shard);
    }
    case v1::AdminChange::kSetShardState: {
        const auto& state = change.set_shard_state();
        return checkAll("change.set_shard_state.",
            { { "shard", state.shard(), kMaxShardIdLength }, { "state", state.state(), kMaxNameBytes } });
    }
    case v1::AdminChange::kPinSpace: {
        const auto& pin = change.pin_space();
        return checkAll("change.pin_space.",
            { { "space", pin.space(), kMaxSpaceIdLength }, { "shard", pin.shard(), kMaxShardIdLength } });
    }
    case v1::AdminChange::kReassignSpace: {
        const auto& reassign = change.reassign_space();
        return checkAll("change.reassign_space.",
            { { "space", reassign.space(), kMaxSpaceIdLength }, { "shard", reassign.shard(), kMaxShardIdLength } });
    }
    case v1::AdminChange::kSetAccessPolicy:
        return checkAll("change.set_access_policy.",
            { { "policy_json", change.set_access_policy().policy_json(), kMaxPolicyJsonBytes } });
    case v1::AdminChange::CHANGE_NOT_SET: break;
    }
    return {};
}

// The path of the first string field (in nested messages, lists and maps too) that is not UTF-8,
// "change.add_node.labels.key"; empty when there is none.
std::string firstNonUtf8Field(const google::protobuf::Message& message, const std::string& prefix)
{
    using google::protobuf::FieldDescriptor;
    const google::protobuf::Reflection& reflection = *message.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    reflection.ListFields(message, &fields);
    std::string scratch;
    for (const FieldDescriptor* field : fields) {
        const std::string path = prefix + field->name();
        const int count = field->is_repeated() ? reflection.FieldSize(message, field) : 1;
        for (int i = 0; i < count; ++i) {
            if (field->type() == FieldDescriptor::TYPE_STRING) {
                const std::string& text = field->is_repeated()
                    ? reflection.GetRepeatedStringReference(message, field, i, &scratch)
                    : reflection.GetStringReference(message, field, &scratch);
                if (!isValidUtf8(text))
                    return path;
            } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
                const auto& inner = field->is_repeated() ? reflection.GetRepeatedMessage(message, field, i)
                                                         : reflection.GetMessage(message, field);
                if (std::string found = firstNonUtf8Field(inner, path + "."); !found.empty())
                    return found;
            }
        }
    }
    return {};
}

} // namespace

Status checkUtf8(const google::protobuf::Message& request)
{
    if (const std::string field = firstNonUtf8Field(request, ""); !field.empty())
        return makeError(ErrorCode::InvalidArgument, field + " is not valid UTF-8; the Admin API takes text only");
    return {};
}

Status checkChangeRequestText(const v1::ChangeRequest& request)
{
    // The fields first, so that a refusal names the one that is too large.
    if (auto status = checkAll("", { { "reason", request.reason(), kMaxReasonBytes } }); !status)
        return status;
    if (auto status = checkChange(request.change()); !status)
        return status;
    if (const std::size_t size = request.ByteSizeLong(); size > kMaxChangeRequestBytes)
        return tooLarge("the change request", size, kMaxChangeRequestBytes);
    return checkUtf8(request);
}

Status checkDecideRequestText(const v1::DecideRequest& request)
{
    if (auto status
        = checkAll("", { { "id", request.id(), kMaxNameBytes }, { "reason", request.reason(), kMaxReasonBytes } });
        !status)
        return status;
    return checkUtf8(request);
}

} // namespace shardmap::core

// The Admin API's request limits' implementation: each kind's own texts are bounded by its entry
// in change_kinds.cpp; what every request shares (the reason, UTF-8, the whole size) is checked here.
#include "core/admin/admin_limits.h"

#include "core/admin/change_kinds.h"
#include "core/util/validation.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

Status overTextBound(const std::string& field, std::size_t size, std::size_t most, std::string_view unit)
{
    return makeError(ErrorCode::InvalidArgument,
        field + " is " + std::to_string(size) + " " + std::string(unit) + "; the Admin API takes at most "
            + std::to_string(most));
}

Status checkTextBounds(std::string_view prefix, std::initializer_list<BoundedText> texts)
{
    for (const BoundedText& text : texts) {
        if (text.value.size() > text.most)
            return overTextBound(std::string(prefix) + std::string(text.field), text.value.size(), text.most);
    }
    return {};
}

namespace {

// The texts of the change's kind (core/admin/change_kinds.cpp); a change that names no kind has none.
Status checkChange(const v1::AdminChange& change)
{
    const ChangeKind* kind = findChangeKind(change);
    return kind ? kind->checkText(change) : Status {};
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
    if (auto status = checkTextBounds("", { { "reason", request.reason(), kMaxReasonBytes } }); !status)
        return status;
    if (auto status = checkChange(request.change()); !status)
        return status;
    if (const std::size_t size = request.ByteSizeLong(); size > kMaxChangeRequestBytes)
        return overTextBound("the change request", size, kMaxChangeRequestBytes);
    return checkUtf8(request);
}

Status checkDecideRequestText(const v1::DecideRequest& request)
{
    if (auto status = checkTextBounds(
            "", { { "id", request.id(), kMaxNameBytes }, { "reason", request.reason(), kMaxReasonBytes } });
        !status)
        return status;
    return checkUtf8(request);
}

} // namespace shardmap::core

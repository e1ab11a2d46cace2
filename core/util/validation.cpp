// The validators' implementation: identifier characters and lengths, and a UTF-8 check that
// refuses overlong forms, surrogates and code points past U+10FFFF.
#include "core/util/validation.h"

#include <string>

namespace shardmap::core {

namespace {

bool isIdChar(char c, std::string_view extra)
{
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return alnum || extra.find(c) != std::string_view::npos;
}

std::string quoted(std::string_view text)
{
    constexpr std::size_t kShown = 40;
    std::string out = "'" + std::string(text.substr(0, kShown));
    if (text.size() > kShown)
        out += "...";
    return out + "'";
}

Status validateIdentifier(
    std::string_view what, std::string_view value, std::size_t maxLength, std::string_view extraChars)
{
    if (value.empty())
        return makeError(ErrorCode::InvalidArgument, std::string(what) + " is empty");
    if (value.size() > maxLength)
        return makeError(ErrorCode::InvalidArgument,
            std::string(what) + " " + quoted(value) + " is " + std::to_string(value.size())
                + " characters long; the limit is " + std::to_string(maxLength));
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (!isIdChar(value[i], extraChars))
            return makeError(ErrorCode::InvalidArgument,
                std::string(what) + " " + quoted(value) + " has a character outside [A-Za-z0-9"
                    + std::string(extraChars) + "] at position " + std::to_string(i));
    }
    return {};
}

int utf8SequenceLength(unsigned char lead)
{
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return 2;
    if (lead >= 0xE0 && lead <= 0xEF)
        return 3;
    if (lead >= 0xF0 && lead <= 0xF4)
        return 4;
    return 0;
}

// Well-formed UTF-8 (Unicode table 3-7), as protobuf checks string fields: no overlong forms,
// no surrogates, nothing past U+10FFFF.
bool secondByteFits(unsigned char lead, unsigned char second)
{
    switch (lead) {
    case 0xE0: return second >= 0xA0;
    case 0xED: return second <= 0x9F;
    case 0xF0: return second >= 0x90;
    case 0xF4: return second <= 0x8F;
    default: return true;
    }
}

} // namespace

Status validateSpaceId(std::string_view space)
{
    return validateIdentifier("space id", space, kMaxSpaceIdLength, "._:-");
}

Status validateShardId(std::string_view shard)
{
    if (auto status = validateIdentifier("shard id", shard, kMaxShardIdLength, "._-"); !status)
        return status;
    if (shard.front() == '.')
        return makeError(ErrorCode::InvalidArgument, "shard id " + quoted(shard) + " must not start with '.'");
    return {};
}

Status validateDocId(std::string_view id)
{
    if (id.empty())
        return makeError(ErrorCode::InvalidArgument, "document id is empty");
    if (id.size() > kMaxDocIdBytes)
        return makeError(ErrorCode::InvalidArgument,
            "document id " + quoted(id) + " is " + std::to_string(id.size()) + " bytes; the limit is "
                + std::to_string(kMaxDocIdBytes));
    if (!isValidUtf8(id))
        return makeError(ErrorCode::InvalidArgument, "document id is not valid UTF-8");
    for (char c : id) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
            return makeError(ErrorCode::InvalidArgument, "document id " + quoted(id) + " contains a control character");
    }
    return {};
}

Status validateEpoch(std::uint64_t epoch)
{
    if (epoch == 0)
        return makeError(ErrorCode::InvalidArgument, "epoch must be at least 1");
    if (epoch > kMaxEpoch)
        return makeError(ErrorCode::InvalidArgument,
            "epoch " + std::to_string(epoch) + " is above the largest, " + std::to_string(kMaxEpoch)
                + " (2^62): epochs grow by one per ownership change, and a shard holding a larger one could never "
                  "be fenced again");
    return {};
}

Status validateFieldName(std::string_view field)
{
    if (field.empty() || field.size() > kMaxFieldNameLength)
        return makeError(ErrorCode::InvalidArgument,
            "field name " + quoted(field) + " must be 1-" + std::to_string(kMaxFieldNameLength) + " characters");
    if (field.front() < 'a' || field.front() > 'z')
        return makeError(ErrorCode::InvalidArgument, "field name " + quoted(field) + " must start with a-z");
    for (char c : field) {
        if (!isIdChar(c, "_") || (c >= 'A' && c <= 'Z'))
            return makeError(
                ErrorCode::InvalidArgument, "field name " + quoted(field) + " may use only a-z, 0-9 and _");
    }
    return {};
}

bool isValidUtf8(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const int length = utf8SequenceLength(lead);
        if (length == 0 || i + static_cast<std::size_t>(length) > text.size())
            return false;
        for (int k = 1; k < length; ++k) {
            if ((static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]) & 0xC0) != 0x80)
                return false;
        }
        if (length > 1 && !secondByteFits(lead, static_cast<unsigned char>(text[i + 1])))
            return false;
        i += static_cast<std::size_t>(length);
    }
    return true;
}

} // namespace shardmap::core
